//! A suite step's benchmark: runs the benchmark its parameters configure and
//! stamps every result with the step name; its `repeat` goes to the runner,
//! which repeats it as `--repeat` would.

use nodebench_core::bench::{BenchError, Benchmark, Context, ResultSink};
use nodebench_core::model::BenchResult;
use nodebench_core::names::suite::STEP;
use nodebench_core::repeat::Mode;

/// A suite step.
pub struct SuiteStep {
    /// The step's name, stored as each result's [`STEP`] parameter.
    pub step: String,
    /// The step's own `repeat`, if it has one.
    pub repeat: Option<Mode>,
    /// `FILE:LINE` of the step, for a refused configuration's message.
    pub at: String,
    /// The benchmark the step configures.
    pub bench: Box<dyn Benchmark>,
}

/// Passes results on with the step's name added.
struct StepSink<'a> {
    step: &'a str,
    inner: &'a mut dyn ResultSink,
}

impl ResultSink for StepSink<'_> {
    fn record(&mut self, mut result: BenchResult) -> Result<(), BenchError> {
        result.parameters.insert(STEP.into(), self.step.into());
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

    fn repeat(&self) -> Option<Mode> {
        self.repeat
    }
}
