//! Names of the energy figures every result may carry (`machine::energy`):
//! joules and average watts per power source, and the work per joule of
//! the benchmarks that do countable work, each naming the source it
//! divides by.

use super::{cpu, db, disk, gpu, http, linpack, memory, net};

/// The idle draw (`nodebench power idle`): every power source sampled for
/// a while with nothing else running; its `power` per source is what the
/// above-idle figures of later results on the same host subtract.
pub const IDLE: &str = "power.idle";

/// Metric names.
pub mod metric {
    /// Joules a source counted over the result (or the phase whose labels
    /// the figure carries).
    pub const ENERGY: &str = "energy";
    /// The source's average power over the same span: its joules over the
    /// span's seconds.
    pub const POWER: &str = "power";
    /// The source's average power over the span less its stored idle
    /// draw ([`super::IDLE`]): below zero where the span drew less than
    /// the idle run measured.
    pub const POWER_ABOVE_IDLE: &str = "power_above_idle";
    /// The source's joules over the span less its idle draw over as long.
    pub const ENERGY_ABOVE_IDLE: &str = "energy_above_idle";
    /// GFLOPS per watt (GFLOP per joule) of a FLOP/s figure.
    pub const GFLOPS_PER_WATT: &str = "gflops_per_watt";
    /// GB/s per watt (10^9 bytes per joule) of a bandwidth figure.
    pub const GB_PER_S_PER_WATT: &str = "gb_per_s_per_watt";
    /// HTTP requests per joule.
    pub const REQUESTS_PER_JOULE: &str = "requests_per_joule";
    /// Database queries per joule.
    pub const QUERIES_PER_JOULE: &str = "queries_per_joule";
    /// Bits moved per joule.
    pub const BITS_PER_JOULE: &str = "bits_per_joule";
}

/// Label keys of the energy figures.
pub mod label {
    /// How the source is read: one of [`super::source::ALL`].
    pub const SOURCE: &str = "power_source";
    /// What the source covers: one of [`super::scope::ALL`].
    pub const SCOPE: &str = "power_scope";
    /// The sensor: a powercap zone (`intel-rapl:0`), an hwmon input
    /// (`hwmon2/power1`), `bmc`, a GPU (`gpu0`, NVML's index), or a sum of
    /// several joined by `+`.
    pub const SENSOR: &str = "power_sensor";
    /// On an efficiency figure: `total` (all the source's draw) or
    /// `above_idle` (less the stored idle draw).
    pub const DRAW: &str = "draw";
}

/// Parameters a result with energy figures carries.
pub mod param {
    /// The idle run (`nodebench power idle`) the above-idle figures
    /// subtracted.
    pub const IDLE_RUN: &str = "idle_run";
    /// When that idle run measured (its result's start, RFC 3339).
    pub const IDLE_AT: &str = "idle_at";
    /// How long `power idle` sampled, seconds.
    pub const DURATION_S: &str = "duration_s";
    /// Why no power figure was recorded ("no power sensor readable",
    /// "RAPL needs root").
    pub const POWER: &str = "power";
    /// The source's average power over the span less its stored idle
    /// draw ([`super::IDLE`]): below zero where the span drew less than
    /// the idle run measured.
    pub const POWER_ABOVE_IDLE: &str = "power_above_idle";
    /// The source's joules over the span less its idle draw over as long.
    pub const ENERGY_ABOVE_IDLE: &str = "energy_above_idle";
}

/// How a source is read (`power_source` label).
pub mod source {
    /// Powercap's RAPL energy counters.
    pub const RAPL: &str = "rapl";
    /// An hwmon power sensor (watts), integrated.
    pub const HWMON: &str = "hwmon";
    /// IPMI DCMI whole-node power (watts), integrated.
    pub const IPMI: &str = "ipmi";
    /// NVML: a GPU's total-energy counter.
    pub const NVML: &str = "nvml";
    pub const ALL: [&str; 4] = [RAPL, HWMON, IPMI, NVML];
}

/// What a source covers (`power_scope` label).
pub mod scope {
    /// A CPU package (socket).
    pub const PACKAGE: &str = "package";
    /// A package's cores.
    pub const CORE: &str = "core";
    /// A package's uncore (integrated graphics on clients).
    pub const UNCORE: &str = "uncore";
    /// A package's DRAM.
    pub const DRAM: &str = "dram";
    /// The platform (RAPL psys).
    pub const PLATFORM: &str = "platform";
    /// The whole node (a BMC or an ACPI power meter).
    pub const NODE: &str = "node";
    /// One GPU board.
    pub const GPU: &str = "gpu";
    /// Every CPU package and its DRAM, summed (the divisor where no whole-node
    /// meter is).
    pub const PACKAGE_DRAM: &str = "package+dram";
    /// A sensor whose scope its driver does not say.
    pub const OTHER: &str = "other";
    pub const ALL: [&str; 9] = [
        PACKAGE,
        CORE,
        UNCORE,
        DRAM,
        PLATFORM,
        NODE,
        GPU,
        PACKAGE_DRAM,
        OTHER,
    ];
}

/// Values of the `draw` label.
pub mod draw {
    pub const TOTAL: &str = "total";
    pub const ABOVE_IDLE: &str = "above_idle";
    pub const ALL: [&str; 2] = [TOTAL, ABOVE_IDLE];
}

/// What a result's efficiency figure is made of: the work metric (in its
/// canonical unit), the efficiency metric, and the factor turning work/s
/// per watt into it.
#[derive(Debug, Clone, Copy)]
pub struct Efficiency {
    /// The benchmark id.
    pub benchmark: &'static str,
    /// The metric holding the work rate.
    pub work: &'static str,
    /// The unit symbol the work metric must be in (`flop/s`, `B/s`,
    /// `op/s`): a figure in another unit (`cpu.ops`' integer kernels) has
    /// no efficiency figure.
    pub work_unit: &'static str,
    /// The efficiency metric's name.
    pub metric: &'static str,
    /// Multiplies (work per second) / watts into the metric's value.
    pub factor: f64,
    /// Whether the divisor is the GPU's own NVML figure (gpu results).
    pub gpu: bool,
}

const fn e(
    benchmark: &'static str,
    work: &'static str,
    work_unit: &'static str,
    metric: &'static str,
    factor: f64,
    gpu: bool,
) -> Efficiency {
    Efficiency {
        benchmark,
        work,
        work_unit,
        metric,
        factor,
        gpu,
    }
}

/// Every efficiency figure.
pub const EFFICIENCY: &[Efficiency] = &[
    e(
        cpu::OPS,
        cpu::RATE,
        "flop/s",
        metric::GFLOPS_PER_WATT,
        1e-9,
        false,
    ),
    e(
        linpack::LINPACK,
        linpack::RATE,
        "flop/s",
        metric::GFLOPS_PER_WATT,
        1e-9,
        false,
    ),
    e(
        gpu::GEMM,
        gpu::metric::RATE,
        "flop/s",
        metric::GFLOPS_PER_WATT,
        1e-9,
        true,
    ),
    e(
        memory::STREAM,
        memory::metric::BANDWIDTH,
        "B/s",
        metric::GB_PER_S_PER_WATT,
        1e-9,
        false,
    ),
    e(
        disk::IOZONE,
        disk::metric::BANDWIDTH,
        "B/s",
        metric::GB_PER_S_PER_WATT,
        1e-9,
        false,
    ),
    e(
        disk::DD,
        disk::metric::BANDWIDTH,
        "B/s",
        metric::GB_PER_S_PER_WATT,
        1e-9,
        false,
    ),
    e(
        disk::BLOCKS,
        disk::metric::BANDWIDTH,
        "B/s",
        metric::GB_PER_S_PER_WATT,
        1e-9,
        false,
    ),
    e(
        http::LOAD,
        http::load::REQUESTS_PER_SECOND,
        "op/s",
        metric::REQUESTS_PER_JOULE,
        1.0,
        false,
    ),
    e(
        db::AS3AP,
        db::metric::QUERIES_PER_SECOND,
        "op/s",
        metric::QUERIES_PER_JOULE,
        1.0,
        false,
    ),
    e(
        net::TCP,
        net::metric::THROUGHPUT,
        "B/s",
        metric::BITS_PER_JOULE,
        8.0,
        false,
    ),
    e(
        net::UDP,
        net::metric::THROUGHPUT,
        "B/s",
        metric::BITS_PER_JOULE,
        8.0,
        false,
    ),
];

/// The efficiency figures of benchmark `id`.
pub fn efficiency_of(id: &str) -> impl Iterator<Item = &'static Efficiency> + '_ {
    EFFICIENCY.iter().filter(move |e| e.benchmark == id)
}
