//! Benchmarks against servers they start in this process: `http load|sweep|
//! download /PATH` (the built-in HTTP server, `--server-threads`) and `net
//! tcp|udp|pingpong --loopback` (the iperf3-compatible server, the ping-pong
//! echo), with their refusals.

use crate::common;

use common::{json, one_line_error, run};
use serde_json::Value;

/// The only result of a `--json` run of `args`.
fn only_result(args: &[&str]) -> Value {
    let out = json(
        &common::bin()
            .args(["--no-save", "--json"])
            .args(args)
            .output()
            .unwrap(),
    );
    let results = out["results"].as_array().unwrap();
    assert_eq!(results.len(), 1, "{out}");
    results[0].clone()
}

#[test]
fn http_load_of_a_path_runs_against_the_built_in_server_and_checks_its_count() {
    let r = only_result(&[
        "http",
        "load",
        "-n",
        "200",
        "-c",
        "4",
        "--server-threads",
        "2",
        "/bytes/3985",
    ]);
    assert_eq!(r["status"], "passed", "{:?}", r["error"]);
    assert_eq!(r["parameters"]["target"], "built-in, in-process");
    assert_eq!(r["parameters"]["server_threads"], 2);
    assert_eq!(r["parameters"]["server_requests_served"], 200);
    // Each server thread's count, adding up to the server's: one
    // connection per request, dealt to the two threads in turn.
    let per_thread =
        ["0", "1"].map(|t| common::metric(&r, "server_thread_requests", &[("thread", t)]));
    assert_eq!(per_thread.iter().sum::<f64>(), 200.0, "{per_thread:?}");
    assert!(per_thread.iter().all(|n| *n >= 80.0), "{per_thread:?}");
    assert_eq!(common::metric(&r, "requests_completed", &[]), 200.0);
    assert_eq!(common::metric(&r, "html_transferred", &[]), 200.0 * 3985.0);
    assert!(
        r["parameters"]["url"]
            .as_str()
            .unwrap()
            .starts_with("http://127.0.0.1:"),
        "{}",
        r["parameters"]["url"]
    );
}

#[test]
fn http_sweep_and_download_of_a_path_use_the_built_in_server() {
    let r = only_result(&["http", "sweep", "--users", "1,2", "-n", "10", "/1150"]);
    assert_eq!(r["status"], "passed", "{:?}", r["error"]);
    assert_eq!(r["parameters"]["server_requests_served"], 30);
    let r = only_result(&["http", "download", "/bytes/1M"]);
    assert_eq!(r["status"], "passed", "{:?}", r["error"]);
    assert_eq!(r["parameters"]["target"], "built-in, in-process");
    assert_eq!(r["parameters"]["server_requests_served"], 1);
}

#[test]
fn server_threads_with_a_full_url_and_bad_paths_are_refused() {
    one_line_error(
        &run(&[
            "http",
            "load",
            "--server-threads",
            "2",
            "http://127.0.0.1:1/",
        ]),
        2,
        &["--server-threads", "applies only to a URL that is a path"],
    );
    one_line_error(
        &run(&["http", "download", "--server-threads", "0", "/1"]),
        2,
        &["--server-threads", "expected 1 to 1024"],
    );
    one_line_error(
        &run(&["http", "sweep", "bytes/3985"]),
        2,
        &["'bytes/3985'", "or /PATH (the built-in server"],
    );
}

#[test]
fn net_tcp_udp_and_pingpong_run_against_in_process_servers() {
    let r = only_result(&["net", "tcp", "--loopback", "-t", "1"]);
    assert_eq!(r["status"], "passed", "{:?}", r["error"]);
    assert_eq!(r["parameters"]["in_process_server"], true);
    let sent = common::metric(&r, "bytes", &[("side", "sender")]);
    assert!(sent > 0.0);
    assert_eq!(common::metric(&r, "bytes", &[("side", "receiver")]), sent);

    let r = only_result(&["net", "udp", "--loopback", "-t", "1", "-b", "10M"]);
    assert_eq!(r["status"], "passed", "{:?}", r["error"]);

    let out = json(
        &common::bin()
            .args(["--no-save", "--json", "net", "pingpong", "--loopback"])
            .args(["--duration", "100ms", "--sizes", "1,1024", "--threads", "1"])
            .output()
            .unwrap(),
    );
    let results = out["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "tcp and udp");
    for r in results {
        assert_eq!(r["status"], "passed", "{:?}", r["error"]);
        assert_eq!(r["parameters"]["in_process_server"], true);
        assert!(common::metric(r, "round_trips", &[("size", "1024")]) > 0.0);
        // The in-process echo and the client are pinned apart by default.
        assert_ne!(r["parameters"]["client_cpus"], r["parameters"]["echo_cpus"]);
    }
}

#[test]
fn pingpong_cpus_and_busy_poll_are_recorded_and_bad_cpu_lists_refused() {
    let r = only_result(&[
        "net",
        "pingpong",
        "--loopback",
        "--protocols",
        "tcp",
        "--sizes",
        "14",
        "--threads",
        "1",
        "--duration",
        "100ms",
        "--cpus",
        "0",
        "--busy-poll",
    ]);
    assert_eq!(r["status"], "passed", "{:?}", r["error"]);
    assert_eq!(r["parameters"]["client_cpus"], "0");
    assert_eq!(r["parameters"]["busy_poll"], true);
    assert!(common::metric(&r, "round_trips", &[("size", "14")]) > 0.0);
    for bad in ["x", "3-1", "100000"] {
        one_line_error(
            &run(&["net", "pingpong", "--loopback", "--cpus", bad]),
            2,
            &["--cpus", "expected a list of CPUs like 0,2-3"],
        );
    }
    one_line_error(
        &run(&["net", "serve", "--cpus", ""]),
        2,
        &["--cpus", "expected a list of CPUs like 0,2-3"],
    );
}

#[test]
fn loopback_with_a_host_or_neither_and_mss_misuse_are_refused() {
    one_line_error(
        &run(&["net", "tcp", "--loopback", "127.0.0.1"]),
        2,
        &["--loopback", "cannot be used with"],
    );
    one_line_error(
        &run(&["net", "pingpong", "--loopback", "localhost"]),
        2,
        &["--loopback", "cannot be used with"],
    );
    one_line_error(&run(&["net", "tcp"]), 2, &["<HOST>"]);
    one_line_error(
        &run(&["net", "tcp", "--loopback", "-M", "20"]),
        2,
        &["--mss 20", "1448 (MTU 1500)"],
    );
    one_line_error(
        &run(&["net", "udp", "--loopback", "--mss", "1448"]),
        2,
        &["--mss"],
    );
}
