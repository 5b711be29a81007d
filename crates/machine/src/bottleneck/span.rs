//! A result's telemetry summarised over a span: the whole result, or one
//! phase. Each point of a telemetry series holds the reading of the
//! interval that ends at its time (the first from the result's start);
//! a span's figure is the mean of the intervals weighted by how much of
//! each lies in the span. The recorder ends an interval at every phase
//! boundary ([`nodebench_core::bench::Context::begin_phase`]), so a phase's
//! intervals are its own and the weights are whole.

use nodebench_core::model::{BenchResult, TimeSeries};
use nodebench_core::names::telemetry;

/// The means of a result's telemetry series over a span.
pub(super) struct Telemetry {
    /// (cpu, busy %, user %, system %), by CPU number.
    pub cpus: Vec<(String, f64, f64, f64)>,
    /// (device, utilisation %, average queue depth, deepest interval's
    /// queue depth).
    pub disks: Vec<(String, f64, f64, f64)>,
    /// (nic, received bytes/s, sent bytes/s).
    pub nics: Vec<(String, f64, f64)>,
    /// The share of the time of the intervals the span overlaps that lies
    /// in the span (1 when they are its own): below [`MIN_COVERAGE`] the
    /// readings are mostly of something else.
    pub coverage: f64,
}

/// The least [`Telemetry::coverage`] a phase's readings are its own at.
pub const MIN_COVERAGE: f64 = 0.5;

/// Of the intervals of `s` that overlap `[from, to]`, the share of their
/// time inside it.
fn coverage(s: &TimeSeries, from: f64, to: f64) -> f64 {
    let (inside, all) = intervals(s)
        .map(|(a, b, _)| (b.min(to) - a.max(from), b - a))
        .filter(|(w, _)| *w > 0.0)
        .fold((0.0, 0.0), |(i, t), (w, l)| (i + w, t + l));
    if all > 0.0 { inside / all } else { 0.0 }
}

/// The intervals of `s` as (start, end, value): each point ends one, the
/// first starts at the result's start.
fn intervals(s: &TimeSeries) -> impl Iterator<Item = (f64, f64, f64)> + '_ {
    let mut start = 0.0_f64;
    s.points.iter().map(move |&(end, v)| {
        let a = start.min(end);
        start = end;
        (a, end, v)
    })
}

/// The (weight, value) of each interval of `s` that overlaps `[from, to]`:
/// the weight is the overlap in seconds.
fn overlaps(s: &TimeSeries, from: f64, to: f64) -> Vec<(f64, f64)> {
    intervals(s)
        .map(|(a, b, v)| (b.min(to) - a.max(from), v))
        .filter(|(w, v)| *w > 0.0 && v.is_finite())
        .collect()
}

/// The overlap-weighted mean of `s` over `[from, to]`; None when no
/// interval overlaps it.
fn weighted_mean(s: &TimeSeries, from: f64, to: f64) -> Option<f64> {
    let parts = overlaps(s, from, to);
    let weight: f64 = parts.iter().map(|p| p.0).sum();
    (weight > 0.0).then(|| parts.iter().map(|(w, v)| w * v).sum::<f64>() / weight)
}

/// The largest reading of an interval of `s` overlapping `[from, to]`.
fn peak(s: &TimeSeries, from: f64, to: f64) -> Option<f64> {
    overlaps(s, from, to)
        .into_iter()
        .map(|p| p.1)
        .max_by(f64::total_cmp)
}

impl Telemetry {
    /// The telemetry of `r` over `span` (seconds since it started; the
    /// whole result when None). None when it carries no telemetry series
    /// or none of them covers the span.
    pub fn of(r: &BenchResult, span: Option<(f64, f64)>) -> Option<Telemetry> {
        use telemetry::label;
        use telemetry::series as s;
        let tele: Vec<&TimeSeries> = r
            .series
            .iter()
            .filter(|s| {
                s.labels.get(telemetry::SOURCE).map(String::as_str)
                    == Some(telemetry::SOURCE_TELEMETRY)
            })
            .collect();
        let (from, to) = span.unwrap_or((0.0, f64::INFINITY));
        if !tele.iter().any(|s| weighted_mean(s, from, to).is_some()) {
            return None;
        }
        let find = |name: &str, key: &str, value: &str| {
            tele.iter()
                .find(|s| s.name == name && s.labels.get(key).map(String::as_str) == Some(value))
                .copied()
        };
        let mean = |name: &str, key: &str, value: &str| {
            find(name, key, value)
                .and_then(|s| weighted_mean(s, from, to))
                .unwrap_or(0.0)
        };
        let keys = |name: &str, key: &str| {
            let mut v: Vec<String> = tele
                .iter()
                .filter(|s| s.name == name)
                .filter_map(|s| s.labels.get(key).cloned())
                .collect();
            v.sort_by_key(|k| (k.len(), k.clone()));
            v.dedup();
            v
        };
        let cpus = keys(s::CPU_USER, label::CPU)
            .into_iter()
            .map(|c| {
                let m = |n| mean(n, label::CPU, &c);
                let (user, system) = (m(s::CPU_USER), m(s::CPU_SYSTEM));
                let busy = user + system + m(s::CPU_IRQ) + m(s::CPU_SOFTIRQ) + m(s::CPU_STEAL);
                (c, busy, user, system)
            })
            .collect();
        let disks = keys(s::DISK_UTILISATION, label::DEVICE)
            .into_iter()
            .map(|d| {
                let m = |n| mean(n, label::DEVICE, &d);
                let (util, queue) = (m(s::DISK_UTILISATION), m(s::DISK_QUEUE_DEPTH));
                let deepest = find(s::DISK_QUEUE_DEPTH, label::DEVICE, &d)
                    .and_then(|s| peak(s, from, to))
                    .unwrap_or(0.0);
                (d, util, queue, deepest)
            })
            .collect();
        let nics = keys(s::NET_RX_BYTES, label::NIC)
            .into_iter()
            .map(|n| {
                let m = |name| mean(name, label::NIC, &n);
                (n.clone(), m(s::NET_RX_BYTES), m(s::NET_TX_BYTES))
            })
            .collect();
        let coverage = tele
            .iter()
            .map(|s| coverage(s, from, to))
            .fold(0.0, f64::max);
        Some(Telemetry {
            cpus,
            disks,
            nics,
            coverage,
        })
    }

    /// The busiest CPU, as "cpu1 at 98 % (user 60 %, system 38 %)".
    pub fn busiest_cpu(&self) -> Option<String> {
        self.cpus
            .iter()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(c, busy, user, system)| {
                format!("cpu{c} at {busy:.0} % (user {user:.0} %, system {system:.0} %)")
            })
    }

    /// The busy shares of every CPU added up, % of one CPU.
    pub fn total_busy(&self) -> f64 {
        self.cpus.iter().map(|c| c.1).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::model::Unit;

    #[test]
    fn a_span_weighs_the_intervals_by_their_overlap() {
        let s = TimeSeries {
            name: "x".into(),
            unit: Unit::Percent,
            labels: Default::default(),
            // Intervals [0,1] at 10, [1,3] at 100, [3,4] at 40.
            points: vec![(1.0, 10.0), (3.0, 100.0), (4.0, 40.0)],
        };
        assert_eq!(weighted_mean(&s, 1.0, 3.0), Some(100.0));
        assert_eq!(weighted_mean(&s, 0.0, f64::INFINITY), Some(62.5));
        // Half of [0,1] and all of [1,3]: (0.5*10 + 2*100) / 2.5.
        assert_eq!(weighted_mean(&s, 0.5, 3.0), Some(82.0));
        assert_eq!(weighted_mean(&s, 5.0, 6.0), None);
        assert_eq!(peak(&s, 3.0, 4.0), Some(40.0));
        assert_eq!(peak(&s, 2.0, 4.0), Some(100.0));
        assert_eq!(coverage(&s, 1.0, 3.0), 1.0);
        assert_eq!(coverage(&s, 1.5, 2.0), 0.25);
    }
}
