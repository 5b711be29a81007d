//! End-to-end tests of the `nodebench` binary: real runs against a temporary
//! store, checked through the commands a user has.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::{
    QUICK_OPS, TempStore, bin, closed_port, closed_port_pair, find_metric, interrupt, json,
    one_line_error, skipped_without_root, stderr, stdout,
};
use serde_json::Value;

fn schema_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schema/run.schema.json")
}

#[test]
fn cpu_ops_json_validates_against_the_checked_in_schema() {
    let t = TempStore::new();
    let mut args = QUICK_OPS.to_vec();
    args.push("--json");
    let run = json(&t.run(&args));
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path()).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let errors: Vec<String> = validator.iter_errors(&run).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");

    assert_eq!(run["schema_version"], 3);
    assert_eq!(run["status"], "complete");
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "one result per kernel");
    let f64_rates: Vec<&Value> = results[0]["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["name"] == "rate")
        .collect();
    // 2 thread counts x 2 scaling modes.
    assert_eq!(f64_rates.len(), 4);
    for m in f64_rates {
        assert_eq!(m["unit"], "flop/s");
        assert!(m["value"].as_f64().unwrap() > 1e6);
        assert_eq!(m["stats"]["n"], 2);
    }
    assert!(run["inventory"]["cpu"]["logical_cpus"].as_u64().unwrap() >= 1);
}

#[test]
fn checked_in_schema_matches_the_model() {
    let generated = json(&bin().arg("schema").output().unwrap());
    let checked_in: Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path()).unwrap()).unwrap();
    assert_eq!(
        generated, checked_in,
        "schema/run.schema.json is stale: regenerate it with `nodebench schema > schema/run.schema.json` and bump SCHEMA_VERSION if a field changed meaning"
    );
}

#[test]
fn runs_list_shows_the_run_and_csv_export_has_every_metric() {
    let t = TempStore::new();
    let mut args = QUICK_OPS.to_vec();
    args.extend(["--tag", "config=test", "--json"]);
    let run = json(&t.run(&args));
    let id = run["id"].as_i64().expect("saved run has an id");

    let list = t.run(&["runs", "list"]);
    assert!(list.status.success());
    let text = stdout(&list);
    let row = text
        .lines()
        .find(|l| l.split_whitespace().next() == Some(&id.to_string()))
        .unwrap_or_else(|| panic!("run {id} not listed:\n{text}"));
    assert!(
        row.contains("complete") && row.contains("cpu.ops") && row.contains("config=test"),
        "{row}"
    );

    let csv = t.run(&["runs", "export", &id.to_string(), "--format", "csv"]);
    assert!(csv.status.success(), "{}", stderr(&csv));
    let csv = stdout(&csv);
    let metrics: Vec<&Value> = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["metrics"].as_array().unwrap())
        .collect();
    assert!(!metrics.is_empty());
    assert_eq!(
        csv.lines().count(),
        metrics.len() + 1,
        "header + one row per metric"
    );
    for m in metrics {
        let labels: Vec<String> = m["labels"]
            .as_object()
            .map(|o| {
                o.iter()
                    .map(|(k, v)| format!("{k}={}", v.as_str().unwrap()))
                    .collect()
            })
            .unwrap_or_default();
        let needle = format!(",{},{},", m["name"].as_str().unwrap(), labels.join(";"));
        assert!(csv.contains(&needle), "metric {needle} missing from CSV");
    }

    let md = t.run(&["runs", "export", &id.to_string(), "--format", "md"]);
    assert!(stdout(&md).contains("## cpu.ops (passed)"));
    // The schema check of the JUnit XML is the report crate's tests/it/junit.rs.
    let junit = t.run(&["runs", "export", &id.to_string(), "--format", "junit"]);
    assert!(junit.status.success(), "{}", stderr(&junit));
    let junit = stdout(&junit);
    assert_eq!(
        junit.matches("<testcase ").count(),
        run["results"].as_array().unwrap().len()
    );
    assert!(junit.contains("classname=\"nodebench.cpu\" name=\"cpu.ops\""));
    let shown = t.run(&["runs", "show", &id.to_string()]);
    assert!(stdout(&shown).contains("1 thr"), "{}", stdout(&shown));
}

#[test]
fn runs_delete_removes_the_run() {
    let t = TempStore::new();
    let mut args = QUICK_OPS.to_vec();
    args.push("--json");
    let run = json(&t.run(&args));
    let id = run["id"].as_i64().unwrap().to_string();
    let del = t.run(&["runs", "delete", &id]);
    assert!(del.status.success(), "{}", stderr(&del));
    let show = t.run(&["runs", "show", &id]);
    assert!(!show.status.success());
    assert!(
        stderr(&show).contains(&format!("no run with id {id}")),
        "{}",
        stderr(&show)
    );
    let again = t.run(&["runs", "delete", &id]);
    assert!(!again.status.success());
}

#[test]
fn no_save_leaves_the_store_empty() {
    let t = TempStore::new();
    let mut args = QUICK_OPS.to_vec();
    args.extend(["--no-save", "--json"]);
    let run = json(&t.run(&args));
    assert!(run.get("id").is_none());
    let list = stdout(&t.run(&["runs", "list"]));
    assert_eq!(list.lines().count(), 1, "only the header:\n{list}");
}

#[test]
fn bad_input_gives_one_clear_line_and_a_non_zero_exit() {
    let t = TempStore::new();
    let cases: &[(&[&str], &[&str])] = &[
        (&["cpu", "ops", "--threads", "0"], &["--threads", "1,2,4,8"]),
        (
            &["cpu", "ops", "--threads", "abc"],
            &["--threads", "1,2,4,8"],
        ),
        (&["cpu", "ops", "--threads", ""], &["--threads"]),
        (&["cpu", "ops", "--duration", "-1s"], &["--duration", "10s"]),
        (
            &["cpu", "ops", "--duration", "soon"],
            &["--duration", "500ms"],
        ),
        (&["cpu", "ops", "--repeats", "0"], &["--repeats"]),
        (
            &["cpu", "ops", "--kernels", "f128.vector"],
            &["--kernels", "f64.vector"],
        ),
        (
            &["runs", "export", "1", "--format", "xml"],
            &["--format", "csv"],
        ),
        (&["--tag", "novalue", "run"], &["--tag", "KEY=VALUE"]),
        (
            &["memory", "blocks", "--block-sizes", "0"],
            &["--block-sizes", "8KiB"],
        ),
        (
            &["memory", "blocks", "--block-sizes", "8,0,8MiB"],
            &["--block-sizes", "8KiB"],
        ),
        (
            &["memory", "blocks", "--threads", ""],
            &["--threads", "1,2,4,8"],
        ),
        (
            &["memory", "stream", "--threads", ""],
            &["--threads", "1,2,4,8"],
        ),
        (
            &["memory", "stream", "--ntimes", "1"],
            &["--ntimes", "at least 2"],
        ),
        (
            &["memory", "latency", "--min-size", "0"],
            &["--min-size", "8KiB"],
        ),
    ];
    for (args, needles) in cases {
        one_line_error(&t.run(args), 2, needles);
    }
}

#[test]
fn a_stream_array_larger_than_memory_is_refused_before_allocating() {
    let t = TempStore::new();
    let start = Instant::now();
    let out = t.run(&["memory", "stream", "--array-size", "100g", "--quiet"]);
    one_line_error(&out, 2, &["--array-size", "needs", "available"]);
    assert!(!t.store().exists(), "refused before the store is opened");
    // Refused up front: allocating and touching 2.4 TB would take far longer.
    assert!(start.elapsed() < Duration::from_secs(20));
}

#[test]
fn memory_commands_report_their_metrics() {
    let t = TempStore::new();
    let run = json(&t.run(&[
        "memory",
        "stream",
        "--threads",
        "1,2",
        "--array-size",
        "2m",
        "--ntimes",
        "3",
        "--json",
        "--quiet",
    ]));
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 2, "one result per thread count");
    for r in results {
        assert_eq!(r["status"], "passed");
        let triad = find_metric(r, "bandwidth", &[("kernel", "triad")]);
        assert_eq!(triad["unit"], "B/s");
        assert_eq!(triad["stats"]["n"], 2, "first of 3 iterations dropped");
    }
    let run = json(&t.run(&[
        "memory",
        "blocks",
        "--block-sizes",
        "8,64KiB",
        "--threads",
        "1,2",
        "--total",
        "8MiB",
        "--json",
        "--quiet",
    ]));
    let metrics: usize = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["metrics"].as_array().unwrap().len())
        .sum();
    // 3 ops x 2 block sizes x 2 thread counts x (bandwidth, latency).
    assert_eq!(metrics, 24);
    let out = t.run(&[
        "memory",
        "latency",
        "--min-size",
        "4KiB",
        "--max-size",
        "64KiB",
        "--duration",
        "5ms",
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    // Scaled per column: ns, or us where a preempted point (a busy
    // machine) reached a microsecond.
    let text = stdout(&out);
    assert!(
        text.contains("latency (ns)") || text.contains("latency (us)"),
        "{text}"
    );
    assert!(text.contains("L1 4096"), "{text}");
}

#[test]
fn unwritable_store_is_one_clear_line() {
    let out = bin()
        .args(["--store", "/proc/nodebench-no-such-dir/results.db"])
        .args(QUICK_OPS)
        .output()
        .unwrap();
    // A directory that does not exist is input refused before anything runs.
    one_line_error(
        &out,
        2,
        &["--store", "/proc/nodebench-no-such-dir", "does not exist"],
    );
    let out = bin()
        .env("NODEBENCH_STORE", "/proc/nodebench-no-such-dir/env.db")
        .args(["runs", "list"])
        .output()
        .unwrap();
    one_line_error(&out, 2, &["NODEBENCH_STORE", "/proc/nodebench-no-such-dir"]);
    // One that exists but takes no file: the store cannot be opened.
    let out = bin()
        .args(["--store", "/proc/nodebench-results.db"])
        .args(QUICK_OPS)
        .output()
        .unwrap();
    one_line_error(
        &out,
        1,
        &["cannot open results store", "/proc/nodebench-results.db"],
    );
}

/// Polls `runs list --json` until the newest run has at least one result.
fn wait_for_first_result(t: &TempStore, child: &mut std::process::Child) -> i64 {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        assert!(Instant::now() < deadline, "no result was committed in 60 s");
        assert!(
            child.try_wait().unwrap().is_none(),
            "benchmark ended before it was killed"
        );
        std::thread::sleep(Duration::from_millis(50));
        if !t.store().exists() {
            continue;
        }
        let out = t.run(&["runs", "list", "--json"]);
        if !out.status.success() {
            continue;
        }
        let list = json(&out);
        if let Some(r) = list.as_array().and_then(|a| a.first())
            && r["results"].as_u64().unwrap_or(0) >= 1
        {
            return r["id"].as_i64().unwrap();
        }
    }
}

/// A long cpu ops run: six kernels, each a second or more.
fn long_run(t: &TempStore) -> std::process::Child {
    t.command()
        .args([
            "cpu",
            "ops",
            "--threads",
            "1",
            "--duration",
            "300ms",
            "--repeats",
            "3",
            "--quiet",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn a_run_killed_with_sigkill_is_listed_incomplete_with_its_finished_results() {
    let t = TempStore::new();
    let mut child = long_run(&t);
    let id = wait_for_first_result(&t, &mut child);
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();

    let list = stdout(&t.run(&["runs", "list"]));
    let row = list
        .lines()
        .find(|l| l.split_whitespace().next() == Some(&id.to_string()))
        .unwrap();
    assert!(row.contains("incomplete"), "{row}");
    let run = json(&t.run(&["runs", "show", &id.to_string(), "--json"]));
    assert_eq!(run["status"], "incomplete");
    let results = run["results"].as_array().unwrap();
    assert!(
        !results.is_empty() && results.len() < 6,
        "{} results",
        results.len()
    );
    assert!(
        results
            .iter()
            .all(|r| r["status"] == "passed" && !r["metrics"].as_array().unwrap().is_empty())
    );
}

#[test]
fn ctrl_c_stops_cleanly_and_saves_what_finished() {
    let t = TempStore::new();
    let mut child = long_run(&t);
    let id = wait_for_first_result(&t, &mut child);
    interrupt(child.id());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    assert!(stderr(&out).contains("interrupted"), "{}", stderr(&out));
    let run = json(&t.run(&["runs", "show", &id.to_string(), "--json"]));
    assert_eq!(run["status"], "incomplete");
    assert!(!run["results"].as_array().unwrap().is_empty());
}

/// A directory on the target's file system (O_DIRECT works there, unlike tmpfs).
fn disk_dir() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap()
}

fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn iozone_throughput_mode_prints_the_fields_of_iozone() {
    let t = TempStore::new();
    let d = disk_dir();
    let dir = d.path().to_str().unwrap();
    let out = t.run(&[
        "disk",
        "iozone",
        "--dir",
        dir,
        "-s",
        "4m",
        "-r",
        "64k",
        "-t",
        "2",
        "-e",
        "-p",
        "--tests",
        "write,rewrite,read,random_read",
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    for name in ["initial writers", "rewriters", "readers", "random readers"] {
        assert!(text.contains(name), "{name}:\n{text}");
    }
    for field in [
        "Children see throughput for",
        "Parent sees throughput for",
        "Min throughput per process",
        "Max throughput per process",
        "Avg throughput per process",
        "Min xfer",
    ] {
        assert_eq!(
            text.matches(field).count(),
            4,
            "{field} once per test:\n{text}"
        );
    }
    assert!(text.contains("Throughput test with 2 processes"), "{text}");
    assert!(
        text.contains("Include fsync in write timing") && text.contains("Purge Mode On"),
        "{text}"
    );
    assert!(leftovers(d.path()).is_empty(), "{:?}", leftovers(d.path()));
}

#[test]
fn efbig_part_way_is_a_clear_error_and_leaves_no_files() {
    let t = TempStore::new();
    let d = disk_dir();
    // RLIMIT_FSIZE of 1 MiB (ulimit -f counts 1024-byte blocks).
    let script = format!(
        "ulimit -f 1024; exec {} --store {} disk iozone --dir {} -s 8m -r 64k --tests write,read --quiet",
        env!("CARGO_BIN_EXE_nodebench"),
        t.store().display(),
        d.path().display()
    );
    let out = Command::new("bash").args(["-c", &script]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("file too large (EFBIG)") && err.contains("offset 1048576"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert!(leftovers(d.path()).is_empty(), "{:?}", leftovers(d.path()));
    // The failed result is kept in the store with its error.
    let list = stdout(&t.run(&["runs", "list"]));
    assert!(
        list.lines()
            .nth(1)
            .is_some_and(|l| l.contains("disk.iozone")),
        "{list}"
    );
}

#[test]
fn a_dir_without_room_is_refused_up_front() {
    if skipped_without_root("a_dir_without_room_is_refused_up_front", "mounts a tmpfs") {
        return;
    }
    let d = disk_dir();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=2m", "tmpfs"])
        .arg(d.path())
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    assert!(mounted, "mounting a 2 MiB tmpfs as root failed");
    let t = TempStore::new();
    let out = t.run(&[
        "disk",
        "iozone",
        "--dir",
        d.path().to_str().unwrap(),
        "-s",
        "1m",
        "-r",
        "64k",
        "-t",
        "2",
        "--tests",
        "write",
        "--quiet",
    ]);
    let files = leftovers(d.path());
    let _ = Command::new("umount").arg(d.path()).status();
    one_line_error(&out, 1, &["--dir", "needs", "free"]);
    assert!(files.is_empty(), "{files:?}");
}

#[test]
fn disk_bad_input_is_one_clear_line() {
    // Values clap refuses, configurations the flags make wrong (a record
    // larger than the file) and a --dir that is not a directory exit 2,
    // refused before the store is opened (a directory without room fails
    // the benchmark: see above).
    let cases: &[(&[&str], i32, &[&str])] = &[
        (
            &[
                "disk",
                "iozone",
                "--dir",
                "/nonexistent-nodebench",
                "-s",
                "1m",
            ],
            2,
            &[
                "--dir /nonexistent-nodebench",
                "expected an existing directory",
            ],
        ),
        (
            &["disk", "iozone", "--dir", "/etc/hostname", "-s", "1m"],
            2,
            &["--dir /etc/hostname: not a directory"],
        ),
        (
            &["disk", "dd", "--dir", "/nonexistent-nodebench"],
            2,
            &["--dir /nonexistent-nodebench"],
        ),
        (
            &["disk", "blocks", "--dir", "/nonexistent-nodebench"],
            2,
            &["--dir /nonexistent-nodebench"],
        ),
        (
            &["disk", "iozone", "--dir", "/tmp", "-s", "1m", "-r", "4m"],
            2,
            &["disk.iozone: --record-size: 4194304 B is larger than --file-size 1048576 B"],
        ),
        (
            &["disk", "iozone", "--dir", "/tmp", "--tests", "scribble"],
            2,
            &["--tests", "random_read"],
        ),
        (
            &["disk", "iozone", "--dir", "/tmp", "-r", "0"],
            2,
            &["--record-size", "8KiB"],
        ),
        (
            &["disk", "dd", "--dir", "/tmp", "--count", "0"],
            2,
            &["--count"],
        ),
        (
            &["disk", "blocks", "--dir", "/tmp", "--block-sizes", "0"],
            2,
            &["--block-sizes"],
        ),
        (&["disk", "iozone", "-s", "1m"], 2, &["--dir"]),
    ];
    for (args, code, needles) in cases {
        let t = TempStore::new();
        one_line_error(&t.run(args), *code, needles);
        assert_eq!(t.store().exists(), *code == 1, "{args:?}: store opened");
    }
}

#[test]
fn net_errors_are_one_clear_line() {
    let t = TempStore::new();
    // A closed port: refused at once.
    let closed = closed_port();
    let start = Instant::now();
    let out = t.run(&[
        "net",
        "tcp",
        "127.0.0.1",
        "-p",
        &closed.to_string(),
        "-t",
        "1",
        "--quiet",
    ]);
    one_line_error(&out, 1, &["cannot connect", "refused"]);
    assert!(start.elapsed() < Duration::from_secs(5));
    // A port already in use (its successor, the echo's port, free: else the
    // error names that one).
    let port = closed_port_pair();
    let _busy = std::net::TcpListener::bind(("127.0.0.1", port)).unwrap();
    let out = t.run(&[
        "net",
        "serve",
        "--port",
        &port.to_string(),
        "--max-tests",
        "1",
    ]);
    one_line_error(&out, 1, &[&format!("--port {port}"), "in use"]);
    for (args, needles) in [
        (
            vec!["net", "udp", "127.0.0.1", "-b", "fast"],
            vec!["--bitrate", "100M"],
        ),
        (
            vec!["net", "tcp", "127.0.0.1", "-P", "0"],
            vec!["--parallel"],
        ),
        (
            vec!["net", "tcp", "127.0.0.1", "-t", "-1s"],
            vec!["--time", "10s"],
        ),
    ] {
        one_line_error(&t.run(&args), 2, &needles);
    }
}

#[test]
fn a_test_longer_than_max_duration_is_refused_with_a_message() {
    let t = TempStore::new();
    let port = closed_port_pair();
    let mut server = bin()
        .args([
            "--no-save",
            "net",
            "serve",
            "--port",
            &port.to_string(),
            "--max-duration",
            "2s",
            "--max-tests",
            "1",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The server may take a while to listen while the rest of the suite
    // loads both CPUs (a 10 s wait was once not enough in CI).
    let deadline = Instant::now() + Duration::from_secs(30);
    let out = loop {
        let out = t.run(&[
            "net",
            "tcp",
            "127.0.0.1",
            "-p",
            &port.to_string(),
            "-t",
            "30s",
            "--quiet",
        ]);
        if !stderr(&out).contains("cannot connect") || Instant::now() > deadline {
            break out;
        }
        // A server that could not start says why, rather than leaving the
        // client to time out on "connection refused".
        if server.try_wait().unwrap().is_some() {
            let said = server.wait_with_output().unwrap();
            panic!("net serve --port {port} exited: {}", stderr(&said));
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let _ = server.kill();
    let _ = server.wait();
    one_line_error(&out, 1, &["--max-duration"]);
}
