//! `nodebench http load` end to end: bad input gets one clear line and a
//! non-zero exit (never a panic), an unreachable target fails fast, a run
//! against the built-in server reports what the server counted, and the
//! client's memory does not grow with the length of a run.

use crate::common;

use std::os::unix::process::ExitStatusExt;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use common::{bin, closed_port, json, metric, one_line_error, stderr};
use nodebench_http::server::{Server, ServerConfig, ServerHandle};

/// `nodebench --no-save -q http load ARGS`.
fn load(args: &[&str]) -> Output {
    common::run(&[&["http", "load"], args].concat())
}

fn server() -> ServerHandle {
    Server::bind(ServerConfig {
        threads: 1,
        keepalive_requests: 0,
        ..ServerConfig::default()
    })
    .unwrap()
    .spawn()
}

#[test]
fn malformed_urls_and_schemes_name_the_url_and_the_form() {
    one_line_error(
        &load(&["not a url"]),
        2,
        &["'not a url'", "http://HOST[:PORT]/PATH"],
    );
    one_line_error(
        &load(&["ftp://example.org/file"]),
        2,
        &["'ftp://example.org/file'", "unsupported scheme", "https://"],
    );
    one_line_error(&load(&["http://127.0.0.1:99999/"]), 2, &["invalid port"]);
}

#[test]
fn zero_counts_and_rates_name_the_flag() {
    one_line_error(
        &load(&["-n", "0", "http://127.0.0.1:1/"]),
        2,
        &["--requests", "expected a positive count, got 0"],
    );
    one_line_error(
        &load(&["--rate", "0", "http://127.0.0.1:1/"]),
        2,
        &["--rate", "expected a positive rate"],
    );
    one_line_error(
        &load(&["-c", "0", "http://127.0.0.1:1/"]),
        2,
        &["--concurrency", "1 to 100000"],
    );
    one_line_error(
        &load(&["--rate", "100", "-t", "1s", "http://127.0.0.1:1/"]),
        2,
        &["--rate", "--time-limit"],
    );
    one_line_error(
        &load(&["-H", "no colon", "http://127.0.0.1:1/"]),
        2,
        &["--header", "Name: value"],
    );
    one_line_error(
        &load(&["--streams", "0", "http://127.0.0.1:1/"]),
        2,
        &["--streams", "1..=1024"],
    );
    // Refused by the load config's check, before anything runs.
    one_line_error(
        &load(&["--streams", "4", "-k", "http://127.0.0.1:1/"]),
        2,
        &["http.load: --streams: needs --http2"],
    );
    one_line_error(
        &load(&["--streams", "4", "--http2", "http://127.0.0.1:1/"]),
        2,
        &["http.load: --streams: needs -k"],
    );
}

#[test]
fn an_unreachable_target_fails_fast_with_one_line() {
    let port = closed_port();
    let url = format!("http://127.0.0.1:{port}/");
    let t = Instant::now();
    let o = load(&["-n", "100000", "-c", "10", &url]);
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    one_line_error(
        &o,
        1,
        &[&format!(
            "error: http.load: cannot connect to 127.0.0.1:{port}: connection refused"
        )],
    );
}

#[test]
fn a_run_reports_what_the_server_served_and_prints_ab_lines() {
    let h = server();
    let url = format!("http://{}/1150", h.local_addr());
    let o = load(&["-k", "-n", "500", "-c", "5", &url]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = String::from_utf8_lossy(&o.stdout);
    for want in [
        "Complete requests:      500",
        "Document Length:        1150 bytes",
        "Failed requests:        0",
        "Percentage of the requests served within a certain time (ms)",
        "Reply status: 1xx=0 2xx=500 3xx=0 4xx=0 5xx=0",
    ] {
        assert!(text.contains(want), "{want:?} missing from\n{text}");
    }
    assert_eq!(h.requests_served(), 500);

    let o = bin()
        .args([
            "--no-save",
            "--json",
            "-q",
            "http",
            "load",
            "--rate",
            "400",
            "-n",
            "200",
        ])
        .arg(&url)
        .output()
        .unwrap();
    let run = json(&o);
    let r = &run["results"][0];
    assert_eq!(r["benchmark"], "http.load");
    assert_eq!(metric(r, "requests_completed", &[]), 200.0);
    assert_eq!(h.requests_served(), 700);
    h.stop();
}

/// Runs the CLI and returns its peak RSS in KiB (wait4's ru_maxrss).
// The child is reaped by wait4 (for its rusage), not by Child::wait.
#[allow(clippy::zombie_processes)]
fn max_rss_kib(args: &[&str]) -> i64 {
    let child = bin()
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: rusage is plain data for wait4 to fill; pid is our child.
    let ru = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        assert_eq!(libc::wait4(pid, &mut status, 0, &mut ru), pid);
        ru
    };
    let code = std::process::ExitStatus::from_raw(status);
    assert!(code.success(), "nodebench {args:?}: {code}");
    ru.ru_maxrss
}

#[test]
fn memory_stays_flat_however_long_the_run() {
    let h = server();
    let url = format!("http://{}/1150", h.local_addr());
    let run = |n: &str| {
        max_rss_kib(&[
            "--no-save",
            "--json",
            "-q",
            "http",
            "load",
            "-k",
            "--rate",
            "50000",
            "-c",
            "50",
            "-n",
            n,
            &url,
        ])
    };
    // Warm-up run, then a short and an eight times longer run.
    run("5000");
    let short = run("25000");
    let long = run("200000");
    h.stop();
    // 175k more requests: any per-request allocation kept (a latency
    // list, say) would add megabytes; histograms and per-second buckets
    // are bounded.
    assert!(
        long - short < 3 * 1024,
        "peak RSS grew from {short} KiB to {long} KiB over 175000 more requests"
    );
}
