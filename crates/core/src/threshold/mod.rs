//! Acceptance thresholds: `BENCHMARK METRIC[{LABEL=VALUE,...}] OP BOUND`,
//! e.g. `memory.stream bandwidth{kernel=triad} >= 20 GB/s`,
//! `http.load latency{latency=corrected,percentile=99} <= 50ms`,
//! `http.load requests_failed == 0`. A [`Threshold`] is parsed from that
//! text (`--assert`, a suite's `thresholds`) and judged against a run's
//! results into a [`ThresholdVerdict`], which the run stores.
//!
//! The bound's unit is converted to the metric's canonical unit (rates in
//! B/s, times in s, FLOP/s...); decimal prefixes are powers of 1000 and the
//! `Ki`/`Mi`/`Gi`/`Ti` ones powers of 1024; `bit/s`, `Mbps`... are divided
//! by 8 into B/s. Every metric the expression matches must hold (with
//! several, the verdict reports the one furthest from the bound).

mod check;

pub use check::nearest;

use std::collections::BTreeMap;
use std::fmt;
use std::str::FromStr;

use crate::model::{BenchResult, ThresholdVerdict, Unit};

/// The accepted form of a threshold, for error messages.
pub const GRAMMAR: &str = "BENCHMARK METRIC[{LABEL=VALUE,...}] OP VALUE[UNIT], OP one of >= <= > < == !=, e.g. 'memory.stream bandwidth{kernel=triad} >= 20 GB/s' or 'http.load requests_failed == 0'";

/// How a measured value is set against the bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `>=`
    AtLeast,
    /// `<=`
    AtMost,
    /// `>`
    Above,
    /// `<`
    Below,
    /// `==`
    Equal,
    /// `!=`
    NotEqual,
}

impl Op {
    /// The operators, longest spelling first (so `>=` is found before `>`).
    const ALL: [(Op, &'static str); 6] = [
        (Op::AtLeast, ">="),
        (Op::AtMost, "<="),
        (Op::Equal, "=="),
        (Op::NotEqual, "!="),
        (Op::Above, ">"),
        (Op::Below, "<"),
    ];

    /// Its spelling.
    pub fn as_str(self) -> &'static str {
        Op::ALL
            .iter()
            .find(|(o, _)| *o == self)
            .map(|(_, s)| *s)
            .unwrap_or("?")
    }

    /// Whether `value` satisfies `value OP bound`.
    pub fn holds(self, value: f64, bound: f64) -> bool {
        match self {
            Op::AtLeast => value >= bound,
            Op::AtMost => value <= bound,
            Op::Above => value > bound,
            Op::Below => value < bound,
            Op::Equal => value == bound,
            Op::NotEqual => value != bound,
        }
    }

    /// How far `value` is on the good side of `bound` (negative: on the
    /// bad side); picks the worst of several matched metrics.
    fn margin(self, value: f64, bound: f64) -> f64 {
        match self {
            Op::AtLeast | Op::Above => value - bound,
            Op::AtMost | Op::Below => bound - value,
            Op::Equal => -(value - bound).abs(),
            Op::NotEqual => (value - bound).abs(),
        }
    }
}

/// One acceptance threshold.
#[derive(Debug, Clone, PartialEq)]
pub struct Threshold {
    /// Benchmark id, `area.name`.
    pub benchmark: String,
    /// Metric name.
    pub metric: String,
    /// Labels a metric must carry (others may be present too).
    pub labels: BTreeMap<String, String>,
    /// The comparison.
    pub op: Op,
    /// The bound in the canonical unit of `unit`.
    pub bound: f64,
    /// The unit the bound was given in, canonical; `None` for a bare number,
    /// which is taken in the metric's own unit.
    pub unit: Option<Unit>,
    /// The expression as written, trimmed.
    pub text: String,
    /// Judge only results whose parameter `.0` is the string `.1` (a suite
    /// step's thresholds: [`crate::names::suite::STEP`] = the step name);
    /// `None` judges every result.
    pub scope: Option<(String, String)>,
}

/// Why an expression is not a threshold: its message names the expression
/// and the accepted grammar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThresholdError(pub String);

impl fmt::Display for ThresholdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ThresholdError {}

impl FromStr for Threshold {
    type Err = ThresholdError;

    fn from_str(s: &str) -> Result<Threshold, ThresholdError> {
        let text = s.trim();
        let err = |why: &str| {
            ThresholdError(format!(
                "invalid threshold '{text}': {why}; expected {GRAMMAR}"
            ))
        };
        let (at, op, len) = Op::ALL
            .iter()
            .filter_map(|(op, spelling)| text.find(spelling).map(|i| (i, *op, spelling.len())))
            .min_by_key(|(i, _, len)| (*i, usize::MAX - len))
            .ok_or_else(|| err("no comparison operator"))?;
        let (target, bound) = (text[..at].trim(), text[at + len..].trim());
        let (benchmark, metric_part) = target
            .split_once(char::is_whitespace)
            .ok_or_else(|| err("expected a benchmark id and a metric name before the operator"))?;
        let metric_part = metric_part.trim();
        if !is_id(benchmark) || !benchmark.contains('.') {
            return Err(err(&format!(
                "'{benchmark}' is not a benchmark id such as cpu.ops"
            )));
        }
        let (metric, labels) = match metric_part.split_once('{') {
            None => (metric_part, BTreeMap::new()),
            Some((name, rest)) => {
                let inner = rest
                    .strip_suffix('}')
                    .ok_or_else(|| err("labels must end with '}'"))?;
                let mut labels = BTreeMap::new();
                for pair in inner.split(',').map(str::trim).filter(|p| !p.is_empty()) {
                    let (k, v) = pair
                        .split_once('=')
                        .ok_or_else(|| err(&format!("label '{pair}' is not LABEL=VALUE")))?;
                    labels.insert(k.trim().to_string(), v.trim().to_string());
                }
                (name.trim(), labels)
            }
        };
        if !is_id(metric) {
            return Err(err(&format!("'{metric}' is not a metric name")));
        }
        let (value, unit) = quantity(bound).ok_or_else(|| {
            err(&format!(
                "'{bound}' is not a number with a unit such as 20 GB/s, 50ms, 1.5 GFLOPS, 99%"
            ))
        })?;
        Ok(Threshold {
            benchmark: benchmark.to_string(),
            metric: metric.to_string(),
            labels,
            op,
            bound: value,
            unit,
            text: text.to_string(),
            scope: None,
        })
    }
}

/// A name made of letters, digits, `_`, `.` and `-`.
fn is_id(s: &str) -> bool {
    !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
}

/// Parses `NUMBER[ ]UNIT` into the canonical value and unit; a bare number
/// has no unit.
fn quantity(s: &str) -> Option<(f64, Option<Unit>)> {
    // The longest prefix that is a number, then the unit.
    let (value, rest) = (1..=s.len())
        .rev()
        .filter(|&i| s.is_char_boundary(i))
        .find_map(|i| {
            s[..i]
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .map(|v| (v, &s[i..]))
        })?;
    let unit = rest.trim();
    if unit.is_empty() {
        return Some((value, None));
    }
    let (times, divided_by, unit) = unit_factor(unit)?;
    Some((value * times / divided_by, Some(unit)))
}

/// How a unit as people write it converts into its canonical unit: the
/// value is multiplied by the first number and divided by the second (so
/// that `100 us` is exactly the double nearest 1e-4).
fn unit_factor(unit: &str) -> Option<(f64, f64, Unit)> {
    let fixed = match unit {
        "%" => Some((1.0, 1.0, Unit::Percent)),
        "ns" => Some((1.0, 1e9, Unit::Seconds)),
        "us" | "µs" => Some((1.0, 1e6, Unit::Seconds)),
        "ms" => Some((1.0, 1e3, Unit::Seconds)),
        "s" | "sec" => Some((1.0, 1.0, Unit::Seconds)),
        "min" => Some((60.0, 1.0, Unit::Seconds)),
        "h" => Some((3600.0, 1.0, Unit::Seconds)),
        "cycles" => Some((1.0, 1.0, Unit::Cycles)),
        "bps" => Some((1.0, 8.0, Unit::BytesPerSecond)),
        "IOPS" => Some((1.0, 1.0, Unit::OpsPerSecond)),
        "FLOPS" => Some((1.0, 1.0, Unit::FlopsPerSecond)),
        _ => None,
    };
    if fixed.is_some() {
        return fixed;
    }
    // A prefix (k, M, G, T, or Ki, Mi, Gi, Ti) and a base unit.
    const BASES: [(&str, f64, Unit); 15] = [
        ("B/s", 1.0, Unit::BytesPerSecond),
        ("bit/s", 8.0, Unit::BytesPerSecond),
        ("bps", 8.0, Unit::BytesPerSecond),
        ("B", 1.0, Unit::Bytes),
        ("flop/s", 1.0, Unit::FlopsPerSecond),
        ("FLOPS", 1.0, Unit::FlopsPerSecond),
        ("op/s", 1.0, Unit::OpsPerSecond),
        ("ops/s", 1.0, Unit::OpsPerSecond),
        ("req/s", 1.0, Unit::OpsPerSecond),
        ("IOPS", 1.0, Unit::OpsPerSecond),
        ("Hz", 1.0, Unit::Hertz),
        ("W", 1.0, Unit::Watts),
        ("J", 1.0, Unit::Joules),
        ("/s", 1.0, Unit::OpsPerSecond),
        ("s", 1.0, Unit::Seconds),
    ];
    for (base, divisor, canonical) in BASES {
        let Some(prefix) = unit.strip_suffix(base) else {
            continue;
        };
        let scale = match prefix.trim() {
            "" => 1.0,
            "k" | "K" => 1e3,
            "M" => 1e6,
            "G" => 1e9,
            "T" => 1e12,
            "Ki" => 1024.0,
            "Mi" => 1024.0 * 1024.0,
            "Gi" => 1024.0 * 1024.0 * 1024.0,
            "Ti" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
            _ => continue,
        };
        if canonical == Unit::Seconds {
            // Prefixed seconds are the fixed forms above (ms, us, ns).
            continue;
        }
        return Some((scale, divisor, canonical));
    }
    None
}

impl Threshold {
    /// Whether `result` is one this threshold judges (see [`Threshold::scope`]).
    fn in_scope(&self, result: &BenchResult) -> bool {
        self.scope.as_ref().is_none_or(|(key, value)| {
            result.parameters.get(key).and_then(|v| v.as_str()) == Some(value.as_str())
        })
    }

    /// Judges this threshold against `results`: every metric named
    /// [`metric`](Threshold::metric) with [`labels`](Threshold::labels) in a
    /// result of [`benchmark`](Threshold::benchmark) must hold. No such
    /// metric, or one in another unit than the bound's, fails.
    pub fn judge(&self, results: &[BenchResult]) -> ThresholdVerdict {
        let results: Vec<&BenchResult> = results.iter().filter(|r| self.in_scope(r)).collect();
        let want: Vec<(&str, &str)> = self
            .labels
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let matched: Vec<_> = results
            .iter()
            .filter(|r| r.benchmark == self.benchmark)
            .flat_map(|r| r.metrics_named(&self.metric))
            .filter(|m| m.has_labels(&want))
            .collect();
        let verdict = |passed, measured, unit, detail: Option<String>| ThresholdVerdict {
            threshold: match &self.scope {
                Some((key, value)) => format!("{} [{key}={value}]", self.text),
                None => self.text.clone(),
            },
            passed,
            measured,
            unit,
            matched: matched.len(),
            detail,
        };
        if matched.is_empty() {
            let why = if results.iter().any(|r| r.benchmark == self.benchmark) {
                format!("no {} metric of {} matches", self.metric, self.benchmark)
            } else {
                format!("no {} result in this run", self.benchmark)
            };
            return verdict(false, None, None, Some(why));
        }
        if let Some(m) = matched
            .iter()
            .find(|m| self.unit.is_some_and(|u| u != m.unit))
        {
            return verdict(
                false,
                Some(m.value),
                Some(m.unit),
                Some(format!(
                    "the bound is in {} but {} is in {}",
                    self.unit.map(Unit::symbol).unwrap_or("?"),
                    m.key(),
                    m.unit.symbol()
                )),
            );
        }
        let worst = matched
            .iter()
            .min_by(|a, b| {
                self.op
                    .margin(a.value, self.bound)
                    .total_cmp(&self.op.margin(b.value, self.bound))
            })
            .expect("matched is not empty");
        let passed = matched.iter().all(|m| self.op.holds(m.value, self.bound));
        let detail =
            (matched.len() > 1).then(|| format!("worst of {}: {}", matched.len(), worst.key()));
        verdict(passed, Some(worst.value), Some(worst.unit), detail)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Better, Metric};

    fn t(s: &str) -> Threshold {
        s.parse().unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn parses_the_issue_examples_into_canonical_units() {
        let a = t("memory.stream bandwidth{kernel=triad} >= 20 GB/s");
        assert_eq!(a.benchmark, "memory.stream");
        assert_eq!(a.metric, "bandwidth");
        assert_eq!(a.labels.get("kernel").map(String::as_str), Some("triad"));
        assert_eq!(a.op, Op::AtLeast);
        assert_eq!((a.bound, a.unit), (20e9, Some(Unit::BytesPerSecond)));
        let b = t("http.load latency{latency=corrected,percentile=99} <= 50ms");
        assert_eq!(b.labels.len(), 2);
        assert_eq!((b.bound, b.unit), (0.05, Some(Unit::Seconds)));
        let c = t("http.load requests_failed == 0");
        assert_eq!((c.op, c.bound, c.unit), (Op::Equal, 0.0, None));
    }

    #[test]
    fn units_as_people_write_them() {
        let q = |s| quantity(s).unwrap();
        assert_eq!(q("9.4 Gbit/s"), (9.4e9 / 8.0, Some(Unit::BytesPerSecond)));
        assert_eq!(q("10Gbps"), (10e9 / 8.0, Some(Unit::BytesPerSecond)));
        assert_eq!(q("1.5 GFLOPS"), (1.5e9, Some(Unit::FlopsPerSecond)));
        assert_eq!(
            q("2 GiB/s"),
            (2.0 * 1073741824.0, Some(Unit::BytesPerSecond))
        );
        assert_eq!(q("100 us"), (100e-6, Some(Unit::Seconds)));
        assert_eq!(q("20k req/s"), (20e3, Some(Unit::OpsPerSecond)));
        assert_eq!(q("50000 IOPS"), (5e4, Some(Unit::OpsPerSecond)));
        assert_eq!(q("3.2 GHz"), (3.2e9, Some(Unit::Hertz)));
        assert_eq!(q("95%"), (95.0, Some(Unit::Percent)));
        assert_eq!(q("1e-3"), (1e-3, None));
        assert_eq!(quantity("20 parsecs"), None);
        assert_eq!(quantity("fast"), None);
    }

    #[test]
    fn malformed_expressions_name_themselves_and_the_grammar() {
        for (bad, why) in [
            ("memory.stream bandwidth 20 GB/s", "no comparison operator"),
            ("bandwidth >= 20 GB/s", "expected a benchmark id"),
            (
                "stream bandwidth >= 20 GB/s",
                "'stream' is not a benchmark id",
            ),
            (
                "memory.stream bandwidth{kernel=triad >= 1",
                "labels must end",
            ),
            (
                "memory.stream bandwidth{triad} >= 1",
                "label 'triad' is not LABEL=VALUE",
            ),
            ("memory.stream bandwidth >= lots", "'lots' is not a number"),
        ] {
            let e = bad.parse::<Threshold>().unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("invalid threshold '{bad}': {why}")),
                "{e}"
            );
            assert!(e.contains("expected BENCHMARK METRIC"), "{e}");
            assert!(!e.contains('\n'));
        }
    }

    fn results() -> Vec<BenchResult> {
        let mut r = BenchResult::new("cpu.ops");
        for (threads, rate) in [(1, 50e9), (2, 98e9)] {
            r.metrics.push(
                Metric::new("rate", rate, Unit::FlopsPerSecond, Better::Higher)
                    .label("threads", threads),
            );
        }
        vec![r]
    }

    #[test]
    fn every_matched_metric_must_hold_and_the_worst_is_reported() {
        let v = t("cpu.ops rate >= 60 GFLOPS").judge(&results());
        assert!(!v.passed);
        assert_eq!((v.measured, v.matched), (Some(50e9), 2));
        assert_eq!(v.detail.as_deref(), Some("worst of 2: rate{threads=1}"));
        let v = t("cpu.ops rate{threads=2} >= 60 GFLOPS").judge(&results());
        assert!(v.passed);
        assert_eq!((v.measured, v.matched, v.detail), (Some(98e9), 1, None));
        assert!(t("cpu.ops rate < 100e9").judge(&results()).passed);
        assert!(!t("cpu.ops rate != 50e9").judge(&results()).passed);
    }

    #[test]
    fn gpu_burn_figures_are_judged_in_their_units() {
        let mut r = BenchResult::new("gpu.burn");
        r.metrics
            .push(Metric::new("power_max", 698.5, Unit::Watts, Better::Lower).label("gpu", 0));
        r.metrics.push(
            Metric::new("mismatched_elements", 3.0, Unit::Count, Better::Lower).label("gpu", 1),
        );
        let rs = vec![r];
        assert!(t("gpu.burn power_max <= 700 W").judge(&rs).passed);
        assert!(!t("gpu.burn power_max <= 0.5 kW").judge(&rs).passed);
        let v = t("gpu.burn mismatched_elements == 0").judge(&rs);
        assert!(!v.passed);
        assert_eq!(v.measured, Some(3.0));
    }

    #[test]
    fn nothing_matched_or_a_unit_mismatch_fails_with_why() {
        let v = t("memory.stream bandwidth >= 1 GB/s").judge(&results());
        assert!(!v.passed);
        assert_eq!(
            v.detail.as_deref(),
            Some("no memory.stream result in this run")
        );
        let v = t("cpu.ops speedup >= 1").judge(&results());
        assert_eq!(
            v.detail.as_deref(),
            Some("no speedup metric of cpu.ops matches")
        );
        let v = t("cpu.ops rate >= 1 GB/s").judge(&results());
        assert!(!v.passed);
        assert!(
            v.detail
                .unwrap()
                .starts_with("the bound is in B/s but rate{threads=1} is in flop/s")
        );
    }

    #[test]
    fn a_scoped_threshold_judges_only_the_results_of_its_scope() {
        let mut rs = results();
        rs[0].parameters.insert("step".into(), "one".into());
        let mut other = BenchResult::new("cpu.ops");
        other.parameters.insert("step".into(), "two".into());
        other.metrics.push(Metric::new(
            "rate",
            1e9,
            Unit::FlopsPerSecond,
            Better::Higher,
        ));
        rs.push(other);
        let mut th = t("cpu.ops rate >= 40 GFLOPS");
        assert!(!th.judge(&rs).passed);
        th.scope = Some(("step".into(), "one".into()));
        let v = th.judge(&rs);
        assert!(v.passed);
        assert_eq!(v.matched, 2);
        assert_eq!(v.threshold, "cpu.ops rate >= 40 GFLOPS [step=one]");
        th.scope = Some(("step".into(), "three".into()));
        assert_eq!(
            th.judge(&rs).detail.as_deref(),
            Some("no cpu.ops result in this run")
        );
    }
}
