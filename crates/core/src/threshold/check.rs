//! Refusing, before anything runs, a threshold that can never match: its
//! benchmark is not one the command runs, its metric is not one that
//! benchmark produces ([`crate::registry::catalog`]), a label key it names is
//! not one of the benchmark's, a label value is outside a finite set, or
//! its bound's unit is of another dimension than the metric's. The refusal
//! names what is wrong and the nearest valid name.

use super::{Threshold, ThresholdError};
use crate::model::Unit;
use crate::names::cpu;
use crate::names::labels::KERNEL;
use crate::registry::catalog;

/// The closest of `candidates` to `word` when it is close enough to be a
/// slip (an edit distance of at most a third of its length, and at least
/// 2), for "did you mean".
pub fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).max(2);
    candidates
        .into_iter()
        .map(|c| (strsim::levenshtein(word, c), c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

/// `; did you mean 'X'?` when there is a near name, else the accepted
/// names.
fn hint(word: &str, candidates: &[&str]) -> String {
    match nearest(word, candidates.iter().copied()) {
        Some(n) => format!("; did you mean '{n}'?"),
        None => format!(" (accepted: {})", candidates.join(", ")),
    }
}

/// Whether a bound in `bound` can be compared with a metric in `metric`:
/// the same unit, or both rates of operations (integer and floating-point
/// kernels share one metric name in `cpu.ops`).
fn same_dimension(bound: Unit, metric: Unit) -> bool {
    let rate = |u| matches!(u, Unit::OpsPerSecond | Unit::FlopsPerSecond);
    bound == metric || (rate(bound) && rate(metric))
}

impl Threshold {
    /// Refuses this threshold when it cannot match a result of a command
    /// that runs the benchmarks `runs` (their ids; repeats allowed).
    pub fn check(&self, runs: &[&str]) -> Result<(), ThresholdError> {
        let refuse = |why: String| Err(ThresholdError(format!("threshold '{}': {why}", self.text)));
        if !runs.contains(&self.benchmark.as_str()) {
            let mut ids: Vec<&str> = runs.to_vec();
            ids.sort_unstable();
            ids.dedup();
            let near = nearest(
                &self.benchmark,
                ids.iter()
                    .copied()
                    .chain(catalog::all().iter().map(|s| s.id)),
            );
            let known = catalog::spec(&self.benchmark).is_some();
            let what = if known {
                format!("this command does not run {}", self.benchmark)
            } else {
                format!("unknown benchmark '{}'", self.benchmark)
            };
            return match near {
                Some(n) if n != self.benchmark => refuse(format!(
                    "{what}; did you mean '{n}'? (it runs: {})",
                    ids.join(", ")
                )),
                _ => refuse(format!("{what} (it runs: {})", ids.join(", "))),
            };
        }
        let Some(spec) = catalog::spec(&self.benchmark) else {
            return Ok(());
        };
        let Some(metric) = spec.metric(&self.metric) else {
            let names: Vec<&str> = spec.metric_names();
            return refuse(format!(
                "unknown metric '{}' for {}{}",
                self.metric,
                spec.id,
                hint(&self.metric, &names)
            ));
        };
        for (key, value) in &self.labels {
            let Some(label) = spec.label(key) else {
                let keys: Vec<&str> = spec.label_keys();
                return refuse(format!(
                    "unknown label '{key}' for {}{}",
                    spec.id,
                    hint(key, &keys)
                ));
            };
            if let Some(values) = label.values
                && !values.contains(&value.as_str())
            {
                return refuse(format!(
                    "unknown value '{value}' of label {key} for {}{}",
                    spec.id,
                    match nearest(value, values.iter().copied()) {
                        Some(n) =>
                            format!("; did you mean '{n}'? (accepted: {})", values.join(", ")),
                        None => format!(" (accepted: {})", values.join(", ")),
                    }
                ));
            }
        }
        // `cpu.ops rate` is op/s for the integer kernels and flop/s for the
        // floating-point ones: a bound naming a kernel must be in its unit.
        // Without a kernel the bound may meet only kernels of its unit (the
        // command may run no other), and judging fails one of the other.
        if let Some(unit) = self.unit
            && spec.id == cpu::OPS
            && metric.name == cpu::RATE
        {
            let kernel = self
                .labels
                .iter()
                .find(|(k, _)| k.as_str() == KERNEL)
                .map(|(_, v)| v.as_str());
            let want = match kernel {
                Some(k) if k.starts_with("int.") => Some(Unit::OpsPerSecond),
                Some(_) => Some(Unit::FlopsPerSecond),
                None => None,
            };
            if let Some(want) = want
                && unit != want
            {
                return refuse(format!(
                    "the bound is in {} but {} {}{{{KERNEL}={}}} is in {}",
                    unit.symbol(),
                    spec.id,
                    metric.name,
                    kernel.unwrap_or("?"),
                    want.symbol()
                ));
            }
        }
        if let Some(unit) = self.unit
            && !same_dimension(unit, metric.unit)
        {
            return refuse(format!(
                "the bound is in {} but {} {} is in {}",
                unit.symbol(),
                spec.id,
                metric.name,
                metric.unit.symbol()
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(text: &str, runs: &[&str]) -> String {
        let t: Threshold = text.parse().unwrap();
        t.check(runs).unwrap_err().0
    }

    #[test]
    fn thresholds_that_can_match_pass() {
        for (text, runs) in [
            (
                "memory.stream bandwidth{kernel=triad} >= 20 GB/s",
                &["memory.stream"][..],
            ),
            (
                "cpu.ops rate{threads=2,kernel=f64.vector} >= 50 GFLOPS",
                &["cpu.ops"],
            ),
            ("cpu.ops rate{threads=2} >= 50 GFLOPS", &["cpu.ops"]),
            ("cpu.ops rate{threads=2} >= 50 Gop/s", &["cpu.ops"]),
            (
                "cpu.ops rate{kernel=int.scalar} >= 5000 Mop/s",
                &["cpu.ops"],
            ),
            ("cpu.ops efficiency >= 90%", &["cpu.ops", "cpu.linpack"]),
            ("http.load requests_failed == 0", &["http.load"]),
            (
                "gpu.gemm rate{precision=bf16,n=8192} >= 700 TFLOPS",
                &["gpu.gemm"],
            ),
            ("gpu.burn mismatched_elements == 0", &["gpu.burn"]),
            ("gpu.burn power_max <= 700 W", &["gpu.burn"]),
            (
                "gpu.burn throttled_percent{throttle=hw_thermal} == 0",
                &["gpu.burn"],
            ),
            (
                "gpu.bandwidth bandwidth{direction=d2d,peer=1} >= 300 GB/s",
                &["gpu.bandwidth"],
            ),
        ] {
            let t: Threshold = text.parse().unwrap();
            assert_eq!(t.check(runs), Ok(()), "{text}");
        }
    }

    #[test]
    fn the_issue_examples_are_refused_with_the_nearest_name() {
        let e = refusal("memory.strem bandwidth >= 1 GB/s", &["memory.stream"]);
        assert!(e.contains("unknown benchmark 'memory.strem'"), "{e}");
        assert!(e.contains("did you mean 'memory.stream'"), "{e}");
        let e = refusal("memory.stream bandwith >= 1 GB/s", &["memory.stream"]);
        assert!(
            e.contains("unknown metric 'bandwith' for memory.stream; did you mean 'bandwidth'?"),
            "{e}"
        );
        let e = refusal(
            "memory.stream bandwidth{kernel=traid} >= 1 GB/s",
            &["memory.stream"],
        );
        assert!(e.contains("unknown value 'traid' of label kernel"), "{e}");
        assert!(e.contains("did you mean 'triad'"), "{e}");
        let e = refusal("memory.stream bandwidth >= 1 GFLOPS", &["memory.stream"]);
        assert!(e.contains("the bound is in flop/s"), "{e}");
        assert!(e.contains("is in B/s"), "{e}");
        let e = refusal("cpu.ops rate{kernel=int.scalar} >= 5 GFLOPS", &["cpu.ops"]);
        assert!(
            e.contains("the bound is in flop/s but cpu.ops rate{kernel=int.scalar} is in op/s"),
            "{e}"
        );
        let e = refusal("cpu.ops rate{kernel=f32.vector} >= 5 Gop/s", &["cpu.ops"]);
        assert!(e.contains("is in flop/s"), "{e}");
        let e = refusal(
            "memory.stream bandwidth{kernal=triad} >= 1 GB/s",
            &["memory.stream"],
        );
        assert!(e.contains("unknown label 'kernal'"), "{e}");
        assert!(e.contains("did you mean 'kernel'"), "{e}");
        let e = refusal(
            "disk.iozone throughput >= 1 MB/s",
            &["cpu.ops", "memory.stream"],
        );
        assert!(e.contains("this command does not run disk.iozone"), "{e}");
        assert!(e.contains("it runs: cpu.ops, memory.stream"), "{e}");
    }

    #[test]
    fn gpu_thresholds_name_their_mistakes() {
        let e = refusal("gpu.gemm rate{precision=fp4} >= 1 TFLOPS", &["gpu.gemm"]);
        assert!(e.contains("unknown value 'fp4' of label precision"), "{e}");
        let e = refusal("gpu.burn power_max <= 700 GB/s", &["gpu.burn"]);
        assert!(e.contains("the bound is in B/s"), "{e}");
        assert!(e.contains("is in W"), "{e}");
        let e = refusal("gpu.burn mismatches == 0", &["gpu.burn"]);
        assert!(
            e.contains("unknown metric 'mismatches' for gpu.burn"),
            "{e}"
        );
        assert!(e.contains("mismatched_elements, xid_errors"), "{e}");
    }

    #[test]
    fn energy_thresholds_are_checked_like_any_other() {
        for (text, runs) in [
            ("cpu.linpack gflops_per_watt >= 4", &["cpu.linpack"][..]),
            (
                "gpu.gemm gflops_per_watt{precision=bf16} >= 500",
                &["gpu.gemm"],
            ),
            ("gpu.gemm energy{power_source=nvml} <= 5 kJ", &["gpu.gemm"]),
            ("http.load requests_per_joule >= 100", &["http.load"]),
            (
                "memory.stream power{power_scope=package+dram} <= 400 W",
                &["memory.stream"],
            ),
        ] {
            let t: Threshold = text.parse().unwrap();
            assert_eq!(t.check(runs), Ok(()), "{text}");
        }
        let e = refusal("memory.stream gflops_per_watt >= 1", &["memory.stream"]);
        assert!(
            e.contains("unknown metric 'gflops_per_watt' for memory.stream"),
            "{e}"
        );
        let e = refusal(
            "cpu.linpack energy{power_source=acpi} <= 1 kJ",
            &["cpu.linpack"],
        );
        assert!(
            e.contains("unknown value 'acpi' of label power_source"),
            "{e}"
        );
        assert!(e.contains("accepted: rapl, hwmon, ipmi, nvml"), "{e}");
        let e = refusal("cpu.linpack energy <= 1 kW", &["cpu.linpack"]);
        assert!(e.contains("the bound is in W"), "{e}");
        assert!(e.contains("is in J"), "{e}");
    }

    #[test]
    fn nearest_takes_only_slips() {
        assert_eq!(
            nearest("bandwith", ["bandwidth", "time_avg"]),
            Some("bandwidth")
        );
        assert_eq!(nearest("latency", ["bandwidth", "time_avg"]), None);
    }
}
