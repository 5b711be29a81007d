//! `nodebench report`: one self-contained HTML page from one or more runs.
//! No script and no fetch: styles inline (with a print stylesheet), charts
//! drawn as inline SVG by `plotters` ([`chart`]), chosen from what each
//! benchmark stores ([`charts`]). Each run's header, inventory and every
//! result's tables follow; the tables are the terminal report's own: the
//! generic table's cells ([`crate::table::grid`]) as an HTML table, the
//! classic-tool reports (LINPACK, IOzone, ab...) as the text they print.

pub mod chart;
pub mod charts;
pub mod compare;
pub mod fleet;
pub mod telemetry;

use std::fmt::Write as _;

use nodebench_core::{BenchResult, Run, RunStatus};

use crate::compare::Side;
use crate::reporters::{self, Reporter};
use crate::{inventory, table, verdicts};

/// A run with the name its series carry in charts: its tags
/// (`config=a, disk=nvme`), else `run ID`.
pub struct Labelled<'a> {
    /// The name in legends and headings.
    pub label: String,
    /// The run.
    pub run: &'a Run,
}

/// `runs` with their labels; a label two runs share gets the run id added.
/// With several runs, a tag every run has (`suite=quick`) names none of
/// them and is left out of the labels.
pub fn labelled<'a>(runs: &[&'a Run]) -> Vec<Labelled<'a>> {
    let common = common_tags(runs);
    let base: Vec<String> = runs.iter().map(|r| own_label(r, &common)).collect();
    runs.iter()
        .copied()
        .zip(&base)
        .map(|(run, b)| {
            let shared = base.iter().filter(|o| *o == b).count() > 1;
            let label = if shared && !run.tags.is_empty() {
                format!("{b} ({})", run_name(run))
            } else {
                b.clone()
            };
            Labelled { label, run }
        })
        .collect()
}

/// Each side's label, with its run's tags when it is one tagged run
/// (`run 1: config=a`), so the bars are named as the run's lines are.
fn side_names(sides: &[Side]) -> Vec<String> {
    let all: Vec<&Run> = sides.iter().flat_map(|s| &s.runs).collect();
    let common = common_tags(&all);
    sides
        .iter()
        .map(|s| match &s.runs[..] {
            [run] if run.tags.len() > common.len() => {
                format!("{}: {}", s.label, own_label(run, &common))
            }
            _ => s.label.clone(),
        })
        .collect()
}

/// `run 12`, or `run (not saved)`.
fn run_name(run: &Run) -> String {
    run.id
        .map_or_else(|| "run (not saved)".to_string(), |i| format!("run {i}"))
}

/// The tags every one of two or more runs has; none for a single run.
fn common_tags(runs: &[&Run]) -> Vec<(String, String)> {
    let [first, rest @ ..] = runs else {
        return Vec::new();
    };
    if rest.is_empty() {
        return Vec::new();
    }
    first
        .tags
        .iter()
        .filter(|(k, v)| rest.iter().all(|r| r.tags.get(*k) == Some(*v)))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The run's tags but the `common` ones as `k=v, k=v`, else its name.
fn own_label(run: &Run, common: &[(String, String)]) -> String {
    let own: Vec<(&String, &String)> = run
        .tags
        .iter()
        .filter(|(k, v)| !common.iter().any(|(ck, cv)| ck == *k && cv == *v))
        .collect();
    if own.is_empty() {
        return run_name(run);
    }
    own.into_iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Escapes `s` for HTML text and attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// The page's styles: screen and print.
const STYLE: &str = "
body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',sans-serif;margin:0 auto;max-width:1200px;padding:1em 2em;color:#222}
h1{font-size:1.6em;margin:.2em 0}h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:1.6em}
h3{font-size:1.05em;margin:1.2em 0 .3em;font-family:ui-monospace,monospace}
table{border-collapse:collapse;margin:.4em 0 .8em;font-size:.92em}
th,td{border:1px solid #d8d8d8;padding:.2em .55em;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}
table.inventory td:first-child{color:#666}table.inventory tr.section th,table.comparison tr.group th{background:#e8eef7;font-family:ui-monospace,monospace}
pre{background:#f7f7f7;border:1px solid #e2e2e2;padding:.6em;overflow-x:auto;font-size:.85em}
div.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(500px,1fr));gap:.8em 1.2em}
figure.chart{margin:0;page-break-inside:avoid;break-inside:avoid}
figure.chart figcaption{font-weight:600;margin-bottom:.2em}
figure.chart svg{max-width:100%;height:auto;border:1px solid #eee}
td.better{background:#e1f3e1;color:#0b5d0b}td.worse{background:#fbe3e3;color:#9c1010}
details.telemetry{margin:.3em 0 1em}details.telemetry summary{cursor:pointer;color:#555}
table.telemetry{font-size:.85em;display:inline-table;margin-right:1em}
.warning{color:#8a5300}.error{color:#b00020}.note{color:#555;font-size:.9em}
@media print{body{max-width:none;padding:0;font-size:11px}div.charts{display:block}figure.chart{margin:.6em 0}h2{page-break-before:auto;page-break-after:avoid}
pre{white-space:pre-wrap;border:none}section.result{page-break-inside:avoid}a{color:inherit;text-decoration:none}}
";

/// The whole page for the runs of `sides`: with two sides or more, their
/// comparison against the first (summary above the charts, every metric
/// below them); the charts (one series per run where several share one);
/// then each run's header, inventory and tables.
pub fn report(sides: &[Side]) -> String {
    let all: Vec<&Run> = sides.iter().flat_map(|s| &s.runs).collect();
    let runs = labelled(&all);
    let mut out = String::new();
    let title = match &runs[..] {
        [one] => format!("nodebench report: {}", one.label),
        _ => format!("nodebench report: {} runs", runs.len()),
    };
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{}</title><style>{STYLE}</style></head><body>\n<h1>{}</h1>\n",
        escape(&title),
        escape(&title)
    );
    out.push_str(&runs_table(&runs));
    let comparison = (sides.len() > 1).then(|| crate::compare::compare(sides));
    if let Some(c) = &comparison {
        out.push_str(&compare::summary(c));
    }
    let figures = charts::figures(&runs);
    if !figures.is_empty() || comparison.is_some() {
        out.push_str("<h2 id=\"charts\">Charts</h2>\n<div class=\"charts\">\n");
        if let Some(c) = &comparison {
            out.push_str(&compare::geomean_bars(c, &side_names(sides)));
            for bars in compare::efficiency_bars(c, &side_names(sides)) {
                out.push_str(&bars);
            }
        }
        for f in &figures {
            out.push_str(&f.html());
        }
        out.push_str("</div>\n");
    }
    if let Some(c) = &comparison {
        out.push_str(&compare::metrics(c));
    }
    for run in &runs {
        out.push_str(&run_section(run));
    }
    out.push_str("</body></html>\n");
    out
}

/// One row per run: label, when, status, version, command.
fn runs_table(runs: &[Labelled]) -> String {
    let mut out = String::from(
        "<table class=\"runs\"><tr><th>run</th><th>label</th><th>started (UTC)</th>\
         <th>ended (UTC)</th><th>status</th><th>results</th><th>nodebench</th><th>command</th></tr>\n",
    );
    for r in runs {
        let run = r.run;
        let _ = writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td><td>{}</td><td><code>{}</code></td></tr>",
            escape(&run_name(run)),
            escape(&r.label),
            run.started_at.format("%Y-%m-%d %H:%M:%S"),
            run.ended_at
                .map_or_else(String::new, |t| t.format("%Y-%m-%d %H:%M:%S").to_string()),
            run.status.as_str(),
            run.results.len(),
            escape(&run.nodebench_version),
            escape(&run.command_line.join(" "))
        );
    }
    out.push_str("</table>\n");
    out
}

/// A run's heading, tags, inventory and every result's tables.
fn run_section(r: &Labelled) -> String {
    let run = r.run;
    let mut out = String::new();
    let name = run_name(run);
    let heading = if r.label == name {
        name
    } else {
        format!("{name}: {}", r.label)
    };
    let _ = writeln!(
        out,
        "<h2 id=\"run-{}\">{}</h2>",
        run.id.unwrap_or(0),
        escape(&heading)
    );
    if !run.tags.is_empty() {
        out.push_str("<p>tags: ");
        for (k, v) in &run.tags {
            let _ = write!(out, "<code>{}={}</code> ", escape(k), escape(v));
        }
        out.push_str("</p>\n");
    }
    if let Some(inv) = &run.inventory {
        out.push_str("<h3>inventory</h3>\n<table class=\"inventory\">\n");
        let mut section = String::new();
        for (s, k, v) in inventory::summary_rows(inv) {
            if s != section {
                let _ = writeln!(
                    out,
                    "<tr class=\"section\"><th colspan=\"2\">{}</th></tr>",
                    escape(&s)
                );
                section = s;
            }
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td>{}</td></tr>",
                escape(&k),
                escape(&v)
            );
        }
        out.push_str("</table>\n");
        if let Some(t) = &inv.topology {
            // The tree as `inventory --topology` prints it, folded: a
            // 256-CPU node's is a few hundred lines.
            let _ = writeln!(
                out,
                "<details><summary>topology: {}</summary><pre>{}</pre></details>",
                escape(
                    crate::topology::report(Some(t))
                        .lines()
                        .next()
                        .unwrap_or_default()
                ),
                escape(&crate::topology::report(Some(t)))
            );
        }
    }
    out.push_str(&verdicts_html(run));
    if run.status == RunStatus::Failed && run.results.is_empty() {
        let _ = writeln!(out, "<p class=\"error\">{}</p>", escape(table::NO_RESULT));
    }
    let mut printed_together: Vec<&str> = Vec::new();
    for result in &run.results {
        if result.never_produced() {
            out.push_str(&result_section(run, result));
            continue;
        }
        if let Reporter::Together(_) = reporters::reporter(&result.benchmark) {
            if printed_together.contains(&result.benchmark.as_str()) {
                continue;
            }
            printed_together.push(&result.benchmark);
        }
        out.push_str(&result_section(run, result));
    }
    out
}

/// The run's acceptance verdicts (`--assert`), PASS/FAIL classed
/// better/worse, with the measured value; empty without thresholds.
fn verdicts_html(run: &Run) -> String {
    if run.verdicts.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "<h3>acceptance</h3>\n<table class=\"verdicts\">\n\
         <tr><th>verdict</th><th>threshold</th><th>measured</th><th>detail</th></tr>\n",
    );
    for v in &run.verdicts {
        let (word, class) = if v.passed {
            (verdicts::PASS, "better")
        } else {
            (verdicts::FAIL, "worse")
        };
        let _ = writeln!(
            out,
            "<tr><td class=\"{class}\">{word}</td><td><code>{}</code></td><td class=\"num\">{}</td><td>{}</td></tr>",
            escape(&v.threshold),
            escape(&verdicts::measured_text(v)),
            escape(v.detail.as_deref().unwrap_or(""))
        );
    }
    out.push_str("</table>\n");
    out
}

/// One result's tables: the generic table as HTML, or the classic-tool
/// report as its text (with every result of the benchmark when it prints
/// them together).
fn result_section(run: &Run, result: &BenchResult) -> String {
    let mut out = String::from("<section class=\"result\">\n");
    let mut shown = vec![result];
    match reporters::reporter(&result.benchmark) {
        _ if !reporters::has_tool_report(&result.benchmark) || result.never_produced() => {
            out.push_str(&grid_html(result));
        }
        Reporter::Each(f) => {
            let _ = writeln!(out, "<h3>{}</h3>", escape(&result.benchmark));
            let _ = writeln!(out, "<pre>{}</pre>", escape(&f(result)));
        }
        Reporter::Together(f) => {
            let group: Vec<&BenchResult> = run
                .results
                .iter()
                .filter(|o| o.benchmark == result.benchmark && !o.never_produced())
                .collect();
            let _ = writeln!(out, "<h3>{}</h3>", escape(&result.benchmark));
            let _ = writeln!(out, "<pre>{}</pre>", escape(&f(&group)));
            shown = group;
        }
    }
    for r in shown {
        for b in r.bottleneck_lines() {
            let _ = writeln!(out, "<p class=\"note\">{}</p>", escape(&b));
        }
        out.push_str(&telemetry::section(r));
    }
    out.push_str("</section>\n");
    out
}

/// The generic table of `result` as HTML, with its error, warnings and
/// peak note.
fn grid_html(result: &BenchResult) -> String {
    let grid = table::grid(result);
    let mut out = String::new();
    let _ = writeln!(out, "<h3>{}</h3>\n<table>", escape(&grid.heading));
    out.push_str("<tr>");
    for h in &grid.header {
        let _ = write!(out, "<th>{}</th>", escape(h));
    }
    out.push_str("</tr>\n");
    for row in &grid.rows {
        out.push_str("<tr>");
        for (i, c) in row.iter().enumerate() {
            let class = if i >= grid.numbers_from {
                " class=\"num\""
            } else {
                ""
            };
            let _ = write!(out, "<td{class}>{}</td>", escape(c));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
    if let Some(e) = table::error_line(result) {
        let _ = writeln!(out, "<p class=\"error\">{}</p>", escape(&e));
    }
    for w in &result.warnings {
        let _ = writeln!(out, "<p class=\"warning\">warning: {}</p>", escape(w));
    }
    if let Some(note) = table::peak_note(result) {
        let _ = writeln!(out, "<p class=\"note\">{}</p>", escape(&note));
    }
    out
}

#[cfg(test)]
mod tests;
