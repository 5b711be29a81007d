//! Human tables for the terminal. Metrics of a result that differ only in the
//! `threads` label are pivoted into one row with a column per thread count,
//! the way scaling results are read; everything else gets a row of its own.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use comfy_table::{CellAlignment, Table, presets};
use nodebench_core::names::labels::THREADS;
use nodebench_core::names::{cpu, telemetry};
use nodebench_core::{BenchResult, Metric, Unit};

use crate::format;

/// Labels shared by every metric of a result: shown once in its heading.
fn common_labels(result: &BenchResult) -> BTreeMap<String, String> {
    let mut common: Option<BTreeMap<String, String>> = None;
    for m in &result.metrics {
        common = Some(match common {
            None => m.labels.clone(),
            Some(c) => c
                .into_iter()
                .filter(|(k, v)| m.labels.get(k) == Some(v))
                .collect(),
        });
    }
    let mut c = common.unwrap_or_default();
    c.remove(THREADS);
    c
}

fn row_key(m: &Metric, common: &BTreeMap<String, String>) -> String {
    let rest: Vec<String> = m
        .labels
        .iter()
        .filter(|(k, _)| k.as_str() != THREADS && !common.contains_key(*k))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    if rest.is_empty() {
        m.name.clone()
    } else {
        format!("{} {}", m.name, rest.join(" "))
    }
}

fn cell(m: &Metric, divisor: f64) -> String {
    let mut s = format::scaled(m.value, m.unit, divisor);
    if let Some(p) = m.percent_of_reference {
        let _ = write!(s, " ({p:.1}%)");
    }
    s
}

/// The generic table of one result as cells, before it is drawn as text
/// (here) or as HTML (`crate::html`).
pub struct Grid {
    /// `benchmark [status]` and the labels every metric shares.
    pub heading: String,
    /// Column titles.
    pub header: Vec<String>,
    /// The rows, one cell per column.
    pub rows: Vec<Vec<String>>,
    /// Index of the first column of numbers (right-aligned).
    pub numbers_from: usize,
}

/// The cells of the generic table of `result`, pivoted on `threads` where
/// present.
pub fn grid(result: &BenchResult) -> Grid {
    let common = common_labels(result);
    let mut threads: Vec<u64> = result
        .metrics
        .iter()
        .filter_map(|m| m.labels.get(THREADS).and_then(|t| t.parse().ok()))
        .collect();
    threads.sort_unstable();
    threads.dedup();

    let mut heading = format!("{} [{}]", result.benchmark, result.status.as_str());
    for (k, v) in &common {
        let _ = write!(heading, "  {k}={v}");
    }
    if let [t] = threads[..] {
        let _ = write!(heading, "  {THREADS}={t}");
    }
    if let Some(serde_json::Value::String(isa)) = result.param(cpu::param::ISA) {
        let _ = write!(heading, "  isa={isa}");
    }
    if threads.len() > 1 {
        thread_pivot(heading, result, &common, &threads)
    } else {
        name_pivot(heading, result, &common)
    }
}

/// The note under a table whose cells show a percentage of the peak.
pub fn peak_note(result: &BenchResult) -> Option<String> {
    match result.param(cpu::param::PEAK) {
        Some(serde_json::Value::String(p)) => Some(format!("(%) = percent of the {p}")),
        _ => None,
    }
}

/// A terminal table in the style of every nodebench table: `header`, then
/// `rows`, the columns from `numbers_from` on right-aligned (numbers).
pub fn text_table(header: &[String], rows: &[Vec<String>], numbers_from: usize) -> String {
    let mut table = Table::new();
    table.load_style(presets::ASCII_BORDERS_ONLY_CONDENSED);
    table.set_header(header.to_vec());
    for row in rows {
        table.add_row(row.clone());
    }
    for col in numbers_from..header.len() {
        if let Some(c) = table.column_mut(col) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
    table.to_string()
}

/// The generic table of one result, pivoted on `threads` where present,
/// then its error, warnings and time series; the benchmarks that print like
/// their classic tool are picked in [`crate::reporters`].
pub fn result_table(result: &BenchResult) -> String {
    let grid = grid(result);
    let mut out = String::new();
    let _ = writeln!(out, "{}", grid.heading);
    // A result that failed before measuring anything has no table, only
    // its error below the heading.
    if !grid.rows.is_empty() {
        let _ = writeln!(
            out,
            "{}",
            text_table(&grid.header, &grid.rows, grid.numbers_from)
        );
    }
    if let Some(e) = &result.error {
        let _ = writeln!(out, "error: {e}");
    }
    for w in &result.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    // The benchmark's own series; the telemetry recorded beside them stays
    // in the stored result (`--json`, exports) without flooding the table.
    for series in result.series.iter().filter(|s| {
        s.labels.get(telemetry::SOURCE).map(String::as_str) != Some(telemetry::SOURCE_TELEMETRY)
    }) {
        out.push_str(&series_lines(series));
    }
    if let Some(note) = peak_note(result) {
        let _ = writeln!(out, "{note}");
    }
    out
}

/// Rows are metrics (name + distinguishing labels), columns thread counts.
fn thread_pivot(
    heading: String,
    result: &BenchResult,
    common: &BTreeMap<String, String>,
    threads: &[u64],
) -> Grid {
    let mut header = vec!["metric".to_string(), "unit".to_string()];
    header.extend(threads.iter().map(|t| format!("{t} thr")));
    // Row key -> threads -> metric, in first-seen order.
    let mut order: Vec<String> = Vec::new();
    let mut rows: BTreeMap<String, BTreeMap<u64, &Metric>> = BTreeMap::new();
    for m in &result.metrics {
        let key = row_key(m, common);
        let t = m
            .labels
            .get(THREADS)
            .and_then(|t| t.parse().ok())
            .unwrap_or(0);
        if !rows.contains_key(&key) {
            order.push(key.clone());
        }
        rows.entry(key).or_default().insert(t, m);
    }
    let mut grid = Grid {
        heading,
        header,
        rows: Vec::new(),
        numbers_from: 2,
    };
    for key in order {
        let cells = &rows[&key];
        let max = cells.values().map(|m| m.value.abs()).fold(0.0, f64::max);
        let unit = cells.values().next().map(|m| m.unit).unwrap_or(Unit::Count);
        let (prefix, divisor) = format::prefix_for(unit, max);
        let mut row = vec![key.clone(), format::display_unit(unit, prefix)];
        for t in threads {
            row.push(cells.get(t).map(|m| cell(m, divisor)).unwrap_or_default());
        }
        grid.rows.push(row);
    }
    grid
}

/// Rows are label sets (kernel=triad stores=normal), columns metric names,
/// as STREAM prints its table.
fn name_pivot(heading: String, result: &BenchResult, common: &BTreeMap<String, String>) -> Grid {
    let mut names: Vec<&str> = Vec::new();
    let mut rows: Vec<(String, BTreeMap<&str, &Metric>)> = Vec::new();
    for m in &result.metrics {
        if !names.contains(&m.name.as_str()) {
            names.push(&m.name);
        }
        let labels: Vec<String> = m
            .labels
            .iter()
            .filter(|(k, _)| k.as_str() != THREADS && !common.contains_key(*k))
            .map(|(_, v)| v.clone())
            .collect();
        let key = labels.join(" ");
        match rows.iter_mut().find(|(k, _)| *k == key) {
            Some((_, cells)) => {
                cells.insert(&m.name, m);
            }
            None => rows.push((key, BTreeMap::from([(m.name.as_str(), m)]))),
        }
    }
    let mut header = vec![String::new()];
    let mut scales = Vec::new();
    for name in &names {
        let col: Vec<&Metric> = rows
            .iter()
            .filter_map(|(_, c)| c.get(name).copied())
            .collect();
        let max = col.iter().map(|m| m.value.abs()).fold(0.0, f64::max);
        let unit = col.first().map(|m| m.unit).unwrap_or(Unit::Count);
        let (prefix, divisor) = format::prefix_for(unit, max);
        let shown = format::display_unit(unit, prefix);
        header.push(if shown.is_empty() {
            name.to_string()
        } else {
            format!("{name} ({shown})")
        });
        scales.push(divisor);
    }
    let rows = rows
        .iter()
        .map(|(key, cells)| {
            let mut row = vec![key.clone()];
            for (name, divisor) in names.iter().zip(&scales) {
                row.push(
                    cells
                        .get(name)
                        .map(|m| cell(m, *divisor))
                        .unwrap_or_default(),
                );
            }
            row
        })
        .collect();
    Grid {
        heading,
        header,
        rows,
        numbers_from: 1,
    }
}

/// One line per sample of a time series, iperf3-interval style:
/// `throughput  0.00-1.00 s  2345.6 MB/s`.
fn series_lines(series: &nodebench_core::TimeSeries) -> String {
    let mut out = String::new();
    let mut prev = 0.0;
    for &(t, v) in &series.points {
        let (prefix, divisor) = format::prefix_for(series.unit, v.abs());
        let _ = writeln!(
            out,
            "  {} {prev:6.2}-{t:6.2} s  {} {}",
            series.name,
            format::scaled(v, series.unit, divisor),
            format::display_unit(series.unit, prefix)
        );
        prev = t;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::names::labels::KERNEL;
    use nodebench_core::{Better, Reference, Unit};

    fn scaling_result() -> BenchResult {
        let mut r = BenchResult::new(cpu::OPS);
        for (t, v) in [(1, 50e9), (2, 100e9)] {
            r.metrics.push(
                Metric::new(cpu::RATE, v, Unit::FlopsPerSecond, Better::Higher)
                    .label(KERNEL, "f64.vector")
                    .label(THREADS, t)
                    .with_reference(Some(Reference {
                        name: "peak".into(),
                        value: 100e9,
                    })),
            );
        }
        r
    }

    #[test]
    fn thread_labels_become_columns() {
        let text = result_table(&scaling_result());
        assert!(text.contains("kernel=f64.vector"), "{text}");
        assert!(text.contains("1 thr") && text.contains("2 thr"), "{text}");
        assert!(text.contains("50.00 (50.0%)"), "{text}");
        assert!(text.contains("100.00 (100.0%)"), "{text}");
        assert!(text.contains("GFLOPS"), "{text}");
    }

    #[test]
    fn a_result_that_failed_before_measuring_prints_its_error_without_a_table() {
        let mut r = BenchResult::new(nodebench_core::names::net::TCP);
        r.mark_failed("cannot connect to 127.0.0.1:1: connection refused");
        let text = result_table(&r);
        assert_eq!(
            text,
            "net.tcp [failed]\nerror: cannot connect to 127.0.0.1:1: connection refused\n"
        );
    }
}
