//! HPC Challenge's figures (RandomAccess, FFT, PTRANS, DGEMM, native or
//! imported) under the names of HPCC's summary section
//! (`SingleRandomAccess_GUPs`, `StarFFT_Gflops`, `PTRANS_GBs`...), one row
//! per figure with its problem size and, for RandomAccess, the wrong
//! entries the verification found.

use std::fmt::Write as _;

use nodebench_core::BenchResult;
use nodebench_core::names::hpcc::{label, metric, mode, param};
use nodebench_core::names::{cpu, memory};

use crate::table::text_table;

/// HPCC's test name, the summary's unit suffix and the metric of
/// benchmark `id`.
pub fn test_of(id: &str) -> Option<(&'static str, &'static str, &'static str)> {
    match id {
        memory::HPCC_RANDOM_ACCESS => Some(("RandomAccess", "GUPs", metric::UPDATES)),
        cpu::HPCC_FFT => Some(("FFT", "Gflops", metric::RATE)),
        memory::HPCC_PTRANS => Some(("PTRANS", "GBs", metric::BANDWIDTH)),
        cpu::HPCC_DGEMM => Some(("DGEMM", "Gflops", metric::RATE)),
        _ => None,
    }
}

/// The summary's name of a figure of test `test` run in `mode_name`:
/// `Single`, `Star` and `MPI` as HPCC prefixes them, PTRANS bare (it runs
/// on every process at once), and nodebench's shared-table RandomAccess
/// as `Shared`.
pub fn summary_name(test: &str, suffix: &str, mode_name: &str) -> String {
    if test == "PTRANS" {
        return format!("{test}_{suffix}");
    }
    let prefix = match mode_name {
        mode::SINGLE => "Single",
        mode::STAR => "Star",
        mode::MPI => "MPI",
        mode::SHARED => "Shared",
        other => other,
    };
    format!("{prefix}{test}_{suffix}")
}

/// The report of a run's results of one HPCC benchmark.
pub fn report(results: &[&BenchResult]) -> String {
    let Some(first) = results.first() else {
        return String::new();
    };
    let Some((test, suffix, name)) = test_of(&first.benchmark) else {
        return String::new();
    };
    let mut rows = Vec::new();
    for r in results {
        let n = r
            .param(param::N)
            .map(|v| v.to_string())
            .unwrap_or_else(|| "-".into());
        for m in r.metrics.iter().filter(|m| m.name == name) {
            let mode_name = m.label_value(label::MODE).unwrap_or("");
            let errors = r
                .metric(metric::ERRORS, &[(label::MODE, mode_name)])
                .map_or(String::new(), |e| format!("{}", e.value));
            rows.push(vec![
                summary_name(test, suffix, mode_name),
                format!("{:.6}", m.value / 1e9),
                n.clone(),
                errors,
                r.status.as_str().to_string(),
            ]);
        }
    }
    let mut out = format!("{} (HPC Challenge {test})\n", first.benchmark);
    let header: Vec<String> = ["figure", "value", "n", "errors", "status"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    out.push_str(&text_table(&header, &rows, 1));
    out.push('\n');
    for r in results {
        if let Some(e) = &r.error {
            let _ = writeln!(out, "error: {e}");
        }
        for w in &r.warnings {
            let _ = writeln!(out, "warning: {w}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::{Better, Metric, Unit};

    #[test]
    fn figures_print_under_hpccs_summary_names() {
        assert_eq!(
            summary_name("RandomAccess", "GUPs", mode::SINGLE),
            "SingleRandomAccess_GUPs"
        );
        assert_eq!(summary_name("FFT", "Gflops", mode::STAR), "StarFFT_Gflops");
        assert_eq!(summary_name("PTRANS", "GBs", mode::MPI), "PTRANS_GBs");
        let mut r = BenchResult::new(memory::HPCC_RANDOM_ACCESS);
        r.set_param(param::N, 4194304);
        for (m, v, e) in [(mode::SINGLE, 0.0736657e9, 0.0), (mode::STAR, 0.07e9, 3.0)] {
            r.metrics.push(
                Metric::new(metric::UPDATES, v, Unit::OpsPerSecond, Better::Higher)
                    .label(label::MODE, m),
            );
            r.metrics.push(
                Metric::new(metric::ERRORS, e, Unit::Count, Better::Lower).label(label::MODE, m),
            );
        }
        let text = report(&[&r]);
        let single = text
            .lines()
            .find(|l| l.contains("SingleRandomAccess_GUPs"))
            .unwrap();
        assert!(single.contains("0.073666") && single.contains("4194304"), "{text}");
        let star = text
            .lines()
            .find(|l| l.contains("StarRandomAccess_GUPs"))
            .unwrap();
        assert!(star.contains("0.070000") && star.contains(" 3 "), "{text}");
    }
}
