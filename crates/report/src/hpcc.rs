//! HPC Challenge's figures (RandomAccess, FFT, PTRANS, DGEMM, native or
//! imported) under the names of HPCC's summary section
//! (`SingleRandomAccess_GUPs`, `StarFFT_Gflops`, `PTRANS_GBs`...), one row
//! per figure with its problem size and its check: RandomAccess's wrong
//! entries, the others' scaled residual.

use std::fmt::Write as _;

use nodebench_core::names::hpcc::{label, metric, mode, param};
use nodebench_core::names::{cpu, labels, linpack, memory};
use nodebench_core::{BenchResult, ResultStatus, Run};

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
            // RandomAccess's wrong entries, the others' scaled residual.
            let check = r
                .metric(metric::ERRORS, &[(label::MODE, mode_name)])
                .map(|e| format!("{} wrong", e.value))
                .or_else(|| {
                    r.metric(metric::RESIDUAL, &[(label::MODE, mode_name)])
                        .map(|e| format!("residual {:.3}", e.value))
                })
                .unwrap_or_default();
            rows.push(vec![
                summary_name(test, suffix, mode_name),
                // An imported figure as HPCC's summary printed it.
                m.printed
                    .as_ref()
                    .map_or_else(|| format!("{:.6}", m.value / 1e9), |p| p.text.clone()),
                n.clone(),
                check,
                r.status.as_str().to_string(),
            ]);
        }
    }
    let mut out = format!("{} (HPC Challenge {test})\n", first.benchmark);
    let header: Vec<String> = ["figure", "value", "n", "check", "status"]
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

/// What the summary says of STREAM's star figure.
pub const STAR_STREAM_NOTE: &str = "StarSTREAM: HPCC's figure is one process's while every core runs its own; \
nodebench runs one STREAM on every core and gives the machine's total, \
to set against HPCC's StarSTREAM times the cores (the row's name says how many)";
/// What the summary says of the ping-pong.
pub const PING_PONG_NOTE: &str = "Ping-pong and ring latency/bandwidth: between MPI ranks in HPCC, not measured \
(nodebench's net pingpong is TCP between hosts, another test)";

/// The best value of `name` among `results` of benchmark `id` that passed
/// and whose metric has every label of `labels`, with its result.
fn best<'a>(
    results: &[&'a BenchResult],
    id: &str,
    name: &str,
    labels: &[(&str, &str)],
) -> Option<(f64, &'a BenchResult)> {
    results
        .iter()
        .filter(|r| r.benchmark == id && r.status == ResultStatus::Passed)
        .flat_map(|r| {
            r.metrics
                .iter()
                .filter(|m| {
                    m.name == name && labels.iter().all(|(k, v)| m.label_value(k) == Some(v))
                })
                .map(move |m| (m.value, *r))
        })
        .max_by(|a, b| a.0.total_cmp(&b.0))
}

/// The run's figures under HPCC's summary names (`HPL_Tflops`,
/// `StarDGEMM_Gflops`, `SingleRandomAccess_GUPs`...), in HPCC's units
/// (10^12 and 10^9), each with its problem size; figures the run lacks
/// (a step that failed or was not run) are left out, never shown as 0.
/// STREAM: the result of one thread is Single; the one of the most
/// threads, above one, the machine's total set against HPCC's Star times
/// the cores ([`STAR_STREAM_NOTE`]).
pub fn summary(run: &Run) -> String {
    let results: Vec<&BenchResult> = run.results.iter().collect();
    let n_of = |r: &BenchResult, key: &str| {
        r.param(key)
            .map(|v| v.to_string())
            .unwrap_or_else(|| "-".into())
    };
    let mut rows: Vec<Vec<String>> = Vec::new();
    if let Some((v, r)) = best(&results, linpack::LINPACK, linpack::RATE, &[]) {
        rows.push(vec![
            "HPL_Tflops".into(),
            format!("{:.6}", v / 1e12),
            n_of(r, linpack::param::N),
        ]);
    }
    for (id, test, suffix, name, modes) in [
        (
            cpu::HPCC_DGEMM,
            "DGEMM",
            "Gflops",
            metric::RATE,
            &[mode::STAR, mode::SINGLE][..],
        ),
        (
            memory::HPCC_PTRANS,
            "PTRANS",
            "GBs",
            metric::BANDWIDTH,
            &[mode::MPI][..],
        ),
        (
            memory::HPCC_RANDOM_ACCESS,
            "RandomAccess",
            "GUPs",
            metric::UPDATES,
            &[mode::SHARED, mode::STAR, mode::SINGLE][..],
        ),
    ] {
        for m in modes {
            if let Some((v, r)) = best(&results, id, name, &[(label::MODE, m)]) {
                rows.push(vec![
                    summary_name(test, suffix, m),
                    format!("{:.6}", v / 1e9),
                    n_of(r, param::N),
                ]);
            }
        }
    }
    let streams: Vec<&BenchResult> = results
        .iter()
        .filter(|r| r.benchmark == memory::STREAM && r.status == ResultStatus::Passed)
        .copied()
        .collect();
    let threads = |r: &BenchResult| {
        r.param(memory::param::THREADS)
            .and_then(|v| v.as_u64())
            .unwrap_or(0)
    };
    let single = streams.iter().find(|r| threads(r) == 1);
    let star = streams
        .iter()
        .filter(|r| threads(r) > 1)
        .max_by_key(|r| threads(r));
    for (r, prefix) in [(star, "Star"), (single, "Single")] {
        let Some(r) = r else { continue };
        for (kernel, key) in [
            (memory::kernel::COPY, "Copy"),
            (memory::kernel::SCALE, "Scale"),
            (memory::kernel::ADD, "Add"),
            (memory::kernel::TRIAD, "Triad"),
        ] {
            let Some(m) = r.metric(memory::metric::BANDWIDTH, &[(labels::KERNEL, kernel)]) else {
                continue;
            };
            let name = if prefix == "Star" {
                format!("StarSTREAM_{key} x {} cores", threads(r))
            } else {
                format!("SingleSTREAM_{key}")
            };
            rows.push(vec![
                name,
                format!("{:.6}", m.value / 1e9),
                n_of(r, memory::param::ARRAY_SIZE),
            ]);
        }
    }
    for m in [mode::STAR, mode::SINGLE] {
        if let Some((v, r)) = best(&results, cpu::HPCC_FFT, metric::RATE, &[(label::MODE, m)]) {
            rows.push(vec![
                summary_name("FFT", "Gflops", m),
                format!("{:.6}", v / 1e9),
                n_of(r, param::N),
            ]);
        }
    }
    let mut out = String::from("HPC Challenge summary (HPCC's names and units)\n");
    let header: Vec<String> = ["figure", "value", "n"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    out.push_str(&text_table(&header, &rows, 1));
    out.push('\n');
    if star.is_some() {
        let _ = writeln!(out, "{STAR_STREAM_NOTE}");
    }
    let _ = writeln!(out, "{PING_PONG_NOTE}");
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
        assert!(
            single.contains("0.073666") && single.contains("4194304"),
            "{text}"
        );
        let star = text
            .lines()
            .find(|l| l.contains("StarRandomAccess_GUPs"))
            .unwrap();
        assert!(
            star.contains("0.070000") && star.contains(" 3 wrong "),
            "{text}"
        );
    }
}
