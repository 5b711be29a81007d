//! A [`Comparison`] printed: a terminal table (values in the units the run
//! tables use, "% of baseline" coloured by better/worse where asked),
//! Markdown tables, or CSV (one row per metric and side, canonical units).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use comfy_table::{Cell as TableCell, CellAlignment, Color, Table, presets};
use nodebench_core::Better;

use super::{Cell, Comparison, MetricRow};
use crate::format;

nodebench_core::choice! {
    /// How `nodebench compare` prints (`--format`; `--json` prints the model).
    pub enum CompareFormat {
        /// Terminal tables.
        Table => "table",
        /// Markdown tables.
        Markdown => "md",
        /// One CSV row per metric and side.
        Csv => "csv",
    }
}

/// The heading of the percentage column.
pub const PERCENT_OF_BASELINE: &str = "% of baseline";

/// The heading of the interval column.
pub const CI_HEADING: &str = "95 % CI (%)";

/// The line under the geometric means.
pub const GEOMEAN_NOTE: &str = "geometric mean of the better-oriented ratios \
(value/base for higher-is-better, base/value for lower-is-better) over the rate and \
time metrics, one headline figure per benchmark and label set (its rate; its time where it \
has no rate): over 100 % means better than the baseline";

/// The CSV header.
pub const CSV_COLUMNS: [&str; 15] = [
    "benchmark",
    "metric",
    "labels",
    "workload",
    "unit",
    "better",
    "side",
    "value",
    "n",
    "stddev",
    "ratio",
    "percent_of_baseline",
    "ci_low",
    "ci_high",
    "verdict",
];

/// Renders `c` in `format`; `colour` colours "% of baseline" in the table
/// (for a terminal only).
pub fn render(c: &Comparison, format: CompareFormat, colour: bool) -> Result<String, crate::Error> {
    match format {
        CompareFormat::Table => Ok(to_table(c, colour)),
        CompareFormat::Markdown => Ok(to_markdown(c)),
        CompareFormat::Csv => to_csv(c),
    }
}

/// The metric and its labels (but those the group heading shows), as a
/// row names it.
pub(crate) fn metric_text(r: &MetricRow) -> String {
    let mut s = r.metric.clone();
    let in_heading =
        |k: &String, v: &String| r.workload.get(k).is_some_and(|w| w.trim_matches('"') == v);
    for (k, v) in r.labels.iter().filter(|(k, v)| !in_heading(k, v)) {
        let _ = write!(s, " {k}={v}");
    }
    s
}

/// Consecutive rows of one benchmark and workload: one table each.
pub(crate) fn groups(rows: &[MetricRow]) -> Vec<&[MetricRow]> {
    rows.chunk_by(|a, b| {
        a.benchmark == b.benchmark
            && a.workload == b.workload
            && a.workload_differs == b.workload_differs
    })
    .collect()
}

/// A group's heading: the benchmark and its workload parameters (the
/// baseline's, and what the other sides ran where it differs).
pub(crate) fn group_heading(r: &MetricRow) -> String {
    let mut s = format!(
        "{}{}",
        r.benchmark,
        workload_text(&r.workload, &BTreeMap::new(), "  ")
    );
    if !r.workload_differs.is_empty() {
        let _ = write!(s, "  [workload differs: {}]", r.workload_differs.join("; "));
    }
    s
}

/// The workload parameters a label does not already show, `k=v` each
/// (strings without their JSON quotes), each after `sep`.
fn workload_text(
    workload: &BTreeMap<String, String>,
    labels: &BTreeMap<String, String>,
    sep: &str,
) -> String {
    let mut s = String::new();
    for (k, v) in workload.iter().filter(|(k, _)| !labels.contains_key(*k)) {
        let _ = write!(s, "{sep}{k}={}", v.trim_matches('"'));
    }
    s
}

/// The display unit and divisor of a row (as the run tables choose them),
/// one per canonical unit in its `group`: rows of seconds in one table all
/// print in ms, never some in us and others in ms.
pub(crate) fn row_unit(group: &[MetricRow], r: &MetricRow) -> (String, f64) {
    let max = group
        .iter()
        .filter(|g| g.unit == r.unit)
        .flat_map(|g| &g.cells)
        .map(|c| c.value.abs())
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max);
    let (prefix, divisor) = format::prefix_for(r.unit, max);
    (format::display_unit(r.unit, prefix), divisor)
}

pub(crate) fn value_text(r: &MetricRow, c: &Cell, divisor: f64) -> String {
    let mut v = format::scaled(c.value, r.unit, divisor);
    if c.n > 1 {
        v = format!("{v} n={}", c.n);
    }
    if c.disturbed {
        v.push_str(" (disturbed)");
    }
    v
}

pub(crate) fn percent_text(c: &Cell) -> String {
    c.percent_of_baseline
        .map(|p| format!("{p:.1}"))
        .unwrap_or_else(|| "-".into())
}

pub(crate) fn interval_text(c: &Cell) -> String {
    c.interval
        .map(|i| format!("{:.1}..{:.1}", 100.0 * i.low, 100.0 * i.high))
        .unwrap_or_default()
}

/// True where the side is better than the baseline, false where worse,
/// None where equal or without a ratio.
pub(crate) fn is_better(c: &Cell, better: Better) -> Option<bool> {
    let r = c.ratio?;
    let up = match better {
        Better::Higher => r > 1.0,
        Better::Lower => r < 1.0,
        Better::Neither => return None,
    };
    let down = match better {
        Better::Higher => r < 1.0,
        Better::Lower => r > 1.0,
        Better::Neither => return None,
    };
    if up {
        Some(true)
    } else if down {
        Some(false)
    } else {
        None
    }
}

/// Green where the side is better than the baseline, red where worse.
fn colour_of(c: &Cell, better: Better) -> Option<Color> {
    is_better(c, better).map(|b| if b { Color::Green } else { Color::Red })
}

/// The sides, each with its runs.
pub(crate) fn sides_text(c: &Comparison) -> String {
    let mut out = String::new();
    for (i, s) in c.sides.iter().enumerate() {
        let ids: Vec<String> = s.run_ids.iter().map(i64::to_string).collect();
        let _ = write!(out, "{}: run(s) {}", s.label, ids.join(", "));
        if i == 0 {
            out.push_str(" (baseline)");
        }
        if s.skipped_results > 0 {
            let _ = write!(
                out,
                "; {} result(s) not passed, left out",
                s.skipped_results
            );
        }
        out.push('\n');
    }
    out
}

fn new_table(colour: bool) -> Table {
    let mut t = Table::new();
    t.load_style(presets::ASCII_BORDERS_ONLY_CONDENSED);
    if colour {
        t.enforce_styling();
    } else {
        t.force_no_tty();
    }
    t
}

/// The terminal report: sides, the metric table, unmatched metrics, the
/// geometric means, the method and the warnings.
pub fn to_table(c: &Comparison, colour: bool) -> String {
    let mut out = sides_text(c);
    let mut header = vec!["metric".to_string(), "unit".into()];
    if let Some(base) = c.sides.first() {
        header.push(base.label.clone());
    }
    for s in c.sides.iter().skip(1) {
        header.push(s.label.clone());
        header.push(PERCENT_OF_BASELINE.into());
        header.push(CI_HEADING.into());
        header.push("verdict".into());
    }
    for group in groups(&c.rows) {
        let mut t = new_table(colour);
        t.set_header(header.clone());
        for r in group {
            let (unit, divisor) = row_unit(group, r);
            let mut cells = vec![TableCell::new(metric_text(r)), TableCell::new(unit)];
            for (i, cell) in r.cells.iter().enumerate() {
                cells.push(
                    TableCell::new(value_text(r, cell, divisor))
                        .set_alignment(CellAlignment::Right),
                );
                if i == 0 {
                    continue;
                }
                let mut p = TableCell::new(percent_text(cell)).set_alignment(CellAlignment::Right);
                if colour && let Some(col) = colour_of(cell, r.better) {
                    p = p.fg(col);
                }
                cells.push(p);
                cells.push(TableCell::new(interval_text(cell)));
                cells.push(TableCell::new(cell.verdict.as_str()));
            }
            t.add_row(cells);
        }
        let _ = writeln!(out, "\n{}\n{t}", group_heading(&group[0]));
    }
    if !c.unmatched.is_empty() {
        let _ = writeln!(out, "unmatched (not compared):");
        for u in &c.unmatched {
            let _ = writeln!(out, "  {}", unmatched_text(u));
        }
    }
    if !c.summary.is_empty() {
        let mut g = new_table(false);
        let mut header = vec!["geometric mean".to_string()];
        header.extend(c.sides.iter().map(|s| s.label.clone()));
        g.set_header(header);
        for a in &c.summary {
            let mut row = vec![TableCell::new(&a.area)];
            for s in &a.sides {
                row.push(
                    TableCell::new(geomean_text(s.percent, s.metrics))
                        .set_alignment(CellAlignment::Right),
                );
            }
            g.add_row(row);
        }
        let _ = writeln!(out, "\n{g}\n{GEOMEAN_NOTE}");
    }
    let _ = writeln!(out, "method: {}", c.method);
    for w in &c.warnings {
        let _ = writeln!(out, "warning: {}", w.message());
    }
    out
}

pub(crate) fn geomean_text(percent: Option<f64>, metrics: usize) -> String {
    match percent {
        Some(p) => format!("{p:.1} % ({metrics})"),
        None => "-".into(),
    }
}

pub(crate) fn unmatched_text(u: &super::Unmatched) -> String {
    let mut s = format!("{} {}", u.benchmark, u.metric);
    for (k, v) in &u.labels {
        let _ = write!(s, " {k}={v}");
    }
    s.push_str(&workload_text(&u.workload, &u.labels, " "));
    let _ = write!(s, ": only in {}", u.present_in.join(", "));
    if !u.elsewhere.is_empty() {
        let _ = write!(s, " (other workload: {})", u.elsewhere.join("; "));
    }
    s
}

/// The report as Markdown: the same sections, pipe tables.
pub fn to_markdown(c: &Comparison) -> String {
    let mut out = String::from("# nodebench comparison\n\n");
    for line in sides_text(c).lines() {
        let _ = writeln!(out, "- {line}");
    }
    out.push('\n');
    let mut header = vec!["metric", "unit"];
    let mut align = vec!["---", "---"];
    let labels: Vec<&str> = c.sides.iter().map(|s| s.label.as_str()).collect();
    for (i, l) in labels.iter().enumerate() {
        header.push(l);
        align.push("---:");
        if i > 0 {
            header.extend([PERCENT_OF_BASELINE, CI_HEADING, "verdict"]);
            align.extend(["---:", "---", "---"]);
        }
    }
    for group in groups(&c.rows) {
        let _ = writeln!(
            out,
            "## {}\n\n| {} |\n|{}|",
            group_heading(&group[0]),
            header.join(" | "),
            align.join("|")
        );
        for r in group {
            let (unit, divisor) = row_unit(group, r);
            let mut cells = vec![metric_text(r), unit];
            for (i, cell) in r.cells.iter().enumerate() {
                cells.push(value_text(r, cell, divisor));
                if i > 0 {
                    cells.push(percent_text(cell));
                    cells.push(interval_text(cell));
                    cells.push(cell.verdict.as_str().to_string());
                }
            }
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
        out.push('\n');
    }
    if !c.unmatched.is_empty() {
        let _ = writeln!(out, "## Unmatched (not compared)\n");
        for u in &c.unmatched {
            let _ = writeln!(out, "- {}", unmatched_text(u));
        }
    }
    if !c.summary.is_empty() {
        let _ = writeln!(
            out,
            "\n## Geometric means\n\n| area | {} |\n|---|{}|",
            labels.join(" | "),
            vec!["---:"; labels.len()].join("|")
        );
        for a in &c.summary {
            let cells: Vec<String> = a
                .sides
                .iter()
                .map(|s| geomean_text(s.percent, s.metrics))
                .collect();
            let _ = writeln!(out, "| {} | {} |", a.area, cells.join(" | "));
        }
        let _ = writeln!(out, "\n{GEOMEAN_NOTE}.");
    }
    let _ = writeln!(out, "\nMethod: {}.", c.method);
    if !c.warnings.is_empty() {
        let _ = writeln!(out, "\n## Warnings\n");
        for w in &c.warnings {
            let _ = writeln!(out, "- {}", w.message());
        }
    }
    out
}

/// One row per metric and side, values in canonical units; the geometric
/// means follow as rows of benchmark `geomean` and metric `<area>`.
pub fn to_csv(c: &Comparison) -> Result<String, crate::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(CSV_COLUMNS).map_err(crate::Error::encode)?;
    let opt = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
    for r in &c.rows {
        let labels: Vec<String> = r.labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let workload = workload_text(&r.workload, &BTreeMap::new(), ";");
        for (side, cell) in c.sides.iter().zip(&r.cells) {
            w.write_record([
                r.benchmark.clone(),
                r.metric.clone(),
                labels.join(";"),
                workload.trim_start_matches(';').to_string(),
                r.unit.symbol().to_string(),
                r.better.as_str().to_string(),
                side.label.clone(),
                cell.value.to_string(),
                cell.n.to_string(),
                // One sample has no spread: left empty, never 0.
                if cell.n > 1 {
                    cell.stddev.to_string()
                } else {
                    String::new()
                },
                opt(cell.ratio),
                opt(cell.percent_of_baseline),
                opt(cell.interval.map(|i| i.low)),
                opt(cell.interval.map(|i| i.high)),
                cell.verdict.as_str().to_string(),
            ])
            .map_err(crate::Error::encode)?;
        }
    }
    for a in &c.summary {
        for (side, g) in c.sides.iter().zip(&a.sides) {
            w.write_record([
                GEOMEAN.to_string(),
                a.area.clone(),
                String::new(),
                String::new(),
                "%".into(),
                Better::Higher.as_str().to_string(),
                side.label.clone(),
                opt(g.percent),
                g.metrics.to_string(),
                String::new(),
                opt(g.percent.map(|p| p / 100.0)),
                opt(g.percent),
                String::new(),
                String::new(),
                String::new(),
            ])
            .map_err(crate::Error::encode)?;
        }
    }
    let bytes = w.into_inner().map_err(crate::Error::encode)?;
    String::from_utf8(bytes).map_err(crate::Error::encode)
}

/// The `benchmark` column of the CSV's geometric-mean rows.
pub const GEOMEAN: &str = "geomean";

#[cfg(test)]
mod tests {
    use super::super::tests::planted;
    use super::super::{OVERALL, Verdict};
    use super::*;

    #[test]
    fn the_table_shows_percent_verdicts_geomeans_and_no_colour_unless_asked() {
        let c = planted();
        let t = to_table(&c, false);
        assert!(!t.contains('\u{1b}'), "{t}");
        assert!(t.contains(PERCENT_OF_BASELINE), "{t}");
        assert!(t.contains("200.0") && t.contains("100.0"), "{t}");
        assert!(t.contains("faster") && t.contains("no significant difference"));
        assert!(
            t.contains("GFLOPS") && t.contains("MB/s") && t.contains("ns"),
            "{t}"
        );
        assert!(t.contains(GEOMEAN_NOTE) && t.contains(OVERALL));
        assert!(t.contains("\nmemory.stream  threads=2\n"), "{t}");
        assert!(t.contains("method: medians compared") && t.contains("log-ratio interval"));
        let coloured = to_table(&c, true);
        assert!(coloured.contains('\u{1b}'), "{coloured}");
    }

    #[test]
    fn markdown_and_csv_have_a_row_per_metric() {
        let c = planted();
        let md = to_markdown(&c);
        let rows = md
            .lines()
            .filter(|l| {
                ["| rate", "| bandwidth", "| latency"]
                    .iter()
                    .any(|m| l.starts_with(m))
            })
            .count();
        assert_eq!(
            md.matches("## ").count(),
            3 + 1,
            "a heading per benchmark: {md}"
        );
        assert_eq!(rows, c.rows.len(), "{md}");
        assert!(md.contains("| area | a | b |"), "{md}");
        let csv = to_csv(&c).unwrap();
        let mut r = csv::Reader::from_reader(csv.as_bytes());
        assert_eq!(r.headers().unwrap().len(), CSV_COLUMNS.len());
        let records: Vec<csv::StringRecord> = r.records().map(Result::unwrap).collect();
        let metric_rows = records.iter().filter(|r| &r[0] != GEOMEAN).count();
        assert_eq!(metric_rows, 2 * c.rows.len());
        let doubled = records
            .iter()
            .find(|r| &r[0] == "cpu.ops" && &r[6] == "b")
            .unwrap();
        assert_eq!(
            (&doubled[11], &doubled[14]),
            ("200", Verdict::Faster.as_str())
        );
        assert_eq!(records.len() - metric_rows, 2 * c.summary.len());
    }
}
