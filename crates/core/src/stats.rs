//! Repeat statistics: warm-up then repeats, summarised as
//! n/min/median/mean/max/stddev and coefficient of variation, with the
//! warnings a careful benchmarker wants to see (noisy machine, coarse timer).

use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Coefficient of variation above which a figure is flagged as noisy (5 %).
pub const NOISY_CV: f64 = 0.05;

/// The warning a result carries when some of its figures are noisy:
/// `None` when `noisy` (the figures' names) is empty.
pub fn noisy_warning(noisy: &[String]) -> Option<String> {
    (!noisy.is_empty()).then(|| {
        format!(
            "coefficient of variation over {:.0} % (noisy machine?): {}",
            NOISY_CV * 100.0,
            noisy.join(", ")
        )
    })
}

/// Summary of repeated measurements of one figure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Stats {
    /// Number of repeats summarised (warm-up excluded).
    pub n: usize,
    /// Smallest sample.
    pub min: f64,
    /// Median sample.
    pub median: f64,
    /// Arithmetic mean.
    pub mean: f64,
    /// Largest sample.
    pub max: f64,
    /// Sample standard deviation (n - 1); 0 for a single sample.
    pub stddev: f64,
    /// Coefficient of variation, stddev / mean (0 when the mean is 0).
    pub cv: f64,
}

impl Stats {
    /// Summarises `samples`; `None` when there are none.
    pub fn from_samples(samples: &[f64]) -> Option<Stats> {
        if samples.is_empty() {
            return None;
        }
        let n = samples.len();
        let mut sorted = samples.to_vec();
        sorted.sort_by(|a, b| a.total_cmp(b));
        let median = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
        };
        let mean = samples.iter().sum::<f64>() / n as f64;
        let stddev = if n > 1 {
            (samples.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
        } else {
            0.0
        };
        let cv = if mean != 0.0 {
            stddev / mean.abs()
        } else {
            0.0
        };
        Some(Stats {
            n,
            min: sorted[0],
            median,
            mean,
            max: sorted[n - 1],
            stddev,
            cv,
        })
    }

    /// True when the spread is over [`NOISY_CV`].
    pub fn is_noisy(&self) -> bool {
        self.cv > NOISY_CV
    }
}

/// The smallest step `Instant::now()` shows on this machine, measured.
pub fn timer_resolution() -> Duration {
    let mut best = Duration::MAX;
    for _ in 0..200 {
        let a = Instant::now();
        let mut b = Instant::now();
        while b == a {
            b = Instant::now();
        }
        best = best.min(b - a);
    }
    best
}

/// A measured interval shorter than this many timer steps is flagged: the
/// timer's own step would be over 0.1 % of it.
pub const MIN_TIMER_STEPS: u32 = 1000;

/// True when `interval` is under [`MIN_TIMER_STEPS`] steps of the timer's
/// `resolution`, so the timer itself would distort the figure.
pub fn timer_too_coarse(interval: Duration, resolution: Duration) -> bool {
    interval < resolution * MIN_TIMER_STEPS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_of_known_samples() {
        let s = Stats::from_samples(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]).unwrap();
        assert_eq!(s.n, 8);
        assert_eq!(s.min, 2.0);
        assert_eq!(s.max, 9.0);
        assert_eq!(s.median, 4.5);
        assert_eq!(s.mean, 5.0);
        assert!((s.stddev - 2.138_089_935).abs() < 1e-6);
        assert!((s.cv - 0.427_617_987).abs() < 1e-6);
        assert!(s.is_noisy());
    }

    #[test]
    fn single_sample_has_zero_spread() {
        let s = Stats::from_samples(&[3.0]).unwrap();
        assert_eq!((s.median, s.stddev, s.cv), (3.0, 0.0, 0.0));
        assert!(Stats::from_samples(&[]).is_none());
    }

    #[test]
    fn noise_and_coarse_timer_are_flagged() {
        assert!(Stats::from_samples(&[1.0, 1.2, 0.8]).unwrap().is_noisy());
        assert!(
            !Stats::from_samples(&[1.0, 1.001, 0.999])
                .unwrap()
                .is_noisy()
        );
        assert!(timer_too_coarse(
            Duration::from_micros(1),
            Duration::from_nanos(100)
        ));
        assert!(!timer_too_coarse(
            Duration::from_secs(1),
            Duration::from_nanos(30)
        ));
    }
}
