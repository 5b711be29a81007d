//! A workload of the mixed load: a factory of one short run of an existing
//! benchmark (made afresh for every iteration), which of its metrics is the
//! throughput, and which count failures. Turning one iteration's outcome
//! into a [`Sample`] is a pure function.

use chrono::{DateTime, Utc};
use nodebench_core::bench::{BenchError, Benchmark};
use nodebench_core::{BenchResult, ResultStatus, Unit};

/// Makes the benchmark of one iteration.
pub type Factory = Box<dyn Fn() -> Box<dyn Benchmark> + Send + Sync>;

/// Which metric of an iteration's results is the workload's throughput.
#[derive(Debug, Clone, PartialEq)]
pub struct Throughput {
    /// The benchmark id of the result that carries it.
    pub benchmark: &'static str,
    /// The metric name.
    pub metric: &'static str,
    /// Labels the metric must have (others may be present).
    pub labels: Vec<(&'static str, &'static str)>,
}

impl Throughput {
    /// `BENCHMARK METRIC{k=v,...}`, as stored in the checkpoints.
    pub fn describe(&self) -> String {
        let labels: Vec<String> = self
            .labels
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        if labels.is_empty() {
            format!("{} {}", self.benchmark, self.metric)
        } else {
            format!("{} {}{{{}}}", self.benchmark, self.metric, labels.join(","))
        }
    }

    /// The first matching metric among `results`, with its unit.
    pub fn pick(&self, results: &[BenchResult]) -> Option<(f64, Unit)> {
        results
            .iter()
            .filter(|r| r.benchmark == self.benchmark)
            .find_map(|r| r.metric(self.metric, &self.labels))
            .map(|m| (m.value, m.unit))
    }
}

/// One workload of the burn-in.
pub struct Workload {
    /// Its name in checkpoints, tables and findings (`cpu`, `http`).
    pub name: String,
    /// Makes one iteration's benchmark.
    pub make: Factory,
    /// Where its throughput is.
    pub throughput: Throughput,
    /// Metrics of a passed result that count failures (HTTP's
    /// `requests_failed`, `non_2xx`): any above zero is an error.
    pub error_counts: Vec<&'static str>,
}

/// What one finished iteration of a workload gave.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample {
    /// When it began.
    pub began: DateTime<Utc>,
    /// When it ended.
    pub at: DateTime<Utc>,
    /// Its throughput, when the metric was there.
    pub throughput: Option<(f64, Unit)>,
    /// What went wrong, when something did.
    pub error: Option<String>,
}

/// Judges one iteration of `workload`: its outcome and the results it
/// recorded. A benchmark error, a failed result (a validation or verify
/// mismatch), a failure count above zero or a missing throughput is an error.
pub fn sample(
    workload: &Workload,
    began: DateTime<Utc>,
    at: DateTime<Utc>,
    outcome: &Result<(), BenchError>,
    results: &[BenchResult],
) -> Sample {
    let mut problems: Vec<String> = Vec::new();
    if let Err(e) = outcome {
        problems.push(e.to_string());
    }
    for r in results {
        if r.status == ResultStatus::Failed {
            problems.push(format!(
                "{} failed: {}",
                r.benchmark,
                r.error.as_deref().unwrap_or("no reason given")
            ));
        }
        let counts: Vec<String> = workload
            .error_counts
            .iter()
            .flat_map(|name| r.metrics_named(name))
            .filter(|m| m.value > 0.0)
            .map(|m| format!("{} {}", m.value, m.key()))
            .collect();
        if !counts.is_empty() {
            problems.push(format!("{}: {}", r.benchmark, counts.join(", ")));
        }
    }
    let throughput = workload.throughput.pick(results);
    if throughput.is_none() && problems.is_empty() {
        problems.push(format!(
            "no {} in the results",
            workload.throughput.describe()
        ));
    }
    Sample {
        began,
        at,
        throughput,
        error: (!problems.is_empty()).then(|| problems.join("; ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::bench::Context;
    use nodebench_core::{Better, Metric};

    struct Nothing;
    impl Benchmark for Nothing {
        fn id(&self) -> &'static str {
            "test.nothing"
        }
        fn validate(&self) -> Result<(), BenchError> {
            Ok(())
        }
        fn run(&self, _ctx: &mut Context<'_>) -> Result<(), BenchError> {
            Ok(())
        }
    }

    fn http() -> Workload {
        Workload {
            name: "http".into(),
            make: Box::new(|| Box::new(Nothing)),
            throughput: Throughput {
                benchmark: "http.load",
                metric: "requests_per_second",
                labels: vec![],
            },
            error_counts: vec!["requests_failed", "non_2xx"],
        }
    }

    fn load(rate: f64, non_2xx: f64) -> BenchResult {
        let mut r = BenchResult::new("http.load");
        r.metrics.push(Metric::new(
            "requests_per_second",
            rate,
            Unit::OpsPerSecond,
            Better::Higher,
        ));
        r.metrics.push(Metric::new(
            "requests_failed",
            0.0,
            Unit::Count,
            Better::Lower,
        ));
        r.metrics
            .push(Metric::new("non_2xx", non_2xx, Unit::Count, Better::Lower));
        r
    }

    #[test]
    fn a_clean_iteration_gives_its_throughput() {
        let s = sample(
            &http(),
            Utc::now(),
            Utc::now(),
            &Ok(()),
            &[load(1200.0, 0.0)],
        );
        assert_eq!(s.throughput, Some((1200.0, Unit::OpsPerSecond)));
        assert_eq!(s.error, None);
    }

    #[test]
    fn failure_counts_failed_results_and_errors_are_errors() {
        let s = sample(
            &http(),
            Utc::now(),
            Utc::now(),
            &Ok(()),
            &[load(900.0, 37.0)],
        );
        assert_eq!(s.error.as_deref(), Some("http.load: 37 non_2xx"));
        assert_eq!(s.throughput, Some((900.0, Unit::OpsPerSecond)));

        let mut failed = load(10.0, 0.0);
        failed.mark_failed("--verify: data read back at offset 4096 differs");
        let s = sample(&http(), Utc::now(), Utc::now(), &Ok(()), &[failed]);
        assert_eq!(
            s.error.as_deref(),
            Some("http.load failed: --verify: data read back at offset 4096 differs")
        );

        let s = sample(
            &http(),
            Utc::now(),
            Utc::now(),
            &Err(BenchError::System("connection refused".into())),
            &[],
        );
        assert_eq!(s.error.as_deref(), Some("connection refused"));
        assert_eq!(s.throughput, None);

        let s = sample(&http(), Utc::now(), Utc::now(), &Ok(()), &[]);
        assert_eq!(
            s.error.as_deref(),
            Some("no http.load requests_per_second in the results")
        );
    }

    #[test]
    fn the_throughput_metric_is_picked_by_benchmark_and_labels() {
        let t = Throughput {
            benchmark: "net.tcp",
            metric: "throughput",
            labels: vec![("side", "receiver")],
        };
        assert_eq!(t.describe(), "net.tcp throughput{side=receiver}");
        let mut r = BenchResult::new("net.tcp");
        r.metrics.push(
            Metric::new("throughput", 1.0, Unit::BytesPerSecond, Better::Higher)
                .label("side", "sender"),
        );
        r.metrics.push(
            Metric::new("throughput", 2.0, Unit::BytesPerSecond, Better::Higher)
                .label("side", "receiver"),
        );
        assert_eq!(
            t.pick(&[BenchResult::new("net.pingpong"), r]),
            Some((2.0, Unit::BytesPerSecond))
        );
    }
}
