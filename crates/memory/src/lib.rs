//! Memory benchmarks: STREAM, the block-size x thread matrix, the
//! latency sweep by working-set size, and HPCC's RandomAccess (GUPS) and
//! PTRANS.

pub mod blocks;
#[cfg(feature = "cli")]
pub mod cli;
pub mod gups;
pub mod gups_kernel;
pub mod latency;
pub mod loaded;
pub mod numa;
pub mod ptrans;
pub mod stream;
pub mod stream_numa;

// Shared by the configurations above; imports none of them.
mod config;
