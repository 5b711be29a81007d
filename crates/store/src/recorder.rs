//! [`Recorder`]: the life of one run in the store. It saves the run when it
//! starts, commits each result as the benchmark hands it over, and records
//! how the run ended; with no store (`--no-save`) it only collects. With a
//! telemetry sampler it attaches to each result, before saving it, the
//! telemetry series of the result's own time span, then the line naming
//! what limited it (`machine::bottleneck`). With a disturbance watch
//! (`machine::disturb::Watch`, started by the runner) it marks every phase
//! boundary and has the watch attach to each result what disturbed it.
//! With an energy watch (`machine::energy::Watch`) it reads the power
//! sources at the same boundaries and has each result carry its joules,
//! watts and work per joule.

use chrono::Utc;
use nodebench_core::bench::{BenchError, ResultSink};
use nodebench_core::threshold::Threshold;
use nodebench_core::{BenchResult, ResultStatus, Run, RunError, RunStatus, ThresholdVerdict};
use nodebench_machine::bottleneck;
use nodebench_machine::disturb::Watch;
use nodebench_machine::energy;
use nodebench_machine::telemetry::Sampler;

use crate::{Store, StoreError};

/// Collects the results of one run and saves each one as it arrives.
pub struct Recorder {
    store: Option<Box<dyn Store>>,
    run: Run,
    telemetry: Option<Sampler>,
    watch: Option<Watch>,
    energy: Option<energy::Watch>,
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
            telemetry: None,
            watch: None,
            energy: None,
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

    /// Attaches `sampler`'s series of `[started_at, ended_at]` to every
    /// result recorded from now on (labelled `source=telemetry`).
    pub fn with_telemetry(mut self, sampler: Sampler) -> Recorder {
        self.telemetry = Some(sampler);
        self
    }

    /// Has `watch` attach to every result recorded from now on what
    /// disturbed it, marking each phase boundary.
    pub fn with_watch(mut self, watch: Watch) -> Recorder {
        self.watch = Some(watch);
        self
    }

    /// Has `watch` add to every result recorded from now on the energy
    /// its power sources counted, reading them at each phase boundary.
    pub fn with_energy(mut self, watch: energy::Watch) -> Recorder {
        self.energy = Some(watch);
        self
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
        // The energy first: its end is read closest to the result's.
        if let Some(energy) = &mut self.energy {
            energy.finish(&mut result);
        }
        if let Some(watch) = &mut self.watch {
            watch.finish(&mut result);
        }
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
        if let Some(sampler) = &self.telemetry {
            sampler.sample_now();
            result
                .series
                .extend(sampler.window(result.started_at, result.ended_at));
            bottleneck::attribute_all(&mut result, &self.run.results, self.run.inventory.as_ref());
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

    fn boundary(&mut self) {
        if let Some(energy) = &mut self.energy {
            energy.mark();
        }
        if let Some(watch) = &mut self.watch {
            watch.mark();
        }
        if let Some(sampler) = &self.telemetry {
            sampler.sample_now();
        }
    }
}
