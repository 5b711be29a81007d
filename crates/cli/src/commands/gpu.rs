//! `nodebench gpu ...`: the benchmark a subcommand names, run where the
//! machine has an NVIDIA GPU; elsewhere one line and exit code 3.

use anyhow::Result;

use super::runner::run_benchmarks;
use crate::args::Cli;
use crate::args::bench::{Gpu, Leaf};
use crate::error::CliError;

/// Runs `leaf`'s benchmark: its flags are checked first (exit 2), then
/// whether a GPU is there (exit 3, "no NVIDIA GPU: libcuda.so.1 not found").
pub fn run(cli: &Cli, leaf: &Leaf<Gpu>) -> Result<()> {
    let bench = leaf.benchmark()?;
    if let Err(e) = bench.validate() {
        return Err(CliError::usage(format!("{}: {e}", bench.id())).into());
    }
    if let Some(why) = nodebench_gpu::unavailable() {
        return Err(CliError::unavailable(why).into());
    }
    run_benchmarks(cli, vec![bench], false)
}
