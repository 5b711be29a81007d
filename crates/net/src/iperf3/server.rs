//! The server side: an acceptor thread that reads each new connection's
//! cookie and routes it (new control connection, data connection of the
//! running test, or `ACCESS_DENIED` when busy), and the serving thread that
//! runs one test at a time.

use std::collections::HashMap;
use std::io::{self, Write};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use nodebench_core::bench::Cancel;
use socket2::{Domain, Protocol as SockProto, Socket, Type};

use super::client::drain_receivers;
use super::proto::{self, CtrlError, Params, Results, State, Transport, ierr};
use super::stream::{self, Running, Sock, Stream, WorkerCfg};
use super::{CpuUtil, Protocol, ServerConfig, TestOutcome, sys};

/// Timeout for every control-connection read and write.
const CTRL_TIMEOUT: Duration = Duration::from_secs(10);
/// Time a new connection has to send its cookie.
const COOKIE_TIMEOUT: Duration = Duration::from_secs(5);
/// Time the client has to open all data streams.
const STREAMS_TIMEOUT: Duration = Duration::from_secs(10);
/// A test is aborted this long after its announced length.
const GRACE: Duration = Duration::from_secs(15);
/// Bound on reading in-flight data after the end of a test.
const RECV_DRAIN: Duration = Duration::from_secs(3);
/// Wait for the client's final IPERF_DONE.
const DONE_TIMEOUT: Duration = Duration::from_secs(5);
/// Longest test when the client bounds it by bytes and no limit is set
/// (iperf3's `MAX_TIME`).
const MAX_TIME: u64 = 86_400;
/// Data-socket I/O timeout.
const IO_POLL: Duration = Duration::from_millis(100);
/// Most connections waiting to send their cookie at once.
const MAX_PENDING: usize = 64;

type Cookie = [u8; proto::COOKIE_SIZE];

enum Slot {
    Idle,
    Busy {
        cookie: Cookie,
        /// Set while the running test accepts data connections.
        streams: Option<Sender<(u64, TcpStream)>>,
    },
}

struct Shared {
    slot: Mutex<Slot>,
    stop: AtomicBool,
    pending: AtomicUsize,
}

impl Shared {
    fn slot(&self) -> MutexGuard<'_, Slot> {
        self.slot.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn bind_error(ip: IpAddr, port: u16, e: &io::Error) -> String {
    match e.raw_os_error() {
        Some(libc::EADDRINUSE) => format!("--port {port}: address already in use"),
        Some(libc::EADDRNOTAVAIL) => format!("--bind {ip}: address not available on this host"),
        Some(libc::EACCES) => format!("--port {port}: permission denied"),
        _ => format!("--bind {ip} --port {port}: {e}"),
    }
}

fn bind_listener(ip: IpAddr, port: u16, mss: Option<u32>) -> Result<TcpListener, String> {
    let addr = SocketAddr::new(ip, port);
    let err = |e: io::Error| bind_error(ip, port, &e);
    let s = Socket::new(
        Domain::for_address(addr),
        Type::STREAM,
        Some(SockProto::TCP),
    )
    .map_err(err)?;
    s.set_reuse_address(true).map_err(err)?;
    if let Some(m) = mss {
        sys::set_tcp_maxseg(s.as_raw_fd(), m).map_err(|e| format!("--mss {m}: {e}"))?;
    }
    s.bind(&addr.into()).map_err(err)?;
    s.listen(128).map_err(err)?;
    Ok(s.into())
}

fn bind_udp(addr: SocketAddr) -> io::Result<UdpSocket> {
    let s = Socket::new(Domain::for_address(addr), Type::DGRAM, Some(SockProto::UDP))?;
    s.set_reuse_address(true)?;
    s.bind(&addr.into())?;
    Ok(s.into())
}

pub(crate) fn serve(
    cfg: &ServerConfig,
    cancel: &Cancel,
    on_ready: impl FnOnce(SocketAddr),
    mut on_test: impl FnMut(TestOutcome),
) -> Result<(), String> {
    let listener = bind_listener(cfg.bind, cfg.port, cfg.mss)?;
    let local = listener
        .local_addr()
        .map_err(|e| format!("--port {}: {e}", cfg.port))?;
    let shared = Arc::new(Shared {
        slot: Mutex::new(Slot::Idle),
        stop: AtomicBool::new(false),
        pending: AtomicUsize::new(0),
    });
    let (ctrl_tx, ctrl_rx) = mpsc::channel::<(TcpStream, Cookie)>();
    let acceptor = {
        let shared = shared.clone();
        std::thread::Builder::new()
            .name("net-accept".into())
            .spawn(move || accept_loop(listener, shared, ctrl_tx))
            .map_err(|e| format!("cannot start the acceptor thread: {e}"))?
    };
    on_ready(local);

    let mut tests = 0u64;
    while !cancel.is_cancelled() && cfg.max_tests.is_none_or(|m| tests < m) {
        let (ctrl, _cookie) = match ctrl_rx.recv_timeout(Duration::from_millis(100)) {
            Ok(c) => c,
            Err(RecvTimeoutError::Timeout) => continue,
            Err(RecvTimeoutError::Disconnected) => break,
        };
        let mut session = Session {
            cfg,
            cancel,
            shared: &shared,
            local,
            started: false,
            released: false,
        };
        let r = session.run(ctrl);
        session.release();
        if session.started {
            tests += 1;
        }
        if let Ok(Some(outcome)) = r {
            on_test(outcome);
        }
    }
    shared.stop.store(true, Ordering::SeqCst);
    let _ = acceptor.join();
    Ok(())
}

fn accept_loop(listener: TcpListener, shared: Arc<Shared>, ctrl_tx: Sender<(TcpStream, Cookie)>) {
    let mut seq = 0u64;
    while !shared.stop.load(Ordering::SeqCst) {
        if !sys::wait_readable(listener.as_raw_fd(), Duration::from_millis(100)) {
            continue;
        }
        match listener.accept() {
            Ok((s, _)) => {
                seq += 1;
                if shared.pending.load(Ordering::SeqCst) >= MAX_PENDING {
                    continue; // dropped: too many half-open handshakes
                }
                shared.pending.fetch_add(1, Ordering::SeqCst);
                let sh = shared.clone();
                let tx = ctrl_tx.clone();
                let n = seq;
                let spawned = std::thread::Builder::new()
                    .name("net-handshake".into())
                    .spawn(move || {
                        handshake(s, n, &sh, &tx);
                        sh.pending.fetch_sub(1, Ordering::SeqCst);
                    });
                if spawned.is_err() {
                    shared.pending.fetch_sub(1, Ordering::SeqCst);
                }
            }
            Err(_) => std::thread::sleep(Duration::from_millis(10)),
        }
    }
}

/// Reads a new connection's cookie and routes it.
fn handshake(mut s: TcpStream, seq: u64, shared: &Shared, ctrl_tx: &Sender<(TcpStream, Cookie)>) {
    let mut cookie = [0u8; proto::COOKIE_SIZE];
    if s.set_read_timeout(Some(COOKIE_TIMEOUT)).is_err()
        || s.set_write_timeout(Some(COOKIE_TIMEOUT)).is_err()
        || io::Read::read_exact(&mut s, &mut cookie).is_err()
    {
        return;
    }
    let mut slot = shared.slot();
    match &*slot {
        Slot::Idle => {
            *slot = Slot::Busy {
                cookie,
                streams: None,
            };
            drop(slot);
            if ctrl_tx.send((s, cookie)).is_err() {
                *shared.slot() = Slot::Idle;
            }
        }
        Slot::Busy {
            cookie: c,
            streams: Some(tx),
        } if *c == cookie => {
            let _ = tx.send((seq, s));
        }
        Slot::Busy { .. } => {
            drop(slot);
            // Busy: one test at a time, like iperf3.
            let _ = s.write_all(&[State::AccessDenied.to_byte()]);
        }
    }
}

/// A test refused or failed with an answer for the client.
enum Refusal {
    /// `SERVER_ERROR` with iperf3's `i_errno` and `errno`.
    Error(i32, i32),
    /// `ACCESS_DENIED`.
    Denied,
}

struct Session<'a> {
    cfg: &'a ServerConfig,
    cancel: &'a Cancel,
    shared: &'a Shared,
    local: SocketAddr,
    /// The streams were created and the test started.
    started: bool,
    /// The one-test slot was freed; it may already hold the next client.
    released: bool,
}

fn errno_of(e: &CtrlError) -> i32 {
    match e {
        CtrlError::Io(e) => e.raw_os_error().unwrap_or(0),
        CtrlError::Closed => 0,
        CtrlError::TooLarge(_) => libc::EMSGSIZE,
        CtrlError::BadJson(_) => libc::EINVAL,
    }
}

impl Session<'_> {
    /// Runs one client's session; `Ok(None)` when the test was refused.
    fn run(&mut self, mut ctrl: TcpStream) -> Result<Option<TestOutcome>, String> {
        let io_err = |e: io::Error| format!("control connection: {e}");
        ctrl.set_nodelay(true).map_err(io_err)?;
        ctrl.set_read_timeout(Some(CTRL_TIMEOUT)).map_err(io_err)?;
        ctrl.set_write_timeout(Some(CTRL_TIMEOUT)).map_err(io_err)?;
        let peer = ctrl.peer_addr().map_err(io_err)?;
        proto::write_state(&mut ctrl, State::ParamExchange).map_err(io_err)?;

        let params = match proto::read_json(&mut ctrl, proto::MAX_PARAMS_LEN) {
            Ok(v) => match Params::from_json(&v) {
                Ok(p) => p,
                Err(e) => {
                    self.release();
                    let _ = proto::write_server_error(&mut ctrl, ierr::RECV_PARAMS, libc::EINVAL);
                    return Err(format!("bad parameters from {peer}: {e}"));
                }
            },
            Err(e) => {
                self.release();
                let _ = proto::write_server_error(&mut ctrl, ierr::RECV_PARAMS, errno_of(&e));
                return Err(format!("bad parameters from {peer}: {e}"));
            }
        };
        if let Err((refusal, why)) = self.check(&params) {
            self.release();
            match refusal {
                Refusal::Denied => {
                    let _ = proto::write_state(&mut ctrl, State::AccessDenied);
                }
                Refusal::Error(ie, errno) => {
                    let _ = proto::write_server_error(&mut ctrl, ie, errno);
                }
            }
            drop(why); // a refusal is answered to the client, not an error here
            return Ok(None);
        }
        self.run_test(ctrl, peer, params).map(Some)
    }

    /// Frees the one-test slot before the client hears that its test is
    /// over, so a client that retries at once is served, not told "busy".
    fn release(&mut self) {
        if !self.released {
            *self.shared.slot() = Slot::Idle;
            self.released = true;
        }
    }

    /// Checks the parameters against the server's limits.
    fn check(&self, p: &Params) -> Result<(), (Refusal, String)> {
        let err = |ie: i32, why: String| Err((Refusal::Error(ie, 0), why));
        if let Some(t) = &self.cfg.token
            && p.token.as_deref() != Some(t.as_str())
        {
            return Err((Refusal::Denied, "missing or wrong token".into()));
        }
        let Some(transport) = p.transport else {
            return err(ierr::PROTOCOL, "protocol not supported".into());
        };
        if p.omit > 0 {
            return err(ierr::UNIMP, "--omit is not supported".into());
        }
        if p.reverse && p.bidirectional {
            return err(ierr::REVERSE_BIDIR, "reverse and bidirectional".into());
        }
        if p.parallel == 0 || p.parallel > proto::MAX_STREAMS {
            return err(ierr::NUM_STREAMS, format!("{} streams", p.parallel));
        }
        if let Some(max) = self.cfg.max_duration
            && (p.time == 0 || p.time as f64 > max.as_secs_f64())
        {
            return err(
                ierr::DURATION,
                format!("{} s asked, limit {:?}", p.time, max),
            );
        }
        if p.window.is_some_and(|w| w > proto::MAX_WINDOW) {
            return err(ierr::BUF_SIZE, "window too large".into());
        }
        match (transport, p.len) {
            (Transport::Tcp, Some(l)) if l as usize > proto::MAX_TCP_LEN => {
                return err(ierr::BLOCK_SIZE, format!("length {l}"));
            }
            (Transport::Udp, Some(l))
                if (l as usize) < proto::UdpHeader::len(p.udp_counters_64bit)
                    || l as usize > proto::MAX_UDP_LEN =>
            {
                return err(ierr::UDP_BLOCK_SIZE, format!("length {l}"));
            }
            _ => {}
        }
        if transport == Transport::Udp
            && let Some(max) = self.cfg.max_bitrate
        {
            let dirs = if p.bidirectional { 2 } else { 1 };
            let total = p
                .bandwidth
                .saturating_mul(u64::from(p.parallel))
                .saturating_mul(dirs);
            if p.bandwidth == 0 || total > max {
                return err(
                    ierr::TOTAL_RATE,
                    format!("{total} bit/s asked, limit {max}"),
                );
            }
        }
        Ok(())
    }

    fn refuse(&mut self, ctrl: &mut TcpStream, ie: i32, errno: i32, why: String) -> String {
        self.release();
        let _ = proto::write_server_error(ctrl, ie, errno);
        why
    }

    fn run_test(
        &mut self,
        mut ctrl: TcpStream,
        peer: SocketAddr,
        p: Params,
    ) -> Result<TestOutcome, String> {
        let io_err = |e: io::Error| format!("control connection: {e}");
        let transport = p.transport.unwrap_or(Transport::Tcp);
        let n = p.parallel as usize;
        let total = if p.bidirectional { 2 * n } else { n };
        // Server perspective: the first streams the client opens are the
        // ones we receive on (all of them normally, none in reverse, the
        // first half in bidirectional tests).
        let to_receive = if p.reverse { 0 } else { n };
        let len = match (transport, p.len) {
            (_, Some(l)) => l as usize,
            (Transport::Tcp, None) => proto::DEFAULT_TCP_LEN,
            (Transport::Udp, None) => proto::DEFAULT_UDP_LEN,
        };

        // Get ready for the data connections, then tell the client.
        let (stream_tx, stream_rx) = mpsc::channel();
        let mut udp_listener = None;
        match transport {
            Transport::Tcp => {
                if let Slot::Busy { streams, .. } = &mut *self.shared.slot() {
                    *streams = Some(stream_tx);
                }
            }
            Transport::Udp => match bind_udp(self.local) {
                Ok(u) => udp_listener = Some(u),
                Err(e) => {
                    let why = format!("UDP port {}: {e}", self.local.port());
                    return Err(self.refuse(
                        &mut ctrl,
                        ierr::STREAM_LISTEN,
                        e.raw_os_error().unwrap_or(0),
                        why,
                    ));
                }
            },
        }
        proto::write_state(&mut ctrl, State::CreateStreams).map_err(io_err)?;
        let socks = match udp_listener {
            None => self.accept_tcp(&stream_rx, total),
            Some(u) => self.accept_udp(u, peer, total),
        };
        if let Slot::Busy { streams, .. } = &mut *self.shared.slot() {
            *streams = None;
        }
        let socks = match socks {
            Ok(s) => s,
            Err(why) => return Err(self.refuse(&mut ctrl, ierr::STREAM_ACCEPT, 0, why)),
        };
        let mut streams = Vec::with_capacity(total);
        for (i, sock) in socks.into_iter().enumerate() {
            let sr = match &sock {
                Sock::Tcp(t) => socket2::SockRef::from(t),
                Sock::Udp(u) => socket2::SockRef::from(u),
            };
            if let Some(w) = p.window {
                let _ = sr.set_send_buffer_size(w as usize);
                let _ = sr.set_recv_buffer_size(w as usize);
            }
            if let Sock::Tcp(t) = &sock {
                if p.nodelay {
                    let _ = t.set_nodelay(true);
                }
                if let Some(cc) = &p.congestion {
                    let _ = sys::set_congestion(t.as_raw_fd(), cc);
                }
            }
            sr.set_read_timeout(Some(IO_POLL))
                .and_then(|_| sr.set_write_timeout(Some(IO_POLL)))
                .map_err(|e| format!("data connection: {e}"))?;
            let id = if i == 0 { 1 } else { i as u32 + 2 };
            streams.push(Stream::new(id, i >= to_receive, sock));
        }

        let wcfg = WorkerCfg {
            transport,
            len,
            rate: p.bandwidth,
            zerocopy: p.zerocopy && transport == Transport::Tcp,
            udp64: p.udp_counters_64bit,
        };
        proto::write_state(&mut ctrl, State::TestStart).map_err(io_err)?;
        let mut run = Running::start(streams, wcfg, Some(Duration::from_secs(1)))
            .map_err(|e| format!("cannot start stream threads: {e}"))?;
        self.started = true;
        proto::write_state(&mut ctrl, State::TestRunning).map_err(io_err)?;

        let limit = match (p.time, self.cfg.max_duration) {
            (0, Some(m)) => m,
            (0, None) => Duration::from_secs(MAX_TIME),
            (t, _) => Duration::from_secs(t),
        };
        let deadline = run.start + limit + GRACE;
        loop {
            let now = Instant::now();
            run.tick_if_due(now);
            if self.cancel.is_cancelled() {
                let _ = proto::write_state(&mut ctrl, State::ServerTerminate);
                return Err("cancelled".into());
            }
            if now >= deadline {
                let _ = proto::write_state(&mut ctrl, State::ServerTerminate);
                return Err(format!("test from {peer} ran past its time; aborted"));
            }
            if let Some(e) = run.first_error() {
                let _ = proto::write_state(&mut ctrl, State::ServerTerminate);
                return Err(e);
            }
            let wait = run
                .next_tick()
                .map_or(Duration::from_millis(100), |t| {
                    t.saturating_duration_since(now)
                })
                .min(Duration::from_millis(100));
            if !sys::wait_readable(ctrl.as_raw_fd(), wait) {
                continue;
            }
            let b = proto::read_state_byte(&mut ctrl).map_err(|e| match e {
                CtrlError::Closed => {
                    format!("{peer} closed the control connection during the test")
                }
                e => format!("control connection: {e}"),
            })?;
            match State::from_byte(b) {
                Some(State::TestEnd) => break,
                Some(State::TestStart) | Some(State::TestRunning) => {}
                Some(State::ClientTerminate) => return Err(format!("{peer} terminated the test")),
                _ => {
                    return Err(format!(
                        "unexpected control message {} from {peer}",
                        b as i8
                    ));
                }
            }
        }

        // TEST_END: stop sending (the client reads up to end of stream),
        // exchange results, reading what the client sent until we have it all.
        let test_end = Instant::now();
        run.stop_senders();
        run.shutdown_senders();
        run.mark_test_end(test_end);
        proto::write_state(&mut ctrl, State::ExchangeResults).map_err(io_err)?;
        let peer_results = match proto::read_json(&mut ctrl, proto::MAX_RESULTS_LEN)
            .map_err(|e| e.to_string())
            .and_then(|v| Results::from_json(&v).map_err(|e| e.to_string()))
        {
            Ok(r) => r,
            Err(e) => {
                let why = format!("bad results from {peer}: {e}");
                return Err(self.refuse(&mut ctrl, ierr::RECV_RESULTS, 0, why));
            }
        };
        let sent: HashMap<u32, (u64, u64)> = peer_results
            .streams
            .iter()
            .map(|s| (s.id, (s.bytes, s.packets)))
            .collect();
        let quiet = match transport {
            Transport::Tcp => Duration::from_millis(250),
            Transport::Udp => Duration::from_millis(100),
        };
        drain_receivers(&run, transport, RECV_DRAIN, quiet, |s| {
            match sent.get(&s.id) {
                Some(&(bytes, packets)) => match transport {
                    Transport::Tcp => s.bytes() >= bytes,
                    Transport::Udp => s.max_seq() >= packets,
                },
                None => true,
            }
        });
        run.stop_receivers();
        let (local, cpu, test_len) = run.finish();
        let ours = run.results(&local, cpu);
        proto::write_json(&mut ctrl, &ours.to_json()).map_err(io_err)?;
        // Every stream is in; the next client may queue while we wait for
        // IPERF_DONE, and is served as soon as this session returns.
        self.release();
        proto::write_state(&mut ctrl, State::DisplayResults).map_err(io_err)?;
        // The client answers IPERF_DONE; it does not change the outcome.
        let _ = ctrl.set_read_timeout(Some(DONE_TIMEOUT));
        let _ = proto::read_state_byte(&mut ctrl);

        let remote = stream::remote_stats(&run.streams, &peer_results, transport, len);
        Ok(TestOutcome {
            local,
            remote,
            intervals: std::mem::take(&mut run.intervals),
            local_cpu: CpuUtil {
                total: cpu.0,
                user: cpu.1,
                system: cpu.2,
            },
            remote_cpu: Some(CpuUtil {
                total: peer_results.cpu_util_total,
                user: peer_results.cpu_util_user,
                system: peer_results.cpu_util_system,
            }),
            protocol: Protocol::from_transport(transport),
            reverse: p.reverse,
            bidir: p.bidirectional,
            length: len,
            duration: test_len,
            data_mss: run.streams.iter().find_map(|s| s.tcp_maxseg()),
        })
    }

    /// Collects `total` TCP data connections (cookie already checked by the
    /// acceptor), in the order they were accepted.
    fn accept_tcp(
        &self,
        rx: &Receiver<(u64, TcpStream)>,
        total: usize,
    ) -> Result<Vec<Sock>, String> {
        let deadline = Instant::now() + STREAMS_TIMEOUT;
        let mut got: Vec<(u64, TcpStream)> = Vec::with_capacity(total);
        while got.len() < total {
            if self.cancel.is_cancelled() {
                return Err("cancelled".into());
            }
            let now = Instant::now();
            if now >= deadline {
                return Err(format!(
                    "only {} of {total} data connections arrived within {:?}",
                    got.len(),
                    STREAMS_TIMEOUT
                ));
            }
            match rx.recv_timeout((deadline - now).min(Duration::from_millis(100))) {
                Ok(c) => got.push(c),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return Err("acceptor stopped".into()),
            }
        }
        got.sort_by_key(|(seq, _)| *seq);
        Ok(got.into_iter().map(|(_, s)| Sock::Tcp(s)).collect())
    }

    /// Collects `total` UDP streams: each starts with a connect datagram on
    /// the server port; we connect a socket to its sender, bind a fresh one
    /// for the next stream, and reply.
    fn accept_udp(
        &self,
        mut listener: UdpSocket,
        peer: SocketAddr,
        total: usize,
    ) -> Result<Vec<Sock>, String> {
        let deadline = Instant::now() + STREAMS_TIMEOUT;
        let mut out = Vec::with_capacity(total);
        let mut buf = [0u8; 64];
        let err = |e: io::Error| format!("UDP stream: {e}");
        while out.len() < total {
            if self.cancel.is_cancelled() {
                return Err("cancelled".into());
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "only {} of {total} UDP streams arrived within {:?}",
                    out.len(),
                    STREAMS_TIMEOUT
                ));
            }
            listener.set_read_timeout(Some(IO_POLL)).map_err(err)?;
            let (n, from) = match listener.recv_from(&mut buf) {
                Ok(r) => r,
                Err(e) if proto::is_timeout(&e) || e.kind() == io::ErrorKind::ConnectionRefused => {
                    continue;
                }
                Err(e) => return Err(err(e)),
            };
            // Only the client that holds the control connection may open streams.
            if !proto::is_udp_connect(&buf[..n])
                || from.ip().to_canonical() != peer.ip().to_canonical()
            {
                continue;
            }
            listener.connect(from).map_err(err)?;
            let next = bind_udp(self.local).map_err(err)?;
            listener.set_write_timeout(Some(IO_POLL)).map_err(err)?;
            listener.send(&proto::UDP_CONNECT_REPLY).map_err(err)?;
            out.push(Sock::Udp(std::mem::replace(&mut listener, next)));
        }
        Ok(out)
    }
}
