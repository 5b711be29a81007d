//! `nodebench disk ...`: the benchmark a subcommand names, run.

use anyhow::Result;
use nodebench_core::bench::{BenchError, Benchmark};
use nodebench_core::cli::BenchArgs;

use super::runner::run_benchmarks;
use crate::args::Cli;
use crate::args::disk::DiskCommand;

/// Runs `cmd`'s benchmark.
pub fn run(cli: &Cli, cmd: &DiskCommand) -> Result<()> {
    run_benchmarks(cli, vec![benchmark(cmd)?], false)
}

/// The benchmark `cmd` names, configured by its arguments.
pub fn benchmark(cmd: &DiskCommand) -> Result<Box<dyn Benchmark>, BenchError> {
    match cmd {
        DiskCommand::Iozone(a) => a.benchmark(),
        DiskCommand::Dd(a) => a.benchmark(),
        DiskCommand::Fsync(a) => a.benchmark(),
        DiskCommand::Blocks(a) => a.benchmark(),
    }
}
