//! NVIDIA's libraries, opened at run time so one binary serves machines
//! with and without them: finding them ([`libs`]), the CUDA driver API
//! ([`cuda`]) and NVML ([`nvml`]). Bindings only: what the machine's
//! inventory and telemetry read through NVML is `nodebench-machine`'s,
//! the GPU benchmarks that run on the driver API are `nodebench-gpu`'s.

pub mod cuda;
pub mod error;
pub mod libs;
pub mod nvml;

pub use error::Error;
