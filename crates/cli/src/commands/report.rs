//! `nodebench report RUN... -o FILE.html`: loads the runs from the store and
//! writes the HTML report of `nodebench_report::html`.

use std::process::ExitCode;

use anyhow::Result;
use nodebench_core::Run;
use nodebench_store::{Store, StoreError};

use super::runner::open_store;
use crate::EXIT_USAGE;
use crate::args::Cli;
use crate::args::report::{ReportArgs, RunSelector};

/// Writes the report of the selected runs; an unknown run or a file that
/// cannot be written is one line on stderr and exit 2.
pub fn run(cli: &Cli, args: &ReportArgs) -> Result<ExitCode> {
    let store = open_store(cli)?;
    let mut runs = Vec::with_capacity(args.runs.len());
    for selector in &args.runs {
        match load(&store, *selector) {
            Ok(run) => runs.push(run),
            Err(Refusal(line)) => {
                eprintln!("error: {line}");
                return Ok(ExitCode::from(EXIT_USAGE));
            }
        }
    }
    let html = nodebench_report::html::report(&runs);
    if let Err(e) = std::fs::write(&args.output, html) {
        eprintln!(
            "error: --output {}: cannot write: {e} (expected a writable FILE.html path)",
            args.output.display()
        );
        return Ok(ExitCode::from(EXIT_USAGE));
    }
    if !cli.quiet {
        println!("wrote {}", args.output.display());
    }
    Ok(ExitCode::SUCCESS)
}

/// Why a selected run cannot be reported: one line.
struct Refusal(String);

/// The run `selector` names.
fn load(store: &impl Store, selector: RunSelector) -> Result<Run, Refusal> {
    let id = match selector {
        RunSelector::Id(id) => id,
        RunSelector::Latest => store
            .list_runs()
            .map_err(|e| Refusal(e.to_string()))?
            .first()
            .map(|r| r.id)
            .ok_or_else(|| Refusal("run latest: the store holds no runs".into()))?,
    };
    store.load_run(id).map_err(|e| match e {
        StoreError::NotFound(_) => Refusal(format!(
            "run {selector}: no such run in the store (`nodebench runs list` shows the ids)"
        )),
        other => Refusal(other.to_string()),
    })
}
