//! The burn-in's settings: how long, how often a checkpoint is committed,
//! how far a throughput may fall below (and power rise above) its first
//! window's median, and how long that window is.

use std::time::Duration;

use nodebench_core::bench::BenchError;
use nodebench_core::config::Config;

/// The baseline window of runs at least twice as long: the first hour.
pub const FULL_BASELINE: Duration = Duration::from_secs(3600);

/// `nodebench burnin`'s settings.
#[derive(Debug, Clone, PartialEq)]
pub struct BurninConfig {
    /// How long the mixed load runs (`--duration`).
    pub duration: Duration,
    /// How often a checkpoint result per workload is committed (`--checkpoint`).
    pub checkpoint: Duration,
    /// A throughput whose interval median falls more than this percentage
    /// below its baseline median is degraded (`--degrade`), 0 < x < 100;
    /// a power source whose interval median rises more than this above its
    /// baseline median is a warning.
    pub degrade_percent: f64,
    /// The baseline window of a run at least twice as long (default
    /// [`FULL_BASELINE`], the first hour; shorter in tests).
    pub baseline: Duration,
}

impl Default for BurninConfig {
    /// 72 hours, a checkpoint every 10 minutes, degraded below 90 % of the
    /// first hour's median.
    fn default() -> Self {
        BurninConfig {
            duration: Duration::from_secs(72 * 3600),
            checkpoint: Duration::from_secs(600),
            degrade_percent: 10.0,
            baseline: FULL_BASELINE,
        }
    }
}

impl BurninConfig {
    /// The degradation baseline window: the first hour ([`Self::baseline`]),
    /// or the first sixth of runs shorter than two hours (twice it).
    pub fn baseline_window(&self) -> Duration {
        if self.duration >= 2 * self.baseline {
            self.baseline
        } else {
            self.duration / 6
        }
    }
}

impl Config for BurninConfig {
    fn validate(&self) -> Result<(), BenchError> {
        if self.duration.is_zero() {
            return Err(BenchError::Invalid(
                "--duration: expected a positive duration like 30m, 72h".into(),
            ));
        }
        if self.checkpoint.is_zero() || self.checkpoint > self.duration {
            return Err(BenchError::Invalid(format!(
                "--checkpoint: expected a positive duration no longer than --duration ({} s), like 10m, got {} s",
                self.duration.as_secs_f64(),
                self.checkpoint.as_secs_f64()
            )));
        }
        if self.baseline.is_zero() {
            return Err(BenchError::Invalid(
                "baseline window: expected a positive duration like 1h".into(),
            ));
        }
        if !(self.degrade_percent > 0.0 && self.degrade_percent < 100.0) {
            return Err(BenchError::Invalid(format!(
                "--degrade: expected a percentage above 0 and below 100, like 10%, got {}%",
                self.degrade_percent
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_settings_name_the_flag() {
        let ok = BurninConfig::default();
        assert!(ok.validate().is_ok());
        let cases = [
            (
                BurninConfig {
                    duration: Duration::ZERO,
                    ..ok.clone()
                },
                "--duration: ",
            ),
            (
                BurninConfig {
                    checkpoint: Duration::from_secs(73 * 3600),
                    ..ok.clone()
                },
                "--checkpoint: ",
            ),
            (
                BurninConfig {
                    degrade_percent: 150.0,
                    ..ok.clone()
                },
                "--degrade: ",
            ),
        ];
        for (cfg, flag) in cases {
            let e = cfg.validate().unwrap_err().to_string();
            assert!(e.starts_with(flag), "{e}");
            assert!(!e.contains('\n'), "{e}");
        }
    }

    #[test]
    fn the_baseline_is_the_first_hour_or_the_first_sixth() {
        let long = BurninConfig::default();
        assert_eq!(long.baseline_window(), Duration::from_secs(3600));
        let short = BurninConfig {
            duration: Duration::from_secs(120),
            checkpoint: Duration::from_secs(20),
            ..long
        };
        assert_eq!(short.baseline_window(), Duration::from_secs(20));
        let test = BurninConfig {
            baseline: Duration::from_secs(5),
            ..short
        };
        assert_eq!(test.baseline_window(), Duration::from_secs(5));
    }
}
