//! `nodebench net ...`: the subcommands. Each wraps its benchmark's
//! arguments, defined with their conversion into its config in `nodebench_net::cli`.

use clap::Subcommand;
use nodebench_net::cli::*;

/// `nodebench net ...`
#[derive(Debug, Subcommand)]
pub enum NetCommand {
    /// Serve iperf3-compatible tests (a stock `iperf3 -c` works against it)
    /// on --port, and the ping-pong echo on --port + 1, until Ctrl-C.
    Serve(ServeArgs),
    /// TCP throughput against `nodebench net serve` or a stock `iperf3 -s`.
    Tcp(TcpArgs),
    /// UDP throughput (paced at --bitrate) with jitter, loss and reordering.
    Udp(UdpArgs),
    /// TCP and UDP ping-pong: round trips per second and latency percentiles
    /// per message size and client thread count (needs `nodebench net serve`).
    Pingpong(PingpongArgs),
}
