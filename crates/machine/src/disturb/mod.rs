//! What disturbed each result: counters read at each result's and each
//! phase's start and end (this process's CPU time, every other process's
//! CPU time from /proc/[pid]/stat, per-CPU busy and steal time from
//! /proc/stat, `pswpin` from /proc/vmstat, the CPUs' thermal throttle
//! counts), so sub-second phases are covered too, turned into a
//! [`Disturbance`] per result and per phase and judged against
//! [`account::OTHERS_SHARE`] and [`account::STEAL_SHARE`].
//!
//! The runner drives a [`Watch`]: [`Watch::begin`] before the run,
//! [`Watch::mark`] before each benchmark and at every phase boundary (the
//! store's recorder calls it from `ResultSink::boundary`), and
//! [`Watch::finish`] as each result is handed over, which reads the end,
//! attaches the disturbance of the result and of each of its phases, and
//! adds a `disturbed` warning for each that is over a threshold.
//!
//! The CPUs a span's work ran on are those its threads were pinned to
//! during it (`affinity::pin_counts`), else every CPU this process may use.

pub mod account;
pub mod workload;

use std::time::Instant;

use chrono::{DateTime, Utc};
use nodebench_core::affinity;
use nodebench_core::disturbance::Disturbance;
use nodebench_core::{BenchResult, Phase};

pub use account::{Counters, OTHERS_SHARE, STEAL_SHARE};

use crate::procs;
use crate::sysroot::Roots;
use crate::telemetry::proc as parse;

pub use nodebench_core::disturbance::WARNING;

/// The sum of each CPU's `thermal_throttle/*_throttle_count` files, for the
/// CPUs of `cpus`; empty where none has such a directory.
pub fn throttle_counts(roots: &Roots, cpus: &[u32]) -> Vec<(u32, u64)> {
    cpus.iter()
        .filter_map(|&cpu| {
            let dir = roots.sys(&format!("devices/system/cpu/cpu{cpu}/thermal_throttle"));
            let entries = std::fs::read_dir(dir).ok()?;
            let sum = entries
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with("_throttle_count"))
                .filter_map(|e| std::fs::read_to_string(e.path()).ok())
                .filter_map(|t| t.trim().parse::<u64>().ok())
                .sum();
            Some((cpu, sum))
        })
        .collect()
}

impl Counters {
    /// Reads every counter now, under `roots`.
    pub fn read(roots: &Roots) -> Counters {
        let text = |rel: &str| std::fs::read_to_string(roots.proc(rel)).unwrap_or_default();
        let stat = parse::parse_stat(&text("stat"));
        let cpus: Vec<u32> = stat.cpus.iter().map(|(n, _)| *n).collect();
        let (user, system) = nodebench_core::cputime::process();
        Counters {
            throttle: throttle_counts(roots, &cpus),
            cpus: stat.cpus,
            own_cpu_s: (user + system).as_secs_f64(),
            pswpin: parse::parse_vmstat(&text("vmstat")).pswpin,
            procs: procs::Snapshot::take(roots).ok(),
        }
    }
}

/// The counters at one moment, with the pin counts and the time.
#[derive(Debug, Clone)]
struct Mark {
    at: DateTime<Utc>,
    instant: Instant,
    pins: Vec<u64>,
    counters: Counters,
}

impl Mark {
    fn take(roots: &Roots) -> Mark {
        let at = Utc::now();
        let instant = Instant::now();
        let pins = affinity::pin_counts();
        Mark {
            at,
            instant,
            pins,
            counters: Counters::read(roots),
        }
    }
}

/// The watch of one run: the marks since the last result.
#[derive(Debug)]
pub struct Watch {
    roots: Roots,
    allowed: Vec<u32>,
    tick_s: f64,
    marks: Vec<Mark>,
}

impl Watch {
    /// Starts watching the live machine (or the trees the environment
    /// names): the first mark.
    pub fn begin() -> Watch {
        Watch::begin_at(Roots::from_env())
    }

    /// Starts watching the machine under `roots`.
    pub fn begin_at(roots: Roots) -> Watch {
        let allowed = affinity::allowed_cpus()
            .into_iter()
            .map(|c| c as u32)
            .collect();
        let first = Mark::take(&roots);
        Watch {
            roots,
            allowed,
            tick_s: 1.0 / procs::ticks_per_second().max(1) as f64,
            marks: vec![first],
        }
    }

    /// Reads the counters now: a benchmark or a phase begins or ends.
    pub fn mark(&mut self) {
        self.marks.push(Mark::take(&self.roots));
    }

    /// The latest mark taken at or before `t` (the first when none was).
    fn mark_at(&self, t: DateTime<Utc>) -> &Mark {
        self.marks
            .iter()
            .rev()
            .find(|m| m.at <= t)
            .unwrap_or(&self.marks[0])
    }

    /// The span between two marks.
    fn span(&self, a: &Mark, b: &Mark) -> Disturbance {
        let pinned: Vec<u32> = affinity::pinned_between(&a.pins, &b.pins)
            .into_iter()
            .map(|c| c as u32)
            .collect();
        let cpus = if pinned.is_empty() {
            &self.allowed
        } else {
            &pinned
        };
        account::account(
            &a.counters,
            &b.counters,
            cpus,
            b.instant.saturating_duration_since(a.instant).as_secs_f64(),
            self.tick_s,
            procs::own_pid(),
            &workload::during(a.instant, b.instant),
        )
    }

    /// Reads the end of `result` now and attaches its disturbance and each
    /// phase's, with a `disturbed` warning for each over a threshold; the
    /// marks before it are dropped.
    pub fn finish(&mut self, result: &mut BenchResult) {
        let end = Mark::take(&self.roots);
        let start = self.mark_at(result.started_at);
        let whole = self.span(start, &end);
        let offset = |s: f64| result.started_at + chrono::Duration::microseconds((s * 1e6) as i64);
        let phases: Vec<Option<Disturbance>> = result
            .phases
            .iter()
            .map(|p: &Phase| {
                let a = self.mark_at(offset(p.start_s));
                let b = self.mark_at(offset(p.end_s));
                (b.instant > a.instant).then(|| self.span(a, b))
            })
            .collect();
        if let Some(r) = &whole.reason {
            result.warnings.push(format!("{WARNING}: {r}"));
        }
        for (p, d) in result.phases.iter_mut().zip(phases) {
            if let Some(r) = d.as_ref().and_then(|d| d.reason.as_ref()) {
                result
                    .warnings
                    .push(format!("{WARNING} [{}]: {r}", p.describe()));
            }
            p.disturbance = d;
        }
        result.disturbance = Some(whole);
        self.marks.clear();
        self.marks.push(end);
    }
}

#[cfg(test)]
mod tests;
