//! [`Recorder`]: the life of one run in the store. It saves the run when it
//! starts, commits each result as the benchmark hands it over, and records
//! how the run ended; with no store (`--no-save`) it only collects. It
//! stores and nothing else: what the machine did during each result
//! (telemetry, bottleneck lines, disturbance, energy) is attached before it
//! gets here, by the runner's `machine::observe::Observer`.

use chrono::Utc;
use nodebench_core::bench::{BenchError, ResultSink};
use nodebench_core::threshold::Threshold;
use nodebench_core::{BenchResult, ResultStatus, Run, RunError, RunStatus, ThresholdVerdict};

use crate::{Store, StoreError};

/// Collects the results of one run and saves each one as it arrives.
pub struct Recorder {
    store: Option<Box<dyn Store>>,
    run: Run,
    keep_saved: bool,
    /// The first failed result recorded (kept when the results are not).
    failure: Option<RunError>,
}

impl Recorder {
    /// Saves `run` (as incomplete) to `store`, if any, and starts recording.
    pub fn begin(mut store: Option<Box<dyn Store>>, mut run: Run) -> Result<Recorder, StoreError> {
        run.status = RunStatus::Incomplete;
        if let Some(s) = store.as_mut() {
            run.id = Some(s.begin_run(&run)?);
        }
        Ok(Recorder {
            store,
            run,
            keep_saved: true,
            failure: None,
        })
    }

    /// Results committed to the store are not kept in memory from now on
    /// (a burn-in records for days: its memory must not grow with them).
    /// Without a store every result is still kept: it is the only copy.
    pub fn forget_saved_results(mut self) -> Recorder {
        self.keep_saved = false;
        self
    }

    /// Saves `verdicts` as the run's verdicts (a judgement made outside
    /// [`Recorder::judge`], e.g. the burn-in's) and keeps them.
    pub fn set_verdicts(&mut self, verdicts: Vec<ThresholdVerdict>) -> Result<(), StoreError> {
        if let (Some(s), Some(id)) = (self.store.as_mut(), self.run.id) {
            s.set_verdicts(id, &verdicts)?;
        }
        self.run.verdicts = verdicts;
        Ok(())
    }

    /// The run so far.
    pub fn run(&self) -> &Run {
        &self.run
    }

    /// Judges `thresholds` against the results so far and saves the
    /// verdicts with the run; returns them.
    pub fn judge(&mut self, thresholds: &[Threshold]) -> Result<&[ThresholdVerdict], StoreError> {
        let verdicts: Vec<ThresholdVerdict> = thresholds
            .iter()
            .map(|t| t.judge(&self.run.results))
            .collect();
        if let (Some(s), Some(id)) = (self.store.as_mut(), self.run.id) {
            s.set_verdicts(id, &verdicts)?;
        }
        self.run.verdicts = verdicts;
        Ok(&self.run.verdicts)
    }

    /// Records how the run ended and returns it whole. A run that would be
    /// `complete` but holds a failed result is `failed`; a failed run
    /// carries its first failed result as its [`Run::error`].
    pub fn finish(mut self, status: RunStatus) -> Result<Run, StoreError> {
        let status = match (status, &self.failure) {
            (RunStatus::Complete, Some(_)) => RunStatus::Failed,
            (s, _) => s,
        };
        self.run.error = self.failure.take();
        let ended = Utc::now();
        if let (Some(s), Some(id)) = (self.store.as_mut(), self.run.id) {
            s.finish_run(id, status, ended)?;
        }
        self.run.status = status;
        self.run.ended_at = Some(ended);
        Ok(self.run)
    }
}

impl ResultSink for Recorder {
    fn record(&mut self, mut result: BenchResult) -> Result<(), BenchError> {
        result.redact_text();
        if result.status == ResultStatus::Failed {
            // A result the benchmark marked failed failed in a measurement.
            let phase = result
                .error_phase
                .get_or_insert_with(|| nodebench_core::PHASE_MEASURE.to_string());
            if self.failure.is_none() {
                self.failure = Some(RunError {
                    benchmark: result.benchmark.clone(),
                    message: result.error.clone().unwrap_or_else(|| "failed".into()),
                    phase: Some(phase.clone()),
                });
            }
        }
        if let (Some(s), Some(id)) = (self.store.as_mut(), self.run.id) {
            s.add_result(id, &result)
                .map_err(|e| BenchError::Sink(e.to_string()))?;
            if !self.keep_saved {
                return Ok(());
            }
        }
        self.run.results.push(result);
        Ok(())
    }

    /// Nothing to mark: the runner's observer takes the boundaries.
    fn boundary(&mut self) {}
}
