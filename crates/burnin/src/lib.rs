//! nodebench burn-in: runs a mixed load of existing benchmarks at once for
//! hours or days (`nodebench burnin`), commits a checkpoint result per
//! workload every interval, detects errors (failed validation or verify,
//! HTTP errors, new machine-check, EDAC, throttling or kernel-log events)
//! and degradation (a throughput below its first window's median), and
//! ends with a verdict. Generic over the workloads: the CLI builds them
//! from the area crates; this crate depends on core and store only.

#![warn(missing_docs)]

pub mod config;
pub mod degrade;
pub mod engine;
pub mod events;
pub mod heap;
pub mod power;
pub mod verdict;
pub mod watch;
pub mod workload;

pub use config::BurninConfig;
pub use engine::{Burnin, Outcome};
pub use verdict::Verdict;
pub use watch::MachineWatch;
pub use workload::{Factory, Sample, Throughput, Workload};
