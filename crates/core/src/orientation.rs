//! Which figures are performance figures. A metric records whether higher
//! or lower is better; the figures below are not performance at all
//! (spreads, residuals, error and loss counts, sizes, counts of what was
//! requested or sent, a thread's CPU share) and carry
//! [`Better::Neither`](crate::model::Better::Neither): they are shown, but
//! get no % of baseline, colour, verdict or place in a geometric mean.
//! Written once here, applied where results are recorded, stored and read
//! back ([`settle`]), so runs stored before orientation existed read the
//! same way.

use crate::model::{BenchResult, Better, Metric};
use crate::names::{burnin, db, disk, http, linpack, net, sysbench};

/// Metric names that are not performance figures in any benchmark.
pub const NOT_PERFORMANCE: &[&str] = &[
    // Residuals: a correctness check, not a speed.
    linpack::RESIDUAL,
    linpack::RESIDUAL_NORM,
    // Error, loss and retry counts.
    net::metric::RETRANSMITS,
    net::metric::LOST,
    net::metric::LOST_PACKETS,
    net::metric::LOST_PERCENT,
    net::metric::OUT_OF_ORDER,
    http::load::REQUESTS_FAILED,
    http::load::NON_2XX,
    http::load::FAILED_REQUESTS,
    http::load::ERRORS,
    http::load::WRITE_ERRORS,
    http::load::ERROR_STATUS,
    http::load::SENT_LATE,
    http::sweep::ERRORS,
    db::metric::ERRORS,
    burnin::metric::ERRORS,
    sysbench::metric::IGNORED_ERRORS,
    // Sizes and counts of what was asked for, sent or moved.
    net::metric::BYTES,
    net::metric::PACKETS_SENT,
    net::metric::PACKETS_RECEIVED,
    disk::metric::BYTES,
    http::download::BYTES,
    http::load::REQUEST_SIZE,
    http::load::REPLY_SIZE,
    http::load::REQUESTS_SENT,
    http::load::CONNECTIONS_OPENED,
    http::load::REPLY_RATE_SAMPLES,
    http::in_process::SERVER_REQUESTS_SERVED,
    http::in_process::SERVER_THREAD_REQUESTS,
    // A share of a core: what a thread used, not how fast it went.
    net::metric::THREAD_CPU,
];

/// Values of a statistic label (`stat=sd`) that give a spread, not a level.
pub const SPREAD_STATS: &[&str] = &["sd", "stddev", "within_sd", "cv"];

/// Whether metric `name` with `labels` is a performance figure.
pub fn is_performance<'a>(
    name: &str,
    mut labels: impl Iterator<Item = (&'a str, &'a str)>,
) -> bool {
    !NOT_PERFORMANCE.contains(&name)
        && !labels.any(|(k, v)| k == http::load::label::STAT && SPREAD_STATS.contains(&v))
}

/// The orientation of `m`: [`Better::Neither`] for a figure that is not a
/// performance figure, else the direction its benchmark gave.
pub fn of(m: &Metric) -> Better {
    let performance = is_performance(
        &m.name,
        m.labels.iter().map(|(k, v)| (k.as_str(), v.as_str())),
    );
    if performance {
        m.better
    } else {
        Better::Neither
    }
}

/// Marks the metrics of `result` that are not performance figures
/// [`Better::Neither`].
pub fn settle(result: &mut BenchResult) {
    for m in &mut result.metrics {
        m.better = of(m);
    }
}
