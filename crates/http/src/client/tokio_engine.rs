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
//!   but that went out more than [`LATE_SLACK`] after its due time counts as
//!   sent late.
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
//! (h2load `-m M`): the slots of a connection share it through a
//! [`Shared`], the first to need it connecting and the others joining, and
//! when it fails the next slot to need one opens a new one. With
//! keep-alive off each request gets a new connection, for HTTP/2 too. Over TLS the protocol is chosen
//! by ALPN: `h2` and `http/1.1` are offered with `--http2` (a server that
//! picks HTTP/1.1 stops the run with a message rather than silently
//! measuring the wrong protocol), `http/1.1` alone otherwise. `http://`
//! with `--http2` speaks h2c with prior knowledge.
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

use std::cell::{Cell, RefCell};
use std::future::{Future, poll_fn};
use std::io;
use std::net::SocketAddr;
use std::pin::{Pin, pin};
use std::rc::Rc;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http::header::{HeaderMap, HeaderName, HeaderValue};
use http::{Method, Request, Uri};
use nodebench_core::bench::Cancel;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::Notify;
use tokio::task::{JoinHandle, LocalSet};
use tokio_rustls::TlsConnector;

use super::h1::{Feed, ReplyParser};
use super::{LATE_SLACK, ThreadPlan};
use crate::load::{LoadConfig, Model};
use crate::stats::{ErrorKind, Exchange, ThreadStats};
use crate::url::Scheme;

/// How often the cancel flag is checked.
const STOP_POLL: Duration = Duration::from_millis(10);

/// Read buffer of one HTTP/1.1 connection.
const READ_BUF: usize = 16 * 1024;

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

/// Anything a connection can run over: TCP, or TLS over TCP.
trait Io: AsyncRead + AsyncWrite + Unpin {}

impl<T: AsyncRead + AsyncWrite + Unpin> Io for T {}

/// Socket byte counters shared by all of a thread's connections.
#[derive(Debug, Default)]
struct IoCount {
    read: Cell<u64>,
    written: Cell<u64>,
}

/// A TCP stream that adds what it reads and writes to an [`IoCount`].
struct Counted {
    inner: TcpStream,
    count: Rc<IoCount>,
}

impl AsyncRead for Counted {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let r = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = r {
            let n = (buf.filled().len() - before) as u64;
            self.count.read.set(self.count.read.get() + n);
        }
        r
    }
}

impl AsyncWrite for Counted {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = r {
            self.count.written.set(self.count.written.get() + n as u64);
        }
        r
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let r = Pin::new(&mut self.inner).poll_write_vectored(cx, bufs);
        if let Poll::Ready(Ok(n)) = r {
            self.count.written.set(self.count.written.get() + n as u64);
        }
        r
    }

    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

/// Accepts any server certificate (`--insecure`). The handshake signatures
/// are still verified against the certificate presented, so the session is
/// encrypted to whoever holds its key; only trust and name are skipped.
#[derive(Debug)]
struct AcceptAnyCert(Arc<CryptoProvider>);

impl ServerCertVerifier for AcceptAnyCert {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// The rustls client configuration: ring, TLS 1.2 and 1.3, webpki roots (or
/// any certificate when `insecure`), ALPN `h2` + `http/1.1` when `http2`,
/// `http/1.1` alone otherwise.
pub fn tls_config(http2: bool, insecure: bool) -> Result<ClientConfig, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS setup: {e}"))?;
    let mut config = if insecure {
        builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(AcceptAnyCert(provider)))
            .with_no_client_auth()
    } else {
        let roots = RootCertStore::from_iter(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        builder.with_root_certificates(roots).with_no_client_auth()
    };
    config.alpn_protocols = if http2 {
        vec![b"h2".to_vec(), b"http/1.1".to_vec()]
    } else {
        vec![b"http/1.1".to_vec()]
    };
    Ok(config)
}

/// Headers HTTP/2 forbids (RFC 9113 8.2.2) or carries as pseudo-headers.
const NOT_IN_H2: [&str; 7] = [
    "host",
    "connection",
    "keep-alive",
    "proxy-connection",
    "transfer-encoding",
    "upgrade",
    "te",
];

/// The request in HTTP/2 form, built once; each stream clones it.
struct H2Request {
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
}

impl H2Request {
    /// The same request [`super::serialize_request`] writes for HTTP/1.1:
    /// default `User-Agent` and `Accept`, `Content-Length` with a body, the
    /// user's headers replacing defaults; a user `Host` becomes the
    /// `:authority`; connection-specific headers are dropped.
    fn new(cfg: &LoadConfig) -> Result<H2Request, String> {
        let r = &cfg.request;
        let method = Method::from_bytes(r.method.as_bytes())
            .map_err(|_| format!("method {:?} is not a valid HTTP method", r.method))?;
        let host = r
            .headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("host"))
            .map_or_else(|| cfg.target.authority(), |(_, v)| v.clone());
        let uri_text = format!(
            "{}://{}{}",
            cfg.target.scheme.as_str(),
            host,
            cfg.target.path_and_query
        );
        let uri: Uri = uri_text
            .parse()
            .map_err(|e| format!("URL '{uri_text}' is not valid for HTTP/2: {e}"))?;
        let mut headers = HeaderMap::new();
        let bad = |k: &str, v: &str| format!("header {:?} is not valid", format!("{k}: {v}"));
        let mut defaults = vec![
            (
                "user-agent".to_string(),
                concat!("nodebench/", env!("CARGO_PKG_VERSION")).to_string(),
            ),
            ("accept".to_string(), "*/*".to_string()),
        ];
        if !r.body.is_empty() || matches!(r.method.as_str(), "POST" | "PUT" | "PATCH") {
            defaults.push(("content-length".to_string(), r.body.len().to_string()));
        }
        let user_has = |name: &str| r.headers.iter().any(|(k, _)| k.eq_ignore_ascii_case(name));
        let defaults = defaults.into_iter().filter(|(k, _)| !user_has(k));
        for (k, v) in defaults.chain(r.headers.iter().cloned()) {
            if NOT_IN_H2.iter().any(|n| k.eq_ignore_ascii_case(n)) {
                continue;
            }
            let name = HeaderName::from_bytes(k.as_bytes()).map_err(|_| bad(&k, &v))?;
            let value = HeaderValue::from_str(&v).map_err(|_| bad(&k, &v))?;
            headers.append(name, value);
        }
        Ok(H2Request {
            method,
            uri,
            headers,
            body: Bytes::from(r.body.clone()),
        })
    }

    /// A fresh request for one stream.
    fn build(&self) -> Request<()> {
        let mut req = Request::new(());
        *req.method_mut() = self.method.clone();
        *req.uri_mut() = self.uri.clone();
        *req.headers_mut() = self.headers.clone();
        req
    }
}

/// An open connection.
enum Conn {
    /// HTTP/1.1 (over TCP or TLS) with its reply parser and read buffer.
    H1 {
        io: Box<dyn Io>,
        parser: ReplyParser,
        buf: Vec<u8>,
        /// A reply already came back on it (a close now is the server
        /// ending an idle keep-alive connection, and the request is resent).
        reused: bool,
    },
    /// HTTP/2: the stream opener; a spawned task drives the connection.
    H2 {
        send: h2::client::SendRequest<Bytes>,
        /// A stream already completed on it, or it was joined from a
        /// [`Shared`] connection another slot opened.
        reused: bool,
        /// Which of its [`Shared`]'s connections this is (0 when unshared).
        generation: u64,
    },
}

/// One HTTP/2 connection shared by the `--streams` request slots riding on
/// it. The first slot that needs it connects while the others wait their
/// turn, then they clone its stream opener. A slot whose request failed on
/// it forgets it here (as an HTTP/1.1 slot drops its connection), so the
/// next slot that needs one opens a new one; slots still holding the old
/// one go on using it until a request of theirs fails too.
#[derive(Default)]
struct Shared {
    /// The open connection's generation and stream opener.
    open: RefCell<Option<(u64, h2::client::SendRequest<Bytes>)>>,
    /// Held while connecting, so one slot connects and the others wait.
    connecting: tokio::sync::Mutex<()>,
    /// Connections opened for this group so far.
    opened: Cell<u64>,
}

impl Shared {
    /// Forgets connection `generation` if it is still the group's one.
    fn forget(&self, generation: u64) {
        let mut open = self.open.borrow_mut();
        if open.as_ref().is_some_and(|(g, _)| *g == generation) {
            *open = None;
        }
    }
}

impl Conn {
    fn reused(&self) -> bool {
        match self {
            Conn::H1 { reused, .. } | Conn::H2 { reused, .. } => *reused,
        }
    }
}

/// How one attempt at a request failed.
enum Fail {
    /// The connection was closed or reset before any of the reply arrived;
    /// on a reused connection the request is sent again on a new one,
    /// otherwise it counts as this kind of error.
    Closed(ErrorKind),
    /// Counted as this kind of error.
    Error(ErrorKind),
}

/// A reply as the wire delivered it.
struct Reply {
    first_byte: Instant,
    status: u16,
    header_bytes: u64,
    body_bytes: u64,
    /// The connection cannot carry another request.
    close: bool,
}

/// One worker thread's state, shared by its tasks.
struct Engine {
    plan: ThreadPlan,
    cancel: Cancel,
    addr: SocketAddr,
    /// TLS connector and the name the certificate is checked against.
    tls: Option<(TlsConnector, ServerName<'static>)>,
    /// `host[:port]`, for messages.
    host: String,
    http2: bool,
    /// Close the connection after each request (keep-alive off; never with
    /// `ConnRate`, whose connections carry all their calls).
    close_each: bool,
    timeout: Duration,
    calls_per_conn: u32,
    /// The HTTP/1.1 request bytes.
    wire: Vec<u8>,
    head_request: bool,
    /// The request in HTTP/2 form (with `--http2` only: without it no
    /// connection speaks HTTP/2).
    h2: Option<H2Request>,
    io: Rc<IoCount>,
    stats: RefCell<ThreadStats>,
    /// The thread gave up ([`ThreadStats::fatal`] is set).
    gave_up: Cell<bool>,
    /// Woken when the run is cancelled or the thread gives up, so waiting
    /// and in-flight requests are abandoned at once.
    halt: Notify,
}

/// How a request ended, for the task that sent it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sent {
    /// The reply completed.
    Replied,
    /// The request failed (counted).
    Failed,
    /// The run was cancelled or the thread gave up: abandoned, uncounted.
    Halted,
}

impl Engine {
    /// Prepares everything requests need; the error is a one-line reason.
    fn new(plan: &ThreadPlan, cfg: &LoadConfig, cancel: &Cancel) -> Result<Engine, String> {
        let addr = cfg.target.resolve()?;
        let tls = match cfg.target.scheme {
            Scheme::Http => None,
            Scheme::Https => {
                let config = tls_config(cfg.http2, cfg.insecure)?;
                let name = ServerName::try_from(cfg.target.host.clone()).map_err(|e| {
                    format!("'{}' is not a valid TLS server name: {e}", cfg.target.host)
                })?;
                Some((TlsConnector::from(Arc::new(config)), name))
            }
        };
        let h2 = if cfg.http2 {
            Some(H2Request::new(cfg)?)
        } else {
            None
        };
        let conn_rate = matches!(cfg.model, Model::ConnRate { .. });
        Ok(Engine {
            plan: plan.clone(),
            cancel: cancel.clone(),
            addr,
            tls,
            host: cfg.target.authority(),
            http2: cfg.http2,
            close_each: !cfg.keepalive && !conn_rate,
            timeout: cfg.timeout,
            calls_per_conn: match cfg.model {
                Model::ConnRate { calls_per_conn, .. } => calls_per_conn,
                _ => 0,
            },
            wire: super::serialize_request(cfg),
            head_request: cfg.request.method.eq_ignore_ascii_case("HEAD"),
            h2,
            io: Rc::new(IoCount::default()),
            stats: RefCell::new(ThreadStats::new(plan.start)),
            gave_up: Cell::new(false),
            halt: Notify::new(),
        })
    }

    /// Runs the model to its end.
    async fn run(self: Rc<Self>, model: &Model) {
        // Ends with the run (the set is dropped when `run` returns).
        tokio::task::spawn_local(self.clone().watch_cancel());
        let tasks: Vec<JoinHandle<()>> = match model {
            Model::Closed { .. } => (0..self.plan.slots())
                .zip(self.shared_connections())
                .map(|(_, shared)| tokio::task::spawn_local(self.clone().closed_slot(shared)))
                .collect(),
            Model::Open { .. } => (0..self.plan.slots())
                .zip(self.shared_connections())
                .map(|(local, shared)| {
                    tokio::task::spawn_local(self.clone().open_slot(local, shared))
                })
                .collect(),
            Model::ConnRate { .. } => vec![tokio::task::spawn_local(self.clone().conn_rate())],
        };
        for t in tasks {
            let _ = t.await;
        }
    }

    /// For each request slot in turn, the [`Shared`] connection it rides
    /// on: `--streams` consecutive slots share one; none when each slot has
    /// its own connection.
    fn shared_connections(&self) -> impl Iterator<Item = Option<Rc<Shared>>> {
        let streams = self.plan.streams.max(1) as usize;
        (0..self.plan.connections).flat_map(move |_| {
            let shared = (streams > 1).then(|| Rc::new(Shared::default()));
            std::iter::repeat_n(shared, streams)
        })
    }

    /// Polls the cancel flag every [`STOP_POLL`] and wakes every waiting
    /// task once it is set.
    async fn watch_cancel(self: Rc<Self>) {
        while !self.cancel.is_cancelled() {
            tokio::time::sleep(STOP_POLL).await;
        }
        self.halt.notify_waiters();
    }

    /// Cancelled, or given up.
    fn halted(&self) -> bool {
        self.gave_up.get() || self.cancel.is_cancelled()
    }

    /// Ends the thread with `why` (kept if it is the first reason).
    fn give_up(&self, why: String) {
        let mut s = self.stats.borrow_mut();
        if s.fatal.is_none() {
            s.fatal = Some(why);
        }
        self.gave_up.set(true);
        self.halt.notify_waiters();
    }

    /// Runs `f` until it completes (Some) or the run halts (None).
    async fn or_halt<F: Future>(&self, f: F) -> Option<F::Output> {
        // Created before the check, so a halt in between still wakes it.
        let halt = self.halt.notified();
        if self.halted() {
            return None;
        }
        let mut f = pin!(f);
        let mut halt = pin!(halt);
        poll_fn(|cx| {
            if let Poll::Ready(v) = f.as_mut().poll(cx) {
                Poll::Ready(Some(v))
            } else if halt.as_mut().poll(cx).is_ready() {
                Poll::Ready(None)
            } else {
                Poll::Pending
            }
        })
        .await
    }

    /// Closed model: one request slot's requests (a connection's, or one
    /// stream's of a shared HTTP/2 connection), each claimed from the shared
    /// budget when the previous one completed, until `-n` or `-t`.
    async fn closed_slot(self: Rc<Self>, shared: Option<Rc<Shared>>) {
        let mut conn = None;
        let shared = shared.as_deref();
        // Bounded by the budget (-n) or the deadline (-t): one is always set.
        while !self.halted() && !self.plan.past_deadline(Instant::now()) && self.plan.claim() {
            if self.request(&mut conn, shared, None).await == Sent::Halted {
                break;
            }
        }
    }

    /// Open model: request slot `local`'s requests at their planned times.
    async fn open_slot(self: Rc<Self>, local: usize, shared: Option<Rc<Shared>>) {
        let mut conn = None;
        let shared = shared.as_deref();
        // When the connection last became free (its previous request ended).
        let mut free = Instant::now();
        // Bounded by the budget or the deadline (one is always set): `i`
        // moves the planned time past the deadline.
        for i in 0u64.. {
            let due = self.plan.planned(local, i);
            if self.plan.past_deadline(due) {
                break;
            }
            if self
                .or_halt(tokio::time::sleep_until(due.into()))
                .await
                .is_none()
                || !self.plan.claim()
            {
                break;
            }
            if free <= due && Instant::now().saturating_duration_since(due) > LATE_SLACK {
                self.stats.borrow_mut().sent_late += 1;
            }
            if self.request(&mut conn, shared, Some(due)).await == Sent::Halted {
                break;
            }
            free = Instant::now();
        }
    }

    /// Connection rate: opens this thread's connections at their planned
    /// times, each making its calls in its own task.
    async fn conn_rate(self: Rc<Self>) {
        let mut live: Vec<JoinHandle<()>> = Vec::new();
        for k in 0..u64::from(self.plan.connections) {
            let due = self.plan.conn_planned(k);
            if self
                .or_halt(tokio::time::sleep_until(due.into()))
                .await
                .is_none()
                || !self.plan.claim()
            {
                break;
            }
            if Instant::now().saturating_duration_since(due) > LATE_SLACK {
                self.stats.borrow_mut().sent_late += 1;
            }
            live.retain(|t| !t.is_finished());
            live.push(tokio::task::spawn_local(self.clone().calls(due)));
        }
        for t in live {
            let _ = t.await;
        }
    }

    /// Connection rate: one connection's calls, one after the other, the
    /// first planned at the connection's due time; a failed call ends it.
    async fn calls(self: Rc<Self>, due: Instant) {
        let mut conn = None;
        for call in 0..self.calls_per_conn {
            let planned = (call == 0).then_some(due);
            if self.request(&mut conn, None, planned).await != Sent::Replied {
                break;
            }
        }
    }

    /// Sends one request on `conn` (opening one, or joining `shared`'s,
    /// when there is none) and records its reply or error. The timeout
    /// counts from the start, connect included: expiring while connecting
    /// is a socket timeout, after that a client timeout.
    async fn request(
        &self,
        conn: &mut Option<Conn>,
        shared: Option<&Shared>,
        planned: Option<Instant>,
    ) -> Sent {
        let sent = Instant::now();
        let attempt = self.attempt(conn, shared, sent + self.timeout);
        let Some(outcome) = self.or_halt(attempt).await else {
            return Sent::Halted;
        };
        let result = match outcome {
            Ok(reply) => {
                if reply.close || self.close_each {
                    drop_conn(conn, shared);
                }
                let mut s = self.stats.borrow_mut();
                let length_mismatch = (200..300).contains(&reply.status)
                    && s.document_length.is_some_and(|d| d != reply.body_bytes);
                s.record_exchange(&Exchange {
                    planned,
                    sent,
                    first_byte: reply.first_byte,
                    done: Instant::now(),
                    status: reply.status,
                    header_bytes: reply.header_bytes,
                    body_bytes: reply.body_bytes,
                    length_mismatch,
                });
                Sent::Replied
            }
            Err(kind) => {
                drop_conn(conn, shared);
                self.stats.borrow_mut().record_error(kind);
                Sent::Failed
            }
        };
        if self.halted() { Sent::Halted } else { result }
    }

    /// Connects (or joins `shared`'s connection) if needed and exchanges
    /// one request and reply by `deadline`; a reused connection the server
    /// closed is replaced once.
    async fn attempt(
        &self,
        conn: &mut Option<Conn>,
        shared: Option<&Shared>,
        deadline: Instant,
    ) -> Result<Reply, ErrorKind> {
        let deadline = tokio::time::Instant::from(deadline);
        for _ in 0..2 {
            let c = match conn {
                Some(c) => c,
                None => {
                    let opening = async {
                        match shared {
                            Some(shared) => self.join(shared).await,
                            None => self.connect().await,
                        }
                    };
                    let opened = tokio::time::timeout_at(deadline, opening)
                        .await
                        .map_err(|_| ErrorKind::SocketTimeout)??;
                    conn.insert(opened)
                }
            };
            let reused = c.reused();
            let exchanged = tokio::time::timeout_at(deadline, self.exchange(c))
                .await
                .map_err(|_| ErrorKind::ClientTimeout)?;
            match exchanged {
                Ok(reply) => return Ok(reply),
                Err(Fail::Closed(_)) if reused => drop_conn(conn, shared),
                Err(Fail::Closed(kind) | Fail::Error(kind)) => return Err(kind),
            }
        }
        Err(ErrorKind::Receive)
    }

    /// A connect that failed with `kind`: before any connection of this
    /// thread got through, the target is unreachable (or speaks no
    /// acceptable TLS), so the thread stops with `why`.
    fn connect_failed(&self, kind: ErrorKind, why: impl FnOnce() -> String) -> ErrorKind {
        if self.stats.borrow().connections == 0 {
            self.give_up(why());
        }
        kind
    }

    /// Opens a connection: TCP, then TLS when https, then the HTTP/2
    /// preface when HTTP/2 was chosen. Records the connect time (TCP + TLS).
    async fn connect(&self) -> Result<Conn, ErrorKind> {
        let t0 = Instant::now();
        let tcp = TcpStream::connect(self.addr).await.map_err(|e| {
            self.connect_failed(connect_error(&e), || {
                format!("cannot connect to {}: {}", self.addr, describe(&e))
            })
        })?;
        let _ = tcp.set_nodelay(true);
        let tcp = Counted {
            inner: tcp,
            count: self.io.clone(),
        };
        let (io, h2): (Box<dyn Io>, bool) = match &self.tls {
            None => (Box::new(tcp), self.http2),
            Some((connector, name)) => {
                let tls = connector.connect(name.clone(), tcp).await.map_err(|e| {
                    self.connect_failed(ErrorKind::ConnectOther, || tls_failure(&self.host, &e))
                })?;
                let alpn_h2 = tls.get_ref().1.alpn_protocol() == Some(b"h2");
                if self.http2 && !alpn_h2 {
                    return Err(self.connect_failed(ErrorKind::ConnectOther, || {
                        format!(
                            "--http2: {} did not choose h2 over ALPN (it does not offer HTTP/2 over TLS)",
                            self.host
                        )
                    }));
                }
                (Box::new(tls), alpn_h2)
            }
        };
        self.stats.borrow_mut().record_connect(t0.elapsed());
        if !h2 {
            return Ok(Conn::H1 {
                io,
                parser: ReplyParser::new(self.head_request),
                buf: vec![0; READ_BUF],
                reused: false,
            });
        }
        let (send, connection) = h2::client::handshake(io).await.map_err(|e| h2_error(&e))?;
        // The driver ends when the connection closes: after its last stream
        // once every handle is dropped, or when the server ends it.
        tokio::task::spawn_local(async move {
            let _ = connection.await;
        });
        Ok(Conn::H2 {
            send,
            reused: false,
            generation: 0,
        })
    }

    /// The HTTP/2 connection `shared` holds, opening it first when it has
    /// none (one slot connects while the others wait for it).
    async fn join(&self, shared: &Shared) -> Result<Conn, ErrorKind> {
        let _turn = shared.connecting.lock().await;
        if let Some((generation, send)) = shared.open.borrow().as_ref() {
            return Ok(Conn::H2 {
                send: send.clone(),
                reused: true,
                generation: *generation,
            });
        }
        let mut conn = self.connect().await?;
        if let Conn::H2 {
            send, generation, ..
        } = &mut conn
        {
            shared.opened.set(shared.opened.get() + 1);
            *generation = shared.opened.get();
            *shared.open.borrow_mut() = Some((*generation, send.clone()));
        }
        Ok(conn)
    }

    /// One request and its reply on an open connection.
    async fn exchange(&self, conn: &mut Conn) -> Result<Reply, Fail> {
        match conn {
            Conn::H1 {
                io,
                parser,
                buf,
                reused,
            } => {
                let reply = self.h1_exchange(io, parser, buf).await?;
                *reused = true;
                Ok(reply)
            }
            Conn::H2 { send, reused, .. } => {
                let reply = self.h2_exchange(send).await?;
                *reused = true;
                Ok(reply)
            }
        }
    }

    /// HTTP/1.1: writes the request and parses the reply as it arrives.
    async fn h1_exchange(
        &self,
        io: &mut Box<dyn Io>,
        parser: &mut ReplyParser,
        buf: &mut [u8],
    ) -> Result<Reply, Fail> {
        let written = async {
            io.write_all(&self.wire).await?;
            io.flush().await
        };
        if let Err(e) = written.await {
            return Err(match exchange_error(&e) {
                ErrorKind::ConnectReset => Fail::Closed(ErrorKind::ConnectReset),
                kind => Fail::Error(kind),
            });
        }
        self.stats.borrow_mut().requests_sent += 1;
        parser.reset();
        let mut first_byte = None;
        // Each read returns data or ends the reply (EOF, error); the
        // per-request timeout bounds the whole loop.
        loop {
            let n = match io.read(buf).await {
                Ok(n) => n,
                // A TLS peer that closes without close_notify: plain EOF.
                Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => 0,
                Err(e) => {
                    let kind = exchange_error(&e);
                    return Err(if !parser.started() && kind == ErrorKind::ConnectReset {
                        Fail::Closed(kind)
                    } else {
                        Fail::Error(kind)
                    });
                }
            };
            if n == 0 {
                if parser.finish_at_eof() {
                    break;
                }
                return Err(if parser.started() {
                    Fail::Error(ErrorKind::Receive)
                } else {
                    Fail::Closed(ErrorKind::Receive)
                });
            }
            first_byte.get_or_insert_with(Instant::now);
            let fed = parser.feed(&buf[..n], &mut self.stats.borrow_mut().server);
            match fed {
                Feed::More => {}
                // More bytes than one reply: nothing was pipelined, so the
                // server broke the protocol.
                Feed::Done(used) if used < n => return Err(Fail::Error(ErrorKind::Exception)),
                Feed::Done(_) => break,
                Feed::Bad => return Err(Fail::Error(ErrorKind::Exception)),
            }
        }
        Ok(Reply {
            first_byte: first_byte.unwrap_or_else(Instant::now),
            status: parser.status,
            header_bytes: parser.header_bytes,
            body_bytes: parser.body_bytes,
            close: parser.close,
        })
    }

    /// HTTP/2: one stream, its body sent whole and the reply body read to
    /// the end (flow-control credit returned as it is read).
    async fn h2_exchange(&self, send: &mut h2::client::SendRequest<Bytes>) -> Result<Reply, Fail> {
        // A connection the server ended (GOAWAY, close) fails here, before
        // the request went out.
        let closed = |e: h2::Error| Fail::Closed(h2_error(&e));
        poll_fn(|cx| send.poll_ready(cx)).await.map_err(closed)?;
        let Some(request) = &self.h2 else {
            return Err(Fail::Error(ErrorKind::Exception));
        };
        let body = request.body.clone();
        let (response, mut stream) = send
            .send_request(request.build(), body.is_empty())
            .map_err(closed)?;
        if !body.is_empty() {
            stream
                .send_data(body, true)
                .map_err(|e| Fail::Error(h2_error(&e)))?;
        }
        self.stats.borrow_mut().requests_sent += 1;
        let response = response.await.map_err(|e| Fail::Error(h2_error(&e)))?;
        let first_byte = Instant::now();
        let status = response.status().as_u16();
        let header_bytes = h1_head_size(response.headers());
        if let Some(sv) = response.headers().get(http::header::SERVER) {
            let mut s = self.stats.borrow_mut();
            if s.server.is_none() {
                s.server = Some(String::from_utf8_lossy(sv.as_bytes()).into_owned());
            }
        }
        let mut recv = response.into_body();
        let mut body_bytes = 0u64;
        // Each frame read is data or the end; the timeout bounds the loop.
        while let Some(chunk) = recv.data().await {
            let chunk = chunk.map_err(|e| Fail::Error(h2_error(&e)))?;
            body_bytes += chunk.len() as u64;
            let _ = recv.flow_control().release_capacity(chunk.len());
        }
        Ok(Reply {
            first_byte,
            status,
            header_bytes,
            body_bytes,
            close: false,
        })
    }
}

/// Drops the slot's connection; a shared one is forgotten by its group too,
/// so the next slot that needs one opens a new connection.
fn drop_conn(conn: &mut Option<Conn>, shared: Option<&Shared>) {
    if let (Some(Conn::H2 { generation, .. }), Some(shared)) = (conn.take(), shared) {
        shared.forget(generation);
    }
}

/// The size of an HTTP/2 response head written as HTTP/1.1 text: the
/// status line `HTTP/2 NNN\r\n`, each `name: value\r\n`, the blank line.
fn h1_head_size(headers: &HeaderMap) -> u64 {
    let fields: usize = headers
        .iter()
        .map(|(k, v)| k.as_str().len() + v.len() + 4)
        .sum();
    (12 + fields + 2) as u64
}

/// A short lower-case description of an I/O error for one-line messages.
fn describe(e: &io::Error) -> String {
    let s = e.to_string();
    s.split(" (os error").next().unwrap_or(&s).to_lowercase()
}

/// The error kind of a failed TCP connect (errno; anything unexpected is a
/// connect error).
fn connect_error(e: &io::Error) -> ErrorKind {
    match e.raw_os_error().map(ErrorKind::from_errno) {
        Some(ErrorKind::Exception) | None => ErrorKind::ConnectOther,
        Some(kind) => kind,
    }
}

/// The error kind of a failed read or write on an open connection.
fn exchange_error(e: &io::Error) -> ErrorKind {
    match e.raw_os_error() {
        Some(errno) => ErrorKind::from_errno(errno),
        None => match e.kind() {
            io::ErrorKind::ConnectionReset
            | io::ErrorKind::BrokenPipe
            | io::ErrorKind::ConnectionAborted => ErrorKind::ConnectReset,
            io::ErrorKind::UnexpectedEof => ErrorKind::Receive,
            _ => ErrorKind::Exception,
        },
    }
}

/// The error kind of an HTTP/2 failure: socket errors by errno, protocol
/// errors and stream resets as receive errors.
fn h2_error(e: &h2::Error) -> ErrorKind {
    match e.get_io() {
        Some(io) => exchange_error(io),
        None => ErrorKind::Receive,
    }
}

/// A one-line reason for a failed TLS handshake with `host`.
fn tls_failure(host: &str, e: &io::Error) -> String {
    let tls = e.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>());
    match tls {
        Some(rustls::Error::InvalidCertificate(why)) => format!(
            "TLS handshake with {host} failed: certificate rejected ({why:?}); use --insecure to accept any certificate"
        ),
        Some(other) => format!("TLS handshake with {host} failed: {other}"),
        None => format!("TLS handshake with {host} failed: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::RequestSpec;
    use crate::url::Target;

    fn cfg(url: &str, method: &str, headers: &[(&str, &str)], body: &[u8]) -> LoadConfig {
        LoadConfig {
            request: RequestSpec {
                method: method.into(),
                headers: headers
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                body: body.to_vec(),
            },
            http2: true,
            timeout: Duration::from_secs(1),
            ..LoadConfig::new(
                Target::parse(url).unwrap(),
                Model::Closed {
                    requests: Some(1),
                    concurrency: 1,
                    time_limit: None,
                },
            )
        }
    }

    #[test]
    fn h2_request_mirrors_the_http1_request() {
        let c = cfg(
            "https://127.0.0.1:8443/a?b=1",
            "POST",
            &[
                ("Connection", "close"),
                ("Host", "example.test"),
                ("Accept", "text/plain"),
                ("X-Id", "7"),
            ],
            b"hello",
        );
        let r = H2Request::new(&c).unwrap().build();
        assert_eq!(r.method(), Method::POST);
        assert_eq!(r.uri().to_string(), "https://example.test/a?b=1");
        let h = r.headers();
        assert!(h.get("connection").is_none() && h.get("host").is_none());
        assert_eq!(h.get("accept").unwrap(), "text/plain");
        assert_eq!(h.get_all("accept").iter().count(), 1);
        assert_eq!(h.get("x-id").unwrap(), "7");
        assert_eq!(h.get("content-length").unwrap(), "5");
        assert!(
            h.get("user-agent")
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("nodebench/")
        );

        let plain = H2Request::new(&cfg("http://127.0.0.1:8080/", "GET", &[], b"")).unwrap();
        assert_eq!(plain.build().uri().to_string(), "http://127.0.0.1:8080/");
        assert!(plain.headers.get("content-length").is_none());
    }

    #[test]
    fn bad_methods_and_headers_are_one_line_errors() {
        let e = H2Request::new(&cfg("http://h/", "G T", &[], b""))
            .err()
            .unwrap();
        assert!(e.contains("method") && !e.contains('\n'), "{e}");
        let e = H2Request::new(&cfg("http://h/", "GET", &[("X", "a\nb")], b""))
            .err()
            .unwrap();
        assert!(e.contains("header") && !e.contains('\n'), "{e}");
    }

    #[test]
    fn alpn_offers_h2_only_when_asked() {
        let h2 = tls_config(true, false).unwrap();
        assert_eq!(
            h2.alpn_protocols,
            vec![b"h2".to_vec(), b"http/1.1".to_vec()]
        );
        let h1 = tls_config(false, true).unwrap();
        assert_eq!(h1.alpn_protocols, vec![b"http/1.1".to_vec()]);
    }

    #[test]
    fn h2_head_size_is_its_http1_text_size() {
        let mut h = HeaderMap::new();
        h.insert("server", HeaderValue::from_static("x"));
        h.insert("content-length", HeaderValue::from_static("10"));
        // "HTTP/2 200\r\n" + "server: x\r\n" + "content-length: 10\r\n" + "\r\n"
        assert_eq!(h1_head_size(&h), 12 + 11 + 20 + 2);
    }

    #[test]
    fn io_errors_map_to_kinds() {
        let refused = io::Error::from_raw_os_error(libc::ECONNREFUSED);
        assert_eq!(connect_error(&refused), ErrorKind::ConnectRefused);
        let odd = io::Error::from_raw_os_error(libc::EPROTO);
        assert_eq!(connect_error(&odd), ErrorKind::ConnectOther);
        let reset = io::Error::from(io::ErrorKind::ConnectionReset);
        assert_eq!(exchange_error(&reset), ErrorKind::ConnectReset);
        assert_eq!(describe(&refused), "connection refused");
    }
}
