//! `db as3ap --time-limit`: the spec's metric. Each trial of the search
//! ([`crate::search`]) is a real run of the load and `--tests` at one size,
//! on a fresh database, stopped once it passes the limit; the run records
//! one `equivalent-size` result (the size, every trial, each phase's time
//! at that size) and then the results of the trial at that size, whose
//! single-user result is the paper's table of per-test elapsed times.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use nodebench_core::bench::{BenchError, Benchmark, Cancel, Context};
use nodebench_core::config::Choice;
use nodebench_core::names::db::{self as names, bound, label, metric, param, test};
use nodebench_core::{BenchResult, Better, Metric, ResultStatus, Unit};

use crate::config::Test;
use crate::config::{
    As3apConfig, MAX_ROWS, MAX_USERS, MIN_ROWS, PAPER_ROWS_PER_USER, ROW_BYTES, SCALED_TABLES,
};
use crate::search::{self, Bounds, Equivalent, Search, Verdict};

/// How often the watchdog looks at the clock and at Ctrl-C.
const POLL: Duration = Duration::from_millis(10);

/// The logical database size of `rows` per table, bytes.
fn bytes(rows: u64) -> u64 {
    rows * ROW_BYTES * SCALED_TABLES
}

/// Whether `c` times a multi-user test (its users then follow the size).
fn has_multi_user(c: &As3apConfig) -> bool {
    c.tests.iter().any(|&t| t != Test::Single)
}

/// The bounds of the search `c` asks for: from `--size`, between the
/// smallest database and the largest the data (and, with the paper's
/// users in a multi-user test, [`MAX_USERS`]) allows.
pub fn bounds(c: &As3apConfig) -> Bounds {
    let max = if c.users.is_none() && has_multi_user(c) {
        MAX_USERS as u64 * PAPER_ROWS_PER_USER
    } else {
        MAX_ROWS
    };
    Bounds {
        start: c.rows_per_table(),
        min: MIN_ROWS,
        max,
        steps: c.search_steps,
    }
}

/// The configuration of trial `n` (from 0) at `rows` per table: one run,
/// loading anew (after the first, whatever the trial before left is
/// dropped). Without multi-user tests the paper's users do not matter and
/// are kept within [`MAX_USERS`].
fn trial_config(c: &As3apConfig, rows: u64, n: usize) -> As3apConfig {
    let users = match c.users {
        None if !has_multi_user(c) => {
            Some(((rows / PAPER_ROWS_PER_USER) as usize).clamp(1, MAX_USERS))
        }
        u => u,
    };
    As3apConfig {
        size: bytes(rows),
        users,
        recreate: c.recreate || n > 0,
        time_limit: None,
        ..c.clone()
    }
}

/// One trial's run: its results, how long it took, whether the watchdog
/// stopped it at `limit`.
struct Run {
    results: Result<Vec<BenchResult>, BenchError>,
    elapsed: Duration,
    stopped: bool,
}

/// Runs `bench` with its results kept here, cancelled once `limit` has
/// passed or Ctrl-C came.
fn timed(bench: &dyn Benchmark, limit: Duration, ctx: &mut Context<'_>) -> Run {
    let child = Cancel::new();
    let parent = ctx.cancel.clone();
    let done = AtomicBool::new(false);
    let mut kept: Vec<BenchResult> = Vec::new();
    let start = Instant::now();
    let results = std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(Ordering::SeqCst) {
                if parent.is_cancelled() || start.elapsed() >= limit {
                    child.cancel();
                    return;
                }
                std::thread::sleep(POLL);
            }
        });
        let mut inner = Context {
            cancel: child.clone(),
            progress: ctx.progress,
            inventory: ctx.inventory,
            sink: &mut kept,
        };
        let r = bench.run(&mut inner);
        done.store(true, Ordering::SeqCst);
        r
    });
    Run {
        results: results.map(|()| kept),
        elapsed: start.elapsed(),
        stopped: child.is_cancelled(),
    }
}

/// How a finished trial went against `limit`.
fn verdict(run: &Run, results: &[BenchResult], limit: Duration, interrupted: bool) -> Verdict {
    if interrupted {
        return Verdict::Cancelled;
    }
    let failed = results.iter().find(|r| r.status == ResultStatus::Failed);
    if let Some(r) = failed {
        return Verdict::Failed(r.error.clone().unwrap_or_else(|| "failed".into()));
    }
    if run.stopped || run.elapsed > limit {
        Verdict::Misses
    } else {
        Verdict::Fits
    }
}

/// How a trial's benchmark is made from its configuration (`db.as3ap`
/// with the trial's size): given by the benchmark, so this module does
/// not use it back.
pub type Trial<'a> = &'a dyn Fn(As3apConfig) -> Box<dyn Benchmark>;

/// The search for `c`, recorded: the `equivalent-size` result, then the
/// trial at the equivalent size's results. A trial that cannot start
/// (existing tables, an unreachable server) is the run's error when it is
/// the first.
pub fn run(c: &As3apConfig, trial: Trial<'_>, ctx: &mut Context<'_>) -> Result<(), BenchError> {
    let limit = c.time_limit.ok_or_else(|| {
        BenchError::Invalid("the equivalent-size search needs --time-limit".into())
    })?;
    let mut summary = BenchResult::new(names::AS3AP);
    let start = Instant::now();
    // The largest trial that fit, with its results; the first results of
    // any trial (for the parameters they carry); a trial's error.
    let mut best: Option<(u64, Vec<BenchResult>)> = None;
    let mut params = None;
    let mut error: Option<BenchError> = None;
    let mut n = 0;
    let found = search::search(&bounds(c), |rows| {
        let run = timed(trial(trial_config(c, rows, n)).as_ref(), limit, ctx);
        n += 1;
        let seconds = run.elapsed.as_secs_f64();
        let results = match &run.results {
            Ok(r) => r,
            Err(e) => {
                let why = e.to_string();
                error = Some(e.clone());
                return (seconds, Verdict::Failed(why));
            }
        };
        if params.is_none() {
            params = results.first().map(|r| r.parameters.clone());
        }
        let v = verdict(&run, results, limit, ctx.cancel.is_cancelled());
        if v == Verdict::Fits && best.as_ref().is_none_or(|(b, _)| rows > *b) {
            best = run.results.ok().map(|r| (rows, r));
        }
        (seconds, v)
    });
    let search_seconds = start.elapsed();
    let Some(p) = params else {
        // No trial recorded anything: its error is the run's.
        return Err(error.unwrap_or_else(|| BenchError::System("no trial ran".into())));
    };
    if let Some(BenchError::Sink(m)) = error {
        return Err(BenchError::Sink(m));
    }
    summary.parameters = p;
    let rows = match found.equivalent {
        Some(Equivalent::Found(r) | Equivalent::AtLeast(r) | Equivalent::None(r)) => r,
        None => c.rows_per_table(),
    };
    describe(&mut summary, c, limit, rows, &found);
    summary
        .metrics
        .push(seconds(metric::SEARCH_SECONDS, search_seconds));
    let kept = best.map(|(_, r)| r).unwrap_or_default();
    for r in &kept {
        let phase = r.param(param::TEST).and_then(|v| v.as_str()).unwrap_or("");
        let took = (r.ended_at - r.started_at).num_microseconds().unwrap_or(0);
        summary.metrics.push(
            seconds(
                metric::TEST_SECONDS,
                Duration::from_micros(took.max(0) as u64),
            )
            .label(label::TEST, phase),
        );
    }
    ctx.record(summary)?;
    for mut r in kept {
        r.set_param(param::TIME_LIMIT, limit.as_secs_f64());
        // Already stamped and settled by the trial's context.
        ctx.sink.record(r)?;
    }
    Ok(())
}

/// The summary's parameters, its trials and what they give; its status.
fn describe(r: &mut BenchResult, c: &As3apConfig, limit: Duration, rows: u64, s: &Search) {
    let users = trial_config(c, rows, 0).users();
    r.set_param(param::TEST, test::EQUIVALENT_SIZE);
    r.set_param(param::SIZE, bytes(rows));
    r.set_param(param::ROWS_PER_TABLE, rows);
    r.set_param(param::USERS, users);
    r.set_param(param::REUSED, false);
    r.set_param(param::TIME_LIMIT, limit.as_secs_f64());
    r.set_param(param::SEARCH_STEPS, c.search_steps);
    let timed: Vec<&str> = std::iter::once(test::LOAD)
        .chain(c.tests.iter().map(|t| t.as_str()))
        .collect();
    r.set_param(param::TIMED_TESTS, &timed);
    for (i, t) in s.trials.iter().enumerate() {
        let at = |m: Metric| m.label(label::TRIAL, i + 1);
        r.metrics.push(at(Metric::new(
            metric::TRIAL_SIZE,
            bytes(t.rows) as f64,
            Unit::Bytes,
            Better::Higher,
        )));
        r.metrics
            .push(at(count(metric::TRIAL_ROWS_PER_TABLE, t.rows)));
        r.metrics.push(at(Metric::new(
            metric::TRIAL_SECONDS,
            t.seconds,
            Unit::Seconds,
            Better::Lower,
        )));
        let within = u64::from(t.verdict == Verdict::Fits);
        r.metrics
            .push(at(count(metric::TRIAL_WITHIN_LIMIT, within)));
    }
    let limit_text = format!("{:.0} s", limit.as_secs_f64());
    match s.equivalent {
        Some(Equivalent::Found(n) | Equivalent::AtLeast(n)) => {
            r.metrics.push(Metric::new(
                metric::EQUIVALENT_SIZE,
                bytes(n) as f64,
                Unit::Bytes,
                Better::Higher,
            ));
            r.metrics.push(count(metric::EQUIVALENT_ROWS_PER_TABLE, n));
            let exact = matches!(s.equivalent, Some(Equivalent::Found(_)));
            r.set_param(
                param::EQUIVALENT,
                if exact { bound::FOUND } else { bound::AT_LEAST },
            );
            if !exact {
                r.warnings.push(format!(
                    "every size tried finished within {limit_text}: the equivalent size is at least {} B; give more --search-steps or a larger --size to start from",
                    bytes(n)
                ));
            }
        }
        Some(Equivalent::None(n)) => {
            r.set_param(param::EQUIVALENT, bound::NONE);
            let took = s
                .trials
                .iter()
                .find(|t| t.rows == n)
                .map_or(0.0, |t| t.seconds);
            r.mark_failed(format!(
                "no equivalent size: the smallest database tried, {} B ({n} rows per table), took {took:.1} s, over the {limit_text} limit",
                bytes(n)
            ));
        }
        None => r.set_param(param::EQUIVALENT, bound::NONE),
    }
    match &s.stopped {
        Some(Verdict::Failed(why)) => {
            let i = s.trials.len();
            let size = s.trials.last().map_or(0, |t| bytes(t.rows));
            r.mark_failed(format!("trial {i} at {size} B: {why}"));
        }
        Some(Verdict::Cancelled) => r.mark_cancelled(),
        _ => {}
    }
}

fn seconds(name: &str, d: Duration) -> Metric {
    Metric::new(name, d.as_secs_f64(), Unit::Seconds, Better::Lower)
}

fn count(name: &str, v: u64) -> Metric {
    Metric::new(name, v as f64, Unit::Count, Better::Higher)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trials_load_anew_and_keep_the_paper_users_within_bounds() {
        let c = As3apConfig {
            time_limit: Some(Duration::from_secs(20)),
            tests: vec![Test::Single],
            ..As3apConfig::default()
        };
        let b = bounds(&c);
        assert_eq!((b.start, b.min, b.max), (104_857, MIN_ROWS, MAX_ROWS));
        let first = trial_config(&c, 20_000, 0);
        assert_eq!(first.size, 8_000_000);
        assert!(!first.recreate && first.time_limit.is_none());
        assert!(trial_config(&c, 20_000, 1).recreate);
        // Single-user only: the paper's users capped, so any size validates.
        let huge = trial_config(&c, MAX_ROWS, 1);
        assert_eq!(huge.users, Some(MAX_USERS));
        assert!(nodebench_core::config::Config::validate(&huge).is_ok());
        // With a multi-user test the users follow the size, up to MAX_USERS.
        let multi = As3apConfig {
            tests: vec![Test::Single, Test::Ir],
            ..c
        };
        assert_eq!(bounds(&multi).max, 10_240_000);
        assert_eq!(trial_config(&multi, 40_000, 0).users(), 4);
    }

    fn described(s: &Search) -> BenchResult {
        let c = As3apConfig {
            time_limit: Some(Duration::from_secs(10)),
            tests: vec![Test::Single],
            ..As3apConfig::default()
        };
        let mut r = BenchResult::new(names::AS3AP);
        describe(&mut r, &c, Duration::from_secs(10), 10_000, s);
        r
    }

    #[test]
    fn the_smallest_size_missing_fails_the_result_without_a_size() {
        let s = search::search(&bounds(&As3apConfig::default()), |_| {
            (12.5, Verdict::Misses)
        });
        let r = described(&s);
        assert_eq!(r.status, ResultStatus::Failed);
        assert_eq!(
            r.error.as_deref(),
            Some(
                "no equivalent size: the smallest database tried, 4000000 B (10000 rows per table), took 12.5 s, over the 10 s limit"
            )
        );
        assert!(r.metric(metric::EQUIVALENT_SIZE, &[]).is_none());
        assert!(r.metric(metric::EQUIVALENT_ROWS_PER_TABLE, &[]).is_none());
        assert_eq!(r.param(param::EQUIVALENT).unwrap(), bound::NONE);
        // 40 MiB halved down to 4 MB: each trial recorded, none within.
        let within: Vec<f64> = r
            .metrics_named(metric::TRIAL_WITHIN_LIMIT)
            .map(|m| m.value)
            .collect();
        assert_eq!(within, [0.0; 5]);
    }

    #[test]
    fn a_found_size_is_a_metric_in_bytes_and_rows() {
        let s = search::search(&bounds(&As3apConfig::default()), |rows| {
            let v = if rows <= 200_000 {
                Verdict::Fits
            } else {
                Verdict::Misses
            };
            (1.0, v)
        });
        let r = described(&s);
        assert_eq!(r.status, ResultStatus::Passed);
        let rows = r
            .metric(metric::EQUIVALENT_ROWS_PER_TABLE, &[])
            .unwrap()
            .value;
        assert!((175_000.0..=200_000.0).contains(&rows), "{rows}");
        let size = r.metric(metric::EQUIVALENT_SIZE, &[]).unwrap();
        assert_eq!((size.value, size.unit), (rows * 400.0, Unit::Bytes));
        assert_eq!(r.param(param::EQUIVALENT).unwrap(), bound::FOUND);
        assert!(r.warnings.is_empty());
    }
}
