//! Memory benchmarks: STREAM, the block-size x thread matrix, and the
//! latency sweep by working-set size.

pub mod buffer;
pub mod dmi;
pub mod stream;
pub mod team;
