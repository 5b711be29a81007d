//! Names of the HTTP benchmarks' results.

/// Benchmark id of the load generator.
pub const LOAD: &str = "http.load";
/// Benchmark id of the JMeter-style user sweep.
pub const SWEEP: &str = "http.sweep";
/// Benchmark id of the single-stream download.
pub const DOWNLOAD: &str = "http.download";
/// Benchmark id of the quick suite's in-process load.
pub const LOOPBACK: &str = "http.loopback";
