//! `--repeat N|auto` and its limits: global flags, so every benchmark
//! command, `suite run` and `run` take them (a suite step's `repeat = N`
//! sets its own). The loop and its statistics are core's
//! (`nodebench_core::repeat`).

use std::time::Duration;

use clap::Args;
use nodebench_core::repeat::{Mode, RepeatConfig, parse_fraction};

use nodebench_core::cli::parse::{duration_text, parse_duration};

/// A repeat count or `auto`.
fn parse_mode(s: &str) -> Result<Mode, String> {
    s.parse()
}

/// The flags of whole repeats.
#[derive(Debug, Clone, Args)]
pub struct RepeatArgs {
    /// Run each benchmark N times as a whole, or with `auto` until the 95 %
    /// interval of the median of its headline figure is within
    /// --target-ci; the repeats are stored as one result's repeats (its
    /// value the median). A benchmark's own --repeats/--trials/--ntimes
    /// still count inside each run.
    #[arg(long, global = true, value_name = "N|auto", default_value = "1", value_parser = parse_mode)]
    pub repeat: Mode,
    /// With --repeat auto: stop when the interval's half-width is within
    /// this share of the median (2% or 0.02).
    #[arg(long, global = true, value_name = "CI", default_value = "2%", value_parser = parse_fraction)]
    pub target_ci: f64,
    /// With --repeat auto: at least this many repeats.
    #[arg(long, global = true, value_name = "N", default_value_t = RepeatConfig::default().min_repeats)]
    pub min_repeats: u32,
    /// With --repeat auto: at most this many repeats.
    #[arg(long, global = true, value_name = "N", default_value_t = RepeatConfig::default().max_repeats)]
    pub max_repeats: u32,
    /// With --repeat auto: start no repeat that would end past this long
    /// (after --min-repeats). `http download`'s own --max-time is this one.
    #[arg(id = "max_time", long = "max-time", global = true, value_name = "DURATION", default_value = duration_text(RepeatConfig::default().max_time), value_parser = parse_duration, allow_hyphen_values = true)]
    pub max_time: Duration,
}

impl From<&RepeatArgs> for RepeatConfig {
    fn from(a: &RepeatArgs) -> RepeatConfig {
        RepeatConfig {
            mode: a.repeat,
            target_ci: a.target_ci,
            min_repeats: a.min_repeats,
            max_repeats: a.max_repeats,
            max_time: a.max_time,
        }
    }
}
