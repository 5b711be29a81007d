//! The confidence interval of a ratio of two means: the delta method for
//! its standard error, Welch-Satterthwaite degrees of freedom, and the
//! Student t quantile from `statrs`.

use statrs::distribution::{ContinuousCDF, StudentsT};

use super::{Interval, SampleSource};

/// The summary of one side's samples of a metric.
#[derive(Debug, Clone, Copy)]
pub(super) struct Sample {
    /// Mean of the samples.
    pub mean: f64,
    /// Sample standard deviation (n - 1).
    pub stddev: f64,
    /// Number of samples.
    pub n: usize,
    /// Where they come from.
    pub source: SampleSource,
}

/// The `confidence` interval of `side.mean / base.mean`; `None` when the
/// baseline's mean is 0 or a side has fewer than two samples.
///
/// Var(a/b) ~ (s_a^2/n_a + r^2 s_b^2/n_b) / b^2 (delta method); the degrees
/// of freedom are Welch-Satterthwaite's over those two terms. Where neither
/// side has any spread the interval is the ratio itself.
pub(super) fn ratio_interval(base: &Sample, side: &Sample, confidence: f64) -> Option<Interval> {
    if base.mean == 0.0 || base.n < 2 || side.n < 2 {
        return None;
    }
    let r = side.mean / base.mean;
    let b2 = base.mean * base.mean;
    let w_side = side.stddev.powi(2) / side.n as f64 / b2;
    let w_base = r * r * base.stddev.powi(2) / base.n as f64 / b2;
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
    let t = StudentsT::new(0.0, 1.0, df)
        .ok()?
        .inverse_cdf(0.5 + confidence / 2.0);
    let half = t * var.sqrt();
    Some(Interval {
        low: r - half,
        high: r + half,
        degrees_of_freedom: Some(df),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(mean: f64, stddev: f64, n: usize) -> Sample {
        Sample {
            mean,
            stddev,
            n,
            source: SampleSource::Runs,
        }
    }

    #[test]
    fn equal_spread_gives_the_pooled_t_interval() {
        // Equal n and variances: df = 2(n-1) = 4, t(0.975, 4) = 2.776.
        let base = sample(100.0, 10.0, 3);
        let side = sample(100.0, 10.0, 3);
        let iv = ratio_interval(&base, &side, 0.95).unwrap();
        assert!((iv.degrees_of_freedom.unwrap() - 4.0).abs() < 1e-9);
        let se = (2.0 * 100.0 / 3.0_f64).sqrt() / 100.0;
        assert!((iv.high - 1.0 - 2.776_445 * se).abs() < 1e-5, "{iv:?}");
        assert!((1.0 - iv.low - 2.776_445 * se).abs() < 1e-5, "{iv:?}");
    }

    #[test]
    fn no_spread_is_the_ratio_and_zero_base_has_none() {
        let iv = ratio_interval(&sample(2.0, 0.0, 3), &sample(4.0, 0.0, 3), 0.95).unwrap();
        assert_eq!((iv.low, iv.high, iv.degrees_of_freedom), (2.0, 2.0, None));
        assert!(ratio_interval(&sample(0.0, 1.0, 3), &sample(4.0, 1.0, 3), 0.95).is_none());
    }
}
