//! The load generator against real servers on loopback: the built-in
//! server's request counter must equal what the client reports as
//! completed, in every model; and a server that stalls once, at a known
//! time, must show in the corrected latency as the stall implies.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use nodebench_core::bench::Cancel;
use nodebench_http::load::{LoadConfig, LoadOutcome, Model, load_result, run_load};
use nodebench_http::server::{Server, ServerConfig, ServerHandle};
use nodebench_http::url::Target;

fn server(keepalive_requests: u32) -> ServerHandle {
    Server::bind(ServerConfig {
        threads: 1,
        keepalive_requests,
        ..ServerConfig::default()
    })
    .expect("bind the built-in server")
    .spawn()
}

fn config(addr: SocketAddr, path: &str, model: Model, keepalive: bool) -> LoadConfig {
    LoadConfig {
        keepalive,
        timeout: Duration::from_secs(10),
        ..LoadConfig::new(
            Target::parse(&format!("http://{addr}{path}")).unwrap(),
            model,
        )
    }
}

/// Waits (briefly) for the server's counter to reach the client's count:
/// the server counts a response once its write returned, which can be a
/// moment after the client read it.
fn served(h: &ServerHandle, want: u64) -> u64 {
    let until = Instant::now() + Duration::from_secs(2);
    while h.requests_served() < want && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(5));
    }
    // Anything beyond `want` would also show after a short while.
    std::thread::sleep(Duration::from_millis(20));
    h.requests_served()
}

/// The median and mean, in seconds, of ab's Connect row of the result
/// (one figure per request).
fn connect_row(cfg: &LoadConfig, o: &LoadOutcome) -> (f64, f64) {
    let r = load_result(cfg, o);
    let stat = |want: &str| {
        r.metrics
            .iter()
            .find(|m| {
                m.name == "connection_time"
                    && m.labels.get("phase").map(String::as_str) == Some("connect")
                    && m.labels.get("stat").map(String::as_str) == Some(want)
            })
            .map(|m| m.value)
            .expect("a Connect row")
    };
    (stat("median"), stat("mean"))
}

fn check(h: &ServerHandle, o: &LoadOutcome, want: Option<u64>) {
    let s = &o.stats;
    assert_eq!(s.error_total(), 0, "errors: {:?}", s.errors);
    if let Some(n) = want {
        assert_eq!(s.completed, n);
    }
    assert_eq!(
        served(h, s.completed),
        s.completed,
        "server count vs client count"
    );
    assert_eq!(s.status[1], s.completed, "all 2xx");
    assert_eq!(s.document_length, Some(3985));
    assert_eq!(s.body_bytes, 3985 * s.completed);
    assert_eq!(s.total.len(), s.completed);
}

#[test]
fn closed_model_keepalive_counts_match_the_server() {
    // The server closes every 100th response's connection: reconnects are
    // part of the run.
    let h = server(100);
    let cfg = config(
        h.local_addr(),
        "/3985",
        Model::Closed {
            requests: Some(3000),
            concurrency: 8,
            time_limit: None,
        },
        true,
    );
    let o = run_load(&cfg, &Cancel::new()).unwrap();
    check(&h, &o, Some(3000));
    // 8 first connections, then one more per 100 requests served on one.
    assert!(o.stats.connections >= 30, "{}", o.stats.connections);
    assert_eq!(o.stats.connections, h.connections_accepted());
    // As in ab, a request on a reused connection connected in 0 ms: with
    // about one connect per 100 requests the median is 0.
    let (median, mean) = connect_row(&cfg, &o);
    assert_eq!(median, 0.0);
    assert!(mean > 0.0, "the connects that did happen count");
    h.stop();
}

#[test]
fn closed_model_without_keepalive_uses_a_connection_per_request() {
    let h = server(0);
    let cfg = config(
        h.local_addr(),
        "/3985",
        Model::Closed {
            requests: Some(400),
            concurrency: 4,
            time_limit: None,
        },
        false,
    );
    let o = run_load(&cfg, &Cancel::new()).unwrap();
    check(&h, &o, Some(400));
    assert_eq!(o.stats.connections, 400);
    assert_eq!(h.connections_accepted(), 400);
    let (median, _) = connect_row(&cfg, &o);
    assert!(median > 0.0, "every request connected");
    // Each connect was timed from its socket to its first write: never
    // the 1 ns of a start and an end read from one clock reading.
    let lowest = o.stats.connect.min();
    assert!(
        lowest >= 1_000,
        "a loopback connect timed at {lowest} ns (under 1 us)"
    );
    assert!(o.stats.connect.max() > lowest, "all connects timed alike");
    h.stop();
}

#[test]
fn client_cpu_leaves_out_a_server_in_the_same_process() {
    // One request at a time to a CPU-bound page: the in-process server is
    // busy for most of the run, the client thread mostly waits.
    let h = server(100);
    let mut cfg = config(
        h.local_addr(),
        "/cpu/2m",
        Model::Closed {
            requests: Some(100),
            concurrency: 1,
            time_limit: None,
        },
        true,
    );
    cfg.pin = false;
    let o = run_load(&cfg, &Cancel::new()).unwrap();
    assert_eq!(o.stats.completed, 100);
    let client = (o.client_user + o.client_sys).as_secs_f64();
    let elapsed = o.elapsed.as_secs_f64();
    assert!(client > 0.0, "the client thread used some CPU");
    assert!(
        client < 0.2 * elapsed,
        "client CPU {client:.3} s over {elapsed:.3} s counts the server's work"
    );
}

#[test]
fn closed_model_time_limit_counts_match_the_server() {
    let h = server(0);
    let cfg = config(
        h.local_addr(),
        "/3985",
        Model::Closed {
            requests: None,
            concurrency: 4,
            time_limit: Some(Duration::from_millis(500)),
        },
        true,
    );
    let o = run_load(&cfg, &Cancel::new()).unwrap();
    assert!(o.stats.completed > 0);
    check(&h, &o, None);
    assert!(o.elapsed >= Duration::from_millis(500));
    h.stop();
}

#[test]
fn open_model_counts_match_the_server_on_several_threads() {
    let h = server(0);
    let mut cfg = config(
        h.local_addr(),
        "/3985",
        Model::Open {
            rate: 2000.0,
            connections: 4,
            requests: Some(1000),
            duration: None,
        },
        true,
    );
    cfg.threads = 2;
    let o = run_load(&cfg, &Cancel::new()).unwrap();
    check(&h, &o, Some(1000));
    assert_eq!(o.stats.requests_sent, 1000);
    // 1000 requests at 2000/s take half a second.
    assert!(o.elapsed >= Duration::from_millis(490), "{:?}", o.elapsed);
    h.stop();
}

#[test]
fn conn_rate_model_makes_its_calls_per_connection() {
    let h = server(0);
    let cfg = config(
        h.local_addr(),
        "/3985",
        Model::ConnRate {
            conn_rate: 400.0,
            calls_per_conn: 3,
            connections: 60,
        },
        true,
    );
    let o = run_load(&cfg, &Cancel::new()).unwrap();
    check(&h, &o, Some(180));
    assert_eq!(o.stats.connections, 60);
    assert_eq!(h.connections_accepted(), 60);
    h.stop();
}

#[test]
fn non_2xx_and_failures_are_counted() {
    let h = server(0);
    let cfg = config(
        h.local_addr(),
        "/no-such-page",
        Model::Closed {
            requests: Some(50),
            concurrency: 2,
            time_limit: None,
        },
        true,
    );
    let o = run_load(&cfg, &Cancel::new()).unwrap();
    assert_eq!(o.stats.completed, 50);
    assert_eq!(o.stats.status[3], 50, "404s");
    assert_eq!(o.stats.non_2xx(), 50);
    assert_eq!(served(&h, 50), 50);
    h.stop();
}

#[test]
fn unreachable_target_fails_fast_with_one_line() {
    // A port nothing listens on: bind one, note it, close it.
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let cfg = config(
        SocketAddr::from(([127, 0, 0, 1], port)),
        "/",
        Model::Closed {
            requests: Some(1_000_000),
            concurrency: 10,
            time_limit: None,
        },
        true,
    );
    let t = Instant::now();
    let e = run_load(&cfg, &Cancel::new()).unwrap_err().to_string();
    assert!(t.elapsed() < Duration::from_secs(2));
    assert_eq!(
        e,
        format!("cannot connect to 127.0.0.1:{port}: connection refused")
    );
}

/// A server on `conns` connections that answers every request at once,
/// except that from `stall_at` after the first request for `stall` it
/// answers nothing; what arrived meanwhile is answered when the stall ends.
fn stalling_server(stall_at: Duration, stall: Duration) -> (SocketAddr, Arc<AtomicBool>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let first: Arc<OnceLock<Instant>> = Arc::new(OnceLock::new());
    let stop2 = stop.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            if stop2.load(Ordering::Relaxed) {
                break;
            }
            let Ok(mut s) = stream else { continue };
            let first = first.clone();
            std::thread::spawn(move || {
                let _ = s.set_nodelay(true);
                let reply = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
                let mut buf = [0u8; 4096];
                let mut have = Vec::new();
                loop {
                    let n = match s.read(&mut buf) {
                        Ok(0) | Err(_) => return,
                        Ok(n) => n,
                    };
                    have.extend_from_slice(&buf[..n]);
                    while let Some(end) = have.windows(4).position(|w| w == b"\r\n\r\n") {
                        have.drain(..end + 4);
                        let t0 = *first.get_or_init(Instant::now);
                        let (from, to) = (t0 + stall_at, t0 + stall_at + stall);
                        let now = Instant::now();
                        if now >= from && now < to {
                            std::thread::sleep(to - now);
                        }
                        if s.write_all(reply).is_err() {
                            return;
                        }
                    }
                }
            });
        }
    });
    (addr, stop)
}

#[test]
fn corrected_p99_shows_a_stall_that_uncorrected_hides() {
    // 200 requests/s over 2 connections for 5 s (1000 requests); the
    // server stalls for S = 1 s starting 1 s in. A request planned at t
    // inside the stall completes when it ends, so its corrected latency is
    // S - (t - stall start): uniform over (0, S] for the R*S = 200 requests
    // planned in the stall. The share of requests slower than x is
    // R*(S - x)/N, which is 1 % at x = S - 0.01*N/R = 0.95 s.
    let (rate, n, stall) = (200.0, 1000u64, 1.0);
    let (addr, stop) = stalling_server(Duration::from_secs(1), Duration::from_secs_f64(stall));
    let cfg = config(
        addr,
        "/",
        Model::Open {
            rate,
            connections: 2,
            requests: Some(n),
            duration: None,
        },
        true,
    );
    let o = run_load(&cfg, &Cancel::new()).unwrap();
    stop.store(true, Ordering::Relaxed);
    let _ = TcpStream::connect(addr);
    assert_eq!(o.stats.completed, n);
    let expected = stall - 0.01 * n as f64 / rate;
    let corrected = o.stats.total.value_at_percentile(99.0) as f64 / 1e9;
    let uncorrected = o.stats.uncorrected.value_at_percentile(99.0) as f64 / 1e9;
    assert!(
        (corrected - expected).abs() <= 0.2 * expected,
        "corrected p99 {corrected:.3} s, expected {expected:.3} s +/- 20 %"
    );
    // Only the request each connection had in flight when the stall began
    // waited long from its own send: 2 of 1000, well under 1 %.
    assert!(
        uncorrected < corrected / 10.0,
        "uncorrected p99 {uncorrected:.4} s vs corrected {corrected:.3} s"
    );
    let max_uncorrected = o.stats.uncorrected.max() as f64 / 1e9;
    assert!(
        max_uncorrected > 0.5 * stall,
        "the stall itself shows uncorrected: {max_uncorrected}"
    );
}

/// A dynamic endpoint (core's `Endpoint`, as the db crate's `/db/ir` is)
/// that answers its query back, and fails every second request of each
/// worker with a 500 as a database error would.
struct Flaky;

impl nodebench_core::endpoint::Endpoint for Flaky {
    fn path(&self) -> &str {
        "/flaky"
    }
    fn help(&self) -> String {
        "/flaky  every second request fails".into()
    }
    fn target(&self) -> String {
        "test".into()
    }
    fn validate(&self) -> Result<(), nodebench_core::bench::BenchError> {
        Ok(())
    }
    fn open(
        &self,
    ) -> Result<Box<dyn nodebench_core::endpoint::Handler>, nodebench_core::bench::BenchError> {
        Ok(Box::new(FlakyHandler(0)))
    }
}

struct FlakyHandler(u64);

impl nodebench_core::endpoint::Handler for FlakyHandler {
    fn handle(&mut self, query: Option<&str>) -> nodebench_core::endpoint::EndpointReply {
        self.0 += 1;
        let status = if self.0.is_multiple_of(2) { 500 } else { 200 };
        nodebench_core::endpoint::EndpointReply::new(status, query.unwrap_or("none"))
    }
}

#[test]
fn a_dynamic_endpoints_500s_count_as_non_2xx_and_every_reply_as_served() {
    let h = Server::bind(ServerConfig {
        threads: 1,
        endpoints: nodebench_core::endpoint::Endpoints(vec![Arc::new(Flaky)]),
        ..ServerConfig::default()
    })
    .unwrap()
    .spawn();
    let cfg = config(
        h.local_addr(),
        "/flaky?k=1",
        Model::Closed {
            requests: Some(100),
            concurrency: 2,
            time_limit: None,
        },
        true,
    );
    let o = run_load(&cfg, &Cancel::new()).unwrap();
    assert_eq!(o.stats.completed, 100);
    assert_eq!(o.stats.status[1], 50, "2xx");
    assert_eq!(o.stats.status[4], 50, "5xx");
    assert_eq!(o.stats.non_2xx(), 50);
    assert_eq!(o.stats.body_bytes, 300, "the query echoed: k=1");
    assert_eq!(served(&h, 100), 100);
    let r = load_result(&cfg, &o);
    assert_eq!(r.metric("non_2xx", &[]).unwrap().value, 50.0);
    h.stop();
}
