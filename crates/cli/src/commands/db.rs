//! `nodebench db ...`: the benchmark a subcommand names, run.

use anyhow::Result;
use nodebench_core::bench::Benchmark;
use nodebench_db::as3ap::As3ap;
use nodebench_db::tpcc::Tpcc;

use super::runner::run_benchmarks;
use crate::args::Cli;
use crate::args::db::DbCommand;

/// The benchmark `cmd` names (for the command and for suite steps).
pub fn benchmark(cmd: &DbCommand) -> Box<dyn Benchmark> {
    match cmd {
        DbCommand::As3ap(a) => Box::new(As3ap { config: a.into() }),
        DbCommand::Tpcc(a) => Box::new(Tpcc { config: a.into() }),
    }
}

/// Runs `cmd`'s benchmark.
pub fn run(cli: &Cli, cmd: &DbCommand) -> Result<()> {
    run_benchmarks(cli, vec![benchmark(cmd)], false)
}
