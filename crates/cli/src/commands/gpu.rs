//! `nodebench gpu ...`: the benchmark a subcommand names, run where the
//! machine has an NVIDIA GPU; elsewhere one line and exit code 3.

use anyhow::Result;
use nodebench_core::bench::Benchmark;
use nodebench_gpu::{GpuBandwidth, GpuBurn, GpuGemm, GpuStream};

use super::runner::run_benchmarks;
use crate::args::Cli;
use crate::args::gpu::GpuCommand;
use crate::error::CliError;

/// Runs `cmd`'s benchmark: its flags are checked first (exit 2), then
/// whether a GPU is there (exit 3, "no NVIDIA GPU: libcuda.so.1 not found").
pub fn run(cli: &Cli, cmd: &GpuCommand) -> Result<()> {
    let bench = benchmark(cmd);
    if let Err(e) = bench.validate() {
        return Err(CliError::usage(format!("{}: {e}", bench.id())).into());
    }
    if let Some(why) = nodebench_gpu::unavailable() {
        return Err(CliError::unavailable(why).into());
    }
    run_benchmarks(cli, vec![bench], false)
}

/// The benchmark `cmd` names, configured by its arguments.
pub fn benchmark(cmd: &GpuCommand) -> Box<dyn Benchmark> {
    match cmd {
        GpuCommand::Stream(a) => Box::new(GpuStream { config: a.into() }),
        GpuCommand::Gemm(a) => Box::new(GpuGemm { config: a.into() }),
        GpuCommand::Bandwidth(a) => Box::new(GpuBandwidth { config: a.into() }),
        GpuCommand::Burn(a) => Box::new(GpuBurn { config: a.into() }),
    }
}
