//! The benchmarks of the commands that are no area of their own: the
//! hardening scan, the idle draw, the fleet's link matrix and the burn-in's
//! checkpoints.

use super::catalog::{m, of, open};
use super::{Bottleneck, Chart, Descriptor, Report, fig};
use crate::model::Unit;
use crate::names::burnin::{self, metric as burnin_metric};
use crate::names::{energy, fleet, scan};

/// The hardening scan: `scan`.
pub const SCAN: Descriptor = Descriptor {
    id: scan::SCAN,
    command: &["scan"],
    suite_step: false,
    metrics: &[
        m(scan::metric::FINDINGS, Unit::Count),
        m(scan::metric::REQUESTS, Unit::Count),
        m(scan::metric::TLS_HANDSHAKES, Unit::Count),
        m(scan::metric::SECONDS, Unit::Seconds),
        m(scan::metric::PAGES_CRAWLED, Unit::Count),
    ],
    labels: &[of(
        scan::label::SEVERITY,
        &[
            scan::severity::INFO,
            scan::severity::LOW,
            scan::severity::MEDIUM,
            scan::severity::HIGH,
        ],
    )],
    headline: fig(scan::metric::SECONDS, &[]),
    watched: None,
    scale_params: &[],
    workload_params: &[],
    bottleneck: Bottleneck::None,
    report: Report::Scan,
    charts: &[],
    chart_title: &[],
};

/// The host's idle draw: `power idle`.
pub const IDLE: Descriptor = Descriptor {
    id: energy::IDLE,
    command: &["power", "idle"],
    suite_step: false,
    metrics: &[
        m(energy::metric::ENERGY, Unit::Joules),
        m(energy::metric::POWER, Unit::Watts),
    ],
    labels: &[],
    headline: fig(energy::metric::POWER, &[]),
    watched: None,
    scale_params: &[],
    workload_params: &[],
    bottleneck: Bottleneck::None,
    report: Report::Table,
    charts: &[Chart::TimeSeries {
        series: energy::metric::POWER,
    }],
    chart_title: &[],
};

/// The link matrix of `fleet pair --matrix`: `fleet pair`.
pub const LINKS: Descriptor = Descriptor {
    id: fleet::LINKS,
    command: &["fleet", "pair"],
    suite_step: false,
    metrics: &[
        m(fleet::metric::BANDWIDTH, Unit::BytesPerSecond),
        m(fleet::metric::LATENCY, Unit::Seconds),
    ],
    // Host names.
    labels: &[open(fleet::label::SERVER), open(fleet::label::CLIENT)],
    headline: fig(fleet::metric::BANDWIDTH, &[]),
    watched: None,
    scale_params: &[],
    workload_params: &[],
    bottleneck: Bottleneck::None,
    report: Report::FleetLinks,
    charts: &[],
    chart_title: &[],
};

/// A burn-in's checkpoint: `burnin`.
pub const CHECKPOINT: Descriptor = Descriptor {
    id: burnin::CHECKPOINT,
    command: &["burnin"],
    suite_step: false,
    metrics: &[
        m(burnin_metric::ITERATIONS, Unit::Count),
        m(burnin_metric::ERRORS, Unit::Count),
        // The workload's unit: flop/s for cpu, op/s for http (see the
        // module's notes).
        m(burnin_metric::THROUGHPUT_MEAN, Unit::BytesPerSecond),
        m(burnin_metric::THROUGHPUT_MIN, Unit::BytesPerSecond),
        m(burnin_metric::THROUGHPUT_MAX, Unit::BytesPerSecond),
        m(burnin_metric::BASELINE_MEDIAN, Unit::BytesPerSecond),
        m(burnin_metric::PERCENT_OF_BASELINE, Unit::Percent),
        m(burnin_metric::POWER_MEDIAN, Unit::Watts),
        m(burnin_metric::POWER_BASELINE_MEDIAN, Unit::Watts),
        m(burnin_metric::POWER_PERCENT_OF_BASELINE, Unit::Percent),
    ],
    labels: &[],
    headline: fig(burnin::metric::THROUGHPUT_MEAN, &[]),
    watched: None,
    scale_params: &[],
    workload_params: &[],
    bottleneck: Bottleneck::None,
    report: Report::Burnin,
    charts: &[],
    chart_title: &[],
};
