//! `nodebench compare`: resolves each side in the store, compares them and
//! prints the comparison (tables, Markdown, CSV or the JSON model).

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::Result;
use nodebench_report::compare::{self, Side};
use nodebench_store::RunSummary;

use super::runner::open_store;
use crate::args::Cli;
use crate::args::compare::{CompareArgs, SIDE_FORMS, SideSpec};

/// Environment variable that turns colour off even on a terminal.
const NO_COLOR: &str = "NO_COLOR";

/// `nodebench compare A B [C ...]`.
pub fn run(cli: &Cli, args: &CompareArgs) -> Result<ExitCode> {
    if args.sides.len() < 2 {
        eprintln!(
            "error: compare: RUN: at least 2 runs to compare, got {}: each {SIDE_FORMS}, the first the baseline",
            args.sides.len()
        );
        return Ok(ExitCode::from(crate::EXIT_USAGE));
    }
    let sides = match load_sides(cli, &args.sides, "compare")? {
        Ok(sides) => sides,
        Err(code) => return Ok(code),
    };
    let comparison = compare::compare(&sides);
    if cli.json {
        println!("{}", serde_json::to_string_pretty(&comparison)?);
    } else {
        let colour = std::io::stdout().is_terminal() && std::env::var_os(NO_COLOR).is_none();
        let text = compare::render(&comparison, args.format, colour).map_err(anyhow::Error::msg)?;
        print!("{text}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Each spec's runs loaded from the store as a [`Side`]; a spec naming no
/// stored run is one line on stderr (`error: COMMAND: SPEC: why`) and
/// `Err` with the usage exit code.
pub(super) fn load_sides(
    cli: &Cli,
    specs: &[SideSpec],
    command: &str,
) -> Result<Result<Vec<Side>, ExitCode>> {
    let store = open_store(cli)?;
    let summaries = store.list_runs()?;
    let mut sides = Vec::with_capacity(specs.len());
    for spec in specs {
        let ids = match resolve(spec, &summaries) {
            Ok(ids) => ids,
            Err(why) => {
                eprintln!("error: {command}: {spec}: {why} (accepted: {SIDE_FORMS})");
                return Ok(Err(ExitCode::from(crate::EXIT_USAGE)));
            }
        };
        let runs = ids
            .iter()
            .map(|id| store.load_run(*id))
            .collect::<Result<Vec<_>, _>>()?;
        sides.push(Side {
            label: label(spec, &ids),
            runs,
        });
    }
    Ok(Ok(sides))
}

/// The stored run ids a side names, oldest first; why not when it names none.
fn resolve(spec: &SideSpec, runs: &[RunSummary]) -> Result<Vec<i64>, String> {
    let mut ids: Vec<i64> = match spec {
        SideSpec::Id(id) => runs.iter().filter(|r| r.id == *id).map(|r| r.id).collect(),
        SideSpec::Latest => runs
            .iter()
            .max_by_key(|r| r.id)
            .map(|r| r.id)
            .into_iter()
            .collect(),
        SideSpec::Tag { key, value } => runs
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
        SideSpec::Id(id) => format!("no run with id {id} in the store"),
        SideSpec::Latest => "the store holds no run".to_string(),
        SideSpec::Tag { key, value } => format!("no stored run has the tag {key}={value}"),
    })
}

/// How a side is named in the output: `run 12`, `latest (run 14)`,
/// `tag:config=a`.
fn label(spec: &SideSpec, ids: &[i64]) -> String {
    match spec {
        SideSpec::Id(id) => format!("run {id}"),
        SideSpec::Latest => format!("latest (run {})", ids[0]),
        SideSpec::Tag { .. } => spec.to_string(),
    }
}
