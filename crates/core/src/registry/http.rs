//! The HTTP area's benchmarks.

use super::catalog::{MetricSpec, m, of, open, union};
use super::{Bottleneck, Chart, Descriptor, Report, fig};
use crate::model::Unit;
use crate::names::http::{self, download, in_process, load, sweep};
use crate::names::labels::PERCENTILE;
use crate::names::net;

/// The `stat` values of `http.load`: ab's connection-time columns and
/// httperf's reply-rate statistics.
pub(super) const LOAD_STATS: [&str; 7] = union(&load::CONNECTION_STATS, &load::REPLY_RATE_STATS);
/// The `kind` values of `http.load`: ab's failure columns and the error kinds.
pub(super) const LOAD_KINDS: [&str; 12] = union(&load::FAILED_CLASSES, &load::ERROR_KINDS);

/// The built-in server's per-worker figures, in a result whose target was a
/// path (`http.load|sweep|download /PATH`).
const SERVER_THREAD_CPU: MetricSpec = m(in_process::SERVER_THREAD_CPU, Unit::Percent);
const SERVER_THREAD_WAIT: MetricSpec = m(in_process::SERVER_THREAD_WAIT, Unit::Percent);
const SERVER_THREAD_REQUESTS: MetricSpec = m(in_process::SERVER_THREAD_REQUESTS, Unit::Count);

/// HTTP load (ab, httperf, wrk2): `http load`.
pub const LOAD: Descriptor = Descriptor {
    id: http::LOAD,
    command: &["http", "load"],
    suite_step: true,
    metrics: &[
        m(load::TIME_TAKEN, Unit::Seconds),
        m(load::REQUESTS_COMPLETED, Unit::Count),
        m(load::REQUESTS_FAILED, Unit::Count),
        m(load::NON_2XX, Unit::Count),
        m(load::CONNECTIONS_OPENED, Unit::Count),
        m(load::REQUESTS_SENT, Unit::Count),
        m(load::SENT_LATE, Unit::Count),
        m(load::REQUESTS_PER_SECOND, Unit::OpsPerSecond),
        m(load::TIME_PER_REQUEST, Unit::Seconds),
        m(load::TRANSFER_RATE, Unit::BytesPerSecond),
        m(load::TOTAL_TRANSFERRED, Unit::Bytes),
        m(load::HTML_TRANSFERRED, Unit::Bytes),
        m(load::CONNECTION_TIME, Unit::Seconds),
        m(load::SERVED_WITHIN, Unit::Seconds),
        m(load::LATENCY, Unit::Seconds),
        m(load::REPLIES, Unit::Count),
        m(load::FAILED_REQUESTS, Unit::Count),
        m(load::ERRORS, Unit::Count),
        m(load::REPLY_RATE, Unit::OpsPerSecond),
        m(load::REPLY_RATE_SAMPLES, Unit::Count),
        m(load::CLIENT_CPU_TIME, Unit::Seconds),
        m(load::CLIENT_CPU_UTILIZATION, Unit::Percent),
        m(load::CLIENT_CPU_PER_REQUEST, Unit::Seconds),
        m(load::NET_IO, Unit::Bytes),
        m(load::NET_IO_RATE, Unit::BytesPerSecond),
        SERVER_THREAD_CPU,
        SERVER_THREAD_WAIT,
        SERVER_THREAD_REQUESTS,
    ],
    labels: &[
        of(load::label::LATENCY, &[load::CORRECTED, load::UNCORRECTED]),
        // wrk2's percentiles, `max` and `mean`.
        open(PERCENTILE),
        of(
            load::label::SCOPE,
            &[load::SCOPE_MEAN, load::SCOPE_ACROSS_ALL],
        ),
        of(load::label::PHASE, &load::PHASES),
        of(load::label::STAT, &LOAD_STATS),
        // ab's served-within percentages.
        open(load::label::PERCENT),
        of(load::label::CLASS, &load::STATUS_CLASSES),
        of(load::label::KIND, &LOAD_KINDS),
        of(load::label::MODE, &[load::MODE_USER, load::MODE_SYS]),
        of(
            load::label::DIRECTION,
            &[load::DIRECTION_IN, load::DIRECTION_OUT],
        ),
        open(in_process::THREAD),
    ],
    headline: fig(load::REQUESTS_PER_SECOND, &[]),
    watched: Some(fig(load::REQUESTS_PER_SECOND, &[])),
    scale_params: &[],
    workload_params: http::LOAD_WORKLOAD_PARAMS,
    bottleneck: Bottleneck::Attributed,
    report: Report::HttpLoad,
    charts: &[
        Chart::Percentiles {
            histogram: http::load::LATENCY,
        },
        Chart::TimeSeries {
            series: http::load::REQUESTS_PER_SECOND,
        },
    ],
    chart_title: &[
        http::load::param::MODEL,
        http::load::param::CONCURRENCY,
        http::load::param::RATE,
    ],
};

/// The JMeter-style user sweep: `http sweep`.
pub const SWEEP: Descriptor = Descriptor {
    id: http::SWEEP,
    command: &["http", "sweep"],
    suite_step: true,
    metrics: &[
        m(sweep::RATE, Unit::OpsPerSecond),
        m(sweep::PERCENT_OF_FIRST, Unit::Percent),
        m(sweep::LATENCY_AVG, Unit::Seconds),
        m(sweep::LATENCY_MIN, Unit::Seconds),
        m(sweep::LATENCY_MAX, Unit::Seconds),
        m(sweep::REQUESTS, Unit::Count),
        m(sweep::ERRORS, Unit::Count),
        m(sweep::THROUGHPUT, Unit::BytesPerSecond),
        m(sweep::MACHINE_CPU, Unit::Percent),
        m(sweep::CLIENT_CPU, Unit::Percent),
        m(sweep::SATURATION_RATE, Unit::OpsPerSecond),
        SERVER_THREAD_CPU,
        SERVER_THREAD_WAIT,
        SERVER_THREAD_REQUESTS,
    ],
    labels: &[open(sweep::USERS), open(in_process::THREAD)],
    headline: fig(sweep::SATURATION_RATE, &[]),
    watched: Some(fig(sweep::RATE, &[])),
    scale_params: &[],
    workload_params: http::SWEEP_WORKLOAD_PARAMS,
    bottleneck: Bottleneck::Attributed,
    report: Report::HttpSweep,
    charts: &[Chart::Sweep],
    chart_title: &[],
};

/// One large download (wget): `http download`.
pub const DOWNLOAD: Descriptor = Descriptor {
    id: http::DOWNLOAD,
    command: &["http", "download"],
    suite_step: true,
    metrics: &[
        m(download::BYTES, Unit::Bytes),
        m(download::THROUGHPUT, Unit::BytesPerSecond),
        m(download::THROUGHPUT_MAX, Unit::BytesPerSecond),
        m(download::TIME, Unit::Seconds),
        m(download::FIRST_BYTE, Unit::Seconds),
        m(download::CONNECT, Unit::Seconds),
        SERVER_THREAD_CPU,
        SERVER_THREAD_WAIT,
        SERVER_THREAD_REQUESTS,
    ],
    labels: &[open(in_process::THREAD)],
    headline: fig(download::THROUGHPUT, &[]),
    watched: Some(fig(net::metric::THROUGHPUT, &[])),
    scale_params: &[],
    workload_params: &[],
    bottleneck: Bottleneck::Attributed,
    report: Report::Wget,
    charts: &[Chart::TimeSeries {
        series: net::metric::THROUGHPUT,
    }],
    chart_title: &[],
};
