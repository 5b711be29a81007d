//! A suite step's benchmark: runs the benchmark its parameters configure and
//! stamps every result with the step name and the repeat index.

use nodebench_core::bench::{BenchError, Benchmark, Context, ResultSink};
use nodebench_core::model::BenchResult;
use nodebench_core::names::suite::{REPEAT, STEP};

/// One run (one repeat) of a suite step.
pub struct SuiteStep {
    /// The step's name, stored as each result's [`STEP`] parameter.
    pub step: String,
    /// Which repeat this is (1-based), stored as [`REPEAT`].
    pub repeat: u64,
    /// `FILE:LINE` of the step, for a refused configuration's message.
    pub at: String,
    /// The benchmark the step configures.
    pub bench: Box<dyn Benchmark>,
}

/// Passes results on with the step's parameters added.
struct StepSink<'a> {
    step: &'a str,
    repeat: u64,
    inner: &'a mut dyn ResultSink,
}

impl ResultSink for StepSink<'_> {
    fn record(&mut self, mut result: BenchResult) -> Result<(), BenchError> {
        result.parameters.insert(STEP.into(), self.step.into());
        result.parameters.insert(REPEAT.into(), self.repeat.into());
        self.inner.record(result)
    }

    fn boundary(&mut self) {
        self.inner.boundary();
    }
}

impl Benchmark for SuiteStep {
    fn id(&self) -> &'static str {
        self.bench.id()
    }

    /// The benchmark's own check, its message prefixed with the step.
    fn validate(&self) -> Result<(), BenchError> {
        let at = |m: String| format!("{}: step '{}': {m}", self.at, self.step);
        match self.bench.validate() {
            Ok(()) => Ok(()),
            Err(BenchError::Invalid(m)) => Err(BenchError::Invalid(at(m))),
            Err(BenchError::System(m)) => Err(BenchError::System(at(m))),
            Err(e) => Err(e),
        }
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        let mut sink = StepSink {
            step: &self.step,
            repeat: self.repeat,
            inner: &mut *ctx.sink,
        };
        let mut inner = Context {
            cancel: ctx.cancel.clone(),
            progress: ctx.progress,
            inventory: ctx.inventory,
            sink: &mut sink,
        };
        self.bench.run(&mut inner)
    }
}
