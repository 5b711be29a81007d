//! The built-in server ([`crate::server`]) as the target of one benchmark:
//! for a URL that is only a path (`/bytes/3985`), the benchmark starts it in
//! this process on an ephemeral 127.0.0.1 port, sends to that port, checks
//! that the responses the server wrote equal the replies the client
//! completed (else the result is failed), and stops it.

use std::time::{Duration, Instant};

use nodebench_core::bench::BenchError;
use nodebench_core::cputime::SchedTimes;
use nodebench_core::names::http::in_process as names;
use nodebench_core::{BenchResult, Better, Metric, ResultStatus, Unit};

use crate::config::InProcessServer;
use crate::server::{Server, ServerConfig, ServerHandle};
use crate::url::Target;

/// How long the server's count may trail the client's last reply.
const COUNT_SETTLE: Duration = Duration::from_secs(1);

/// The built-in server running for one benchmark; dropping it stops it.
pub struct Running {
    handle: ServerHandle,
    threads: usize,
    /// The dynamic endpoints' `PATH=TARGET` (empty without).
    endpoints: String,
    /// The server's response count when the current check began, and
    /// each worker's.
    before: u64,
    before_per_worker: Vec<u64>,
    /// When the current check began, and each worker's scheduler times then.
    since: (Instant, Vec<SchedTimes>),
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
        let handle = Server::bind(ServerConfig {
            threads,
            endpoints: server.endpoints.clone(),
            ..d
        })?
        .spawn();
        let since = (Instant::now(), handle.worker_sched_times());
        Ok(Some(Running {
            handle,
            threads,
            endpoints: server.endpoints.targets(),
            before: 0,
            before_per_worker: vec![0; threads],
            since,
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
    /// threads, the responses it wrote, and each worker's responses, time
    /// on a CPU and waiting for one as % of the time, all since the last
    /// check) and fails a passed result whose client completed another
    /// count than the server wrote.
    pub fn check(&mut self, result: &mut BenchResult, completed: u64) {
        let served = self.settled_count(completed);
        self.before += served;
        let per_worker = self.handle.requests_per_worker();
        for (i, (now, before)) in per_worker.iter().zip(&self.before_per_worker).enumerate() {
            result.metrics.push(
                Metric::new(
                    names::SERVER_THREAD_REQUESTS,
                    now.saturating_sub(*before) as f64,
                    Unit::Count,
                    Better::Neither,
                )
                .label(names::THREAD, i),
            );
        }
        self.before_per_worker = per_worker;
        let (now, sched) = (Instant::now(), self.handle.worker_sched_times());
        let elapsed = now.duration_since(self.since.0).as_secs_f64();
        let share = |after: Duration, before: Duration| {
            let used = after.saturating_sub(before).as_secs_f64();
            if elapsed > 0.0 {
                100.0 * used / elapsed
            } else {
                0.0
            }
        };
        for (i, (after, before)) in sched.iter().zip(&self.since.1).enumerate() {
            for (name, pct) in [
                (
                    names::SERVER_THREAD_CPU,
                    share(after.running, before.running),
                ),
                (
                    names::SERVER_THREAD_WAIT,
                    share(after.waiting, before.waiting),
                ),
            ] {
                result.metrics.push(
                    Metric::new(name, pct, Unit::Percent, Better::Lower).label(names::THREAD, i),
                );
            }
        }
        self.since = (now, sched);
        result.set_param(names::TARGET, names::BUILT_IN);
        result.set_param(names::SERVER_THREADS, self.threads);
        if !self.endpoints.is_empty() {
            result.set_param(names::SERVER_ENDPOINTS, &self.endpoints);
        }
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
