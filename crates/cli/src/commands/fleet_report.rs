//! `nodebench fleet report SELECTION...`: reads the selected runs from the
//! store in one bulk read, judges the hosts (the fleet crate's analysis)
//! and prints the verdicts and figures, or the JSON model; with `-o`, also
//! writes the fleet page (`nodebench_report::html::fleet`); exit 1 when a
//! host is an outlier.

use anyhow::Result;
use nodebench_core::Run;
use nodebench_core::config::Config;
use nodebench_core::names::fleet::LINKS;
use nodebench_fleet::analysis::links::LinkMatrix;
use nodebench_fleet::analysis::{self, FleetReport, ReportConfig};
use nodebench_report::format;

use super::runner::open_store;
use crate::CliError;
use crate::args::Cli;
use crate::args::fleet::{FleetSelection, ReportArgs};
use crate::args::runid::RunSpec;

/// `fleet report`.
pub fn run(cli: &Cli, args: &ReportArgs) -> Result<()> {
    let cfg = ReportConfig::from(args);
    if let Err(e) = cfg.validate() {
        return Err(CliError::usage(format!("fleet report: {e}")).into());
    }
    let store = open_store(cli)?;
    let specs: Vec<RunSpec> = args.selection.iter().map(|s| s.spec()).collect();
    let ids = super::compare::resolve_many(store.as_ref(), &specs, "fleet report")?;
    let runs = store.load_runs_metrics(&ids)?;
    let report = analysis::analyse(&runs, &cfg);
    if cli.json {
        outln!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        out!("{}", text(&report));
    }
    // The selection's link matrix, if any: printed after the hosts (it
    // does not change the exit code, which is the hosts').
    let links = link_matrix(&runs, cfg.tolerance_percent);
    if let (Some((m, id)), false) = (&links, cli.json) {
        outln!();
        out!("{}", nodebench_report::fleet_links::matrix_text(m, *id));
    }
    if let Some(path) = &args.output {
        let selection: Vec<String> = args.selection.iter().map(selection_text).collect();
        let links = links
            .as_ref()
            .map(|(m, id)| nodebench_report::html::fleet::links::body(m, *id));
        let html =
            nodebench_report::html::fleet::page(&report, &selection.join(" "), links.as_deref());
        if let Err(e) = std::fs::write(path, html) {
            return Err(CliError::usage(format!(
                "--output {}: cannot write: {e} (expected a writable FILE.html path)",
                path.display()
            ))
            .into());
        }
        if !cli.quiet {
            // On stderr under --json, so stdout stays one JSON document.
            if cli.json {
                eprintln!("wrote {}", path.display());
            } else {
                outln!("wrote {}", path.display());
            }
        }
    }
    let outliers = report.outlier_hosts().count();
    let flagged = report.flagged_hosts().count();
    if flagged > 0 {
        return Err(CliError::failed(format!(
            "fleet report: {flagged} of {} host(s) flagged: {outliers} outlier(s), {} unlike the others in inventory or host state",
            report.hosts.len(),
            report.hosts.iter().filter(|h| !h.differs.is_empty()).count()
        ))
        .into());
    }
    Ok(())
}

/// The latest link matrix (`fleet pair --matrix`) among `runs`, judged
/// with `tolerance`, and its run id.
fn link_matrix(runs: &[Run], tolerance: f64) -> Option<(LinkMatrix, Option<i64>)> {
    let run = runs
        .iter()
        .filter(|r| analysis::is_link_matrix(r))
        .max_by_key(|r| r.started_at)?;
    let result = run.results.iter().find(|r| r.benchmark == LINKS)?;
    Some((LinkMatrix::from_result(result, tolerance), run.id))
}

/// The selection as the page's title names it: `fleet ID`, or the run
/// spec as written.
fn selection_text(s: &FleetSelection) -> String {
    match s {
        FleetSelection::Fleet(id) => format!("fleet {id}"),
        FleetSelection::Runs(spec) => spec.to_string(),
    }
}

/// A signed percentage, `-10.2`.
fn pct(p: Option<f64>) -> String {
    p.map_or_else(|| "-".into(), |p| format!("{p:+.1}"))
}

/// The report as text: the rule, the hosts worst first, then the figures.
pub fn text(r: &FleetReport) -> String {
    let mut s = String::new();
    let outliers = r.outlier_hosts().count();
    s += &format!(
        "fleet report: {} host(s), {} run(s), {} performance figure(s) ({} not performance, left out)\n",
        r.hosts.len(),
        r.runs.len(),
        r.figures.len(),
        r.left_out_figures
    );
    s += &format!(
        "outlier: worse than the fleet median by more than {} %{}\n",
        r.tolerance_percent,
        if r.robust_z_used {
            format!(" and beyond robust z {}", r.z)
        } else {
            String::new()
        }
    );
    if let Some(n) = &r.note {
        s += &format!("note: {n}\n");
    }
    let differ = r.hosts.iter().filter(|h| !h.differs.is_empty()).count();
    s += &format!(
        "{outliers} outlier host(s), {differ} unlike the others in inventory or host state, {} ok\n\n",
        r.hosts.len() - r.flagged_hosts().count()
    );

    let header: Vec<String> = [
        "host",
        "verdict",
        "worst figure",
        "value",
        "median",
        "dev %",
        "z",
        "missing",
    ]
    .map(String::from)
    .to_vec();
    let figure = |id: &str| r.figures.iter().find(|f| f.id == id);
    let rows: Vec<Vec<String>> = r
        .hosts
        .iter()
        .map(|h| {
            let mut verdict = Vec::new();
            if !h.outliers.is_empty() {
                verdict.push(format!("OUTLIER on {}", h.outliers.len()));
            }
            if !h.differs.is_empty() {
                verdict.push(format!("DIFFERS in {}", h.differs.len()));
            }
            let verdict = if verdict.is_empty() {
                "ok".to_string()
            } else {
                verdict.join(", ")
            };
            let worst = h.worst_figure.as_deref().and_then(figure);
            let dev = worst.and_then(|f| f.deviations.iter().find(|d| d.host == h.host));
            vec![
                h.host.clone(),
                verdict,
                h.worst_figure.clone().unwrap_or_else(|| "-".into()),
                match (worst, dev) {
                    (Some(f), Some(d)) => format::value(d.value, f.unit),
                    _ => "-".into(),
                },
                worst.map_or_else(|| "-".into(), |f| format::value(f.median, f.unit)),
                pct(dev.and_then(|d| d.deviation_percent)),
                dev.and_then(|d| d.z)
                    .map_or_else(|| "-".into(), |z| format!("{z:+.1}")),
                h.missing_figures.len().to_string(),
            ]
        })
        .collect();
    s += "hosts, worst first (worst figure: the largest shortfall against the median):\n";
    s += &nodebench_report::table::text_table(&header, &rows, 3);
    s += "\n";
    for h in r.outlier_hosts().filter(|h| h.outliers.len() > 1) {
        s += &format!("{} is an outlier on:\n", h.host);
        for o in &h.outliers {
            s += &format!(
                "  {}: {} against {} ({})\n",
                o.figure,
                format::value(o.value, o.unit),
                format::value(o.median, o.unit),
                pct(Some((o.value - o.median) / o.median * 100.0))
            );
        }
    }

    s += "\ninventory and host state";
    if r.consistency.is_empty() {
        s += ": alike on every host\n";
    } else {
        s += " (the majority value, then the hosts that differ):\n";
        for c in &r.consistency {
            s += &format!("  {}\n", c.describe());
        }
    }
    if r.fields_without_majority > 0 {
        s += &format!(
            "  ({} field(s) with no value on more than half of the hosts left out)\n",
            r.fields_without_majority
        );
    }
    s += "\n";

    let header: Vec<String> = [
        "figure", "hosts", "median", "MAD %", "min", "at min", "max", "at max", "outliers",
    ]
    .map(String::from)
    .to_vec();
    let hosts = |v: &[String]| -> String {
        match v.len() {
            0..=2 => v.join(" "),
            n => format!("{} {} +{} more", v[0], v[1], n - 2),
        }
    };
    let rows: Vec<Vec<String>> = r
        .figures
        .iter()
        .map(|f| {
            vec![
                f.id.clone(),
                f.host_count.to_string(),
                format::value(f.median, f.unit),
                if f.judged {
                    format!("{:.2}", f.mad / f.median * 100.0)
                } else {
                    "-".into()
                },
                format::value(f.min, f.unit),
                hosts(&f.min_hosts),
                format::value(f.max, f.unit),
                hosts(&f.max_hosts),
                if f.outliers.is_empty() {
                    "-".into()
                } else {
                    hosts(&f.outliers)
                },
            ]
        })
        .collect();
    s += "figures (each host's figure is the median of its runs):\n";
    s += &nodebench_report::table::text_table(&header, &rows, 1);
    s += "\n";
    s
}
