//! `nodebench report RUN... -o FILE.html`: resolves each RUN in the store
//! as `compare` does and writes the HTML report of
//! `nodebench_report::html`.

use std::process::ExitCode;

use anyhow::Result;
use nodebench_report::compare::Side;
use nodebench_store::Store;

use super::compare::{label, resolve};
use super::runner::open_store;
use crate::EXIT_USAGE;
use crate::args::Cli;
use crate::args::compare::SIDE_FORMS;
use crate::args::report::ReportArgs;

/// Writes the report of the named runs; a RUN the store does not hold or a
/// file that cannot be written is one line on stderr and exit 2.
pub fn run(cli: &Cli, args: &ReportArgs) -> Result<ExitCode> {
    let store = open_store(cli)?;
    let summaries = store.list_runs()?;
    let mut sides = Vec::with_capacity(args.runs.len());
    for spec in &args.runs {
        let ids = match resolve(spec, &summaries) {
            Ok(ids) => ids,
            Err(why) => {
                eprintln!("error: report: {spec}: {why} (accepted: {SIDE_FORMS})");
                return Ok(ExitCode::from(EXIT_USAGE));
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
    let html = nodebench_report::html::report(&sides);
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
