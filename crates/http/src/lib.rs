//! HTTP benchmarks: the load generator (closed model as ab, open model as
//! httperf and wrk2, latency without coordinated omission), the built-in
//! target server, JMeter-style user sweeps and single-stream downloads.
//!
//! The load generator's modules, bottom up: [`url`], [`config`] and
//! [`stats`] (what a run is told and what it measures), [`client`] (the
//! engines, which read the config and fill the stats) and [`load`] (the
//! benchmark, which runs the engines and maps their stats to a result).

#[cfg(feature = "cli")]
pub mod cli;
pub mod download;
pub mod in_process;
pub mod link;
pub mod server;
pub mod sweep;

pub mod client;
pub mod config;
pub mod load;
pub mod stats;
pub mod url;
