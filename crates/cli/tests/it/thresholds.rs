//! Acceptance thresholds (`--assert`): the verdict table, the exit code,
//! the stored verdicts, and refused expressions.

use crate::common;

use common::{QUICK_OPS, TempStore, one_line_error, stderr, stdout};

/// `QUICK_OPS` with `--assert` for each of `thresholds`, plus `extra`.
fn ops_with(thresholds: &[&str], extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = QUICK_OPS.iter().map(|s| s.to_string()).collect();
    for t in thresholds {
        args.extend(["--assert".to_string(), t.to_string()]);
    }
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

fn run(t: &TempStore, args: &[String]) -> std::process::Output {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    t.run(&args)
}

#[test]
fn a_threshold_that_holds_exits_0_with_a_pass_table() {
    let t = TempStore::new();
    let out = run(
        &t,
        &ops_with(&["cpu.ops rate{kernel=int.scalar} >= 1 op/s"], &[]),
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("acceptance\n"), "{text}");
    assert!(text.contains("PASS: all 1 threshold(s) hold"), "{text}");
}

#[test]
fn a_failed_threshold_exits_1_prints_the_measured_value_and_is_stored() {
    let t = TempStore::new();
    let thresholds = [
        "cpu.ops rate{kernel=int.scalar,threads=1} >= 1 op/s",
        "cpu.ops rate{kernel=int.scalar,threads=1} >= 1000 Top/s",
    ];
    let out = run(&t, &ops_with(&thresholds, &["--json"]));
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("error: acceptance failed: 1 of 2 threshold(s) not met"),
        "{}",
        stderr(&out)
    );
    // Exit 1 with the run still printed whole.
    let run_json: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let verdicts = run_json["verdicts"].as_array().unwrap();
    assert_eq!(verdicts.len(), 2);
    assert_eq!(verdicts[0]["passed"], true);
    assert_eq!(verdicts[1]["passed"], false);
    assert_eq!(verdicts[1]["threshold"], thresholds[1]);
    assert_eq!(verdicts[1]["unit"], "op/s");
    let measured = verdicts[1]["measured"].as_f64().unwrap();
    assert!(measured > 1.0 && measured < 1e15, "{measured}");

    // Stored with the run: runs show prints the table with the measured value.
    let id = run_json["id"].as_i64().unwrap().to_string();
    let shown = t.run(&["runs", "show", &id]);
    let text = stdout(&shown);
    let fail_row = text
        .lines()
        .find(|l| l.starts_with("| FAIL "))
        .unwrap_or_else(|| panic!("no FAIL row:\n{text}"));
    assert!(fail_row.contains(thresholds[1]), "{fail_row}");
    assert!(
        fail_row.contains("OPS"),
        "measured value missing: {fail_row}"
    );
    assert!(text.contains("FAIL: 1 of 2 threshold(s) failed"), "{text}");
}

#[test]
fn a_threshold_that_cannot_match_is_refused_before_anything_runs() {
    let t = TempStore::new();
    for (threshold, want) in [
        (
            "memory.stream bandwidth >= 1 GB/s",
            &[
                "this command does not run memory.stream",
                "it runs: cpu.ops",
            ][..],
        ),
        (
            "memory.strem bandwidth >= 1 GB/s",
            &[
                "unknown benchmark 'memory.strem'",
                "did you mean 'memory.stream'",
            ],
        ),
        (
            "cpu.ops rat >= 1 op/s",
            &["unknown metric 'rat' for cpu.ops; did you mean 'rate'?"],
        ),
        (
            "cpu.ops rate{kernel=f64.vectr} >= 1 GFLOPS",
            &["unknown value 'f64.vectr' of label kernel", "'f64.vector'"],
        ),
        (
            "cpu.ops rate{thread=1} >= 1 GFLOPS",
            &["unknown label 'thread'", "did you mean 'threads'"],
        ),
        (
            "cpu.ops efficiency >= 1 GB/s",
            &["the bound is in B/s but cpu.ops efficiency is in %"],
        ),
    ] {
        let out = run(&t, &ops_with(&[threshold], &[]));
        let mut words = vec![threshold];
        words.extend_from_slice(want);
        one_line_error(&out, 2, &words);
        assert!(stdout(&out).is_empty(), "{}", stdout(&out));
    }
    assert!(!t.store().exists(), "nothing ran, nothing stored");
    // A suite threshold naming a benchmark no step runs.
    let dir = tempfile::tempdir().unwrap();
    let suite = dir.path().join("s.toml");
    std::fs::write(
        &suite,
        "name = \"s\"\nthresholds = [\"disk.iozone throughput >= 1 MB/s\"]\n[[step]]\nbench = \"cpu.ops\"\nthreads = \"1\"\n",
    )
    .unwrap();
    let out = t.run(&["suite", "run", suite.to_str().unwrap()]);
    one_line_error(&out, 2, &["this command does not run disk.iozone"]);
    assert!(!t.store().exists(), "nothing ran, nothing stored");
}

#[test]
fn a_malformed_expression_is_refused_before_anything_runs() {
    let t = TempStore::new();
    let bad = "cpu.ops rate => 1";
    let out = run(&t, &ops_with(&[bad], &[]));
    one_line_error(
        &out,
        2,
        &[
            "--assert",
            "invalid threshold 'cpu.ops rate => 1'",
            "expected BENCHMARK METRIC[{LABEL=VALUE,...}] OP VALUE[UNIT]",
        ],
    );
    let list = t.run(&["runs", "list"]);
    assert!(
        !stdout(&list).contains("cpu.ops"),
        "a run was saved: {}",
        stdout(&list)
    );
    let out = t.run(&["runs", "list", "--assert", "cpu.ops rate >= 1"]);
    one_line_error(
        &out,
        2,
        &["--assert applies to commands that run benchmarks"],
    );
}
