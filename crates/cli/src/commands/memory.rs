//! `nodebench memory ...`: the benchmark a subcommand names, run.

use anyhow::Result;
use nodebench_core::bench::{BenchError, Benchmark};
use nodebench_core::cli::BenchArgs;

use super::runner::run_benchmarks;
use crate::args::Cli;
use crate::args::memory::MemoryCommand;

/// Runs `cmd`'s benchmark.
pub fn run(cli: &Cli, cmd: &MemoryCommand) -> Result<()> {
    run_benchmarks(cli, vec![benchmark(cmd)?], false)
}

/// The benchmark `cmd` names, configured by its arguments.
pub fn benchmark(cmd: &MemoryCommand) -> Result<Box<dyn Benchmark>, BenchError> {
    match cmd {
        MemoryCommand::Stream(a) => a.benchmark(),
        MemoryCommand::Blocks(a) => a.benchmark(),
        MemoryCommand::Latency(a) => a.benchmark(),
        MemoryCommand::Numa(a) => a.benchmark(),
        MemoryCommand::LoadedLatency(a) => a.benchmark(),
        MemoryCommand::Gups(a) => a.benchmark(),
        MemoryCommand::Ptrans(a) => a.benchmark(),
    }
}
