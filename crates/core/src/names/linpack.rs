//! Names of the LINPACK benchmark's results.

/// Benchmark id of LINPACK.
pub const LINPACK: &str = "cpu.linpack";
