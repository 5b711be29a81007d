//! `nodebench power ...`: the flags of `power idle` and their one
//! conversion into its config.

use std::time::Duration;

use clap::{Args, Subcommand};
use nodebench_machine::energy::IdleConfig;

use super::parse::{duration_text, parse_duration};

/// `nodebench power ...`
#[derive(Debug, Subcommand)]
pub enum PowerCommand {
    /// Store this host's idle draw: every readable power source (RAPL,
    /// hwmon, IPMI DCMI, NVML) read each second for --duration with
    /// nothing else running. Every later result on this host also gives
    /// its power, energy and work per joule above this idle draw, naming
    /// the idle run. Exit 1 (a failed run) where no power sensor is
    /// readable.
    Idle(IdleArgs),
}

/// Options of `power idle`.
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
