//! The metrics of one IOzone cell: per test, bandwidth, IOPS, latency
//! percentiles and the latency histogram, bytes and operations, and in
//! throughput mode IOzone's six throughput-mode figures.

use std::collections::BTreeMap;

use nodebench_core::config::Choice;
use nodebench_core::latency;
use nodebench_core::names::disk::{label, metric};
use nodebench_core::{BenchResult, Better, Histogram, Metric, Unit};

use super::config::Test;
use crate::job::JobOutcome;

/// What every worker did in one test of a cell.
pub(super) struct TestFigures {
    /// One outcome per worker.
    pub per_worker: Vec<JobOutcome>,
    /// Seconds from the common start (every worker's job set up) to the
    /// end of the last worker.
    pub wall: f64,
}

impl TestFigures {
    /// The workers' operations per second, summed (each over its own time).
    pub fn iops(&self) -> f64 {
        self.per_worker
            .iter()
            .map(|o| o.ops as f64 / o.seconds.max(1e-12))
            .sum()
    }
}

/// The labels of `test`'s figures in a cell.
fn cell_labels(
    test: Test,
    file_size: u64,
    record: u64,
    workers: usize,
) -> BTreeMap<String, String> {
    [
        (label::TEST, test.as_str().to_string()),
        (label::FILE_SIZE, file_size.to_string()),
        (label::RECORD, record.to_string()),
        (label::WORKERS, workers.to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// Appends each test's IOPS in steady-state round `round`.
pub(super) fn record_round(
    result: &mut BenchResult,
    figures: &[(Test, TestFigures)],
    file_size: u64,
    record: u64,
    workers: usize,
    round: usize,
) {
    for (test, f) in figures {
        let mut m = Metric::new(
            metric::ROUND_IOPS,
            f.iops(),
            Unit::OpsPerSecond,
            Better::Higher,
        );
        m.labels = cell_labels(*test, file_size, record, workers);
        m.labels.insert(label::ROUND.to_string(), round.to_string());
        result.metrics.push(m);
    }
}

/// Appends the metrics and histograms of the tests in `figures`, measured on
/// `workers` files of `file_size` bytes in `record`-byte records.
pub(super) fn record_cell(
    result: &mut BenchResult,
    figures: &[(Test, TestFigures)],
    file_size: u64,
    record: u64,
    workers: usize,
    throughput: bool,
) {
    for (test, f) in figures {
        let labels = cell_labels(*test, file_size, record, workers);
        let mut push = |name: &str, value: f64, unit: Unit| {
            let better = if unit == Unit::Seconds {
                Better::Lower
            } else {
                Better::Higher
            };
            let mut m = Metric::new(name, value, unit, better);
            m.labels = labels.clone();
            result.metrics.push(m);
        };
        let rates: Vec<f64> = f
            .per_worker
            .iter()
            .map(|o| o.bytes as f64 / o.seconds.max(1e-12))
            .collect();
        let children = rates.iter().sum::<f64>();
        let bytes: u64 = f.per_worker.iter().map(|o| o.bytes).sum();
        let ops: u64 = f.per_worker.iter().map(|o| o.ops).sum();
        let mut hist = latency::histogram();
        for o in &f.per_worker {
            let _ = hist.add(&o.latency_ns);
        }
        push(metric::BANDWIDTH, children, Unit::BytesPerSecond);
        push(metric::IOPS, f.iops(), Unit::OpsPerSecond);
        for (name, v) in crate::job::percentile_metrics(&hist) {
            push(name, v, Unit::Seconds);
        }
        push(metric::BYTES, bytes as f64, Unit::Bytes);
        push(metric::OPERATIONS, ops as f64, Unit::Count);
        if throughput {
            let min_xfer = f
                .per_worker
                .iter()
                .map(|o| o.bytes_when_first_done.unwrap_or(o.bytes))
                .min()
                .unwrap_or(0);
            let min = rates.iter().copied().fold(f64::INFINITY, f64::min);
            let max = rates.iter().copied().fold(0.0, f64::max);
            let avg = children / rates.len().max(1) as f64;
            let parent = bytes as f64 / f.wall.max(1e-12);
            for (name, v) in [
                (metric::CHILDREN_SEE, children),
                (metric::PARENT_SEES, parent),
                (metric::MIN_PER_WORKER, min),
                (metric::MAX_PER_WORKER, max),
                (metric::AVG_PER_WORKER, avg),
            ] {
                push(name, v, Unit::BytesPerSecond);
            }
            push(metric::MIN_XFER, min_xfer as f64, Unit::Bytes);
        }
        result.histograms.push(Histogram::from_hdr(
            metric::LATENCY,
            Unit::Seconds,
            1e9,
            labels,
            &hist,
        ));
    }
}
