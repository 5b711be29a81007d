//! The network area's benchmarks.

use super::catalog::{LabelSpec, MetricSpec, m, of, open};
use super::{Bottleneck, Chart, Descriptor, Report, fig};
use crate::model::Unit;
use crate::names::labels::{SIZE, THREADS};
use crate::names::latency::{LATENCY_MAX, LATENCY_P50, LATENCY_P99, LATENCY_P999};
use crate::names::net;

/// `net.tcp` and `net.udp` label their figures alike.
const THROUGHPUT_LABELS: &[LabelSpec] = &[
    of(
        net::label::DIRECTION,
        &[
            net::direction::CLIENT_TO_SERVER,
            net::direction::SERVER_TO_CLIENT,
        ],
    ),
    of(net::label::SIDE, &[net::side::SENDER, net::side::RECEIVER]),
    of(net::label::HOST, &[net::host::CLIENT, net::host::SERVER]),
];

/// An iperf3 throughput test (`id`, run by `command`) with its `metrics`:
/// `net.tcp` and `net.udp` are alike in all else.
const fn throughput(
    id: &'static str,
    command: &'static [&'static str],
    metrics: &'static [MetricSpec],
) -> Descriptor {
    Descriptor {
        id,
        command,
        suite_step: true,
        metrics,
        labels: THROUGHPUT_LABELS,
        headline: fig(net::metric::THROUGHPUT, &[]),
        watched: Some(fig(
            net::metric::THROUGHPUT,
            &[(net::label::SIDE, net::side::RECEIVER)],
        )),
        scale_params: &[],
        workload_params: net::THROUGHPUT_WORKLOAD_PARAMS,
        bottleneck: Bottleneck::Attributed,
        report: Report::Table,
        charts: &[Chart::TimeSeries {
            series: net::metric::THROUGHPUT,
        }],
        chart_title: &[],
    }
}

/// TCP throughput (iperf3): `net tcp`.
pub const TCP: Descriptor = throughput(
    net::TCP,
    &["net", "tcp"],
    &[
        m(net::metric::BYTES, Unit::Bytes),
        m(net::metric::THROUGHPUT, Unit::BytesPerSecond),
        m(net::metric::RETRANSMITS, Unit::Count),
        m(net::metric::SND_CWND_MAX, Unit::Bytes),
        m(net::metric::RTT, Unit::Seconds),
        m(net::metric::CPU, Unit::Percent),
        m(net::metric::THREAD_CPU, Unit::Percent),
    ],
);

/// UDP throughput (iperf3): `net udp`.
pub const UDP: Descriptor = throughput(
    net::UDP,
    &["net", "udp"],
    &[
        m(net::metric::BYTES, Unit::Bytes),
        m(net::metric::THROUGHPUT, Unit::BytesPerSecond),
        m(net::metric::PACKETS_SENT, Unit::Count),
        m(net::metric::PACKETS_RECEIVED, Unit::Count),
        m(net::metric::LOST_PACKETS, Unit::Count),
        m(net::metric::LOST_PERCENT, Unit::Percent),
        m(net::metric::OUT_OF_ORDER, Unit::Count),
        m(net::metric::JITTER, Unit::Seconds),
        m(net::metric::CPU, Unit::Percent),
        m(net::metric::THREAD_CPU, Unit::Percent),
    ],
);

/// TCP and UDP ping-pong: `net pingpong`.
pub const PINGPONG: Descriptor = Descriptor {
    id: net::PINGPONG,
    command: &["net", "pingpong"],
    suite_step: true,
    metrics: &[
        m(net::metric::ROUND_TRIPS, Unit::OpsPerSecond),
        m(LATENCY_P50, Unit::Seconds),
        m(LATENCY_P99, Unit::Seconds),
        m(LATENCY_P999, Unit::Seconds),
        m(LATENCY_MAX, Unit::Seconds),
        m(net::metric::LOST, Unit::Count),
    ],
    labels: &[
        of(
            net::label::PROTOCOL,
            &[net::protocol::TCP, net::protocol::UDP],
        ),
        open(SIZE),
        open(THREADS),
    ],
    headline: fig(net::metric::ROUND_TRIPS, &[]),
    watched: None,
    scale_params: &[],
    workload_params: net::PINGPONG_WORKLOAD_PARAMS,
    bottleneck: Bottleneck::None,
    report: Report::Table,
    charts: &[Chart::Percentiles {
        histogram: net::metric::LATENCY,
    }],
    chart_title: &[net::param::PROTOCOL],
};
