//! What each runnable benchmark produces: its metrics with their units, and
//! the label keys they carry with, where finite, the values each key takes.
//! An acceptance threshold (`memory.stream bandwidth{kernel=triad} >= 20
//! GB/s`) that names a benchmark, metric, label or value missing here can
//! never match a result, so it can be refused before anything runs.
//!
//! Only [`crate::model::BenchResult::metrics`] are listed (thresholds judge
//! metrics, not histograms or series). Imported benchmarks (`disk.fio`,
//! `cpu.sysbench`, HPCC's ping-pong...) are not runnable and not here;
//! the link matrix `fleet pair --matrix` builds from its pairs' runs
//! (`fleet.links`) is, as the figures it stores.
//!
//! Two metric names are recorded in more than one unit; each is listed in
//! the unit most of its results carry:
//!
//! * `cpu.ops rate`: flop/s for the floating-point kernels (`f32.*`,
//!   `f64.*`), op/s for the integer ones (`int.*`);
//! * `burnin.checkpoint throughput_mean|throughput_min|throughput_max|
//!   baseline_median`: the unit of the workload's watched metric: B/s for
//!   the memory, disk and TCP workloads (and the B/s suite steps), flop/s
//!   for cpu, op/s for http.

use crate::model::Unit;
use crate::names::energy;
use crate::registry::{self, Descriptor};

/// One metric a benchmark produces.
#[derive(Debug)]
pub struct MetricSpec {
    /// The metric's name.
    pub name: &'static str,
    /// The unit its values are recorded in.
    pub unit: Unit,
}

/// One label key a benchmark's metrics may carry; `values` is the finite
/// set of values it takes, `None` where open (sizes, thread counts,
/// percentiles, paths, ...).
#[derive(Debug)]
pub struct LabelSpec {
    /// The label key.
    pub key: &'static str,
    /// Every value the key takes, or `None` where the set is open.
    pub values: Option<&'static [&'static str]>,
}

/// What benchmark `id` produces: the metric catalog of its
/// [`Descriptor`], which [`crate::registry`] holds one of per benchmark.
pub type BenchSpec = Descriptor;

/// The energy figures any result may carry (`machine::energy`), where a
/// power source is readable: joules and average watts per source.
pub const ENERGY_METRICS: &[MetricSpec] = &[
    m(energy::metric::ENERGY, Unit::Joules),
    m(energy::metric::POWER, Unit::Watts),
    m(energy::metric::POWER_ABOVE_IDLE, Unit::Watts),
    m(energy::metric::ENERGY_ABOVE_IDLE, Unit::Joules),
];

/// The work-per-joule figures, each recorded by the benchmarks
/// [`energy::EFFICIENCY`] names for it.
pub const EFFICIENCY_METRICS: &[MetricSpec] = &[
    m(energy::metric::GFLOPS_PER_WATT, Unit::Count),
    m(energy::metric::GB_PER_S_PER_WATT, Unit::Count),
    m(energy::metric::REQUESTS_PER_JOULE, Unit::Count),
    m(energy::metric::QUERIES_PER_JOULE, Unit::Count),
    m(energy::metric::BITS_PER_JOULE, Unit::Count),
];

/// The label keys of the energy figures.
pub const ENERGY_LABELS: &[LabelSpec] = &[
    of(energy::label::SOURCE, &energy::source::ALL),
    of(energy::label::SCOPE, &energy::scope::ALL),
    open(energy::label::SENSOR),
    of(energy::label::DRAW, &energy::draw::ALL),
];

impl Descriptor {
    /// The spec of metric `name`: one of [`BenchSpec::metrics`], an energy
    /// figure, or the benchmark's work per joule.
    pub fn metric(&self, name: &str) -> Option<&'static MetricSpec> {
        let id = self.id;
        self.metrics
            .iter()
            .chain(ENERGY_METRICS)
            .chain(
                EFFICIENCY_METRICS
                    .iter()
                    .filter(move |s| energy::efficiency_of(id).any(|e| e.metric == s.name)),
            )
            .find(|s| s.name == name)
    }

    /// Every metric name [`BenchSpec::metric`] knows.
    pub fn metric_names(&self) -> Vec<&'static str> {
        let id = self.id;
        self.metrics
            .iter()
            .chain(ENERGY_METRICS)
            .map(|s| s.name)
            .chain(energy::efficiency_of(id).map(|e| e.metric))
            .fold(Vec::new(), |mut v, n| {
                if !v.contains(&n) {
                    v.push(n);
                }
                v
            })
    }

    /// The spec of label `key`: one of [`BenchSpec::labels`] or an energy
    /// figure's.
    pub fn label(&self, key: &str) -> Option<&'static LabelSpec> {
        self.labels
            .iter()
            .chain(ENERGY_LABELS)
            .find(|l| l.key == key)
    }

    /// Every label key [`BenchSpec::label`] knows.
    pub fn label_keys(&self) -> Vec<&'static str> {
        self.labels
            .iter()
            .chain(ENERGY_LABELS)
            .map(|l| l.key)
            .collect()
    }
}

/// Every runnable benchmark's spec: the registry.
pub fn all() -> &'static [BenchSpec] {
    registry::ALL
}

/// The spec of benchmark `id`, if it is a runnable benchmark.
pub fn spec(id: &str) -> Option<&'static BenchSpec> {
    registry::get(id)
}

pub(crate) const fn m(name: &'static str, unit: Unit) -> MetricSpec {
    MetricSpec { name, unit }
}

/// A label key whose values are open.
pub(crate) const fn open(key: &'static str) -> LabelSpec {
    LabelSpec { key, values: None }
}

/// A label key taking only `values`.
pub(crate) const fn of(key: &'static str, values: &'static [&'static str]) -> LabelSpec {
    LabelSpec {
        key,
        values: Some(values),
    }
}

const fn same(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// `a`, then the names of `b` not in `a`: `N` of them (checked when
/// compiled).
pub(crate) const fn union<const N: usize>(
    a: &[&'static str],
    b: &[&'static str],
) -> [&'static str; N] {
    let mut out = [""; N];
    let mut n = 0;
    while n < a.len() {
        out[n] = a[n];
        n += 1;
    }
    let mut j = 0;
    while j < b.len() {
        let mut seen = false;
        let mut i = 0;
        while i < a.len() {
            seen = seen || same(a[i], b[j]);
            i += 1;
        }
        if !seen {
            out[n] = b[j];
            n += 1;
        }
        j += 1;
    }
    assert!(n == N, "union: wrong length");
    out
}

/// The registry as `nodebench schema` prints it beside the run model (its
/// `x-benchmarks`): per benchmark id, the command that runs it, its
/// headline, its metrics with their units, and its label keys with the
/// values each takes (null where the set is open).
pub fn to_json() -> serde_json::Value {
    use serde_json::{Map, Value, json};
    let mut out = Map::new();
    for d in registry::ALL {
        let metrics: Map<String, Value> = d
            .metrics
            .iter()
            .map(|m| (m.name.to_string(), json!(m.unit.symbol())))
            .collect();
        let labels: Map<String, Value> = d
            .labels
            .iter()
            .map(|l| {
                (
                    l.key.to_string(),
                    l.values.map_or(Value::Null, |v| json!(v)),
                )
            })
            .collect();
        out.insert(
            d.id.to_string(),
            json!({
                "command": d.command.join(" "),
                "headline": d.headline.describe(),
                "metrics": metrics,
                "labels": labels,
            }),
        );
    }
    Value::Object(out)
}

#[cfg(test)]
#[path = "catalog_tests.rs"]
mod tests;
