//! Names of the network benchmarks' results.

/// Benchmark id of iperf-style TCP throughput.
pub const TCP: &str = "net.tcp";
/// Benchmark id of iperf-style UDP throughput.
pub const UDP: &str = "net.udp";
/// Benchmark id of TCP/UDP ping-pong.
pub const PINGPONG: &str = "net.pingpong";
/// Benchmark id of HPCC's latency and bandwidth tests (ping-pong between
/// process pairs, naturally and randomly ordered rings).
pub const HPCC_LATENCY_BANDWIDTH: &str = "net.hpcc_latency_bandwidth";

/// Values of the [`label::DIRECTION`] label: which way data flowed.
pub mod direction {
    /// The client sent (iperf's default).
    pub const CLIENT_TO_SERVER: &str = "client_to_server";
    /// The server sent (`--reverse`, or the second half of `--bidir`).
    pub const SERVER_TO_CLIENT: &str = "server_to_client";
}

/// Values of the [`label::SIDE`] label of the byte and throughput figures.
pub mod side {
    /// The sending end's figures.
    pub const SENDER: &str = "sender";
    /// The receiving end's figures.
    pub const RECEIVER: &str = "receiver";
}

/// Values of the [`label::HOST`] label.
pub mod host {
    /// The iperf client.
    pub const CLIENT: &str = "client";
    /// The iperf server.
    pub const SERVER: &str = "server";
}

/// Values of the transport protocol (`protocol` label and `--protocols`).
pub mod protocol {
    /// TCP.
    pub const TCP: &str = "tcp";
    /// UDP.
    pub const UDP: &str = "udp";
}

/// Metric names of ping-pong results (the latency summaries are the shared
/// [`super::latency`] names).
pub mod metric {
    /// Round trips per second of a cell.
    pub const ROUND_TRIPS: &str = "round_trips";
    /// UDP messages that got no reply in time.
    pub const LOST: &str = "lost";
    /// The round-trip time histogram of a cell.
    pub const LATENCY: &str = "latency";
    /// Bytes a side moved over the test.
    pub const BYTES: &str = "bytes";
    /// Bytes per second of a side (`side` label: sender or receiver).
    pub const THROUGHPUT: &str = "throughput";
    /// TCP retransmits of the senders.
    pub const RETRANSMITS: &str = "retransmits";
    /// Largest TCP congestion window seen, bytes.
    pub const SND_CWND_MAX: &str = "snd_cwnd_max";
    /// Mean smoothed TCP round-trip time, seconds.
    pub const RTT: &str = "rtt";
    /// UDP datagrams sent.
    pub const PACKETS_SENT: &str = "packets_sent";
    /// UDP datagrams received.
    pub const PACKETS_RECEIVED: &str = "packets_received";
    /// UDP datagrams lost (sequence gaps).
    pub const LOST_PACKETS: &str = "lost_packets";
    /// UDP loss as a percentage of datagrams sent.
    pub const LOST_PERCENT: &str = "lost_percent";
    /// UDP datagrams that arrived out of order.
    pub const OUT_OF_ORDER: &str = "out_of_order";
    /// UDP jitter (RFC 3550), seconds.
    pub const JITTER: &str = "jitter";
    /// CPU use of a host over the test, percent of one CPU.
    pub const CPU: &str = "cpu";
    /// CPU time of one stream's thread over its test, percent of one CPU
    /// (labels [`super::label::DIRECTION`], [`super::label::SIDE`],
    /// [`super::label::HOST`]); recorded where one stream runs in the
    /// direction. The CPU it last ran on is the parameter
    /// [`super::param::THREAD_LAST_CPU`].
    pub const THREAD_CPU: &str = "thread_cpu";
}

/// Label keys of network results (thread count and message size are the
/// shared [`super::labels`] keys).
pub mod label {
    /// Transport protocol: [`super::protocol::TCP`] or [`super::protocol::UDP`].
    pub const PROTOCOL: &str = "protocol";
    /// Direction of a stream's figures (`sender`, `receiver`).
    pub const DIRECTION: &str = "direction";
    /// Which side measured a CPU figure (`local`, `remote`).
    pub const SIDE: &str = "side";
    /// The host a figure is about.
    pub const HOST: &str = "host";
}

/// Parameter names of network results.
pub mod param {
    /// Server host (`net.tcp`, `net.udp`).
    pub const HOST: &str = "host";
    /// Server port.
    pub const PORT: &str = "port";
    /// Parallel streams.
    pub const PARALLEL: &str = "parallel";
    /// Length of a test, seconds.
    pub const DURATION_S: &str = "duration_s";
    /// Server sends, client receives (`-R`).
    pub const REVERSE: &str = "reverse";
    /// Both directions at once.
    pub const BIDIR: &str = "bidir";
    /// sendfile(2) instead of write(2) (`-Z`).
    pub const ZEROCOPY: &str = "zerocopy";
    /// Socket buffer size asked for, bytes.
    pub const WINDOW: &str = "window";
    /// Target bit rate, bits per second.
    pub const BITRATE: &str = "bitrate";
    /// Egress interface to the peer.
    pub const INTERFACE: &str = "interface";
    /// MTU of the egress interface, bytes (`unknown` when not found).
    pub const MTU: &str = "mtu";
    /// Local address of the egress route.
    pub const LOCAL_ADDRESS: &str = "local_address";
    /// Bytes per write (iperf3's `-l`).
    pub const LENGTH: &str = "length";
    /// Ping-pong server address.
    pub const SERVER: &str = "server";
    /// Ping-pong transport protocol.
    pub const PROTOCOL: &str = "protocol";
    /// True when the benchmark started its server in this process on a
    /// loopback port (`--loopback`).
    pub const IN_PROCESS_SERVER: &str = "in_process_server";
    /// CPUs the ping-pong client threads were pinned to (`0,2`), `none`
    /// when unpinned.
    pub const CLIENT_CPUS: &str = "client_cpus";
    /// CPUs the in-process echo server's threads were pinned to, `none`
    /// when unpinned (only with `in_process_server`).
    pub const ECHO_CPUS: &str = "echo_cpus";
    /// True when the ping-pong clients spun on non-blocking receives
    /// (`--busy-poll`).
    pub const BUSY_POLL: &str = "busy_poll";
    /// `TCP_MAXSEG` asked for on the data sockets, bytes (`--mss`).
    pub const MSS: &str = "mss";
    /// `TCP_MAXSEG` of the client's first data connection once
    /// established, bytes: the largest segment it sent.
    pub const DATA_MSS: &str = "data_mss";
    /// The CPU each stream thread measured by [`super::metric::THREAD_CPU`]
    /// last ran on: an object from `DIRECTION HOST SIDE` to the CPU number
    /// (observed, not set: a parameter so that the figure's labels stay
    /// the same between runs).
    pub const THREAD_LAST_CPU: &str = "thread_last_cpu";
}

/// Parameters that define a TCP/UDP throughput workload: results differing
/// in one of them are not compared.
pub const THROUGHPUT_WORKLOAD_PARAMS: &[&str] = &[
    param::PARALLEL,
    param::REVERSE,
    param::BIDIR,
    param::ZEROCOPY,
    param::WINDOW,
    param::BITRATE,
    param::LENGTH,
    param::MSS,
];
/// Parameters that define a ping-pong workload (message size and thread
/// count are labels).
pub const PINGPONG_WORKLOAD_PARAMS: &[&str] = &[param::PROTOCOL, param::BUSY_POLL];
