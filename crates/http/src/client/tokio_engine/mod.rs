//! The TLS and HTTP/2 engine: one tokio current-thread runtime per worker
//! thread, rustls for TLS and the `h2` crate for HTTP/2. `run_load` uses it
//! for `https://` targets and for `--http2`; plain HTTP/1.1 goes through the
//! epoll engine, whose load semantics this one follows:
//!
//! - **Closed model** (ab): each of the thread's connections sends the next
//!   request when the previous reply completed, claiming each from the
//!   shared budget, until `-n` is spent or `-t` passed. No request starts
//!   at or after the deadline; those in flight then still finish (within
//!   `--timeout`). Cancellation abandons them.
//! - **Open model** (wrk2): request `i` of connection `j` is due at
//!   [`ThreadPlan::planned`]; latency counts from that time (corrected) and
//!   from the actual send (uncorrected). A request whose connection was free
//!   but that went out more than [`LATE_SLACK`] after its due time counts
//!   as sent late.
//! - **Connection rate** (httperf): new connections open at
//!   [`ThreadPlan::conn_planned`], each making its calls one after the
//!   other and then closing; a failed call ends its connection.
//!
//! Keep-alive off closes the connection after each reply (not with the
//! connection rate, whose connections carry all their calls). A kept-alive
//! connection the server closed is reopened, and a request that found it
//! closed before any reply byte is sent again once. The per-request
//! timeout counts from the request's start, connect included: expiring
//! during the TCP connect or TLS handshake is a socket timeout, later a
//! client timeout. Socket errors are mapped by errno
//! ([`ErrorKind::from_errno`]); TLS handshake failures are connect errors.
//!
//! HTTP/2 keeps the HTTP/1.1 semantics so the two are comparable: by
//! default every unit of concurrency (`-c`) is its own connection carrying
//! one stream at a time, as h2load does with `-m 1`. With `--streams M`
//! each connection carries M request slots at once, each on its own stream
//! (h2load `-m M`): the slots of a connection share it (`http2`), the
//! first to need it connecting and the others joining, and when it fails
//! the next slot to need one opens a new one. With keep-alive off each
//! request gets a new connection, for HTTP/2 too. Over TLS the protocol
//! is chosen by ALPN: `h2` and `http/1.1` are offered with `--http2` (a
//! server that picks HTTP/1.1 stops the run with a message rather than
//! silently measuring the wrong protocol), `http/1.1` alone otherwise.
//! `http://` with `--http2` speaks h2c with prior knowledge.
//!
//! Connect time is the TCP connect plus the TLS handshake. A reply's first
//! byte is the first response byte read (HTTP/1.1) or the arrival of the
//! response headers (HTTP/2). HTTP/2 header bytes are counted as the head
//! would be written in HTTP/1.1 text (`h2` does not expose the HPACK-coded
//! size); `bytes_in`/`bytes_out` are socket bytes, TLS records included.
//!
//! Certificates are verified against the webpki (Mozilla) roots unless
//! `--insecure`, which accepts any certificate (handshake signatures are
//! still checked against the certificate presented). A failed connect
//! (TCP, TLS, or no h2 from ALPN) before this thread ever connected stops
//! the thread with a one-line reason in [`ThreadStats::fatal`], as the
//! epoll engine does (a self-signed certificate without `--insecure` says
//! so and names the flag); after a first success failures are counted and
//! the run goes on.
//!
//! Its parts, bottom up: `io` (byte-counting sockets and the mapping of
//! I/O errors to error kinds), `tls` (the rustls client configuration),
//! `http2` (the request in HTTP/2 form and connection sharing), `engine`
//! (a thread's state: connecting and one exchange on a connection) and
//! `loops` (the closed, open and connection-rate load loops).
//!
//! [`ErrorKind::from_errno`]: crate::stats::ErrorKind::from_errno
//! [`LATE_SLACK`]: crate::client::LATE_SLACK

mod engine;
mod http2;
mod io;
mod loops;
mod tls;

use std::rc::Rc;

use nodebench_core::bench::Cancel;
use tokio::task::LocalSet;

pub use self::tls::tls_config;
use crate::client::plan::ThreadPlan;
use crate::config::LoadConfig;
use crate::stats::ThreadStats;
use engine::Engine;

/// Runs one worker thread's share of the load over TLS and/or HTTP/2 and
/// returns what it measured. Builds its own current-thread runtime; never
/// panics on network or TLS failures (they are counted, or end the thread
/// with [`ThreadStats::fatal`] set).
pub fn run_thread(plan: &ThreadPlan, cfg: &LoadConfig, cancel: &Cancel) -> ThreadStats {
    let fatal = |why: String| {
        let mut stats = ThreadStats::new(plan.start);
        stats.fatal = Some(why);
        stats
    };
    nodebench_core::affinity::precise_timers();
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return fatal(format!("cannot start the TLS/HTTP2 client runtime: {e}")),
    };
    let engine = match Engine::new(plan, cfg, cancel) {
        Ok(e) => Rc::new(e),
        Err(why) => return fatal(why),
    };
    let local = LocalSet::new();
    local.block_on(&rt, engine.clone().run(&cfg.model));
    // Dropping the set ends the tasks still running (the cancel watcher,
    // HTTP/2 connection drivers), releasing their engine handles.
    drop(local);
    drop(rt);
    let io = engine.io.clone();
    let mut stats = match Rc::try_unwrap(engine) {
        Ok(e) => e.stats.into_inner(),
        Err(shared) => shared.stats.borrow().clone(),
    };
    stats.bytes_in += io.read.get();
    stats.bytes_out += io.written.get();
    stats
}
