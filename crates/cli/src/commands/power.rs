//! `nodebench power idle`: the idle-draw benchmark, run.

use anyhow::Result;
use nodebench_core::bench::Benchmark;
use nodebench_machine::energy::PowerIdle;

use super::runner::run_benchmarks;
use crate::args::Cli;
use crate::args::power::PowerCommand;

/// Runs `cmd`'s benchmark.
pub fn run(cli: &Cli, cmd: &PowerCommand) -> Result<()> {
    run_benchmarks(cli, vec![benchmark(cmd)], false)
}

/// The benchmark `cmd` names, configured by its arguments.
pub fn benchmark(cmd: &PowerCommand) -> Box<dyn Benchmark> {
    match cmd {
        PowerCommand::Idle(a) => Box::new(PowerIdle::new(a.into())),
    }
}
