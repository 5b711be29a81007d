//! The repeat loop: runs a benchmark as a whole, again and again, collects
//! each repeat's results, and records the merged results when
//! [`decide`](super::decide) says stop.

use std::time::{Duration, Instant};

use super::{CONFIDENCE, Mode, Outcome, PARAM, RepeatConfig, Stop, decide, merge};
use crate::bench::{BenchError, Benchmark, Context, ResultSink};
use crate::model::{BenchResult, ResultStatus};

/// Collects one repeat's results; phase boundaries go on to the real sink
/// (telemetry ends its sampling interval there).
struct Collect<'a> {
    results: Vec<BenchResult>,
    inner: &'a mut dyn ResultSink,
}

impl ResultSink for Collect<'_> {
    fn record(&mut self, result: BenchResult) -> Result<(), BenchError> {
        self.results.push(result);
        Ok(())
    }

    fn boundary(&mut self) {
        self.inner.boundary();
    }
}

/// The relative half-width of the 95 % interval of `result`'s headline
/// figure's median, with the figure's key; `None` without a headline, or
/// with one of fewer than 2 repeats or not positive.
pub fn headline_ci(result: &BenchResult) -> Option<(String, f64)> {
    let m = crate::registry::headline::of(result)?;
    let ci = m.stats.as_ref()?.relative_half_width(CONFIDENCE)?;
    Some((m.key(), ci))
}

/// The widest headline interval of `results` (those with one).
fn widest(results: &[BenchResult]) -> Option<f64> {
    results
        .iter()
        .filter_map(|r| headline_ci(r).map(|(_, ci)| ci))
        .max_by(f64::total_cmp)
}

/// Runs `bench` as `cfg` says into `ctx`: once as it is for `--repeat 1`;
/// otherwise whole repeats merged ([`merge`]), each merged result carrying
/// its [`Outcome`] as the [`PARAM`] parameter. A repeat that fails or is
/// interrupted ends the repeats; what ran is recorded, and its error
/// returned.
pub fn run(
    bench: &dyn Benchmark,
    cfg: &RepeatConfig,
    ctx: &mut Context<'_>,
) -> Result<(), BenchError> {
    let start = Instant::now();
    run_timed(bench, cfg, ctx, &mut || start.elapsed())
}

/// [`run`] with the time since the first repeat began read from `elapsed`.
pub(super) fn run_timed(
    bench: &dyn Benchmark,
    cfg: &RepeatConfig,
    ctx: &mut Context<'_>,
    elapsed: &mut dyn FnMut() -> Duration,
) -> Result<(), BenchError> {
    if cfg.mode == Mode::Times(1) {
        return bench.run(ctx);
    }
    let mut repeats: Vec<Vec<BenchResult>> = Vec::new();
    let mut error = None;
    let stop = loop {
        let mut sink = Collect {
            results: Vec::new(),
            inner: &mut *ctx.sink,
        };
        let ran = {
            let mut inner = Context {
                cancel: ctx.cancel.clone(),
                progress: ctx.progress,
                inventory: ctx.inventory,
                sink: &mut sink,
            };
            bench.run(&mut inner)
        };
        let results = sink.results;
        let whole = results.iter().all(|r| r.status == ResultStatus::Passed);
        repeats.push(results);
        if let Err(e) = ran {
            error = Some(e);
            break Stop::Stopped;
        }
        if !whole || ctx.cancel.is_cancelled() {
            break Stop::Stopped;
        }
        let merged = merge(&repeats);
        if let Some(stop) = decide(cfg, repeats.len() as u32, elapsed(), widest(&merged)) {
            break stop;
        }
    };
    let auto = cfg.mode == Mode::Auto;
    for mut result in merge(&repeats) {
        let headline = crate::registry::headline::of(&result);
        let outcome = Outcome {
            asked: cfg.mode.to_string(),
            repeats: repeats.len() as u32,
            stop,
            headline: headline.map(|m| m.key()),
            ci: headline_ci(&result).map(|(_, ci)| ci),
            target_ci: auto.then_some(cfg.target_ci),
            max_repeats: auto.then_some(cfg.max_repeats),
            max_time_s: auto.then_some(cfg.max_time.as_secs_f64()),
            outliers: headline.and_then(|m| m.stats.as_ref()?.outliers),
        };
        result.set_param(PARAM, &outcome);
        ctx.sink.record(result)?;
    }
    match error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
