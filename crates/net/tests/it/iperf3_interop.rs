//! iperf3 interoperability and safety, on loopback only:
//! our client against a stock `iperf3 -s`, a stock `iperf3 -c` against our
//! server, our client against our server, and the server's refusals.
//!
//! These tests need the `iperf3` binary (CI installs it); without it they
//! fail with a message saying so.

use nodebench_core::bench::BenchError;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, MutexGuard, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use nodebench_core::bench::Cancel;
use nodebench_net::iperf3::{
    ClientConfig, Protocol, ServerConfig, StreamStats, TestOutcome, run_client, serve,
};
use serde_json::Value;

fn iperf3_bin() -> &'static str {
    let ok = Command::new("iperf3")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    assert!(
        ok,
        "the iperf3 binary is missing: install it (apt-get install -y iperf3); \
         CI installs it for these interop tests"
    );
    "iperf3"
}

/// Tests that move data run one at a time, so rates and byte counts are not
/// disturbed by each other on a small machine.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// A port that was free a moment ago.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// A stock `iperf3 -s -1` on 127.0.0.1, killed on drop.
struct StockServer {
    child: Child,
    port: u16,
}

impl StockServer {
    fn start() -> StockServer {
        let bin = iperf3_bin();
        let port = free_port();
        let mut child = Command::new(bin)
            .args(["-s", "-1", "--forceflush", "-B", "127.0.0.1", "-p"])
            .arg(port.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn iperf3 -s");
        // Wait for "Server listening" (probing the port would count as its
        // one test).
        let out = child.stdout.take().unwrap();
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut r = BufReader::new(out);
            let mut line = String::new();
            while r.read_line(&mut line).unwrap_or(0) > 0 {
                if line.contains("listening") {
                    let _ = tx.send(());
                }
                line.clear();
            }
        });
        rx.recv_timeout(Duration::from_secs(10))
            .expect("iperf3 -s did not start listening");
        StockServer { child, port }
    }
}

impl Drop for StockServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn client_cfg(port: u16, protocol: Protocol) -> ClientConfig {
    let mut c = ClientConfig::new("127.0.0.1");
    c.port = port;
    c.protocol = protocol;
    c.duration = Duration::from_secs(2);
    c
}

/// Our server on an ephemeral port in a thread; returns its address, a
/// channel of outcomes and the thread.
fn start_server(
    mut cfg: ServerConfig,
    cancel: &Cancel,
) -> (
    SocketAddr,
    mpsc::Receiver<TestOutcome>,
    JoinHandle<Result<(), BenchError>>,
) {
    cfg.port = 0;
    let (ready_tx, ready_rx) = mpsc::channel();
    let (out_tx, out_rx) = mpsc::channel();
    let cancel = cancel.clone();
    let h = std::thread::spawn(move || {
        serve(
            &cfg,
            &cancel,
            |a| {
                let _ = ready_tx.send(a);
            },
            |o| {
                let _ = out_tx.send(o);
            },
        )
    });
    let addr = ready_rx
        .recv_timeout(Duration::from_secs(5))
        .expect("server ready");
    (addr, out_rx, h)
}

fn one_test_server() -> (
    SocketAddr,
    mpsc::Receiver<TestOutcome>,
    JoinHandle<Result<(), BenchError>>,
) {
    start_server(
        ServerConfig {
            max_tests: Some(1),
            ..ServerConfig::default()
        },
        &Cancel::new(),
    )
}

fn find(streams: &[StreamStats], id: u32) -> &StreamStats {
    streams
        .iter()
        .find(|s| s.id == id)
        .unwrap_or_else(|| panic!("no stream {id} in {streams:?}"))
}

/// Every stream's bytes agree exactly between the two sides.
fn assert_tcp_bytes_agree(o: &TestOutcome) {
    assert!(!o.local.is_empty());
    assert_eq!(o.local.len(), o.remote.len(), "{o:?}");
    for l in &o.local {
        let r = find(&o.remote, l.id);
        assert_ne!(l.sender, r.sender);
        assert!(l.bytes > 0, "stream {} moved no data", l.id);
        assert_eq!(
            l.bytes,
            r.bytes,
            "stream {}: local {} ({}) vs remote {}",
            l.id,
            l.bytes,
            if l.sender { "sent" } else { "received" },
            r.bytes
        );
    }
}

fn assert_sane_intervals(o: &TestOutcome) {
    assert!(o.intervals.len() >= 2, "{} intervals", o.intervals.len());
    for iv in &o.intervals {
        assert!(iv.end > iv.start);
        assert_eq!(iv.streams.len(), o.local.len());
    }
    // Interval bytes add up to the totals.
    for l in &o.local {
        let sum: u64 = o
            .intervals
            .iter()
            .flat_map(|iv| iv.streams.iter().filter(|s| s.id == l.id))
            .map(|s| s.bytes)
            .sum();
        assert_eq!(sum, l.bytes, "stream {}", l.id);
    }
}

fn stock_client(port: u16, extra: &[&str]) -> Value {
    let bin = iperf3_bin();
    let out = Command::new(bin)
        .args(["-c", "127.0.0.1", "-J", "-t", "2", "-p"])
        .arg(port.to_string())
        .args(extra)
        .output()
        .expect("run iperf3 -c");
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Value = serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("iperf3 -J output is not JSON ({e}): {text}"));
    assert!(
        v.get("error").is_none(),
        "iperf3 -c {extra:?} failed: {}",
        v["error"]
    );
    v
}

fn json_u64(v: &Value) -> u64 {
    v.as_u64()
        .or_else(|| v.as_f64().map(|f| f as u64))
        .unwrap_or_else(|| panic!("not a number: {v}"))
}

// ---- 1. our client -> stock iperf3 -s ------------------------------------

#[test]
fn client_tcp_against_stock_server() {
    let _serial = serial();
    let srv = StockServer::start();
    let mut c = client_cfg(srv.port, Protocol::Tcp);
    c.parallel = 2;
    // Stock iperf3 ignores the unknown "nodebench_token" key.
    c.token = Some("ignored-by-iperf3".into());
    let o = run_client(&c, &Cancel::new()).expect("test against iperf3 -s");
    assert_eq!(o.local.len(), 2);
    assert!(o.local.iter().all(|s| s.sender));
    assert_tcp_bytes_agree(&o);
    assert_sane_intervals(&o);
    for s in &o.local {
        assert!(s.retransmits.is_some() && s.snd_cwnd.is_some_and(|c| c > 0));
        assert!(s.rtt_us.is_some());
    }
    assert!(o.remote_cpu.is_some_and(|c| c.total > 0.0));
    assert!(o.local_cpu.total > 0.0);
    assert!((1.9..3.0).contains(&o.duration), "{}", o.duration);
}

#[test]
fn client_tcp_reverse_against_stock_server() {
    let _serial = serial();
    let srv = StockServer::start();
    let mut c = client_cfg(srv.port, Protocol::Tcp);
    c.parallel = 2;
    c.reverse = true;
    let o = run_client(&c, &Cancel::new()).expect("reverse test against iperf3 -s");
    assert!(o.local.iter().all(|s| !s.sender));
    assert_tcp_bytes_agree(&o);
    // The stock sender reports its retransmits.
    assert!(o.remote.iter().all(|s| s.retransmits.is_some()));
}

#[test]
fn client_udp_against_stock_server() {
    let _serial = serial();
    let srv = StockServer::start();
    let mut c = client_cfg(srv.port, Protocol::Udp);
    c.bitrate = Some(100_000_000);
    let o = run_client(&c, &Cancel::new()).expect("UDP test against iperf3 -s");
    let l = &o.local[0];
    let r = find(&o.remote, l.id);
    let sent = l.packets.unwrap();
    let received = r.packets.unwrap();
    let lost = r.lost_packets.unwrap();
    assert_eq!(
        sent,
        received + lost,
        "sent {sent}, received {received}, lost {lost}"
    );
    // 100 Mbit/s for 2 s, paced: within 10 %.
    let bps = l.bits_per_second();
    assert!((90e6..110e6).contains(&bps), "sent at {bps} bit/s");
    assert!(r.jitter_ms.is_some());
}

// ---- 2. stock iperf3 -c -> our server ------------------------------------

#[test]
fn stock_client_tcp_against_our_server() {
    let _serial = serial();
    let (addr, outcomes, h) = one_test_server();
    // Two streams keep each stream's count far from any 32-bit limit.
    let v = stock_client(addr.port(), &["-P", "2"]);
    let sent = json_u64(&v["end"]["sum_sent"]["bytes"]);
    let received = json_u64(&v["end"]["sum_received"]["bytes"]);
    let o = outcomes.recv_timeout(Duration::from_secs(10)).unwrap();
    h.join().unwrap().unwrap();
    assert!(sent > 0);
    assert_eq!(sent, received, "iperf3's sent vs our received");
    assert_eq!(TestOutcome::sum_bytes(&o.local, false), received);
    assert_eq!(TestOutcome::sum_bytes(&o.remote, true), sent);
    assert_tcp_bytes_agree(&o);
    assert_sane_intervals(&o);
}

#[test]
fn stock_client_tcp_reverse_against_our_server() {
    let _serial = serial();
    let (addr, outcomes, h) = one_test_server();
    let v = stock_client(addr.port(), &["-R", "-P", "2"]);
    let sent = json_u64(&v["end"]["sum_sent"]["bytes"]);
    let received = json_u64(&v["end"]["sum_received"]["bytes"]);
    let o = outcomes.recv_timeout(Duration::from_secs(10)).unwrap();
    h.join().unwrap().unwrap();
    // Our server sent; iperf3 reports our count as sent, its own as received.
    assert!(o.reverse);
    assert_eq!(TestOutcome::sum_bytes(&o.local, true), sent);
    assert_eq!(TestOutcome::sum_bytes(&o.remote, false), received);
    // A stock client stops counting at its own end of test: what was in
    // flight then is sent but not counted received (as with two iperf3s).
    assert!(received <= sent);
    assert!(
        received as f64 >= sent as f64 * 0.95,
        "received {received} of {sent}"
    );
}

#[test]
fn stock_client_udp_against_our_server() {
    let _serial = serial();
    let (addr, outcomes, h) = one_test_server();
    let v = stock_client(addr.port(), &["-u", "-b", "100M"]);
    let o = outcomes.recv_timeout(Duration::from_secs(10)).unwrap();
    h.join().unwrap().unwrap();
    let end = &v["end"];
    let sent_bytes = json_u64(&end["sum_sent"]["bytes"]);
    let recv_bytes = json_u64(&end["sum_received"]["bytes"]);
    let sent_packets = json_u64(&end["streams"][0]["udp"]["packets"]);
    let l = &o.local[0];
    assert!(!l.sender);
    assert_eq!(l.bytes, recv_bytes);
    // Our server read every datagram the client says it sent.
    let received = l.packets.unwrap();
    let lost = l.lost_packets.unwrap();
    assert_eq!(sent_packets, received + lost);
    assert_eq!(find(&o.remote, l.id).packets, Some(sent_packets));
    assert_eq!(
        sent_bytes,
        received * o.length as u64 + lost * o.length as u64
    );
}

// ---- 3. our client -> our server -----------------------------------------

#[test]
fn ours_tcp_parallel() {
    let _serial = serial();
    let (addr, outcomes, h) = one_test_server();
    let mut c = client_cfg(addr.port(), Protocol::Tcp);
    c.parallel = 3;
    c.duration = Duration::from_millis(1500);
    c.interval = Some(Duration::from_millis(500));
    let o = run_client(&c, &Cancel::new()).unwrap();
    let so = outcomes.recv_timeout(Duration::from_secs(10)).unwrap();
    h.join().unwrap().unwrap();
    assert_eq!(o.local.len(), 3);
    assert_eq!(o.local.iter().map(|s| s.id).collect::<Vec<_>>(), [1, 3, 4]);
    assert_tcp_bytes_agree(&o);
    assert_tcp_bytes_agree(&so);
    assert_eq!(
        TestOutcome::sum_bytes(&o.local, true),
        TestOutcome::sum_bytes(&so.local, false)
    );
    assert!(o.intervals.len() >= 3, "{} intervals", o.intervals.len());
    assert_sane_intervals(&o);
}

#[test]
fn ours_tcp_reverse() {
    let _serial = serial();
    let (addr, outcomes, h) = one_test_server();
    let mut c = client_cfg(addr.port(), Protocol::Tcp);
    c.reverse = true;
    c.duration = Duration::from_secs(1);
    let o = run_client(&c, &Cancel::new()).unwrap();
    let so = outcomes.recv_timeout(Duration::from_secs(10)).unwrap();
    h.join().unwrap().unwrap();
    assert!(!o.local[0].sender && so.local[0].sender);
    assert_tcp_bytes_agree(&o);
    assert_eq!(o.local[0].bytes, so.local[0].bytes);
    assert!(so.local[0].retransmits.is_some());
}

#[test]
fn ours_tcp_bidir() {
    let _serial = serial();
    let (addr, outcomes, h) = one_test_server();
    let mut c = client_cfg(addr.port(), Protocol::Tcp);
    c.bidir = true;
    c.parallel = 2;
    c.duration = Duration::from_secs(1);
    let o = run_client(&c, &Cancel::new()).unwrap();
    let so = outcomes.recv_timeout(Duration::from_secs(10)).unwrap();
    h.join().unwrap().unwrap();
    assert_eq!(o.local.len(), 4);
    assert_eq!(o.local.iter().filter(|s| s.sender).count(), 2);
    assert_tcp_bytes_agree(&o);
    assert_tcp_bytes_agree(&so);
    for s in &o.local {
        assert_eq!(s.bytes, find(&so.local, s.id).bytes);
    }
}

#[test]
fn ours_udp_paced_and_zerocopy_tcp() {
    let _serial = serial();
    let (addr, outcomes, h) = start_server(
        ServerConfig {
            max_tests: Some(2),
            ..ServerConfig::default()
        },
        &Cancel::new(),
    );
    let mut c = client_cfg(addr.port(), Protocol::Udp);
    c.bitrate = Some(50_000_000);
    c.duration = Duration::from_secs(1);
    c.length = Some(1400);
    let o = run_client(&c, &Cancel::new()).unwrap();
    let l = &o.local[0];
    let r = find(&o.remote, l.id);
    assert_eq!(
        l.packets.unwrap(),
        r.packets.unwrap() + r.lost_packets.unwrap()
    );
    assert_eq!(l.bytes, l.packets.unwrap() * 1400);
    let bps = l.bits_per_second();
    assert!((45e6..55e6).contains(&bps), "{bps}");
    let so = outcomes.recv_timeout(Duration::from_secs(10)).unwrap();
    assert!(so.local[0].jitter_ms.is_some());

    let mut c = client_cfg(addr.port(), Protocol::Tcp);
    c.zerocopy = true;
    c.duration = Duration::from_secs(1);
    let o = run_client(&c, &Cancel::new()).unwrap();
    assert_tcp_bytes_agree(&o);
    outcomes.recv_timeout(Duration::from_secs(10)).unwrap();
    h.join().unwrap().unwrap();
}

// ---- 4. safety ------------------------------------------------------------

#[test]
fn refuses_tests_longer_than_max_duration() {
    let cancel = Cancel::new();
    let (addr, _outcomes, h) = start_server(
        ServerConfig {
            max_duration: Some(Duration::from_secs(1)),
            max_bitrate: Some(10_000_000),
            ..ServerConfig::default()
        },
        &cancel,
    );
    let c = client_cfg(addr.port(), Protocol::Tcp);
    let e = run_client(&c, &Cancel::new()).unwrap_err().to_string();
    assert!(e.to_string().contains("--max-duration"), "{e}");
    // UDP above the bitrate limit.
    let mut c = client_cfg(addr.port(), Protocol::Udp);
    c.duration = Duration::from_secs(1);
    c.bitrate = Some(100_000_000);
    let e = run_client(&c, &Cancel::new()).unwrap_err().to_string();
    assert!(e.to_string().contains("--max-bitrate"), "{e}");
    // A stock client sees iperf3's own wording.
    let out = Command::new(iperf3_bin())
        .args(["-c", "127.0.0.1", "-t", "5", "-p"])
        .arg(addr.port().to_string())
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success());
    assert!(text.contains("duration too long"), "{text}");
    cancel.cancel();
    h.join().unwrap().unwrap();
}

#[test]
fn token_is_required_when_set() {
    let _serial = serial();
    let cancel = Cancel::new();
    let (addr, _outcomes, h) = start_server(
        ServerConfig {
            token: Some("s3cret".into()),
            ..ServerConfig::default()
        },
        &cancel,
    );
    let mut c = client_cfg(addr.port(), Protocol::Tcp);
    c.duration = Duration::from_secs(1);
    let e = run_client(&c, &Cancel::new()).unwrap_err().to_string();
    assert!(e.to_string().contains("token"), "{e}");
    c.token = Some("wrong".into());
    let e = run_client(&c, &Cancel::new()).unwrap_err().to_string();
    assert!(e.to_string().contains("token"), "{e}");
    c.token = Some("s3cret".into());
    let o = run_client(&c, &Cancel::new()).unwrap();
    assert_tcp_bytes_agree(&o);
    cancel.cancel();
    h.join().unwrap().unwrap();
}

#[test]
fn second_client_is_told_busy_and_first_is_unaffected() {
    let _serial = serial();
    let (addr, outcomes, h) = one_test_server();
    let mut c = client_cfg(addr.port(), Protocol::Tcp);
    c.duration = Duration::from_secs(2);
    let first = {
        let c = c.clone();
        std::thread::spawn(move || run_client(&c, &Cancel::new()))
    };
    std::thread::sleep(Duration::from_millis(700));
    let t0 = Instant::now();
    let e = run_client(&c, &Cancel::new()).unwrap_err().to_string();
    assert!(e.to_string().contains("busy"), "{e}");
    assert!(t0.elapsed() < Duration::from_secs(2));
    // A stock client gets the same answer.
    let out = Command::new(iperf3_bin())
        .args(["-c", "127.0.0.1", "-t", "1", "-p"])
        .arg(addr.port().to_string())
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("busy"), "{text}");
    let o = first.join().unwrap().expect("the running test completes");
    assert_tcp_bytes_agree(&o);
    outcomes.recv_timeout(Duration::from_secs(10)).unwrap();
    h.join().unwrap().unwrap();
}

/// Opens a raw control connection: cookie, then expects PARAM_EXCHANGE.
fn raw_control(addr: SocketAddr) -> TcpStream {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(15))).unwrap();
    s.write_all(b"abcdefghijklmnopqrstuvwxyz2345672345\0")
        .unwrap();
    let mut b = [0u8; 1];
    s.read_exact(&mut b).unwrap();
    assert_eq!(b[0], 9, "PARAM_EXCHANGE");
    s
}

#[test]
fn malformed_control_messages_do_not_stop_the_server() {
    let _serial = serial();
    let (addr, outcomes, h) = one_test_server();
    // Garbage JSON: SERVER_ERROR with iperf3's "cannot receive parameters".
    let mut s = raw_control(addr);
    let body = b"this is { not json";
    s.write_all(&(body.len() as u32).to_be_bytes()).unwrap();
    s.write_all(body).unwrap();
    let mut reply = [0u8; 9];
    s.read_exact(&mut reply).unwrap();
    assert_eq!(reply[0] as i8, -2, "SERVER_ERROR");
    assert_eq!(i32::from_be_bytes(reply[1..5].try_into().unwrap()), 114);
    drop(s);
    // An absurd length is refused without reading it.
    let mut s = raw_control(addr);
    s.write_all(&u32::MAX.to_be_bytes()).unwrap();
    s.read_exact(&mut reply).unwrap();
    assert_eq!(reply[0] as i8, -2);
    drop(s);
    // Early close.
    let s = raw_control(addr);
    drop(s);
    // A normal test still runs (and is the one test this server serves).
    // The server may still be noticing the early close above and answer
    // "busy" for a moment, so the client tries again briefly.
    let mut c = client_cfg(addr.port(), Protocol::Tcp);
    c.duration = Duration::from_secs(1);
    let mut tries = 0;
    let o = loop {
        match run_client(&c, &Cancel::new()) {
            Err(e) if e.to_string().contains("server busy") && tries < 20 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(100));
            }
            other => break other.expect("normal test after garbage"),
        }
    };
    assert_tcp_bytes_agree(&o);
    outcomes.recv_timeout(Duration::from_secs(10)).unwrap();
    h.join().unwrap().unwrap();
}

#[test]
fn port_in_use_names_the_flag() {
    let taken = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let cfg = ServerConfig {
        port,
        ..ServerConfig::default()
    };
    let e = serve(&cfg, &Cancel::new(), |_| {}, |_| {})
        .unwrap_err()
        .to_string();
    assert_eq!(e, format!("--port {port}: address already in use"));
}

#[test]
fn closed_port_is_refused_quickly() {
    let port = free_port();
    let c = client_cfg(port, Protocol::Tcp);
    let t0 = Instant::now();
    let e = run_client(&c, &Cancel::new()).unwrap_err().to_string();
    assert!(e.to_string().contains("refused"), "{e}");
    assert_eq!(
        e,
        format!("cannot connect to 127.0.0.1:{port}: connection refused")
    );
    assert!(t0.elapsed() < Duration::from_secs(1));
}

#[test]
fn cancelled_client_ends_early_and_keeps_results() {
    let _serial = serial();
    let (addr, outcomes, h) = one_test_server();
    let mut c = client_cfg(addr.port(), Protocol::Tcp);
    c.duration = Duration::from_secs(30);
    let cancel = Cancel::new();
    let canceller = {
        let cancel = cancel.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(500));
            cancel.cancel();
        })
    };
    let t0 = Instant::now();
    let o = run_client(&c, &cancel).expect("results of the part that ran");
    canceller.join().unwrap();
    assert!(t0.elapsed() < Duration::from_secs(3));
    assert!(o.duration < 1.5, "{}", o.duration);
    assert_tcp_bytes_agree(&o);
    outcomes.recv_timeout(Duration::from_secs(10)).unwrap();
    h.join().unwrap().unwrap();
}

#[test]
fn connect_timeout_is_honoured() {
    // A listener that never accepts, with its queue full: further SYNs are
    // dropped, so connecting hangs until our timeout.
    let l = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    l.bind(&"127.0.0.1:0".parse::<SocketAddr>().unwrap().into())
        .unwrap();
    l.listen(0).unwrap();
    let addr = l.local_addr().unwrap().as_socket().unwrap();
    let _fill: Vec<TcpStream> = (0..4)
        .filter_map(|_| TcpStream::connect_timeout(&addr, Duration::from_millis(200)).ok())
        .collect();
    let mut c = client_cfg(addr.port(), Protocol::Tcp);
    c.connect_timeout = Duration::from_millis(500);
    let t0 = Instant::now();
    let e = run_client(&c, &Cancel::new()).unwrap_err().to_string();
    let took = t0.elapsed();
    assert!(took < Duration::from_secs(2), "{took:?}");
    // Either the SYN was dropped (connect timed out) or the handshake
    // completed into the full queue and the server never answered.
    assert!(
        e == format!(
            "cannot connect to 127.0.0.1:{}: timed out after 0.5 s",
            addr.port()
        ) || e.to_string().contains("no answer from"),
        "{e}"
    );
}

#[test]
fn server_stops_when_cancelled() {
    let cancel = Cancel::new();
    let (_addr, _outcomes, h) = start_server(ServerConfig::default(), &cancel);
    std::thread::sleep(Duration::from_millis(200));
    let t0 = Instant::now();
    cancel.cancel();
    h.join().unwrap().unwrap();
    assert!(t0.elapsed() < Duration::from_secs(1));
}
