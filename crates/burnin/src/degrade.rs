//! The degradation rule: a workload's throughput is degraded in an interval
//! when the median of its iterations there falls more than `--degrade`
//! below the median of its first window (the first hour, or the first
//! sixth of a run shorter than two hours, from when every workload has
//! finished its first iteration: before that the mix is not yet whole and
//! the first ones run faster). Only the first window's samples are kept
//! until its median is known; then they are dropped.

use chrono::{DateTime, Utc};

pub use nodebench_core::stats::median;

/// The first window's throughputs of one workload, then their median.
#[derive(Debug, Clone)]
pub struct Baseline {
    window_start: DateTime<Utc>,
    window_end: DateTime<Utc>,
    samples: Vec<f64>,
    median: Option<f64>,
}

impl Baseline {
    /// A baseline collecting the samples of `[window_start, window_end)`
    /// (the caller gives only iterations begun at or after `window_start`).
    pub fn new(window_start: DateTime<Utc>, window_end: DateTime<Utc>) -> Baseline {
        Baseline {
            window_start,
            window_end,
            samples: Vec::new(),
            median: None,
        }
    }

    /// When the window starts.
    pub fn window_start(&self) -> DateTime<Utc> {
        self.window_start
    }

    /// When the window ends.
    pub fn window_end(&self) -> DateTime<Utc> {
        self.window_end
    }

    /// Takes a throughput sampled at `at` into the baseline when it falls
    /// in the window.
    pub fn add(&mut self, at: DateTime<Utc>, value: f64) {
        if at < self.window_end && self.median.is_none() {
            self.samples.push(value);
        }
    }

    /// Once `now` is past the window, fixes the median and drops the samples.
    pub fn settle(&mut self, now: DateTime<Utc>) {
        if now >= self.window_end && self.median.is_none() {
            self.median = median(&mut self.samples);
            self.samples = Vec::new();
        }
    }

    /// The window's median, once settled (`None` before, or when no
    /// iteration finished in the window).
    pub fn median(&self) -> Option<f64> {
        self.median
    }
}

/// One interval judged against the baseline.
#[derive(Debug, Clone, PartialEq)]
pub struct Judgement {
    /// The interval's median (of the samples after the window) as a
    /// percentage of the baseline median.
    pub percent_of_baseline: f64,
    /// Whether it fell more than the allowed percentage below.
    pub degraded: bool,
    /// When degraded: the time of the interval's first sample beyond the
    /// allowed level (below it; above it for [`judge_above`]) (when the degradation began, to within one iteration).
    pub first_below: Option<DateTime<Utc>>,
}

/// Judges an interval's `(time, throughput)` samples against `baseline`
/// (a median) with `degrade_percent` allowed. Samples before `window_end`
/// are the baseline's own and are not judged. `None` when nothing is left
/// to judge or the baseline is not positive.
pub fn judge(
    baseline: f64,
    window_end: DateTime<Utc>,
    samples: &[(DateTime<Utc>, f64)],
    degrade_percent: f64,
) -> Option<Judgement> {
    judge_towards(baseline, window_end, samples, degrade_percent, false)
}

/// [`judge`] the other way: a figure that must not rise (power) is
/// degraded when its interval median is more than `degrade_percent` above
/// the baseline; `first_below` is then the first sample above that level.
pub fn judge_above(
    baseline: f64,
    window_end: DateTime<Utc>,
    samples: &[(DateTime<Utc>, f64)],
    degrade_percent: f64,
) -> Option<Judgement> {
    judge_towards(baseline, window_end, samples, degrade_percent, true)
}

fn judge_towards(
    baseline: f64,
    window_end: DateTime<Utc>,
    samples: &[(DateTime<Utc>, f64)],
    degrade_percent: f64,
    above: bool,
) -> Option<Judgement> {
    if baseline <= 0.0 || !baseline.is_finite() {
        return None;
    }
    let after: Vec<(DateTime<Utc>, f64)> = samples
        .iter()
        .copied()
        .filter(|(at, _)| *at >= window_end)
        .collect();
    let mut values: Vec<f64> = after.iter().map(|(_, v)| *v).collect();
    let m = median(&mut values)?;
    let (level, beyond): (f64, fn(f64, f64) -> bool) = if above {
        (baseline * (1.0 + degrade_percent / 100.0), |v, l| v > l)
    } else {
        (baseline * (1.0 - degrade_percent / 100.0), |v, l| v < l)
    };
    let degraded = beyond(m, level);
    Some(Judgement {
        percent_of_baseline: 100.0 * m / baseline,
        degraded,
        first_below: degraded
            .then(|| {
                after
                    .iter()
                    .find(|(_, v)| beyond(*v, level))
                    .map(|(at, _)| *at)
            })
            .flatten(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn t(s: i64) -> DateTime<Utc> {
        Utc.timestamp_opt(1_700_000_000 + s, 0).unwrap()
    }

    #[test]
    fn median_of_odd_and_even_counts() {
        assert_eq!(median(&mut []), None);
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&mut [4.0, 1.0, 3.0, 2.0]), Some(2.5));
    }

    #[test]
    fn the_baseline_takes_only_its_window_and_then_forgets_the_samples() {
        let mut b = Baseline::new(t(0), t(60));
        for (s, v) in [(10, 100.0), (20, 90.0), (30, 110.0), (70, 1.0)] {
            b.add(t(s), v);
        }
        b.settle(t(59));
        assert_eq!(b.median(), None, "not before the window ends");
        b.settle(t(60));
        assert_eq!(b.median(), Some(100.0));
        assert!(b.samples.is_empty() && b.samples.capacity() == 0);
        b.add(t(30), 5.0);
        assert_eq!(b.median(), Some(100.0));
    }

    #[test]
    fn a_median_more_than_the_allowance_below_is_degraded_from_its_first_low_sample() {
        let samples = [
            (t(100), 95.0),
            (t(110), 85.0),
            (t(120), 80.0),
            (t(130), 88.0),
        ];
        let j = judge(100.0, t(60), &samples, 10.0).unwrap();
        assert!(j.degraded);
        assert!((j.percent_of_baseline - 86.5).abs() < 1e-9);
        assert_eq!(j.first_below, Some(t(110)));
    }

    #[test]
    fn power_more_than_the_allowance_above_is_flagged_from_its_first_high_sample() {
        let samples = [(t(100), 105.0), (t(110), 130.0), (t(120), 125.0)];
        let j = judge_above(100.0, t(60), &samples, 10.0).unwrap();
        assert!(j.degraded);
        assert_eq!(j.percent_of_baseline, 125.0);
        assert_eq!(j.first_below, Some(t(110)));
        let within = [(t(100), 105.0), (t(110), 108.0)];
        assert!(!judge_above(100.0, t(60), &within, 10.0).unwrap().degraded);
    }

    #[test]
    fn within_the_allowance_is_not_degraded() {
        // Median 91 % of the baseline: within 10 %, although one sample is lower.
        let samples = [(t(100), 91.0), (t(110), 50.0), (t(120), 95.0)];
        let j = judge(100.0, t(60), &samples, 10.0).unwrap();
        assert!(!j.degraded);
        assert_eq!(j.first_below, None);
        assert_eq!(j.percent_of_baseline, 91.0);
    }

    #[test]
    fn samples_of_the_window_itself_are_not_judged() {
        let samples = [(t(10), 10.0), (t(20), 10.0)];
        assert_eq!(judge(100.0, t(60), &samples, 10.0), None);
        let mixed = [(t(10), 10.0), (t(70), 100.0)];
        assert!(!judge(100.0, t(60), &mixed, 10.0).unwrap().degraded);
        assert_eq!(judge(0.0, t(0), &mixed, 10.0), None);
    }
}
