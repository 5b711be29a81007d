//! Telemetry on every result: the sampler's series attached to each result
//! of a run, stored with it, off with `--no-telemetry`, and a refused
//! `--telemetry-interval`.

use crate::common;

use common::{TempStore, one_line_error, stderr, stdout};
use nodebench_core::BenchResult;
use nodebench_core::names::telemetry::{SOURCE, SOURCE_TELEMETRY, label, series};

/// A single 600 ms cpu ops cell, sampled every 50 ms, as JSON.
const OPS: &[&str] = &[
    "cpu",
    "ops",
    "--threads",
    "1",
    "--duration",
    "600ms",
    "--repeats",
    "1",
    "--warmup",
    "0",
    "--kernels",
    "int.scalar",
    "--quiet",
    "--json",
    "--telemetry-interval",
    "50ms",
];

fn telemetry_of(result: &serde_json::Value) -> Vec<&serde_json::Value> {
    result["series"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter(|s| s["labels"][SOURCE] == SOURCE_TELEMETRY)
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn each_result_carries_the_telemetry_of_its_own_span_and_the_store_keeps_it() {
    let t = TempStore::new();
    let out = t.run(OPS);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let run: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let result = &run["results"][0];
    let telemetry = telemetry_of(result);
    let user: Vec<_> = telemetry
        .iter()
        .filter(|s| s["name"] == series::CPU_USER)
        .collect();
    let cpus = std::fs::read_to_string("/proc/stat")
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("cpu") && !l.starts_with("cpu "))
        .count();
    assert_eq!(user.len(), cpus, "one {} series per CPU", series::CPU_USER);
    assert!(user.iter().all(|s| s["labels"][label::CPU].is_string()));
    let model: BenchResult = serde_json::from_value(result.clone()).unwrap();
    let span = (model.ended_at - model.started_at)
        .num_microseconds()
        .unwrap() as f64
        / 1e6;
    for s in &telemetry {
        let points = s["points"].as_array().unwrap();
        assert!(
            points.len() >= 5,
            "{} points over {span} s: {s}",
            points.len()
        );
        for p in points {
            let at = p[0].as_f64().unwrap();
            assert!(
                (0.0..=span).contains(&at),
                "point at {at} s outside the result's {span} s"
            );
        }
    }
    for name in [
        series::CONTEXT_SWITCHES,
        series::MEMORY_USED,
        series::PROCS_RUNNING,
    ] {
        assert!(telemetry.iter().any(|s| s["name"] == name), "no {name}");
    }

    let shown = t.run(&["runs", "show", "1", "--json"]);
    assert_eq!(shown.status.code(), Some(0), "{}", stderr(&shown));
    let stored: serde_json::Value = serde_json::from_str(&stdout(&shown)).unwrap();
    assert_eq!(telemetry_of(&stored["results"][0]).len(), telemetry.len());

    // `runs show` summarises it: mean / max per series, a column per CPU.
    let shown = t.run(&["runs", "show", "1"]);
    assert_eq!(shown.status.code(), Some(0), "{}", stderr(&shown));
    let text = stdout(&shown);
    assert!(text.contains("telemetry while it ran ("), "{text}");
    let header = text
        .lines()
        .find(|l| l.trim_start_matches(['|', ' ']).starts_with("cpu "))
        .unwrap_or_else(|| panic!("no cpu table: {text}"));
    for cpu in 0..cpus {
        assert!(header.contains(&format!("cpu{cpu}")), "{header}");
    }
    for row in ["cpu_user (%)", "context_switches (", "memory_used ("] {
        let line = text
            .lines()
            .find(|l| l.contains(row))
            .unwrap_or_else(|| panic!("no {row} row: {text}"));
        assert!(line.contains(" / "), "mean / max: {line}");
    }
}

#[test]
fn no_telemetry_attaches_none() {
    let t = TempStore::new();
    let mut args = OPS.to_vec();
    args.push("--no-telemetry");
    let out = t.run(&args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let run: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert!(telemetry_of(&run["results"][0]).is_empty());
    let shown = t.run(&["runs", "show", "1"]);
    assert_eq!(shown.status.code(), Some(0), "{}", stderr(&shown));
    assert!(!stdout(&shown).contains("telemetry while it ran"));
}

#[test]
fn a_bad_interval_is_refused_naming_the_flag() {
    let t = TempStore::new();
    for bad in ["0s", "fast"] {
        let out = t.run(&["cpu", "ops", "--telemetry-interval", bad]);
        one_line_error(
            &out,
            2,
            &["--telemetry-interval", bad, "expected a positive duration"],
        );
    }
}
