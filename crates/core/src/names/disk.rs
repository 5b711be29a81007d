//! Names of the disk benchmarks' results.

/// Benchmark id of the IOzone test set.
pub const IOZONE: &str = "disk.iozone";
/// Benchmark id of the dd-style writes.
pub const DD: &str = "disk.dd";
/// Benchmark id of the block-size x thread matrix.
pub const BLOCKS: &str = "disk.blocks";
