//! iperf3-compatible TCP/UDP throughput: a client ([`run_client`]) that runs
//! against a stock `iperf3 -s`, and a server ([`serve`]) that a stock
//! `iperf3 -c` runs against.
//!
//! The control protocol is iperf3's ([`proto`]): a TCP control connection
//! opened with a 37-byte cookie, one-byte states, length-prefixed JSON for the
//! parameters and both sides' results, data connections that open with the
//! cookie (TCP) or a connect datagram and its reply (UDP). One test runs at a
//! time; another client is answered `ACCESS_DENIED` ("busy").
//!
//! Measurement: one thread per data stream doing blocking I/O with large
//! buffers; counters are published through atomics and sampled once per
//! interval together with `TCP_INFO` (retransmits, congestion window, RTT) of
//! TCP senders. UDP datagrams carry iperf3's header (send time and packet
//! counter); the receiver counts loss and reordering from the counter and
//! computes jitter as RFC 3550 does. CPU use is `getrusage` over wall time.
//!
//! Byte counts agree exactly between the two sides of a TCP test: before
//! ending the test a sending client waits until its data is acknowledged
//! (`SIOCOUTQ` = 0) and briefly lets the receiver read it; a receiving client
//! reads until the server closes the streams; our server, as receiver, reads
//! until it has every byte the client reports sent. Against a stock iperf3
//! *client* with `-R`, that client stops counting at its own end of test, so
//! its received count is a little below our sent count, as between two
//! stock iperf3s.
//!
//! Not supported by our server (refused with iperf3's error codes): `--omit`
//! and SCTP. Byte- or block-bounded tests (`-n`, `-k`) run when no
//! `max_duration` is set (aborted after iperf3's 24 h limit) and are refused
//! when one is, since they are not bounded in time. A client's `window` is set on the server's
//! data sockets after accepting them (iperf3 re-creates its listener
//! instead), so a window beyond what the kernel's default window scaling
//! allows is capped by it.

#![warn(missing_docs)]

pub mod proto;

mod client;
mod server;
mod stream;
mod sys;

use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::time::Duration;

use nodebench_core::bench::{BenchError, Cancel};
use nodebench_core::config::Config;
use nodebench_core::names::net as names;

nodebench_core::choice! {
    /// Transport protocol of a test.
    pub enum Protocol {
        /// TCP streams.
        Tcp => names::protocol::TCP,
        /// UDP streams.
        Udp => names::protocol::UDP,
    }
}

impl Protocol {
    fn transport(self) -> proto::Transport {
        match self {
            Protocol::Tcp => proto::Transport::Tcp,
            Protocol::Udp => proto::Transport::Udp,
        }
    }

    fn from_transport(t: proto::Transport) -> Protocol {
        match t {
            proto::Transport::Tcp => Protocol::Tcp,
            proto::Transport::Udp => Protocol::Udp,
        }
    }
}

/// What the client runs.
#[derive(Debug, Clone)]
pub struct ClientConfig {
    /// Server host name or address (`[::1]` and `::1` both work).
    pub host: String,
    /// Server port (iperf3's default is 5201).
    pub port: u16,
    /// TCP or UDP.
    pub protocol: Protocol,
    /// Streams per direction (1 to 128).
    pub parallel: u32,
    /// How long data flows.
    pub duration: Duration,
    /// Interval report period; `None` = 1 s like iperf3, zero = none.
    pub interval: Option<Duration>,
    /// `SO_SNDBUF` and `SO_RCVBUF` for the data sockets, bytes; `None`
    /// leaves the kernel's autotuning alone.
    pub window: Option<u32>,
    /// Write/read size: `None` = 128 KiB for TCP; for UDP the control
    /// connection's MSS (the path MTU less headers), or 1460, as iperf3 picks.
    pub length: Option<usize>,
    /// `TCP_MAXSEG` of the data sockets, bytes (iperf3 `-M`/`--set-mss`,
    /// also sent to the server); `None` leaves the path's MSS. On loopback
    /// 1448 emulates an MTU of 1500 and 8948 one of 9000.
    pub mss: Option<u32>,
    /// Start the iperf3-compatible server in this process on an ephemeral
    /// loopback port for this test (`--loopback`); `host` and `port` are
    /// then the server's.
    pub loopback: bool,
    /// Server sends, client receives.
    pub reverse: bool,
    /// Both directions at once.
    pub bidir: bool,
    /// TCP senders use `sendfile` from a memory file instead of `write`
    /// (iperf3 `-Z` does the same).
    pub zerocopy: bool,
    /// Target bits/s per stream: `None` = unlimited for TCP and 1 Mbit/s for
    /// UDP (iperf3's defaults); `Some(0)` = unlimited.
    pub bitrate: Option<u64>,
    /// Limit for connecting and for each control-message wait during setup.
    pub connect_timeout: Duration,
    /// Access token for `nodebench net serve --token` (sent as the
    /// `nodebench_token` parameter, which stock iperf3 servers ignore).
    pub token: Option<String>,
}

impl ClientConfig {
    /// A TCP test of `host` on the default port: one stream, 10 s, iperf3's
    /// defaults otherwise, 5 s connect timeout.
    pub fn new(host: impl Into<String>) -> ClientConfig {
        ClientConfig {
            host: host.into(),
            port: proto::DEFAULT_PORT,
            protocol: Protocol::Tcp,
            parallel: 1,
            duration: Duration::from_secs(10),
            interval: None,
            window: None,
            length: None,
            mss: None,
            loopback: false,
            reverse: false,
            bidir: false,
            zerocopy: false,
            bitrate: None,
            connect_timeout: Duration::from_secs(5),
            token: None,
        }
    }
}

impl Default for ClientConfig {
    /// iperf3's defaults against the local host.
    fn default() -> Self {
        ClientConfig::new("localhost")
    }
}

impl Config for ClientConfig {
    /// The checks iperf3 makes of its client options, with the flag named.
    fn validate(&self) -> Result<(), BenchError> {
        let invalid = |m: String| Err(BenchError::Invalid(m));
        if self.parallel == 0 || self.parallel > proto::MAX_STREAMS {
            return invalid(format!(
                "--parallel {}: must be 1 to {}",
                self.parallel,
                proto::MAX_STREAMS
            ));
        }
        if self.reverse && self.bidir {
            return invalid("--reverse and --bidir cannot be combined".into());
        }
        if self.duration.is_zero() {
            return invalid("--time: must be more than 0 s".into());
        }
        if let Some(l) = self.length {
            let (min, max) = match self.protocol {
                Protocol::Tcp => (1, proto::MAX_TCP_LEN),
                Protocol::Udp => (proto::UdpHeader::len(true), proto::MAX_UDP_LEN),
            };
            if !(min..=max).contains(&l) {
                return invalid(format!("--length {l}: must be {min} to {max} bytes"));
            }
        }
        if self.connect_timeout.is_zero() {
            return invalid("--connect-timeout: must be more than 0 s".into());
        }
        if let Some(m) = self.mss {
            if self.protocol != Protocol::Tcp {
                return invalid("--mss: applies to TCP tests only".into());
            }
            check_mss(m)?;
        }
        Ok(())
    }
}

/// One stream's figures over an interval or the whole test.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct StreamStats {
    /// iperf3 stream id (1, 3, 4, 5, ... in creation order).
    pub id: u32,
    /// The side that measured this sent on the stream.
    pub sender: bool,
    /// Bytes sent (sender) or received (receiver).
    pub bytes: u64,
    /// Length of the measurement, seconds.
    pub seconds: f64,
    /// TCP sender: retransmitted segments (`TCP_INFO`).
    pub retransmits: Option<u64>,
    /// TCP sender: congestion window in bytes (at the interval's end; for the
    /// whole test, the largest seen).
    pub snd_cwnd: Option<u64>,
    /// TCP sender: smoothed RTT in microseconds (for the whole test, the
    /// mean of the interval samples).
    pub rtt_us: Option<u64>,
    /// UDP receiver: jitter, milliseconds.
    pub jitter_ms: Option<f64>,
    /// UDP receiver: packets lost (gaps in the packet counter).
    pub lost_packets: Option<u64>,
    /// UDP: datagrams sent (sender) or received (receiver).
    pub packets: Option<u64>,
    /// UDP receiver: datagrams that arrived out of order.
    pub out_of_order: Option<u64>,
    /// The stream's thread's CPU time over its life, percent of one CPU
    /// (nodebench peers only).
    pub thread_cpu: Option<f64>,
    /// The CPU that thread last ran on.
    pub last_cpu: Option<u32>,
}

impl StreamStats {
    /// Bits per second over the measurement (0 for an empty one).
    pub fn bits_per_second(&self) -> f64 {
        if self.seconds > 0.0 {
            self.bytes as f64 * 8.0 / self.seconds
        } else {
            0.0
        }
    }
}

/// Figures of one interval report, per stream.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct IntervalStats {
    /// Interval start, seconds after the test start.
    pub start: f64,
    /// Interval end, seconds after the test start.
    pub end: f64,
    /// One entry per stream of this side.
    pub streams: Vec<StreamStats>,
}

/// CPU use of the process over the test, percent of one CPU, as iperf3
/// reports it (`getrusage` user and system time over wall time).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct CpuUtil {
    /// User + system.
    pub total: f64,
    /// User time.
    pub user: f64,
    /// System time.
    pub system: f64,
}

/// Everything a finished test measured, on this side and (from its results
/// message) on the peer.
#[derive(Debug, Clone, PartialEq)]
pub struct TestOutcome {
    /// What this side measured, per stream.
    pub local: Vec<StreamStats>,
    /// What the peer reported, per stream (matched to ours by id).
    pub remote: Vec<StreamStats>,
    /// This side's interval reports.
    pub intervals: Vec<IntervalStats>,
    /// This side's CPU use.
    pub local_cpu: CpuUtil,
    /// The peer's CPU use, when it reported it.
    pub remote_cpu: Option<CpuUtil>,
    /// TCP or UDP.
    pub protocol: Protocol,
    /// The test was reverse (server sent), as the client asked.
    pub reverse: bool,
    /// The test ran in both directions.
    pub bidir: bool,
    /// Write/read size (UDP: datagram size), bytes.
    pub length: usize,
    /// Test length from start to the end of sending, seconds.
    pub duration: f64,
    /// TCP: `TCP_MAXSEG` of this side's first data connection once
    /// established, the largest segment it sends (bounded by `--mss`).
    pub data_mss: Option<usize>,
}

impl TestOutcome {
    /// Sum of `bytes` over `streams` whose `sender` flag is `sender`.
    pub fn sum_bytes(streams: &[StreamStats], sender: bool) -> u64 {
        streams
            .iter()
            .filter(|s| s.sender == sender)
            .map(|s| s.bytes)
            .sum()
    }
}

/// Runs one test against an iperf3-compatible server.
///
/// Errors are one line: "cannot connect to HOST:PORT: connection refused",
/// "... timed out after 5 s", "server busy: ...", "server refused the test:
/// ..." (naming `--max-duration`, `--max-bitrate` or `--token` where our
/// server gave the reason). Cancelling ends the test early and still
/// exchanges results (bounded by timeouts), so what was measured is kept.
pub fn run_client(cfg: &ClientConfig, cancel: &Cancel) -> Result<TestOutcome, BenchError> {
    client::run(cfg, cancel).map_err(BenchError::System)
}

/// What the server accepts.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Address to listen on (127.0.0.1 unless told otherwise).
    pub bind: IpAddr,
    /// Port (5201 by default; 0 picks a free one, reported to `on_ready`).
    pub port: u16,
    /// Longest test accepted; a client asking for more (or for a test
    /// bounded by bytes instead of time) is refused.
    pub max_duration: Option<Duration>,
    /// Highest total UDP bitrate accepted (streams x rate, both directions),
    /// bits/s; a UDP client asking for more, or for unlimited, is refused.
    pub max_bitrate: Option<u64>,
    /// When set, clients must send this token (`nodebench_token`), or are
    /// answered `ACCESS_DENIED`.
    pub token: Option<String>,
    /// Return after this many tests ran (tests and scripts).
    pub max_tests: Option<u64>,
    /// `TCP_MAXSEG` set on the listening socket, so every accepted
    /// connection's segments are bounded by it; `None` leaves the path's.
    pub mss: Option<u32>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            bind: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: proto::DEFAULT_PORT,
            max_duration: None,
            max_bitrate: None,
            token: None,
            max_tests: None,
            mss: None,
        }
    }
}

/// Serves iperf3-compatible tests, one at a time, until `cancel` is set or
/// `cfg.max_tests` tests ran.
///
/// Binds first (an error names the flag: "--port 5201: address already in
/// use"), then calls `on_ready` with the bound address, then `on_test` with
/// this side's outcome of every test that completed (tests that failed or
/// were refused are not reported there; they count towards `max_tests` when
/// their streams had started). Refusals (limits, token, busy) and malformed
/// control messages get an answer the client can display, and the server goes
/// on serving. Every control read has a timeout; a test is aborted 15 s after
/// its announced length.
pub fn serve(
    cfg: &ServerConfig,
    cancel: &Cancel,
    on_ready: impl FnOnce(SocketAddr),
    on_test: impl FnMut(TestOutcome),
) -> Result<(), BenchError> {
    server::serve(cfg, cancel, on_ready, on_test).map_err(BenchError::System)
}

/// Smallest `TCP_MAXSEG` Linux takes (`TCP_MIN_MSS`).
pub const MIN_MSS: u32 = 88;
/// Largest `--mss` accepted: an MTU of 9216 less 40 bytes of headers, the
/// largest jumbo frame switches commonly carry.
pub const MAX_MSS: u32 = 9176;

/// Checks an MSS against [`MIN_MSS`]..=[`MAX_MSS`], naming `--mss`.
fn check_mss(mss: u32) -> Result<(), BenchError> {
    if (MIN_MSS..=MAX_MSS).contains(&mss) {
        Ok(())
    } else {
        Err(BenchError::Invalid(format!(
            "--mss {mss}: expected {MIN_MSS} to {MAX_MSS} bytes, e.g. 1448 (MTU 1500) or 8948 (MTU 9000)"
        )))
    }
}

/// Formats a duration for messages: "5 s", "0.5 s", "1.25 s".
fn fmt_secs(d: Duration) -> String {
    let s = format!("{:.3}", d.as_secs_f64());
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s} s")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secs_are_formatted_plainly() {
        assert_eq!(fmt_secs(Duration::from_secs(5)), "5 s");
        assert_eq!(fmt_secs(Duration::from_millis(500)), "0.5 s");
        assert_eq!(fmt_secs(Duration::from_millis(1250)), "1.25 s");
    }

    #[test]
    fn stream_rate() {
        let s = StreamStats {
            bytes: 1_000_000,
            seconds: 2.0,
            ..StreamStats::default()
        };
        assert_eq!(s.bits_per_second(), 4_000_000.0);
        assert_eq!(StreamStats::default().bits_per_second(), 0.0);
    }
}
