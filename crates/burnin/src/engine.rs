//! The burn-in engine: every workload loops on its own thread at once,
//! sending a [`Sample`] per finished iteration; this thread gathers them,
//! polls the machine's error sources, and commits a checkpoint result per
//! workload (and one for the machine, with the interval's telemetry) every
//! interval. Memory stays flat: only the current interval's samples, the
//! first window's samples until their median is known, and counts are kept.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use nodebench_core::bench::{BenchError, Cancel, Context, NoProgress, Progress, ResultSink};
use nodebench_core::inventory::Inventory;
use nodebench_core::names::burnin::{self as names, metric, param};
use nodebench_core::{BenchResult, Better, Metric, Unit};
use nodebench_machine::energy::Found;
use nodebench_machine::telemetry::Sampler;

use crate::config::BurninConfig;
use crate::degrade::{self, Baseline};
use crate::events::EventKind;
use crate::heap;
use crate::power::Power;
use crate::verdict::{Finding, Verdict, WorkloadVerdict, when};
use crate::watch::{MachineEvent, MachineWatch};
use crate::workload::{Sample, Workload, sample};

/// How often the machine's error sources are read between checkpoints.
const POLL_INTERVAL: Duration = Duration::from_secs(5);
/// How often the user's cancel flag is looked at while waiting.
const CANCEL_CHECK: Duration = Duration::from_millis(200);
/// An iteration shorter than this is padded, so a workload that fails at
/// once (a refused connection) does not spin.
const MIN_ITERATION: Duration = Duration::from_millis(200);
/// Machine event details kept per interval (the counts are all kept).
const DETAILS_PER_INTERVAL: usize = 10;

/// What the engine needs besides the workloads.
pub struct Burnin<'a> {
    /// Duration, checkpoint interval, degradation allowance.
    pub config: BurninConfig,
    /// The machine, for the benchmarks that size themselves by it.
    pub inventory: &'a Inventory,
    /// Ctrl-C / SIGTERM: ends the run cleanly, keeping what finished.
    pub cancel: Cancel,
    /// One step per checkpoint.
    pub progress: &'a dyn Progress,
    /// Telemetry; each machine checkpoint carries its interval's series.
    pub telemetry: Option<&'a Sampler>,
    /// The machine's error sources.
    pub watch: MachineWatch,
    /// The machine's power sources (`machine::energy::discover`), read
    /// each second; none: no power figure.
    pub power: Found,
}

/// How a burn-in ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The verdict over what ran.
    pub verdict: Verdict,
    /// Stopped by Ctrl-C / SIGTERM before its duration.
    pub interrupted: bool,
    /// Checkpoints committed (per workload, plus the machine's).
    pub checkpoints: u64,
}

/// One workload's state: the current interval and the whole run's counts.
struct Track {
    samples: Vec<(DateTime<Utc>, f64)>,
    unit: Option<Unit>,
    iterations: u64,
    errors: u64,
    first_error: Option<(DateTime<Utc>, String)>,
    /// Made once every workload has finished an iteration.
    baseline: Option<Baseline>,
    verdict: WorkloadVerdict,
}

impl Track {
    fn new(name: &str) -> Track {
        Track {
            samples: Vec::new(),
            unit: None,
            iterations: 0,
            errors: 0,
            first_error: None,
            baseline: None,
            verdict: WorkloadVerdict {
                name: name.to_string(),
                iterations: 0,
                error: None,
                degradation: None,
                worst_percent: None,
            },
        }
    }

    fn add(&mut self, s: Sample) {
        self.iterations += 1;
        self.verdict.iterations += 1;
        if let Some((v, unit)) = s.throughput {
            self.samples.push((s.at, v));
            self.unit = Some(unit);
            // Only iterations begun with the whole mix running count.
            if let Some(b) = &mut self.baseline
                && s.began >= b.window_start()
            {
                b.add(s.at, v);
            }
        }
        if let Some(e) = s.error {
            self.errors += 1;
            match &mut self.verdict.error {
                Some(f) => f.count += 1,
                None => {
                    self.verdict.error = Some(Finding::new(&self.verdict.name, e.clone(), s.at))
                }
            }
            if self.first_error.is_none() {
                self.first_error = Some((s.at, e));
            }
        }
    }
}

/// The machine's state: the interval's events and one finding per kind.
#[derive(Default)]
struct MachineTrack {
    events: u64,
    details: Vec<String>,
    findings: Vec<(EventKind, Finding)>,
}

impl MachineTrack {
    fn add(&mut self, at: DateTime<Utc>, e: MachineEvent, started_at: DateTime<Utc>) {
        self.events += e.count;
        if self.details.len() < DETAILS_PER_INTERVAL {
            self.details.push(format!(
                "{} at {}: {}",
                e.kind.describe(),
                when(at, started_at),
                e.detail
            ));
        }
        match self.findings.iter_mut().find(|(k, _)| *k == e.kind) {
            Some((_, f)) => f.count += e.count,
            None => self.findings.push((
                e.kind,
                Finding {
                    count: e.count,
                    ..Finding::new(
                        names::SYSTEM,
                        format!("{}: {}", e.kind.describe(), e.detail),
                        at,
                    )
                },
            )),
        }
    }
}

/// `start + d` as a wall-clock time.
fn at(start: DateTime<Utc>, d: Duration) -> DateTime<Utc> {
    start + chrono::Duration::from_std(d).unwrap_or(chrono::Duration::MAX)
}

impl Burnin<'_> {
    /// Runs `workloads` at once for the configured duration, committing
    /// every checkpoint into `sink` as its interval ends. A sink that
    /// refuses a checkpoint stops the run with [`BenchError::Sink`].
    pub fn run(
        mut self,
        workloads: &[Workload],
        sink: &mut dyn ResultSink,
    ) -> Result<Outcome, BenchError> {
        let cfg = self.config.clone();
        let started_at = Utc::now();
        let t0 = Instant::now();
        let mut tracks: Vec<Track> = workloads.iter().map(|w| Track::new(&w.name)).collect();
        let mut machine = MachineTrack::default();
        let total = cfg.duration.as_nanos().div_ceil(cfg.checkpoint.as_nanos()) as u64;
        self.progress.start("burn-in checkpoints", total);

        heap::fix_mmap_threshold();
        let stop = Cancel::new();
        let (tx, rx) = mpsc::channel::<(usize, Sample)>();
        let inventory = self.inventory;
        let mut checkpoints = 0u64;
        let mut interrupted = false;
        let mut cp_start = Duration::ZERO;
        let mut failure: Option<BenchError> = None;
        let mut power = Power::new(std::mem::take(&mut self.power));
        std::thread::scope(|scope| {
            for (i, w) in workloads.iter().enumerate() {
                let (tx, stop) = (tx.clone(), stop.clone());
                scope.spawn(move || iterate(i, w, inventory, &stop, &tx));
            }
            drop(tx);
            let mut next_poll = POLL_INTERVAL;
            loop {
                if self.cancel.is_cancelled() {
                    interrupted = true;
                    break;
                }
                if let Some(p) = &mut power {
                    p.sample();
                }
                let now = t0.elapsed();
                let cp_end = (cp_start + cfg.checkpoint).min(cfg.duration);
                if now >= cp_end {
                    self.poll(&mut machine, started_at);
                    checkpoints += 1;
                    if let Err(e) = self.commit(
                        sink,
                        &mut tracks,
                        &mut machine,
                        power.as_mut(),
                        workloads,
                        started_at,
                        cp_start,
                        cp_end,
                        checkpoints,
                    ) {
                        failure = Some(e);
                        break;
                    }
                    heap::release_free_memory();
                    self.progress.advance(1);
                    cp_start = cp_end;
                    if cp_end >= cfg.duration {
                        break;
                    }
                    continue;
                }
                if now >= next_poll {
                    self.poll(&mut machine, started_at);
                    next_poll += POLL_INTERVAL;
                }
                let mut wait = cp_end.min(next_poll).saturating_sub(now).min(CANCEL_CHECK);
                if let Some(p) = &power {
                    wait = wait.min(p.due_in());
                }
                if let Ok((i, s)) = rx.recv_timeout(wait) {
                    tracks[i].add(s);
                    if let Some((start, end)) = start_baselines(&mut tracks, cfg.baseline_window())
                        && let Some(p) = &mut power
                    {
                        p.start_baseline(start, end);
                    }
                }
            }
            stop.cancel();
            // The iterations under way end at once (cancelled) and are
            // not samples; the threads are joined when the scope ends.
        });
        if let Some(e) = failure {
            self.progress.finish();
            return Err(e);
        }
        // Samples sent before the stop that were not received yet.
        for (i, s) in rx.try_iter() {
            tracks[i].add(s);
        }
        let now = t0.elapsed().min(cfg.duration);
        if interrupted && now > cp_start {
            self.poll(&mut machine, started_at);
            checkpoints += 1;
            self.commit(
                sink,
                &mut tracks,
                &mut machine,
                power.as_mut(),
                workloads,
                started_at,
                cp_start,
                now,
                checkpoints,
            )?;
        }
        self.progress.finish();
        let verdict = Verdict {
            started_at,
            degrade_percent: cfg.degrade_percent,
            workloads: tracks
                .into_iter()
                .map(|mut t| {
                    if t.verdict.iterations == 0 && t.verdict.error.is_none() && !interrupted {
                        t.verdict.error = Some(Finding::new(
                            &t.verdict.name,
                            "no iteration finished in the whole run",
                            started_at,
                        ));
                    }
                    t.verdict
                })
                .collect(),
            machine: machine.findings.into_iter().map(|(_, f)| f).collect(),
            unwatched: self.watch.unreadable().to_vec(),
            power: power.map(Power::warnings).unwrap_or_default(),
        };
        Ok(Outcome {
            verdict,
            interrupted,
            checkpoints,
        })
    }

    fn poll(&mut self, machine: &mut MachineTrack, started_at: DateTime<Utc>) {
        let now = Utc::now();
        for e in self.watch.poll() {
            machine.add(now, e, started_at);
        }
    }

    /// Commits checkpoint `n` of `[from, to)` (offsets from the start): one
    /// result per workload, then the machine's; resets the interval.
    #[allow(clippy::too_many_arguments)]
    fn commit(
        &self,
        sink: &mut dyn ResultSink,
        tracks: &mut [Track],
        machine: &mut MachineTrack,
        power: Option<&mut Power>,
        workloads: &[Workload],
        started_at: DateTime<Utc>,
        from: Duration,
        to: Duration,
        n: u64,
    ) -> Result<(), BenchError> {
        let cfg = &self.config;
        let (from_t, to_t) = (at(started_at, from), at(started_at, to));
        let base = |workload: &str| {
            let mut r = BenchResult::new(names::CHECKPOINT);
            r.started_at = from_t;
            r.ended_at = to_t;
            r.set_param(param::WORKLOAD, workload);
            r.set_param(param::CHECKPOINT, n);
            r.set_param(param::OFFSET_S, from.as_secs_f64());
            r.set_param(param::INTERVAL_S, cfg.checkpoint.as_secs_f64());
            r.set_param(param::DEGRADE_PERCENT, cfg.degrade_percent);
            r
        };
        for (t, w) in tracks.iter_mut().zip(workloads) {
            let mut r = base(&w.name);
            r.set_param(param::THROUGHPUT_OF, w.throughput.describe());
            let count =
                |name: &str, v: u64| Metric::new(name, v as f64, Unit::Count, Better::Lower);
            r.metrics.push(Metric {
                better: Better::Higher,
                ..count(metric::ITERATIONS, t.iterations)
            });
            r.metrics.push(count(metric::ERRORS, t.errors));
            if let Some(unit) = t.unit
                && !t.samples.is_empty()
            {
                let vals = t.samples.iter().map(|(_, v)| *v);
                let mean = vals.clone().sum::<f64>() / t.samples.len() as f64;
                let min = vals.clone().fold(f64::INFINITY, f64::min);
                let max = vals.fold(f64::NEG_INFINITY, f64::max);
                for (name, v) in [
                    (metric::THROUGHPUT_MEAN, mean),
                    (metric::THROUGHPUT_MIN, min),
                    (metric::THROUGHPUT_MAX, max),
                ] {
                    r.metrics.push(Metric::new(name, v, unit, Better::Higher));
                }
            }
            if let Some(b) = &mut t.baseline {
                b.settle(to_t);
            }
            let baseline = t
                .baseline
                .as_ref()
                .and_then(|b| Some((b.median()?, b.window_end())));
            if let Some((base_median, window_end)) = baseline {
                if let Some(unit) = t.unit {
                    r.metrics.push(Metric::new(
                        metric::BASELINE_MEDIAN,
                        base_median,
                        unit,
                        Better::Higher,
                    ));
                }
                if let Some(j) =
                    degrade::judge(base_median, window_end, &t.samples, cfg.degrade_percent)
                {
                    r.metrics.push(Metric::new(
                        metric::PERCENT_OF_BASELINE,
                        j.percent_of_baseline,
                        Unit::Percent,
                        Better::Higher,
                    ));
                    let worst = t.verdict.worst_percent.get_or_insert(j.percent_of_baseline);
                    *worst = worst.min(j.percent_of_baseline);
                    if j.degraded {
                        let what = format!(
                            "throughput median {:.1} % of the first window's median",
                            j.percent_of_baseline
                        );
                        r.warnings.push(format!("degraded: {what}"));
                        match &mut t.verdict.degradation {
                            Some(f) => f.count += 1,
                            None => {
                                t.verdict.degradation = Some(Finding::new(
                                    &w.name,
                                    what,
                                    j.first_below.unwrap_or(from_t),
                                ))
                            }
                        }
                    }
                }
            }
            if let Some((at_err, e)) = &t.first_error {
                r.mark_failed(format!(
                    "{} failed iteration(s), the first at {}: {e}",
                    t.errors,
                    when(*at_err, started_at)
                ));
            }
            sink.record(r)?;
            t.samples.clear();
            t.iterations = 0;
            t.errors = 0;
            t.first_error = None;
        }
        let mut r = base(names::SYSTEM);
        r.metrics.push(Metric::new(
            metric::ERRORS,
            machine.events as f64,
            Unit::Count,
            Better::Lower,
        ));
        if !self.watch.unreadable().is_empty() {
            r.set_param(param::UNREADABLE, self.watch.unreadable());
        }
        if !machine.details.is_empty() {
            r.mark_failed(machine.details.join("; "));
        }
        if let Some(p) = power {
            p.commit(&mut r, from_t, to_t, cfg.degrade_percent);
        }
        if let Some(sampler) = self.telemetry {
            r.series.extend(sampler.window(from_t, to_t));
        }
        sink.record(r)?;
        machine.events = 0;
        machine.details.clear();
        Ok(())
    }
}

/// Once every workload has finished an iteration (the whole mix is
/// running), starts each one's baseline window from now; returns the
/// window when it starts it.
fn start_baselines(
    tracks: &mut [Track],
    window: Duration,
) -> Option<(DateTime<Utc>, DateTime<Utc>)> {
    if tracks
        .iter()
        .any(|t| t.baseline.is_some() || t.verdict.iterations == 0)
    {
        return None;
    }
    let now = Utc::now();
    for t in tracks {
        t.baseline = Some(Baseline::new(now, at(now, window)));
    }
    Some((now, at(now, window)))
}

/// One workload's thread: runs iteration after iteration until `stop`,
/// sending each finished one's sample.
fn iterate(
    index: usize,
    w: &Workload,
    inventory: &Inventory,
    stop: &Cancel,
    tx: &mpsc::Sender<(usize, Sample)>,
) {
    while !stop.is_cancelled() {
        let began = Instant::now();
        let began_at = Utc::now();
        let bench = (w.make)();
        let mut results: Vec<BenchResult> = Vec::new();
        let outcome = {
            let mut ctx = Context {
                cancel: stop.clone(),
                progress: &NoProgress,
                inventory,
                sink: &mut results,
            };
            bench.run(&mut ctx)
        };
        if stop.is_cancelled() {
            return;
        }
        if tx
            .send((index, sample(w, began_at, Utc::now(), &outcome, &results)))
            .is_err()
        {
            return;
        }
        while began.elapsed() < MIN_ITERATION && !stop.is_cancelled() {
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::watch::Sources;
    use crate::workload::Throughput;
    use nodebench_core::ResultStatus;
    use nodebench_core::bench::{Benchmark, NoProgress};
    use std::sync::Arc;

    /// An iteration recording `rate` = `value`, failed when `fail`.
    struct Fake {
        value: f64,
        fail: bool,
    }

    impl Benchmark for Fake {
        fn id(&self) -> &'static str {
            "test.fake"
        }
        fn validate(&self) -> Result<(), BenchError> {
            Ok(())
        }
        fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
            std::thread::sleep(Duration::from_millis(30));
            let mut r = BenchResult::new("test.fake");
            r.metrics.push(Metric::new(
                "rate",
                self.value,
                Unit::OpsPerSecond,
                Better::Higher,
            ));
            if self.fail {
                r.mark_failed("validation: checksum mismatch");
            }
            ctx.record(r).map(|_| ())
        }
    }

    /// A workload whose iterations give `value(elapsed)` and fail when
    /// `fail(elapsed)`.
    fn fake(
        name: &str,
        t0: Arc<Instant>,
        value: fn(Duration) -> f64,
        fail: fn(Duration) -> bool,
    ) -> Workload {
        Workload {
            name: name.into(),
            make: Box::new(move || {
                let e = t0.elapsed();
                Box::new(Fake {
                    value: value(e),
                    fail: fail(e),
                })
            }),
            throughput: Throughput {
                benchmark: "test.fake",
                metric: "rate",
                labels: vec![],
            },
            error_counts: vec![],
        }
    }

    fn burnin<'a>(inventory: &'a Inventory, dir: &std::path::Path) -> Burnin<'a> {
        Burnin {
            config: BurninConfig {
                duration: Duration::from_millis(2400),
                checkpoint: Duration::from_millis(600),
                degrade_percent: 10.0,
                ..BurninConfig::default()
            },
            inventory,
            cancel: Cancel::new(),
            progress: &NoProgress,
            telemetry: None,
            watch: MachineWatch::open_at(&Sources {
                sys: dir.join("sys"),
                proc: dir.join("proc"),
                kmsg: dir.join("kmsg"),
            }),
            power: Found::default(),
        }
    }

    #[test]
    fn checkpoints_errors_and_degradation_with_when_they_began() {
        let dir = tempfile::tempdir().unwrap();
        let inventory = Inventory::default();
        let t0 = Arc::new(Instant::now());
        let workloads = vec![
            fake("steady", t0.clone(), |_| 100.0, |_| false),
            fake(
                "slows",
                t0.clone(),
                |e| if e.as_secs_f64() < 1.3 { 100.0 } else { 50.0 },
                |_| false,
            ),
            fake("breaks", t0.clone(), |_| 100.0, |e| e.as_secs_f64() >= 1.3),
        ];
        let mut sink: Vec<BenchResult> = Vec::new();
        let out = burnin(&inventory, dir.path())
            .run(&workloads, &mut sink)
            .unwrap();
        assert!(!out.interrupted);
        assert_eq!(out.checkpoints, 4);
        // 4 checkpoints x (3 workloads + the machine), in order.
        assert_eq!(sink.len(), 16);
        for (i, r) in sink.iter().enumerate() {
            assert_eq!(r.benchmark, names::CHECKPOINT);
            assert_eq!(
                r.param(param::CHECKPOINT),
                Some(&serde_json::json!(i / 4 + 1))
            );
        }
        let of = |w: &str| -> Vec<&BenchResult> {
            sink.iter()
                .filter(|r| r.param(param::WORKLOAD) == Some(&serde_json::json!(w)))
                .collect()
        };
        let steady = of("steady");
        assert!(steady.iter().all(|r| r.status == ResultStatus::Passed));
        assert_eq!(
            steady[0]
                .metric(metric::THROUGHPUT_MEAN, &[])
                .unwrap()
                .value,
            100.0
        );
        assert!(steady[0].metric(metric::ITERATIONS, &[]).unwrap().value >= 1.0);
        assert_eq!(of(names::SYSTEM).len(), 4);

        let breaks = of("breaks");
        assert_eq!(breaks[0].status, ResultStatus::Passed);
        assert_eq!(breaks[3].status, ResultStatus::Failed);
        assert!(
            breaks[3]
                .error
                .as_deref()
                .unwrap()
                .contains("test.fake failed: validation: checksum mismatch")
        );

        let v = &out.verdict;
        assert!(!v.passed());
        let w = |n: &str| v.workloads.iter().find(|w| w.name == n).unwrap();
        assert!(w("steady").error.is_none() && w("steady").degradation.is_none());
        assert_eq!(w("steady").worst_percent, Some(100.0));
        let err = w("breaks").error.as_ref().unwrap();
        let began = (err.began - v.started_at).num_milliseconds();
        assert!((1300..2000).contains(&began), "error began {began} ms in");
        assert!(w("breaks").degradation.is_none());
        let slow = w("slows").degradation.as_ref().unwrap();
        let began = (slow.began - v.started_at).num_milliseconds();
        assert!(
            (1300..2000).contains(&began),
            "degradation began {began} ms in"
        );
        assert_eq!(w("slows").worst_percent, Some(50.0));
        assert!(w("slows").error.is_none());
    }

    #[test]
    fn a_cancelled_run_commits_the_partial_interval_and_says_so() {
        let dir = tempfile::tempdir().unwrap();
        let inventory = Inventory::default();
        let t0 = Arc::new(Instant::now());
        let workloads = vec![fake("steady", t0, |_| 100.0, |_| false)];
        let b = burnin(&inventory, dir.path());
        let cancel = b.cancel.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(900));
            cancel.cancel();
        });
        let mut sink: Vec<BenchResult> = Vec::new();
        let out = b.run(&workloads, &mut sink).unwrap();
        assert!(out.interrupted);
        assert_eq!(out.checkpoints, 2, "one whole interval and the partial one");
        assert_eq!(sink.len(), 4);
        let last = &sink[2];
        let span = (last.ended_at - last.started_at).num_milliseconds();
        assert!((200..600).contains(&span), "partial interval {span} ms");
        assert!(out.verdict.passed());
    }
}
