//! The contract every benchmark follows: it reads a typed config, runs under a
//! [`Context`] (cancellation, progress, the machine's inventory) and hands each
//! [`BenchResult`] to the context's sink as soon as it finishes, so the store
//! commits it before the next one starts.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use crate::inventory::Inventory;
use chrono::{DateTime, Utc};

use crate::model::{BenchResult, Phase};

pub use crate::error::BenchError;

/// A shared flag set by Ctrl-C / SIGTERM; benchmarks poll it between
/// measurements and stop early, keeping what finished.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    /// A flag that is not set.
    pub fn new() -> Self {
        Cancel::default()
    }

    /// Wraps an existing flag (e.g. one registered with a signal handler).
    pub fn from_flag(flag: Arc<AtomicBool>) -> Self {
        Cancel(flag)
    }

    /// The underlying flag, for registering with a signal handler.
    pub fn flag(&self) -> Arc<AtomicBool> {
        self.0.clone()
    }

    /// Asks every benchmark polling this flag to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    /// True once cancellation was asked for.
    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }
}

/// Progress reporting for long runs; the CLI draws it on stderr.
pub trait Progress: Send + Sync {
    /// A new phase of `total` steps named `what` begins.
    fn start(&self, what: &str, total: u64);
    /// `n` more steps are done.
    fn advance(&self, n: u64);
    /// The current phase ended.
    fn finish(&self);
}

/// Progress that shows nothing (`--quiet`, tests, stderr not a terminal).
#[derive(Debug, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&self, _what: &str, _total: u64) {}
    fn advance(&self, _n: u64) {}
    fn finish(&self) {}
}

/// Where finished results go: the store and the printed report.
pub trait ResultSink {
    /// Takes one finished result; an error stops the run.
    fn record(&mut self, result: BenchResult) -> Result<(), BenchError>;

    /// A phase of a result begins or ends now: telemetry ends its sampling
    /// interval here, so each phase's span has readings of its own. No
    /// default: a sink wrapping another must pass it on.
    fn boundary(&mut self);
}

impl ResultSink for Vec<BenchResult> {
    fn record(&mut self, result: BenchResult) -> Result<(), BenchError> {
        self.push(result);
        Ok(())
    }

    fn boundary(&mut self) {}
}

/// What a benchmark gets to run with.
pub struct Context<'a> {
    /// Stop early when set.
    pub cancel: Cancel,
    /// Progress display.
    pub progress: &'a dyn Progress,
    /// The machine (cache sizes, core count, ISA) the benchmark sizes itself by.
    pub inventory: &'a Inventory,
    /// Receives each result as it finishes.
    pub sink: &'a mut dyn ResultSink,
}

impl Context<'_> {
    /// Stamps `result`'s end time and hands it to the sink (the store commits
    /// it at once). Returns whether it passed, so a benchmark can stop after
    /// a failed or cancelled result: `if !ctx.record(result)? { break; }`.
    pub fn record(&mut self, mut result: BenchResult) -> Result<bool, BenchError> {
        result.ended_at = chrono::Utc::now();
        crate::orientation::settle(&mut result);
        if let Some(e) = &self.inventory.cpu.emulation {
            result.warnings.push(format!(
                "run under emulation ({e}): its timings are the emulator's and mean nothing for this machine"
            ));
        }
        let passed = result.status == crate::model::ResultStatus::Passed;
        self.sink.record(result)?;
        Ok(passed)
    }

    /// Begins a phase of `result` (one thread count, test or size): marks
    /// the boundary for telemetry and returns the start to hand to
    /// [`Context::end_phase`].
    pub fn begin_phase(&mut self) -> DateTime<Utc> {
        self.sink.boundary();
        Utc::now()
    }

    /// Ends the phase begun at `started`, recording its span on `result`
    /// under `labels` (those of the figures it produced).
    pub fn end_phase(
        &mut self,
        result: &mut BenchResult,
        started: DateTime<Utc>,
        labels: &[(&str, String)],
    ) {
        self.sink.boundary();
        let since = |t: DateTime<Utc>| {
            (t - result.started_at)
                .num_microseconds()
                .unwrap_or(0)
                .max(0) as f64
                / 1e6
        };
        let phase = Phase {
            labels: labels
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
            start_s: since(started),
            end_s: since(Utc::now()),
            bottleneck: None,
            disturbance: None,
        };
        result.phases.push(phase);
    }
}

/// One benchmark, configured and ready to run; suites are lists of these.
pub trait Benchmark {
    /// The benchmark id, `area.name` (`cpu.ops`).
    fn id(&self) -> &'static str;
    /// Checks the configuration once, before the store is opened or
    /// anything runs (see [`crate::config::Config::validate`]).
    fn validate(&self) -> Result<(), BenchError>;
    /// Runs it, recording each finished result into `ctx.sink`.
    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError>;
    /// How many times it runs as a whole when it says so itself (a suite
    /// step's `repeat`); `None` (the default): as `--repeat` says
    /// (the runner of repeats, `nodebench_core::repeat`).
    fn repeat(&self) -> Option<crate::repeat_mode::Mode> {
        None
    }
}

/// Runs `bench` with no progress display and returns its results, for tests
/// and for callers that keep results in memory instead of a store.
pub fn collect(
    bench: &dyn Benchmark,
    inventory: &Inventory,
    cancel: Cancel,
) -> Result<Vec<BenchResult>, BenchError> {
    let mut out: Vec<BenchResult> = Vec::new();
    let mut ctx = Context {
        cancel,
        progress: &NoProgress,
        inventory,
        sink: &mut out,
    };
    bench.run(&mut ctx)?;
    Ok(out)
}
