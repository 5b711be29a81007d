//! Names of the network benchmarks' results.

/// Benchmark id of iperf-style TCP throughput.
pub const TCP: &str = "net.tcp";
/// Benchmark id of iperf-style UDP throughput.
pub const UDP: &str = "net.udp";
/// Benchmark id of TCP/UDP ping-pong.
pub const PINGPONG: &str = "net.pingpong";
/// Benchmark id of the quick suite's in-process loopback pair.
pub const LOOPBACK: &str = "net.loopback";

/// Values of the transport protocol (`protocol` label and `--protocols`).
pub mod protocol {
    /// TCP.
    pub const TCP: &str = "tcp";
    /// UDP.
    pub const UDP: &str = "udp";
}
