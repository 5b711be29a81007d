//! Whole repeats of a benchmark (`--repeat N|auto`, a suite step's `repeat
//! = N`): the one repeat mechanism over every benchmark. A benchmark's own
//! repeat flags (`cpu ops --repeats`, `cpu linpack --trials`, `memory
//! stream --ntimes`) keep their meaning inside one measurement; this runs
//! the benchmark's `run` again as a whole and merges the repeats into one
//! result per result of a repeat ([`merge`]), each metric's value the
//! median of the repeats, every repeat's value kept in its stats with the
//! outliers among them counted.
//!
//! `N` runs it N times. `auto` runs it until the half-width of the 95 %
//! interval of the median of each result's headline figure
//! ([`registry::headline`](crate::registry::headline)), relative to the median,
//! is within `--target-ci` ([`crate::stats::Stats::relative_half_width`],
//! the interval `compare` uses), at least `--min-repeats` times and at
//! most `--max-repeats` times or until `--max-time` has passed
//! ([`decide`]). The outcome is stored with each merged result as its
//! [`PARAM`] parameter ([`Outcome`]) and printed as one line.

mod merge;
mod run;

pub use merge::merge;
pub use run::run;

use std::time::Duration;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::bench::BenchError;
use crate::config::Config;
use crate::model::BenchResult;
use crate::stats::Outliers;

/// The result parameter holding a repeated result's [`Outcome`].
pub const PARAM: &str = "repeat";

/// The confidence level of the interval `auto` stops on (that of `compare`).
pub const CONFIDENCE: f64 = 0.95;

pub use crate::repeat_mode::{MAX_REPEATS, Mode};

/// A relative interval target: `2%` or `0.02`, above 0 and under 100 %.
pub fn parse_fraction(s: &str) -> Result<f64, BenchError> {
    let t = s.trim();
    let v = match t.strip_suffix('%') {
        Some(p) => p.trim().parse::<f64>().map(|v| v / 100.0),
        None => t.parse::<f64>(),
    };
    match v {
        Ok(v) if v > 0.0 && v < 1.0 => Ok(v),
        _ => Err(BenchError::Invalid(format!(
            "invalid interval '{s}': expected a share above 0 and under 100 %, as 2% or 0.02"
        ))),
    }
}

/// `--repeat` and its limits.
#[derive(Debug, Clone, PartialEq)]
pub struct RepeatConfig {
    /// `--repeat`.
    pub mode: Mode,
    /// `--target-ci`: the relative half-width `auto` stops at (0.02).
    pub target_ci: f64,
    /// `--min-repeats`: `auto` runs at least this many.
    pub min_repeats: u32,
    /// `--max-repeats`: `auto` runs at most this many.
    pub max_repeats: u32,
    /// `--max-time`: `auto` starts no repeat after this long (once
    /// `--min-repeats` have run).
    pub max_time: Duration,
}

impl Default for RepeatConfig {
    fn default() -> Self {
        RepeatConfig {
            mode: Mode::Times(1),
            target_ci: 0.02,
            min_repeats: 3,
            max_repeats: 20,
            max_time: Duration::from_secs(600),
        }
    }
}

impl Config for RepeatConfig {
    fn validate(&self) -> Result<(), BenchError> {
        let bad = |m: String| Err(BenchError::Invalid(m));
        if let Mode::Times(n) = self.mode
            && !(1..=MAX_REPEATS).contains(&n)
        {
            return bad(format!(
                "--repeat: expected a whole number 1..={MAX_REPEATS} or auto, got {n}"
            ));
        }
        if !(self.target_ci > 0.0 && self.target_ci < 1.0) {
            return bad(format!(
                "--target-ci: expected a share above 0 and under 100 % (2% or 0.02), got {}",
                self.target_ci
            ));
        }
        if !(2..=MAX_REPEATS).contains(&self.min_repeats) {
            return bad(format!(
                "--min-repeats: expected 2..={MAX_REPEATS} (an interval needs 2 repeats), got {}",
                self.min_repeats
            ));
        }
        if !(self.min_repeats..=MAX_REPEATS).contains(&self.max_repeats) {
            return bad(format!(
                "--max-repeats: expected --min-repeats ({})..={MAX_REPEATS}, got {}",
                self.min_repeats, self.max_repeats
            ));
        }
        if self.max_time.is_zero() {
            return bad("--max-time: expected a positive duration, e.g. 10m".into());
        }
        Ok(())
    }
}

/// Why the repeats stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// `--repeat N`: N ran.
    Count,
    /// `auto`: the interval reached the target.
    Converged,
    /// `auto`: `--max-repeats` ran without reaching the target.
    MaxRepeats,
    /// `auto`: `--max-time` passed (or the next repeat would end past it)
    /// without reaching the target.
    MaxTime,
    /// `auto`: the results hold no headline figure with an interval (none
    /// recorded, or not positive), so there is nothing to converge on.
    NoHeadline,
    /// A repeat failed or was interrupted: the repeats stop there.
    Stopped,
}

/// Whether to run another repeat after `done` repeats that took `elapsed`,
/// the widest relative interval of the results' headlines being `ci`
/// (`None`: no headline with an interval): `None` to go on, else why to
/// stop. `--min-repeats` come first, then the target, then the limits;
/// `--max-time` also stops when one more repeat, as long as the mean one
/// so far, would end past it.
pub fn decide(cfg: &RepeatConfig, done: u32, elapsed: Duration, ci: Option<f64>) -> Option<Stop> {
    match cfg.mode {
        Mode::Times(n) => (done >= n).then_some(Stop::Count),
        Mode::Auto => {
            if done < cfg.min_repeats {
                return None;
            }
            let Some(ci) = ci else {
                return Some(Stop::NoHeadline);
            };
            if ci <= cfg.target_ci {
                return Some(Stop::Converged);
            }
            if done >= cfg.max_repeats {
                return Some(Stop::MaxRepeats);
            }
            let next = elapsed + elapsed / done.max(1);
            (next > cfg.max_time).then_some(Stop::MaxTime)
        }
    }
}

/// How a repeated result's repeats went: stored with it as its [`PARAM`]
/// parameter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Outcome {
    /// What `--repeat` asked: a count or `auto`.
    pub asked: String,
    /// How many repeats ran.
    pub repeats: u32,
    /// Why they stopped.
    pub stop: Stop,
    /// The headline figure (`rate{threads=2}`), where the result has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headline: Option<String>,
    /// The relative half-width of its 95 % interval reached (0.013 for
    /// +-1.3 %), where there were 2 repeats or more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci: Option<f64>,
    /// `--target-ci` (`auto` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_ci: Option<f64>,
    /// The limits `auto` ran under: `--max-repeats`, `--max-time` seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_repeats: Option<u32>,
    /// `--max-time`, seconds (`auto` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_time_s: Option<f64>,
    /// The outliers among the headline's repeats (kept in its figures).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outliers: Option<Outliers>,
}

/// `1.3 %`.
fn percent(x: f64) -> String {
    let p = 100.0 * x;
    if p < 10.0 {
        format!("{p:.1} %")
    } else {
        format!("{p:.0} %")
    }
}

impl Outcome {
    /// The repeated result's `repeat` parameter, if it has one.
    pub fn of(result: &BenchResult) -> Option<Outcome> {
        serde_json::from_value(result.param(PARAM)?.clone()).ok()
    }

    /// One line: `repeats: converged after 5 repeats (CI 1.3 %, target
    /// 2 %; headline rate{threads=2}); outliers kept: ...`, or `repeats: did
    /// not converge (CI 7.4 % after 10 repeats; target 2 %, --max-repeats
    /// 10 reached; headline rate)`. CI is the half-width of the 95 %
    /// interval of the headline's median, relative to it.
    pub fn line(&self) -> String {
        let ci = self.ci.map(percent);
        let ci_text = ci.clone().unwrap_or_else(|| "unknown".into());
        let hl = self
            .headline
            .as_deref()
            .map(|h| format!("; headline {h}"))
            .unwrap_or_default();
        let target = self.target_ci.map(percent).unwrap_or_default();
        let n = self.repeats;
        let plural = if n == 1 { "repeat" } else { "repeats" };
        let head = match self.stop {
            Stop::Count => match &ci {
                Some(ci) => format!("{n} {plural} (CI {ci}{hl})"),
                None => format!("{n} {plural}"),
            },
            Stop::Converged => {
                format!("converged after {n} {plural} (CI {ci_text}, target {target}{hl})")
            }
            Stop::MaxRepeats => format!(
                "did not converge (CI {ci_text} after {n} {plural}; target {target}, --max-repeats {} reached{hl})",
                self.max_repeats.unwrap_or(n)
            ),
            Stop::MaxTime => format!(
                "did not converge (CI {ci_text} after {n} {plural}; target {target}, --max-time {:.0} s reached{hl})",
                self.max_time_s.unwrap_or(0.0)
            ),
            Stop::NoHeadline => format!(
                "did not converge (no headline figure with an interval after {n} {plural}{hl})"
            ),
            Stop::Stopped => {
                format!("stopped after {n} {plural}: a repeat failed or was interrupted")
            }
        };
        match self.outliers {
            Some(o) if n >= 3 => format!("repeats: {head}; outliers kept: {}", o.describe()),
            _ => format!("repeats: {head}"),
        }
    }
}

#[cfg(test)]
mod tests;
