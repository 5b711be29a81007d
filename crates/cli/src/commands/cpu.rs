//! `nodebench cpu ...`: the benchmark a subcommand names, run.

use anyhow::Result;
use nodebench_core::bench::Benchmark;
use nodebench_cpu::fft::HpccFft;
use nodebench_cpu::ops::CpuOps;
use nodebench_linpack::Linpack;
use nodebench_linpack::dgemm::HpccDgemm;

use super::runner::run_benchmarks;
use crate::args::Cli;
use crate::args::cpu::CpuCommand;

/// Runs `cmd`'s benchmark.
pub fn run(cli: &Cli, cmd: &CpuCommand) -> Result<()> {
    run_benchmarks(cli, vec![benchmark(cmd)], false)
}

/// The benchmark `cmd` names, configured by its arguments.
pub fn benchmark(cmd: &CpuCommand) -> Box<dyn Benchmark> {
    match cmd {
        CpuCommand::Ops(a) => Box::new(CpuOps { config: a.into() }),
        CpuCommand::Linpack(a) => Box::new(Linpack { config: a.into() }),
        CpuCommand::Fft(a) => Box::new(HpccFft { config: a.into() }),
        CpuCommand::Dgemm(a) => Box::new(HpccDgemm { config: a.into() }),
    }
}
