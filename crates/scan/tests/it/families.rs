//! The families of round two against Debian's apache2 (mod_php) and nginx
//! (php-fpm behind it): CORS, the cross-origin and permissions headers,
//! inode ETags, internal addresses in redirects, TRACK and DEBUG, the
//! exposures and the panels, each planted in the as-installed setups and
//! found there, none of them found in the hardened ones.

use crate::common;

use std::sync::Mutex;

use common::{Setup, apache, config, ids, nginx, scan, servers_available};
use nodebench_core::finding::Finding;
use nodebench_core::names::scan::param;
use nodebench_scan::config::ScanConfig;

/// One scan at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Asserts that every id of `want` is among `got`.
fn assert_found(name: &str, got: &[&str], want: &[&str]) {
    let missing: Vec<&&str> = want.iter().filter(|w| !got.contains(w)).collect();
    assert!(missing.is_empty(), "{name}: missing {missing:?} in {got:?}");
}

/// The ids of the families and checks this round added.
fn new_family(id: &str) -> bool {
    id.starts_with("cors.")
        || id.starts_with("exposures.")
        || id.starts_with("panels.")
        || id.starts_with("eol.")
        || [
            "headers.permissions-policy-missing",
            "headers.coop-missing",
            "headers.corp-missing",
            "headers.etag-inode",
            "disclosure.internal-address-location",
            "methods.track",
            "methods.debug",
        ]
        .contains(&id)
}

/// Prints the counts by severity and the distinct ids (what CI logs show).
fn summary(name: &str, r: &nodebench_core::BenchResult, found: &[Finding]) {
    let mut distinct: Vec<&str> = ids(found);
    distinct.sort();
    distinct.dedup();
    let seconds = r
        .metric(nodebench_core::names::scan::metric::SECONDS, &[])
        .map_or(0.0, |m| m.value);
    let requests = r
        .metric(nodebench_core::names::scan::metric::REQUESTS, &[])
        .map_or(0.0, |m| m.value);
    eprintln!(
        "{name}: {} findings ({} distinct checks), {requests} requests, {seconds:.1} s; {}\n  {}",
        found.len(),
        distinct.len(),
        r.param(param::CRAWLED)
            .and_then(|v| v.as_str())
            .unwrap_or(""),
        distinct.join(" ")
    );
}

fn evidence<'a>(found: &'a [Finding], id: &str) -> &'a Finding {
    found
        .iter()
        .find(|f| f.id == id)
        .unwrap_or_else(|| panic!("no {id}"))
}

/// Planted on both servers.
const BOTH: &[&str] = &[
    "headers.permissions-policy-missing",
    "headers.coop-missing",
    "headers.corp-missing",
    "disclosure.internal-address-location",
    "exposures.ds-store",
    "exposures.mercurial",
    "exposures.bazaar",
    "exposures.web-config",
    "exposures.composer",
    "exposures.npm",
    "exposures.docker",
    "exposures.log-file",
    "exposures.sql-dump",
    "exposures.crossdomain-any",
    "panels.tomcat-manager",
    "panels.phpmyadmin",
    "panels.adminer",
    "panels.spring-actuator",
    "panels.spring-actuator-env",
    "panels.jolokia",
    "panels.framework-debug",
];

#[test]
fn apache_as_installed_shows_every_new_family() {
    let _s = serial();
    if !servers_available() {
        return;
    }
    let server = apache(Setup::AsInstalled, "www-data");
    // Pinned so that PHP's branch (8.4 at the newest in the table) is past
    // its end.
    let (r, found) = scan(ScanConfig {
        as_of: Some("2030-01-01".into()),
        ..config(&server.url())
    });
    summary("apache2 as installed", &r, &found);
    let got = ids(&found);
    assert_found("apache2", &got, BOTH);
    assert_found(
        "apache2",
        &got,
        &[
            "cors.origin-reflected",
            "cors.origin-reflected-credentials",
            "headers.etag-inode",
            "methods.track",
            "methods.debug",
            "panels.userdir",
        ],
    );
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    let cors = evidence(&found, "cors.origin-reflected-credentials");
    // One finding for the site, listing the crawled paths it was seen on.
    assert!(
        cors.evidence.starts_with(
            "Access-Control-Allow-Origin: https://nodebench-cors.invalid; Access-Control-Allow-Credentials: true"
        ),
        "{cors:?}"
    );
    assert_eq!(
        found
            .iter()
            .filter(|f| f.id == "cors.origin-reflected-credentials")
            .count(),
        1
    );
    let location = evidence(&found, "disclosure.internal-address-location");
    assert!(
        location.evidence.starts_with("Location: http://10.0.0.5"),
        "{location:?}"
    );
    let track = evidence(&found, "methods.track");
    assert_eq!(
        track.request, "TRACK /app/ HTTP/1.1",
        "the crawl's directory"
    );
    // The SQL dump lies in a directory only the crawl found.
    let dump = evidence(&found, "exposures.sql-dump");
    assert_eq!(dump.request, "GET /pub/files/dump.sql HTTP/1.1");
    assert!(dump.evidence.contains("-- MariaDB dump"), "{dump:?}");
    let hg = evidence(&found, "exposures.mercurial");
    assert_eq!(hg.request, "GET /pub/.hg/requires HTTP/1.1");
    let etag = evidence(&found, "headers.etag-inode");
    assert!(etag.evidence.starts_with("ETag: "), "{etag:?}");
    let userdir = evidence(&found, "panels.userdir");
    assert_eq!(userdir.request, "GET /~www-data/ HTTP/1.1");
    // mod_php names PHP's version on the crawled PHP pages.
    let php = found
        .iter()
        .find(|f| f.id == "eol.branch-end-of-life" && f.evidence.starts_with("X-Powered-By: PHP/"))
        .unwrap_or_else(|| panic!("{found:#?}"));
    assert!(php.evidence.contains("(as of 2030-01-01)"), "{php:?}");
}

#[test]
fn nginx_as_installed_shows_every_new_family() {
    let _s = serial();
    if !servers_available() {
        return;
    }
    let server = nginx(Setup::AsInstalled);
    let (r, found) = scan(ScanConfig {
        as_of: Some("2026-11-27".into()),
        ..config(&server.url())
    });
    summary("nginx as installed", &r, &found);
    let got = ids(&found);
    assert_found("nginx", &got, BOTH);
    assert_found(
        "nginx",
        &got,
        &[
            "cors.wildcard-credentials",
            "panels.php-fpm-status",
            "panels.php-fpm-ping",
        ],
    );
    assert!(r.warnings.is_empty(), "{:?}", r.warnings);
    let status = evidence(&found, "panels.php-fpm-status");
    assert_eq!(status.request, "GET /fpm-status HTTP/1.1");
    assert!(status.evidence.contains("pool:"), "{status:?}");
    assert!(
        !got.contains(&"headers.etag-inode"),
        "nginx's ETag has no inode"
    );
    // Debian's nginx (1.22 in bookworm, 1.26 in trixie) is a stable branch
    // nginx.org no longer supports on 2026-11-27, as the table says.
    let eol = evidence(&found, "eol.branch-end-of-life");
    assert!(
        eol.evidence.starts_with("Server: nginx/1.")
            && eol.evidence.contains("without security support since"),
        "{eol:?}"
    );
    assert_eq!(r.param(param::AS_OF).unwrap().as_str(), Some("2026-11-27"));
    // On a day its branch was still supported: no such finding.
    let (_, found) = scan(ScanConfig {
        as_of: Some("2020-01-01".into()),
        ..config(&server.url())
    });
    assert!(
        !ids(&found).contains(&"eol.branch-end-of-life"),
        "{found:#?}"
    );
}

#[test]
fn the_hardened_servers_show_none_of_the_new_families() {
    let _s = serial();
    if !servers_available() {
        return;
    }
    for (name, server) in [
        ("apache2", apache(Setup::Hardened, "www-data")),
        ("nginx", nginx(Setup::Hardened)),
    ] {
        let (r, found) = scan(config(&server.url()));
        summary(&format!("{name} hardened"), &r, &found);
        let new: Vec<&Finding> = found.iter().filter(|f| new_family(&f.id)).collect();
        assert!(new.is_empty(), "{name}: {new:#?}");
        assert!(r.warnings.is_empty(), "{name}: {:?}", r.warnings);
    }
}
