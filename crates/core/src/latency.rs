//! The one latency histogram every area records into: an HdrHistogram in
//! nanoseconds from 1 ns to one hour with 3 significant digits (the bounds
//! wrk and HdrHistogram's own tools use), so histograms from different
//! benchmarks merge and compare.

use std::time::Duration;

use hdrhistogram::Histogram;

/// Highest latency a histogram keeps exactly (one hour, in ns); longer ones
/// are recorded as this value.
pub const MAX_LATENCY_NS: u64 = 3_600_000_000_000;

/// Significant decimal digits kept by every latency histogram.
pub const SIGFIGS: u8 = 3;

/// A new, empty latency histogram in nanoseconds, 1 ns to one hour, 3 digits.
pub fn histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_LATENCY_NS, SIGFIGS)
        .unwrap_or_else(|_| Histogram::new(SIGFIGS).expect("3 significant digits is valid"))
}

/// Records `d` into `h`, clamped to 1 ns .. [`MAX_LATENCY_NS`].
#[inline]
pub fn record(h: &mut Histogram<u64>, d: Duration) {
    record_ns(h, d.as_nanos().min(MAX_LATENCY_NS as u128) as u64);
}

/// Records `ns` nanoseconds into `h`, clamped to 1 ns .. [`MAX_LATENCY_NS`].
#[inline]
pub fn record_ns(h: &mut Histogram<u64>, ns: u64) {
    h.saturating_record(ns.clamp(1, MAX_LATENCY_NS));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clamps_to_the_bounds() {
        let mut h = histogram();
        record(&mut h, Duration::ZERO);
        record(&mut h, Duration::from_secs(7200));
        assert_eq!(h.len(), 2);
        assert_eq!(h.min(), 1);
        assert!(h.max() >= MAX_LATENCY_NS && h.max() <= MAX_LATENCY_NS / 1000 * 1001);
    }

    #[test]
    fn keeps_three_digits() {
        let mut h = histogram();
        record_ns(&mut h, 123_456_789);
        let v = h.value_at_quantile(0.5);
        assert!((v as f64 / 123_456_789.0 - 1.0).abs() < 1e-3, "{v}");
    }
}
