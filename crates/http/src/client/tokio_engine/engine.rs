//! One worker thread's state, shared by its tasks, and what a task does
//! with a connection: open it (TCP, TLS, the HTTP/2 preface), join a
//! shared HTTP/2 connection, and exchange one request and reply.

use std::cell::{Cell, RefCell};
use std::future::{Future, poll_fn};
use std::io;
use std::net::SocketAddr;
use std::pin::pin;
use std::rc::Rc;
use std::sync::Arc;
use std::task::Poll;
use std::time::{Duration, Instant};

use bytes::Bytes;
use nodebench_core::bench::Cancel;
use rustls::pki_types::ServerName;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::Notify;
use tokio_rustls::TlsConnector;

use super::http2::{H2Request, Shared, h1_head_size};
use super::io::{Counted, Io, IoCount, connect_error, describe, exchange_error, h2_error};
use super::tls::{tls_config, tls_failure};
use crate::client::h1::{Feed, ReplyParser};
use crate::client::plan::ThreadPlan;
use crate::client::request::serialize_request;
use crate::config::{LoadConfig, Model};
use crate::stats::{ErrorKind, ThreadStats};
use crate::url::Scheme;

/// How often the cancel flag is checked.
const STOP_POLL: Duration = Duration::from_millis(10);

/// Read buffer of one HTTP/1.1 connection.
const READ_BUF: usize = 16 * 1024;

/// An open connection.
pub(super) enum Conn {
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

impl Conn {
    /// A reply already came back on it (or it was joined, shared).
    pub(super) fn reused(&self) -> bool {
        match self {
            Conn::H1 { reused, .. } | Conn::H2 { reused, .. } => *reused,
        }
    }
}

/// How one attempt at a request failed.
pub(super) enum Fail {
    /// The connection was closed or reset before any of the reply arrived;
    /// on a reused connection the request is sent again on a new one,
    /// otherwise it counts as this kind of error.
    Closed(ErrorKind),
    /// Counted as this kind of error.
    Error(ErrorKind),
}

/// A reply as the wire delivered it.
pub(super) struct Reply {
    /// When the first byte of the reply (HTTP/1.1) or its headers (HTTP/2) arrived.
    pub(super) first_byte: Instant,
    /// Status code.
    pub(super) status: u16,
    /// Bytes of the head, as HTTP/1.1 text.
    pub(super) header_bytes: u64,
    /// Bytes of the body.
    pub(super) body_bytes: u64,
    /// The connection cannot carry another request.
    pub(super) close: bool,
}

/// One worker thread's state, shared by its tasks.
pub(super) struct Engine {
    /// The thread's share of the load.
    pub(super) plan: ThreadPlan,
    /// The run's cancel flag.
    cancel: Cancel,
    /// The target's address.
    addr: SocketAddr,
    /// TLS connector and the name the certificate is checked against.
    tls: Option<(TlsConnector, ServerName<'static>)>,
    /// `host[:port]`, for messages.
    host: String,
    /// `--http2`: connections speak HTTP/2.
    http2: bool,
    /// Close the connection after each request (keep-alive off; never with
    /// `ConnRate`, whose connections carry all their calls).
    pub(super) close_each: bool,
    /// Per-request timeout, connect included.
    pub(super) timeout: Duration,
    /// `ConnRate`: requests per connection; 0 otherwise.
    pub(super) calls_per_conn: u32,
    /// The HTTP/1.1 request bytes.
    wire: Vec<u8>,
    /// The method is HEAD: replies have no body.
    head_request: bool,
    /// The request in HTTP/2 form (with `--http2` only: without it no
    /// connection speaks HTTP/2).
    h2: Option<H2Request>,
    /// Socket bytes of all the thread's connections.
    pub(super) io: Rc<IoCount>,
    /// What the thread measured so far.
    pub(super) stats: RefCell<ThreadStats>,
    /// The thread gave up ([`ThreadStats::fatal`] is set).
    gave_up: Cell<bool>,
    /// Woken when the run is cancelled or the thread gives up, so waiting
    /// and in-flight requests are abandoned at once.
    halt: Notify,
}

impl Engine {
    /// Prepares everything requests need; the error is a one-line reason.
    pub(super) fn new(
        plan: &ThreadPlan,
        cfg: &LoadConfig,
        cancel: &Cancel,
    ) -> Result<Engine, String> {
        let addr = cfg.target.resolve().map_err(|e| e.to_string())?;
        let tls = match cfg.target.scheme {
            Scheme::Http => None,
            Scheme::Https => {
                let config = tls_config(cfg.http2, cfg.insecure).map_err(|e| e.to_string())?;
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
            wire: serialize_request(cfg),
            head_request: cfg.request.method.eq_ignore_ascii_case("HEAD"),
            h2,
            io: Rc::new(IoCount::default()),
            stats: RefCell::new(ThreadStats::new(plan.start)),
            gave_up: Cell::new(false),
            halt: Notify::new(),
        })
    }

    /// Polls the cancel flag every [`STOP_POLL`] and wakes every waiting
    /// task once it is set.
    pub(super) async fn watch_cancel(self: Rc<Self>) {
        while !self.cancel.is_cancelled() {
            tokio::time::sleep(STOP_POLL).await;
        }
        self.halt.notify_waiters();
    }

    /// Cancelled, or given up.
    pub(super) fn halted(&self) -> bool {
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
    pub(super) async fn or_halt<F: Future>(&self, f: F) -> Option<F::Output> {
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
    pub(super) async fn connect(&self) -> Result<Conn, ErrorKind> {
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
    pub(super) async fn join(&self, shared: &Shared) -> Result<Conn, ErrorKind> {
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
    pub(super) async fn exchange(&self, conn: &mut Conn) -> Result<Reply, Fail> {
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
pub(super) fn drop_conn(conn: &mut Option<Conn>, shared: Option<&Shared>) {
    if let (Some(Conn::H2 { generation, .. }), Some(shared)) = (conn.take(), shared) {
        shared.forget(generation);
    }
}
