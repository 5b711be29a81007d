//! The bottleneck line of throughput and load results, end to end: an HTTP
//! load held back by a CPU-bound page on one in-process server thread names
//! the server, a disk test at queue depth 32 names the device queue,
//! the line is stored (`runs show`, `--json`), and `--no-telemetry` gives
//! none.

mod common;

use std::sync::Mutex;

use common::{TempStore, stderr, stdout};
use serde_json::Value;

/// One load at a time: each test saturates a core on purpose, and two at
/// once on a 2-core machine would starve the clients that keep the server
/// (or the device queue) busy.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// `/cpu/N` rounds per request: about 5 ms of one core, so one server
/// thread cannot keep up with 16 connections (requests always wait for it,
/// even when the client's own threads wait for a CPU on a loaded machine).
const CPU_PAGE: &str = "/cpu/1m";

/// A 4-second keep-alive load of [`CPU_PAGE`] over 16 connections on one
/// server thread, sampled every 250 ms.
const SERVER_BOUND: &[&str] = &[
    "--telemetry-interval",
    "250ms",
    "http",
    "load",
    "-t",
    "4s",
    "-c",
    "16",
    "-k",
    "--server-threads",
    "1",
    CPU_PAGE,
];

#[test]
fn a_cpu_bound_page_on_one_server_thread_names_the_server_cpu_and_is_stored() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let t = TempStore::new();
    let out = t.run(SERVER_BOUND);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let line = text
        .lines()
        .find(|l| l.starts_with("bottleneck: "))
        .unwrap_or_else(|| panic!("no bottleneck line in:\n{text}"));
    assert!(
        line.starts_with("bottleneck: server CPU: built-in server thread 0 (of 1) busy"),
        "{line}"
    );
    assert!(line.contains("busiest core cpu"), "{line}");

    let shown = t.run(&["runs", "show", "1", "--json"]);
    assert_eq!(shown.status.code(), Some(0), "{}", stderr(&shown));
    let stored: Value = serde_json::from_str(&stdout(&shown)).unwrap();
    let result = &stored["results"][0];
    assert_eq!(
        format!("bottleneck: {}", result["bottleneck"].as_str().unwrap()),
        line
    );
    let busy = common::metric(result, "server_thread_cpu", &[("thread", "0")])
        + common::metric(result, "server_thread_wait", &[("thread", "0")]);
    assert!(busy >= 90.0, "server thread busy {busy} %");
    let shown = t.run(&["runs", "show", "1"]);
    assert!(stdout(&shown).contains(line), "{}", stdout(&shown));
}

#[test]
fn no_telemetry_no_line() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut args = vec!["--no-telemetry"];
    args.extend_from_slice(SERVER_BOUND);
    let out = common::bin()
        .args(["--no-save"])
        .args(&args)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stdout(&out).contains("bottleneck"), "{}", stdout(&out));
    args.insert(0, "--json");
    let out = common::bin()
        .args(["--no-save"])
        .args(&args)
        .output()
        .unwrap();
    let run: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(run["results"][0].get("bottleneck").is_none());
}

/// The largest sample of a stored telemetry series `name{device=dev}`.
fn peak_of(result: &Value, name: &str, dev: &str) -> f64 {
    let s = result["series"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name && s["labels"]["device"] == dev)
        .unwrap();
    let p = s["points"].as_array().unwrap();
    p.iter().map(|p| p[1].as_f64().unwrap()).fold(0.0, f64::max)
}

#[test]
fn a_disk_test_at_queue_depth_32_names_the_device_queue() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let out = common::bin()
        .args(["--no-save", "--json", "--telemetry-interval", "250ms"])
        .args(["disk", "iozone", "--dir"])
        .arg(dir.path())
        .args([
            "-s",
            "256M",
            "-r",
            "4k",
            "--tests",
            "write,random_read",
            "-I",
        ])
        .args(["--engine", "io_uring", "--iodepth", "32"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let run: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let result = &run["results"][0];
    let line = result["bottleneck"].as_str().expect("a bottleneck line");
    // The device the reads went to: the one with the deepest queue.
    let devices: Vec<String> = result["series"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["name"] == "disk_queue_depth")
        .map(|s| s["labels"]["device"].as_str().unwrap().to_string())
        .collect();
    let (dev, deepest) = devices
        .iter()
        .map(|d| (d, peak_of(result, "disk_queue_depth", d)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap();
    eprintln!("{dev}: deepest queue {deepest:.1} at --iodepth 32; {line}");
    assert!(
        line.starts_with(&format!(
            "device queue: {dev} held up to {deepest:.1} requests"
        )),
        "{line}"
    );
    assert!(line.contains("the configured queue depth 32"), "{line}");
}
