//! nodebench gpu: NVIDIA GPUs measured through libraries opened at run time
//! (the CUDA driver, NVRTC, cuBLAS; NVML for what each GPU is), so one
//! binary serves machines with and without them: BabelStream's kernels in
//! device memory ([`stream`]), GEMM at each precision against the
//! theoretical peak ([`gemm`], [`peak`]), and host-device copies as
//! nvbandwidth ([`bandwidth`]).
//!
//! Layout, bottom to top: `config`, `kernels` (the CUDA C source),
//! `toolkit` (NVRTC and cuBLAS), `peak`, `device` (one GPU made ready),
//! then the benchmarks.

pub mod bandwidth;
pub mod burn;
#[cfg(feature = "cli")]
pub mod cli;
pub mod config;
pub mod device;
pub mod error;
pub mod gemm;
pub mod kernels;
pub mod lt;
pub mod peak;
pub mod stream;
pub mod toolkit;

pub use bandwidth::GpuBandwidth;
pub use burn::GpuBurn;
pub use config::{BandwidthConfig, BurnConfig, GemmConfig, StreamConfig};
pub use error::Error;
pub use gemm::GpuGemm;
pub use stream::GpuStream;

/// Why GPU benchmarks cannot run here (no driver, no GPU), in one line;
/// `None` where they can.
pub fn unavailable() -> Option<Error> {
    device::ordinals(None).err()
}
