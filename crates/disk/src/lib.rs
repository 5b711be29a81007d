//! Disk benchmarks: the IOzone test set with throughput and auto modes, dd,
//! and the block-size x thread matrix, on psync, io_uring and stdio engines.

pub mod blocks;
pub mod dd;
pub mod iozone;
pub mod job;
pub mod scratch;
