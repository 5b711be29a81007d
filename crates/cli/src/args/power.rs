//! `nodebench power ...`: the subcommands. Each wraps its benchmark's
//! arguments, defined with their conversion into its config in `nodebench_machine::cli`.

use clap::Subcommand;
use nodebench_machine::cli::*;

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
