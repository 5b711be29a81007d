//! Each benchmark's headline figure: the one figure of a result that
//! `--repeat auto` repeats the benchmark until it is sure of (its 95 %
//! interval narrow enough), written once per benchmark id. Every runnable
//! benchmark of the [catalog](super::catalog) has one (a test checks it).
//!
//! A headline is a metric name and, where the metric is recorded under
//! several labels that are not alike (STREAM's kernels, IOzone's tests),
//! the labels that pick the figure meant. Among the result's metrics that
//! match it (a rate per thread count), the best by the metric's
//! orientation is the headline: the highest rate, the lowest time.

use super::labels::KERNEL;
use super::{burnin, cpu, db, disk, energy, fleet, gpu, hpcc, http, linpack, memory, net, scan};
use crate::model::{BenchResult, Better, Metric};

/// One benchmark's headline figure.
#[derive(Debug)]
pub struct Headline {
    /// The benchmark id.
    pub id: &'static str,
    /// The metric's name.
    pub metric: &'static str,
    /// The labels a metric must carry to be the headline; when no metric
    /// of a result carries them (IOzone run without its write test), any
    /// metric of that name is taken.
    pub labels: &'static [(&'static str, &'static str)],
}

impl Headline {
    /// `rate` or `bandwidth{kernel=triad}`, for the printed line.
    pub fn describe(&self) -> String {
        if self.labels.is_empty() {
            return self.metric.to_string();
        }
        let labels: Vec<String> = self
            .labels
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        format!("{}{{{}}}", self.metric, labels.join(","))
    }
}

const fn h(
    id: &'static str,
    metric: &'static str,
    labels: &'static [(&'static str, &'static str)],
) -> Headline {
    Headline { id, metric, labels }
}

/// Every benchmark's headline, keyed by id.
pub const HEADLINES: &[Headline] = &[
    // The best rate over the thread counts.
    h(cpu::OPS, cpu::RATE, &[]),
    h(linpack::LINPACK, linpack::RATE, &[]),
    // STREAM's own headline kernel.
    h(
        memory::STREAM,
        memory::metric::BANDWIDTH,
        &[(KERNEL, memory::kernel::TRIAD)],
    ),
    h(memory::BLOCKS, memory::metric::BANDWIDTH, &[]),
    // The lowest latency is L1's; the figure users repeat for is DRAM's.
    h(
        memory::LATENCY,
        memory::metric::LATENCY,
        &[(memory::label::LEVEL, memory::level::DRAM)],
    ),
    h(memory::NUMA, memory::metric::BANDWIDTH, &[]),
    h(
        memory::LOADED_LATENCY,
        memory::metric::INJECTION_BANDWIDTH,
        &[],
    ),
    h(
        gpu::STREAM,
        gpu::metric::BANDWIDTH,
        &[(KERNEL, gpu::kernel::TRIAD)],
    ),
    h(gpu::GEMM, gpu::metric::RATE, &[]),
    h(gpu::BANDWIDTH, gpu::metric::BANDWIDTH, &[]),
    h(gpu::BURN, gpu::metric::RATE, &[]),
    h(
        disk::IOZONE,
        disk::metric::BANDWIDTH,
        &[(disk::label::TEST, disk::test::WRITE)],
    ),
    h(disk::DD, disk::metric::BANDWIDTH, &[]),
    h(disk::BLOCKS, disk::metric::BANDWIDTH, &[]),
    h(net::TCP, net::metric::THROUGHPUT, &[]),
    h(net::UDP, net::metric::THROUGHPUT, &[]),
    h(net::PINGPONG, net::metric::ROUND_TRIPS, &[]),
    h(http::LOAD, http::load::REQUESTS_PER_SECOND, &[]),
    h(http::SWEEP, http::sweep::SATURATION_RATE, &[]),
    h(http::DOWNLOAD, http::download::THROUGHPUT, &[]),
    // Each AS3AP test's (or query set's) measured seconds.
    h(db::AS3AP, db::metric::SECONDS, &[]),
    // New orders per minute (the load's result has none: it is not repeated
    // to convergence on its own).
    h(db::TPCC, db::tpcc::metric::NOPM, &[]),
    h(scan::SCAN, scan::metric::SECONDS, &[]),
    // HPCC's figures: the best of the modes run (star, every core, where
    // it ran; single where only that did).
    h(cpu::HPCC_DGEMM, hpcc::metric::RATE, &[]),
    h(cpu::HPCC_FFT, hpcc::metric::RATE, &[]),
    h(memory::HPCC_PTRANS, hpcc::metric::BANDWIDTH, &[]),
    h(memory::HPCC_RANDOM_ACCESS, hpcc::metric::UPDATES, &[]),
    h(burnin::CHECKPOINT, burnin::metric::THROUGHPUT_MEAN, &[]),
    // The idle draw: each source's average watts (the highest, where the
    // machine has several).
    h(energy::IDLE, energy::metric::POWER, &[]),
    // The link matrix (`fleet pair --matrix`, never repeated as a whole):
    // the fastest link.
    h(fleet::LINKS, fleet::metric::BANDWIDTH, &[]),
];

/// The headline of benchmark `id`, if it has one.
pub fn headline(id: &str) -> Option<&'static Headline> {
    HEADLINES.iter().find(|h| h.id == id)
}

/// The headline figure of `result`: of its metrics matching its
/// benchmark's [`Headline`], the best by orientation (a figure that is not
/// a performance one: the highest); `None` when its benchmark has no
/// headline or the result holds no such metric.
pub fn of(result: &BenchResult) -> Option<&Metric> {
    let h = headline(&result.benchmark)?;
    let named = || result.metrics.iter().filter(|m| m.name == h.metric);
    let labelled: Vec<&Metric> = named().filter(|m| m.has_labels(h.labels)).collect();
    let candidates = if labelled.is_empty() {
        named().collect()
    } else {
        labelled
    };
    candidates.into_iter().max_by(|a, b| {
        let (x, y) = (a.value, b.value);
        match a.better {
            Better::Lower => y.total_cmp(&x),
            Better::Higher | Better::Neither => x.total_cmp(&y),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Unit;

    #[test]
    fn every_benchmark_in_the_catalog_has_a_headline_it_records() {
        for spec in super::super::catalog::all() {
            let h = headline(spec.id).unwrap_or_else(|| panic!("{}: no headline", spec.id));
            assert!(
                spec.metrics.iter().any(|m| m.name == h.metric),
                "{}: headline {} is not one of its metrics",
                spec.id,
                h.metric
            );
            for (k, v) in h.labels {
                let label = spec.labels.iter().find(|l| l.key == *k).unwrap_or_else(|| {
                    panic!("{}: headline label {k} not in the catalog", spec.id)
                });
                if let Some(values) = label.values {
                    assert!(
                        values.contains(v),
                        "{}: {k}={v} not in the catalog",
                        spec.id
                    );
                }
            }
        }
        // One per id.
        for (i, a) in HEADLINES.iter().enumerate() {
            assert!(HEADLINES[i + 1..].iter().all(|b| b.id != a.id), "{}", a.id);
        }
    }

    #[test]
    fn the_headline_is_the_best_matching_figure() {
        let mut r = BenchResult::new(memory::STREAM);
        let bw = |kernel: &str, threads: u32, v: f64| {
            Metric::new(
                memory::metric::BANDWIDTH,
                v,
                Unit::BytesPerSecond,
                Better::Higher,
            )
            .label(KERNEL, kernel)
            .label("threads", threads)
        };
        r.metrics = vec![
            bw("copy", 1, 50.0),
            bw("triad", 1, 30.0),
            bw("triad", 2, 40.0),
        ];
        assert_eq!(of(&r).unwrap().value, 40.0);
        assert_eq!(
            headline(memory::STREAM).unwrap().describe(),
            "bandwidth{kernel=triad}"
        );
        // Lower is better: the lowest time.
        let mut d = BenchResult::new(db::AS3AP);
        d.metrics = vec![
            Metric::new(db::metric::SECONDS, 3.0, Unit::Seconds, Better::Lower),
            Metric::new(db::metric::SECONDS, 2.0, Unit::Seconds, Better::Lower),
        ];
        assert_eq!(of(&d).unwrap().value, 2.0);
        // Without the labelled figure, any of the metric's.
        let mut io = BenchResult::new(disk::IOZONE);
        io.metrics = vec![
            Metric::new(
                disk::metric::BANDWIDTH,
                7.0,
                Unit::BytesPerSecond,
                Better::Higher,
            )
            .label(disk::label::TEST, disk::test::READ),
        ];
        assert_eq!(of(&io).unwrap().value, 7.0);
        assert!(of(&BenchResult::new("cpu.sysbench")).is_none());
    }
}
