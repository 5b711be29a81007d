//! What disturbed each result, end to end: a busy-loop child beside
//! `cpu ops` and `memory stream` is named in their `disturbed` warning
//! (table, `--json`, exports, `compare`), `--strict-host` fails the run,
//! no cell is over 100 % of the peak of its cores, and a span in which no
//! other process took 1 % of a CPU carries no warning.

use crate::common;

use std::process::{Child, Command, Stdio};

use common::{TempStore, stderr, stdout};
use serde_json::Value;

/// A shell busy loop (no child processes: all its time is its own) that
/// ends by itself after 40 s, killed when dropped.
struct Hog(Child);

impl Hog {
    fn start() -> Hog {
        Hog(Command::new("bash")
            .args(["-c", "while [ $SECONDS -lt 40 ]; do :; done"])
            .stdin(Stdio::null())
            .spawn()
            .expect("bash"))
    }
}

impl Drop for Hog {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

const OPS: &[&str] = &[
    "cpu",
    "ops",
    "--threads",
    "1,2",
    "--duration",
    "20ms",
    "--repeats",
    "3",
    "--warmup",
    "0",
    "--kernels",
    "int.scalar,f64.vector",
];
const STREAM: &[&str] = &["memory", "stream", "--array-size", "2m", "--ntimes", "40"];

/// Every span (result and phase) of a run's results with its labels.
fn spans(run: &Value) -> Vec<(String, Value)> {
    let mut out = Vec::new();
    for r in run["results"].as_array().unwrap() {
        let b = r["benchmark"].as_str().unwrap().to_string();
        out.push((b.clone(), r["disturbance"].clone()));
        for p in r["phases"].as_array().into_iter().flatten() {
            out.push((format!("{b} {}", p["labels"]), p["disturbance"].clone()));
        }
    }
    out
}

#[test]
fn a_busy_loop_beside_cpu_ops_and_stream_is_named_and_fails_strict_host() {
    let _alone = crate::ALONE.lock().unwrap_or_else(|e| e.into_inner());
    let t = TempStore::new();
    let hog = Hog::start();
    let pid = hog.0.id();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let mut ops = vec!["--strict-host", "--json"];
    ops.extend_from_slice(OPS);
    let o = t.run(&ops);
    let mut stream = vec!["--json"];
    stream.extend_from_slice(STREAM);
    let s = t.run(&stream);
    drop(hog);

    // --strict-host: the disturbed run fails, and says why.
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--strict-host: 2 of 2 result(s) disturbed"),
        "{}",
        stderr(&o)
    );
    assert_eq!(s.status.code(), Some(0), "{}", stderr(&s));
    let named = format!("bash (pid {pid})");
    for out in [&o, &s] {
        let run: Value = serde_json::from_slice(&out.stdout).unwrap();
        for r in run["results"].as_array().unwrap() {
            let d = &r["disturbance"];
            assert_eq!(d["disturbed"], true, "{r:#}");
            assert!(d["others_cpu_s"].as_f64().unwrap() > 0.0, "{d:#}");
            // Among the top (a build or another test may share the
            // machine; the hog is named all the same).
            assert!(
                d["top"].as_array().unwrap().iter().any(|p| p["pid"] == pid),
                "{d:#}"
            );
            let warning = r["warnings"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(Value::as_str)
                .find(|w| w.starts_with("disturbed: other processes took "))
                .unwrap_or_else(|| panic!("no disturbed warning: {r:#}"));
            assert!(warning.contains(&named), "{warning}");
            // One denominator, never over 100 % of it without the
            // warning that names the clock it implies (a probe disturbed
            // in every round keeps an uncertain, never lowered, clock).
            let explained = r["warnings"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(Value::as_str)
                .any(|w| w.contains("implies a clock of"));
            for m in r["metrics"].as_array().unwrap() {
                if let Some(p) = m["percent_of_reference"].as_f64() {
                    assert!(p <= 100.0 || explained, "{m:#}");
                }
            }
        }
    }

    // The table shows it; the exports carry it.
    let shown = t.run(&["runs", "show", "1"]);
    assert!(
        stdout(&shown).contains("warning: disturbed: other processes took "),
        "{}",
        stdout(&shown)
    );
    let csv = stdout(&t.run(&["runs", "export", "1", "--format", "csv"]));
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    assert_eq!(header.last(), Some(&"disturbed"));
    // The column holds each row's span: the hog may have run on the other
    // CPU during a one-thread phase, which then was not disturbed.
    assert!(csv.lines().skip(1).any(|l| l.ends_with(",true")), "{csv}");
    assert!(
        csv.lines()
            .skip(1)
            .all(|l| l.ends_with(",true") || l.ends_with(",false")),
        "{csv}"
    );
    let md = stdout(&t.run(&["runs", "export", "1", "--format", "md"]));
    assert!(md.contains(&named) && md.contains("> disturbed: "), "{md}");
    let junit = stdout(&t.run(&["runs", "export", "1", "--format", "junit"]));
    assert!(junit.contains("disturbed: other processes took"), "{junit}");
    let page = t.store().with_file_name("report.html");
    let o = t.run(&["report", "1", "--output", page.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("disturbed: other processes took"),
        "{}",
        &html[..html.len().min(400)]
    );
    // compare flags the disturbed side's cells.
    let c = t.run(&["compare", "1", "1", "--json"]);
    assert!(c.status.success(), "{}", stderr(&c));
    let cmp: Value = serde_json::from_slice(&c.stdout).unwrap();
    let rows = cmp["rows"].as_array().unwrap();
    assert!(!rows.is_empty());
    assert!(
        rows.iter().any(|r| r["cells"][1]["disturbed"] == true),
        "{cmp:#}"
    );
    let text = stdout(&t.run(&["compare", "1", "1"]));
    assert!(text.contains("(disturbed)"), "{text}");
}

#[test]
fn a_span_no_other_process_took_1_percent_of_a_cpu_is_not_disturbed() {
    let _alone = crate::ALONE.lock().unwrap_or_else(|e| e.into_inner());
    let mut quiet = 0;
    for args in [OPS, STREAM] {
        let mut a = vec!["--json"];
        a.extend_from_slice(args);
        let o = common::run(&a);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        let run: Value = serde_json::from_slice(&o.stdout).unwrap();
        for (what, d) in spans(&run) {
            assert!(d.is_object(), "{what}: no disturbance recorded");
            let busiest = d["top"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|p| p["cpu_percent"].as_f64())
                .fold(0.0, f64::max);
            let steal = d["steal_s"].as_f64().unwrap() / d["available_cpu_s"].as_f64().unwrap();
            if busiest < 1.0 && steal < 0.01 && d["swap_ins"] == 0 {
                quiet += 1;
                assert_eq!(d["disturbed"], false, "{what}: {d:#}");
            }
        }
        // The warning says what the record says, no more.
        for r in run["results"].as_array().unwrap() {
            let warned = r["warnings"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .filter(|w| w.starts_with("disturbed"))
                .count();
            let disturbed = std::iter::once(&r["disturbance"])
                .chain(
                    r["phases"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|p| &p["disturbance"]),
                )
                .filter(|d| d["disturbed"] == true)
                .count();
            assert_eq!(warned, disturbed, "{r:#}");
        }
    }
    eprintln!("{quiet} span(s) without another process over 1 % of a CPU");
}

/// A database server on this machine that the benchmark loads does the
/// benchmark's work: `db as3ap` on the MariaDB `scripts/db-servers` starts
/// (NODEBENCH_TEST_MYSQL) names it as the server under test, with its CPU
/// time, and never among the other processes that disturbed the run.
#[test]
fn a_local_database_server_is_the_workload_not_a_disturbance() {
    let _alone = crate::ALONE.lock().unwrap_or_else(|e| e.into_inner());
    let Ok(url) = std::env::var("NODEBENCH_TEST_MYSQL") else {
        nodebench_core::test_require::missing(
            "a_local_database_server_is_the_workload_not_a_disturbance",
            nodebench_core::test_require::need::MYSQL,
            "NODEBENCH_TEST_MYSQL is not set",
            "scripts/db-servers start",
        );
        return;
    };
    let t = TempStore::new();
    let o = t.run(&[
        "--json",
        "db",
        "as3ap",
        "--db",
        &url,
        "--size",
        "4000000",
        "--tests",
        "single",
        "--recreate",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let run: Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut server_s = 0.0;
    for r in run["results"].as_array().unwrap() {
        let d = &r["disturbance"];
        let under: Vec<&Value> = d["under_test"].as_array().into_iter().flatten().collect();
        for p in &under {
            let name = p["name"].as_str().unwrap();
            assert!(name == "mariadbd" || name == "mysqld", "{d:#}");
            assert!(
                d["top"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .all(|q| q["pid"] != p["pid"]),
                "{d:#}"
            );
        }
        let s = d["under_test_cpu_s"].as_f64().expect("under_test_cpu_s");
        assert!(
            s >= 0.0 && s <= d["wall_s"].as_f64().unwrap() * 64.0,
            "{d:#}"
        );
        server_s += s;
        for w in r["warnings"].as_array().into_iter().flatten() {
            assert!(!w.as_str().unwrap().contains("mariadbd"), "{w}");
        }
    }
    assert!(server_s > 0.0, "the server's time was counted: {run:#}");
}
