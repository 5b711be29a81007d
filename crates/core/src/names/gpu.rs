//! Names of the GPU benchmarks' results (`nodebench gpu ...`).

/// Benchmark id: BabelStream's five kernels in device memory.
pub const STREAM: &str = "gpu.stream";
/// Benchmark id: matrix multiply through cuBLAS at each precision.
pub const GEMM: &str = "gpu.gemm";
/// Benchmark id: host-device copies, as nvbandwidth.
pub const BANDWIDTH: &str = "gpu.bandwidth";

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
    pub const ALL: [&str; 5] = [FP64, FP32, TF32, FP16, BF16];
}

/// Copy directions.
pub mod direction {
    pub const HOST_TO_DEVICE: &str = "h2d";
    pub const DEVICE_TO_HOST: &str = "d2h";
    /// Both at once on two streams; the figure is their sum.
    pub const BOTH: &str = "both";
    pub const ALL: [&str; 3] = [HOST_TO_DEVICE, DEVICE_TO_HOST, BOTH];
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
}
