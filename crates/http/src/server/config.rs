//! How the built-in server runs: its address, worker threads, keep-alive
//! limits and dynamic endpoints.

use std::net::{Ipv4Addr, SocketAddr};
use std::time::Duration;

use nodebench_core::affinity;
use nodebench_core::endpoint::Endpoints;

/// Requests per connection before the server closes it (Apache's
/// `MaxKeepAliveRequests`).
pub const DEFAULT_KEEPALIVE_REQUESTS: u32 = 100;
/// How long an idle keep-alive connection stays open (Apache's `KeepAliveTimeout`).
pub const DEFAULT_KEEPALIVE_TIMEOUT: Duration = Duration::from_secs(15);
/// Most worker threads.
pub const MAX_THREADS: usize = 1024;

/// How the server runs.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Address and port to listen on (`127.0.0.1:0`: an ephemeral loopback port).
    pub bind: SocketAddr,
    /// Worker threads, each with its own event loop.
    pub threads: usize,
    /// Requests served on one connection before it is closed; 0 = unlimited.
    pub keepalive_requests: u32,
    /// Idle time after which a keep-alive connection is closed.
    pub keepalive_timeout: Duration,
    /// Pages answered by another area's code (`--db`: `/db/ir`), one
    /// handler per worker opened before serving.
    pub endpoints: Endpoints,
}

impl Default for ServerConfig {
    /// An ephemeral loopback port, one worker per allowed CPU, Apache's
    /// keep-alive limits.
    fn default() -> Self {
        ServerConfig {
            bind: SocketAddr::from((Ipv4Addr::LOCALHOST, 0)),
            threads: affinity::allowed_cpus().len().clamp(1, MAX_THREADS),
            keepalive_requests: DEFAULT_KEEPALIVE_REQUESTS,
            keepalive_timeout: DEFAULT_KEEPALIVE_TIMEOUT,
            endpoints: Endpoints::none(),
        }
    }
}
