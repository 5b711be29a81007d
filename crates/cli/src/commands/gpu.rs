//! `nodebench gpu ...`: the benchmark a subcommand names, run where the
//! machine has an NVIDIA GPU; elsewhere one line and exit code 3.

use anyhow::Result;
use nodebench_core::bench::{BenchError, Benchmark};
use nodebench_core::cli::BenchArgs;

use super::runner::run_benchmarks;
use crate::args::Cli;
use crate::args::gpu::GpuCommand;
use crate::error::CliError;

/// Runs `cmd`'s benchmark: its flags are checked first (exit 2), then
/// whether a GPU is there (exit 3, "no NVIDIA GPU: libcuda.so.1 not found").
pub fn run(cli: &Cli, cmd: &GpuCommand) -> Result<()> {
    let bench = benchmark(cmd)?;
    if let Err(e) = bench.validate() {
        return Err(CliError::usage(format!("{}: {e}", bench.id())).into());
    }
    if let Some(why) = nodebench_gpu::unavailable() {
        return Err(CliError::unavailable(why).into());
    }
    run_benchmarks(cli, vec![bench], false)
}

/// The benchmark `cmd` names, configured by its arguments.
pub fn benchmark(cmd: &GpuCommand) -> Result<Box<dyn Benchmark>, BenchError> {
    match cmd {
        GpuCommand::Stream(a) => a.benchmark(),
        GpuCommand::Gemm(a) => a.benchmark(),
        GpuCommand::Bandwidth(a) => a.benchmark(),
        GpuCommand::Burn(a) => a.benchmark(),
    }
}
