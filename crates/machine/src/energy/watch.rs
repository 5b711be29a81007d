//! The energy watch of one run: the meter polled every second by a thread
//! of its own, read again at each result's and phase's start and end
//! ([`Watch::mark`], from the recorder's `boundary`), and turned into each
//! result's joules, average watts and work per joule ([`Watch::finish`]).

use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use nodebench_core::model::{BenchResult, Better, Metric, Unit};
use nodebench_core::names::energy::{
    self as names, Efficiency, draw, label, metric, scope, source,
};

use super::idle::Idle;
use super::{Found, Meter};

/// How often the thread reads the counters between marks: often enough
/// that no counter wraps twice unseen (RAPL's package counter wraps after
/// about 260 kJ: over 4 minutes at 1 kW).
pub const POLL: Duration = Duration::from_secs(1);

/// The totals at one moment.
#[derive(Debug, Clone)]
struct Mark {
    at: DateTime<Utc>,
    instant: Instant,
    totals: Vec<Option<f64>>,
}

/// A phase's labels and the marks at its start and end.
type Span = (Vec<(String, String)>, Mark, Mark);

/// The energy watch: the sources, the polling thread and the marks since
/// the last result.
pub struct Watch {
    meter: Arc<Meter>,
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
    marks: Vec<Mark>,
    none: Option<String>,
    /// The host's stored idle draw, when one is: every figure above it too.
    idle: Option<Idle>,
}

impl Watch {
    /// Watches the live machine's power sources.
    pub fn begin() -> Watch {
        Watch::with(super::discover())
    }

    /// Watches the sources `found`; the first mark.
    pub fn with(found: Found) -> Watch {
        let none = found.why_none();
        let meter = Arc::new(Meter::new(found.sources));
        let (stop, thread) = if meter.sources().is_empty() {
            (None, None)
        } else {
            let (tx, rx) = mpsc::channel::<()>();
            let theirs = Arc::clone(&meter);
            let thread = std::thread::Builder::new()
                .name("energy".into())
                .spawn(move || {
                    while let Err(RecvTimeoutError::Timeout) = rx.recv_timeout(POLL) {
                        theirs.poll(Instant::now());
                    }
                })
                .ok();
            (Some(tx), thread)
        };
        let mut watch = Watch {
            meter,
            stop,
            thread,
            marks: Vec::new(),
            none,
            idle: None,
        };
        watch.mark();
        watch
    }

    /// Has every result from now on also carry its figures above `idle`
    /// (the host's stored idle draw), naming it.
    pub fn with_idle(mut self, idle: Option<Idle>) -> Watch {
        self.idle = idle;
        self
    }

    /// Why no figure is recorded ("no power sensor readable"), when none is.
    pub fn none(&self) -> Option<&str> {
        self.none.as_deref()
    }

    /// Reads every source now: a result or a phase begins or ends.
    pub fn mark(&mut self) {
        let instant = Instant::now();
        let at = Utc::now();
        let totals = self.meter.poll(instant);
        self.marks.push(Mark {
            at,
            instant,
            totals,
        });
    }

    /// The latest mark at or before `t` (the first when none was).
    fn mark_at(&self, t: DateTime<Utc>) -> &Mark {
        self.marks
            .iter()
            .rev()
            .find(|m| m.at <= t)
            .unwrap_or(&self.marks[0])
    }

    /// Reads the end of `result` now and adds its energy figures: per
    /// source, joules and average watts over the result and over each
    /// phase (with the phase's labels), and its work per joule against the
    /// widest source. The marks before it are dropped.
    pub fn finish(&mut self, result: &mut BenchResult) {
        if self.meter.sources().is_empty() {
            return;
        }
        self.mark();
        let end = self.marks.last().cloned().expect("just marked");
        if result.benchmark == names::IDLE {
            // The idle run reads the sources itself.
            self.marks = vec![end];
            return;
        }
        let start = self.mark_at(result.started_at).clone();
        let mut added = self.per_source(&start, &end, &[]);
        let offset = |s: f64| result.started_at + chrono::Duration::microseconds((s * 1e6) as i64);
        let spans: Vec<Span> = result
            .phases
            .iter()
            .map(|p| {
                let labels = p.labels.clone().into_iter().collect();
                let a = self.mark_at(offset(p.start_s)).clone();
                let b = self.mark_at(offset(p.end_s)).clone();
                (labels, a, b)
            })
            .filter(|(_, a, b)| b.instant > a.instant)
            .collect();
        for (labels, a, b) in &spans {
            added.extend(self.per_source(a, b, labels));
        }
        for e in names::efficiency_of(&result.benchmark) {
            let Some(divisor) = self.divisor(result, e) else {
                continue;
            };
            for m in result.metrics.iter().filter(|m| {
                m.name == e.work && m.unit.symbol() == e.work_unit && m.value.is_finite()
            }) {
                let (a, b) = spans
                    .iter()
                    .find(|(labels, _, _)| {
                        !labels.is_empty() && labels.iter().all(|(k, v)| m.labels.get(k) == Some(v))
                    })
                    .map(|(_, a, b)| (a, b))
                    .unwrap_or((&start, &end));
                let Some(watts) = divisor.watts(a, b) else {
                    continue;
                };
                let idle = self.idle_watts(&divisor).map(|w| watts - w);
                for (w, which) in [(Some(watts), draw::TOTAL), (idle, draw::ABOVE_IDLE)] {
                    // Above idle only where the span drew more than idle.
                    let Some(w) = w.filter(|w| *w > 0.0) else {
                        continue;
                    };
                    let mut eff = Metric::new(
                        e.metric,
                        m.value * e.factor / w,
                        Unit::Count,
                        Better::Higher,
                    );
                    eff.labels = m.labels.clone();
                    added.push(divisor.label(eff).label(label::DRAW, which));
                }
            }
        }
        if let Some(idle) = &self.idle
            && added.iter().any(|m| m.name == metric::POWER_ABOVE_IDLE)
        {
            result.set_param(names::param::IDLE_RUN, idle.run_id);
            result.set_param(names::param::IDLE_AT, idle.at.to_rfc3339());
        }
        result.metrics.extend(added);
        self.marks = vec![end];
    }

    /// Joules and average watts of every source between `a` and `b`,
    /// labelled `labels` too.
    fn per_source(&self, a: &Mark, b: &Mark, labels: &[(String, String)]) -> Vec<Metric> {
        let secs = b.instant.saturating_duration_since(a.instant).as_secs_f64();
        let mut out = Vec::new();
        for (i, s) in self.meter.sources().iter().enumerate() {
            let (Some(x), Some(y)) = (a.totals[i], b.totals[i]) else {
                continue;
            };
            if secs < s.shortest.as_secs_f64() {
                continue;
            }
            let joules = (y - x).max(0.0);
            let tag = |mut m: Metric| {
                for (k, v) in labels {
                    m = m.label(k, v);
                }
                m.label(label::SOURCE, s.source)
                    .label(label::SCOPE, s.scope)
                    .label(label::SENSOR, &s.sensor)
            };
            out.push(tag(Metric::new(
                metric::ENERGY,
                joules,
                Unit::Joules,
                Better::Lower,
            )));
            if secs > 0.0 {
                out.push(tag(Metric::new(
                    metric::POWER,
                    joules / secs,
                    Unit::Watts,
                    Better::Neither,
                )));
            }
            let idle = self
                .idle
                .as_ref()
                .and_then(|i| i.watts(s.source, &s.sensor));
            if let Some(w) = idle
                && secs > 0.0
            {
                out.push(tag(Metric::new(
                    metric::POWER_ABOVE_IDLE,
                    joules / secs - w,
                    Unit::Watts,
                    Better::Neither,
                )));
                out.push(tag(Metric::new(
                    metric::ENERGY_ABOVE_IDLE,
                    joules - w * secs,
                    Unit::Joules,
                    Better::Lower,
                )));
            }
        }
        out
    }

    /// The idle watts of every source `d` sums, when the idle run read
    /// each of them.
    fn idle_watts(&self, d: &Divisor) -> Option<f64> {
        let idle = self.idle.as_ref()?;
        let sources = self.meter.sources();
        d.indices
            .iter()
            .map(|&i| idle.watts(sources[i].source, &sources[i].sensor))
            .sum()
    }

    /// The source a result's efficiency divides by: for a GPU result its
    /// GPU's NVML counter (matched by PCI bus id); else the whole node (a
    /// BMC or a power meter); else every CPU package and its DRAM (RAPL).
    fn divisor(&self, result: &BenchResult, e: &Efficiency) -> Option<Divisor> {
        let sources = self.meter.sources();
        let pick = |want: &dyn Fn(&super::Source) -> bool| -> Vec<usize> {
            (0..sources.len()).filter(|&i| want(&sources[i])).collect()
        };
        if e.gpu {
            let bus = result
                .param(nodebench_core::names::gpu::param::BUS_ID)
                .and_then(|v| v.as_str())?;
            let i = pick(&|s| s.source == source::NVML && s.bus_id.as_deref() == Some(bus));
            let first = *i.first()?;
            return Some(Divisor {
                source: source::NVML,
                scope: scope::GPU,
                sensor: sources[first].sensor.clone(),
                shortest: sources[first].shortest,
                indices: vec![first],
            });
        }
        let node = pick(&|s| s.scope == scope::NODE && !s.nested);
        if let Some(&first) = node.first() {
            return Some(Divisor {
                source: sources[first].source,
                scope: scope::NODE,
                sensor: sources[first].sensor.clone(),
                shortest: sources[first].shortest,
                indices: vec![first],
            });
        }
        let cpu = pick(&|s| {
            s.source == source::RAPL && (s.scope == scope::PACKAGE || s.scope == scope::DRAM)
        });
        if cpu.is_empty() {
            return None;
        }
        let with_dram = cpu.iter().any(|&i| sources[i].scope == scope::DRAM);
        Some(Divisor {
            source: source::RAPL,
            scope: if with_dram {
                scope::PACKAGE_DRAM
            } else {
                scope::PACKAGE
            },
            sensor: cpu
                .iter()
                .map(|&i| sources[i].sensor.as_str())
                .collect::<Vec<_>>()
                .join("+"),
            shortest: cpu
                .iter()
                .map(|&i| sources[i].shortest)
                .max()
                .unwrap_or_default(),
            indices: cpu,
        })
    }
}

/// The source (or sum of sources) an efficiency figure divides by.
struct Divisor {
    source: &'static str,
    scope: &'static str,
    sensor: String,
    /// The longest of its sources' shortest spans.
    shortest: Duration,
    indices: Vec<usize>,
}

impl Divisor {
    /// The average watts between two marks; `None` when a source has no
    /// reading there or the span or energy is nil.
    fn watts(&self, a: &Mark, b: &Mark) -> Option<f64> {
        let secs = b.instant.saturating_duration_since(a.instant).as_secs_f64();
        let mut joules = 0.0;
        for &i in &self.indices {
            joules += b.totals[i]? - a.totals[i]?;
        }
        (secs > 0.0 && secs >= self.shortest.as_secs_f64() && joules > 0.0).then(|| joules / secs)
    }

    fn label(&self, m: Metric) -> Metric {
        m.label(label::SOURCE, self.source)
            .label(label::SCOPE, self.scope)
            .label(label::SENSOR, &self.sensor)
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
