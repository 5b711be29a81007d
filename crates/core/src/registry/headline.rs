//! Each benchmark's headline figure: the one figure of a result that
//! `--repeat auto` repeats the benchmark until it is sure of (its 95 %
//! interval narrow enough), one per benchmark in its
//! [descriptor](crate::registry::Descriptor::headline).
//!
//! A headline is a metric name and, where the metric is recorded under
//! several labels that are not alike (STREAM's kernels, IOzone's tests),
//! the labels that pick the figure meant. Among the result's metrics that
//! match it (a rate per thread count), the best by the metric's
//! orientation is the headline: the highest rate, the lowest time.

use crate::model::{BenchResult, Better, Metric};

/// One benchmark's headline figure: its descriptor's
/// [`headline`](crate::registry::Descriptor::headline).
pub type Headline = crate::registry::Figure;

/// The headline of benchmark `id`, if it has one.
pub fn headline(id: &str) -> Option<&'static Headline> {
    crate::registry::get(id).map(|d| &d.headline)
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
    use crate::names::labels::KERNEL;
    use crate::names::{db, disk, memory};

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
