//! Names `nodebench fleet` adds to the runs it brings back from its hosts.

/// Run tag: the hosts file's name of the host the run ran on.
pub const HOST_TAG: &str = "host";
/// Run tag: the fleet run id tying together the runs of one `fleet` command.
pub const FLEET_TAG: &str = "fleet";
/// Run tag: which `fleet` command made the run (`run`, `pair`, `http`).
pub const MODE_TAG: &str = "fleet_mode";
/// Run tag of a `fleet pair` run: the host that served.
pub const SERVER_TAG: &str = "server_host";
/// Run tag of a `fleet pair` run: the MTU both hosts' interfaces were set to.
pub const MTU_TAG: &str = "mtu";
/// Run tag of a `fleet pair` run: the server host's interface.
pub const SERVER_INTERFACE_TAG: &str = "server_interface";
/// Run tag of a `fleet pair` run: the server host's interface MTU during the test.
pub const SERVER_MTU_TAG: &str = "server_mtu";
/// Run tag of a `fleet pair` run: `ip route get CLIENT` on the server.
pub const SERVER_ROUTE_TAG: &str = "server_route";
/// Run tag of a `fleet pair` run: `ip route get SERVER` on the client.
pub const CLIENT_ROUTE_TAG: &str = "client_route";
/// Run tag of a `fleet pair` run: the test (`tcp`, `udp`, `pingpong`).
pub const TEST_TAG: &str = "pair_test";
/// Run tag of a `fleet http` generator: its clock minus the driving
/// machine's, in nanoseconds, as measured over ssh.
pub const CLOCK_OFFSET_TAG: &str = "clock_offset_ns";
/// Run tag of a `fleet http` generator: its measured start minus the agreed
/// start, in nanoseconds on the driving machine's clock.
pub const START_SKEW_TAG: &str = "start_skew_ns";
/// Value of [`MODE_TAG`] of the run holding a `fleet pair --matrix` link
/// matrix (one [`LINKS`] result; not a host's run).
pub const MODE_MATRIX: &str = "matrix";

/// Benchmark id of the link matrix `fleet pair --matrix` stores: one
/// figure per tested link (server x client), from the pairs' `net.tcp` and
/// `net.pingpong` runs.
pub const LINKS: &str = "fleet.links";

/// Metric names of [`LINKS`] results.
pub mod metric {
    /// Bytes per second the server received from the client (`net.tcp`'s
    /// receiver throughput, client to server).
    pub const BANDWIDTH: &str = "bandwidth";
    /// Median TCP round trip of one thread with 1-byte messages
    /// (`net.pingpong`'s `latency_p50`), seconds.
    pub const LATENCY: &str = "latency";
}

/// Label keys of [`LINKS`] figures.
pub mod label {
    /// The host that served (`net serve` ran there).
    pub const SERVER: &str = "server";
    /// The host that ran the client.
    pub const CLIENT: &str = "client";
}

/// Parameter names of [`LINKS`] results.
pub mod param {
    /// How the pairs were chosen: a [`super::plan`] value.
    pub const PLAN: &str = "plan";
    /// The seed of the random pairs ([`super::plan::RING_RANDOM`]).
    pub const SEED: &str = "seed";
    /// `--max-pairs`, where given.
    pub const MAX_PAIRS: &str = "max_pairs";
    /// Hosts in the plan.
    pub const HOSTS: &str = "hosts";
    /// Pairs planned.
    pub const PAIRS: &str = "pairs";
    /// Every pair of the hosts: n(n-1)/2.
    pub const ALL_PAIRS: &str = "all_pairs";
    /// `--tolerance`: a link is slow when worse than the median link by
    /// more than this, in %.
    pub const TOLERANCE: &str = "tolerance_percent";
}

/// Values of [`param::PLAN`].
pub mod plan {
    /// Every pair of the hosts.
    pub const ALL: &str = "all";
    /// The pairs `--pairs` named.
    pub const GIVEN: &str = "given";
    /// A ring through every host plus seeded random pairs up to `--max-pairs`.
    pub const RING_RANDOM: &str = "ring+random";
}
