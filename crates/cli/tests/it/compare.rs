//! `nodebench compare`: two real quick suites side by side, tag groups of
//! short real `cpu ops` runs with intervals and verdicts, a run against
//! itself, the JSON model against its checked-in schema, Markdown and CSV,
//! and the refused arguments.

use crate::common;

use std::path::{Path, PathBuf};

use common::{TempStore, bin, json, one_line_error, stderr, stdout};
use serde_json::Value;

/// A short real `cpu ops` run: one repeat per cell, so each run is one
/// sample and a tag group of three is three.
const SHORT_OPS: &[&str] = &[
    "-q",
    "cpu",
    "ops",
    "--threads",
    "1",
    "--duration",
    "10ms",
    "--repeats",
    "1",
    "--warmup",
    "0",
    "--kernels",
    "f64.vector,int.scalar",
    "--scaling",
    "strong",
];

/// The verdicts of a side against the baseline.
const VERDICTS: [&str; 3] = ["faster", "slower", "no significant difference"];

fn schema_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schema/compare.schema.json")
}

/// Saves a short `cpu ops` run tagged `cfg=VALUE`.
fn short_run(t: &TempStore, value: &str) {
    let tag = format!("cfg={value}");
    let mut args = SHORT_OPS.to_vec();
    args.extend(["--tag", &tag]);
    let o = t.run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
}

/// `compare ARGS --json`, validated against the checked-in schema.
fn compare_json(t: &TempStore, args: &[&str]) -> Value {
    let mut a = vec!["compare"];
    a.extend_from_slice(args);
    a.push("--json");
    let c = json(&t.run(&a));
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path()).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let errors: Vec<String> = validator.iter_errors(&c).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(c["schema_version"], 2);
    c
}

/// The body lines of the terminal tables: those with a verdict.
fn table_rows(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| {
            l.starts_with("| ") && !l.starts_with("| metric") && !l.contains("geometric mean")
        })
        .filter(|l| !l.contains(" % ("))
        .collect()
}

#[test]
fn checked_in_compare_schema_matches_the_model() {
    let generated = json(&bin().args(["schema", "compare"]).output().unwrap());
    let checked_in: Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path()).unwrap()).unwrap();
    assert_eq!(
        generated, checked_in,
        "schema/compare.schema.json is stale: regenerate it with `nodebench schema compare > schema/compare.schema.json` and bump COMPARISON_SCHEMA_VERSION if a field changed meaning"
    );
}

#[test]
fn two_quick_suites_print_every_metric_with_percent_and_geometric_means() {
    let t = common::two_quick_runs();
    let c = compare_json(t, &["1", "2"]);
    let rows = c["rows"].as_array().unwrap();
    assert!(rows.len() > 100, "{} rows", rows.len());
    let areas: Vec<&str> = c["summary"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["area"].as_str().unwrap())
        .collect();
    assert_eq!(areas, ["cpu", "memory", "disk", "net", "http", "overall"]);
    for s in c["summary"].as_array().unwrap() {
        assert_eq!(s["sides"][0]["percent"], 100.0);
        assert!(s["sides"][1]["percent"].as_f64().unwrap() > 0.0, "{s}");
    }

    let o = t.run(&["compare", "1", "2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(!text.contains('\u{1b}'), "no colour into a pipe");
    let body = table_rows(&text);
    assert_eq!(body.len(), rows.len(), "one table row per matched metric");
    for (line, row) in body.iter().zip(rows) {
        let percent = &row["cells"][1]["percent_of_baseline"];
        if let Some(p) = percent.as_f64() {
            assert!(line.contains(&format!("{p:.1}")), "{line} lacks {p:.1}");
        } else {
            assert!(line.contains(" - "), "{line}");
        }
    }
    // Matched unless on one side only: a quick suite matches itself whole.
    assert_eq!(
        c["unmatched"].as_array().unwrap().len(),
        0,
        "{}",
        c["unmatched"]
    );
    assert!(text.contains("geometric mean") && text.contains("over 100 % means better"));
    for area in &areas {
        assert!(
            text.lines().any(|l| l.starts_with(&format!("| {area} "))),
            "{area} geomean missing:\n{text}"
        );
    }
    assert!(text.contains("method: medians compared") && text.contains("never below 0"));

    // A run against itself: 100 % and no significant difference everywhere;
    // the figures with repeats (cpu.ops rates) have an interval too.
    let c = compare_json(t, &["1", "1"]);
    let mut with_interval = 0;
    for row in c["rows"].as_array().unwrap() {
        let cell = &row["cells"][1];
        if !cell["percent_of_baseline"].is_null() {
            assert_eq!(cell["percent_of_baseline"], 100.0, "{row}");
        }
        // Figures that are not performance are shown, never judged.
        if row["better"] == "neither" {
            assert_eq!(cell["verdict"], "not a performance figure", "{row}");
            assert!(cell["ratio"].is_null(), "{row}");
            continue;
        }
        assert_eq!(cell["verdict"], "no significant difference", "{row}");
        if cell["n"].as_u64().unwrap() >= 3 {
            with_interval += 1;
            assert!(!cell["interval"].is_null(), "{row}");
        }
    }
    assert!(
        with_interval >= 4,
        "{with_interval} cpu.ops rates with repeats"
    );
    let text = stdout(&t.run(&["compare", "1", "1"]));
    assert!(text.contains("no significant difference"));
    assert!(!text.contains("faster") && !text.contains("slower"));

    // Markdown: a heading per benchmark and workload, a row per metric.
    let md = stdout(&t.run(&["compare", "1", "2", "--format", "md"]));
    assert!(md.starts_with("# nodebench comparison\n"));
    let md_rows = md
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| metric") && !l.starts_with("| area"))
        .count();
    assert_eq!(md_rows, rows.len() + areas.len(), "{md}");
    assert!(md.contains("## Geometric means"));

    // CSV: a row per metric and side, then the geometric means.
    let csv = stdout(&t.run(&["compare", "1", "2", "--format", "csv"]));
    let mut lines = csv.lines();
    assert_eq!(
        lines.next().unwrap(),
        "benchmark,metric,labels,workload,unit,better,side,value,n,stddev,ratio,percent_of_baseline,ci_low,ci_high,verdict"
    );
    assert_eq!(lines.count(), 2 * rows.len() + 2 * areas.len());
}

#[test]
fn tag_groups_of_three_runs_print_intervals_and_verdicts() {
    let t = TempStore::new();
    for value in ["a", "a", "a", "b", "b", "b"] {
        short_run(&t, value);
    }
    let c = compare_json(&t, &["tag:cfg=a", "tag:cfg=b"]);
    assert_eq!(c["sides"][0]["run_ids"], serde_json::json!([1, 2, 3]));
    assert_eq!(c["sides"][1]["run_ids"], serde_json::json!([4, 5, 6]));
    let rows = c["rows"].as_array().unwrap();
    // The rate of two kernels (one thread: no speedup or efficiency rows,
    // 1 and 100 % by definition).
    assert_eq!(rows.len(), 2);
    for row in rows {
        let cell = &row["cells"][1];
        assert_eq!(cell["n"], 3);
        assert_eq!(cell["source"], "runs");
        let iv = &cell["interval"];
        let ratio = cell["ratio"].as_f64().unwrap();
        assert!(iv["low"].as_f64().unwrap() <= ratio && ratio <= iv["high"].as_f64().unwrap());
        assert!(
            iv["low"].as_f64().unwrap() > 0.0,
            "a ratio's interval stays above 0: {row}"
        );
        assert!(
            VERDICTS.contains(&cell["verdict"].as_str().unwrap()),
            "{row}"
        );
    }
    let text = stdout(&t.run(&["compare", "tag:cfg=a", "tag:cfg=b"]));
    assert!(text.contains("95 % CI (%)"));
    let body = table_rows(&text);
    assert_eq!(body.len(), 2, "{text}");
    for line in body {
        assert!(line.contains(".."), "an interval: {line}");
        assert!(VERDICTS.iter().any(|v| line.contains(v)), "{line}");
    }

    // `latest` is the newest run; a single run against a group: one sample.
    let c = compare_json(&t, &["latest", "tag:cfg=a"]);
    assert_eq!(c["sides"][0]["label"], "latest (run 6)");
    assert_eq!(c["rows"][0]["cells"][1]["verdict"], "one sample");
}

#[test]
fn bad_sides_are_one_line_and_exit_2() {
    let t = TempStore::new();
    let forms = "tag:KEY=VALUE";
    one_line_error(
        &t.run(&["compare", "latest", "latest"]),
        2,
        &["latest", "no run", forms],
    );
    short_run(&t, "a");
    one_line_error(&t.run(&["compare", "1"]), 2, &["at least 2", forms]);
    one_line_error(&t.run(&["compare"]), 2, &["at least 2", forms]);
    one_line_error(
        &t.run(&["compare", "1", "7"]),
        2,
        &["7", "no run with id 7", forms],
    );
    one_line_error(
        &t.run(&["compare", "1", "tag:cfg=zzz"]),
        2,
        &["tag:cfg=zzz", "no stored run has the tag cfg=zzz", forms],
    );
    one_line_error(&t.run(&["compare", "1", "run7"]), 2, &["run7", forms]);
    one_line_error(
        &t.run(&["compare", "1", "tag:novalue"]),
        2,
        &["tag:novalue", forms],
    );
    one_line_error(
        &t.run(&["compare", "1", "1", "--format", "html"]),
        2,
        &["--format", "table", "md", "csv"],
    );
}

#[test]
fn an_imported_stream_compares_with_a_run_of_another_array_size() {
    let t = TempStore::new();
    let seed = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../import/tests/fixtures/stream-seed000.txt")
        .display()
        .to_string();
    let o = t.run(&["import", &seed]);
    assert!(o.status.success(), "{}", stderr(&o));
    // The seed ran 2,000,000 elements on one thread.
    for threads in ["2", "1"] {
        let o = t.run(&[
            "-q",
            "memory",
            "stream",
            "--array-size",
            "1m",
            "--threads",
            threads,
            "--ntimes",
            "2",
        ]);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    // Another thread count is never matched: nothing in common is one
    // line and exit 1; the JSON model says why.
    let o = t.run(&["compare", "1", "2"]);
    assert_eq!(stdout(&o), "");
    one_line_error(
        &o,
        1,
        &[
            "compare: run 1 and run 2 have no metric in common",
            "--json",
        ],
    );
    let o = t.run(&["--json", "compare", "1", "2"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let c: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(c["rows"].as_array().unwrap().len(), 0);
    assert_eq!(
        c["unmatched"][0]["elsewhere"][0],
        "array_size=1000000 threads=2 in run 2"
    );
    // Another array size is: the bandwidths, with the difference said.
    let o = t.run(&["compare", "1", "3"]);
    let text = stdout(&o);
    assert!(
        text.contains(
            "memory.stream  array_size=2000000  threads=1  [workload differs: array_size: 2000000 (run 1) vs 1000000 (run 3)]"
        ),
        "{text}"
    );
    let rows = table_rows(&text);
    assert_eq!(rows.len(), 4, "{text}");
    assert!(rows.iter().all(|r| r.contains("bandwidth")), "{text}");
    assert!(
        text.contains("warning: memory.stream workload (compared anyway; --strict compares identical workloads only) differs: run 1 = array_size=2000000; run 3 = array_size=1000000"),
        "{text}"
    );
    let c = compare_json(&t, &["1", "3"]);
    assert_eq!(
        c["rows"][0]["workload_differs"][0],
        "array_size: 2000000 (run 1) vs 1000000 (run 3)"
    );
    // --strict: nothing in common.
    let o = t.run(&["compare", "1", "3", "--strict"]);
    one_line_error(&o, 1, &["run 1 and run 3 have no metric in common"]);
}
