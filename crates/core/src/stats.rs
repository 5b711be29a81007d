//! Repeat statistics: warm-up then repeats, summarised as
//! n/min/median/mean/max/stddev and coefficient of variation, with the
//! warnings a careful benchmarker wants to see (noisy machine, coarse timer);
//! the 95 % interval of a median (the one `compare` sets two of against
//! each other) and the outliers among repeats, by both usual rules.

use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, StudentsT};

/// The median's standard error over the mean's, sqrt(pi / 2), for normal
/// samples.
pub const MEDIAN_SE_FACTOR: f64 = 1.253_314_137_315_500_3;

/// The squared standard error of ln(median) of `n` samples whose
/// coefficient of variation is `cv`: the delta method (se(ln X) ~ se(X) /
/// X) with the median's standard error taken as [`MEDIAN_SE_FACTOR`] times
/// the mean's.
pub fn median_log_variance(cv: f64, n: usize) -> f64 {
    (MEDIAN_SE_FACTOR * cv).powi(2) / n as f64
}

/// The Student t quantile of a two-sided `confidence` interval (0.95) with
/// `df` degrees of freedom; `None` for degrees of freedom statrs refuses.
pub fn t_quantile(df: f64, confidence: f64) -> Option<f64> {
    Some(
        StudentsT::new(0.0, 1.0, df)
            .ok()?
            .inverse_cdf(0.5 + confidence / 2.0),
    )
}

/// The outliers among repeated values, counted by both usual rules; they
/// are kept in every figure, never dropped.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Outliers {
    /// Values outside Tukey's fences, [Q1 - 1.5 IQR, Q3 + 1.5 IQR] (quartiles
    /// by linear interpolation between order statistics).
    pub iqr: usize,
    /// Values further from the median than 3 scaled MADs (the median
    /// absolute deviation x 1.4826, a normal sample's standard deviation).
    pub mad: usize,
}

impl Outliers {
    /// `1 outside 1.5 IQR, 0 beyond 3 MADs`.
    pub fn describe(&self) -> String {
        format!("{} outside 1.5 IQR, {} beyond 3 MADs", self.iqr, self.mad)
    }
}

/// The `q` quantile (0..=1) of `sorted` by linear interpolation between
/// order statistics (R's type 7, numpy's default).
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

/// The median of `sorted` (not empty).
fn median_sorted(sorted: &[f64]) -> f64 {
    quantile(sorted, 0.5)
}

/// The median of `values` (reordered in place); `None` when empty.
pub fn median(values: &mut [f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    Some(median_sorted(values))
}

/// The scale factor from the median absolute deviation to a normal
/// sample's standard deviation.
pub const MAD_SCALE: f64 = 1.4826;

/// The median of `values` and their median absolute deviation from it
/// (unscaled: times [`MAD_SCALE`] for a normal sample's standard
/// deviation); `None` for no values. `values` is reordered.
pub fn median_mad(values: &mut [f64]) -> Option<(f64, f64)> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(|a, b| a.total_cmp(b));
    let median = median_sorted(values);
    let mut deviations: Vec<f64> = values.iter().map(|v| (v - median).abs()).collect();
    deviations.sort_by(|a, b| a.total_cmp(b));
    Some((median, median_sorted(&deviations)))
}

/// Counts the outliers among `values` by both rules ([`Outliers`]); none
/// among fewer than 3 values.
pub fn outliers(values: &[f64]) -> Outliers {
    if values.len() < 3 {
        return Outliers::default();
    }
    let mut sorted = values.to_vec();
    let Some((median, mad)) = median_mad(&mut sorted) else {
        return Outliers::default();
    };
    let (q1, q3) = (quantile(&sorted, 0.25), quantile(&sorted, 0.75));
    let iqr = q3 - q1;
    let (low, high) = (q1 - 1.5 * iqr, q3 + 1.5 * iqr);
    let limit = 3.0 * MAD_SCALE * mad;
    Outliers {
        iqr: values.iter().filter(|v| **v < low || **v > high).count(),
        mad: values
            .iter()
            .filter(|v| (**v - median).abs() > limit)
            .count(),
    }
}

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
    /// Each repeat's value in the order they ran, for a figure measured by
    /// whole repeats of its benchmark (`--repeat`); empty for repeats
    /// inside one measurement (`--repeats`, `--ntimes`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<f64>,
    /// The outliers among `values`, counted (and kept in every figure).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outliers: Option<Outliers>,
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
            values: Vec::new(),
            outliers: None,
        })
    }

    /// Summarises the values of whole repeats, keeping each one and
    /// counting the outliers among them; `None` when there are none.
    pub fn of_repeats(values: &[f64]) -> Option<Stats> {
        let mut st = Stats::from_samples(values)?;
        st.values = values.to_vec();
        st.outliers = Some(outliers(values));
        Some(st)
    }

    /// The `confidence` (0.95) interval of the median, as `compare` takes
    /// each side's: on the log scale, median x exp(-+ t x se), se^2 =
    /// [`median_log_variance`], t with n - 1 degrees of freedom. `None`
    /// with fewer than 2 samples or a median that is not positive; the
    /// median itself when there is no spread.
    pub fn median_interval(&self, confidence: f64) -> Option<(f64, f64)> {
        if self.n < 2 || self.median.is_nan() || self.median <= 0.0 {
            return None;
        }
        let var = median_log_variance(self.cv, self.n);
        if var <= 0.0 || !var.is_finite() {
            return Some((self.median, self.median));
        }
        let half = t_quantile((self.n - 1) as f64, confidence)? * var.sqrt();
        Some((self.median * (-half).exp(), self.median * half.exp()))
    }

    /// Half the width of [`Stats::median_interval`] over the median: 0.02
    /// for an interval of +-2 %.
    pub fn relative_half_width(&self, confidence: f64) -> Option<f64> {
        let (low, high) = self.median_interval(confidence)?;
        Some((high - low) / 2.0 / self.median)
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
    fn the_median_interval_is_compares_one_side_interval() {
        // n = 3, CV 10 %: t(0.975, 2) = 4.302653, se = sqrt(pi/2) x 0.1 / sqrt(3).
        let s = Stats::from_samples(&[90.0, 100.0, 110.0]).unwrap();
        let se = MEDIAN_SE_FACTOR * s.cv / 3f64.sqrt();
        let (low, high) = s.median_interval(0.95).unwrap();
        assert!(
            (high - 100.0 * (4.302_653 * se).exp()).abs() < 1e-3,
            "{high}"
        );
        assert!(
            (low - 100.0 * (-4.302_653 * se).exp()).abs() < 1e-3,
            "{low}"
        );
        assert!(low > 0.0);
        let rel = s.relative_half_width(0.95).unwrap();
        assert!((rel - (high - low) / 200.0).abs() < 1e-12);
        // No spread: the median itself; one sample or a zero median: none.
        let flat = Stats::from_samples(&[5.0, 5.0, 5.0]).unwrap();
        assert_eq!(flat.relative_half_width(0.95), Some(0.0));
        assert!(
            Stats::from_samples(&[5.0])
                .unwrap()
                .median_interval(0.95)
                .is_none()
        );
        assert!(
            Stats::from_samples(&[0.0, 0.0])
                .unwrap()
                .median_interval(0.95)
                .is_none()
        );
    }

    #[test]
    fn outliers_are_counted_by_both_rules() {
        // Quartiles 10.15 and 10.8 (IQR 0.65): fences 9.175 and 11.775;
        // the median 10.3, MAD 0.2, 3 scaled MADs 0.88956: 11.2 is inside
        // the fences but beyond 3 MADs, 20 beyond both.
        let v = [10.0, 10.1, 10.2, 10.3, 10.4, 11.2, 20.0];
        let o = outliers(&v);
        assert_eq!(o, Outliers { iqr: 1, mad: 2 });
        assert_eq!(o.describe(), "1 outside 1.5 IQR, 2 beyond 3 MADs");
        assert_eq!(outliers(&[1.0, 2.0, 3.0, 4.0, 5.0]), Outliers::default());
        assert_eq!(outliers(&[1.0, 100.0]), Outliers::default());
        // Kept: the summary of repeats holds every value.
        let st = Stats::of_repeats(&v).unwrap();
        assert_eq!(st.values, v);
        assert_eq!((st.max, st.median), (20.0, 10.3));
        assert_eq!(st.outliers, Some(o));
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
