//! The client engines and what they share: the [`ThreadPlan`] each worker
//! thread runs ([`plan`]), the request serialised once ([`request`]), and
//! the HTTP/1.1 reply parser ([`h1`]).
//!
//! Engines: [`epoll`] (plain HTTP/1.1, one epoll loop per thread) and
//! [`tokio_engine`] (TLS and HTTP/2). Each has
//! `run_thread(plan, cfg, cancel) -> ThreadStats`; [`run_thread`] picks
//! the one the configuration needs. They read the configuration and write
//! the stats, and know nothing of the benchmark that runs them.

pub mod epoll;
pub mod h1;
pub mod plan;
pub mod request;
pub mod tokio_engine;

use nodebench_core::bench::Cancel;

pub use plan::{LATE_SLACK, ThreadPlan, plans};

use crate::config::LoadConfig;
use crate::stats::ThreadStats;

/// Runs one worker thread of the load `cfg` with the engine it needs (the
/// tokio engine for TLS or HTTP/2, the epoll engine otherwise) and returns
/// what it measured.
pub fn run_thread(plan: &ThreadPlan, cfg: &LoadConfig, cancel: &Cancel) -> ThreadStats {
    if cfg.tls_or_http2() {
        tokio_engine::run_thread(plan, cfg, cancel)
    } else {
        epoll::run_thread(plan, cfg, cancel)
    }
}
