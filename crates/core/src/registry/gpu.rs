//! The GPU area's benchmarks.

use super::catalog::{m, of, open};
use super::{Bottleneck, Chart, Descriptor, Report, fig};
use crate::model::Unit;
use crate::names::gpu;
use crate::names::labels::KERNEL;

/// BabelStream on each GPU: `gpu stream`.
pub const STREAM: Descriptor = Descriptor {
    id: gpu::STREAM,
    command: &["gpu", "stream"],
    suite_step: true,
    metrics: &[
        m(gpu::metric::BANDWIDTH, Unit::BytesPerSecond),
        m(gpu::metric::PEAK_PERCENT, Unit::Percent),
    ],
    labels: &[open(gpu::label::GPU), of(KERNEL, &gpu::kernel::ALL)],
    headline: fig(gpu::metric::BANDWIDTH, &[(KERNEL, gpu::kernel::TRIAD)]),
    watched: Some(fig(gpu::metric::BANDWIDTH, &[(KERNEL, gpu::kernel::TRIAD)])),
    scale_params: &[],
    workload_params: &[],
    bottleneck: Bottleneck::None,
    report: Report::Table,
    charts: &[Chart::GpuBars { by: &[KERNEL] }],
    chart_title: &[],
};

/// Matrix multiply through cuBLAS: `gpu gemm`.
pub const GEMM: Descriptor = Descriptor {
    id: gpu::GEMM,
    command: &["gpu", "gemm"],
    suite_step: true,
    metrics: &[
        m(gpu::metric::RATE, Unit::FlopsPerSecond),
        m(gpu::metric::PEAK_PERCENT, Unit::Percent),
    ],
    labels: &[
        open(gpu::label::GPU),
        of(gpu::label::PRECISION, &gpu::precision::ALL),
        open(gpu::label::N),
    ],
    headline: fig(gpu::metric::RATE, &[]),
    watched: Some(fig(gpu::metric::RATE, &[])),
    scale_params: &[],
    workload_params: &[],
    bottleneck: Bottleneck::None,
    report: Report::Table,
    charts: &[Chart::GpuByOrder],
    chart_title: &[],
};

/// Host-device copies: `gpu bandwidth`.
pub const BANDWIDTH: Descriptor = Descriptor {
    id: gpu::BANDWIDTH,
    command: &["gpu", "bandwidth"],
    suite_step: true,
    metrics: &[m(gpu::metric::BANDWIDTH, Unit::BytesPerSecond)],
    labels: &[
        open(gpu::label::GPU),
        of(gpu::label::DIRECTION, &gpu::direction::ALL),
        of(gpu::label::HOST_MEMORY, &gpu::host_memory::ALL),
        open(gpu::label::HOST_NODE),
        open(gpu::label::PEER),
    ],
    headline: fig(gpu::metric::BANDWIDTH, &[]),
    watched: None,
    scale_params: &[],
    workload_params: &[],
    bottleneck: Bottleneck::None,
    report: Report::Table,
    charts: &[Chart::GpuBars {
        by: &[
            gpu::label::DIRECTION,
            gpu::label::HOST_MEMORY,
            gpu::label::HOST_NODE,
            gpu::label::PEER,
        ],
    }],
    chart_title: &[],
};

/// Sustained multiplies on every GPU (as gpu-burn): `gpu burn`.
pub const BURN: Descriptor = Descriptor {
    id: gpu::BURN,
    command: &["gpu", "burn"],
    suite_step: true,
    metrics: &[
        m(gpu::metric::RATE, Unit::FlopsPerSecond),
        m(gpu::metric::RATE_MIN, Unit::FlopsPerSecond),
        m(gpu::metric::PEAK_PERCENT, Unit::Percent),
        m(gpu::metric::ITERATIONS, Unit::Count),
        m(gpu::metric::MISMATCHES, Unit::Count),
        m(gpu::metric::XID_ERRORS, Unit::Count),
        m(gpu::metric::ECC_ERRORS, Unit::Count),
        m(gpu::metric::RETIRED_MEMORY, Unit::Count),
        m(gpu::metric::THROTTLED, Unit::Percent),
        m(gpu::metric::TEMPERATURE_MAX, Unit::Count),
        m(gpu::metric::POWER_MAX, Unit::Watts),
        m(gpu::metric::SM_CLOCK_MEAN, Unit::Hertz),
    ],
    labels: &[
        open(gpu::label::GPU),
        of(gpu::label::PRECISION, &gpu::precision::ALL),
        open(gpu::label::N),
        of(gpu::label::ECC, &gpu::ecc::ALL),
        of(gpu::label::THROTTLE, &gpu::throttle::ALL),
    ],
    headline: fig(gpu::metric::RATE, &[]),
    watched: Some(fig(gpu::metric::RATE, &[])),
    scale_params: &[],
    workload_params: &[],
    bottleneck: Bottleneck::None,
    report: Report::GpuBurn,
    charts: &[Chart::TimeSeries {
        series: gpu::metric::RATE,
    }],
    chart_title: &[],
};
