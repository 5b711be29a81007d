//! The burn-in's power: every power source the machine has (RAPL, hwmon,
//! IPMI DCMI, NVML: `machine::energy`) read each second over the whole
//! run, its watts over each step. Each checkpoint of the machine
//! ([`nodebench_core::names::burnin::SYSTEM`]) carries, per source, the
//! median of the interval's watts and the steps themselves as a series;
//! once the first window is over (the same window the throughputs are held
//! against), an interval whose median is more than `--degrade` above that
//! window's median is a warning saying when it began: a machine drawing
//! more for the same work (failing fans, a clogged filter, a leaking
//! part), which is not a failure of the burn-in.

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use nodebench_core::names::burnin::metric;
use nodebench_core::names::energy::label;
use nodebench_core::{BenchResult, Better, Metric, TimeSeries, Unit};
use nodebench_machine::energy::{Found, Meter};

use crate::degrade::{self, Baseline, median};
use crate::verdict::Finding;

/// How often every source is read.
pub const STEP: Duration = Duration::from_secs(1);

/// The warning's prefix in a checkpoint's warnings.
pub const WARNING: &str = "power above the first window";

/// One source's interval and judgement.
struct Sensor {
    labels: [(&'static str, String); 3],
    /// The interval's (time, watts over the step ending then).
    samples: Vec<(DateTime<Utc>, f64)>,
    baseline: Option<Baseline>,
    warning: Option<Finding>,
}

/// The power of a whole burn-in.
pub struct Power {
    meter: Meter,
    last: (Instant, Vec<Option<f64>>),
    next: Instant,
    sensors: Vec<Sensor>,
}

impl Power {
    /// Reads `found`'s sources from now on; `None` where there is none.
    pub fn new(found: Found) -> Option<Power> {
        if found.sources.is_empty() {
            return None;
        }
        let sensors = found
            .sources
            .iter()
            .map(|s| Sensor {
                labels: [
                    (label::SOURCE, s.source.to_string()),
                    (label::SCOPE, s.scope.to_string()),
                    (label::SENSOR, s.sensor.clone()),
                ],
                samples: Vec::new(),
                baseline: None,
                warning: None,
            })
            .collect();
        let meter = Meter::new(found.sources);
        let now = Instant::now();
        let totals = meter.poll(now);
        Some(Power {
            meter,
            last: (now, totals),
            next: now + STEP,
            sensors,
        })
    }

    /// How long until the next reading is due.
    pub fn due_in(&self) -> Duration {
        self.next.saturating_duration_since(Instant::now())
    }

    /// Reads every source when a step is due: each one's watts since the
    /// last reading, one sample.
    pub fn sample(&mut self) {
        let now = Instant::now();
        if now < self.next {
            return;
        }
        let at = Utc::now();
        let totals = self.meter.poll(now);
        let secs = now.duration_since(self.last.0).as_secs_f64();
        for (i, s) in self.sensors.iter_mut().enumerate() {
            if let (Some(a), Some(b)) = (self.last.1[i], totals[i])
                && secs > 0.0
                && secs >= self.meter.sources()[i].shortest.as_secs_f64()
            {
                let w = (b - a).max(0.0) / secs;
                s.samples.push((at, w));
                if let Some(base) = &mut s.baseline {
                    base.add(at, w);
                }
            }
        }
        self.last = (now, totals);
        self.next = now + STEP;
    }

    /// The first window: `[start, end)`, when the whole mix is running.
    pub fn start_baseline(&mut self, start: DateTime<Utc>, end: DateTime<Utc>) {
        for s in &mut self.sensors {
            s.baseline = Some(Baseline::new(start, end));
        }
    }

    /// Adds the interval `[from, to)` to the machine's checkpoint `r`: per
    /// source its median watts and the series of its steps, and once the
    /// first window is over that window's median and the interval's as a
    /// percentage of it, warned where above `degrade_percent` more.
    pub fn commit(
        &mut self,
        r: &mut BenchResult,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        degrade_percent: f64,
    ) {
        for s in &mut self.sensors {
            let tag = |mut m: Metric| {
                for (k, v) in &s.labels {
                    m = m.label(*k, v);
                }
                m
            };
            let mut values: Vec<f64> = s.samples.iter().map(|(_, w)| *w).collect();
            if let Some(m) = median(&mut values) {
                r.metrics.push(tag(Metric::new(
                    metric::POWER_MEDIAN,
                    m,
                    Unit::Watts,
                    Better::Neither,
                )));
                r.series.push(TimeSeries {
                    name: metric::POWER_MEDIAN.into(),
                    unit: Unit::Watts,
                    labels: s
                        .labels
                        .iter()
                        .map(|(k, v)| (k.to_string(), v.clone()))
                        .collect(),
                    points: s
                        .samples
                        .iter()
                        .map(|(at, w)| {
                            (
                                (*at - from).num_microseconds().unwrap_or(0) as f64 / 1e6,
                                *w,
                            )
                        })
                        .collect(),
                });
            }
            if let Some(b) = &mut s.baseline {
                b.settle(to);
            }
            let baseline = s
                .baseline
                .as_ref()
                .and_then(|b| Some((b.median()?, b.window_end())));
            if let Some((base, window_end)) = baseline {
                r.metrics.push(tag(Metric::new(
                    metric::POWER_BASELINE_MEDIAN,
                    base,
                    Unit::Watts,
                    Better::Neither,
                )));
                if let Some(j) = degrade::judge_above(base, window_end, &s.samples, degrade_percent)
                {
                    r.metrics.push(tag(Metric::new(
                        metric::POWER_PERCENT_OF_BASELINE,
                        j.percent_of_baseline,
                        Unit::Percent,
                        Better::Lower,
                    )));
                    if j.degraded {
                        let what = format!(
                            "{} ({}) median {:.1} W, {:.1} % of the first window's {base:.1} W",
                            s.labels[2].1,
                            s.labels[1].1,
                            j.percent_of_baseline * base / 100.0,
                            j.percent_of_baseline
                        );
                        r.warnings.push(format!("{WARNING}: {what}"));
                        match &mut s.warning {
                            Some(f) => f.count += 1,
                            None => {
                                s.warning = Some(Finding::new(
                                    &format!("power {}", s.labels[2].1),
                                    what,
                                    j.first_below.unwrap_or(from),
                                ))
                            }
                        }
                    }
                }
            }
            s.samples.clear();
        }
    }

    /// Each source's first warning (with how many intervals had one).
    pub fn warnings(self) -> Vec<Finding> {
        self.sensors.into_iter().filter_map(|s| s.warning).collect()
    }
}
