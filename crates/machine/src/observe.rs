//! Observation: what the machine did while each result ran. The runner
//! drives one [`Observer`] beside the store's recorder: at every phase
//! boundary it marks the energy and disturbance watches and takes a
//! telemetry sample; for every result, before the recorder stores it, it
//! attaches the result's energy (joules, watts, work per joule), what
//! disturbed it, the telemetry series of its own span and the line naming
//! what limited it. The recorder only stores.

use nodebench_core::BenchResult;
use nodebench_core::inventory::Inventory;

use crate::bottleneck;
use crate::disturb::Watch;
use crate::energy;
use crate::telemetry::Sampler;

/// The watches and the sampler one run is observed with; each is optional
/// (`--no-telemetry` runs without the sampler).
#[derive(Default)]
pub struct Observer {
    telemetry: Option<Sampler>,
    watch: Option<Watch>,
    energy: Option<energy::Watch>,
}

impl Observer {
    /// An observer that attaches nothing until given a watch or sampler.
    pub fn new() -> Observer {
        Observer::default()
    }

    /// Attaches `sampler`'s series of `[started_at, ended_at]` to every
    /// result observed from now on (labelled `source=telemetry`), and the
    /// bottleneck line read against it.
    pub fn with_telemetry(mut self, sampler: Sampler) -> Observer {
        self.telemetry = Some(sampler);
        self
    }

    /// Has `watch` attach to every result observed from now on what
    /// disturbed it, marking each phase boundary.
    pub fn with_watch(mut self, watch: Watch) -> Observer {
        self.watch = Some(watch);
        self
    }

    /// Has `watch` add to every result observed from now on the energy its
    /// power sources counted, reading them at each phase boundary.
    pub fn with_energy(mut self, watch: energy::Watch) -> Observer {
        self.energy = Some(watch);
        self
    }

    /// A phase boundary: the counters at a phase's or benchmark's start.
    pub fn boundary(&mut self) {
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

    /// Attaches to `result` what was observed during it: its energy (read
    /// first, closest to the result's end), what disturbed it, and with a
    /// sampler its telemetry and bottleneck line (`earlier`: the run's
    /// results before it, which some rules read).
    pub fn observe(
        &mut self,
        result: &mut BenchResult,
        earlier: &[BenchResult],
        inventory: Option<&Inventory>,
    ) {
        if let Some(energy) = &mut self.energy {
            energy.finish(result);
        }
        if let Some(watch) = &mut self.watch {
            watch.finish(result);
        }
        if let Some(sampler) = &self.telemetry {
            sampler.sample_now();
            result
                .series
                .extend(sampler.window(result.started_at, result.ended_at));
            bottleneck::attribute_all(result, earlier, inventory);
        }
    }
}
