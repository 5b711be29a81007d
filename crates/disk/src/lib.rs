//! Disk benchmarks: the IOzone test set with throughput and auto modes, dd,
//! synced small writes (fsync),
//! and the block-size x thread matrix, on psync, io_uring and stdio engines;
//! `--steady-state` rounds after SNIA PTS preconditioning.

pub mod blocks;
#[cfg(feature = "cli")]
pub mod cli;
pub mod dd;
pub mod fsync;
pub mod iozone;
pub mod job;
pub mod rounds;
pub mod scratch;
pub mod steady;
