//! `nodebench net ...`: the flags of `net serve`, `net tcp`, `net udp` and
//! `net pingpong`, and the one conversion of each into its config.

use std::net::{IpAddr, ToSocketAddrs};
use std::time::Duration;

use crate::iperf3::{ClientConfig, Protocol, ServerConfig};
use crate::pingpong::{PingpongConfig, Proto};
use clap::Args;
use nodebench_core::bench::{BenchError, Benchmark};
use nodebench_core::cli::{BenchArgs, Runnable};
use nodebench_core::credentials::TOKEN_ENV;
use nodebench_core::names::net;

use nodebench_core::cli::parse::{
    CpuList, ThreadList, duration_text, or_default, parse_bitrate, parse_count, parse_cpus,
    parse_duration, parse_size, parse_threads,
};

/// Options of `net serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on (loopback unless told otherwise).
    #[arg(long, value_name = "IP", default_value_t = ServerConfig::default().bind)]
    pub bind: IpAddr,
    /// iperf3 port; the ping-pong echo uses the next one.
    #[arg(short = 'p', long, value_name = "PORT", default_value_t = ServerConfig::default().port, value_parser = clap::value_parser!(u16).range(1..))]
    pub port: u16,
    /// Refuse tests longer than this.
    #[arg(long, value_name = "DURATION", value_parser = parse_duration, allow_hyphen_values = true)]
    pub max_duration: Option<Duration>,
    /// Refuse UDP tests asking for more than this many bits/s in total.
    #[arg(long, value_name = "RATE", value_parser = parse_bitrate)]
    pub max_bitrate: Option<u64>,
    /// Refuse clients that do not send this shared secret (`--token` on the
    /// client); also read from NODEBENCH_TOKEN, which keeps it off the
    /// command line. Never stored or printed.
    #[arg(long, value_name = "SECRET", env = TOKEN_ENV, hide_env_values = true)]
    pub token: Option<String>,
    /// Exit after this many tests.
    #[arg(long, value_name = "N", value_parser = parse_count)]
    pub max_tests: Option<u64>,
    /// Pin the ping-pong echo threads: TCP connection j on the j-th CPU of
    /// the list (round robin), UDP on the first (default unpinned).
    #[arg(long, value_name = "LIST", value_parser = parse_cpus)]
    pub cpus: Option<CpuList>,
}

impl From<&ServeArgs> for ServerConfig {
    fn from(a: &ServeArgs) -> ServerConfig {
        ServerConfig {
            bind: a.bind,
            port: a.port,
            max_duration: a.max_duration,
            max_bitrate: a.max_bitrate,
            token: a.token.clone(),
            max_tests: a.max_tests,
            mss: None,
        }
    }
}

/// Options of `net tcp` and `net udp`.
#[derive(Debug, Args)]
pub struct ThroughputArgs {
    /// Server host (name, IPv4 or IPv6 address); not with --loopback.
    #[arg(required_unless_present = "loopback")]
    pub host: Option<String>,
    /// Start the iperf3-compatible server in this process on an ephemeral
    /// loopback port for this test, instead of naming a host.
    #[arg(long, conflicts_with_all = ["host", "port"])]
    pub loopback: bool,
    /// Server port.
    #[arg(short = 'p', long, value_name = "PORT", default_value_t = ClientConfig::default().port, value_parser = clap::value_parser!(u16).range(1..))]
    pub port: u16,
    /// Parallel streams.
    #[arg(short = 'P', long, value_name = "N", default_value_t = ClientConfig::default().parallel)]
    pub parallel: u32,
    /// How long to send.
    #[arg(short = 't', long = "time", value_name = "DURATION", default_value = duration_text(ClientConfig::default().duration), value_parser = parse_duration, allow_hyphen_values = true)]
    pub time: Duration,
    /// Interval between reports (default 1s, as iperf3).
    #[arg(short = 'i', long, value_name = "DURATION", value_parser = parse_duration, allow_hyphen_values = true)]
    pub interval: Option<Duration>,
    /// Socket buffer size (SO_SNDBUF/SO_RCVBUF), e.g. 4M.
    #[arg(short = 'w', long, value_name = "SIZE", value_parser = parse_size)]
    pub window: Option<u64>,
    /// Bytes per write/read (UDP: datagram payload). Default 128 KiB for TCP, the path MSS for UDP.
    #[arg(short = 'l', long, value_name = "SIZE", value_parser = parse_size)]
    pub length: Option<u64>,
    /// The server sends and the client receives.
    #[arg(short = 'R', long)]
    pub reverse: bool,
    /// Both directions at once.
    #[arg(long)]
    pub bidir: bool,
    /// Zero-copy sends (sendfile), as iperf3 -Z.
    #[arg(short = 'Z', long)]
    pub zerocopy: bool,
    /// Target bits/s per stream (UDP default 1M as iperf3; 0 = unlimited).
    #[arg(short = 'b', long, value_name = "RATE", value_parser = parse_bitrate)]
    pub bitrate: Option<u64>,
    /// Give up connecting after this long.
    #[arg(long, value_name = "DURATION", default_value = duration_text(ClientConfig::default().connect_timeout), value_parser = parse_duration, allow_hyphen_values = true)]
    pub connect_timeout: Duration,
    /// Shared secret for a server started with --token; also read from
    /// NODEBENCH_TOKEN, which keeps it off the command line. Never stored
    /// or printed.
    #[arg(long, value_name = "SECRET", env = TOKEN_ENV, hide_env_values = true)]
    pub token: Option<String>,
}

/// Options of `net tcp` only.
#[derive(Debug, Args)]
pub struct TcpOnlyArgs {
    /// TCP maximum segment size of the data connections, bytes (iperf3
    /// -M/--set-mss; also set on the in-process server with --loopback).
    /// On loopback 1448 emulates an MTU of 1500, 8948 an MTU of 9000.
    #[arg(short = 'M', long, visible_alias = "set-mss", value_name = "BYTES", value_parser = parse_mss)]
    pub mss: Option<u32>,
}

/// An MSS in bytes; the range is the config's check.
fn parse_mss(s: &str) -> Result<u32, String> {
    s.trim().parse::<u32>().map_err(|_| {
        format!("invalid segment size '{s}': expected a whole number of bytes like 1448")
    })
}

impl ThroughputArgs {
    /// The client's config for a test over `protocol`.
    fn client(&self, protocol: Protocol) -> ClientConfig {
        ClientConfig {
            host: self.host.clone().unwrap_or_else(|| "127.0.0.1".into()),
            port: self.port,
            loopback: self.loopback,
            mss: None,
            protocol,
            parallel: self.parallel,
            duration: self.time,
            interval: self.interval,
            window: self.window.map(|w| w.min(u32::MAX as u64) as u32),
            length: self.length.map(|l| l as usize),
            reverse: self.reverse,
            bidir: self.bidir,
            zerocopy: self.zerocopy,
            bitrate: self.bitrate,
            connect_timeout: self.connect_timeout,
            token: self.token.clone(),
        }
    }
}

/// TCP throughput against `nodebench net serve` or a stock `iperf3 -s`.
#[derive(Debug, Args)]
pub struct TcpArgs {
    /// What `net tcp` and `net udp` share.
    #[command(flatten)]
    pub test: ThroughputArgs,
    /// What only `net tcp` takes.
    #[command(flatten)]
    pub tcp: TcpOnlyArgs,
}

impl From<&TcpArgs> for ClientConfig {
    fn from(a: &TcpArgs) -> ClientConfig {
        ClientConfig {
            mss: a.tcp.mss,
            ..a.test.client(Protocol::Tcp)
        }
    }
}

/// UDP throughput (paced at --bitrate) with jitter, loss and reordering.
#[derive(Debug, Args)]
pub struct UdpArgs {
    /// What `net tcp` and `net udp` share.
    #[command(flatten)]
    pub test: ThroughputArgs,
}

impl From<&UdpArgs> for ClientConfig {
    fn from(a: &UdpArgs) -> ClientConfig {
        a.test.client(Protocol::Udp)
    }
}

/// TCP and UDP ping-pong: round trips per second and latency percentiles
/// per message size and client thread count (needs `nodebench net serve`).
#[derive(Debug, Args)]
pub struct PingpongArgs {
    /// Server host running `nodebench net serve`; not with --loopback.
    #[arg(required_unless_present = "loopback")]
    pub host: Option<String>,
    /// Start the echo server in this process on an ephemeral loopback port
    /// for this run, instead of naming a host.
    #[arg(long, conflicts_with_all = ["host", "port"])]
    pub loopback: bool,
    /// The server's iperf3 port (the echo is on the next port).
    #[arg(short = 'p', long, value_name = "PORT", default_value_t = ServerConfig::default().port, value_parser = clap::value_parser!(u16).range(1..))]
    pub port: u16,
    /// Message sizes (1 B to 1 MiB; UDP is clamped to 65507).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_size)]
    pub sizes: Vec<u64>,
    /// Client thread counts (default 1,2,4,8).
    #[arg(long, value_name = "LIST", value_parser = parse_threads)]
    pub threads: Option<ThreadList>,
    /// Protocols: tcp,udp (default both).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub protocols: Vec<Proto>,
    /// Time per cell.
    #[arg(long, value_name = "DURATION", default_value = duration_text(PingpongConfig::default().duration), value_parser = parse_duration, allow_hyphen_values = true)]
    pub duration: Duration,
    /// Pin client thread i on the i-th CPU of the list (round robin).
    /// Default unpinned; with --loopback every other CPU, the in-process
    /// echo on the others.
    #[arg(long, value_name = "LIST", value_parser = parse_cpus)]
    pub cpus: Option<CpuList>,
    /// Spin on non-blocking receives instead of sleeping in blocking ones
    /// (a CPU per client thread; default off, as sockperf).
    #[arg(long)]
    pub busy_poll: bool,
}

/// The echo port of the server whose iperf3 port is `port`: the next one.
pub fn echo_port(port: u16) -> Result<u16, BenchError> {
    port.checked_add(1).ok_or_else(|| {
        BenchError::Invalid(format!(
            "--port: {port} leaves no room for the echo port (port + 1)"
        ))
    })
}

impl TryFrom<&PingpongArgs> for PingpongConfig {
    type Error = String;

    /// Fails when the host does not resolve or the port has no next one.
    fn try_from(a: &PingpongArgs) -> Result<PingpongConfig, String> {
        let d = PingpongConfig::default();
        let server = match &a.host {
            None => d.server,
            Some(h) => {
                let host = h.trim_matches(|c| c == '[' || c == ']');
                (host, echo_port(a.port).map_err(|e| e.to_string())?)
                    .to_socket_addrs()
                    .map_err(|e| format!("cannot resolve {h}: {e}"))?
                    .next()
                    .ok_or_else(|| format!("cannot resolve {h}: no address"))?
            }
        };
        Ok(PingpongConfig {
            server,
            loopback: a.loopback,
            protocols: or_default(&a.protocols, d.protocols),
            sizes: if a.sizes.is_empty() {
                d.sizes
            } else {
                a.sizes.iter().map(|&s| s as usize).collect()
            },
            threads: a.threads.as_ref().map_or(d.threads, |t| t.0.clone()),
            duration: a.duration,
            cpus: a.cpus.as_ref().map(|c| c.0.clone()),
            busy_poll: a.busy_poll,
            ..d
        })
    }
}

impl BenchArgs for TcpArgs {
    const ID: &'static str = net::TCP;

    fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        Ok(Box::new(crate::throughput::Throughput {
            config: self.into(),
        }))
    }
}

impl BenchArgs for UdpArgs {
    const ID: &'static str = net::UDP;

    fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        Ok(Box::new(crate::throughput::Throughput {
            config: self.into(),
        }))
    }
}

impl BenchArgs for PingpongArgs {
    const ID: &'static str = net::PINGPONG;

    fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        Ok(Box::new(crate::pingpong::Pingpong {
            config: self.try_into().map_err(BenchError::System)?,
        }))
    }
}

/// The benchmarks of this crate, as the CLI and the suites run them.
pub const RUNNABLE: &[Runnable] = &[
    Runnable::of::<TcpArgs>(),
    Runnable::of::<UdpArgs>(),
    Runnable::of::<PingpongArgs>(),
];
