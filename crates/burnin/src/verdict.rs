//! The burn-in's verdict: PASS when no workload had an error or a
//! degradation and the machine reported no event; otherwise FAIL, naming
//! each finding and when it began. Stored with the run as threshold
//! verdicts (one per workload and rule, one for the machine), so `runs
//! show`, `--json` and the JUnit export carry it.

use chrono::{DateTime, Utc};
use nodebench_core::{ThresholdVerdict, Unit};

/// One error or degradation: where, what, when it began, how often.
#[derive(Debug, Clone, PartialEq)]
pub struct Finding {
    /// The workload, or [`nodebench_core::names::burnin::SYSTEM`].
    pub source: String,
    /// What was seen (the first occurrence's text).
    pub what: String,
    /// When it began.
    pub began: DateTime<Utc>,
    /// How many times (failed iterations, events, degraded intervals).
    pub count: u64,
}

impl Finding {
    /// A finding seen once at `at`.
    pub fn new(source: &str, what: impl Into<String>, at: DateTime<Utc>) -> Finding {
        Finding {
            source: source.to_string(),
            what: what.into(),
            began: at,
            count: 1,
        }
    }
}

/// One workload's judgement over the whole run.
#[derive(Debug, Clone, PartialEq)]
pub struct WorkloadVerdict {
    /// Workload name.
    pub name: String,
    /// Iterations finished.
    pub iterations: u64,
    /// Its first error and how many iterations failed.
    pub error: Option<Finding>,
    /// Its first degradation and how many intervals were degraded.
    pub degradation: Option<Finding>,
    /// The lowest interval median as a percentage of the baseline median,
    /// when any interval was judged.
    pub worst_percent: Option<f64>,
}

/// The verdict of a whole burn-in.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    /// When the run started (findings also say their offset from it).
    pub started_at: DateTime<Utc>,
    /// `--degrade`, %.
    pub degrade_percent: f64,
    /// Per workload, in the order given.
    pub workloads: Vec<WorkloadVerdict>,
    /// Machine events, one finding per kind.
    pub machine: Vec<Finding>,
    /// Machine error sources that could not be watched.
    pub unwatched: Vec<String>,
    /// Power sources whose draw rose more than `--degrade` above their
    /// first window's median: warnings, not failures.
    pub power: Vec<Finding>,
}

/// `05:51:02 UTC (+0:01:05)`: a time and its offset into the run.
pub fn when(at: DateTime<Utc>, started_at: DateTime<Utc>) -> String {
    let s = (at - started_at).num_seconds().max(0);
    format!(
        "{} (+{}:{:02}:{:02})",
        at.format("%Y-%m-%d %H:%M:%S UTC"),
        s / 3600,
        s / 60 % 60,
        s % 60
    )
}

impl Verdict {
    /// True when nothing was found.
    pub fn passed(&self) -> bool {
        self.machine.is_empty()
            && self
                .workloads
                .iter()
                .all(|w| w.error.is_none() && w.degradation.is_none())
    }

    /// One line per finding, first by when it began: `SOURCE: WHAT, began
    /// TIME, N time(s)`.
    pub fn findings(&self) -> Vec<String> {
        let mut all: Vec<(&Finding, &str)> = Vec::new();
        for w in &self.workloads {
            if let Some(e) = &w.error {
                all.push((e, "failed iteration(s)"));
            }
            if let Some(d) = &w.degradation {
                all.push((d, "degraded interval(s)"));
            }
        }
        all.extend(self.machine.iter().map(|f| (f, "event(s)")));
        all.sort_by_key(|(f, _)| f.began);
        all.iter()
            .map(|(f, unit)| {
                format!(
                    "{}: {}; began {}; {} {unit}",
                    f.source,
                    f.what,
                    when(f.began, self.started_at),
                    f.count
                )
            })
            .collect()
    }

    /// One line per power warning, first by when it began: `power SENSOR:
    /// WHAT; began TIME; N interval(s)`.
    pub fn warnings(&self) -> Vec<String> {
        let mut all: Vec<&Finding> = self.power.iter().collect();
        all.sort_by_key(|f| f.began);
        all.iter()
            .map(|f| {
                format!(
                    "{}: {}; began {}; {} interval(s) above",
                    f.source,
                    f.what,
                    when(f.began, self.started_at),
                    f.count
                )
            })
            .collect()
    }

    /// The verdict as threshold verdicts: per workload "no errors" and
    /// "throughput within --degrade of the first window's median", and one
    /// for the machine's events.
    pub fn threshold_verdicts(&self) -> Vec<ThresholdVerdict> {
        let mut out = Vec::new();
        for w in &self.workloads {
            out.push(ThresholdVerdict {
                threshold: format!("burnin {}: no errors", w.name),
                passed: w.error.is_none(),
                measured: Some(w.error.as_ref().map_or(0, |e| e.count) as f64),
                unit: Some(Unit::Count),
                matched: w.iterations as usize,
                detail: w
                    .error
                    .as_ref()
                    .map(|e| format!("began {}: {}", when(e.began, self.started_at), e.what)),
            });
            out.push(ThresholdVerdict {
                threshold: format!(
                    "burnin {}: throughput >= {}% of the first window's median",
                    w.name,
                    100.0 - self.degrade_percent
                ),
                passed: w.degradation.is_none(),
                measured: w.worst_percent,
                unit: w.worst_percent.map(|_| Unit::Percent),
                matched: w.iterations as usize,
                detail: match (&w.degradation, w.worst_percent) {
                    (Some(d), _) => Some(format!(
                        "began {}: {}; {} degraded interval(s)",
                        when(d.began, self.started_at),
                        d.what,
                        d.count
                    )),
                    (None, None) => Some("no interval after the first window to judge".into()),
                    (None, Some(_)) => Some("lowest interval median".into()),
                },
            });
        }
        let events: u64 = self.machine.iter().map(|f| f.count).sum();
        let mut detail: Vec<String> = self
            .machine
            .iter()
            .map(|f| format!("{} began {}", f.what, when(f.began, self.started_at)))
            .collect();
        if !self.unwatched.is_empty() {
            detail.push(format!("not watched: {}", self.unwatched.join("; ")));
        }
        out.push(ThresholdVerdict {
            threshold:
                "burnin system: no machine-check, EDAC, throttling or kernel-log error events"
                    .into(),
            passed: self.machine.is_empty(),
            measured: Some(events as f64),
            unit: Some(Unit::Count),
            matched: self.machine.len(),
            detail: (!detail.is_empty()).then(|| detail.join("; ")),
        });
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn t(s: i64) -> DateTime<Utc> {
        Utc.timestamp_opt(1_764_000_000 + s, 0).unwrap()
    }

    fn clean(name: &str) -> WorkloadVerdict {
        WorkloadVerdict {
            name: name.into(),
            iterations: 10,
            error: None,
            degradation: None,
            worst_percent: Some(97.0),
        }
    }

    #[test]
    fn nothing_found_passes() {
        let v = Verdict {
            started_at: t(0),
            degrade_percent: 10.0,
            workloads: vec![clean("cpu"), clean("http")],
            machine: vec![],
            unwatched: vec!["kernel log not readable (/dev/kmsg: Permission denied)".into()],
            power: vec![],
        };
        assert!(v.passed());
        assert!(v.findings().is_empty());
        let tv = v.threshold_verdicts();
        assert_eq!(tv.len(), 5);
        assert!(tv.iter().all(|t| t.passed));
        assert_eq!(
            tv[1].threshold,
            "burnin cpu: throughput >= 90% of the first window's median"
        );
        assert!(
            tv[4]
                .detail
                .as_deref()
                .unwrap()
                .contains("not watched: kernel log not readable")
        );
    }

    #[test]
    fn findings_fail_and_say_when_they_began_in_order() {
        let mut http = clean("http");
        http.error = Some(Finding {
            count: 12,
            ..Finding::new("http", "http.load: 40 non_2xx", t(65))
        });
        let mut cpu = clean("cpu");
        cpu.degradation = Some(Finding::new(
            "cpu",
            "median 80.0 % of the first window's",
            t(3725),
        ));
        let v = Verdict {
            started_at: t(0),
            degrade_percent: 10.0,
            workloads: vec![cpu, http],
            machine: vec![Finding::new("system", "thermal throttling", t(4000))],
            unwatched: vec![],
            power: vec![],
        };
        assert!(!v.passed());
        let lines = v.findings();
        assert_eq!(lines.len(), 3);
        assert!(
            lines[0].starts_with("http: http.load: 40 non_2xx; began "),
            "{}",
            lines[0]
        );
        assert!(
            lines[0].ends_with("(+0:01:05); 12 failed iteration(s)"),
            "{}",
            lines[0]
        );
        assert!(
            lines[1].contains("(+1:02:05); 1 degraded interval(s)"),
            "{}",
            lines[1]
        );
        assert!(
            lines[2].starts_with("system: thermal throttling"),
            "{}",
            lines[2]
        );
        let tv = v.threshold_verdicts();
        let failed: Vec<&str> = tv
            .iter()
            .filter(|t| !t.passed)
            .map(|t| t.threshold.as_str())
            .collect();
        assert_eq!(
            failed,
            vec![
                "burnin cpu: throughput >= 90% of the first window's median",
                "burnin http: no errors",
                "burnin system: no machine-check, EDAC, throttling or kernel-log error events"
            ]
        );
        assert_eq!(tv[2].measured, Some(12.0));
    }
}
