//! The TLS and HTTP/2 engine against a local test server: HTTP/1.1 over
//! TLS, HTTP/2 over TLS (ALPN) and h2c, in the closed, open and
//! connection-rate models; certificate verification; timeouts; cancel.
//!
//! The server (self-signed rcgen certificate, tokio-rustls, the `h2`
//! crate's server side) listens on 127.0.0.1 only, counts what it answered,
//! and stops when the test drops it or after [`SERVER_LIFETIME`].

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use nodebench_core::bench::{BenchError, Cancel};
use nodebench_http::client::{plans, tokio_engine};
use nodebench_http::load::{LoadConfig, Model, run_load};
use nodebench_http::stats::ErrorKind;
use nodebench_http::url::Target;
use rustls::ServerConfig;
use rustls::pki_types::{PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

/// Body bytes of every reply.
const BODY: usize = 1000;

/// The server stops by itself after this long.
const SERVER_LIFETIME: Duration = Duration::from_secs(60);

/// How long `/stall` holds a request without answering.
const STALL: Duration = Duration::from_secs(5);

/// How long HTTP/2 `/slow` holds a request before answering, so requests
/// sent at once overlap at the server.
const SLOW: Duration = Duration::from_millis(20);

/// What the server offers on its port.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// TLS with ALPN h2 and http/1.1.
    Tls,
    /// TLS with ALPN http/1.1 only.
    TlsH1Only,
    /// Plain TCP, HTTP/2 with prior knowledge.
    H2c,
}

/// What the server answered.
#[derive(Default)]
struct Counts {
    /// Requests answered, any protocol.
    requests: AtomicU64,
    /// Of which over HTTP/2.
    h2_requests: AtomicU64,
    /// Connections accepted (TCP).
    connections: AtomicU64,
    /// Request body bytes received.
    body_in: AtomicU64,
    /// HTTP/2 requests being answered now, and the most at once.
    in_flight: AtomicU64,
    max_in_flight: AtomicU64,
    /// Replies by class: 0 = 1xx ... 4 = 5xx.
    classes: [AtomicU64; 5],
    /// Stop accepting.
    stop: AtomicBool,
}

struct TestServer {
    addr: SocketAddr,
    counts: Arc<Counts>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for TestServer {
    fn drop(&mut self) {
        self.counts.stop.store(true, Ordering::SeqCst);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl TestServer {
    fn start(mode: Mode) -> TestServer {
        let tls = match mode {
            Mode::H2c => None,
            Mode::Tls | Mode::TlsH1Only => Some(TlsAcceptor::from(Arc::new(server_tls(mode)))),
        };
        let std_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        std_listener.set_nonblocking(true).unwrap();
        let addr = std_listener.local_addr().unwrap();
        let counts = Arc::new(Counts::default());
        let c = counts.clone();
        let thread = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            let local = tokio::task::LocalSet::new();
            local.block_on(&rt, accept_loop(std_listener, tls, c));
        });
        TestServer {
            addr,
            counts,
            thread: Some(thread),
        }
    }

    fn url(&self, scheme: &str, path: &str) -> String {
        format!("{scheme}://{}{path}", self.addr)
    }

    fn requests(&self) -> u64 {
        self.counts.requests.load(Ordering::SeqCst)
    }

    fn classes(&self) -> [u64; 5] {
        std::array::from_fn(|i| self.counts.classes[i].load(Ordering::SeqCst))
    }
}

fn server_tls(mode: Mode) -> ServerConfig {
    let ck =
        rcgen::generate_simple_self_signed(vec!["localhost".into(), "127.0.0.1".into()]).unwrap();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(ck.signing_key.serialize_der()));
    let mut cfg =
        ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_no_client_auth()
            .with_single_cert(vec![ck.cert.der().clone()], key)
            .unwrap();
    cfg.alpn_protocols = match mode {
        Mode::TlsH1Only => vec![b"http/1.1".to_vec()],
        _ => vec![b"h2".to_vec(), b"http/1.1".to_vec()],
    };
    cfg
}

async fn accept_loop(listener: std::net::TcpListener, tls: Option<TlsAcceptor>, c: Arc<Counts>) {
    let listener = TcpListener::from_std(listener).unwrap();
    let born = Instant::now();
    // Bounded: the stop flag or the server's lifetime.
    while !c.stop.load(Ordering::SeqCst) && born.elapsed() < SERVER_LIFETIME {
        let Ok(Ok((tcp, _))) =
            tokio::time::timeout(Duration::from_millis(50), listener.accept()).await
        else {
            continue;
        };
        c.connections.fetch_add(1, Ordering::SeqCst);
        let _ = tcp.set_nodelay(true);
        let (tls, c) = (tls.clone(), c.clone());
        tokio::task::spawn_local(async move {
            match tls {
                None => serve_h2(tcp, c).await,
                Some(acceptor) => {
                    let Ok(stream) = acceptor.accept(tcp).await else {
                        return;
                    };
                    if stream.get_ref().1.alpn_protocol() == Some(b"h2") {
                        serve_h2(stream, c).await;
                    } else {
                        serve_h1(stream, c).await;
                    }
                }
            }
        });
    }
}

/// The status of the server's `n`-th reply: 200, with every fifth a 404
/// and every fifth (offset) a 503.
fn status_for(n: u64) -> u16 {
    match n % 5 {
        3 => 404,
        4 => 503,
        _ => 200,
    }
}

fn count(c: &Counts, status: u16) {
    c.classes[usize::from(status / 100 - 1)].fetch_add(1, Ordering::SeqCst);
}

async fn serve_h1<S: AsyncRead + AsyncWrite + Unpin>(mut s: S, c: Arc<Counts>) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 4096];
    // Bounded: each round answers one request or ends on EOF/error.
    loop {
        let head_end = loop {
            if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
            match s.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        };
        let head = String::from_utf8_lossy(&buf[..head_end]).to_ascii_lowercase();
        buf.drain(..head_end);
        let length: usize = head
            .split("\r\n")
            .find_map(|l| l.strip_prefix("content-length:"))
            .map_or(0, |v| v.trim().parse().unwrap());
        // Bounded: each read brings body bytes or ends the connection.
        while buf.len() < length {
            match s.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        }
        c.body_in.fetch_add(length as u64, Ordering::SeqCst);
        buf.drain(..length);
        let path = head.split(' ').nth(1).unwrap_or("/").to_string();
        let close = head.contains("\r\nconnection: close");
        if path == "/stall" {
            tokio::time::sleep(STALL).await;
            return;
        }
        let n = c.requests.fetch_add(1, Ordering::SeqCst);
        let status = status_for(n);
        count(&c, status);
        let body = vec![b'x'; BODY];
        let mut reply = format!("HTTP/1.1 {status} S\r\nServer: test-h1\r\n");
        if close {
            reply.push_str("Connection: close\r\n");
        }
        let mut reply = reply.into_bytes();
        if path == "/chunked" {
            reply.extend_from_slice(b"Transfer-Encoding: chunked\r\n\r\n");
            for part in body.chunks(300) {
                reply.extend_from_slice(format!("{:x}\r\n", part.len()).as_bytes());
                reply.extend_from_slice(part);
                reply.extend_from_slice(b"\r\n");
            }
            reply.extend_from_slice(b"0\r\n\r\n");
        } else {
            reply.extend_from_slice(format!("Content-Length: {BODY}\r\n\r\n").as_bytes());
            reply.extend_from_slice(&body);
        }
        if s.write_all(&reply).await.is_err() || s.flush().await.is_err() {
            return;
        }
        if close {
            let _ = s.shutdown().await;
            return;
        }
    }
}

async fn serve_h2<S: AsyncRead + AsyncWrite + Unpin + 'static>(s: S, c: Arc<Counts>) {
    let Ok(mut conn) = h2::server::handshake(s).await else {
        return;
    };
    // Bounded: ends when the client closes the connection. Accepting keeps
    // driving the connection while the streams are answered in their tasks.
    while let Some(Ok((req, respond))) = conn.accept().await {
        tokio::task::spawn_local(answer_h2(req, respond, c.clone()));
    }
}

/// Answers one HTTP/2 stream (`/stall`: holds it unanswered for [`STALL`]).
async fn answer_h2(
    req: http::Request<h2::RecvStream>,
    mut respond: h2::server::SendResponse<Bytes>,
    c: Arc<Counts>,
) {
    if req.uri().path() == "/stall" {
        tokio::time::sleep(STALL).await;
        return;
    }
    let now = c.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
    c.max_in_flight.fetch_max(now, Ordering::SeqCst);
    if req.uri().path() == "/slow" {
        tokio::time::sleep(SLOW).await;
    }
    c.in_flight.fetch_sub(1, Ordering::SeqCst);
    let mut body = req.into_body();
    // Bounded: each frame is data or the end of the request.
    while let Some(Ok(data)) = body.data().await {
        c.body_in.fetch_add(data.len() as u64, Ordering::SeqCst);
        let _ = body.flow_control().release_capacity(data.len());
    }
    let n = c.requests.fetch_add(1, Ordering::SeqCst);
    c.h2_requests.fetch_add(1, Ordering::SeqCst);
    let status = status_for(n);
    count(&c, status);
    let reply = http::Response::builder()
        .status(status)
        .header("server", "test-h2")
        .header("content-length", BODY)
        .body(())
        .unwrap();
    if let Ok(mut stream) = respond.send_response(reply, false) {
        let _ = stream.send_data(Bytes::from(vec![b'y'; BODY]), true);
    }
}

fn config(url: &str, model: Model) -> LoadConfig {
    let mut cfg = LoadConfig {
        insecure: true,
        threads: 2,
        timeout: Duration::from_secs(10),
        ..LoadConfig::new(Target::parse(url).unwrap(), model)
    };
    cfg.request.headers = vec![("X-Test".into(), "1".into())];
    cfg
}

fn closed(n: u64, c: u32) -> Model {
    Model::Closed {
        requests: Some(n),
        concurrency: c,
        time_limit: None,
    }
}

/// Runs `cfg` and checks the client's counts against the server's.
fn run_and_check(
    server: &TestServer,
    cfg: &LoadConfig,
    expect: u64,
) -> nodebench_http::stats::ThreadStats {
    let outcome = run_load(cfg, &Cancel::new()).unwrap();
    let s = outcome.stats;
    assert_eq!(s.error_total(), 0, "errors: {:?}", s.errors);
    assert_eq!(s.completed, expect);
    assert_eq!(server.requests(), expect, "server-side count");
    assert_eq!(s.requests_sent, expect);
    assert_eq!(s.body_bytes, expect * BODY as u64);
    let classes = server.classes();
    assert_eq!(&s.status[..5], &classes[..], "status classes");
    assert!(classes[1] > 0 && classes[3] > 0 && classes[4] > 0);
    assert!(s.bytes_in > s.body_bytes && s.bytes_out > 0);
    assert!(s.header_bytes > 0);
    assert_eq!(s.connect.len(), s.connections);
    s
}

#[test]
fn https_http1_keepalive_counts_every_request() {
    let server = TestServer::start(Mode::Tls);
    let cfg = config(&server.url("https", "/"), closed(200, 4));
    let s = run_and_check(&server, &cfg, 200);
    assert_eq!(server.counts.h2_requests.load(Ordering::SeqCst), 0);
    assert_eq!(s.connections, 4, "one kept-alive connection per -c");
    assert_eq!(s.server.as_deref(), Some("test-h1"));
    assert_eq!(s.document_length, Some(BODY as u64));
}

#[test]
fn https_http1_without_keepalive_opens_a_connection_per_request() {
    let server = TestServer::start(Mode::Tls);
    let mut cfg = config(&server.url("https", "/chunked"), closed(30, 3));
    cfg.keepalive = false;
    let s = run_and_check(&server, &cfg, 30);
    assert_eq!(s.connections, 30);
    assert_eq!(server.counts.connections.load(Ordering::SeqCst), 30);
}

#[test]
fn h2_over_tls_counts_every_request() {
    let server = TestServer::start(Mode::Tls);
    let mut cfg = config(&server.url("https", "/"), closed(200, 4));
    cfg.http2 = true;
    let s = run_and_check(&server, &cfg, 200);
    assert_eq!(server.counts.h2_requests.load(Ordering::SeqCst), 200);
    assert_eq!(s.connections, 4);
    assert_eq!(s.server.as_deref(), Some("test-h2"));
}

#[test]
fn h2c_prior_knowledge_counts_every_request() {
    let server = TestServer::start(Mode::H2c);
    let mut cfg = config(&server.url("http", "/"), closed(150, 3));
    cfg.http2 = true;
    let s = run_and_check(&server, &cfg, 150);
    assert_eq!(server.counts.h2_requests.load(Ordering::SeqCst), 150);
    assert_eq!(s.connections, 3);
}

#[test]
fn h2_streams_carry_several_requests_at_once_on_each_connection() {
    let server = TestServer::start(Mode::H2c);
    // Closed model: 2 connections x 4 streams keep 8 requests in flight.
    let mut cfg = config(&server.url("http", "/slow"), closed(160, 2));
    cfg.http2 = true;
    cfg.streams = 4;
    let s = run_and_check(&server, &cfg, 160);
    assert_eq!(s.connections, 2);
    assert_eq!(server.counts.connections.load(Ordering::SeqCst), 2);
    assert_eq!(
        server.counts.max_in_flight.load(Ordering::SeqCst),
        8,
        "2 connections x 4 streams at once, never more"
    );

    // Open model: 100 requests at 200/s over 1 connection x 4 streams.
    let server = TestServer::start(Mode::H2c);
    let mut cfg = config(
        &server.url("http", "/slow"),
        Model::Open {
            rate: 200.0,
            connections: 1,
            requests: Some(100),
            duration: None,
        },
    );
    cfg.http2 = true;
    cfg.streams = 4;
    let s = run_and_check(&server, &cfg, 100);
    assert_eq!(s.connections, 1);
    assert!(server.counts.max_in_flight.load(Ordering::SeqCst) > 1);
    assert!(server.counts.max_in_flight.load(Ordering::SeqCst) <= 4);
}

#[test]
fn h2_without_keepalive_opens_a_connection_per_request() {
    let server = TestServer::start(Mode::H2c);
    let mut cfg = config(&server.url("http", "/"), closed(20, 2));
    cfg.http2 = true;
    cfg.keepalive = false;
    let s = run_and_check(&server, &cfg, 20);
    assert_eq!(s.connections, 20);
}

#[test]
fn request_bodies_reach_the_server() {
    for (mode, scheme, http2) in [
        (Mode::Tls, "https", false),
        (Mode::Tls, "https", true),
        (Mode::H2c, "http", true),
    ] {
        let server = TestServer::start(mode);
        let mut cfg = config(&server.url(scheme, "/"), closed(20, 2));
        cfg.http2 = http2;
        cfg.request.method = "POST".into();
        cfg.request.body = vec![b'p'; 3000];
        run_and_check(&server, &cfg, 20);
        assert_eq!(
            server.counts.body_in.load(Ordering::SeqCst),
            20 * 3000,
            "{mode:?} {http2}"
        );
    }
}

#[test]
fn open_model_over_tls_sends_on_schedule() {
    let server = TestServer::start(Mode::Tls);
    let mut cfg = config(
        &server.url("https", "/"),
        Model::Open {
            rate: 400.0,
            connections: 4,
            requests: Some(100),
            duration: None,
        },
    );
    cfg.http2 = true;
    let t0 = Instant::now();
    let s = run_and_check(&server, &cfg, 100);
    // 100 requests at 400/s take at least the schedule's 0.25 s.
    assert!(t0.elapsed() >= Duration::from_millis(240));
    // Corrected latency counts from the planned time, so never below the
    // uncorrected.
    assert!(s.total.max() >= s.uncorrected.max());
}

#[test]
fn open_model_stops_at_the_duration() {
    let server = TestServer::start(Mode::Tls);
    let cfg = config(
        &server.url("https", "/"),
        Model::Open {
            rate: 200.0,
            connections: 2,
            requests: None,
            duration: Some(Duration::from_millis(500)),
        },
    );
    let outcome = run_load(&cfg, &Cancel::new()).unwrap();
    // Requests due before the deadline: 0 .. 0.5 s at 200/s.
    assert_eq!(outcome.stats.completed, 100);
    assert_eq!(server.requests(), 100);
}

#[test]
fn conn_rate_over_tls_makes_its_calls_per_connection() {
    let server = TestServer::start(Mode::Tls);
    let cfg = config(
        &server.url("https", "/"),
        Model::ConnRate {
            conn_rate: 200.0,
            calls_per_conn: 3,
            connections: 10,
        },
    );
    let s = run_and_check(&server, &cfg, 30);
    assert_eq!(s.connections, 10);
    assert_eq!(server.counts.connections.load(Ordering::SeqCst), 10);
}

#[test]
fn self_signed_certificate_fails_without_insecure() {
    let server = TestServer::start(Mode::Tls);
    let mut cfg = config(&server.url("https", "/"), closed(10, 2));
    cfg.insecure = false;
    cfg.threads = 1;
    let plan = &plans(&cfg, Instant::now())[0];
    let s = tokio_engine::run_thread(plan, &cfg, &Cancel::new());
    assert_eq!(s.completed, 0);
    assert!(
        s.error_count(ErrorKind::ConnectOther) >= 1,
        "{:?}",
        s.errors
    );
    assert_eq!(s.error_total(), s.error_count(ErrorKind::ConnectOther));
    assert_eq!(ErrorKind::ConnectOther.ab_class(), "connect");
    let fatal = s.fatal.expect("the thread gives up with a reason");
    assert!(
        fatal.contains("certificate") && fatal.contains("--insecure"),
        "{fatal}"
    );
    assert!(!fatal.contains('\n'));
    assert_eq!(server.requests(), 0);

    match run_load(&cfg, &Cancel::new()) {
        Err(BenchError::System(msg)) => assert!(msg.contains("certificate"), "{msg}"),
        other => panic!("expected a certificate failure, got {other:?}"),
    }
}

#[test]
fn http2_against_an_http1_only_server_says_so() {
    let server = TestServer::start(Mode::TlsH1Only);
    let mut cfg = config(&server.url("https", "/"), closed(5, 1));
    cfg.http2 = true;
    match run_load(&cfg, &Cancel::new()) {
        Err(BenchError::System(msg)) => assert!(msg.contains("did not choose h2"), "{msg}"),
        other => panic!("expected an ALPN failure, got {other:?}"),
    }
    assert_eq!(server.requests(), 0);
}

#[test]
fn stalled_replies_are_client_timeouts() {
    for (mode, scheme, http2) in [(Mode::Tls, "https", false), (Mode::H2c, "http", true)] {
        let server = TestServer::start(mode);
        let mut cfg = config(&server.url(scheme, "/stall"), closed(2, 1));
        cfg.http2 = http2;
        cfg.threads = 1;
        cfg.timeout = Duration::from_millis(200);
        let t0 = Instant::now();
        let s = run_load(&cfg, &Cancel::new()).unwrap().stats;
        assert_eq!(
            s.error_count(ErrorKind::ClientTimeout),
            2,
            "{mode:?}: {:?}",
            s.errors
        );
        assert_eq!(s.completed, 0);
        assert!(
            t0.elapsed() < STALL,
            "{mode:?}: the timeout, not the server, ended it"
        );
    }
}

#[test]
fn cancel_stops_a_timed_run_promptly() {
    let server = TestServer::start(Mode::Tls);
    let mut cfg = config(
        &server.url("https", "/"),
        Model::Closed {
            requests: None,
            concurrency: 2,
            time_limit: Some(Duration::from_secs(30)),
        },
    );
    cfg.http2 = true;
    let cancel = Cancel::new();
    let c = cancel.clone();
    let stopper = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        c.cancel();
    });
    let t0 = Instant::now();
    let outcome = run_load(&cfg, &cancel).unwrap();
    stopper.join().unwrap();
    assert!(outcome.cancelled);
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
    assert!(outcome.stats.completed > 0);
    assert!(outcome.stats.completed <= server.requests());
}
