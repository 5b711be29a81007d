//! `nodebench cpu linpack` end to end: the Intel LINPACK table, backend
//! choice with and without a system BLAS, and refused input.

use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn nodebench(args: &[&str], blas_dirs: Option<&str>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_nodebench"));
    c.env_remove("NODEBENCH_STORE")
        .env_remove("NODEBENCH_BLAS_DIRS")
        .stdin(Stdio::null())
        .arg("--no-save")
        .args(args);
    if let Some(d) = blas_dirs {
        c.env("NODEBENCH_BLAS_DIRS", d);
    }
    c.output().unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_table_has_the_fields_of_intel_linpack_and_its_summary() {
    let o = nodebench(
        &[
            "cpu", "linpack", "--sizes", "200,300", "--trials", "2", "--blas", "rust",
        ],
        None,
    );
    let out = text(&o.stdout);
    assert!(o.status.success(), "{out}{}", text(&o.stderr));
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
    assert!(o.status.success(), "{}", text(&o.stderr));
    let run: Value = serde_json::from_slice(&o.stdout).unwrap();
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
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(
        err.contains("--blas openblas: no openblas library found"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn auto_with_openblas_installed_calibrates_both_and_records_the_pick() {
    let o = nodebench(
        &[
            "--json", "cpu", "linpack", "--sizes", "150", "--trials", "1",
        ],
        None,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let run: Value = serde_json::from_slice(&o.stdout).unwrap();
    let p = &run["results"][0]["parameters"];
    let notes = p["backend_selection"].to_string();
    assert!(
        notes.contains("auto: rust") && notes.contains("auto: openblas"),
        "{notes}"
    );
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
            1,
        ),
    ];
    for (args, expect, code) in cases {
        let o = nodebench(args, None);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(*code), "{args:?}: {err}");
        assert!(err.contains(expect), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{args:?}: {err}");
    }
}
