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
