//! Names of the CPU op-rate benchmark's results.

/// Benchmark id of the op-rate kernels.
pub const OPS: &str = "cpu.ops";
