//! HPL's output (xhpl's `HPL.out`, and the HPL section of HPCC's
//! `hpccoutf.txt`): every `T/V  N  NB  P  Q  Time  Gflops` row with the
//! scaled residual check under it becomes one `cpu.linpack` result of one
//! trial, as nodebench's own LINPACK records a solve: its time, its rate
//! and its normalised residual, with N, NB, P, Q and the variant as
//! parameters. A run that does not reach `End of Tests.` is cut off.

use nodebench_core::model::{BenchResult, Better, Metric, Unit};
use nodebench_core::names::linpack::{self as names, label::TRIAL, param};

use crate::text::number;

/// The banner HPL prints first.
const BANNER: &str = "HPLinpack ";
/// The column header of a result row.
const HEADER: &str = "T/V";
/// The line HPL prints last.
const END: &str = "End of Tests.";
/// The start of a scaled residual check line.
const RESIDUAL: &str = "||Ax-b||";

/// True when `text` is HPL's own output (not HPCC's, which holds it).
pub(crate) fn detect(text: &str) -> bool {
    text.lines().any(|l| l.starts_with(BANNER))
        && text.lines().any(is_header)
        && !super::is_hpcc(text)
}

/// `T/V                N    NB     P     Q               Time                 Gflops`
fn is_header(line: &str) -> bool {
    line.starts_with(HEADER) && line.trim_end().ends_with("Gflops")
}

/// One result per row.
pub(crate) fn parse(text: &str) -> Result<Vec<BenchResult>, String> {
    if super::is_hpcc(text) {
        return Err(
            "this is HPC Challenge's output, whose HPL rows the hpcc format imports".into(),
        );
    }
    let lines: Vec<&str> = text.lines().collect();
    rows(&lines, 0)
}

/// The rows of `lines` (HPL's output; `at` is its first line's 0-based
/// number in the file), which must end with `End of Tests.`.
pub(super) fn rows(lines: &[&str], at: usize) -> Result<Vec<BenchResult>, String> {
    let version = lines
        .iter()
        .find_map(|l| l.strip_prefix(BANNER))
        .and_then(|rest| rest.split_whitespace().next())
        .map(|v| format!("{BANNER}{v}"));
    let mut results = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if !is_header(line) {
            continue;
        }
        let row_at = (i + 1..lines.len())
            .find(|&k| !lines[k].starts_with("---"))
            .ok_or_else(|| {
                format!(
                    "line {}: expected a result row under `{HEADER} ...`",
                    at + i + 1
                )
            })?;
        let mut r = row(lines[row_at]).ok_or_else(|| {
            format!(
                "line {}: expected `VARIANT N NB P Q TIME GFLOPS`, found `{}`",
                at + row_at + 1,
                lines[row_at].trim()
            )
        })?;
        // The check comes before the next row's header.
        let next = (row_at + 1..lines.len())
            .find(|&k| is_header(lines[k]))
            .unwrap_or(lines.len());
        let check = lines[row_at + 1..next]
            .iter()
            .find(|l| l.starts_with(RESIDUAL))
            .ok_or_else(|| {
                format!(
                    "line {}: expected the scaled residual check (`{RESIDUAL}... = R ...... PASSED`) after the row",
                    at + row_at + 1
                )
            })?;
        residual(&mut r, check).ok_or_else(|| {
            format!(
                "expected `{RESIDUAL}...= R ...... PASSED|FAILED`, found `{}`",
                check.trim()
            )
        })?;
        if let Some(v) = &version {
            r.set_param(crate::param::TOOL_VERSION, v);
        }
        results.push(r);
    }
    if results.is_empty() {
        return Err(format!("expected a `{HEADER} N NB P Q Time Gflops` row"));
    }
    if !lines.iter().any(|l| l.trim() == END) {
        return Err(format!("expected `{END}` after the last row (cut off?)"));
    }
    Ok(results)
}

/// `WR11C2R4        1000    80     1     1               0.18              3.797e+00`
fn row(line: &str) -> Option<BenchResult> {
    let w: Vec<&str> = line.split_whitespace().collect();
    let [variant, n, nb, p, q, time, gflops] = w.as_slice() else {
        return None;
    };
    let mut r = BenchResult::new(names::LINPACK);
    r.set_param(param::VARIANT, *variant);
    for (name, v) in [(param::N, n), (param::NB, nb), (param::P, p), (param::Q, q)] {
        r.set_param(name, v.parse::<u64>().ok()?);
    }
    r.set_param(param::TRIALS, 1);
    r.metrics.push(
        Metric::new(names::TIME, number(time)?, Unit::Seconds, Better::Lower).label(TRIAL, 1),
    );
    r.metrics.push(
        Metric::new(
            names::RATE,
            number(gflops)? * 1e9,
            Unit::FlopsPerSecond,
            Better::Higher,
        )
        .label(TRIAL, 1),
    );
    Some(r)
}

/// `||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)=   0.0071960 ...... PASSED`:
/// the normalised residual; a FAILED check fails the result.
fn residual(r: &mut BenchResult, line: &str) -> Option<()> {
    let (_, rest) = line.rsplit_once('=')?;
    let mut w = rest.split_whitespace();
    let v = number(w.next()?)?;
    let verdict = w.last()?;
    r.metrics
        .push(Metric::new(names::RESIDUAL_NORM, v, Unit::Count, Better::Lower).label(TRIAL, 1));
    match verdict {
        "PASSED" => Some(()),
        "FAILED" => {
            r.mark_failed(format!("trial 1: scaled residual {v} (FAILED)"));
            Some(())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HPL: &str = include_str!("../../tests/fixtures/hpl-hpcc-np1.txt");

    #[test]
    fn two_orders_with_time_rate_and_residual() {
        assert!(detect(HPL));
        let results = parse(HPL).unwrap();
        assert_eq!(results.len(), 2);
        let t1 = [(TRIAL, "1")];
        let r = &results[0];
        assert_eq!(r.benchmark, names::LINPACK);
        assert_eq!(r.param(param::N), Some(&1000.into()));
        assert_eq!(r.param(param::NB), Some(&80.into()));
        assert_eq!(r.param(param::P), Some(&1.into()));
        assert_eq!(r.param(param::Q), Some(&1.into()));
        assert_eq!(r.param(param::VARIANT), Some(&"WR11C2R4".into()));
        assert_eq!(r.metric(names::TIME, &t1).unwrap().value, 0.18);
        assert_eq!(r.metric(names::RATE, &t1).unwrap().value, 3.797e9);
        assert_eq!(
            r.metric(names::RESIDUAL_NORM, &t1).unwrap().value,
            0.0071960
        );
        assert_eq!(
            r.param(crate::param::TOOL_VERSION),
            Some(&"HPLinpack 2.0".into())
        );
        let r = &results[1];
        assert_eq!(r.param(param::N), Some(&1200.into()));
        assert_eq!(r.metric(names::RATE, &t1).unwrap().value, 2.549e9);
        assert_eq!(
            r.metric(names::RESIDUAL_NORM, &t1).unwrap().value,
            0.0074625
        );
    }

    #[test]
    fn a_failed_check_fails_the_result() {
        let text = HPL.replacen("0.0071960 ...... PASSED", "17.0071960 ...... FAILED", 1);
        let results = parse(&text).unwrap();
        assert_eq!(
            results[0].status,
            nodebench_core::model::ResultStatus::Failed
        );
        assert_eq!(
            results[1].status,
            nodebench_core::model::ResultStatus::Passed
        );
    }

    #[test]
    fn halves_and_foreign_text_are_refused() {
        let e = parse(&HPL[..HPL.len() / 2]).unwrap_err();
        assert!(e.contains("expected"), "{e}");
        // Cut after the last row, before its check and the end.
        let cut = &HPL[..HPL.rfind(RESIDUAL).unwrap()];
        assert!(parse(cut).unwrap_err().contains("residual"));
        let sysbench = include_str!("../../tests/fixtures/sysbench-cpu.txt");
        assert!(!detect(sysbench));
        assert!(parse(sysbench).is_err());
    }
}
