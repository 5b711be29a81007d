//! `nodebench http serve`, `http download` and `http sweep` end to end: a
//! served process counts the requests, and the counts the client commands
//! report add up to it exactly; bad input gets one line and exit 2.

use crate::common;

use std::io::{BufRead, BufReader, Read};
use std::net::TcpListener;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use common::{bin, interrupt, json, metric, one_line_error, run, stderr};

/// A `nodebench http serve` process on a free loopback port; killed when dropped.
struct Served {
    child: Child,
    out: BufReader<std::process::ChildStdout>,
    base: String,
}

impl Served {
    fn start(extra: &[&str]) -> Served {
        let mut child = bin()
            .args(["http", "serve", "--port", "0", "--threads", "2"])
            .args(extra)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        out.read_line(&mut line).unwrap();
        let base = line
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_string();
        Served { child, out, base }
    }

    /// Ctrl-C, then everything the server printed after its banner.
    fn interrupt(mut self) -> String {
        interrupt(self.child.id());
        let end = Instant::now() + Duration::from_secs(10);
        while self.child.try_wait().unwrap().is_none() && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(20));
        }
        let status = self
            .child
            .try_wait()
            .unwrap()
            .expect("serve exits on Ctrl-C");
        assert!(status.success(), "{status:?}");
        let mut rest = String::new();
        self.out.read_to_string(&mut rest).unwrap();
        rest
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn download_and_sweep_counts_add_up_to_what_the_server_served() {
    let served = Served::start(&[]);
    let base = served.base.clone();

    let run_json = json(&run(&[
        "--json",
        "http",
        "download",
        &format!("{base}/bytes/50M"),
    ]));
    let r = &run_json["results"][0];
    assert_eq!(r["benchmark"], "http.download");
    assert_eq!(r["status"], "passed");
    assert_eq!(metric(r, "bytes", &[]), 52_428_800.0);
    assert!(!r["series"][0]["points"].as_array().unwrap().is_empty());

    let text = run(&["http", "download", &format!("{base}/bytes/3985")]);
    assert!(text.status.success(), "{}", stderr(&text));
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("saved [3985/3985]") || text.contains("saved [3985]"),
        "{text}"
    );

    let (users, iterations) = ([1u32, 2, 4], 30u32);
    let run_json = json(&run(&[
        "--json",
        "http",
        "sweep",
        &format!("{base}/1150"),
        "--users",
        "1..4:x2",
        "-n",
        "30",
        "--threads",
        "1",
    ]));
    let r = &run_json["results"][0];
    assert_eq!(r["benchmark"], "http.sweep");
    assert_eq!(r["status"], "passed");
    let mut sweep_requests = 0;
    for u in users {
        assert_eq!(
            metric(r, "requests", &[("users", &u.to_string())]),
            f64::from(u * iterations),
            "users={u}"
        );
        sweep_requests += u64::from(u * iterations);
    }
    assert_eq!(metric(r, "percent_of_first", &[("users", "1")]), 100.0);

    let text = run(&[
        "http",
        "sweep",
        &format!("{base}/1150"),
        "--users",
        "1,2",
        "-n",
        "10",
    ]);
    assert!(text.status.success(), "{}", stderr(&text));
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("% of Baseline") && text.contains("100.00%"),
        "{text}"
    );

    let rest = served.interrupt();
    let expected = 1 + 1 + sweep_requests + 30;
    assert!(
        rest.contains(&format!("served {expected} requests")),
        "expected {expected} requests served: {rest}"
    );
}

#[test]
fn bad_input_gets_one_line_and_exit_2() {
    one_line_error(
        &run(&["http", "serve", "--threads", "0"]),
        2,
        &["--threads"],
    );
    one_line_error(
        &run(&["http", "serve", "--keepalive-timeout", "soon"]),
        2,
        &["--keepalive-timeout", "10s"],
    );
    one_line_error(
        &run(&["http", "serve", "--keepalive-requests", "lots"]),
        2,
        &["--keepalive-requests", "0 for unlimited"],
    );
    one_line_error(
        &run(&["http", "sweep", "http://127.0.0.1:1/", "--users", "0,2"]),
        2,
        &["--users", "1..128:x2"],
    );
    one_line_error(
        &run(&["http", "sweep", "http://127.0.0.1:1/", "-n", "0"]),
        2,
        &["--iterations"],
    );
    one_line_error(
        &run(&["http", "download", "ftp://x/"]),
        2,
        &["URL", "http://"],
    );
    one_line_error(
        &run(&["http", "download", "http://127.0.0.1:1/", "--max-time", "0"]),
        2,
        &["--max-time"],
    );
}

#[test]
fn unreachable_targets_and_a_taken_port_fail_with_one_line() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    one_line_error(
        &run(&["http", "serve", "--port", &port]),
        1,
        &["--bind/--port", &port],
    );
    drop(taken);
    let url = format!("http://127.0.0.1:{port}/1");
    one_line_error(&run(&["http", "download", &url]), 1, &["cannot connect"]);
    one_line_error(
        &run(&["http", "sweep", &url, "--users", "1", "-n", "1"]),
        1,
        &["http.sweep"],
    );
}
