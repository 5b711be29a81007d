//! Power sources and the energy each result used. Sources are found at run
//! time ([`discover`]): RAPL's counters through powercap ([`rapl`]), hwmon
//! power sensors ([`hwmon`]) and NVML's total-energy counter per GPU
//! ([`nvml`]). A cumulative counter gives exact joules between two readings (wrapping at
//! its range); a sensor that only gives watts is sampled and integrated.
//!
//! A [`Meter`] keeps each source's running total in joules; the [`Watch`]
//! (driven by the store's recorder, as `disturb::Watch` is) polls it in a
//! thread of its own, so a counter cannot wrap twice unseen, and reads it
//! at each result's and each phase's start and end, then records each
//! source's joules and average watts and the result's work per joule
//! ([`nodebench_core::names::energy::EFFICIENCY`]).

#[cfg(any(test, feature = "fixtures"))]
pub mod fixtures;
pub mod hwmon;
pub mod idle;
pub mod ipmi;
pub mod nvml;
pub mod rapl;
mod watch;

use std::sync::Mutex;
use std::time::{Duration, Instant};

pub use idle::{Idle, IdleConfig, PowerIdle};
pub use watch::Watch;

use nodebench_core::inventory::{PowerSource, PowerSources};

use crate::sysroot::Roots;

/// The shortest span NVML's energy is given for. Its counter advances in
/// steps (tens of milliseconds apart on an H200): over a 60 ms phase it
/// read 0 J, or twice the GPU's idle draw, where a second's span was within
/// 1.5 % of the counter sampled every 10 ms (`bench/gpu-check`).
pub const NVML_SHORTEST: Duration = Duration::from_secs(1);

/// What is read: a cumulative counter in joules, or watts now.
pub enum Reader {
    /// A counter of joules that wraps back to 0 after `range` joules
    /// (`None`: it does not wrap within a run).
    Counter {
        read: Box<dyn Fn() -> Option<f64> + Send + Sync>,
        range: Option<f64>,
    },
    /// A power reading, watts, read no more often than `every` (a BMC
    /// updates its figure about once a second).
    Watts {
        read: Box<dyn Fn() -> Option<f64> + Send + Sync>,
        every: Duration,
    },
}

/// One power source.
pub struct Source {
    /// How it is read: one of `names::energy::source`.
    pub source: &'static str,
    /// What it covers: one of `names::energy::scope`.
    pub scope: &'static str,
    /// Which sensor: a powercap zone, an hwmon input, `bmc`, `gpu0`.
    pub sensor: String,
    /// How it is read, for the inventory ("nvmlDeviceGetTotalEnergyConsumption, mJ counter").
    pub how: String,
    /// A GPU's PCI bus id (sysfs's form), for GPU sources.
    pub bus_id: Option<String>,
    /// Whether it is nested in another source (a RAPL subzone in its
    /// package): recorded, never summed with its parent.
    pub nested: bool,
    /// The shortest span its energy is given for: a counter that moves in
    /// steps (NVML's, [`NVML_SHORTEST`]) reads 0 or a whole step too many
    /// over a shorter one, so such a span gets no figure rather than a
    /// wrong one. Zero for sources read exactly at any span.
    pub shortest: Duration,
    pub reader: Reader,
}

impl std::fmt::Debug for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{} ({})", self.source, self.sensor, self.scope)
    }
}

/// The sources found, and why others were not (one line each: "RAPL needs
/// root").
#[derive(Debug, Default)]
pub struct Found {
    pub sources: Vec<Source>,
    pub notes: Vec<String>,
}

/// The line a machine without any readable power source gets.
pub const NONE_READABLE: &str = "no power sensor readable";

impl Found {
    /// One line for results and the inventory when no source was found:
    /// [`NONE_READABLE`] and why.
    pub fn why_none(&self) -> Option<String> {
        if !self.sources.is_empty() {
            return None;
        }
        Some(if self.notes.is_empty() {
            NONE_READABLE.to_string()
        } else {
            format!("{NONE_READABLE} ({})", self.notes.join("; "))
        })
    }
}

impl Found {
    /// The inventory's section: each source, the notes, or why none.
    pub fn describe(&self) -> PowerSources {
        PowerSources {
            unavailable: self.why_none(),
            sources: self
                .sources
                .iter()
                .map(|s| PowerSource {
                    source: s.source.into(),
                    scope: s.scope.into(),
                    sensor: s.sensor.clone(),
                    how: s.how.clone(),
                })
                .collect(),
            notes: self.notes.clone(),
        }
    }
}

/// Every power source of the machine the environment names (the live one,
/// or recorded trees under `NODEBENCH_SYSFS_ROOT`).
pub fn discover() -> Found {
    discover_at(&Roots::from_env())
}

/// Every power source under `roots`: RAPL zones and hwmon sensors there;
/// NVML and the BMC (IPMI DCMI) only on the live machine.
pub fn discover_at(roots: &Roots) -> Found {
    let mut found = Found::default();
    rapl::discover(roots, &mut found);
    hwmon::discover(roots, &mut found);
    if roots.is_live() {
        nvml::discover(&mut found);
        ipmi::discover(&mut found);
    }
    found
}

/// A source's running state.
#[derive(Debug, Default, Clone)]
struct Acc {
    /// The counter's last raw reading, joules.
    last_raw: Option<f64>,
    /// The last watts read, and when.
    last_watts: Option<(Instant, f64)>,
    /// Joules counted since the meter started; `None` until a first reading.
    total: Option<f64>,
}

/// The sources and their running totals.
pub struct Meter {
    sources: Vec<Source>,
    state: Mutex<Vec<Acc>>,
}

impl Meter {
    /// Starts metering `sources`: a first reading of each.
    pub fn new(sources: Vec<Source>) -> Meter {
        let meter = Meter {
            state: Mutex::new(vec![Acc::default(); sources.len()]),
            sources,
        };
        meter.poll(Instant::now());
        meter
    }

    /// The sources.
    pub fn sources(&self) -> &[Source] {
        &self.sources
    }

    /// Reads every source now and returns each one's joules since the
    /// meter started (`None` for one never read), watts integrated up to
    /// `now` (the moment the caller stamps the reading with). A watt-only
    /// source read within its interval is held at its last watts up to
    /// `now`.
    pub fn poll(&self, now: Instant) -> Vec<Option<f64>> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        self.sources
            .iter()
            .zip(state.iter_mut())
            .map(|(s, acc)| match &s.reader {
                Reader::Counter { read, range } => {
                    if let Some(raw) = read() {
                        advance(acc, raw, *range);
                    }
                    acc.total
                }
                Reader::Watts { read, every } => {
                    let due = acc
                        .last_watts
                        .is_none_or(|(t, _)| now.saturating_duration_since(t) >= *every);
                    if due && let Some(w) = read().filter(|w| w.is_finite() && *w >= 0.0) {
                        integrate(acc, now, w);
                        return acc.total;
                    }
                    // Between readings: the last watts held up to now.
                    match (acc.total, acc.last_watts) {
                        (Some(t), Some((at, w))) => {
                            Some(t + w * now.saturating_duration_since(at).as_secs_f64())
                        }
                        _ => acc.total,
                    }
                }
            })
            .collect()
    }
}

/// Adds a counter's reading to its total: the step since the last reading,
/// across one wrap at `range`; a counter that went back without a known
/// range (reset) adds nothing.
fn advance(acc: &mut Acc, raw: f64, range: Option<f64>) {
    let step = match acc.last_raw {
        None => 0.0,
        Some(last) if raw >= last => raw - last,
        Some(last) => match range {
            Some(r) if r > last => r - last + raw,
            _ => 0.0,
        },
    };
    acc.last_raw = Some(raw);
    acc.total = Some(acc.total.unwrap_or(0.0) + step);
}

/// Adds watts `w` read at `now`: the trapezoid since the last reading.
fn integrate(acc: &mut Acc, now: Instant, w: f64) {
    let step = match acc.last_watts {
        Some((at, last)) => 0.5 * (last + w) * now.saturating_duration_since(at).as_secs_f64(),
        None => 0.0,
    };
    acc.last_watts = Some((now, w));
    acc.total = Some(acc.total.unwrap_or(0.0) + step);
}

#[cfg(test)]
mod tests;
