//! Names of the memory benchmarks' results.

/// Benchmark id of STREAM.
pub const STREAM: &str = "memory.stream";
/// Benchmark id of the block-size x thread matrix.
pub const BLOCKS: &str = "memory.blocks";
/// Benchmark id of the latency sweep by working-set size.
pub const LATENCY: &str = "memory.latency";
