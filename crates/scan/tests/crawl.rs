//! The crawl against real servers: a directory listing that only a link
//! on the home page names (`/pub/files/`) is found on Debian's apache2 and
//! nginx as installed, and not without the crawl; per-directory soft-404
//! calibration on a server whose wiki answers 200 to every path below it,
//! with the suppressed candidates listed by `verbose`.

mod common;

use std::sync::Mutex;
use std::time::Instant;

use common::{Setup, TestServer, apache, config, ids, nginx, read_head, scan, servers_available};
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
