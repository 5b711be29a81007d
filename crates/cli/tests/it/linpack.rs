//! `nodebench cpu linpack` end to end: the Intel LINPACK table, backend
//! choice with and without a system BLAS, and refused input.

use crate::common;

use std::process::Output;

use common::{bin, json, one_line_error, stderr, stdout};

/// `nodebench --no-save ARGS`, with $NODEBENCH_BLAS_DIRS set to `blas_dirs`
/// when given.
fn nodebench(args: &[&str], blas_dirs: Option<&str>) -> Output {
    let mut c = bin();
    c.arg("--no-save").args(args);
    if let Some(d) = blas_dirs {
        c.env("NODEBENCH_BLAS_DIRS", d);
    }
    c.output().unwrap()
}

#[test]
fn the_table_has_the_fields_of_intel_linpack_and_its_summary() {
    let o = nodebench(
        &[
            "cpu", "linpack", "--sizes", "200,300", "--trials", "2", "--blas", "rust",
        ],
        None,
    );
    let out = stdout(&o);
    assert!(o.status.success(), "{out}{}", stderr(&o));
    let header = out
        .lines()
        .find(|l| l.starts_with("Size") && l.contains("Check"))
        .unwrap_or_else(|| panic!("no trial header in {out}"));
    let fields: Vec<&str> = header.split_whitespace().collect();
    assert_eq!(
        fields,
        [
            "Size",
            "LDA",
            "Align.",
            "Time(s)",
            "GFlops",
            "Residual",
            "Residual(norm)",
            "Check"
        ]
    );
    let rows: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with(|c: char| c.is_ascii_digit()) && l.ends_with("PASSED"))
        .collect();
    assert_eq!(rows.len(), 4, "two trials for each of two sizes: {out}");
    assert!(
        rows[0].starts_with("200 ") && rows[3].starts_with("300 "),
        "{out}"
    );
    assert!(out.contains("Performance Summary (GFlops)"), "{out}");
    let summary = out.split("Performance Summary (GFlops)").nth(1).unwrap();
    assert!(
        summary.contains("Average") && summary.contains("Maximal"),
        "{out}"
    );
    assert_eq!(
        summary
            .lines()
            .filter(|l| l.starts_with("200 ") || l.starts_with("300 "))
            .count(),
        2,
        "{out}"
    );
    assert!(out.contains("Residual checks PASSED"), "{out}");
}

#[test]
fn without_a_system_blas_auto_runs_rust_and_says_so() {
    let empty = tempfile::tempdir().unwrap();
    let dir = empty.path().to_str().unwrap();
    let o = nodebench(
        &[
            "--json", "cpu", "linpack", "--sizes", "150", "--trials", "1",
        ],
        Some(dir),
    );
    let run = json(&o);
    let r = &run["results"][0];
    assert_eq!(r["parameters"]["backend"], "rust");
    assert_eq!(r["status"], "passed");
    let notes = r["parameters"]["backend_selection"].to_string();
    assert!(notes.contains("no system BLAS found"), "{notes}");
    assert!(notes.contains("using the Rust backend"), "{notes}");

    let o = nodebench(
        &["cpu", "linpack", "--sizes", "150", "--blas", "openblas"],
        Some(dir),
    );
    one_line_error(&o, 1, &["--blas openblas: no openblas library found"]);
}

#[test]
fn auto_with_openblas_installed_calibrates_both_and_records_the_pick() {
    let o = nodebench(
        &[
            "--json", "cpu", "linpack", "--sizes", "150", "--trials", "1",
        ],
        None,
    );
    let run = json(&o);
    let p = &run["results"][0]["parameters"];
    let notes = p["backend_selection"].to_string();
    assert!(
        notes.contains("auto: rust") && notes.contains("auto: openblas"),
        "{notes}"
    );
    // Calibrated at the run's scale: n = 150 is timed at the smallest
    // calibration order, not at 3000.
    assert!(notes.contains("at n = 1000 (best of"), "{notes}");
    let picked = p["backend"].as_str().unwrap();
    assert!(notes.contains(&format!("auto: picked {picked}")), "{notes}");
    assert!(!p["backend_version"].as_str().unwrap().is_empty());
}

#[test]
fn bad_linpack_input_is_one_clear_line() {
    let cases: &[(&[&str], &str, i32)] = &[
        (&["cpu", "linpack", "--sizes", "0"], "--sizes", 2),
        (&["cpu", "linpack", "--sizes", "1000,x"], "--sizes", 2),
        (&["cpu", "linpack", "--blas", "cuda"], "--blas", 2),
        (
            &["cpu", "linpack", "--memory-fraction", "1.5"],
            "--memory-fraction",
            2,
        ),
        (&["cpu", "linpack", "--trials", "0"], "--trials", 2),
        (
            &["cpu", "linpack", "--blas", "/nonexistent/libblas.so"],
            "--blas /nonexistent/libblas.so",
            1,
        ),
        // Far beyond any memory: refused before anything is allocated.
        (
            &["cpu", "linpack", "--sizes", "3000000"],
            "--sizes: n = 3000000 needs",
            2,
        ),
    ];
    for (args, expect, code) in cases {
        one_line_error(&nodebench(args, None), *code, &[expect]);
    }
}
