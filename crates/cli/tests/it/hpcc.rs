//! The HPC Challenge tests from the command line (`memory gups`, `cpu
//! fft`, `memory ptrans`, `cpu dgemm`): sizes beyond the memory refused
//! before anything runs (exit 2), small runs that pass HPCC's checks with
//! the import's ids, metrics and `mode` labels; and the `hpcc` suite, whose
//! run ends with HPCC's summary names and is matched by `compare`, figure
//! by figure, with an imported `hpccoutf.txt`.

use crate::common;

use std::path::PathBuf;

use common::{TempStore, find_metric, json, metric, one_line_error, run, stderr, stdout};
use serde_json::Value;

/// HPCC's output of 2 processes on this kind of machine (the import
/// crate's fixture).
fn np2_fixture() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../import/tests/fixtures/hpcc-np2.txt")
        .to_string_lossy()
        .into_owned()
}

/// The results of `--json` output of one run.
fn results(v: &Value) -> &Vec<Value> {
    v["results"].as_array().unwrap()
}

#[test]
fn sizes_beyond_the_memory_are_refused_before_running() {
    for (args, flag) in [
        (
            &["memory", "gups", "--table-size", "1099511627776"][..],
            "--table-size",
        ),
        (&["cpu", "fft", "--size", "100000000000"][..], "--size"),
        (&["memory", "ptrans", "--order", "1000000"][..], "--order"),
        (&["cpu", "dgemm", "--order", "1000000"][..], "--order"),
    ] {
        let o = run(args);
        one_line_error(&o, 2, &[flag, "of memory but only", "is available"]);
    }
    // Flags out of their range name the flag and the accepted form.
    for (args, want) in [
        (
            &["memory", "gups", "--table-size", "1000"][..],
            "--table-size: expected a power of two",
        ),
        (
            &["memory", "gups", "--memory-fraction", "1.5"][..],
            "--memory-fraction: expected",
        ),
        (
            &["cpu", "fft", "--size", "1"][..],
            "--size: expected a transform length",
        ),
        (
            &["cpu", "dgemm", "--threads", "0"][..],
            "--threads: expected",
        ),
        (
            &["memory", "ptrans", "--threads", "5000"][..],
            "--threads: expected",
        ),
    ] {
        one_line_error(&run(args), 2, &[want]);
    }
}

#[test]
fn each_test_runs_with_the_imports_ids_and_passes_hpccs_checks() {
    let gups = json(&run(&[
        "--json",
        "memory",
        "gups",
        "--table-size",
        "65536",
        "--modes",
        "single,star,shared",
        "--threads",
        "2",
    ]));
    let rs = results(&gups);
    assert_eq!(rs.len(), 3);
    for (r, mode) in rs.iter().zip(["single", "star", "shared"]) {
        assert_eq!(r["benchmark"], "memory.hpcc_random_access");
        assert_eq!(r["status"], "passed", "{r}");
        assert_eq!(r["parameters"]["n"], 65536);
        assert_eq!(r["parameters"]["updates"], 4 * 65536);
        assert!(metric(r, "updates", &[("mode", mode)]) > 0.0);
        let errors = metric(r, "errors", &[("mode", mode)]);
        // Own tables verify exactly; the lock-free shared table may lose
        // updates, under HPCC's 1 %.
        if mode == "shared" {
            assert!(errors < 0.01 * 65536.0, "{errors}");
        } else {
            assert_eq!(errors, 0.0);
        }
    }
    let fft = json(&run(&[
        "--json",
        "cpu",
        "fft",
        "--size",
        "4096",
        "--threads",
        "2",
        "--ntimes",
        "2",
    ]));
    let rs = results(&fft);
    assert_eq!(rs.len(), 2);
    for (r, mode) in rs.iter().zip(["single", "star"]) {
        assert_eq!(r["benchmark"], "cpu.hpcc_fft");
        assert_eq!(r["status"], "passed", "{r}");
        assert!(metric(r, "rate", &[("mode", mode)]) > 0.0);
        assert!(metric(r, "residual", &[("mode", mode)]) < 16.0);
    }
    let pt = json(&run(&[
        "--json",
        "memory",
        "ptrans",
        "--order",
        "300",
        "--threads",
        "2",
    ]));
    let r = &results(&pt)[0];
    assert_eq!(r["benchmark"], "memory.hpcc_ptrans");
    assert_eq!(r["status"], "passed", "{r}");
    assert!(metric(r, "bandwidth", &[("mode", "mpi")]) > 0.0);
    assert_eq!(metric(r, "residual", &[("mode", "mpi")]), 0.0);
    let dg = json(&run(&[
        "--json",
        "cpu",
        "dgemm",
        "--order",
        "120",
        "--threads",
        "2",
    ]));
    let rs = results(&dg);
    assert_eq!(rs.len(), 2);
    for (r, mode) in rs.iter().zip(["single", "star"]) {
        assert_eq!(r["benchmark"], "cpu.hpcc_dgemm");
        assert_eq!(r["status"], "passed", "{r}");
        assert!(metric(r, "rate", &[("mode", mode)]) > 0.0);
        assert!(metric(r, "residual", &[("mode", mode)]) < 16.0);
    }
    // The terminal report names the figures as HPCC's summary does.
    let text = stdout(&run(&[
        "memory",
        "gups",
        "--table-size",
        "4096",
        "--modes",
        "single",
    ]));
    assert!(text.contains("SingleRandomAccess_GUPs"), "{text}");
}

/// The hpcc suite at small sizes.
const SMALL: &[&str] = &[
    "--set",
    "cpu.linpack.sizes=200",
    "--set",
    "cpu.hpcc_dgemm.order=100",
    "--set",
    "array-size=200000",
    "--set",
    "ntimes=2",
    "--set",
    "memory.hpcc_ptrans.order=200",
    "--set",
    "memory.hpcc_random_access.table-size=16384",
    "--set",
    "cpu.hpcc_fft.size=4096",
    // The imported file ran 2 processes: its StarSTREAM times 2 is the
    // total on 2 threads, whatever this machine's core count.
    "--set",
    "stream-star.threads=2",
];

#[test]
fn the_hpcc_suite_prints_hpccs_summary_and_compares_with_an_imported_hpcc() {
    let s = TempStore::new();
    let o = s.run(&["import", &np2_fixture()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut args = vec!["suite", "run", "hpcc", "--no-telemetry", "-q"];
    args.extend(SMALL);
    let o = s.run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let summary = &text[text.find("HPC Challenge summary").expect(&text)..];
    for name in [
        "HPL_Tflops",
        "StarDGEMM_Gflops",
        "SingleDGEMM_Gflops",
        "PTRANS_GBs",
        "StarRandomAccess_GUPs",
        "SingleRandomAccess_GUPs",
        "SingleSTREAM_Triad",
        "StarFFT_Gflops",
        "SingleFFT_Gflops",
    ] {
        let line = summary
            .lines()
            .find(|l| l.contains(name))
            .unwrap_or_else(|| panic!("no {name} in {summary}"));
        let value: f64 = line
            .split_whitespace()
            .find_map(|w| w.parse().ok())
            .unwrap_or_else(|| panic!("no figure on {line}"));
        assert!(value > 0.0, "{line}");
    }
    assert!(
        summary.contains("StarSTREAM: HPCC's figure is one process's"),
        "{summary}"
    );
    assert!(summary.contains("Ping-pong"), "{summary}");
    // Run 1 is HPCC's, run 2 the suite's: every summary figure but the
    // ping-pong matches. HPL's best (HPL_Tflops) against LINPACK's best
    // trial across orders; SingleSTREAM against one thread, StarSTREAM x 2
    // processes against 2 threads, across array sizes.
    let c = json(&s.run(&["compare", "1", "2", "--json"]));
    let rows = c["rows"].as_array().unwrap();
    let matched = |bench: &str, name: &str, labels: &[(&str, &str)]| {
        rows.iter().any(|r| {
            r["benchmark"] == bench
                && r["metric"] == name
                && labels.iter().all(|(k, v)| r["labels"][*k] == *v)
        })
    };
    for (bench, name, labels) in [
        ("cpu.hpcc_dgemm", "rate", &[("mode", "single")][..]),
        ("cpu.hpcc_dgemm", "rate", &[("mode", "star")][..]),
        ("memory.hpcc_ptrans", "bandwidth", &[("mode", "mpi")][..]),
        (
            "memory.hpcc_random_access",
            "updates",
            &[("mode", "single")][..],
        ),
        (
            "memory.hpcc_random_access",
            "updates",
            &[("mode", "star")][..],
        ),
        ("cpu.hpcc_fft", "rate", &[("mode", "single")][..]),
        ("cpu.hpcc_fft", "rate", &[("mode", "star")][..]),
        ("cpu.linpack", "rate_maximal", &[][..]),
        (
            "memory.stream",
            "bandwidth",
            &[("kernel", "triad"), ("stores", "normal"), ("threads", "1")][..],
        ),
        (
            "memory.stream",
            "bandwidth",
            &[("kernel", "copy"), ("stores", "normal"), ("threads", "2")][..],
        ),
    ] {
        assert!(
            matched(bench, name, labels),
            "{bench} {name} {labels:?} not matched: {c}"
        );
    }
    // The suite's own results carry their step.
    let run2 = json(&s.run(&["runs", "show", "2", "--json"]));
    let ra = results(&run2)
        .iter()
        .find(|r| r["benchmark"] == "memory.hpcc_random_access")
        .unwrap();
    assert_eq!(ra["parameters"]["step"], "memory.hpcc_random_access");
    assert!(find_metric(ra, "errors", &[("mode", "single")])["value"] == 0.0);
}
