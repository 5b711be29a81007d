//! The CPU area's benchmarks (LINPACK and HPCC's DGEMM and FFT among them).

use super::catalog::{m, of, open};
use super::{Bottleneck, Chart, Descriptor, Report, fig, hpcc_test};
use crate::model::Unit;
use crate::names::labels::{KERNEL, THREADS};
use crate::names::{cpu, hpcc, linpack};

/// The integer and floating-point operation rates: `cpu ops`.
pub const OPS: Descriptor = Descriptor {
    id: cpu::OPS,
    command: &["cpu", "ops"],
    suite_step: true,
    metrics: &[
        // op/s for the int.* kernels (see the module's notes).
        m(cpu::RATE, Unit::FlopsPerSecond),
        m(cpu::SPEEDUP, Unit::Count),
        m(cpu::EFFICIENCY, Unit::Percent),
    ],
    labels: &[
        of(KERNEL, cpu::kernel::ALL),
        of(
            cpu::label::SCALING,
            &[cpu::scaling::STRONG, cpu::scaling::WEAK],
        ),
        open(THREADS),
    ],
    headline: fig(cpu::RATE, &[]),
    watched: Some(fig(cpu::RATE, &[])),
    scale_params: &[],
    workload_params: cpu::WORKLOAD_PARAMS,
    bottleneck: Bottleneck::AllThreadsWork,
    report: Report::Table,
    charts: &[Chart::Scaling {
        metric: cpu::RATE,
        chart_by: &[KERNEL],
        series_by: &[cpu::label::SCALING],
    }],
    chart_title: &[],
};

/// The context-switch round trip (`perf bench sched pipe -T`): `cpu switch`.
pub const SWITCH: Descriptor = Descriptor {
    id: cpu::SWITCH,
    command: &["cpu", "switch"],
    suite_step: true,
    metrics: &[
        m(cpu::switch::metric::ROUND_TRIP, Unit::Seconds),
        m(cpu::switch::metric::RATE, Unit::OpsPerSecond),
    ],
    labels: &[],
    headline: fig(cpu::switch::metric::ROUND_TRIP, &[]),
    watched: Some(fig(cpu::switch::metric::RATE, &[])),
    scale_params: &[cpu::switch::param::LOOPS],
    workload_params: cpu::switch::WORKLOAD_PARAMS,
    // A latency: its threads wait on each other, no throughput to attribute.
    bottleneck: Bottleneck::None,
    report: Report::Table,
    charts: &[],
    chart_title: &[],
};

/// LINPACK as HPL runs it: `cpu linpack`.
pub const LINPACK: Descriptor = Descriptor {
    id: linpack::LINPACK,
    command: &["cpu", "linpack"],
    suite_step: true,
    metrics: &[
        m(linpack::TIME, Unit::Seconds),
        m(linpack::RATE, Unit::FlopsPerSecond),
        m(linpack::RESIDUAL, Unit::Count),
        m(linpack::RESIDUAL_NORM, Unit::Count),
        m(linpack::RATE_AVERAGE, Unit::FlopsPerSecond),
        m(linpack::RATE_MAXIMAL, Unit::FlopsPerSecond),
    ],
    labels: &[open(linpack::label::TRIAL)],
    headline: fig(linpack::RATE, &[]),
    watched: Some(fig(linpack::RATE, &[])),
    scale_params: &[linpack::param::N, linpack::param::LDA],
    workload_params: linpack::WORKLOAD_PARAMS,
    bottleneck: Bottleneck::AllThreadsWork,
    report: Report::Linpack,
    charts: &[Chart::ByOrder],
    chart_title: &[],
};

/// HPC Challenge's DGEMM (its id the one `import` gives HPCC's figure): `cpu dgemm`.
pub const HPCC_DGEMM: Descriptor = hpcc_test(
    cpu::HPCC_DGEMM,
    &["cpu", "dgemm"],
    &[
        m(hpcc::metric::RATE, Unit::FlopsPerSecond),
        m(hpcc::metric::RESIDUAL, Unit::Count),
    ],
    &[of(
        hpcc::label::MODE,
        &[hpcc::mode::SINGLE, hpcc::mode::STAR],
    )],
    hpcc::metric::RATE,
);

/// HPC Challenge's FFT: `cpu fft`.
pub const HPCC_FFT: Descriptor = hpcc_test(
    cpu::HPCC_FFT,
    &["cpu", "fft"],
    &[
        m(hpcc::metric::RATE, Unit::FlopsPerSecond),
        m(hpcc::metric::RESIDUAL, Unit::Count),
    ],
    &[of(
        hpcc::label::MODE,
        &[hpcc::mode::SINGLE, hpcc::mode::STAR],
    )],
    hpcc::metric::RATE,
);
