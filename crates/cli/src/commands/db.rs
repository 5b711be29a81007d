//! `nodebench db ...`: the benchmark a subcommand names, run.

use std::process::ExitCode;

use anyhow::Result;
use nodebench_core::bench::Benchmark;
use nodebench_db::as3ap::As3ap;

use super::runner::run_benchmarks;
use crate::args::Cli;
use crate::args::db::DbCommand;

/// Runs `cmd`'s benchmark.
pub fn run(cli: &Cli, cmd: &DbCommand) -> Result<ExitCode> {
    let bench: Box<dyn Benchmark> = match cmd {
        DbCommand::As3ap(a) => Box::new(As3ap { config: a.into() }),
    };
    run_benchmarks(cli, vec![bench], false)
}
