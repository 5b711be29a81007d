//! Human tables for the terminal. Metrics of a result that differ only in the
//! `threads` label are pivoted into one row with a column per thread count,
//! the way scaling results are read; everything else gets a row of its own.
//! Past [`MAX_THREAD_COLUMNS`] thread counts (`--threads 1..512`) the table
//! turns: a row per thread count, a column per metric, as scaling studies
//! print them (rows are cheap, columns are not), every value shown; on the
//! terminal its columns are split into as many tables side by side as fit
//! in [`MAX_WIDTH`], each repeating the thread count.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use comfy_table::{CellAlignment, Table, presets};
use nodebench_core::names::labels::THREADS;
use nodebench_core::names::peak::PEAK_CORES;
use nodebench_core::names::{cpu, imported, memory, telemetry};
use nodebench_core::{BenchResult, Metric, Unit};

use crate::format;

/// The most thread counts shown as columns; more turn the table.
pub const MAX_THREAD_COLUMNS: usize = 16;

/// The widest terminal line a turned table is split to (columns wider
/// than that alone still get a table of their own).
pub const MAX_WIDTH: usize = 150;

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

/// How a column (or a row) of figures prints: nodebench's unit scaled by
/// `divisor`, or, for an imported result, the form its source printed.
struct Column {
    /// Scale of nodebench's own figures in the column.
    divisor: f64,
    /// The unit every figure of the column was printed in by its source,
    /// named once in the column's title: its cells print the text alone.
    printed_unit: Option<String>,
    /// Some figure of the column carries its source's form, so the title
    /// names no unit and each other cell carries its own.
    any_printed: bool,
    /// nodebench's unit, as shown (`MB/s`), for a derived figure among
    /// printed ones.
    shown: String,
    /// The result was imported: a figure without its source's form is one
    /// nodebench derived, and says so.
    imported: bool,
}

impl Column {
    fn of(cells: &[&Metric], unit: Unit, max: f64, imported: bool) -> Column {
        let (prefix, divisor) = format::prefix_for(unit, max);
        let units: Vec<Option<&str>> = cells
            .iter()
            .map(|m| m.printed.as_ref().map(|p| p.unit.as_str()))
            .collect();
        let printed_unit = match units.first() {
            Some(Some(u)) if units.iter().all(|x| *x == Some(*u)) => Some(u.to_string()),
            _ => None,
        };
        Column {
            divisor,
            any_printed: units.iter().any(Option::is_some),
            printed_unit,
            shown: format::display_unit(unit, prefix),
            imported,
        }
    }

    /// The unit the column's title names (empty: none).
    fn title_unit(&self) -> &str {
        match &self.printed_unit {
            Some(u) => u,
            None if self.any_printed => "",
            None => &self.shown,
        }
    }

    /// `name (unit)`, or `name` where the title names no unit.
    fn title(&self, name: &str) -> String {
        match self.title_unit() {
            "" => name.to_string(),
            u => format!("{name} ({u})"),
        }
    }

    /// The cell of `m`: the source's text as printed (with its unit where
    /// the title does not name it), else nodebench's figure, marked
    /// derived in an imported result.
    fn cell(&self, m: &Metric) -> String {
        if let Some(p) = &m.printed {
            return match &self.printed_unit {
                Some(_) => p.text.clone(),
                None => p.with_unit(),
            };
        }
        let mut s = format::scaled(m.value, m.unit, self.divisor);
        if self.any_printed && !self.shown.is_empty() {
            let _ = write!(s, " {}", self.shown);
        }
        if let Some(p) = m.percent_of_reference {
            let _ = write!(s, " ({p:.1}%)");
        }
        if self.imported {
            s.push_str(" derived");
        }
        s
    }
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
    /// A row per thread count (more than [`MAX_THREAD_COLUMNS`]): on the
    /// terminal, split into tables of at most [`MAX_WIDTH`].
    pub turned: bool,
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
    // A label an importer derived (a thread count the tool did not print).
    let derived = |k: &str| match result.param(imported::DERIVED_LABELS) {
        Some(serde_json::Value::String(keys)) if keys.split(',').any(|d| d == k) => " (derived)",
        _ => "",
    };
    for (k, v) in &common {
        let _ = write!(heading, "  {k}={v}{}", derived(k));
    }
    if let [t] = threads[..] {
        let _ = write!(heading, "  {THREADS}={t}{}", derived(THREADS));
    }
    if let Some(serde_json::Value::String(isa)) = result.param(cpu::param::ISA) {
        let _ = write!(heading, "  isa={isa}");
    }
    // Where a STREAM team ran (`--numa`): "node 1", "node 0 alone".
    if let Some(serde_json::Value::String(numa)) = result.param(memory::param::NUMA) {
        let _ = write!(heading, "  numa={numa}");
    }
    if threads.len() > MAX_THREAD_COLUMNS {
        thread_rows(heading, result, &common, &threads)
    } else if threads.len() > 1 {
        thread_pivot(heading, result, &common, &threads)
    } else {
        name_pivot(heading, result, &common)
    }
}

/// The result's error as one line, with the phase it failed in where
/// known: `error (run): cannot connect to ...`.
pub fn error_line(result: &BenchResult) -> Option<String> {
    let e = result.error.as_deref()?;
    Some(match &result.error_phase {
        Some(phase) => format!("error ({phase}): {e}"),
        None => format!("error: {e}"),
    })
}

/// What a failed run without any result says (one stored before a failure
/// named its benchmark).
pub const NO_RESULT: &str = "error: the run failed before any benchmark produced a result";

/// The note under a table whose cells show a percentage of the peak.
pub fn peak_note(result: &BenchResult) -> Option<String> {
    let p = match result.param(cpu::param::PEAK) {
        Some(serde_json::Value::String(p)) => p,
        _ => return None,
    };
    match result.param(PEAK_CORES).and_then(|c| c.as_u64()) {
        Some(cores) => Some(format!(
            "(%) = percent of the peak of the cores a cell's threads can use (min(threads, {cores}) x one core's); the whole machine's {p}"
        )),
        None => Some(format!("(%) = percent of the {p}")),
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
    if grid.turned {
        for (header, rows) in split_columns(&grid, MAX_WIDTH) {
            let _ = writeln!(out, "{}", text_table(&header, &rows, grid.numbers_from));
        }
    } else if !grid.rows.is_empty() {
        let _ = writeln!(
            out,
            "{}",
            text_table(&grid.header, &grid.rows, grid.numbers_from)
        );
    }
    if let Some(e) = error_line(result) {
        let _ = writeln!(out, "{e}");
    }
    for w in &result.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    // The benchmark's own series; the telemetry recorded beside them stays
    // in the stored result (`--json`, exports) without flooding the table.
    for series in result.series.iter().filter(|s| {
        s.labels.get(telemetry::SOURCE).map(String::as_str) != Some(telemetry::SOURCE_TELEMETRY)
    }) {
        let lines = series_lines(series);
        if result.quotes_source() {
            // An imported tool's intervals, converted to nodebench's unit.
            for l in lines.lines() {
                let _ = writeln!(out, "{l} (derived)");
            }
        } else {
            out.push_str(&lines);
        }
    }
    if let Some(note) = peak_note(result) {
        let _ = writeln!(out, "{note}");
    }
    out
}

/// The thread-count key of a figure without a thread count: one of the
/// whole result.
const WHOLE: u64 = 0;
/// The column (or row) of a pivoted table holding the whole result's
/// figures.
pub const WHOLE_RESULT: &str = "whole result";

/// The metrics of `result` by row key (name + distinguishing labels), in
/// first-seen order, each by thread count ([`WHOLE`] where it has none),
/// with their unit.
fn by_row_key<'a>(
    result: &'a BenchResult,
    common: &BTreeMap<String, String>,
) -> Vec<(String, BTreeMap<u64, &'a Metric>, Unit)> {
    let mut order: Vec<String> = Vec::new();
    let mut rows: BTreeMap<String, BTreeMap<u64, &Metric>> = BTreeMap::new();
    for m in &result.metrics {
        let key = row_key(m, common);
        let t = m
            .labels
            .get(THREADS)
            .and_then(|t| t.parse().ok())
            .unwrap_or(WHOLE);
        if !rows.contains_key(&key) {
            order.push(key.clone());
        }
        rows.entry(key).or_default().insert(t, m);
    }
    order
        .into_iter()
        .map(|key| {
            let cells = rows.remove(&key).unwrap_or_default();
            let unit = cells.values().next().map(|m| m.unit).unwrap_or(Unit::Count);
            (key, cells, unit)
        })
        .collect()
}

/// Rows are metrics (name + distinguishing labels), columns thread counts.
fn thread_pivot(
    heading: String,
    result: &BenchResult,
    common: &BTreeMap<String, String>,
    threads: &[u64],
) -> Grid {
    let rows = by_row_key(result, common);
    // Figures of the whole result (its energy and power over every thread
    // count) get a column of their own rather than a row of empty cells.
    let whole = rows.iter().any(|(_, cells, _)| cells.contains_key(&WHOLE));
    let mut header = vec!["metric".to_string(), "unit".to_string()];
    header.extend(threads.iter().map(|t| format!("{t} thr")));
    if whole {
        header.push(WHOLE_RESULT.to_string());
    }
    let mut grid = Grid {
        heading,
        header,
        rows: Vec::new(),
        numbers_from: 2,
        turned: false,
    };
    let imported = result.quotes_source();
    for (key, cells, unit) in rows {
        let max = cells.values().map(|m| m.value.abs()).fold(0.0, f64::max);
        let all: Vec<&Metric> = cells.values().copied().collect();
        let column = Column::of(&all, unit, max, imported);
        let mut row = vec![key, column.title_unit().to_string()];
        let shown = threads.iter().copied().chain(whole.then_some(WHOLE));
        for t in shown {
            row.push(cells.get(&t).map(|m| column.cell(m)).unwrap_or_default());
        }
        grid.rows.push(row);
    }
    grid
}

/// Rows are thread counts, columns metrics: the table of more thread
/// counts than fit as columns. A column's title is its metric's name,
/// labels and unit a line each, so that it is as narrow as its numbers; its
/// unit's prefix is the one its smallest value calls for (one thread's
/// 40 GFLOPS keeps its digits beside 512 threads' 15360 GFLOPS).
fn thread_rows(
    heading: String,
    result: &BenchResult,
    common: &BTreeMap<String, String>,
    threads: &[u64],
) -> Grid {
    let mut columns = Vec::new();
    let mut header = vec![THREADS.to_string()];
    let imported = result.quotes_source();
    for (key, cells, unit) in by_row_key(result, common) {
        let least = cells
            .values()
            .map(|m| m.value.abs())
            .filter(|v| *v > 0.0)
            .fold(f64::INFINITY, f64::min);
        let all: Vec<&Metric> = cells.values().copied().collect();
        let column = Column::of(
            &all,
            unit,
            if least.is_finite() { least } else { 0.0 },
            imported,
        );
        let mut title = key.split(' ').collect::<Vec<_>>().join("\n");
        let shown = column.title_unit();
        if !shown.is_empty() {
            let _ = write!(title, "\n({shown})");
        }
        header.push(title);
        columns.push((cells, column));
    }
    let whole = columns.iter().any(|(cells, _)| cells.contains_key(&WHOLE));
    let rows = threads
        .iter()
        .copied()
        .chain(whole.then_some(WHOLE))
        .map(|t| {
            let mut row = vec![if t == WHOLE {
                WHOLE_RESULT.to_string()
            } else {
                t.to_string()
            }];
            for (cells, column) in &columns {
                row.push(cells.get(&t).map(|m| column.cell(m)).unwrap_or_default());
            }
            row
        })
        .collect();
    Grid {
        heading,
        header,
        rows,
        numbers_from: 1,
        turned: true,
    }
}

/// The display width of a cell: its longest line.
fn width(text: &str) -> usize {
    text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
}

/// `grid`'s columns as tables at most `max` wide when drawn, each with the
/// grid's label columns (before `numbers_from`) first: a table is its two
/// borders, each column its width and a space either side, and a space
/// between columns.
pub fn split_columns(grid: &Grid, max: usize) -> Vec<(Vec<String>, Vec<Vec<String>>)> {
    let column_width = |c: usize| {
        let cells = grid.rows.iter().filter_map(|r| r.get(c)).map(|t| width(t));
        cells.chain([width(&grid.header[c])]).max().unwrap_or(0) + 3
    };
    let labels: Vec<usize> = (0..grid.numbers_from.min(grid.header.len())).collect();
    let base = 1 + labels.iter().map(|&c| column_width(c)).sum::<usize>();
    let mut tables: Vec<Vec<usize>> = Vec::new();
    let mut used = 0;
    for c in labels.len()..grid.header.len() {
        let w = column_width(c);
        match tables.last_mut() {
            Some(cols) if used + w <= max => {
                cols.push(c);
                used += w;
            }
            _ => {
                tables.push(vec![c]);
                used = base + w;
            }
        }
    }
    tables
        .into_iter()
        .map(|cols| {
            let pick = |row: &Vec<String>| -> Vec<String> {
                labels
                    .iter()
                    .chain(&cols)
                    .map(|&c| row.get(c).cloned().unwrap_or_default())
                    .collect()
            };
            (pick(&grid.header), grid.rows.iter().map(pick).collect())
        })
        .collect()
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
    let mut columns = Vec::new();
    let imported = result.quotes_source();
    for name in &names {
        let col: Vec<&Metric> = rows
            .iter()
            .filter_map(|(_, c)| c.get(name).copied())
            .collect();
        let max = col.iter().map(|m| m.value.abs()).fold(0.0, f64::max);
        let unit = col.first().map(|m| m.unit).unwrap_or(Unit::Count);
        let column = Column::of(&col, unit, max, imported);
        header.push(column.title(name));
        columns.push(column);
    }
    let rows = rows
        .iter()
        .map(|(key, cells)| {
            let mut row = vec![key.clone()];
            for (name, column) in names.iter().zip(&columns) {
                row.push(cells.get(name).map(|m| column.cell(m)).unwrap_or_default());
            }
            row
        })
        .collect();
    Grid {
        heading,
        header,
        rows,
        numbers_from: 1,
        turned: false,
    }
}

/// One line per sample of a time series, iperf3-interval style:
/// `throughput  0.00-1.00 s  2345.6 MB/s`.
pub(crate) fn series_lines(series: &nodebench_core::TimeSeries) -> String {
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

    /// `cpu ops --threads 1..=512`-like: rate, speedup and efficiency per
    /// kernel and scaling mode, at every thread count.
    fn ops_at_512_thread_counts(kernels: &[&str]) -> BenchResult {
        let mut r = BenchResult::new(cpu::OPS);
        for kernel in kernels {
            for scaling in ["strong", "weak"] {
                for t in 1..=512u32 {
                    let rate = 40e9 * f64::from(t) * (1.0 - f64::from(t) / 2048.0);
                    let labelled = |m: Metric| {
                        m.label(KERNEL, *kernel)
                            .label(cpu::label::SCALING, scaling)
                            .label(THREADS, t)
                    };
                    r.metrics.push(labelled(Metric::new(
                        cpu::RATE,
                        rate,
                        Unit::FlopsPerSecond,
                        Better::Higher,
                    )));
                    if t > 1 {
                        let speedup = rate / 40e9;
                        r.metrics.push(labelled(Metric::new(
                            cpu::SPEEDUP,
                            speedup,
                            Unit::Count,
                            Better::Higher,
                        )));
                        r.metrics.push(labelled(Metric::new(
                            cpu::EFFICIENCY,
                            100.0 * speedup / f64::from(t),
                            Unit::Percent,
                            Better::Higher,
                        )));
                    }
                }
            }
        }
        r
    }

    fn widest(text: &str) -> usize {
        text.lines().map(|l| l.chars().count()).max().unwrap_or(0)
    }

    #[test]
    fn a_whole_results_figures_get_a_column_not_a_row_of_empty_cells() {
        use nodebench_core::Better;
        let mut r = BenchResult::new("cpu.ops");
        for t in [1, 2] {
            r.metrics.push(
                Metric::new("rate", 1e9 * t as f64, Unit::FlopsPerSecond, Better::Higher)
                    .label(THREADS, t),
            );
        }
        r.metrics.push(
            Metric::new("energy", 657.5, Unit::Joules, Better::Lower).label("power_source", "rapl"),
        );
        let text = result_table(&r);
        assert!(text.contains(" whole result |"), "{text}");
        // The energy sits under "whole result", its only figure; the rate
        // row leaves that column empty.
        let header = text.lines().find(|l| l.contains("whole result")).unwrap();
        let end = header.find("whole result").unwrap() + "whole result".len();
        let energy = text.lines().find(|l| l.contains("energy")).unwrap();
        assert_eq!(energy.find("657.50").map(|i| i + 6), Some(end), "{text}");
        let numbers = energy
            .split_whitespace()
            .filter(|w| w.parse::<f64>().is_ok());
        assert_eq!(numbers.count(), 1, "{text}");
        let rate = text.lines().find(|l| l.contains("rate")).unwrap();
        assert!(
            rate.find("2.00").unwrap() + 4 < end - "whole result".len(),
            "{text}"
        );
    }

    #[test]
    fn past_16_thread_counts_the_table_turns_and_shows_every_value() {
        let r = ops_at_512_thread_counts(&["f64.vector"]);
        let text = result_table(&r);
        assert!(widest(&text) < 160, "{} wide:\n{text}", widest(&text));
        assert!(
            text.starts_with("cpu.ops [passed]  kernel=f64.vector\n"),
            "{text}"
        );
        // One table: the thread count and six columns (three figures x two
        // scaling modes), their titles a word a line.
        assert!(text.contains("| threads "), "{text}");
        assert!(text.contains(" scaling=strong "), "{text}");
        assert!(text.contains(" (GFLOPS) "), "{text}");
        let rows: Vec<&str> = text
            .lines()
            .filter(|l| l.starts_with("| ") && l.as_bytes()[2].is_ascii_digit())
            .collect();
        assert_eq!(rows.len(), 512, "{text}");
        for (t, row) in (1..=512).zip(&rows) {
            assert!(row.starts_with(&format!("| {t} ")), "{row}");
        }
        // Thread count 1 has no speedup: its cells are empty, not dropped.
        assert_eq!(rows[0].split_whitespace().count(), 5, "{}", rows[0]);
        let t512 = rows[511];
        // 40 GFLOPS x 512 x 0.75 = 15360 GFLOPS; speedup 384; 75 %.
        assert!(text.contains(" (GFLOPS) "), "{text}");
        assert!(rows[0].contains(" 39.98 "), "{}", rows[0]);
        assert!(t512.contains("15360.00"), "{t512}");
        assert!(t512.contains("384.00") && t512.contains("75.0"), "{t512}");
        // Every metric is in the table.
        let cells = rows
            .iter()
            .map(|r| r.split_whitespace().filter(|c| *c != "|").count() - 1)
            .sum::<usize>();
        assert_eq!(cells, r.metrics.len());
    }

    #[test]
    fn a_turned_table_too_wide_for_a_terminal_is_split_repeating_the_thread_count() {
        let r = ops_at_512_thread_counts(&["f64.vector", "f32.vector", "i64.scalar"]);
        let grid = grid(&r);
        assert!(grid.turned);
        assert_eq!(grid.header.len(), 1 + 18);
        let text = result_table(&r);
        assert!(widest(&text) <= MAX_WIDTH, "{} wide", widest(&text));
        let tables = text.matches("| threads ").count();
        assert!(tables >= 2, "{tables} tables");
        for t in 1..=512 {
            let rows = text
                .lines()
                .filter(|l| l.starts_with(&format!("| {t} ")))
                .count();
            assert_eq!(rows, tables, "thread count {t}");
        }
        for kernel in ["f64.vector", "f32.vector", "i64.scalar"] {
            assert!(text.contains(&format!("kernel={kernel}")), "{kernel}");
        }
    }

    #[test]
    fn sixteen_thread_counts_stay_columns() {
        let mut r = ops_at_512_thread_counts(&["f64.vector"]);
        r.metrics
            .retain(|m| m.labels[THREADS].parse::<u32>().unwrap() <= 16);
        let grid = grid(&r);
        assert!(!grid.turned);
        assert!(grid.header.contains(&"16 thr".to_string()));
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

    /// An imported result prints each figure as its source printed it; a
    /// figure nodebench derived says so; a stored value's unit is never
    /// shown converted in its place.
    #[test]
    fn imported_figures_print_as_their_source_printed_them() {
        let mut r = BenchResult::new(memory::STREAM);
        for (kernel, rate, text) in [
            ("copy", 25386.0e6, "25386.0"),
            ("triad", 2720.6e6, "2720.6"),
        ] {
            r.metrics.push(
                Metric::new("bandwidth", rate, Unit::BytesPerSecond, Better::Higher)
                    .label(KERNEL, kernel)
                    .printed(text, "MB/s"),
            );
            r.metrics.push(
                Metric::new("time_min", 0.001261, Unit::Seconds, Better::Lower)
                    .label(KERNEL, kernel)
                    .printed("0.001261", "s"),
            );
        }
        let text = result_table(&r);
        for want in [
            "bandwidth (MB/s)",
            "time_min (s)",
            "25386.0",
            "2720.6",
            "0.001261",
        ] {
            assert!(text.contains(want), "{want:?} missing in\n{text}");
        }
        assert!(!text.contains("1.261") && !text.contains("(ms)"), "{text}");
        // One figure derived (no printed form): marked, with its unit.
        r.metrics.push(
            Metric::new("bandwidth", 1e9, Unit::BytesPerSecond, Better::Higher)
                .label(KERNEL, "add"),
        );
        let text = result_table(&r);
        assert!(text.contains("1000.0 MB/s derived"), "{text}");
        assert!(text.contains("2720.6 MB/s"), "{text}");
        // A measured result has no such marks.
        r.metrics.iter_mut().for_each(|m| m.printed = None);
        let text = result_table(&r);
        assert!(
            !text.contains("derived") && text.contains("bandwidth (MB/s)"),
            "{text}"
        );
    }
}
