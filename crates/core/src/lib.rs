//! nodebench core: the result model, units and parsing, statistics, system
//! inventory, cancellation and the contract every benchmark follows, and the
//! low-level helpers the area crates share (buffers, thread teams, epoll,
//! clocks, generators, latency histograms, routes).

pub mod affinity;
pub mod bench;
pub mod bottleneck;
pub mod buffer;
pub mod build_info;
pub mod clock;
pub mod config;
pub mod cores;
pub mod cpulist;
pub mod cputime;
pub mod credentials;
pub mod endpoint;
pub mod epoll;
pub mod finding;
#[cfg(target_arch = "x86_64")]
mod fma;
#[cfg(feature = "fuzz")]
pub mod fuzz;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub mod glibc_compat;
pub mod inventory;
pub mod latency;
pub mod model;
pub mod names;
pub mod numa;
pub mod orientation;
pub mod packed;
pub mod peak;
pub mod portable;
pub mod rng;
pub mod route;
pub mod stats;
pub mod sysroot;
pub mod team;
pub mod telemetry;
pub mod threshold;
pub mod units;

pub use model::*;
