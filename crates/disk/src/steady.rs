//! Steady state as the SNIA Solid State Storage Performance Test
//! Specification (PTS) defines it: after preconditioning, a test runs in
//! rounds; it is steady once, over a measurement window of the last
//! [`WINDOW`] rounds, the range of the tracked IOPS (max - min) is within
//! [`MAX_RANGE`] of their mean and the excursion of their least-squares line
//! across the window (slope x (rounds - 1)) within [`MAX_EXCURSION`] of the
//! mean. A run tracks several cells (one per test or operation and block
//! size); it is steady when every cell is. Pure: the rounds themselves are
//! the caller's closure.

use nodebench_core::bench::BenchError;

/// Rounds in the measurement window.
pub const WINDOW: usize = 5;
/// Largest range of the window's IOPS, as a share of their mean.
pub const MAX_RANGE: f64 = 0.20;
/// Largest excursion of the window's fitted line, as a share of the mean.
pub const MAX_EXCURSION: f64 = 0.10;
/// Rounds run at most when `--max-rounds` is not given (the PTS's 25).
pub const DEFAULT_MAX_ROUNDS: usize = 25;

/// Checks `--max-rounds`: a run needs at least a window of rounds.
pub fn check_max_rounds(max_rounds: usize) -> Result<(), BenchError> {
    if max_rounds < WINDOW {
        return Err(BenchError::Invalid(format!(
            "--max-rounds: expected at least {WINDOW} (the steady-state window), got {max_rounds}"
        )));
    }
    Ok(())
}

/// One cell's measurement window, judged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindowCheck {
    /// Mean IOPS over the window.
    pub mean: f64,
    /// (max - min) / mean.
    pub range: f64,
    /// |slope| x (WINDOW - 1) / mean, the slope fitted by least squares
    /// over the rounds' indexes.
    pub excursion: f64,
}

impl WindowCheck {
    /// Whether both limits hold (never for a mean of zero or less).
    pub fn steady(&self) -> bool {
        self.mean > 0.0 && self.range <= MAX_RANGE && self.excursion <= MAX_EXCURSION
    }

    /// How far past its limits the window is: the larger of range / limit
    /// and excursion / limit (at most 1 when steady).
    fn badness(&self) -> f64 {
        if self.mean > 0.0 {
            (self.range / MAX_RANGE).max(self.excursion / MAX_EXCURSION)
        } else {
            f64::INFINITY
        }
    }

    /// "range 12.3 %, excursion 4.5 % of the mean 10234 IOPS".
    pub fn describe(&self) -> String {
        format!(
            "IOPS range {:.1} % (limit {:.0} %), fitted-line excursion {:.1} % (limit {:.0} %) of the mean {:.0} IOPS",
            self.range * 100.0,
            MAX_RANGE * 100.0,
            self.excursion * 100.0,
            MAX_EXCURSION * 100.0,
            self.mean
        )
    }
}

/// The last [`WINDOW`] values of `iops`, judged; `None` with fewer.
pub fn check_window(iops: &[f64]) -> Option<WindowCheck> {
    if iops.len() < WINDOW {
        return None;
    }
    let w = &iops[iops.len() - WINDOW..];
    let n = w.len() as f64;
    let mean = w.iter().sum::<f64>() / n;
    let max = w.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let min = w.iter().copied().fold(f64::INFINITY, f64::min);
    let x_mean = (n - 1.0) / 2.0;
    let (mut sxy, mut sxx) = (0.0, 0.0);
    for (i, &y) in w.iter().enumerate() {
        let dx = i as f64 - x_mean;
        sxy += dx * (y - mean);
        sxx += dx * dx;
    }
    let slope = sxy / sxx;
    let (range, excursion) = if mean > 0.0 {
        ((max - min) / mean, slope.abs() * (n - 1.0) / mean)
    } else {
        (f64::INFINITY, f64::INFINITY)
    };
    Some(WindowCheck {
        mean,
        range,
        excursion,
    })
}

/// How a run of rounds ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// Rounds run.
    pub rounds: usize,
    /// The round (1-based) at which every cell was steady, if one was.
    pub steady_at: Option<usize>,
    /// The cell furthest from steady in the last window (its index in the
    /// rounds' IOPS lists) and its check; `None` before a full window.
    pub worst: Option<(usize, WindowCheck)>,
    /// True when a round said it was cancelled.
    pub cancelled: bool,
}

impl Verdict {
    /// Whether steady state was reached.
    pub fn reached(&self) -> bool {
        self.steady_at.is_some()
    }
}

/// Runs `round(n)` for n = 1, 2, ... until every cell is steady over the
/// last [`WINDOW`] rounds or `max_rounds` have run. Each round returns the
/// IOPS of every tracked cell, in the same order each time, or `None` when
/// it was cancelled (the run stops there); an error stops the run.
pub fn run_rounds(
    max_rounds: usize,
    mut round: impl FnMut(usize) -> Result<Option<Vec<f64>>, BenchError>,
) -> Result<Verdict, BenchError> {
    let mut series: Vec<Vec<f64>> = Vec::new();
    let mut verdict = Verdict {
        rounds: 0,
        steady_at: None,
        worst: None,
        cancelled: false,
    };
    for n in 1..=max_rounds {
        let Some(iops) = round(n)? else {
            verdict.cancelled = true;
            break;
        };
        verdict.rounds = n;
        if series.is_empty() {
            series = vec![Vec::new(); iops.len()];
        }
        if iops.len() != series.len() {
            return Err(BenchError::System(format!(
                "steady state: round {n} measured {} cells, earlier rounds {}",
                iops.len(),
                series.len()
            )));
        }
        for (s, v) in series.iter_mut().zip(iops) {
            s.push(v);
        }
        let checks: Vec<Option<WindowCheck>> = series.iter().map(|s| check_window(s)).collect();
        verdict.worst = checks
            .iter()
            .enumerate()
            .filter_map(|(i, c)| c.map(|c| (i, c)))
            .max_by(|a, b| a.1.badness().total_cmp(&b.1.badness()));
        if !checks.is_empty() && checks.iter().all(|c| c.is_some_and(|c| c.steady())) {
            verdict.steady_at = Some(n);
            break;
        }
    }
    Ok(verdict)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flat_window_is_steady_and_its_figures_are_exact() {
        let c = check_window(&[50.0, 1000.0, 990.0, 1010.0, 1000.0, 1000.0]).unwrap();
        assert_eq!(c.mean, 1000.0);
        assert!((c.range - 0.02).abs() < 1e-12, "{c:?}");
        // Window 1000, 990, 1010, 1000, 1000; x centred -2..2; deviations
        // 0, -10, 10, 0, 0: sxy = 10, sxx = 10, slope 1, excursion 4 / 1000.
        assert!((c.excursion - 1.0 * 4.0 / 1000.0).abs() < 1e-12, "{c:?}");
        assert!(c.steady());
        assert!(check_window(&[1.0, 1.0, 1.0, 1.0]).is_none());
    }

    #[test]
    fn a_wide_range_or_a_trend_is_not_steady() {
        // Range 25 % of the mean, no trend.
        let wide = check_window(&[1000.0, 1125.0, 875.0, 1125.0, 875.0]).unwrap();
        assert!((wide.range - 0.25).abs() < 1e-12, "{wide:?}");
        assert!(!wide.steady());
        // Rising 3 % a round: range 12 % (within 20 %), but the fitted line
        // climbs 12 % across the window (over 10 %).
        let rising = check_window(&[940.0, 970.0, 1000.0, 1030.0, 1060.0]).unwrap();
        assert!((rising.range - 0.12).abs() < 1e-12, "{rising:?}");
        assert!((rising.excursion - 0.12).abs() < 1e-12, "{rising:?}");
        assert!(!rising.steady());
        assert!(!check_window(&[0.0; 5]).unwrap().steady());
    }

    #[test]
    fn rounds_stop_at_the_first_steady_window() {
        // A fresh drive: fast at first, then settles at 1000 IOPS.
        let trace = [5000.0, 3000.0, 1500.0, 1010.0, 995.0, 1000.0, 1005.0, 998.0];
        let mut seen = Vec::new();
        let v = run_rounds(25, |n| {
            seen.push(n);
            Ok(Some(vec![trace[n - 1], 42.0]))
        })
        .unwrap();
        // Rounds 4-8 are the first window within both limits.
        assert_eq!(v.steady_at, Some(8));
        assert_eq!(v.rounds, 8);
        assert_eq!(seen, (1..=8).collect::<Vec<_>>());
        assert!(v.reached() && !v.cancelled);
        assert!(v.worst.unwrap().1.steady());
    }

    #[test]
    fn rounds_end_at_max_rounds_when_one_cell_never_settles() {
        let v = run_rounds(12, |n| {
            Ok(Some(vec![1000.0, 1000.0 * 1.1f64.powi(n as i32)]))
        })
        .unwrap();
        assert_eq!(v.rounds, 12);
        assert_eq!(v.steady_at, None);
        let (cell, check) = v.worst.unwrap();
        assert_eq!(cell, 1, "the growing cell is named");
        assert!(!check.steady());
        // Fewer rounds than a window can never be steady.
        let v = run_rounds(4, |_| Ok(Some(vec![1000.0]))).unwrap();
        assert_eq!((v.rounds, v.steady_at, v.worst), (4, None, None));
    }

    #[test]
    fn a_cancelled_or_failed_round_stops_the_run() {
        let v = run_rounds(25, |n| Ok((n < 3).then(|| vec![1.0]))).unwrap();
        assert_eq!((v.rounds, v.cancelled, v.steady_at), (2, true, None));
        let e = run_rounds(25, |n| {
            if n == 2 {
                Err(BenchError::System("disk gone".to_string()))
            } else {
                Ok(Some(vec![1.0]))
            }
        })
        .unwrap_err();
        assert_eq!(e.to_string(), "disk gone");
    }
}
