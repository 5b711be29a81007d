//! `nodebench inventory`, `nodebench runs ...` and `nodebench schema`:
//! what the machine is, the stored runs, and the result model's schema.

use anyhow::Result;
use nodebench_core::Run;
use nodebench_machine::inventory;
use nodebench_report::compare::Comparison;
use nodebench_report::{export, reporters};

use super::compare::{load_runs, resolve_one};
use super::runner::open_store;
use crate::CliError;
use crate::args::runid::RunSpec;
use crate::args::runs::RunsCommand;
use crate::args::{Cli, SchemaModel};

/// `nodebench schema [run|compare|fleet]`: the JSON schema of the result
/// model, of the comparison model or of a fleet's analysis.
pub fn schema(model: SchemaModel) -> Result<()> {
    let schema = match model {
        SchemaModel::Run => {
            // The run model, and beside it what each benchmark id's
            // results hold: the registry's catalog.
            let mut s = serde_json::to_value(schemars::schema_for!(Run))?;
            s["x-benchmarks"] = nodebench_core::registry::catalog::to_json();
            s
        }
        SchemaModel::Compare => serde_json::to_value(schemars::schema_for!(Comparison))?,
        SchemaModel::Fleet => serde_json::to_value(schemars::schema_for!(
            nodebench_fleet::analysis::FleetReport
        ))?,
    };
    outln!("{}", serde_json::to_string_pretty(&schema)?);
    Ok(())
}

/// `nodebench inventory`: what this machine is, as text or JSON.
pub fn inventory(cli: &Cli, topology: bool) -> Result<()> {
    let inv = inventory::collect();
    if cli.json && topology {
        outln!("{}", serde_json::to_string_pretty(&inv.topology)?);
    } else if cli.json {
        outln!("{}", serde_json::to_string_pretty(&inv)?);
    } else if topology {
        out!(
            "{}",
            nodebench_report::topology::report(inv.topology.as_ref())
        );
    } else {
        out!("{}", nodebench_report::inventory::report(&inv));
    }
    Ok(())
}

/// `nodebench runs ...`: list, show, export or delete stored runs.
pub fn run(cli: &Cli, cmd: &RunsCommand) -> Result<()> {
    let mut store = open_store(cli)?;
    match cmd {
        RunsCommand::List => {
            let runs = store.list_runs()?;
            if cli.json {
                let ids: Vec<serde_json::Value> = runs
                    .iter()
                    .map(|r| {
                        serde_json::json!({
                            "id": r.id, "started_at": r.started_at, "ended_at": r.ended_at,
                            "status": r.status.as_str(), "benchmarks": r.benchmarks,
                            "results": r.result_count, "metrics": r.metric_count, "tags": r.tags,
                        })
                    })
                    .collect();
                outln!("{}", serde_json::to_string_pretty(&ids)?);
                return Ok(());
            }
            outln!(
                "{:>5}  {:<19}  {:<10}  {:>7}  {:>7}  {:<24}  tags",
                "id",
                "started (UTC)",
                "status",
                "results",
                "metrics",
                "benchmarks"
            );
            for r in runs {
                let tags: Vec<String> = r.tags.iter().map(|(k, v)| format!("{k}={v}")).collect();
                outln!(
                    "{:>5}  {:<19}  {:<10}  {:>7}  {:>7}  {:<24}  {}",
                    r.id,
                    r.started_at.format("%Y-%m-%d %H:%M:%S"),
                    r.status.as_str(),
                    r.result_count,
                    r.metric_count,
                    r.benchmarks.join(","),
                    tags.join(",")
                );
            }
        }
        RunsCommand::Show { id } => {
            let runs = load_runs(store.as_ref(), id, "runs show")?;
            match (&runs[..], cli.json) {
                ([run], true) if !matches!(id, RunSpec::Tag { .. }) => {
                    outln!("{}", serde_json::to_string_pretty(run)?);
                }
                (_, true) => outln!("{}", serde_json::to_string_pretty(&runs)?),
                (_, false) => {
                    for (i, run) in runs.iter().enumerate() {
                        if i > 0 {
                            outln!();
                        }
                        out!("{}", reporters::run_report_with_telemetry(run));
                    }
                }
            }
        }
        RunsCommand::Export { id, format, output } => {
            let runs = load_runs(store.as_ref(), id, "runs export")?;
            let text = match id {
                RunSpec::Tag { .. } => export::export_many(&runs, *format),
                _ => export::export(&runs[0], *format),
            }
            .map_err(anyhow::Error::msg)?;
            match output {
                Some(path) => std::fs::write(path, text).map_err(|e| {
                    CliError::usage(format!("--output {}: cannot write: {e}", path.display()))
                })?,
                None => out!("{text}"),
            }
        }
        RunsCommand::Delete { id } => {
            let id = resolve_one(store.as_ref(), &id.0, "runs delete")?;
            store.delete_run(id)?;
            outln!("deleted run {id}");
        }
    }
    Ok(())
}
