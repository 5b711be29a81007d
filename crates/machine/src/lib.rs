//! nodebench machine: everything that reads the node it runs on, on top of
//! core's result model. The inventory and topology readers (`/proc`, `/sys`,
//! CPUID, SMBIOS), the telemetry sampler and its compact history, the
//! theoretical peak and the effective-core probe, NVIDIA's GPUs through
//! NVML and the CUDA driver opened at run time, clock measurement, every process's CPU time (`procs`), the host's state for benchmarking
//! and `--tune` (`host`), the
//! bottleneck rules that read results against telemetry, and the
//! overridable roots (`NODEBENCH_SYSFS_ROOT`, `NODEBENCH_PROCFS_ROOT`) that
//! let tests read recorded trees of bigger machines.
//!
//! Area crates may use core and machine, never each other.

pub mod bottleneck;
#[cfg(feature = "cli")]
pub mod cli;
pub mod clock;
pub mod cores;
pub mod disturb;
pub mod energy;
pub mod error;
#[cfg(target_arch = "x86_64")]
mod fma;
pub mod gpu;
pub use inventory::host;
pub mod inventory;
pub mod observe;
pub mod peak;
pub mod procs;
pub mod sysroot;
pub mod telemetry;

pub use error::Error;
