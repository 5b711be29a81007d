//! `nodebench memory ...`: the benchmark a subcommand names, run.

use anyhow::Result;
use nodebench_core::bench::Benchmark;
use nodebench_memory::blocks::Blocks;
use nodebench_memory::gups::Gups;
use nodebench_memory::latency::Latency;
use nodebench_memory::loaded::LoadedLatency;
use nodebench_memory::numa::Numa;
use nodebench_memory::ptrans::Ptrans;
use nodebench_memory::stream::Stream;

use super::runner::run_benchmarks;
use crate::args::Cli;
use crate::args::memory::MemoryCommand;

/// Runs `cmd`'s benchmark.
pub fn run(cli: &Cli, cmd: &MemoryCommand) -> Result<()> {
    run_benchmarks(cli, vec![benchmark(cmd)], false)
}

/// The benchmark `cmd` names, configured by its arguments.
pub fn benchmark(cmd: &MemoryCommand) -> Box<dyn Benchmark> {
    match cmd {
        MemoryCommand::Stream(a) => Box::new(Stream { config: a.into() }),
        MemoryCommand::Blocks(a) => Box::new(Blocks { config: a.into() }),
        MemoryCommand::Latency(a) => Box::new(Latency { config: a.into() }),
        MemoryCommand::Numa(a) => Box::new(Numa { config: a.into() }),
        MemoryCommand::LoadedLatency(a) => Box::new(LoadedLatency { config: a.into() }),
        MemoryCommand::Gups(a) => Box::new(Gups { config: a.into() }),
        MemoryCommand::Ptrans(a) => Box::new(Ptrans { config: a.into() }),
    }
}
