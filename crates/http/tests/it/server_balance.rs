//! The built-in server spreads connections evenly over its worker threads:
//! with 2 workers and 32 keep-alive connections, each worker serves within
//! 20 % of the mean, in every one of 10 runs. A shared listener that wakes
//! whichever worker the kernel picks (EPOLLEXCLUSIVE) fails this: a burst
//! of connects lands mostly on one worker.
//!
//! One client thread opens all 32 connections at once (as a load generator
//! does), then sends one GET on each in turn and reads the replies, 150
//! rounds: every connection carries the same number of requests, and the
//! server's 100th response on a connection closes it, so each run also
//! has a second burst of 32 connects.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use nodebench_http::server::{Server, ServerConfig};

const WORKERS: usize = 2;
const CONNECTIONS: usize = 32;
const REQUESTS_PER_CONNECTION: u64 = 150;
const RUNS: usize = 10;
/// Largest distance of a worker's count from the mean, as a share of it.
const TOLERANCE: f64 = 0.20;

fn connect(addr: SocketAddr) -> BufReader<TcpStream> {
    let s = TcpStream::connect(addr).expect("connects");
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    s.set_nodelay(true).unwrap();
    BufReader::new(s)
}

/// Reads one response (its head and its Content-Length body); true when
/// the server closes the connection after it.
fn read_response(c: &mut BufReader<TcpStream>) -> bool {
    let mut line = String::new();
    c.read_line(&mut line).unwrap();
    assert!(line.starts_with("HTTP/1.1 200 "), "status line {line:?}");
    let (mut length, mut close) = (0usize, false);
    loop {
        line.clear();
        c.read_line(&mut line).unwrap();
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        let (k, v) = l.split_once(':').expect("a header");
        if k.eq_ignore_ascii_case("content-length") {
            length = v.trim().parse().unwrap();
        } else if k.eq_ignore_ascii_case("connection") {
            close = v.trim().eq_ignore_ascii_case("close");
        }
    }
    let mut body = vec![0u8; length];
    c.read_exact(&mut body).unwrap();
    close
}

/// One run against a fresh server: each worker's served count.
fn run_once() -> Vec<u64> {
    let handle = Server::bind(ServerConfig {
        threads: WORKERS,
        ..ServerConfig::default()
    })
    .expect("binds")
    .spawn();
    let addr = handle.local_addr();
    let mut conns: Vec<_> = (0..CONNECTIONS).map(|_| connect(addr)).collect();
    for _ in 0..REQUESTS_PER_CONNECTION {
        for c in &mut conns {
            c.get_mut()
                .write_all(b"GET /bytes/64 HTTP/1.1\r\nHost: x\r\n\r\n")
                .unwrap();
        }
        for c in &mut conns {
            if read_response(c) {
                *c = connect(addr);
            }
        }
    }
    // A response is counted just after its last byte is handed to the
    // socket, a moment after the client may have read it.
    let expected = CONNECTIONS as u64 * REQUESTS_PER_CONNECTION;
    let end = Instant::now() + Duration::from_secs(1);
    while handle.requests_served() < expected && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(1));
    }
    let per_worker = handle.requests_per_worker();
    handle.stop();
    assert_eq!(per_worker.iter().sum::<u64>(), expected, "{per_worker:?}");
    per_worker
}

#[test]
fn two_workers_serve_32_keepalive_connections_evenly_in_every_run() {
    let runs: Vec<Vec<u64>> = (0..RUNS).map(|_| run_once()).collect();
    for (i, counts) in runs.iter().enumerate() {
        eprintln!("run {}: requests per server thread {counts:?}", i + 1);
    }
    for (i, counts) in runs.iter().enumerate() {
        assert_eq!(counts.len(), WORKERS);
        let mean = counts.iter().sum::<u64>() as f64 / counts.len() as f64;
        for (w, &n) in counts.iter().enumerate() {
            let off = (n as f64 - mean).abs() / mean;
            assert!(
                off <= TOLERANCE,
                "run {}: worker {w} served {n}, {:.0} % from the mean {mean:.0} (every run: {runs:?})",
                i + 1,
                100.0 * off
            );
        }
    }
}
