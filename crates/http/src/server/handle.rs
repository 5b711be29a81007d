//! The server's counters (each worker's response count, the connections
//! taken on) and the handle of a server running in the background.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::JoinHandle;

use nodebench_core::bench::Cancel;
use nodebench_core::cputime::{self, SchedTimes};

use super::Shared;

/// Counts shared by the workers.
#[derive(Debug)]
pub(super) struct Counters {
    /// Responses each worker wrote, in worker order.
    pub(super) served: Vec<Served>,
    /// Connections the workers took on.
    pub(super) connections: AtomicU64,
}

/// One worker's response count, on a cache line of its own so the
/// workers do not all write one line.
#[derive(Debug, Default)]
#[repr(align(128))]
pub(super) struct Served(pub(super) AtomicU64);

/// The counters of a server, shared with its workers.
#[derive(Clone)]
pub struct Counts(pub(super) Arc<Shared>);

impl Counts {
    /// Responses fully written so far (every status, 404 and 400 included).
    pub fn requests_served(&self) -> u64 {
        self.requests_per_worker().iter().sum()
    }

    /// Connections accepted so far.
    pub fn connections_accepted(&self) -> u64 {
        self.0.counters.connections.load(Ordering::Relaxed)
    }

    /// Responses each worker thread wrote so far, in worker order.
    pub fn requests_per_worker(&self) -> Vec<u64> {
        self.0
            .counters
            .served
            .iter()
            .map(|s| s.0.load(Ordering::Relaxed))
            .collect()
    }
}

/// A server running on background threads; dropping it stops it too.
pub struct ServerHandle {
    pub(super) counts: Counts,
    pub(super) addr: SocketAddr,
    pub(super) cancel: Cancel,
    /// The accepting thread and the workers.
    pub(super) workers: Vec<JoinHandle<Result<(), String>>>,
}

impl ServerHandle {
    /// The bound address.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Responses fully written so far.
    pub fn requests_served(&self) -> u64 {
        self.counts.requests_served()
    }

    /// Connections accepted so far.
    pub fn connections_accepted(&self) -> u64 {
        self.counts.connections_accepted()
    }

    /// Responses each worker thread wrote so far, in worker order.
    pub fn requests_per_worker(&self) -> Vec<u64> {
        self.counts.requests_per_worker()
    }

    /// Time each worker thread spent on a CPU and waiting for one so far,
    /// in worker order (zero for one not yet started or unreadable).
    pub fn worker_sched_times(&self) -> Vec<SchedTimes> {
        self.counts
            .0
            .tids
            .iter()
            .map(|t| match t.load(Ordering::Relaxed) {
                0 => SchedTimes::default(),
                tid => cputime::thread_sched(tid).unwrap_or_default(),
            })
            .collect()
    }

    /// Stops the workers and the accepting thread (each notices within
    /// 100 ms), closes every connection and waits for them.
    pub fn stop(mut self) {
        self.shutdown();
    }

    fn shutdown(&mut self) {
        self.cancel.cancel();
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        self.shutdown();
    }
}
