//! Names of the GPU benchmarks' results (`nodebench gpu ...`).

/// Benchmark id: BabelStream's five kernels in device memory.
pub const STREAM: &str = "gpu.stream";
/// Benchmark id: matrix multiply through cuBLAS at each precision.
pub const GEMM: &str = "gpu.gemm";
/// Benchmark id: host-device copies, as nvbandwidth.
pub const BANDWIDTH: &str = "gpu.bandwidth";
/// Benchmark id: sustained GEMM on every GPU at once, results compared
/// between iterations, NVML's health events watched (as gpu-burn and
/// DCGM's diagnostics).
pub const BURN: &str = "gpu.burn";

/// Metric names.
pub mod metric {
    /// Bytes per second of a stream kernel (BabelStream's byte counts) or a
    /// copy.
    pub const BANDWIDTH: &str = "bandwidth";
    /// Floating-point operations per second of a GEMM (2 n^3 per multiply).
    pub const RATE: &str = "rate";
    /// A figure as a percentage of the GPU's theoretical peak (HBM
    /// bandwidth, or FLOP/s at the precision).
    pub const PEAK_PERCENT: &str = "peak_percent";
    /// `gpu burn`: the slowest one-second interval's FLOP/s.
    pub const RATE_MIN: &str = "rate_min";
    /// `gpu burn`: multiplies done.
    pub const ITERATIONS: &str = "iterations";
    /// `gpu burn`: elements of C that differed from the first multiply's
    /// (bit for bit), summed over the iterations; above 0 is a fault.
    pub const MISMATCHES: &str = "mismatched_elements";
    /// XID errors NVML reported during the run (critical XID events).
    pub const XID_ERRORS: &str = "xid_errors";
    /// Volatile ECC errors counted during the run, by the `ecc` label.
    pub const ECC_ERRORS: &str = "ecc_errors";
    /// Pages retired or rows remapped during the run.
    pub const RETIRED_MEMORY: &str = "retired_memory";
    /// Share of the run's samples in which a throttle reason (the
    /// `throttle` label) held the clocks down, %.
    pub const THROTTLED: &str = "throttled_percent";
    /// Highest GPU temperature sampled during the run, degrees Celsius.
    pub const TEMPERATURE_MAX: &str = "temperature_max";
    /// Highest board power sampled during the run.
    pub const POWER_MAX: &str = "power_max";
    /// Mean SM clock over the run's samples.
    pub const SM_CLOCK_MEAN: &str = "sm_clock_mean";
}

/// Label keys.
pub mod label {
    /// The GPU's index (CUDA's ordinal).
    pub const GPU: &str = "gpu";
    /// The GEMM's precision, one of [`super::precision::ALL`].
    pub const PRECISION: &str = "precision";
    /// The GEMM's order n (square matrices).
    pub const N: &str = "n";
    /// A copy's direction, one of [`super::direction::ALL`].
    pub const DIRECTION: &str = "direction";
    /// The host memory of a copy, one of [`super::host_memory::ALL`].
    pub const HOST_MEMORY: &str = "host_memory";
    /// The NUMA node the host memory of a copy is on, or "any".
    pub const HOST_NODE: &str = "host_node";
    /// Which ECC count: one of [`super::ecc::ALL`].
    pub const ECC: &str = "ecc";
    /// Which throttle reason: one of [`super::throttle::ALL`].
    pub const THROTTLE: &str = "throttle";
    /// A device-to-device copy's peer GPU (CUDA ordinal).
    pub const PEER: &str = "peer";
}

/// ECC counts (`ecc` label).
pub mod ecc {
    pub const CORRECTED: &str = "corrected";
    pub const UNCORRECTED: &str = "uncorrected";
    pub const ALL: [&str; 2] = [CORRECTED, UNCORRECTED];
}

/// Throttle reasons NVML reports (`throttle` label), those that mean the
/// board held the clocks down under load.
pub mod throttle {
    /// Software power cap (the board's power limit).
    pub const POWER_CAP: &str = "power_cap";
    /// Hardware slowdown (power brake, overheating, the board's signal).
    pub const HW_SLOWDOWN: &str = "hw_slowdown";
    /// Software thermal slowdown (above the GPU's target temperature).
    pub const SW_THERMAL: &str = "sw_thermal";
    /// Hardware thermal slowdown.
    pub const HW_THERMAL: &str = "hw_thermal";
    /// Hardware power brake (an external signal).
    pub const HW_POWER_BRAKE: &str = "hw_power_brake";
    pub const ALL: [&str; 5] = [
        POWER_CAP,
        HW_SLOWDOWN,
        SW_THERMAL,
        HW_THERMAL,
        HW_POWER_BRAKE,
    ];
}

/// BabelStream's kernels, by the names the kernel label holds.
pub mod kernel {
    pub const COPY: &str = "copy";
    pub const MUL: &str = "mul";
    pub const ADD: &str = "add";
    pub const TRIAD: &str = "triad";
    pub const DOT: &str = "dot";
    pub const ALL: [&str; 5] = [COPY, MUL, ADD, TRIAD, DOT];
}

/// GEMM precisions (`--precisions`).
pub mod precision {
    pub const FP64: &str = "fp64";
    pub const FP32: &str = "fp32";
    /// FP32 data multiplied on tensor cores in TF32.
    pub const TF32: &str = "tf32";
    pub const FP16: &str = "fp16";
    pub const BF16: &str = "bf16";
    /// E4M3 inputs through cuBLASLt (per-tensor scales 1), BF16 output,
    /// FP32 accumulation; Ada, Hopper and later.
    pub const FP8: &str = "fp8";
    pub const ALL: [&str; 6] = [FP64, FP32, TF32, FP16, BF16, FP8];
}

/// Copy directions.
pub mod direction {
    pub const HOST_TO_DEVICE: &str = "h2d";
    pub const DEVICE_TO_HOST: &str = "d2h";
    /// Both at once on two streams; the figure is their sum.
    pub const BOTH: &str = "both";
    /// Device to device, from the `gpu` to the `peer` GPU.
    pub const PEER: &str = "d2d";
    /// Device to device both ways at once; the figure is their sum.
    pub const PEER_BOTH: &str = "d2d_both";
    pub const ALL: [&str; 5] = [HOST_TO_DEVICE, DEVICE_TO_HOST, BOTH, PEER, PEER_BOTH];
}

/// Host memory kinds of a copy.
pub mod host_memory {
    /// Page-locked (cuMemAllocHost).
    pub const PINNED: &str = "pinned";
    /// Ordinary memory the driver stages.
    pub const PAGEABLE: &str = "pageable";
    pub const ALL: [&str; 2] = [PINNED, PAGEABLE];
}

/// Parameter names.
pub mod param {
    /// The GPU measured: "0: NVIDIA H200".
    pub const GPU: &str = "gpu";
    /// The GPU's PCI bus id in sysfs's form ("0000:8a:00.0"): which NVML
    /// energy counter its efficiency figures divide by.
    pub const BUS_ID: &str = "pci_bus_id";
    /// Compute capability ("9.0").
    pub const COMPUTE_CAPABILITY: &str = "compute_capability";
    /// Elements (doubles) per stream array.
    pub const ARRAY_ELEMENTS: &str = "array_elements";
    /// Timed repetitions of each kernel.
    pub const NTIMES: &str = "ntimes";
    /// The theoretical peak the percentages are of, and how it was found.
    pub const PEAK: &str = "peak";
    /// Bytes per copy.
    pub const COPY_BYTES: &str = "copy_bytes";
    /// What each figure is, in words.
    pub const METHOD: &str = "method";
    /// The libraries used (paths and versions).
    pub const LIBRARIES: &str = "libraries";
    /// `gpu burn`: the precision and order of its multiplies.
    pub const BURN_GEMM: &str = "gemm";
    /// `gpu burn`: the run's length.
    pub const DURATION: &str = "duration";
    /// `gpu burn`: what NVML could not tell (events, ECC, rows), in words.
    pub const HEALTH_UNAVAILABLE: &str = "health_unavailable";
    /// `gpu burn`: the XID errors seen, with their meaning.
    pub const XIDS: &str = "xids";
    /// `gpu bandwidth`: how each peer is reached ("1: direct" or "1:
    /// staged through the host").
    pub const PEER_ACCESS: &str = "peer_access";
}
