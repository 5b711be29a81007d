//! CPU benchmarks: integer and floating-point operation rates with thread
//! scaling, and the theoretical peak they are set against; the
//! context-switch round trip.
//!
//! - config.rs: the kernels, the scaling modes and `cpu ops`' options.
//! - kernels.rs: the kernels themselves, per instruction set.
//! - ops.rs: the `cpu.ops` benchmark (calibration, thread teams, figures).
//! - fft.rs: HPCC's FFT (`cpu.hpcc_fft`) through rustfft.
//! - switch.rs: the context-switch round trip (`cpu.switch`, perf's
//!   `sched pipe`).

#[cfg(feature = "cli")]
pub mod cli;
pub mod config;
pub mod fft;
pub mod kernels;
pub mod ops;
pub mod switch;
