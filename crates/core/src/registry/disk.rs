//! The disk area's benchmarks.

use super::catalog::{m, of, open};
use super::{Bottleneck, Chart, Descriptor, Report, fig};
use crate::model::Unit;
use crate::names::disk;
use crate::names::labels::THREADS;

/// The IOzone test set: `disk iozone`.
pub const IOZONE: Descriptor = Descriptor {
    id: disk::IOZONE,
    command: &["disk", "iozone"],
    suite_step: true,
    metrics: &[
        m(disk::metric::BANDWIDTH, Unit::BytesPerSecond),
        m(disk::metric::IOPS, Unit::OpsPerSecond),
        m(disk::metric::LATENCY_P50, Unit::Seconds),
        m(disk::metric::LATENCY_P90, Unit::Seconds),
        m(disk::metric::LATENCY_P99, Unit::Seconds),
        m(disk::metric::LATENCY_P999, Unit::Seconds),
        m(disk::metric::LATENCY_MAX, Unit::Seconds),
        m(disk::metric::BYTES, Unit::Bytes),
        m(disk::metric::OPERATIONS, Unit::Count),
        m(disk::metric::CHILDREN_SEE, Unit::BytesPerSecond),
        m(disk::metric::PARENT_SEES, Unit::BytesPerSecond),
        m(disk::metric::MIN_PER_WORKER, Unit::BytesPerSecond),
        m(disk::metric::MAX_PER_WORKER, Unit::BytesPerSecond),
        m(disk::metric::AVG_PER_WORKER, Unit::BytesPerSecond),
        m(disk::metric::MIN_XFER, Unit::Bytes),
        m(disk::metric::ROUND_IOPS, Unit::OpsPerSecond),
    ],
    labels: &[
        of(
            disk::label::TEST,
            &[
                disk::test::WRITE,
                disk::test::REWRITE,
                disk::test::READ,
                disk::test::REREAD,
                disk::test::RANDOM_READ,
                disk::test::RANDOM_WRITE,
                disk::test::BACKWARD_READ,
                disk::test::RECORD_REWRITE,
                disk::test::STRIDE_READ,
                disk::test::FWRITE,
                disk::test::FREWRITE,
                disk::test::FREAD,
                disk::test::FREREAD,
                disk::test::PWRITE,
                disk::test::PREAD,
                disk::test::MIXED,
            ],
        ),
        open(disk::label::FILE_SIZE),
        open(disk::label::RECORD),
        open(disk::label::WORKERS),
        open(disk::label::ROUND),
    ],
    headline: fig(
        disk::metric::BANDWIDTH,
        &[(disk::label::TEST, disk::test::WRITE)],
    ),
    watched: Some(fig(disk::metric::BANDWIDTH, &[])),
    scale_params: &[disk::param::FILE_SIZE, disk::param::RECORD_SIZE],
    workload_params: disk::IOZONE_WORKLOAD_PARAMS,
    bottleneck: Bottleneck::Attributed,
    report: Report::Iozone,
    charts: &[
        Chart::HeatMap,
        Chart::Percentiles {
            histogram: disk::metric::LATENCY,
        },
    ],
    chart_title: &[],
};

/// dd's sequential write: `disk dd`.
pub const DD: Descriptor = Descriptor {
    id: disk::DD,
    command: &["disk", "dd"],
    suite_step: true,
    metrics: &[
        m(disk::metric::BYTES, Unit::Bytes),
        m(disk::metric::SECONDS, Unit::Seconds),
        m(disk::metric::BANDWIDTH, Unit::BytesPerSecond),
    ],
    // dd writes once without and once with a final fdatasync.
    labels: &[of(
        disk::label::SYNC,
        &[disk::sync::NONE, disk::sync::FDATASYNC],
    )],
    headline: fig(disk::metric::BANDWIDTH, &[]),
    watched: Some(fig(disk::metric::BANDWIDTH, &[])),
    scale_params: &[disk::param::BLOCK_SIZE, disk::param::COUNT],
    workload_params: disk::DD_WORKLOAD_PARAMS,
    bottleneck: Bottleneck::Attributed,
    report: Report::Dd,
    charts: &[],
    chart_title: &[],
};

/// The disk block-size x thread matrix: `disk blocks`.
pub const BLOCKS: Descriptor = Descriptor {
    id: disk::BLOCKS,
    command: &["disk", "blocks"],
    suite_step: true,
    metrics: &[
        m(disk::metric::BANDWIDTH, Unit::BytesPerSecond),
        m(disk::metric::LATENCY, Unit::Seconds),
        m(disk::metric::IOPS, Unit::OpsPerSecond),
        m(disk::metric::ROUND_IOPS, Unit::OpsPerSecond),
    ],
    labels: &[
        of(
            disk::label::OP,
            &[
                disk::op::SEQ_READ,
                disk::op::RAND_READ,
                disk::op::READ_WRITE,
            ],
        ),
        open(disk::label::BLOCK),
        open(THREADS),
        open(disk::label::ROUND),
    ],
    headline: fig(disk::metric::BANDWIDTH, &[]),
    watched: None,
    scale_params: &[disk::param::TOTAL_BYTES],
    workload_params: disk::BLOCKS_WORKLOAD_PARAMS,
    bottleneck: Bottleneck::Attributed,
    report: Report::Table,
    charts: &[],
    chart_title: &[],
};

/// Synchronised small writes, each followed by fsync or fdatasync (a
/// database log's commit path): `disk fsync`.
pub const FSYNC: Descriptor = Descriptor {
    id: disk::FSYNC,
    command: &["disk", "fsync"],
    suite_step: true,
    metrics: &[
        m(disk::metric::OPERATIONS, Unit::Count),
        m(disk::metric::SECONDS, Unit::Seconds),
        m(disk::metric::IOPS, Unit::OpsPerSecond),
        // The mean time of one write and its sync.
        m(disk::metric::LATENCY, Unit::Seconds),
        m(disk::metric::LATENCY_P50, Unit::Seconds),
        m(disk::metric::LATENCY_P90, Unit::Seconds),
        m(disk::metric::LATENCY_P99, Unit::Seconds),
        m(disk::metric::LATENCY_P999, Unit::Seconds),
        m(disk::metric::LATENCY_MAX, Unit::Seconds),
    ],
    labels: &[of(
        disk::label::SYNC,
        &[disk::sync::FSYNC, disk::sync::FDATASYNC],
    )],
    headline: fig(disk::metric::IOPS, &[]),
    watched: Some(fig(disk::metric::IOPS, &[])),
    scale_params: &[disk::param::COUNT],
    workload_params: disk::FSYNC_WORKLOAD_PARAMS,
    bottleneck: Bottleneck::Attributed,
    report: Report::Table,
    charts: &[],
    chart_title: &[],
};
