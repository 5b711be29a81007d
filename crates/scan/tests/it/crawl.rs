//! The crawl against real servers: a directory listing that only a link
//! on the home page names (`/pub/files/`) is found on Debian's apache2 and
//! nginx as installed, and not without the crawl; per-directory soft-404
//! calibration on a server whose wiki answers 200 to every path below it,
//! with the suppressed candidates listed by `verbose`.

use crate::common;

use std::sync::Mutex;
use std::time::Instant;

use common::{
    Setup, TestServer, apache, config, ids, nginx, read_head, read_whole_head, scan,
    servers_available,
};
use nodebench_core::names::scan::{metric, param};
use nodebench_scan::config::ScanConfig;

/// One scan at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// The requests of the directory-listing findings.
fn listings(found: &[nodebench_core::finding::Finding]) -> Vec<String> {
    found
        .iter()
        .filter(|f| f.id == "disclosure.directory-listing")
        .map(|f| f.request.clone())
        .collect()
}

#[test]
fn the_crawl_finds_a_listing_linked_from_the_home_page() {
    let _s = serial();
    if !servers_available() {
        return;
    }
    for (name, server) in [
        ("apache2", apache(Setup::AsInstalled, "www-data")),
        ("nginx", nginx(Setup::AsInstalled)),
    ] {
        let start = Instant::now();
        let (r, found) = scan(config(&server.url()));
        let took = start.elapsed().as_secs_f64();
        let listed = listings(&found);
        assert!(
            listed.contains(&"GET /pub/files/ HTTP/1.1".to_string()),
            "{name}: {listed:?}"
        );
        let crawled = r
            .param(param::CRAWLED)
            .unwrap()
            .as_str()
            .unwrap()
            .to_string();
        let pages = r.metric(metric::PAGES_CRAWLED, &[]).unwrap().value;
        assert!(pages >= 3.0, "{name}: {crawled}");
        let dirs = r.param(param::DIRECTORIES).unwrap().to_string();
        assert!(dirs.contains("/pub/files/"), "{name}: {dirs}");
        assert!(
            r.warnings.is_empty(),
            "{name}: no check skipped: {:?}",
            r.warnings
        );
        eprintln!("{name} as installed, with the crawl: {crawled}; {took:.2} s");
        assert!(took < 60.0, "{name}: {took} s");

        // Without the crawl, only the fixed guesses: /pub/files/ is not among them.
        let (r, found) = scan(ScanConfig {
            crawl_pages: 0,
            ..config(&server.url())
        });
        assert!(
            !listings(&found).contains(&"GET /pub/files/ HTTP/1.1".to_string()),
            "{name}: {:?}",
            ids(&found)
        );
        assert_eq!(r.metric(metric::PAGES_CRAWLED, &[]).unwrap().value, 0.0);
    }
}

#[test]
fn a_directory_answering_200_to_everything_is_calibrated_on_its_own() {
    let _s = serial();
    // The root answers 404 to what it lacks; /wiki/ answers 200 with the
    // same page to every name below it; /wiki/.svn/ does not exist.
    let server = TestServer::start(|mut s| {
        let line = read_head(&mut s);
        let path = line.split(' ').nth(1).unwrap_or("/").to_string();
        let (status, body) = if path == "/" {
            (
                "200 OK",
                "<html><a href=\"/wiki/\">wiki</a></html>".to_string(),
            )
        } else if path.starts_with("/wiki/") {
            (
                "200 OK",
                "<html><h1>Our wiki</h1><p>Nothing written here yet. Start the page!</p></html>"
                    .to_string(),
            )
        } else {
            ("404 Not Found", "not here".to_string())
        };
        use std::io::Write;
        let _ = write!(
            s,
            "HTTP/1.1 {status}\r\nContent-Type: text/html\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
    });
    let url = format!("http://127.0.0.1:{}", server.port);
    let (r, found) = scan(ScanConfig {
        verbose: true,
        ..config(&url)
    });
    let wiki: Vec<_> = found
        .iter()
        .filter(|f| f.request.contains("/wiki/"))
        .collect();
    assert!(wiki.is_empty(), "{wiki:#?}");
    let suppressed = r.param(param::SUPPRESSED).unwrap().to_string();
    assert!(
        suppressed
            .contains("[default-content.svn-repository] GET /wiki/.svn/entries HTTP/1.1 -> 200"),
        "{suppressed}"
    );
    // Without --verbose the list is not kept.
    let (r, _) = scan(config(&url));
    assert!(r.param(param::SUPPRESSED).is_none());
}

/// Reads a request head from `s`: its first line and its `Origin` header.
fn head_and_origin(s: &mut impl std::io::Read) -> (String, Option<String>) {
    let text = read_whole_head(s);
    let line = text.lines().next().unwrap_or_default().to_string();
    let origin = text.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.eq_ignore_ascii_case("origin")
            .then(|| v.trim().to_string())
    });
    (line, origin)
}

/// Writes a reply with `status`, `content_type`, `extra` header lines and `body`.
fn reply(s: &mut impl std::io::Write, status: &str, content_type: &str, extra: &str, body: &[u8]) {
    let _ = write!(
        s,
        "HTTP/1.1 {status}\r\nContent-Type: {content_type}\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let _ = s.write_all(body);
}

#[test]
fn crawled_files_are_read_for_dumps_keys_archives_and_swap_files() {
    let _s = serial();
    // The home page links a MySQL dump, a key and an archive under names no
    // fixed guess covers, and a page whose vim swap file is served.
    let server = TestServer::start(|mut s| {
        let (line, _) = head_and_origin(&mut s);
        let path = line.split(' ').nth(1).unwrap_or("/").to_string();
        let page = |s: &mut std::net::TcpStream, body: &str| {
            reply(s, "200 OK", "text/html", "", body.as_bytes())
        };
        match path.as_str() {
            "/" => page(
                &mut s,
                "<html><a href=\"/backup/site.sql\">db</a> <a href=\"/keys/tls.pem\">key</a> \
                 <a href=\"/files/site-2026.zip\">zip</a> <a href=\"/docs/guide.html\">guide</a> \
                 <a href=\"/docs/app.js\">js</a></html>",
            ),
            "/docs/guide.html" => page(&mut s, "<html><p>INSERT INTO is SQL.</p></html>"),
            "/docs/app.js" => reply(
                &mut s,
                "200 OK",
                "text/javascript",
                "",
                b"let total = 0;\nconst x = 1;\n",
            ),
            "/backup/site.sql" => reply(
                &mut s,
                "200 OK",
                "application/sql",
                "",
                b"-- MySQL dump 10.13  Distrib 8.0.36\n--\nCREATE TABLE `users` (`id` int);\nINSERT INTO `users` VALUES (1);\n",
            ),
            "/keys/tls.pem" => reply(
                &mut s,
                "200 OK",
                "application/x-pem-file",
                "",
                b"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n-----END PRIVATE KEY-----\n",
            ),
            "/files/site-2026.zip" => reply(
                &mut s,
                "200 OK",
                "application/zip",
                "",
                b"PK\x03\x04\x14\x00\x00\x00\x08\x00index.php",
            ),
            "/docs/.guide.html.swp" => reply(
                &mut s,
                "200 OK",
                "application/octet-stream",
                "",
                b"b0VIM 9.0\x00\x00guide.html",
            ),
            _ => reply(&mut s, "404 Not Found", "text/html", "", b"not here"),
        }
    });
    let url = format!("http://127.0.0.1:{}", server.port);
    let (_, found) = scan(config(&url));
    let by_id = |id: &str| -> Vec<String> {
        found
            .iter()
            .filter(|f| f.id == id)
            .map(|f| f.request.clone())
            .collect()
    };
    assert_eq!(
        by_id("exposures.sql-dump"),
        ["GET /backup/site.sql HTTP/1.1"],
        "{found:#?}"
    );
    let dump = found.iter().find(|f| f.id == "exposures.sql-dump").unwrap();
    assert!(dump.evidence.contains("-- MySQL dump 10.13"), "{dump:?}");
    assert_eq!(
        by_id("exposures.private-key"),
        ["GET /keys/tls.pem HTTP/1.1"]
    );
    assert_eq!(
        by_id("exposures.archive"),
        ["GET /files/site-2026.zip HTTP/1.1"]
    );
    assert!(
        by_id("default-content.backup-leftover")
            .contains(&"GET /docs/.guide.html.swp HTTP/1.1".to_string()),
        "{found:#?}"
    );
    // A page quoting SQL and a script assigning variables are neither a
    // dump nor an .env file.
    assert!(
        !found
            .iter()
            .any(|f| f.request.contains("/docs/guide.html ") || f.request.contains("/docs/app.js ")),
        "{found:#?}"
    );
    assert!(by_id("default-content.env-file").is_empty(), "{found:#?}");
}

#[test]
fn a_site_wide_cors_header_is_one_finding_listing_its_paths() {
    let _s = serial();
    // Every path reflects the Origin it is sent; the crawl finds three
    // directories besides the root.
    let server = TestServer::start(|mut s| {
        let (line, origin) = head_and_origin(&mut s);
        let path = line.split(' ').nth(1).unwrap_or("/").to_string();
        let cors = origin
            .map(|o| format!("Access-Control-Allow-Origin: {o}\r\n"))
            .unwrap_or_default();
        let body = if path == "/" {
            "<html><a href=\"/a/\">a</a> <a href=\"/b/\">b</a> <a href=\"/c/\">c</a></html>"
        } else if ["/a/", "/b/", "/c/"].contains(&path.as_str()) {
            "<html><p>a section</p></html>"
        } else {
            ""
        };
        if body.is_empty() {
            reply(&mut s, "404 Not Found", "text/html", &cors, b"not here");
        } else {
            reply(&mut s, "200 OK", "text/html", &cors, body.as_bytes());
        }
    });
    let url = format!("http://127.0.0.1:{}", server.port);
    let (_, found) = scan(config(&url));
    let cors: Vec<_> = found
        .iter()
        .filter(|f| f.id == "cors.origin-reflected")
        .collect();
    assert_eq!(cors.len(), 1, "{cors:#?}");
    assert_eq!(cors[0].request, "GET / HTTP/1.1");
    assert_eq!(
        cors[0].evidence,
        "Access-Control-Allow-Origin: https://nodebench-cors.invalid; seen on 4 paths: /, /a/, /b/, /c/"
    );
    // The other site-wide header findings are one each too.
    let mut ids: Vec<&str> = found.iter().map(|f| f.id.as_str()).collect();
    let all = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), all, "{found:#?}");
}
