//! `nodebench power idle`: the idle-draw benchmark, run.

use anyhow::Result;
use nodebench_core::bench::{BenchError, Benchmark};
use nodebench_core::cli::BenchArgs;

use super::runner::run_benchmarks;
use crate::args::Cli;
use crate::args::power::PowerCommand;

/// Runs `cmd`'s benchmark.
pub fn run(cli: &Cli, cmd: &PowerCommand) -> Result<()> {
    run_benchmarks(cli, vec![benchmark(cmd)?], false)
}

/// The benchmark `cmd` names, configured by its arguments.
pub fn benchmark(cmd: &PowerCommand) -> Result<Box<dyn Benchmark>, BenchError> {
    match cmd {
        PowerCommand::Idle(a) => a.benchmark(),
    }
}
