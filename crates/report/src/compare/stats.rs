//! The confidence interval of a ratio of two medians, on the log scale so
//! that it never leaves (0, inf): ln(b/a) = ln b - ln a, each term's
//! standard error from its side's coefficient of variation (the delta
//! method: se(ln X) ~ se(X) / X), the median's standard error taken as
//! sqrt(pi/2) times the mean's (its large-sample ratio for normal data),
//! Welch-Satterthwaite degrees of freedom over the two terms, and the
//! Student t quantile from `statrs`; the bounds are the ratio times
//! exp(-+ t se). Each side's term and the quantile are core's
//! (`nodebench_core::stats`), the same that `--repeat auto` stops on.

use nodebench_core::stats::{median_log_variance, t_quantile};

use super::{Interval, SampleSource};

/// The summary of one side's samples of a metric.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Sample {
    /// The median of the samples: the figure compared, the same one `runs
    /// show` and the report print.
    pub median: f64,
    /// Mean of the samples (for the coefficient of variation).
    pub mean: f64,
    /// Sample standard deviation (n - 1).
    pub stddev: f64,
    /// Number of samples.
    pub n: usize,
    /// Where they come from.
    pub source: SampleSource,
}

impl Sample {
    /// The squared standard error of ln(median).
    fn log_variance(&self) -> f64 {
        let cv = if self.mean != 0.0 {
            self.stddev / self.mean.abs()
        } else {
            0.0
        };
        median_log_variance(cv, self.n)
    }
}

/// The `confidence` interval of `side.median / base.median`; `None` when a
/// median is not positive (no log) or a side has fewer than two samples.
/// Where neither side has any spread the interval is the ratio itself.
pub(super) fn ratio_interval(base: &Sample, side: &Sample, confidence: f64) -> Option<Interval> {
    if !(base.median > 0.0 && side.median > 0.0) || base.n < 2 || side.n < 2 {
        return None;
    }
    let r = side.median / base.median;
    let (w_side, w_base) = (side.log_variance(), base.log_variance());
    let var = w_side + w_base;
    if var <= 0.0 || !var.is_finite() {
        return Some(Interval {
            low: r,
            high: r,
            degrees_of_freedom: None,
        });
    }
    let df =
        var * var / (w_side * w_side / (side.n - 1) as f64 + w_base * w_base / (base.n - 1) as f64);
    let t = t_quantile(df, confidence)?;
    let half = t * var.sqrt();
    Some(Interval {
        low: r * (-half).exp(),
        high: r * half.exp(),
        degrees_of_freedom: Some(df),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::stats::MEDIAN_SE_FACTOR;

    fn sample(median: f64, stddev: f64, n: usize) -> Sample {
        Sample {
            median,
            mean: median,
            stddev,
            n,
            source: SampleSource::Runs,
        }
    }

    #[test]
    fn equal_spread_gives_the_pooled_t_interval_on_the_log_scale() {
        // Equal n and CVs: df = 2(n-1) = 4, t(0.975, 4) = 2.776.
        let base = sample(100.0, 10.0, 3);
        let side = sample(100.0, 10.0, 3);
        let iv = ratio_interval(&base, &side, 0.95).unwrap();
        assert!((iv.degrees_of_freedom.unwrap() - 4.0).abs() < 1e-9);
        let se = MEDIAN_SE_FACTOR * 0.1 * (2.0 / 3.0_f64).sqrt();
        assert!((iv.high - (2.776_445 * se).exp()).abs() < 1e-5, "{iv:?}");
        assert!((iv.low - (-2.776_445 * se).exp()).abs() < 1e-5, "{iv:?}");
        // Symmetric in ratio: low x high = 1.
        assert!((iv.low * iv.high - 1.0).abs() < 1e-12);
    }

    #[test]
    fn a_wide_spread_never_takes_the_interval_below_zero() {
        // The samples that gave -62.2..323.7 % as a difference of means: a
        // CV near 100 % on three samples.
        let base = sample(10.0, 9.0, 3);
        let side = sample(13.0, 14.0, 3);
        let iv = ratio_interval(&base, &side, 0.95).unwrap();
        assert!(iv.low > 0.0 && iv.high.is_finite(), "{iv:?}");
        assert!(iv.low < 1.3 && iv.high > 1.3, "{iv:?}");
    }

    #[test]
    fn no_spread_is_the_ratio_and_zero_base_has_none() {
        let iv = ratio_interval(&sample(2.0, 0.0, 3), &sample(4.0, 0.0, 3), 0.95).unwrap();
        assert_eq!((iv.low, iv.high, iv.degrees_of_freedom), (2.0, 2.0, None));
        assert!(ratio_interval(&sample(0.0, 1.0, 3), &sample(4.0, 1.0, 3), 0.95).is_none());
    }
}
