//! The built-in server ([`crate::server`]) as the target of one benchmark:
//! for a URL that is only a path (`/bytes/3985`), the benchmark starts it in
//! this process on an ephemeral 127.0.0.1 port, sends to that port, checks
//! that the responses the server wrote equal the replies the client
//! completed (else the result is failed), and stops it.

use std::time::{Duration, Instant};

use nodebench_core::BenchResult;
use nodebench_core::ResultStatus;
use nodebench_core::bench::BenchError;
use nodebench_core::names::http::in_process as names;

use crate::config::InProcessServer;
use crate::server::{Server, ServerConfig, ServerHandle};
use crate::url::Target;

/// How long the server's count may trail the client's last reply.
const COUNT_SETTLE: Duration = Duration::from_secs(1);

/// The built-in server running for one benchmark; dropping it stops it.
pub struct Running {
    handle: ServerHandle,
    threads: usize,
    /// The server's response count when the current check began.
    before: u64,
}

impl Running {
    /// Starts the built-in server when `server.enabled` (None otherwise),
    /// with `server.threads` workers or the server's default.
    pub fn start(server: &InProcessServer) -> Result<Option<Running>, BenchError> {
        if !server.enabled {
            return Ok(None);
        }
        let d = ServerConfig::default();
        let threads = server.threads.unwrap_or(d.threads);
        let handle = Server::bind(ServerConfig { threads, ..d })
            .map_err(BenchError::System)?
            .spawn();
        Ok(Some(Running {
            handle,
            threads,
            before: 0,
        }))
    }

    /// `target` (its path) on the running server's address.
    pub fn target(&self, target: &Target) -> Target {
        let addr = self.handle.local_addr();
        Target {
            host: addr.ip().to_string(),
            port: addr.port(),
            ..target.clone()
        }
    }

    /// Records the server in `result` (that it was the built-in one, its
    /// threads, the responses it wrote since the last check) and fails a
    /// passed result whose client completed another count than that.
    pub fn check(&mut self, result: &mut BenchResult, completed: u64) {
        let served = self.settled_count(completed);
        self.before += served;
        result.set_param(names::TARGET, names::BUILT_IN);
        result.set_param(names::SERVER_THREADS, self.threads);
        result.set_param(names::SERVER_REQUESTS_SERVED, served);
        if result.status == ResultStatus::Passed && served != completed {
            result.mark_failed(format!(
                "the server wrote {served} responses but the client completed {completed}"
            ));
        }
    }

    /// The server's count since the last check, waiting (at most
    /// [`COUNT_SETTLE`]) for it to reach `expected`: the count goes up just
    /// after the last byte of a response is handed to the socket, a moment
    /// after the client may have read it.
    fn settled_count(&self, expected: u64) -> u64 {
        let end = Instant::now() + COUNT_SETTLE;
        loop {
            let served = self.handle.requests_served() - self.before;
            if served >= expected || Instant::now() >= end {
                return served;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Stops the server's workers and waits for them.
    pub fn stop(self) {
        self.handle.stop();
    }
}
