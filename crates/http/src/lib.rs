//! HTTP benchmarks: the load generator (closed model as ab, open model as
//! httperf and wrk2, latency without coordinated omission), the built-in
//! target server, JMeter-style user sweeps and single-stream downloads.

pub mod download;
pub mod link;
pub mod loopback;
pub mod server;
pub mod sweep;

pub mod client;
pub mod load;
pub mod stats;
pub mod url;
