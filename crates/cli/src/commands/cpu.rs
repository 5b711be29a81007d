//! `nodebench cpu ...`: the benchmark a subcommand names, run.

use anyhow::Result;
use nodebench_core::bench::{BenchError, Benchmark};
use nodebench_core::cli::BenchArgs;

use super::runner::run_benchmarks;
use crate::args::Cli;
use crate::args::cpu::CpuCommand;

/// Runs `cmd`'s benchmark.
pub fn run(cli: &Cli, cmd: &CpuCommand) -> Result<()> {
    run_benchmarks(cli, vec![benchmark(cmd)?], false)
}

/// The benchmark `cmd` names, configured by its arguments.
pub fn benchmark(cmd: &CpuCommand) -> Result<Box<dyn Benchmark>, BenchError> {
    match cmd {
        CpuCommand::Ops(a) => a.benchmark(),
        CpuCommand::Linpack(a) => a.benchmark(),
        CpuCommand::Fft(a) => a.benchmark(),
        CpuCommand::Dgemm(a) => a.benchmark(),
    }
}
