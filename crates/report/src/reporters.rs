//! Which reporter prints a result: the style its benchmark's descriptor
//! names (`nodebench_core::registry::Report`). The benchmarks that print
//! the way their classic tool does (LINPACK, IOzone, dd, ab/httperf,
//! JMeter, wget, gpu-burn, HPCC's summary names) and AS3AP (its load,
//! query and multi-user tables) name theirs; every other result gets the
//! generic table of [`table::result_table`].

use std::fmt::Write as _;

use nodebench_core::names::{burnin, suite};
use nodebench_core::registry::{self, Report};
use nodebench_core::{BenchResult, Run, RunStatus};

use crate::table;

/// How the results of one benchmark print.
#[derive(Clone, Copy)]
pub enum Reporter {
    /// Each result on its own.
    Each(fn(&BenchResult) -> String),
    /// All of a run's results of the benchmark as one report, printed where
    /// the first of them was (Intel's LINPACK prints every order in one
    /// table with one performance summary).
    Together(fn(&[&BenchResult]) -> String),
}

/// The reporter of benchmark `id`: the code of the style its descriptor
/// names ([`Report`]), one arm per style; the generic table for a
/// benchmark the registry does not hold (an imported `disk.fio`).
pub fn reporter(id: &str) -> Reporter {
    let style = registry::get(id).map_or(Report::Table, |d| d.report);
    match style {
        Report::Table => Reporter::Each(table::result_table),
        Report::Linpack => Reporter::Together(crate::linpack::report),
        Report::MlcMatrices => Reporter::Each(crate::memory_numa::numa),
        Report::MlcLoadedLatency => Reporter::Each(crate::memory_numa::loaded),
        Report::Iozone => Reporter::Each(iozone),
        Report::Dd => Reporter::Each(dd),
        Report::HttpLoad => Reporter::Each(crate::http::report),
        Report::HttpSweep => Reporter::Each(crate::http_sweep::report),
        Report::Wget => Reporter::Each(download),
        Report::Scan => Reporter::Each(crate::scan::report),
        Report::As3ap => Reporter::Together(crate::db::report),
        Report::Tpcc => Reporter::Together(crate::db::tpcc::report),
        Report::Burnin => Reporter::Together(crate::burnin::report),
        Report::GpuBurn => Reporter::Each(crate::gpu::burn),
        Report::Hpcc => Reporter::Together(crate::hpcc::report),
        Report::FleetLinks => Reporter::Each(crate::fleet_links::report),
    }
}

/// True when benchmark `id` prints like its classic tool rather than as
/// the generic table.
pub fn has_tool_report(id: &str) -> bool {
    registry::get(id).is_some_and(|d| d.report != Report::Table)
}

/// The report of one result, by its benchmark's reporter.
pub fn result_report(result: &BenchResult) -> String {
    match reporter(&result.benchmark) {
        Reporter::Each(f) => f(result),
        Reporter::Together(f) => f(&[result]),
    }
}

/// IOzone's report under the result's heading.
fn iozone(result: &BenchResult) -> String {
    format!(
        "{} [{}]\n{}",
        result.benchmark,
        result.status.as_str(),
        crate::iozone::report(result)
    )
}

/// The generic table, then dd's closing lines.
fn dd(result: &BenchResult) -> String {
    table::result_table(result) + &crate::dd::closing_lines(result)
}

/// The generic table (with the per-second series), then wget's closing line.
fn download(result: &BenchResult) -> String {
    table::result_table(result) + &crate::http_sweep::download_lines(result)
}

/// `bottleneck: LINE` for each of `results` that has one, or for each of
/// its phases ([`BenchResult::bottleneck_lines`]), in order.
pub fn bottleneck_lines(results: &[&BenchResult]) -> String {
    results
        .iter()
        .flat_map(|r| r.bottleneck_lines())
        .map(|b| b + "\n")
        .collect()
}

/// The line of how each of `results` that was repeated (`--repeat`) went
/// ([`Outcome::line`](nodebench_core::repeat::Outcome::line)): how many
/// repeats, the interval reached or "did not converge", the outliers
/// kept; each prefixed with `BENCHMARK result I of N` where there are
/// several.
pub fn repeat_lines(results: &[&BenchResult]) -> String {
    let many = results.len() > 1;
    results
        .iter()
        .enumerate()
        .filter_map(|(i, r)| {
            let line = nodebench_core::repeat::Outcome::of(r)?.line();
            Some(if many {
                format!(
                    "{} result {} of {}: {line}\n",
                    r.benchmark,
                    i + 1,
                    results.len()
                )
            } else {
                line + "\n"
            })
        })
        .collect()
}

/// A short heading for a run followed by the report of each result.
pub fn run_report(run: &Run) -> String {
    report_of(run, false)
}

/// [`run_report`] with each result's telemetry summary (mean / max per
/// series, [`crate::telemetry::summary_text`]) under its tables: what
/// `runs show` prints.
pub fn run_report_with_telemetry(run: &Run) -> String {
    report_of(run, true)
}

/// The run's report, with the telemetry summaries when `telemetry`.
fn report_of(run: &Run, telemetry: bool) -> String {
    let mut out = String::new();
    let id = run
        .id
        .map(|i| format!("run {i}"))
        .unwrap_or_else(|| "run (not saved)".into());
    let _ = writeln!(
        out,
        "{id}: {} started {}{}",
        run.status.as_str(),
        run.started_at.format("%Y-%m-%d %H:%M:%S UTC"),
        if run.tags.is_empty() {
            String::new()
        } else {
            format!(
                "  tags: {}",
                run.tags
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(",")
            )
        }
    );
    // The host's state: every setting in `runs show`, the warnings alone
    // under a benchmark's output.
    if let Some(h) = run.inventory.as_ref().and_then(|i| i.host.as_ref()) {
        if telemetry {
            out.push_str(&crate::host::section(h));
        } else if let Some(line) = crate::host::warnings_line(h) {
            let _ = writeln!(out, "{line}");
        }
    }
    if run.status == RunStatus::Failed && run.results.is_empty() {
        let _ = writeln!(out, "{}", crate::table::NO_RESULT);
    }
    let mut printed_together: Vec<&str> = Vec::new();
    for r in &run.results {
        let mut shown = vec![r];
        let text = match reporter(&r.benchmark) {
            // A benchmark that never produced a result: its name and error.
            _ if r.never_produced() => crate::table::result_table(r),
            Reporter::Each(f) => f(r) + &bottleneck_lines(&[r]) + &repeat_lines(&[r]),
            Reporter::Together(f) => {
                if printed_together.contains(&r.benchmark.as_str()) {
                    continue;
                }
                printed_together.push(&r.benchmark);
                let group: Vec<&BenchResult> = run
                    .results
                    .iter()
                    .filter(|o| o.benchmark == r.benchmark && !o.never_produced())
                    .collect();
                shown.clone_from(&group);
                f(&group) + &bottleneck_lines(&group) + &repeat_lines(&group)
            }
        };

        let _ = writeln!(out);
        out.push_str(&text);
        // The burn-in's telemetry is stored per checkpoint (for exports and
        // the HTML report); a summary per checkpoint would repeat for days.
        if telemetry && r.benchmark != burnin::CHECKPOINT {
            for (i, r) in shown.iter().enumerate() {
                let summary = crate::telemetry::summary_text(r);
                if summary.is_empty() {
                    continue;
                }
                if shown.len() > 1 {
                    let _ = writeln!(out, "{} result {} of {}:", r.benchmark, i + 1, shown.len());
                }
                out.push_str(&summary);
            }
        }
    }
    // The hpcc suite's run ends with HPCC's summary set.
    if run.tags.get(suite::TAG).map(String::as_str) == Some(suite::HPCC) {
        let _ = writeln!(out);
        out.push_str(&crate::hpcc::summary(run));
    }
    if !run.verdicts.is_empty() {
        let _ = writeln!(out);
        out.push_str(&crate::verdicts::verdict_table(&run.verdicts));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::names::{cpu, disk, http, linpack};
    use nodebench_core::{Better, Metric, Unit};

    fn with_metric(id: &str, name: &str) -> BenchResult {
        let mut r = BenchResult::new(id);
        r.metrics
            .push(Metric::new(name, 2.0, Unit::Seconds, Better::Lower));
        r
    }

    #[test]
    fn ids_in_the_table_get_their_tool_report_and_others_the_generic_table() {
        let generic = table::result_table(&with_metric("disk.seq", "latency"));
        assert_eq!(result_report(&with_metric("disk.seq", "latency")), generic);
        let iozone = result_report(&with_metric(disk::IOZONE, "latency"));
        assert!(
            iozone.starts_with("disk.iozone [passed]\n\tOutput is in kBytes/sec\n"),
            "{iozone}"
        );
        assert!(!generic.contains("kBytes/sec"), "{generic}");
        let mut load = BenchResult::new(http::LOAD);
        load.set_param("host", "h");
        let load = result_report(&load);
        assert!(load.contains("\nServer Hostname:        h\n"), "{load}");
        let sweep = result_report(&BenchResult::new(http::SWEEP));
        assert!(sweep.contains("\n Users   Avg (ms)"), "{sweep}");
    }

    #[test]
    fn results_printed_together_print_once_where_the_first_was() {
        let mut run = Run::start(vec!["nodebench".into()], Default::default());
        let mut a = BenchResult::new(linpack::LINPACK);
        a.set_param(linpack::param::N, 1000);
        let mut b = BenchResult::new(linpack::LINPACK);
        b.set_param(linpack::param::N, 2000);
        run.results = vec![
            with_metric(cpu::OPS, "rate"),
            a,
            with_metric("disk.seq", "latency"),
            b,
        ];
        let text = run_report(&run);
        assert_eq!(
            text.matches("Performance Summary (GFlops)").count(),
            1,
            "{text}"
        );
        let ops = text.find("cpu.ops [passed]").unwrap();
        let summary = text.find("Performance Summary").unwrap();
        let seq = text.find("disk.seq [passed]").unwrap();
        assert!(ops < summary && summary < seq, "{text}");
    }
}
