//! The built-in server over real loopback sockets, spoken to byte by byte.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use super::*;

fn server(f: impl FnOnce(&mut ServerConfig)) -> ServerHandle {
    let mut cfg = ServerConfig {
        threads: 2,
        ..ServerConfig::default()
    };
    f(&mut cfg);
    Server::bind(cfg).expect("binds").spawn()
}

fn connect(h: &ServerHandle) -> BufReader<TcpStream> {
    let s = TcpStream::connect(h.local_addr()).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    BufReader::new(s)
}

/// A response as read off the wire.
#[derive(Debug)]
struct Got {
    status: u16,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

impl Got {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

fn send(c: &mut BufReader<TcpStream>, raw: &str) {
    c.get_mut().write_all(raw.as_bytes()).unwrap();
}

/// Reads one response; with `head_only` the body (announced by
/// Content-Length) is not read, as after HEAD.
fn read_response(c: &mut BufReader<TcpStream>, head_only: bool) -> Got {
    let mut line = String::new();
    c.read_line(&mut line).unwrap();
    let status: u16 = line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("status line {line:?}"));
    let mut headers = Vec::new();
    loop {
        line.clear();
        c.read_line(&mut line).unwrap();
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        let (k, v) = l.split_once(':').unwrap();
        headers.push((k.to_string(), v.trim().to_string()));
    }
    let mut got = Got {
        status,
        headers,
        body: Vec::new(),
    };
    if !head_only {
        let len: usize = got.header("content-length").unwrap().parse().unwrap();
        got.body.resize(len, 0);
        c.read_exact(&mut got.body).unwrap();
    }
    got
}

fn get(c: &mut BufReader<TcpStream>, path: &str) -> Got {
    send(c, &format!("GET {path} HTTP/1.1\r\nHost: t\r\n\r\n"));
    read_response(c, false)
}

fn at_eof(c: &mut BufReader<TcpStream>) -> bool {
    let mut b = [0u8; 1];
    matches!(c.read(&mut b), Ok(0))
}

/// Waits (bounded) until the counter reaches `n`: the count is bumped right
/// after the last byte is handed to the socket, a moment after the client
/// may already have it.
fn wait_served(h: &ServerHandle, n: u64) -> u64 {
    let end = Instant::now() + Duration::from_secs(5);
    while h.requests_served() < n && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(5));
    }
    h.requests_served()
}

#[test]
fn pages_have_exact_sizes_and_the_pattern() {
    let h = server(|_| {});
    let mut c = connect(&h);
    for (path, len) in [("/1150", 1150), ("/bytes/3985", 3985), ("/100k", 102_400)] {
        let r = get(&mut c, path);
        assert_eq!(r.status, 200, "{path}");
        assert_eq!(r.body.len(), len, "{path}");
        assert!(
            r.body
                .iter()
                .enumerate()
                .all(|(i, &b)| b == PATTERN[i % PATTERN.len()]),
            "{path} body follows the pattern"
        );
        assert_eq!(r.header("connection"), None, "{path} keeps the connection");
    }
    assert_eq!(wait_served(&h, 3), 3);
    assert_eq!(h.connections_accepted(), 1);
}

#[test]
fn a_large_body_streams_with_the_exact_length() {
    let h = server(|_| {});
    let mut c = connect(&h);
    send(&mut c, "GET /bytes/50M HTTP/1.1\r\n\r\n");
    let head = read_response(&mut c, true);
    assert_eq!(head.header("content-length"), Some("52428800"));
    let mut buf = vec![0u8; 1 << 20];
    let (mut total, mut pattern_ok) = (0usize, true);
    while total < 52_428_800 {
        let n = c.read(&mut buf).unwrap();
        assert!(n > 0, "body cut short at {total}");
        pattern_ok &= buf[..n]
            .iter()
            .enumerate()
            .all(|(i, &b)| b == PATTERN[(total + i) % PATTERN.len()]);
        total += n;
    }
    assert_eq!(total, 52_428_800);
    assert!(pattern_ok, "the pattern runs on across writes");
    // The connection is still usable.
    assert_eq!(get(&mut c, "/1150").body.len(), 1150);
}

#[test]
fn the_hundredth_response_closes_the_connection() {
    let h = server(|c| c.keepalive_requests = 3);
    let mut c = connect(&h);
    assert_eq!(get(&mut c, "/1").header("connection"), None);
    assert_eq!(get(&mut c, "/1").header("connection"), None);
    assert_eq!(get(&mut c, "/1").header("connection"), Some("close"));
    assert!(at_eof(&mut c));
    assert_eq!(wait_served(&h, 3), 3);
    assert_eq!(ServerConfig::default().keepalive_requests, 100);
    assert_eq!(
        ServerConfig::default().keepalive_timeout,
        Duration::from_secs(15)
    );
}

#[test]
fn connection_close_and_http10_are_honoured() {
    let h = server(|_| {});
    let mut c = connect(&h);
    send(&mut c, "GET /10 HTTP/1.1\r\nConnection: close\r\n\r\n");
    let r = read_response(&mut c, false);
    assert_eq!((r.status, r.header("connection")), (200, Some("close")));
    assert!(at_eof(&mut c));

    let mut c = connect(&h);
    send(&mut c, "GET /10 HTTP/1.0\r\n\r\n");
    assert_eq!(read_response(&mut c, false).body.len(), 10);
    assert!(at_eof(&mut c), "HTTP/1.0 closes by default");

    let mut c = connect(&h);
    send(&mut c, "GET /10 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    let r = read_response(&mut c, false);
    assert_eq!(r.header("connection"), Some("keep-alive"));
    send(&mut c, "GET /20 HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    assert_eq!(read_response(&mut c, false).body.len(), 20);
}

#[test]
fn idle_connections_close_after_the_keepalive_timeout() {
    let h = server(|c| c.keepalive_timeout = Duration::from_millis(200));
    let mut c = connect(&h);
    assert_eq!(get(&mut c, "/1").status, 200);
    let t = Instant::now();
    assert!(at_eof(&mut c));
    let waited = t.elapsed();
    assert!(
        waited >= Duration::from_millis(150) && waited < Duration::from_secs(3),
        "{waited:?}"
    );
}

#[test]
fn errors_head_post_and_pipelining() {
    let h = server(|_| {});
    let mut c = connect(&h);
    assert_eq!(get(&mut c, "/nope").status, 404);
    let r = get(&mut c, "/");
    assert!(String::from_utf8_lossy(&r.body).contains("/delay/<duration>"));
    send(&mut c, "HEAD /3985 HTTP/1.1\r\n\r\n");
    let r = read_response(&mut c, true);
    assert_eq!((r.status, r.header("content-length")), (200, Some("3985")));
    let body = "x".repeat(10_000);
    send(
        &mut c,
        &format!(
            "POST /5 HTTP/1.1\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        ),
    );
    assert_eq!(read_response(&mut c, false).body.len(), 5);
    send(&mut c, "GET /1 HTTP/1.1\r\n\r\nGET /2 HTTP/1.1\r\n\r\n");
    assert_eq!(read_response(&mut c, false).body.len(), 1);
    assert_eq!(read_response(&mut c, false).body.len(), 2);
    send(&mut c, "DELETE /1 HTTP/1.1\r\n\r\n");
    let r = read_response(&mut c, false);
    assert_eq!(
        (r.status, r.header("allow")),
        (405, Some("GET, HEAD, POST"))
    );
    let r = get(&mut c, "/cpu/1000");
    assert_eq!(
        String::from_utf8_lossy(&r.body),
        format!("cpu rounds=1000 result={:016x}\n", cpu_work(1000))
    );
    send(&mut c, "BROKEN\r\n\r\n");
    let r = read_response(&mut c, false);
    assert_eq!((r.status, r.header("connection")), (400, Some("close")));
    assert!(at_eof(&mut c));
    assert_eq!(wait_served(&h, 9), 9);
}

#[test]
fn expect_100_continue_gets_an_interim_reply_and_the_body_is_discarded() {
    let h = server(|_| {});
    let mut c = connect(&h);
    send(
        &mut c,
        "POST /5 HTTP/1.1\r\nContent-Length: 4\r\nExpect: 100-continue\r\n\r\n",
    );
    assert_eq!(read_response(&mut c, true).status, 100);
    assert_eq!(read_response(&mut c, false).body.len(), 5);
    send(&mut c, "body");
    assert_eq!(get(&mut c, "/6").body.len(), 6);
}

#[test]
fn a_chunked_request_body_is_discarded_and_the_connection_goes_on() {
    let h = server(|_| {});
    let mut c = connect(&h);
    send(
        &mut c,
        "POST /7 HTTP/1.1\r\nTransfer-Encoding: chunked\r\nExpect: 100-continue\r\n\r\n",
    );
    assert_eq!(read_response(&mut c, true).status, 100);
    assert_eq!(read_response(&mut c, false).body.len(), 7);
    // The body arrives in pieces, the next request right behind it.
    send(&mut c, "5\r\nhel");
    send(
        &mut c,
        "lo\r\n10;x=y\r\n0123456789abcdef\r\n0\r\nX-T: 1\r\n\r\nGET /8 HTTP/1.1\r\n\r\n",
    );
    assert_eq!(read_response(&mut c, false).body.len(), 8);
    assert_eq!(get(&mut c, "/9").body.len(), 9);
    assert_eq!(wait_served(&h, 3), 3);
    // Broken framing closes the connection (its reply already went out).
    send(
        &mut c,
        "POST /1 HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    );
    assert_eq!(read_response(&mut c, false).status, 200);
    assert!(at_eof(&mut c));
}

#[test]
fn an_oversized_head_gets_431() {
    let h = server(|_| {});
    let mut c = connect(&h);
    send(
        &mut c,
        &format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(MAX_HEAD)),
    );
    assert_eq!(read_response(&mut c, false).status, 431);
}

#[test]
fn a_delay_does_not_hold_up_other_connections() {
    let h = server(|c| c.threads = 1);
    let mut slow = connect(&h);
    let t = Instant::now();
    send(&mut slow, "GET /delay/600ms HTTP/1.1\r\n\r\n");
    std::thread::sleep(Duration::from_millis(50));
    let mut fast = connect(&h);
    assert_eq!(get(&mut fast, "/1150").status, 200);
    let fast_done = t.elapsed();
    let r = read_response(&mut slow, false);
    let slow_done = t.elapsed();
    assert_eq!(r.body, b"delayed 600ms\n");
    assert!(fast_done < Duration::from_millis(500), "{fast_done:?}");
    assert!(slow_done >= Duration::from_millis(600), "{slow_done:?}");
}

#[test]
fn stop_ends_the_workers_and_closes_connections() {
    let h = server(|_| {});
    let mut c = connect(&h);
    assert_eq!(get(&mut c, "/1").status, 200);
    let t = Instant::now();
    h.stop();
    assert!(t.elapsed() < Duration::from_secs(2));
    assert!(at_eof(&mut c));
}

#[test]
fn serve_blocks_until_cancelled() {
    let s = Server::bind(ServerConfig::default()).unwrap();
    let addr = s.local_addr();
    assert_ne!(addr.port(), 0);
    let cancel = Cancel::new();
    std::thread::scope(|scope| {
        let stop = cancel.clone();
        let served = scope.spawn(move || s.serve(&stop));
        let mut c = BufReader::new(TcpStream::connect(addr).unwrap());
        assert_eq!(get(&mut c, "/7").body.len(), 7);
        cancel.cancel();
        assert_eq!(served.join().unwrap(), Ok(()));
    });
}

#[test]
fn bad_configs_name_the_flag() {
    let bad = |f: fn(&mut ServerConfig)| {
        let mut cfg = ServerConfig::default();
        f(&mut cfg);
        Server::bind(cfg).err().unwrap()
    };
    assert!(bad(|c| c.threads = 0).to_string().contains("--threads"));
    assert!(
        bad(|c| c.keepalive_timeout = Duration::ZERO)
            .to_string()
            .contains("--keepalive-timeout")
    );
    let taken = Server::bind(ServerConfig::default()).unwrap();
    let e = bad_bind(taken.local_addr());
    assert!(e.contains("--bind/--port"), "{e}");
}

fn bad_bind(addr: SocketAddr) -> String {
    Server::bind(ServerConfig {
        bind: addr,
        ..ServerConfig::default()
    })
    .err()
    .unwrap()
    .to_string()
}

#[test]
fn every_response_is_dated_in_imf_fixdate() {
    let h = server(|_| {});
    let mut c = connect(&h);
    for (path, status) in [("/3985", 200), ("/nope", 404)] {
        let r = get(&mut c, path);
        assert_eq!(r.status, status);
        let date = r
            .header("date")
            .unwrap_or_else(|| panic!("{path}: no Date"));
        assert!(date.ends_with(" GMT") && date.len() == 29, "{date:?}");
        let t = chrono::DateTime::parse_from_rfc2822(date).unwrap();
        let skew = (chrono::Utc::now().timestamp() - t.timestamp()).abs();
        assert!(skew <= 2, "{date} is {skew} s off");
    }
}
