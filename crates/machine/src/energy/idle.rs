//! The idle draw (`nodebench power idle`): every power source read for a
//! while with nothing else running ([`PowerIdle`]), stored as an ordinary
//! result of [`names::IDLE`] with each source's joules and average watts
//! and a series of its watts per sampling step. A later run on the same
//! host takes that result back ([`Idle::from_run`]) and its energy watch
//! gives every figure above it too ([`super::Watch::with_idle`]).

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use nodebench_core::bench::{BenchError, Benchmark, Context};
use nodebench_core::config::Config;
use nodebench_core::model::{BenchResult, Better, Metric, ResultStatus, Run, TimeSeries, Unit};
use nodebench_core::names::energy::{self as names, label, metric, param};

use super::{Found, Meter};

/// How often the idle run reads its sources: once a second, as the energy
/// watch does (a RAPL counter cannot wrap twice unseen).
pub const STEP: Duration = Duration::from_secs(1);
/// The shortest idle run: one step.
pub const SHORTEST: Duration = STEP;
/// The longest idle run: an hour.
pub const LONGEST: Duration = Duration::from_secs(3600);

/// `nodebench power idle`'s settings.
#[derive(Debug, Clone, PartialEq)]
pub struct IdleConfig {
    /// How long every source is read (`--duration`).
    pub duration: Duration,
}

impl Default for IdleConfig {
    /// 30 seconds.
    fn default() -> Self {
        IdleConfig {
            duration: Duration::from_secs(30),
        }
    }
}

impl Config for IdleConfig {
    fn validate(&self) -> Result<(), BenchError> {
        if self.duration < SHORTEST || self.duration > LONGEST {
            return Err(BenchError::Invalid(format!(
                "--duration: expected a duration from 1s to 1h, like 30s, got {} s",
                self.duration.as_secs_f64()
            )));
        }
        Ok(())
    }
}

/// The idle-draw benchmark: reads the sources `discover` finds.
pub struct PowerIdle {
    pub config: IdleConfig,
    /// The sources (the live machine's by default; a test's recorded tree).
    pub discover: fn() -> Found,
}

impl PowerIdle {
    /// The idle run of the machine the environment names.
    pub fn new(config: IdleConfig) -> PowerIdle {
        PowerIdle {
            config,
            discover: super::discover,
        }
    }
}

impl Benchmark for PowerIdle {
    fn id(&self) -> &'static str {
        names::IDLE
    }

    fn validate(&self) -> Result<(), BenchError> {
        self.config.validate()
    }

    /// Reads every source each [`STEP`] for the duration; a machine without
    /// a readable source fails ("no power sensor readable") with no figure.
    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        let found = (self.discover)();
        if let Some(why) = found.why_none() {
            return Err(BenchError::System(why));
        }
        let mut result = BenchResult::new(names::IDLE);
        result.set_param(param::DURATION_S, self.config.duration.as_secs_f64());
        let meter = Meter::new(found.sources);
        let t0 = Instant::now();
        result.started_at = Utc::now();
        let first = meter.poll(t0);
        let mut last = (t0, first.clone());
        let mut series: Vec<Vec<(f64, f64)>> = vec![Vec::new(); first.len()];
        let steps = self.config.duration.as_nanos().div_ceil(STEP.as_nanos()) as u64;
        ctx.progress.start("idle draw", steps);
        let mut cancelled = false;
        loop {
            let elapsed = t0.elapsed();
            if elapsed >= self.config.duration {
                break;
            }
            if ctx.cancel.is_cancelled() {
                cancelled = true;
                break;
            }
            let next = (last.0 - t0 + STEP).min(self.config.duration);
            std::thread::sleep(next.saturating_sub(elapsed).min(Duration::from_millis(100)));
            if t0.elapsed() < next {
                continue;
            }
            let now = Instant::now();
            let totals = meter.poll(now);
            let secs = now.duration_since(last.0).as_secs_f64();
            for (i, points) in series.iter_mut().enumerate() {
                if let (Some(a), Some(b)) = (last.1[i], totals[i]) {
                    points.push((now.duration_since(t0).as_secs_f64(), (b - a) / secs));
                }
            }
            last = (now, totals);
            ctx.progress.advance(1);
        }
        ctx.progress.finish();
        result.ended_at = Utc::now();
        let secs = last.0.duration_since(t0).as_secs_f64();
        for (i, s) in meter.sources().iter().enumerate() {
            let (Some(a), Some(b)) = (first[i], last.1[i]) else {
                continue;
            };
            if secs <= 0.0 || secs < s.shortest.as_secs_f64() {
                continue;
            }
            let tag = |m: Metric| {
                m.label(label::SOURCE, s.source)
                    .label(label::SCOPE, s.scope)
                    .label(label::SENSOR, &s.sensor)
            };
            let joules = (b - a).max(0.0);
            result.metrics.push(tag(Metric::new(
                metric::ENERGY,
                joules,
                Unit::Joules,
                Better::Lower,
            )));
            result.metrics.push(tag(Metric::new(
                metric::POWER,
                joules / secs,
                Unit::Watts,
                Better::Neither,
            )));
            let mut ts = TimeSeries {
                name: metric::POWER.into(),
                unit: Unit::Watts,
                labels: Default::default(),
                points: std::mem::take(&mut series[i]),
            };
            for (k, v) in [
                (label::SOURCE, s.source),
                (label::SCOPE, s.scope),
                (label::SENSOR, s.sensor.as_str()),
            ] {
                ts.labels.insert(k.into(), v.into());
            }
            result.series.push(ts);
        }
        if result.metrics.is_empty() {
            return Err(BenchError::System(format!(
                "{}: no source gave a reading over {secs:.1} s",
                super::NONE_READABLE
            )));
        }
        if cancelled {
            result.mark_cancelled();
        }
        ctx.record(result).map(|_| ())
    }
}

/// One source's idle draw.
#[derive(Debug, Clone, PartialEq)]
pub struct IdleDraw {
    /// `names::energy::source`.
    pub source: String,
    /// The sensor (`intel-rapl:0`).
    pub sensor: String,
    /// Its average watts at idle.
    pub watts: f64,
}

/// A stored idle run: which, when, and each source's draw.
#[derive(Debug, Clone, PartialEq)]
pub struct Idle {
    /// The run's id in the store.
    pub run_id: i64,
    /// When it measured (its result's start).
    pub at: DateTime<Utc>,
    pub draws: Vec<IdleDraw>,
}

impl Idle {
    /// The idle draw `run` holds: its passed [`names::IDLE`] result's
    /// `power` per source; `None` when it has no id or no such figure.
    pub fn from_run(run: &Run) -> Option<Idle> {
        let result = run
            .results
            .iter()
            .rev()
            .find(|r| r.benchmark == names::IDLE && r.status == ResultStatus::Passed)?;
        let draws: Vec<IdleDraw> = result
            .metrics_named(metric::POWER)
            .filter(|m| m.unit == Unit::Watts && m.value.is_finite())
            .filter_map(|m| {
                Some(IdleDraw {
                    source: m.labels.get(label::SOURCE)?.clone(),
                    sensor: m.labels.get(label::SENSOR)?.clone(),
                    watts: m.value,
                })
            })
            .collect();
        if draws.is_empty() {
            return None;
        }
        Some(Idle {
            run_id: run.id?,
            at: result.started_at,
            draws,
        })
    }

    /// The idle watts of `source`'s `sensor`, if the idle run read it.
    pub fn watts(&self, source: &str, sensor: &str) -> Option<f64> {
        self.draws
            .iter()
            .find(|d| d.source == source && d.sensor == sensor)
            .map(|d| d.watts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_duration_is_one_second_to_one_hour() {
        assert!(IdleConfig::default().validate().is_ok());
        for secs in [0.5, 3601.0] {
            let e = IdleConfig {
                duration: Duration::from_secs_f64(secs),
            }
            .validate()
            .unwrap_err()
            .to_string();
            assert!(e.starts_with("--duration: ") && !e.contains('\n'), "{e}");
        }
    }

    #[test]
    fn the_idle_draw_is_a_passed_idle_result_s_watts_per_sensor() {
        let mut run = Run::start(vec![], Default::default());
        let watts = |v: f64, sensor: &str| {
            Metric::new(metric::POWER, v, Unit::Watts, Better::Neither)
                .label(label::SOURCE, "rapl")
                .label(label::SENSOR, sensor)
        };
        let mut ok = BenchResult::new(names::IDLE);
        ok.metrics = vec![watts(20.0, "intel-rapl:0"), watts(5.0, "intel-rapl:0:0")];
        let failed = BenchResult::failure(names::IDLE, "run", super::super::NONE_READABLE);
        run.results = vec![ok.clone(), failed];
        assert_eq!(Idle::from_run(&run), None, "a run without an id");
        run.id = Some(7);
        let idle = Idle::from_run(&run).unwrap();
        assert_eq!((idle.run_id, idle.at), (7, ok.started_at));
        assert_eq!(idle.watts("rapl", "intel-rapl:0"), Some(20.0));
        assert_eq!(idle.watts("rapl", "intel-rapl:0:0"), Some(5.0));
        assert_eq!(idle.watts("hwmon", "intel-rapl:0"), None);
        run.results.remove(0);
        assert_eq!(Idle::from_run(&run), None, "only a failed idle result");
    }
}
