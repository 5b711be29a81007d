//! The comparison of several runs ([`crate::compare::Comparison`]) as HTML
//! tables: the sides, the geometric means, every matched metric with each side's value, "% of
//! baseline" coloured better/worse by the metric's direction, the 95 %
//! interval and the verdict, the unmatched metrics, the geometric means,
//! the method and the inventory warnings. Cell texts are the terminal
//! table's own (`compare::render`).

use std::fmt::Write as _;

use nodebench_core::names::energy::{self as energy, label};
use nodebench_core::names::labels::THREADS;

use super::chart::BarChart;
use super::escape;
use crate::compare::render::{
    geomean_text, group_heading, groups, interval_text, is_better, metric_text, percent_text,
    row_unit, sides_text, unmatched_text, value_text,
};
use crate::compare::{Comparison, GEOMEAN_NOTE, MetricRow, PERCENT_OF_BASELINE};

/// The class of a "% of baseline" cell: `better`, `worse` or none.
fn class(better: Option<bool>) -> &'static str {
    match better {
        Some(true) => " class=\"num better\"",
        Some(false) => " class=\"num worse\"",
        None => " class=\"num\"",
    }
}

/// The head of the comparison: the sides, the inventory warnings, the
/// geometric means and the method (the page puts it before the charts).
pub fn summary(c: &Comparison) -> String {
    let mut out = String::from("<h2 id=\"comparison\">Comparison</h2>\n<ul class=\"sides\">\n");
    for line in sides_text(c).lines() {
        let _ = writeln!(out, "<li>{}</li>", escape(line));
    }
    out.push_str("</ul>\n");
    for w in &c.warnings {
        let _ = writeln!(
            out,
            "<p class=\"warning\">warning: {}</p>",
            escape(&w.message())
        );
    }
    if !c.summary.is_empty() {
        out.push_str("<h3>geometric means</h3>\n<table class=\"geomeans\"><tr><th>area</th>");
        for s in &c.sides {
            let _ = write!(out, "<th>{}</th>", escape(&s.label));
        }
        out.push_str("</tr>\n");
        for a in &c.summary {
            let _ = write!(out, "<tr><td>{}</td>", escape(&a.area));
            for (i, g) in a.sides.iter().enumerate() {
                let judged = (i > 0).then(|| g.percent.map(|p| p > 100.0)).flatten();
                let judged = judged.filter(|_| g.percent != Some(100.0));
                let _ = write!(
                    out,
                    "<td{}>{}</td>",
                    class(judged),
                    escape(&geomean_text(g.percent, g.metrics))
                );
            }
            out.push_str("</tr>\n");
        }
        let _ = writeln!(
            out,
            "</table>\n<p class=\"note\">{}</p>",
            escape(GEOMEAN_NOTE)
        );
    }
    let _ = writeln!(out, "<p class=\"note\">method: {}</p>", escape(&c.method));
    out
}

/// Every matched metric with each side's value, % of baseline, interval
/// and verdict, under a heading row per benchmark and workload (as the
/// terminal table groups them), then the unmatched metrics.
pub fn metrics(c: &Comparison) -> String {
    let mut out = String::from(
        "<h2 id=\"comparison-metrics\">Comparison by metric</h2>\n<table class=\"comparison\">\n\
         <tr><th>metric</th><th>unit</th>",
    );
    for (i, s) in c.sides.iter().enumerate() {
        let _ = write!(out, "<th>{}</th>", escape(&s.label));
        if i > 0 {
            let _ = write!(
                out,
                "<th>{PERCENT_OF_BASELINE}</th><th>95 % CI (%)</th><th>verdict</th>"
            );
        }
    }
    out.push_str("</tr>\n");
    let columns = 2 + 4 * c.sides.len().saturating_sub(1) + 1;
    for group in groups(&c.rows) {
        let _ = writeln!(
            out,
            "<tr class=\"group\"><th colspan=\"{columns}\">{}</th></tr>",
            escape(&group_heading(&group[0]))
        );
        for r in group {
            let (unit, divisor) = row_unit(group, r);
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{}</td>",
                escape(&metric_text(r)),
                escape(&unit)
            );
            for (i, cell) in r.cells.iter().enumerate() {
                let _ = write!(
                    out,
                    "<td class=\"num\">{}</td>",
                    escape(&value_text(r, cell, divisor))
                );
                if i > 0 {
                    let _ = write!(
                        out,
                        "<td{}>{}</td><td>{}</td><td>{}</td>",
                        class(is_better(cell, r.better)),
                        escape(&percent_text(cell)),
                        escape(&interval_text(cell)),
                        escape(cell.verdict.as_str())
                    );
                }
            }
            out.push_str("</tr>\n");
        }
    }
    out.push_str("</table>\n");
    if !c.unmatched.is_empty() {
        out.push_str("<h3>unmatched (not compared)</h3>\n<ul>\n");
        for u in &c.unmatched {
            let _ = writeln!(out, "<li>{}</li>", escape(&unmatched_text(u)));
        }
        out.push_str("</ul>\n");
    }
    out
}

/// The geometric means as grouped bars: a group per area (and overall), a
/// bar per side named `names[i]`, the baseline's 100 % as a dashed line.
pub fn geomean_bars(c: &Comparison, names: &[String]) -> String {
    BarChart {
        kind: "comparison",
        title: "% of baseline by area (geometric mean; over 100 % is better)".into(),
        groups: (
            "area".into(),
            c.summary.iter().map(|a| a.area.clone()).collect(),
        ),
        y: "% of baseline".into(),
        series: per_side(names, &c.summary, |i, a| {
            a.sides.get(i).and_then(|g| g.percent)
        }),
        reference: Some((100.0, "baseline (100 %)".into())),
        // The baseline is neutral grey: red means worse elsewhere.
        neutral: Some(0),
    }
    .figure()
}

/// A bar series per side, named `names[i]`: its value in each of `groups`.
fn per_side<T>(
    names: &[String],
    groups: &[T],
    value: impl Fn(usize, &T) -> Option<f64>,
) -> Vec<(String, Vec<Option<f64>>)> {
    names
        .iter()
        .enumerate()
        .map(|(i, name)| (name.clone(), groups.iter().map(|g| value(i, g)).collect()))
        .collect()
}

/// `LABEL` values shown in a group name: a word as itself, a thread
/// count as `N thr`, another number as `key=N`.
fn short(key: &str, value: &str) -> String {
    match (key, value.parse::<f64>().is_ok()) {
        (THREADS, true) => format!("{value} thr"),
        (_, true) => format!("{key}={value}"),
        _ => value.to_string(),
    }
}

/// Performance per watt: per benchmark and work-per-joule metric
/// (`names::energy::EFFICIENCY`), its matched figures over the total draw
/// as % of the baseline, a group per figure (named by the labels that
/// tell them apart), a bar per side; higher is better, as for the rates.
/// The figures above idle are in the table.
pub fn efficiency_bars(c: &Comparison, names: &[String]) -> Vec<String> {
    let mut charts: Vec<(String, Vec<&MetricRow>)> = Vec::new();
    for r in c.rows.iter().filter(|r| {
        energy::EFFICIENCY.iter().any(|e| e.metric == r.metric)
            && r.labels.get(label::DRAW).map(String::as_str) != Some(energy::draw::ABOVE_IDLE)
    }) {
        let key = format!("{} {}", r.benchmark, r.metric);
        match charts.iter_mut().find(|(k, _)| *k == key) {
            Some((_, rows)) => rows.push(r),
            None => charts.push((key, vec![r])),
        }
    }
    charts
        .into_iter()
        .map(|(key, rows)| {
            let varying: Vec<&String> = rows[0]
                .labels
                .keys()
                .filter(|k| {
                    rows.iter()
                        .any(|r| r.labels.get(*k) != rows[0].labels.get(*k))
                })
                .collect();
            let group = |r: &MetricRow| {
                let parts: Vec<String> = varying
                    .iter()
                    .filter_map(|k| Some(short(k, r.labels.get(*k)?)))
                    .collect();
                if parts.is_empty() {
                    r.metric.clone()
                } else {
                    parts.join(" ")
                }
            };
            BarChart {
                kind: "efficiency",
                title: format!("{key}: % of baseline (over 100 % is better)"),
                groups: (
                    "performance per watt".into(),
                    rows.iter().map(|r| group(r)).collect(),
                ),
                y: "% of baseline".into(),
                series: per_side(names, &rows, |i, r| {
                    r.cells.get(i).and_then(|c| c.percent_of_baseline)
                }),
                reference: Some((100.0, "baseline (100 %)".into())),
                neutral: Some(0),
            }
            .figure()
        })
        .collect()
}
