//! `nodebench db ...`: the benchmark a subcommand names, run.

use anyhow::Result;
use nodebench_core::bench::{BenchError, Benchmark};
use nodebench_core::cli::BenchArgs;

use super::runner::run_benchmarks;
use crate::args::Cli;
use crate::args::db::DbCommand;

/// The benchmark `cmd` names (for the command and for suite steps).
pub fn benchmark(cmd: &DbCommand) -> Result<Box<dyn Benchmark>, BenchError> {
    match cmd {
        DbCommand::As3ap(a) => a.benchmark(),
        DbCommand::Tpcc(a) => a.benchmark(),
    }
}

/// Runs `cmd`'s benchmark.
pub fn run(cli: &Cli, cmd: &DbCommand) -> Result<()> {
    run_benchmarks(cli, vec![benchmark(cmd)?], false)
}
