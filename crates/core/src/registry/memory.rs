//! The memory area's benchmarks (HPCC's PTRANS and RandomAccess among them).

use super::catalog::{m, of, open};
use super::{Bottleneck, Chart, Descriptor, Report, fig, hpcc_test};
use crate::model::Unit;
use crate::names::labels::{KERNEL, THREADS};
use crate::names::{hpcc, memory};

/// STREAM: `memory stream`.
pub const STREAM: Descriptor = Descriptor {
    id: memory::STREAM,
    command: &["memory", "stream"],
    suite_step: true,
    metrics: &[
        m(memory::metric::BANDWIDTH, Unit::BytesPerSecond),
        m(memory::metric::TIME_AVG, Unit::Seconds),
        m(memory::metric::TIME_MIN, Unit::Seconds),
        m(memory::metric::TIME_MAX, Unit::Seconds),
    ],
    labels: &[
        of(
            KERNEL,
            &[
                memory::kernel::COPY,
                memory::kernel::SCALE,
                memory::kernel::ADD,
                memory::kernel::TRIAD,
            ],
        ),
        of(
            memory::label::STORES,
            &[memory::stores::NORMAL, memory::stores::NONTEMPORAL],
        ),
        open(THREADS),
    ],
    headline: fig(
        memory::metric::BANDWIDTH,
        &[(KERNEL, memory::kernel::TRIAD)],
    ),
    watched: Some(fig(
        memory::metric::BANDWIDTH,
        &[(KERNEL, memory::kernel::TRIAD)],
    )),
    scale_params: &[memory::param::ARRAY_SIZE],
    workload_params: memory::STREAM_WORKLOAD_PARAMS,
    bottleneck: Bottleneck::AllThreadsWork,
    report: Report::Table,
    charts: &[Chart::Scaling {
        metric: memory::metric::BANDWIDTH,
        chart_by: &[],
        series_by: &[KERNEL, memory::label::STORES],
    }],
    chart_title: &[],
};

/// The memory block-size x thread matrix: `memory blocks`.
pub const BLOCKS: Descriptor = Descriptor {
    id: memory::BLOCKS,
    command: &["memory", "blocks"],
    suite_step: true,
    metrics: &[
        m(memory::metric::BANDWIDTH, Unit::BytesPerSecond),
        m(memory::metric::LATENCY, Unit::Seconds),
    ],
    labels: &[
        of(
            memory::label::OP,
            &[
                memory::op::SEQ_WRITE,
                memory::op::RAND_WRITE,
                memory::op::READ_WRITE,
            ],
        ),
        open(memory::label::BLOCK),
        open(THREADS),
    ],
    headline: fig(memory::metric::BANDWIDTH, &[]),
    watched: None,
    scale_params: &[memory::param::TOTAL_BYTES],
    workload_params: memory::BLOCKS_WORKLOAD_PARAMS,
    bottleneck: Bottleneck::AllThreadsWork,
    report: Report::Table,
    charts: &[],
    chart_title: &[],
};

/// Load-to-use latency by working-set size: `memory latency`.
pub const LATENCY: Descriptor = Descriptor {
    id: memory::LATENCY,
    command: &["memory", "latency"],
    suite_step: true,
    metrics: &[
        m(memory::metric::LATENCY, Unit::Seconds),
        m(memory::metric::LATENCY_CYCLES, Unit::Cycles),
    ],
    labels: &[
        open(memory::label::WORKING_SET),
        of(
            memory::label::LEVEL,
            &[
                memory::level::L1,
                memory::level::L2,
                memory::level::L3,
                memory::level::DRAM,
                memory::level::UNKNOWN,
            ],
        ),
    ],
    headline: fig(
        memory::metric::LATENCY,
        &[(memory::label::LEVEL, memory::level::DRAM)],
    ),
    watched: None,
    scale_params: &[],
    workload_params: memory::LATENCY_WORKLOAD_PARAMS,
    bottleneck: Bottleneck::None,
    report: Report::Table,
    charts: &[Chart::LatencyStaircase],
    chart_title: &[],
};

/// Intel MLC's latency and bandwidth matrices: `memory numa`.
pub const NUMA: Descriptor = Descriptor {
    id: memory::NUMA,
    command: &["memory", "numa"],
    suite_step: false,
    metrics: &[
        m(memory::metric::LATENCY, Unit::Seconds),
        m(memory::metric::BANDWIDTH, Unit::BytesPerSecond),
    ],
    labels: &[
        open(memory::label::CPU_NODE),
        open(memory::label::MEMORY_NODE),
    ],
    headline: fig(memory::metric::BANDWIDTH, &[]),
    watched: None,
    scale_params: &[],
    workload_params: &[],
    bottleneck: Bottleneck::None,
    report: Report::MlcMatrices,
    charts: &[],
    chart_title: &[],
};

/// Intel MLC's loaded latency: `memory loaded-latency`.
pub const LOADED_LATENCY: Descriptor = Descriptor {
    id: memory::LOADED_LATENCY,
    command: &["memory", "loaded-latency"],
    suite_step: false,
    metrics: &[
        m(memory::metric::LATENCY, Unit::Seconds),
        m(memory::metric::BANDWIDTH, Unit::BytesPerSecond),
        m(memory::metric::INJECTION_BANDWIDTH, Unit::BytesPerSecond),
        m(memory::metric::KNEE_BANDWIDTH, Unit::BytesPerSecond),
        m(memory::metric::KNEE_LATENCY, Unit::Seconds),
    ],
    labels: &[
        of(memory::label::MIX, &memory::mix::ALL),
        open(memory::label::DELAY),
    ],
    headline: fig(memory::metric::INJECTION_BANDWIDTH, &[]),
    watched: None,
    scale_params: &[],
    workload_params: &[],
    bottleneck: Bottleneck::None,
    report: Report::MlcLoadedLatency,
    charts: &[Chart::LoadedLatency],
    chart_title: &[],
};

/// HPC Challenge's PTRANS: `memory ptrans`.
pub const HPCC_PTRANS: Descriptor = hpcc_test(
    memory::HPCC_PTRANS,
    &["memory", "ptrans"],
    &[
        m(hpcc::metric::BANDWIDTH, Unit::BytesPerSecond),
        m(hpcc::metric::RESIDUAL, Unit::Count),
    ],
    &[of(hpcc::label::MODE, &[hpcc::mode::MPI])],
    hpcc::metric::BANDWIDTH,
);

/// HPC Challenge's RandomAccess (GUPS): `memory gups`.
pub const HPCC_RANDOM_ACCESS: Descriptor = hpcc_test(
    memory::HPCC_RANDOM_ACCESS,
    &["memory", "gups"],
    &[
        m(hpcc::metric::UPDATES, Unit::OpsPerSecond),
        m(hpcc::metric::ERRORS, Unit::Count),
    ],
    &[of(
        hpcc::label::MODE,
        &[hpcc::mode::SINGLE, hpcc::mode::STAR, hpcc::mode::SHARED],
    )],
    hpcc::metric::UPDATES,
);
