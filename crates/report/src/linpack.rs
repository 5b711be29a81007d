//! `cpu.linpack` results printed as Intel's optimized LINPACK prints them:
//! one line per trial with Size, LDA, Align., Time(s), GFlops,
//! Residual, Residual(norm) and Check, then the Performance Summary with
//! the average and maximal GFLOPS per size. Every GFLOPS figure is followed
//! by its % of the theoretical peak. Figures come from the metrics only.

use std::fmt::Write as _;

use nodebench_core::names::linpack::{self as names, label::TRIAL, param};
use nodebench_core::{BenchResult, Metric, ResultStatus};

/// Parameter `key` as printed: strings bare, other values as JSON, nothing
/// when absent.
fn param(r: &BenchResult, key: &str) -> String {
    match r.param(key) {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => String::new(),
    }
}

/// Metric `name` of trial `trial`.
fn of_trial<'a>(r: &'a BenchResult, name: &str, trial: u64) -> Option<&'a Metric> {
    r.metric(name, &[(TRIAL, &trial.to_string())])
}

/// `64.1234 (62.9%)`, or the bare GFLOPS when the peak is unknown.
fn gflops(m: &Metric) -> String {
    match m.percent_of_reference {
        Some(p) => format!("{:.4} ({p:.1}%)", m.value / 1e9),
        None => format!("{:.4}", m.value / 1e9),
    }
}

/// `v` with six decimals and C's exponent (`9.298118e-13`, `2.030536e-03`),
/// as Intel's LINPACK prints residuals.
fn c_exp(v: f64) -> String {
    c_exp_digits(v, 6)
}

/// `v` with `digits` decimals and C's exponent.
fn c_exp_digits(v: f64, digits: usize) -> String {
    let s = format!("{v:.digits$e}");
    match s.split_once('e') {
        Some((mantissa, exp)) => {
            let (sign, digits) = match exp.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', exp),
            };
            format!("{mantissa}e{sign}{digits:0>2}")
        }
        None => s,
    }
}

/// Size, LDA and Align. columns of a result.
fn size_columns(r: &BenchResult) -> String {
    format!(
        "{:<7} {:<7} {:<6}",
        param(r, param::N),
        param(r, param::LDA),
        param(r, param::ALIGN_KIB)
    )
}

/// `v` with at least `min` decimals, more where `v` needs them to be the
/// figure it holds (up to 9): a figure read from HPL's `0.18` prints as
/// `0.18`, never `0.180000`.
fn decimals(v: f64, min: usize) -> String {
    (min..=9)
        .map(|d| format!("{v:.d$}"))
        .find(|s| s.parse::<f64>().is_ok_and(|p| p == v))
        .unwrap_or_else(|| format!("{v:.9}"))
}

/// GFLOPS as HPL prints them (`3.797e+00`): C's exponent, at least three
/// decimals.
fn hpl_gflops(rate: f64) -> String {
    let g = rate / 1e9;
    (3..=9)
        .map(|d| c_exp_digits(g, d))
        .find(|s| {
            s.parse::<f64>()
                .is_ok_and(|p| (p - g).abs() <= g.abs() * 1e-12)
        })
        .unwrap_or_else(|| c_exp_digits(g, 9))
}

/// HPL's own layout for results imported from HPL or HPCC (they hold N, NB,
/// P, Q and the variant, no LDA, alignment or absolute residual): one
/// `T/V N NB P Q Time Gflops` row per result with its scaled residual
/// check, as HPL printed them.
fn hpl_report(results: &[&BenchResult]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "cpu.linpack: HPL (High-Performance Linpack) results");
    for r in results {
        let (Some(time), Some(rate)) = (of_trial(r, names::TIME, 1), of_trial(r, names::RATE, 1))
        else {
            continue;
        };
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "{:<10} {:>9} {:>5} {:>5} {:>5} {:>18} {:>22}",
            "T/V", "N", "NB", "P", "Q", "Time", "Gflops"
        );
        let percent = rate
            .percent_of_reference
            .map(|p| format!(" ({p:.1}%)"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "{:<10} {:>9} {:>5} {:>5} {:>5} {:>18} {:>22}{percent}",
            param(r, param::VARIANT),
            param(r, param::N),
            param(r, param::NB),
            param(r, param::P),
            param(r, param::Q),
            decimals(time.value, 2),
            hpl_gflops(rate.value),
        );
        if let Some(norm) = of_trial(r, names::RESIDUAL_NORM, 1) {
            let _ = writeln!(
                out,
                "||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)= {:>16} ...... {}",
                decimals(norm.value, 7),
                if r.status == ResultStatus::Failed {
                    "FAILED"
                } else {
                    "PASSED"
                }
            );
        }
    }
    let _ = writeln!(out);
    let all_passed = results.iter().all(|r| r.status != ResultStatus::Failed);
    let _ = writeln!(
        out,
        "Residual checks {}",
        if all_passed { "PASSED" } else { "FAILED" }
    );
    for w in results.iter().flat_map(|r| &r.warnings) {
        let _ = writeln!(out, "warning: {w}");
    }
    out
}

/// The Intel-style report of consecutive LINPACK results (one per size),
/// or HPL's layout for results read from HPL's output.
pub fn report(results: &[&BenchResult]) -> String {
    let mut out = String::new();
    let Some(first) = results.first() else {
        return out;
    };
    if first.param(param::NB).is_some() {
        return hpl_report(results);
    }
    let _ = writeln!(
        out,
        "cpu.linpack: LINPACK benchmark data (HPL-style LU solve)"
    );
    // A line only for what the result holds: an imported run has no
    // backend, thread count or peak of nodebench's.
    let known = |key: &str| Some(param(first, key)).filter(|v| !v.is_empty());
    if let Some(backend) = known(param::BACKEND) {
        let version = known(param::BACKEND_VERSION)
            .map(|v| format!(" ({v})"))
            .unwrap_or_default();
        let _ = writeln!(out, "Backend: {backend}{version}");
    }
    if let Some(serde_json::Value::Array(notes)) = first.param(param::BACKEND_SELECTION) {
        for n in notes {
            let _ = writeln!(out, "  {}", n.as_str().unwrap_or_default());
        }
    }
    if let Some(threads) = known(param::THREADS) {
        let _ = writeln!(out, "Number of threads: {threads}");
    }
    if let Some(peak) = known(param::PEAK) {
        let _ = writeln!(out, "Peak: {peak}");
    }
    // How the flop were counted is nodebench's own note; an imported run
    // (Intel's LINPACK counted them itself) has none.
    match known(param::FLOPS_COUNTED) {
        Some(counted) => {
            let _ = writeln!(out, "GFlops count {counted}; Align. in KiB.");
        }
        None => {
            let _ = writeln!(out, "Align. in KiB.");
        }
    }
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "{:<7} {:<7} {:<6} {:<10} {:<18} {:<13} {:<14} Check",
        "Size", "LDA", "Align.", "Time(s)", "GFlops", "Residual", "Residual(norm)"
    );
    for r in results {
        let trials: u64 = param(r, param::TRIALS).parse().unwrap_or(0);
        for t in 1..=trials {
            let (Some(time), Some(rate), Some(res), Some(norm)) = (
                of_trial(r, names::TIME, t),
                of_trial(r, names::RATE, t),
                of_trial(r, names::RESIDUAL, t),
                of_trial(r, names::RESIDUAL_NORM, t),
            ) else {
                continue;
            };
            let _ = writeln!(
                out,
                "{} {:<10.3} {:<18} {:<13} {:<14} {}",
                size_columns(r),
                time.value,
                gflops(rate),
                c_exp(res.value),
                c_exp(norm.value),
                if norm.value < 16.0 {
                    "PASSED"
                } else {
                    "FAILED"
                }
            );
        }
        if r.status == ResultStatus::Failed {
            let _ = writeln!(
                out,
                "{} FAILED: {}",
                size_columns(r),
                r.error.as_deref().unwrap_or("failed")
            );
        }
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "Performance Summary (GFlops)");
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "{:<7} {:<7} {:<6} {:<18} {:<18}",
        "Size", "LDA", "Align.", "Average", "Maximal"
    );
    for r in results {
        if let (Some(avg), Some(max)) = (
            r.metric(names::RATE_AVERAGE, &[]),
            r.metric(names::RATE_MAXIMAL, &[]),
        ) {
            let _ = writeln!(
                out,
                "{} {:<18} {:<18}",
                size_columns(r),
                gflops(avg),
                gflops(max)
            );
        }
    }
    let _ = writeln!(out);
    let all_passed = results.iter().all(|r| r.status != ResultStatus::Failed);
    let _ = writeln!(
        out,
        "Residual checks {}",
        if all_passed { "PASSED" } else { "FAILED" }
    );
    // Each warning once (a rate above the peak, emulation), in order.
    let mut seen: Vec<&str> = Vec::new();
    for w in results.iter().flat_map(|r| &r.warnings) {
        if !seen.contains(&w.as_str()) {
            seen.push(w);
            let _ = writeln!(out, "warning: {w}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::{Better, Reference, Unit};

    /// A result of order `n` with two trials, as the benchmark records it.
    fn result(n: usize, residual_norm: f64) -> BenchResult {
        let mut r = BenchResult::new(names::LINPACK);
        r.set_param(param::N, n);
        r.set_param(param::LDA, n + 8);
        r.set_param(param::ALIGN_KIB, 4);
        r.set_param(param::TRIALS, 2);
        r.set_param(param::THREADS, 2);
        r.set_param(param::BACKEND, "rust");
        r.set_param(
            param::BACKEND_VERSION,
            "blocked LU, AVX-512 24x8 GEMM, faer 0.24 (pure Rust)",
        );
        r.set_param(param::PEAK, "theoretical peak: 100 GFLOPS");
        r.set_param(param::FLOPS_COUNTED, "2/3 n^3 + 3/2 n^2 per solve, as HPL");
        let peak = Some(Reference {
            name: "peak".into(),
            value: 100e9,
        });
        for (trial, secs, rate) in [(1, 0.5, 40e9), (2, 0.25, 80e9)] {
            r.metrics.extend([
                Metric::new(names::TIME, secs, Unit::Seconds, Better::Lower).label(TRIAL, trial),
                Metric::new(names::RATE, rate, Unit::FlopsPerSecond, Better::Higher)
                    .label(TRIAL, trial)
                    .with_reference(peak.clone()),
                Metric::new(names::RESIDUAL, 1e-12, Unit::Count, Better::Lower).label(TRIAL, trial),
                Metric::new(
                    names::RESIDUAL_NORM,
                    residual_norm,
                    Unit::Count,
                    Better::Lower,
                )
                .label(TRIAL, trial),
            ]);
        }
        for (name, rate) in [(names::RATE_AVERAGE, 60e9), (names::RATE_MAXIMAL, 80e9)] {
            r.metrics.push(
                Metric::new(name, rate, Unit::FlopsPerSecond, Better::Higher)
                    .with_reference(peak.clone()),
            );
        }
        r
    }

    fn words(line: &str) -> Vec<&str> {
        line.split_whitespace().collect()
    }

    #[test]
    fn a_result_without_backend_threads_or_peak_prints_no_blank_line_for_them() {
        let mut r = result(1000, 0.02);
        let text = report(&[&r]);
        assert!(
            text.contains("GFlops count 2/3 n^3 + 3/2 n^2 per solve, as HPL; Align. in KiB."),
            "{text}"
        );
        r.parameters.clear();
        let text = report(&[&r]);
        for absent in ["Backend:", "Number of threads:", "Peak:", "GFlops count"] {
            assert!(!text.contains(absent), "{absent} in\n{text}");
        }
        assert!(text.lines().all(|l| !l.trim_end().ends_with(':')), "{text}");
    }

    #[test]
    fn prints_a_line_per_trial_and_the_performance_summary() {
        let (a, b) = (result(1000, 0.02), result(2000, 0.03));
        let text = report(&[&a, &b]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[1],
            "Backend: rust (blocked LU, AVX-512 24x8 GEMM, faer 0.24 (pure Rust))"
        );
        assert_eq!(lines[2], "Number of threads: 2");
        assert_eq!(lines[3], "Peak: theoretical peak: 100 GFLOPS");
        let trials: Vec<Vec<&str>> = lines
            .iter()
            .filter(|l| l.ends_with("PASSED") && !l.starts_with("Residual"))
            .map(|l| words(l))
            .collect();
        assert_eq!(trials.len(), 4, "{text}");
        assert_eq!(
            trials[1],
            [
                "1000",
                "1008",
                "4",
                "0.250",
                "80.0000",
                "(80.0%)",
                "1.000000e-12",
                "2.000000e-02",
                "PASSED"
            ]
        );
        let summary = lines
            .iter()
            .position(|l| *l == "Performance Summary (GFlops)")
            .unwrap();
        assert_eq!(
            words(lines[summary + 4]),
            [
                "2000", "2008", "4", "60.0000", "(60.0%)", "80.0000", "(80.0%)"
            ]
        );
        assert_eq!(lines.last(), Some(&"Residual checks PASSED"));
    }

    #[test]
    fn a_failed_order_prints_failed_lines_and_fails_the_run() {
        let mut r = result(1000, 20.0);
        r.mark_failed("trial 1: normalised residual 2.000000e+01 is not below 16 (FAILED)");
        let text = report(&[&r]);
        let trials = text
            .lines()
            .filter(|l| l.starts_with("1000") && l.ends_with(" FAILED"));
        assert_eq!(trials.count(), 2, "{text}");
        assert!(
            text.contains("1000    1008    4      FAILED: trial 1: normalised residual"),
            "{text}"
        );
        assert_eq!(text.lines().last(), Some("Residual checks FAILED"));
    }

    #[test]
    fn warnings_are_printed_once_after_the_checks() {
        let mut a = result(1000, 20.0);
        let mut b = result(2000, 30.0);
        for r in [&mut a, &mut b] {
            r.warnings
                .push("run under emulation (x): timings mean nothing".into());
        }
        b.warnings
            .push("trial 2: 1.2 GFLOPS is 104.0 % of the theoretical peak".into());
        let text = report(&[&a, &b]);
        let tail: Vec<&str> = text.lines().rev().take(3).collect();
        assert_eq!(
            tail,
            [
                "warning: trial 2: 1.2 GFLOPS is 104.0 % of the theoretical peak",
                "warning: run under emulation (x): timings mean nothing",
                "Residual checks PASSED"
            ]
        );
    }

    #[test]
    fn an_hpl_result_prints_as_hpl_printed_it() {
        let mut r = BenchResult::new(names::LINPACK);
        r.set_param(param::VARIANT, "WR11C2R4");
        r.set_param(param::N, 1000);
        r.set_param(param::NB, 80);
        r.set_param(param::P, 1);
        r.set_param(param::Q, 1);
        r.set_param(param::TRIALS, 1);
        r.metrics.extend([
            Metric::new(names::TIME, 0.18, Unit::Seconds, Better::Lower).label(TRIAL, 1),
            Metric::new(
                names::RATE,
                3.797 * 1e9,
                Unit::FlopsPerSecond,
                Better::Higher,
            )
            .label(TRIAL, 1),
            Metric::new(names::RESIDUAL_NORM, 0.007196, Unit::Count, Better::Lower).label(TRIAL, 1),
        ]);
        let text = report(&[&r]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            words(lines[2]),
            ["T/V", "N", "NB", "P", "Q", "Time", "Gflops"],
            "{text}"
        );
        assert_eq!(
            words(lines[3]),
            ["WR11C2R4", "1000", "80", "1", "1", "0.18", "3.797e+00"],
            "{text}"
        );
        assert!(
            lines[4].ends_with("=        0.0071960 ...... PASSED"),
            "{text}"
        );
        assert_eq!(lines.last(), Some(&"Residual checks PASSED"));
        for absent in ["LDA", "Align.", "Performance Summary"] {
            assert!(!text.contains(absent), "{absent} in\n{text}");
        }
        r.mark_failed("trial 1: scaled residual 20 (FAILED)");
        let text = report(&[&r]);
        assert!(text.contains("...... FAILED"), "{text}");
        assert_eq!(text.lines().last(), Some("Residual checks FAILED"));
    }

    #[test]
    fn residuals_print_with_c_exponents() {
        assert_eq!(c_exp(9.298118e-13), "9.298118e-13");
        assert_eq!(c_exp(2.030536e-3), "2.030536e-03");
        assert_eq!(c_exp(12.5), "1.250000e+01");
        assert_eq!(c_exp(f64::NAN), "NaN");
    }
}
