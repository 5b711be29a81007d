//! `cpu.linpack` results printed as Intel's optimized LINPACK prints them
//! (seeds/002): one line per trial with Size, LDA, Align., Time(s), GFlops,
//! Residual, Residual(norm) and Check, then the Performance Summary with
//! the average and maximal GFLOPS per size. Every GFLOPS figure is followed
//! by its % of the theoretical peak. Figures come from the metrics only.

use std::fmt::Write as _;

use nodebench_core::{BenchResult, Metric, ResultStatus};

/// Benchmark id of LINPACK.
const BENCHMARK: &str = "cpu.linpack";

/// True for a LINPACK result.
pub fn is_linpack(result: &BenchResult) -> bool {
    result.benchmark == BENCHMARK
}

fn param(r: &BenchResult, key: &str) -> String {
    match r.parameters.get(key) {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => String::new(),
    }
}

fn metric<'a>(r: &'a BenchResult, name: &str, trial: Option<u64>) -> Option<&'a Metric> {
    r.metrics.iter().find(|m| {
        m.name == name && m.labels.get("trial").map(|t| t.parse::<u64>().ok()) == trial.map(Some)
    })
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
    let s = format!("{v:.6e}");
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
        param(r, "n"),
        param(r, "lda"),
        param(r, "align_kib")
    )
}

/// The Intel-style report of consecutive LINPACK results (one per size).
pub fn report(results: &[&BenchResult]) -> String {
    let mut out = String::new();
    let Some(first) = results.first() else {
        return out;
    };
    let _ = writeln!(
        out,
        "cpu.linpack: LINPACK benchmark data (HPL-style LU solve)"
    );
    let _ = writeln!(
        out,
        "Backend: {} ({})",
        param(first, "backend"),
        param(first, "backend_version")
    );
    if let Some(serde_json::Value::Array(notes)) = first.parameters.get("backend_selection") {
        for n in notes {
            let _ = writeln!(out, "  {}", n.as_str().unwrap_or_default());
        }
    }
    let _ = writeln!(out, "Number of threads: {}", param(first, "threads"));
    let _ = writeln!(out, "Peak: {}", param(first, "peak"));
    let _ = writeln!(
        out,
        "GFlops count 2/3 n^3 + 3/2 n^2 per solve, as HPL; Align. in KiB."
    );
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "{:<7} {:<7} {:<6} {:<10} {:<18} {:<13} {:<14} Check",
        "Size", "LDA", "Align.", "Time(s)", "GFlops", "Residual", "Residual(norm)"
    );
    for r in results {
        let trials: u64 = param(r, "trials").parse().unwrap_or(0);
        for t in 1..=trials {
            let (Some(time), Some(rate), Some(res), Some(norm)) = (
                metric(r, "time", Some(t)),
                metric(r, "rate", Some(t)),
                metric(r, "residual", Some(t)),
                metric(r, "residual_norm", Some(t)),
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
            metric(r, "rate_average", None),
            metric(r, "rate_maximal", None),
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
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn residuals_print_with_c_exponents() {
        assert_eq!(c_exp(9.298118e-13), "9.298118e-13");
        assert_eq!(c_exp(2.030536e-3), "2.030536e-03");
        assert_eq!(c_exp(12.5), "1.250000e+01");
        assert_eq!(c_exp(f64::NAN), "NaN");
    }
}
