//! `nodebench disk ...`: the benchmark a subcommand names, run.

use anyhow::Result;
use nodebench_core::bench::Benchmark;
use nodebench_disk::blocks::DiskBlocks;
use nodebench_disk::dd::Dd;
use nodebench_disk::fsync::Fsync;
use nodebench_disk::iozone::Iozone;

use super::runner::run_benchmarks;
use crate::args::Cli;
use crate::args::disk::DiskCommand;

/// Runs `cmd`'s benchmark.
pub fn run(cli: &Cli, cmd: &DiskCommand) -> Result<()> {
    run_benchmarks(cli, vec![benchmark(cmd)], false)
}

/// The benchmark `cmd` names, configured by its arguments.
pub fn benchmark(cmd: &DiskCommand) -> Box<dyn Benchmark> {
    match cmd {
        DiskCommand::Iozone(a) => Box::new(Iozone { config: a.into() }),
        DiskCommand::Dd(a) => Box::new(Dd { config: a.into() }),
        DiskCommand::Fsync(a) => Box::new(Fsync { config: a.into() }),
        DiskCommand::Blocks(a) => Box::new(DiskBlocks { config: a.into() }),
    }
}
