//! Names of the CPU op-rate benchmark's results.
//!
//! The kernel and thread count of a figure are the shared label keys
//! [`super::labels::KERNEL`] and [`super::labels::THREADS`].

/// Benchmark id of the op-rate kernels.
pub const OPS: &str = "cpu.ops";
/// Benchmark id of sysbench's cpu test (prime counting), imported.
pub const SYSBENCH: &str = "cpu.sysbench";
/// Benchmark id of HPCC's DGEMM (matrix multiply), imported.
pub const HPCC_DGEMM: &str = "cpu.hpcc_dgemm";
/// Benchmark id of HPCC's FFT (complex 1-D DFT), imported.
pub const HPCC_FFT: &str = "cpu.hpcc_fft";

/// Metric: operations (integer) or flop (floating point) per second of one
/// kernel, scaling mode and thread count; the median of the repeats.
pub const RATE: &str = "rate";
/// Metric: the rate at a thread count over the one-thread rate of the same
/// kernel and scaling mode.
pub const SPEEDUP: &str = "speedup";
/// Metric: speedup per thread, in percent (100 % is perfect scaling).
pub const EFFICIENCY: &str = "efficiency";

/// The op-rate kernels, by the names `--kernels` takes and the
/// [`super::labels::KERNEL`] label holds.
pub mod kernel {
    /// 64-bit integer add + xor, one element per instruction.
    pub const INT_SCALAR: &str = "int.scalar";
    /// 32-bit integer add + xor over SIMD lanes.
    pub const INT_VECTOR: &str = "int.vector";
    /// Single-precision multiply + add, one element per instruction.
    pub const F32_SCALAR: &str = "f32.scalar";
    /// Single-precision fused multiply-add over SIMD lanes.
    pub const F32_VECTOR: &str = "f32.vector";
    /// Double-precision multiply + add, one element per instruction.
    pub const F64_SCALAR: &str = "f64.scalar";
    /// Double-precision fused multiply-add over SIMD lanes.
    pub const F64_VECTOR: &str = "f64.vector";
    /// Every kernel, in `--kernels`' order.
    pub const ALL: &[&str] = &[
        INT_SCALAR, INT_VECTOR, F32_SCALAR, F32_VECTOR, F64_SCALAR, F64_VECTOR,
    ];
}

/// The scaling modes, by the names `--scaling` takes and the
/// [`label::SCALING`] label holds.
pub mod scaling {
    /// Fixed total work, split across the threads.
    pub const STRONG: &str = "strong";
    /// Fixed work per thread.
    pub const WEAK: &str = "weak";
}

/// Label keys of the op-rate figures.
pub mod label {
    /// Scaling mode of a figure: `strong` (fixed total work) or `weak`
    /// (fixed work per thread).
    pub const SCALING: &str = "scaling";
}

/// Parameter names of an op-rate result (one result per kernel).
pub mod param {
    /// The kernel measured (`f64.vector`).
    pub const KERNEL: &str = "kernel";
    /// The instructions the kernel runs on this CPU (`AVX2+FMA 256-bit FMA`).
    pub const ISA: &str = "isa";
    /// The thread counts measured, in order.
    pub const THREADS: &str = "threads";
    /// Target time of one single-thread measurement, in seconds.
    pub const DURATION_S: &str = "duration_s";
    /// Reported repeats per cell.
    pub const REPEATS: &str = "repeats";
    /// Unreported warm-up runs per cell.
    pub const WARMUP: &str = "warmup";
    /// The scaling modes measured (`["strong", "weak"]`).
    pub const SCALING: &str = "scaling";
    /// Whether the worker threads were pinned to CPUs.
    pub const PINNED: &str = "pinned";
    /// Operations (or flop) one loop iteration of the kernel performs.
    pub const OPS_PER_ITERATION: &str = "ops_per_iteration";
    /// Loop iterations of one unit of work (about `duration` on one thread).
    pub const ITERATIONS_PER_UNIT: &str = "iterations_per_unit";
    /// The theoretical peak the floating-point rates are set against, in
    /// words (`unknown: why` when it could not be computed).
    pub const PEAK: &str = "peak";
}

/// Parameters that define an op-rate workload: results differing in one of
/// them are not compared (thread count and scaling mode are labels).
pub const WORKLOAD_PARAMS: &[&str] = &[param::KERNEL];

/// Benchmark id of the context-switch round trip (`perf bench sched
/// pipe`): two threads pass a token through a pair of pipes.
pub const SWITCH: &str = "cpu.switch";

/// Names of `cpu.switch`'s results.
pub mod switch {
    /// Metric names of a context-switch result.
    pub mod metric {
        /// The mean time of one round trip (a write to the partner, the
        /// partner's wake-up and its write back), in seconds: perf's usecs/op.
        pub const ROUND_TRIP: &str = "round_trip";
        /// Round trips per second: perf's ops/sec.
        pub const RATE: &str = "round_trips_per_s";
    }

    /// Parameter names of a context-switch result.
    pub mod param {
        /// Round trips timed (perf's `--loop`).
        pub const LOOPS: &str = "loops";
        /// Where the two threads ran: `unpinned`, one CPU (`3`: every
        /// round trip two context switches on it) or two (`0,1`).
        pub const CPUS: &str = "cpus";
    }

    /// The value of [`param::CPUS`] when the threads were not pinned.
    pub const UNPINNED: &str = "unpinned";

    /// Parameters that define the workload: the threads' placement; the
    /// loop count only scales it.
    pub const WORKLOAD_PARAMS: &[&str] = &[param::CPUS, param::LOOPS];
}
