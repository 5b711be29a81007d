//! `nodebench db as3ap --time-limit`: the spec's metric, the equivalent
//! database size, through the binary: the flag's bad values are one line
//! and exit 2; a short search on SQLite records the equivalent size, each
//! trial, and the per-test times of the trial at that size, every figure
//! in the catalog, with no scratch file left.

use crate::common;

use std::time::{Duration, Instant};

use nodebench_core::names::db::{self, bound, label, metric, param, test};
use nodebench_core::registry::catalog;
use serde_json::Value;

use common::{json, one_line_error, run};

#[test]
fn bad_time_limits_give_one_line_and_exit_2() {
    let go = |extra: &[&str]| {
        let mut a = vec!["db", "as3ap"];
        a.extend_from_slice(extra);
        run(&a)
    };
    for (args, want) in [
        (
            &["--time-limit", "5s"][..],
            &["--time-limit: expected a duration of 10s to 24h (e.g. 2m), got 5s"][..],
        ),
        (
            &["--time-limit", "25h"],
            &["--time-limit: expected a duration of 10s to 24h (e.g. 2m), got 90000s"],
        ),
        (
            &["--time-limit", "soon"],
            &[
                "--time-limit",
                "'soon'",
                "expected a duration of 10s to 24h (e.g. 2m)",
            ],
        ),
        (
            &["--time-limit", "20s", "--reuse"],
            &["--reuse and --time-limit"],
        ),
        (
            &["--time-limit", "20s", "--search-steps", "0"],
            &["--search-steps: expected 1..=30, got 0"],
        ),
    ] {
        one_line_error(&go(args), 2, want);
    }
}

/// The values of metric `name` of `r` by their `key` label, in order.
fn by_label(r: &Value, name: &str, key: &str) -> Vec<(String, f64)> {
    r["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["name"] == name)
        .map(|m| {
            let l = m["labels"][key].as_str().unwrap_or("").to_string();
            (l, m["value"].as_f64().unwrap())
        })
        .collect()
}

#[test]
fn a_short_search_on_sqlite_records_the_equivalent_size_and_per_test_times() {
    let scratch = tempfile::tempdir().unwrap();
    let start = Instant::now();
    // From the smallest database (0.3 s here), at most 6 trials, each
    // stopped at 10 s: the doublings that fit take at most twice the last
    // (20 s), then one miss and one bisection, 10 s each at most.
    let out = common::bin()
        .args(["--no-save", "-q", "--json", "--no-telemetry", "db", "as3ap"])
        .args([
            "--time-limit",
            "10s",
            "--size",
            "4MB",
            "--search-steps",
            "6",
        ])
        .env("TMPDIR", scratch.path())
        .output()
        .unwrap();
    let took = start.elapsed();
    let run = json(&out);
    assert!(took < Duration::from_secs(50), "took {took:?}");
    let results = run["results"].as_array().unwrap();
    let phases: Vec<&str> = results
        .iter()
        .map(|r| r["parameters"]["test"].as_str().unwrap())
        .collect();
    assert_eq!(phases, [test::EQUIVALENT_SIZE, test::LOAD, test::SINGLE]);
    let summary = &results[0];
    assert_eq!(summary["status"], "passed", "{summary}");
    let p = &summary["parameters"];
    assert_eq!(p[param::TIME_LIMIT], 10.0);
    assert_eq!(p[param::TIMED_TESTS], serde_json::json!(["load", "single"]));
    let size = common::metric(summary, metric::EQUIVALENT_SIZE, &[]);
    let rows = common::metric(summary, metric::EQUIVALENT_ROWS_PER_TABLE, &[]);
    assert!(size >= 4_000_000.0, "{size}");
    assert_eq!(size, rows * 400.0);
    assert_eq!(p[param::ROWS_PER_TABLE], rows);
    // Each trial: its size, seconds and verdict; the equivalent size is
    // the largest that fit, and no larger one fit.
    let sizes = by_label(summary, metric::TRIAL_ROWS_PER_TABLE, label::TRIAL);
    let secs = by_label(summary, metric::TRIAL_SECONDS, label::TRIAL);
    let fits = by_label(summary, metric::TRIAL_WITHIN_LIMIT, label::TRIAL);
    assert!((1..=6).contains(&sizes.len()), "{sizes:?}");
    assert_eq!(sizes[0], ("1".to_string(), 10_000.0));
    for ((_, n), ((_, s), (_, ok))) in sizes.iter().zip(secs.iter().zip(&fits)) {
        assert!(*s > 0.0);
        assert_eq!(*ok == 1.0, *s <= 10.0, "{n} rows: {s} s");
        assert_eq!(*ok == 1.0, *n <= rows, "{n} rows against {rows}");
    }
    let how = p[param::EQUIVALENT].as_str().unwrap();
    assert!([bound::FOUND, bound::AT_LEAST].contains(&how), "{how}");
    let phase_secs = by_label(summary, metric::TEST_SECONDS, label::TEST);
    assert_eq!(phase_secs.len(), 2, "{phase_secs:?}");
    assert!(phase_secs.iter().all(|(_, s)| *s > 0.0));
    // The trial at the equivalent size: its load and the per-test table.
    for r in &results[1..] {
        assert_eq!(r["status"], "passed", "{r}");
        assert_eq!(r["parameters"][param::ROWS_PER_TABLE], rows);
        assert_eq!(r["parameters"][param::TIME_LIMIT], 10.0);
    }
    let per_test = by_label(&results[2], metric::QUERY_SECONDS, label::QUERY);
    assert_eq!(per_test.len(), 37, "the paper's 37 single-user tests");
    assert!(per_test.iter().all(|(q, s)| !q.is_empty() && *s >= 0.0));
    // Every figure in the catalog.
    let spec = catalog::spec(db::AS3AP).unwrap();
    for r in results {
        for m in r["metrics"].as_array().unwrap() {
            let name = m["name"].as_str().unwrap();
            assert!(spec.metric(name).is_some(), "{name} not in the catalog");
        }
    }
    let left: Vec<_> = std::fs::read_dir(scratch.path()).unwrap().collect();
    assert!(left.is_empty(), "scratch files left: {left:?}");
}
