//! `nodebench scan` end to end: the report and `--json`, `--fail-on`,
//! the built-in server without default-content findings, and the one-line
//! refusals (unreachable host, a port that is not HTTP, an unknown level,
//! a bad rate, a non-loopback host without --yes).

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::process::{Child, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::{TempStore, bin, closed_port, json, metric, one_line_error, run, stderr, stdout};

/// A loopback server answering `/.env` with an environment file and 404
/// to anything else; stopped when dropped.
struct EnvServer {
    port: u16,
    stop: Arc<AtomicBool>,
}

impl EnvServer {
    fn start() -> EnvServer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        std::thread::spawn(move || {
            while !flag.load(Ordering::Relaxed) {
                let Ok((mut s, _)) = listener.accept() else {
                    std::thread::sleep(Duration::from_millis(5));
                    continue;
                };
                s.set_nonblocking(false).unwrap();
                s.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
                let mut head = Vec::new();
                let mut b = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") && s.read(&mut b).unwrap_or(0) == 1 {
                    head.push(b[0]);
                }
                let line = String::from_utf8_lossy(&head)
                    .lines()
                    .next()
                    .unwrap_or_default()
                    .to_string();
                let (status, body) = if line.starts_with("GET /.env ") {
                    ("200 OK", "DB_PASSWORD=secret\n")
                } else {
                    ("404 Not Found", "not here\n")
                };
                let _ = write!(
                    s,
                    "HTTP/1.1 {status}\r\nContent-Length: {}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
            }
        });
        EnvServer { port, stop }
    }
}

impl Drop for EnvServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

#[test]
fn findings_print_by_severity_are_stored_and_fail_on_exits_1() {
    let server = EnvServer::start();
    let url = format!("http://127.0.0.1:{}", server.port);
    let store = TempStore::new();
    // At 1000 requests a second: the server is on loopback, and the
    // default 50 only makes the test longer.
    let scan = |more: &[&str]| {
        let mut args = vec!["-q", "--no-telemetry", "scan", &url, "--rate", "1000"];
        args.extend(more);
        store.run(&args)
    };
    let o = scan(&[]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains(&format!("http.scan [passed]  {url}: 1 high, 0 medium,")),
        "{text}"
    );
    assert!(text.contains("HIGH (1)\n  [default-content.env-file] Environment file served (.env)\n      request:  GET /.env HTTP/1.1 -> 200\n      evidence: status 200; body 'DB_PASSWORD=secret'"), "{text}");

    let o = scan(&["--fail-on", "high"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("acceptance failed: 1 of 1 threshold(s) not met"),
        "{}",
        stderr(&o)
    );
    let o = scan(&["--fail-on", "medium"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));

    let o = store.run(&[
        "-q",
        "--no-telemetry",
        "--json",
        "scan",
        &url,
        "--rate",
        "1000",
    ]);
    let run = json(&o);
    let result = &run["results"][0];
    assert_eq!(result["benchmark"], "http.scan");
    assert_eq!(metric(result, "findings", &[("severity", "high")]), 1.0);
    assert_eq!(
        result["parameters"]["findings"][0]["id"],
        "default-content.env-file"
    );
    assert_eq!(result["parameters"]["findings"][0]["status"], 200);
    // The stored runs compare like any benchmark's.
    let o = store.run(&["compare", "1", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("findings"), "{}", stdout(&o));
}

/// `nodebench http serve` on a free port (its stdout kept open: it goes
/// on printing); killed when dropped.
struct Served {
    child: Child,
    base: String,
    _stdout: BufReader<std::process::ChildStdout>,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn the_built_in_server_has_no_default_content_finding() {
    let mut child = bin()
        .args(["http", "serve", "--port", "0", "--threads", "1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    out.read_line(&mut line).unwrap();
    let base = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .trim_end_matches('/')
        .to_string();
    let served = Served {
        child,
        base,
        _stdout: out,
    };
    let o = run(&[
        "--json",
        "--no-telemetry",
        "scan",
        &served.base,
        "--rate",
        "1000",
    ]);
    let run = json(&o);
    let findings = run["results"][0]["parameters"]["findings"]
        .as_array()
        .unwrap()
        .clone();
    let content: Vec<_> = findings
        .iter()
        .filter(|f| f["id"].as_str().unwrap().starts_with("default-content."))
        .collect();
    assert!(content.is_empty(), "{content:#?}");
}

#[test]
fn targets_that_cannot_be_scanned_get_one_line() {
    let port = closed_port();
    one_line_error(
        &run(&[
            "--no-telemetry",
            "scan",
            &format!("http://127.0.0.1:{port}"),
        ]),
        1,
        &[&format!(
            "error: http.scan: cannot connect to 127.0.0.1:{port}: "
        )],
    );

    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for s in listener.incoming().take(8) {
            let _ = s.unwrap().write_all(b"220 mail.example ESMTP\r\n");
        }
    });
    one_line_error(
        &run(&[
            "--no-telemetry",
            "scan",
            &format!("http://127.0.0.1:{port}"),
        ]),
        1,
        &[&format!(
            "error: http.scan: 127.0.0.1:{port} did not answer HTTP (it sent '220 mail.example ESMTP..')"
        )],
    );

    one_line_error(
        &run(&["scan", "http://127.0.0.1:1", "--fail-on", "severe"]),
        2,
        &[
            "--fail-on",
            "unknown value 'severe' (accepted: info, low, medium, high)",
        ],
    );
    one_line_error(
        &run(&["scan", "http://127.0.0.1:1", "--rate", "0"]),
        2,
        &["error: http.scan: --rate: expected 1..=1000 requests per second, got 0"],
    );
    one_line_error(
        &run(&["scan", "http://127.0.0.1:1", "--as-of", "2026-13-01"]),
        2,
        &["error: http.scan: --as-of: expected a date YYYY-MM-DD, got '2026-13-01'"],
    );
    one_line_error(
        &run(&["scan", "http://127.0.0.1:1", "--crawl-pages", "20000"]),
        2,
        &["error: http.scan: --crawl-pages: expected 0..=10000 pages (0: no crawl), got 20000"],
    );
    one_line_error(
        &run(&["scan", "ftp://127.0.0.1"]),
        2,
        &[
            "URL 'ftp://127.0.0.1': the scheme must be http or https; expected http[s]://HOST[:PORT][/BASE]",
        ],
    );
}

#[test]
fn a_non_loopback_target_shows_the_requests_and_needs_yes() {
    // 192.0.2.0/24 is TEST-NET-1: nothing is sent, the command stops first.
    let o = run(&["--no-telemetry", "scan", "http://192.0.2.1:8080"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.starts_with("nodebench scan would send to http://192.0.2.1:8080 ("),
        "{err}"
    );
    assert!(
        err.contains("x GET: / /index.nginx-debian.html /manual/"),
        "{err}"
    );
    assert!(err.contains("1 x TRACE: /\n"), "{err}");
    // The plan: start URL, page cap, rate, then the fixed probes.
    assert!(
        err.starts_with("nodebench scan would send to http://192.0.2.1:8080 (at most 50/s, 4 at a time, within 60 s)"),
        "{err}"
    );
    assert!(
        err.contains("a same-origin crawl from http://192.0.2.1:8080/ (links, forms, scripts, stylesheets, /robots.txt, /sitemap.xml; query strings dropped): at most 200 GETs, 5 links deep"),
        "{err}"
    );
    assert!(err.contains("the fixed probes ("), "{err}");
    let o = run(&[
        "--no-telemetry",
        "scan",
        "http://192.0.2.1:8080",
        "--crawl-pages",
        "7",
        "--rate",
        "10",
    ]);
    let err = stderr(&o);
    assert!(
        err.contains("(at most 10/s,") && err.contains("at most 7 GETs"),
        "{err}"
    );
    assert!(
        err.trim_end().ends_with("'192.0.2.1' is not a loopback address: the scan sends the requests listed above to it; pass --yes to send them"),
        "{err}"
    );
}
