//! The search for AS3AP's metric, the equivalent database size: "the
//! maximum size of the AS3AP database for which the system is able to
//! perform the designated AS3AP set of single and multiuser tests in under
//! 12 hours" (the paper, p. 2), with nodebench's `--time-limit` in place of
//! the 12 hours. A pure function of a trial (rows per table to how the
//! timed tests went): from the start size it doubles while the tests fit,
//! halves while they miss, then bisects between the largest size that fit
//! and the smallest that missed, within a bounded number of trials.

/// The search's resolution: bisection stops once the smallest size that
/// missed is within 1/8 (12.5 %) above the largest that fit.
pub const RESOLUTION: u64 = 8;

/// Bisected sizes are rounded to this many rows per table (400 kB of
/// logical database), so trial sizes read well.
pub const GRAIN: u64 = 1000;

/// Where the search may go and how many trials it may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// Rows per table of the first trial.
    pub start: u64,
    /// Fewest rows per table a trial may have.
    pub min: u64,
    /// Most rows per table a trial may have.
    pub max: u64,
    /// Most trials.
    pub steps: usize,
}

/// How one trial went.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// The timed tests finished within the limit.
    Fits,
    /// They took longer (the trial was stopped at the limit or finished
    /// after it).
    Misses,
    /// A test failed (an error, a wrong row count): the search stops.
    Failed(String),
    /// The run was interrupted: the search stops.
    Cancelled,
}

/// One trial: its size, how long its timed tests took, how it went.
#[derive(Debug, Clone, PartialEq)]
pub struct Trial {
    /// Rows per table.
    pub rows: u64,
    /// Seconds the timed tests took.
    pub seconds: f64,
    /// Within the limit or not.
    pub verdict: Verdict,
}

/// What the search found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Equivalent {
    /// This size fit and a size at most [`RESOLUTION`]th larger missed
    /// (or the steps ran out with both sides known): rows per table.
    Found(u64),
    /// Every size tried fit (the steps or [`Bounds::max`] ran out): the
    /// equivalent size is at least this.
    AtLeast(u64),
    /// No size tried fit: the smallest tried, rows per table.
    None(u64),
}

/// The trials in order and what they give.
#[derive(Debug, Clone, PartialEq)]
pub struct Search {
    /// Every trial run, in order.
    pub trials: Vec<Trial>,
    /// The equivalent size (`None` when the first trial failed or was
    /// interrupted before any size was judged).
    pub equivalent: Option<Equivalent>,
    /// Why the search stopped before it was done: a trial's failure or an
    /// interruption.
    pub stopped: Option<Verdict>,
}

/// `rows` rounded to the nearest [`GRAIN`], kept strictly between `lo` and
/// `hi` (the caller makes sure there is room: `hi - lo > 2 * GRAIN`).
fn between(lo: u64, hi: u64) -> u64 {
    let mid = lo + (hi - lo) / 2;
    let rounded = (mid + GRAIN / 2) / GRAIN * GRAIN;
    if rounded > lo && rounded < hi {
        rounded
    } else {
        mid
    }
}

/// The next size to try, or `None` when the search is done: up from the
/// largest size that fit, down from the smallest that missed, or between.
fn next(b: &Bounds, fit: Option<u64>, missed: Option<u64>) -> Option<u64> {
    match (fit, missed) {
        (Some(lo), None) => (lo < b.max).then(|| lo.saturating_mul(2).min(b.max)),
        (None, Some(hi)) => (hi > b.min).then(|| (hi / 2).max(b.min)),
        (Some(lo), Some(hi)) => {
            let close = hi - lo <= (lo / RESOLUTION).max(2 * GRAIN);
            (!close).then(|| between(lo, hi))
        }
        (None, None) => None,
    }
}

/// Runs trials from `b.start` (clamped to `min..=max`), at most `b.steps`,
/// and returns them with the equivalent size: the largest size that fit,
/// every larger size tried having missed. `trial` runs the timed tests at
/// a number of rows per table and says how long they took and whether they
/// fit; a failure or an interruption stops the search.
pub fn search(b: &Bounds, mut trial: impl FnMut(u64) -> (f64, Verdict)) -> Search {
    let mut trials = Vec::new();
    let mut fit: Option<u64> = None;
    let mut missed: Option<u64> = None;
    let mut stopped = None;
    let mut rows = b.start.clamp(b.min, b.max.max(b.min));
    while trials.len() < b.steps {
        let (seconds, verdict) = trial(rows);
        trials.push(Trial {
            rows,
            seconds,
            verdict: verdict.clone(),
        });
        match verdict {
            Verdict::Fits => fit = fit.max(Some(rows)),
            Verdict::Misses => missed = Some(missed.map_or(rows, |m| m.min(rows))),
            Verdict::Failed(_) | Verdict::Cancelled => {
                stopped = Some(verdict);
                break;
            }
        }
        match next(b, fit, missed) {
            Some(n) => rows = n,
            None => break,
        }
    }
    let equivalent = match (fit, missed) {
        (Some(lo), Some(_)) => Some(Equivalent::Found(lo)),
        (Some(lo), None) => Some(Equivalent::AtLeast(lo)),
        (None, Some(hi)) => Some(Equivalent::None(hi)),
        (None, None) => None,
    };
    Search {
        trials,
        equivalent,
        stopped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOUNDS: Bounds = Bounds {
        start: 10_000,
        min: 10_000,
        max: 500_000_000,
        steps: 12,
    };

    /// The rows per table of each trial, in order.
    fn sizes(s: &Search) -> Vec<u64> {
        s.trials.iter().map(|t| t.rows).collect()
    }

    /// A trial whose seconds grow linearly with the rows, judged against
    /// `limit`.
    fn linear(per_row: f64, limit: f64) -> impl FnMut(u64) -> (f64, Verdict) {
        move |rows| {
            let s = rows as f64 * per_row;
            let v = if s <= limit {
                Verdict::Fits
            } else {
                Verdict::Misses
            };
            (s.min(limit * 1.01), v)
        }
    }

    #[test]
    fn doubles_then_bisects_to_the_largest_size_that_fits() {
        // 1 µs per row, a 1 s limit: 1,000,000 rows fit, no more.
        let s = search(&BOUNDS, linear(1e-6, 1.0));
        let Some(Equivalent::Found(rows)) = s.equivalent else {
            panic!("{s:?}")
        };
        assert!(rows <= 1_000_000, "{rows} fits");
        assert!(
            rows as f64 >= 1_000_000.0 * (1.0 - 1.0 / RESOLUTION as f64) - 1.0,
            "{rows}"
        );
        let sizes = sizes(&s);
        assert_eq!(
            &sizes[..8],
            &[
                10_000, 20_000, 40_000, 80_000, 160_000, 320_000, 640_000, 1_280_000
            ]
        );
        assert!(s.trials.len() <= BOUNDS.steps);
        assert!(s.stopped.is_none());
        // Every larger size tried missed, every smaller one fit.
        for t in &s.trials {
            assert_eq!(t.verdict == Verdict::Fits, t.rows <= rows, "{t:?}");
        }
    }

    #[test]
    fn the_steps_bound_the_trials() {
        for steps in 1..=6 {
            let b = Bounds { steps, ..BOUNDS };
            let mut calls = 0;
            let s = search(&b, |rows| {
                calls += 1;
                linear(1e-6, 1.0)(rows)
            });
            assert_eq!((calls, s.trials.len()), (steps, steps));
            // Doubling from 10,000, everything tried up to 6 steps fits.
            assert_eq!(
                s.equivalent,
                Some(Equivalent::AtLeast(10_000 << (steps - 1)))
            );
        }
    }

    #[test]
    fn halves_from_a_start_that_misses() {
        let b = Bounds {
            start: 1_000_000,
            ..BOUNDS
        };
        let s = search(&b, linear(1e-6, 0.1));
        let sizes = sizes(&s);
        assert_eq!(&sizes[..5], &[1_000_000, 500_000, 250_000, 125_000, 62_500]);
        let Some(Equivalent::Found(rows)) = s.equivalent else {
            panic!("{s:?}")
        };
        assert!((87_500..=100_000).contains(&rows), "{rows}");
    }

    #[test]
    fn the_smallest_size_missing_says_none_not_zero() {
        let b = Bounds {
            start: 40_000,
            ..BOUNDS
        };
        // 10,000 rows take 2 s against a 1 s limit.
        let s = search(&b, linear(2e-4, 1.0));
        assert_eq!(s.equivalent, Some(Equivalent::None(10_000)));
        let sizes = sizes(&s);
        assert_eq!(sizes, [40_000, 20_000, 10_000], "stops at the smallest");
    }

    #[test]
    fn stops_at_the_largest_size() {
        let b = Bounds {
            start: 10_000,
            max: 50_000,
            ..BOUNDS
        };
        let s = search(&b, |_| (0.1, Verdict::Fits));
        let sizes = sizes(&s);
        assert_eq!(sizes, [10_000, 20_000, 40_000, 50_000]);
        assert_eq!(s.equivalent, Some(Equivalent::AtLeast(50_000)));
    }

    #[test]
    fn noisy_trials_never_report_a_size_above_one_that_missed() {
        // Not monotone: 40,000 misses (a noisy trial), 80,000 would fit.
        let s = search(&BOUNDS, |rows| {
            let v = if rows == 40_000 || rows > 2_000_000 {
                Verdict::Misses
            } else {
                Verdict::Fits
            };
            (1.0, v)
        });
        // The search never goes above a size that missed, so it settles
        // between 20,000 (fit) and 40,000 (missed).
        let Some(Equivalent::Found(rows)) = s.equivalent else {
            panic!("{s:?}")
        };
        assert!((20_000..40_000).contains(&rows), "{rows}");
        assert!(s.trials.iter().all(|t| t.rows <= 40_000), "{s:?}");
        let largest_fit = s
            .trials
            .iter()
            .filter(|t| t.verdict == Verdict::Fits)
            .map(|t| t.rows)
            .max();
        assert_eq!(largest_fit, Some(rows));
    }

    #[test]
    fn a_failure_or_an_interruption_stops_the_search() {
        let s = search(&BOUNDS, |rows| {
            if rows >= 40_000 {
                (0.5, Verdict::Failed("wrong row count".into()))
            } else {
                (0.5, Verdict::Fits)
            }
        });
        assert_eq!(s.trials.len(), 3);
        assert_eq!(s.stopped, Some(Verdict::Failed("wrong row count".into())));
        assert_eq!(s.equivalent, Some(Equivalent::AtLeast(20_000)));
        let s = search(&BOUNDS, |_| (0.1, Verdict::Cancelled));
        assert_eq!(s.trials.len(), 1);
        assert_eq!(s.stopped, Some(Verdict::Cancelled));
        assert_eq!(s.equivalent, None);
    }

    #[test]
    fn bisected_sizes_are_round_and_strictly_inside() {
        assert_eq!(between(10_000, 20_000), 15_000);
        assert_eq!(between(104_857, 209_714), 157_000);
        assert_eq!(between(10_000, 12_100), 11_000);
        assert_eq!(next(&BOUNDS, Some(100_000), Some(112_000)), None);
        assert_eq!(next(&BOUNDS, Some(10_000), Some(11_000)), None);
    }
}
