//! Exports of a whole run: JSON (the result model as is), CSV (one row per
//! metric, every metric of the run), Markdown (one table per result) and
//! JUnit XML (one test case per result, for CI systems).

use std::fmt::{self, Write as _};
use std::str::FromStr;

use nodebench_core::config::{Choice, UnknownChoice};
use nodebench_core::disturbance;
use nodebench_core::{Metric, Run};

mod junit;

/// Export formats of `runs export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// The result model, pretty-printed.
    Json,
    /// One row per metric.
    Csv,
    /// One Markdown table per result.
    Markdown,
    /// JUnit XML: one test case per result, a failed result a failure.
    Junit,
}

impl Choice for Format {
    const ALL: &'static [Format] = &[Format::Json, Format::Csv, Format::Markdown, Format::Junit];

    /// The `--format` name.
    fn as_str(self) -> &'static str {
        match self {
            Format::Json => "json",
            Format::Csv => "csv",
            Format::Markdown => "md",
            Format::Junit => "junit",
        }
    }
}

/// The long name `--format` also takes for [`Format::Markdown`].
const MARKDOWN: &str = "markdown";

impl FromStr for Format {
    type Err = UnknownChoice;

    /// A [`Choice`] name, or `markdown` for `md`.
    fn from_str(s: &str) -> Result<Format, UnknownChoice> {
        if s == MARKDOWN {
            return Ok(Format::Markdown);
        }
        Format::from_name(s)
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Renders `run` in `format`.
pub fn export(run: &Run, format: Format) -> Result<String, crate::Error> {
    match format {
        Format::Json => serde_json::to_string_pretty(run).map_err(crate::Error::encode),
        Format::Csv => to_csv(run),
        Format::Markdown => Ok(to_markdown(run)),
        Format::Junit => Ok(junit::to_junit(run)),
    }
}

/// Several runs (a `tag:KEY=VALUE` set) in one document: JSON an array of
/// runs, CSV one header and every run's rows (each row names its run),
/// Markdown the runs one after the other, JUnit one `<testsuites>` with a
/// suite per run.
pub fn export_many(runs: &[Run], format: Format) -> Result<String, crate::Error> {
    match format {
        Format::Json => serde_json::to_string_pretty(runs).map_err(crate::Error::encode),
        Format::Csv => {
            let mut out = String::new();
            for (i, run) in runs.iter().enumerate() {
                let text = to_csv(run)?;
                match i {
                    0 => out.push_str(&text),
                    _ => out.push_str(text.split_once('\n').map_or("", |(_, rows)| rows)),
                }
            }
            Ok(out)
        }
        Format::Markdown => Ok(runs.iter().map(to_markdown).collect::<Vec<_>>().join("\n")),
        Format::Junit => Ok(junit::to_junit_many(runs)),
    }
}

/// The CSV header, in column order.
pub const CSV_COLUMNS: [&str; 23] = [
    "run_id",
    "result",
    "benchmark",
    "result_status",
    "metric",
    "labels",
    "value",
    "unit",
    "better",
    "n",
    "min",
    "median",
    "mean",
    "max",
    "stddev",
    "cv",
    "reference",
    "reference_value",
    "percent_of_reference",
    "printed",
    "printed_unit",
    "started_at",
    "disturbed",
];

/// A metric's labels as `k=v;k=v`.
fn labels(m: &Metric) -> String {
    m.labels
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(";")
}

fn opt(v: Option<f64>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

/// Every metric of the run, one row each, values in canonical units; an
/// imported figure also as its source printed it (`printed`,
/// `printed_unit`), empty for a figure nodebench measured or derived.
pub fn to_csv(run: &Run) -> Result<String, crate::Error> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(CSV_COLUMNS).map_err(crate::Error::encode)?;
    let run_id = run.id.map(|i| i.to_string()).unwrap_or_default();
    for (i, r) in run.results.iter().enumerate() {
        for m in &r.metrics {
            let s = m.stats.as_ref();
            w.write_record([
                run_id.clone(),
                i.to_string(),
                r.benchmark.clone(),
                r.status.as_str().to_string(),
                m.name.clone(),
                labels(m),
                m.value.to_string(),
                m.unit.symbol().to_string(),
                m.better.as_str().to_string(),
                s.map(|s| s.n.to_string()).unwrap_or_default(),
                opt(s.map(|s| s.min)),
                opt(s.map(|s| s.median)),
                opt(s.map(|s| s.mean)),
                opt(s.map(|s| s.max)),
                opt(s.map(|s| s.stddev)),
                opt(s.map(|s| s.cv)),
                m.reference
                    .as_ref()
                    .map(|r| r.name.clone())
                    .unwrap_or_default(),
                opt(m.reference.as_ref().map(|r| r.value)),
                opt(m.percent_of_reference),
                m.printed
                    .as_ref()
                    .map(|p| p.text.clone())
                    .unwrap_or_default(),
                m.printed
                    .as_ref()
                    .map(|p| p.unit.clone())
                    .unwrap_or_default(),
                r.started_at.to_rfc3339(),
                r.metric_disturbed(m).to_string(),
            ])
            .map_err(crate::Error::encode)?;
        }
    }
    let bytes = w.into_inner().map_err(crate::Error::encode)?;
    String::from_utf8(bytes).map_err(crate::Error::encode)
}

/// The host's state (a `## host` table, where the run has it), then one
/// Markdown table per result, values in canonical units; an imported
/// result's table adds each figure as its source printed it (`as printed`,
/// `derived` for a figure nodebench derived).
pub fn to_markdown(run: &Run) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# nodebench run {}\n\n- status: {}\n- started: {}\n- command: `{}`\n",
        run.id.map(|i| i.to_string()).unwrap_or_else(|| "-".into()),
        run.status.as_str(),
        run.started_at.to_rfc3339(),
        run.command_line.join(" ")
    );
    if let Some(h) = run.inventory.as_ref().and_then(|i| i.host.as_ref()) {
        let _ = writeln!(out, "## host\n\n| setting | value |\n|---|---|");
        for (k, v) in crate::host::rows(h) {
            let _ = writeln!(out, "| {k} | {} |", v.replace('|', "\\|"));
        }
        let _ = writeln!(out);
    }
    for r in &run.results {
        let _ = writeln!(out, "## {} ({})\n", r.benchmark, r.status.as_str());
        // An imported result also says each figure as its source printed it.
        let imported = r.quotes_source();
        let (more, rule) = if imported {
            (" as printed |", "---:|")
        } else {
            ("", "")
        };
        let _ = writeln!(out, "| metric | labels | value | unit | % of limit |{more}");
        let _ = writeln!(out, "|---|---|---:|---|---:|{rule}");
        for m in &r.metrics {
            let printed = match (&m.printed, imported) {
                (Some(p), _) => format!(" {} |", p.with_unit()),
                (None, true) => " derived |".to_string(),
                (None, false) => String::new(),
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |{printed}",
                m.name,
                labels(m),
                m.value,
                m.unit.symbol(),
                m.percent_of_reference
                    .map(|p| format!("{p:.1}"))
                    .unwrap_or_default()
            );
        }
        for w in r.warnings.iter().filter(|w| disturbance::is_warning(w)) {
            let _ = writeln!(out, "\n> {w}");
        }
        let _ = writeln!(out);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::{BenchResult, Better, Unit};

    #[test]
    fn csv_has_a_row_per_metric() {
        let mut run = Run::start(vec!["nodebench".into()], Default::default());
        run.id = Some(7);
        let mut r = BenchResult::new("cpu.ops");
        r.metrics.push(
            Metric::new("rate", 1.5e9, Unit::OpsPerSecond, Better::Higher).label("threads", 2),
        );
        r.metrics
            .push(Metric::new("speedup", 1.9, Unit::Count, Better::Higher).label("threads", 2));
        run.results.push(r);
        let csv = to_csv(&run).unwrap();
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 3);
        assert!(lines[1].starts_with("7,0,cpu.ops,passed,rate,threads=2,1500000000,op/s,higher"));
        assert!(to_markdown(&run).contains("| speedup | threads=2 | 1.9 |"));
        assert!(!to_markdown(&run).contains("as printed"));
        // An imported figure: its source's form beside the stored value.
        let mut imported = BenchResult::new("http.load");
        imported.metrics.push(
            Metric::new("time_taken", 3.05, Unit::Seconds, Better::Lower).printed("3.05", "s"),
        );
        imported
            .metrics
            .push(Metric::new("mean", 0.5, Unit::Seconds, Better::Lower));
        run.results.push(imported);
        let md = to_markdown(&run);
        assert!(
            md.contains("| time_taken |  | 3.05 | s |  | 3.05 s |"),
            "{md}"
        );
        assert!(md.contains("| mean |  | 0.5 | s |  | derived |"), "{md}");
        let csv = to_csv(&run).unwrap();
        assert!(
            csv.lines()
                .any(|l| l.contains(",time_taken,,3.05,s,lower,") && l.contains(",3.05,s,")),
            "{csv}"
        );
        assert_eq!("md".parse(), Ok(Format::Markdown));
        assert_eq!("markdown".parse(), Ok(Format::Markdown));
        assert_eq!(Format::Markdown.to_string(), "md");
        assert_eq!(
            "xml".parse::<Format>().unwrap_err().to_string(),
            "unknown value 'xml' (accepted: json, csv, md, junit)"
        );
    }
}
