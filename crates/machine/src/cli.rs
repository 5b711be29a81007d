//! `nodebench power ...`: the flags of `power idle` and their one
//! conversion into its config.

use std::time::Duration;

use crate::energy::IdleConfig;
use clap::Args;
use nodebench_core::bench::{BenchError, Benchmark};
use nodebench_core::cli::{BenchArgs, Runnable};
use nodebench_core::names::energy;

use nodebench_core::cli::parse::{duration_text, parse_duration};

/// Store this host's idle draw: every readable power source (RAPL,
/// hwmon, IPMI DCMI, NVML) read each second for --duration with
/// nothing else running. Every later result on this host also gives
/// its power, energy and work per joule above this idle draw, naming
/// the idle run. Exit 1 (a failed run) where no power sensor is
/// readable.
#[derive(Debug, Args)]
pub struct IdleArgs {
    /// How long every source is read: 1s to 1h. Leave the machine idle
    /// meanwhile.
    #[arg(long, value_name = "DURATION", default_value = duration_text(IdleConfig::default().duration), value_parser = parse_duration)]
    pub duration: Duration,
}

impl From<&IdleArgs> for IdleConfig {
    fn from(a: &IdleArgs) -> IdleConfig {
        IdleConfig {
            duration: a.duration,
        }
    }
}

impl BenchArgs for IdleArgs {
    const ID: &'static str = energy::IDLE;

    fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        Ok(Box::new(crate::energy::PowerIdle::new(self.into())))
    }
}

/// The benchmarks of this crate, as the CLI and the suites run them.
pub const RUNNABLE: &[Runnable] = &[Runnable::of::<IdleArgs>()];
