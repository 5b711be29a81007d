//! nodebench core: the result model (with the inventory's types), names,
//! units and parsing, statistics, cancellation and the contract every
//! benchmark follows, and the low-level helpers the area crates share
//! (buffers, thread teams, CPU lists, NUMA binding, epoll, generators,
//! latency histograms, routes). What reads the machine (inventory readers,
//! telemetry, peaks, clocks, bottleneck rules) is `nodebench_machine`.

pub mod affinity;
pub mod bench;
pub mod buffer;
pub mod build_info;
#[cfg(feature = "cli")]
pub mod cli;
pub mod config;
pub mod cpulist;
pub mod cputime;
pub mod credentials;
pub mod disturbance;
pub mod endpoint;
pub mod epoll;
pub mod error;
pub mod finding;
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
pub mod portable;
pub mod registry;
pub mod repeat;
pub mod repeat_mode;
pub mod rng;
pub mod route;
pub mod sizing;
pub mod stats;
pub mod team;
pub mod test_require;
pub mod threshold;
pub mod units;

pub use model::*;
