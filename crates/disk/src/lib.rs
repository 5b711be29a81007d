//! Disk benchmarks: the IOzone test set with throughput and auto modes, dd,
//! and the block-size x thread matrix, on psync, io_uring and stdio engines.

pub mod job;
pub mod scratch;
