//! The burn-in's summary over time (`nodebench burnin`, `runs show`): all
//! of a run's checkpoint results as one table, a row per time bucket (at
//! most [`MAX_ROWS`]; several checkpoints share a row on long runs), a
//! column per workload's mean throughput, a column per power source's
//! median watts (marked where above the first window's median by more than
//! `--degrade`), and the errors; then the checkpoints that failed, with
//! what failed.

use std::fmt::Write as _;

use comfy_table::{CellAlignment, Table, presets};
use nodebench_core::names::burnin::{SYSTEM, metric, param};
use nodebench_core::names::energy::label;
use nodebench_core::{BenchResult, ResultStatus, Unit};

use crate::format;

/// Most rows of the table: longer runs put several checkpoints in a row.
pub const MAX_ROWS: usize = 24;
/// Most failed checkpoints listed under the table.
const MAX_ERROR_LINES: usize = 12;

fn text_param(r: &BenchResult, key: &str) -> String {
    match r.param(key) {
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => String::new(),
    }
}

fn num_param(r: &BenchResult, key: &str) -> f64 {
    r.param(key).and_then(|v| v.as_f64()).unwrap_or(0.0)
}

fn value(r: &BenchResult, name: &str) -> Option<(f64, Unit)> {
    r.metric(name, &[]).map(|m| (m.value, m.unit))
}

/// `+H:MM:SS`.
fn offset(s: f64) -> String {
    let s = s.max(0.0).round() as u64;
    format!("+{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// The summary of a run's checkpoints (every result of `burnin.checkpoint`).
pub fn report(checkpoints: &[&BenchResult]) -> String {
    let mut numbers: Vec<u64> = checkpoints
        .iter()
        .map(|r| num_param(r, param::CHECKPOINT) as u64)
        .collect();
    numbers.sort_unstable();
    numbers.dedup();
    let mut workloads: Vec<String> = Vec::new();
    for r in checkpoints {
        let w = text_param(r, param::WORKLOAD);
        if w != SYSTEM && !workloads.contains(&w) {
            workloads.push(w);
        }
    }
    let mut sensors: Vec<String> = Vec::new();
    for r in checkpoints {
        for m in r.metrics_named(metric::POWER_MEDIAN) {
            if let Some(s) = m.labels.get(label::SENSOR)
                && !sensors.contains(s)
            {
                sensors.push(s.clone());
            }
        }
    }
    let per_row = numbers.len().div_ceil(MAX_ROWS).max(1);
    let mut table = Table::new();
    table.load_style(presets::ASCII_BORDERS_ONLY_CONDENSED);
    let mut header = vec!["time".to_string()];
    header.extend(workloads.iter().cloned());
    header.extend(sensors.iter().map(|s| format!("power {s}")));
    header.push("errors".into());
    table.set_header(header);
    for group in numbers.chunks(per_row) {
        let in_row: Vec<&&BenchResult> = checkpoints
            .iter()
            .filter(|r| group.contains(&(num_param(r, param::CHECKPOINT) as u64)))
            .collect();
        let from = in_row
            .iter()
            .map(|r| num_param(r, param::OFFSET_S))
            .fold(f64::INFINITY, f64::min);
        let to = in_row
            .iter()
            .map(|r| {
                num_param(r, param::OFFSET_S)
                    + (r.ended_at - r.started_at).num_milliseconds() as f64 / 1000.0
            })
            .fold(0.0, f64::max);
        let mut row = vec![format!("{} .. {}", offset(from), offset(to))];
        for w in &workloads {
            // Mean over the row's iterations: each checkpoint's mean
            // weighted by its iteration count.
            let (mut sum, mut n, mut unit, mut degraded) = (0.0, 0.0, None, false);
            for r in in_row
                .iter()
                .filter(|r| &text_param(r, param::WORKLOAD) == w)
            {
                let iters = value(r, metric::ITERATIONS).map_or(0.0, |(v, _)| v);
                if let Some((mean, u)) = value(r, metric::THROUGHPUT_MEAN) {
                    sum += mean * iters;
                    n += iters;
                    unit = Some(u);
                }
                degraded |= r.warnings.iter().any(|w| w.starts_with("degraded"));
            }
            let mut cell = match unit {
                Some(u) if n > 0.0 => format::value(sum / n, u),
                _ => "-".into(),
            };
            if degraded {
                cell.push_str(" (degraded)");
            }
            row.push(cell);
        }
        for sensor in &sensors {
            row.push(power_cell(&in_row, sensor));
        }
        let errors: f64 = in_row
            .iter()
            .filter_map(|r| value(r, metric::ERRORS))
            .map(|(v, _)| v)
            .sum();
        row.push(format!("{errors}"));
        table.add_row(row);
    }
    for i in 1..table.column_count() {
        if let Some(c) = table.column_mut(i) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    let mut out = format!(
        "burn-in: {} checkpoint(s){}, mean throughput per workload{} over time\n{table}\n",
        numbers.len(),
        if per_row > 1 {
            format!(", {per_row} per row")
        } else {
            String::new()
        },
        if sensors.is_empty() {
            ""
        } else {
            " and median power per source"
        }
    );
    let failed: Vec<&&BenchResult> = checkpoints
        .iter()
        .filter(|r| r.status == ResultStatus::Failed)
        .collect();
    for r in failed.iter().take(MAX_ERROR_LINES) {
        let _ = writeln!(
            out,
            "checkpoint {} {}: {}",
            num_param(r, param::CHECKPOINT),
            text_param(r, param::WORKLOAD),
            r.error.as_deref().unwrap_or("failed")
        );
    }
    if failed.len() > MAX_ERROR_LINES {
        let _ = writeln!(
            out,
            "... and {} more failed checkpoint(s)",
            failed.len() - MAX_ERROR_LINES
        );
    }
    out
}

/// The median of the row's interval medians of `sensor`'s watts, marked
/// `(above)` where an interval was more than `--degrade` above the first
/// window's median; `-` where none was read.
fn power_cell(in_row: &[&&BenchResult], sensor: &str) -> String {
    let of = |name: &'static str| {
        in_row.iter().flat_map(move |r| {
            r.metrics_named(name)
                .filter(|m| m.labels.get(label::SENSOR).map(String::as_str) == Some(sensor))
                .map(move |m| (m.value, num_param(r, param::DEGRADE_PERCENT)))
        })
    };
    let mut medians: Vec<f64> = of(metric::POWER_MEDIAN).map(|(v, _)| v).collect();
    let Some(m) = nodebench_core::stats::median(&mut medians) else {
        return "-".into();
    };
    let above = of(metric::POWER_PERCENT_OF_BASELINE).any(|(p, allowed)| p > 100.0 + allowed);
    let mut cell = format::value(m, Unit::Watts);
    if above {
        cell.push_str(" (above)");
    }
    cell
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::names::burnin::CHECKPOINT;
    use nodebench_core::{Better, Metric};

    fn checkpoint(n: u64, workload: &str, mean: f64, errors: f64) -> BenchResult {
        let mut r = BenchResult::new(CHECKPOINT);
        r.ended_at = r.started_at + chrono::Duration::seconds(20);
        r.set_param(param::CHECKPOINT, n);
        r.set_param(param::WORKLOAD, workload);
        r.set_param(param::OFFSET_S, 20.0 * (n - 1) as f64);
        r.metrics.push(Metric::new(
            metric::ITERATIONS,
            4.0,
            Unit::Count,
            Better::Higher,
        ));
        r.metrics.push(Metric::new(
            metric::ERRORS,
            errors,
            Unit::Count,
            Better::Lower,
        ));
        if workload != SYSTEM {
            r.metrics.push(Metric::new(
                metric::THROUGHPUT_MEAN,
                mean,
                Unit::OpsPerSecond,
                Better::Higher,
            ));
        }
        if errors > 0.0 {
            r.mark_failed("2 failed iteration(s), the first at ...: http.load: 40 non_2xx");
        }
        r
    }

    #[test]
    fn one_row_per_checkpoint_with_a_column_per_workload_and_the_errors() {
        let results = [
            checkpoint(1, "cpu", 1000.0, 0.0),
            checkpoint(1, "http", 2000.0, 0.0),
            checkpoint(1, SYSTEM, 0.0, 0.0),
            checkpoint(2, "cpu", 1000.0, 0.0),
            checkpoint(2, "http", 500.0, 2.0),
            checkpoint(2, SYSTEM, 0.0, 1.0),
        ];
        let refs: Vec<&BenchResult> = results.iter().collect();
        let text = report(&refs);
        assert!(text.starts_with("burn-in: 2 checkpoint(s), mean"), "{text}");
        let rows: Vec<&str> = text.lines().filter(|l| l.contains(" .. ")).collect();
        assert_eq!(rows.len(), 2, "{text}");
        assert!(rows[0].contains("+0:00:00 .. +0:00:20"), "{text}");
        assert!(
            rows[0].contains("1.00 kOPS") && rows[0].contains("2.00 kOPS"),
            "{text}"
        );
        assert!(
            rows[1].contains("500.00 OPS") && rows[1].trim_end().ends_with("3 |"),
            "{text}"
        );
        assert!(
            text.contains("checkpoint 2 http: 2 failed iteration(s)"),
            "{text}"
        );
        assert!(!text.contains("| system"), "{text}");
    }

    #[test]
    fn long_runs_share_rows() {
        let results: Vec<BenchResult> = (1..=60)
            .map(|n| checkpoint(n, "cpu", n as f64, 0.0))
            .collect();
        let refs: Vec<&BenchResult> = results.iter().collect();
        let text = report(&refs);
        let rows = text.lines().filter(|l| l.contains(" .. ")).count();
        assert_eq!(rows, 20, "{text}");
        assert!(
            text.starts_with("burn-in: 60 checkpoint(s), 3 per row"),
            "{text}"
        );
    }
}
