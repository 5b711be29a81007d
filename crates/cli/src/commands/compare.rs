//! `nodebench compare`: resolves each side in the store, compares them and
//! prints the comparison (tables, Markdown, CSV or the JSON model). Also
//! how every command finds the runs a [`RunSpec`] names.

use std::io::IsTerminal;

use anyhow::Result;
use nodebench_report::compare::{self, Side};
use nodebench_store::{RunSummary, Store};

use super::runner::open_store;
use crate::CliError;
use crate::args::Cli;
use crate::args::compare::CompareArgs;
use crate::args::runid::{RUN_FORMS, RunSpec, SIDE_FORMS};

/// Environment variable that turns colour off even on a terminal.
const NO_COLOR: &str = "NO_COLOR";

/// `nodebench compare A B [C ...]`.
pub fn run(cli: &Cli, args: &CompareArgs) -> Result<()> {
    if args.sides.len() < 2 {
        return Err(CliError::usage(format!(
            "compare: RUN: at least 2 runs to compare, got {}: each {SIDE_FORMS}, the first the baseline",
            args.sides.len()
        ))
        .into());
    }
    let sides = load_sides(cli, &args.sides, "compare")?;
    for (i, a) in sides.iter().enumerate() {
        for b in &sides[i + 1..] {
            // Allowed (a run against itself checks the method), but said.
            if a.runs.iter().any(|r| b.runs.iter().any(|s| s.id == r.id)) {
                eprintln!(
                    "note: compare: {} and {} name the same run: every difference below is nil by construction",
                    a.label, b.label
                );
            }
        }
    }
    let matching = if args.strict {
        compare::Matching::Strict
    } else {
        compare::Matching::Workloads
    };
    let comparison = compare::compare_with(&sides, matching);
    if cli.json {
        // The model whole, its unmatched list saying why, even when
        // nothing matched (then exit 1 below).
        outln!("{}", serde_json::to_string_pretty(&comparison)?);
    } else if !comparison.rows.is_empty() {
        let colour = std::io::stdout().is_terminal() && std::env::var_os(NO_COLOR).is_none();
        let text = compare::render(&comparison, args.format, colour).map_err(anyhow::Error::msg)?;
        out!("{text}");
    }
    if comparison.rows.is_empty() {
        let labels: Vec<&str> = sides.iter().map(|s| s.label.as_str()).collect();
        return Err(CliError::failed(format!(
            "compare: {} have no metric in common ({} metric(s) found on some sides only; --json lists them and why)",
            labels.join(" and "),
            comparison.unmatched.len()
        ))
        .into());
    }
    Ok(())
}

/// Each spec's runs loaded from the store as a [`Side`]; a spec naming no
/// stored run is a usage error (`COMMAND: SPEC: why`).
pub(super) fn load_sides(cli: &Cli, specs: &[RunSpec], command: &str) -> Result<Vec<Side>> {
    let store = open_store(cli)?;
    let summaries = store.list_runs()?;
    let mut sides = Vec::with_capacity(specs.len());
    for spec in specs {
        let ids = resolve_or_refuse(spec, &summaries, command)?;
        let runs = ids
            .iter()
            .map(|id| store.load_run(*id))
            .collect::<Result<Vec<_>, _>>()?;
        sides.push(Side {
            label: label(spec, &ids),
            runs,
        });
    }
    Ok(sides)
}

/// The stored runs `spec` names, oldest first, loaded; a usage error when
/// it names none.
pub(super) fn load_runs(
    store: &dyn Store,
    spec: &RunSpec,
    command: &str,
) -> Result<Vec<nodebench_core::Run>> {
    let summaries = store.list_runs()?;
    resolve_or_refuse(spec, &summaries, command)?
        .iter()
        .map(|id| Ok(store.load_run(*id)?))
        .collect()
}

/// The one stored run id `spec` (not a tag) names; a usage error when it
/// names none.
pub(super) fn resolve_one(store: &dyn Store, spec: &RunSpec, command: &str) -> Result<i64> {
    let summaries = store.list_runs()?;
    let ids = resolve_or_refuse(spec, &summaries, command)?;
    Ok(ids[0])
}

/// The stored run ids every spec of `specs` names, in order, each once; a
/// usage error naming `command` for a spec that names none. The store's
/// run list is read once.
pub(super) fn resolve_many(
    store: &dyn Store,
    specs: &[RunSpec],
    command: &str,
) -> Result<Vec<i64>> {
    let summaries = store.list_runs()?;
    let mut ids = Vec::new();
    for spec in specs {
        for id in resolve_or_refuse(spec, &summaries, command)? {
            if !ids.contains(&id) {
                ids.push(id);
            }
        }
    }
    Ok(ids)
}

/// [`resolve`], its refusal a usage error naming the command and the spec.
fn resolve_or_refuse(spec: &RunSpec, runs: &[RunSummary], command: &str) -> Result<Vec<i64>> {
    let forms = match spec {
        RunSpec::Tag { .. } => SIDE_FORMS,
        _ if command.starts_with("runs delete") => RUN_FORMS,
        _ => SIDE_FORMS,
    };
    resolve(spec, runs).map_err(|why| {
        CliError::usage(format!("{command}: {spec}: {why} (accepted: {forms})")).into()
    })
}

/// The stored run ids a spec names, oldest first; why not when it names
/// none.
fn resolve(spec: &RunSpec, runs: &[RunSummary]) -> Result<Vec<i64>, String> {
    let mut ids: Vec<i64> = match spec {
        RunSpec::Id(id) => runs.iter().filter(|r| r.id == *id).map(|r| r.id).collect(),
        RunSpec::Latest(back) => {
            let mut all: Vec<i64> = runs.iter().map(|r| r.id).collect();
            all.sort_unstable_by(|a, b| b.cmp(a));
            all.get(*back).copied().into_iter().collect()
        }
        RunSpec::Tag { key, value } => runs
            .iter()
            .filter(|r| r.tags.get(key) == Some(value))
            .map(|r| r.id)
            .collect(),
    };
    ids.sort_unstable();
    if !ids.is_empty() {
        return Ok(ids);
    }
    Err(match spec {
        RunSpec::Id(id) => format!("no run with id {id} in the store"),
        RunSpec::Latest(0) => "the store holds no run".to_string(),
        RunSpec::Latest(n) => format!(
            "the store holds {} run(s): latest~{n} would be run number {} from the newest",
            runs.len(),
            n + 1
        ),
        RunSpec::Tag { key, value } => format!("no stored run has the tag {key}={value}"),
    })
}

/// How a side is named in the output: `run 12`, `latest (run 14)`,
/// `latest~1 (run 13)`, `tag:config=a`.
fn label(spec: &RunSpec, ids: &[i64]) -> String {
    match spec {
        RunSpec::Id(id) => format!("run {id}"),
        RunSpec::Latest(_) => format!("{spec} (run {})", ids[0]),
        RunSpec::Tag { .. } => spec.to_string(),
    }
}
