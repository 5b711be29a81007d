//! Memory benchmarks: STREAM, the block-size x thread matrix, and the
//! latency sweep by working-set size.

pub mod blocks;
pub mod latency;
pub mod loaded;
pub mod numa;
pub mod stream;
pub mod stream_numa;

// Shared by the configurations above; imports none of them.
mod config;
