//! The client side of a test.

use nodebench_core::config::Config;
use std::io::{self, Write};
use std::net::{IpAddr, SocketAddr, TcpStream, ToSocketAddrs, UdpSocket};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use nodebench_core::bench::Cancel;
use socket2::{Domain, Protocol as SockProto, SockAddr, Socket, Type};

use super::proto::{self, CtrlError, Params, Results, State, Transport};
use super::stream::{self, Running, Sock, Stream, WorkerCfg};
use super::{ClientConfig, CpuUtil, Protocol, TestOutcome, fmt_secs, sys};

/// Timeout for control messages once the test is set up.
const CTRL_TIMEOUT: Duration = Duration::from_secs(10);
/// How long we wait for the server's answer after TEST_END (it may read
/// in-flight data first).
const END_TIMEOUT: Duration = Duration::from_secs(15);
/// Data-socket I/O timeout (workers poll their stop flags this often).
const IO_POLL: Duration = Duration::from_millis(100);
/// Bound on waiting for the send queues to empty at the end.
const SEND_DRAIN: Duration = Duration::from_secs(2);
/// Time the receiver gets to read what is queued once it was acknowledged.
const SEND_SETTLE: Duration = Duration::from_millis(50);
/// Bound on reading in-flight data after the end.
const RECV_DRAIN: Duration = Duration::from_secs(3);

fn host_port(host: &str, port: u16) -> String {
    if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}

fn resolve(host: &str, port: u16) -> Result<Vec<SocketAddr>, String> {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = bare.parse::<IpAddr>() {
        return Ok(vec![SocketAddr::new(ip, port)]);
    }
    let addrs: Vec<SocketAddr> = (bare, port)
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {bare}: {e}"))?
        .collect();
    if addrs.is_empty() {
        return Err(format!("cannot resolve {bare}: no addresses"));
    }
    Ok(addrs)
}

fn connect_error(target: &str, e: &io::Error, timeout: Duration) -> String {
    match e.kind() {
        io::ErrorKind::ConnectionRefused => {
            format!("cannot connect to {target}: connection refused")
        }
        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock => {
            format!(
                "cannot connect to {target}: timed out after {}",
                fmt_secs(timeout)
            )
        }
        _ => format!("cannot connect to {target}: {e}"),
    }
}

fn tcp_socket(addr: SocketAddr, window: Option<u32>, mss: Option<u32>) -> io::Result<Socket> {
    let s = Socket::new(
        Domain::for_address(addr),
        Type::STREAM,
        Some(SockProto::TCP),
    )?;
    if let Some(m) = mss {
        sys::set_tcp_maxseg(s.as_raw_fd(), m)?;
    }
    if let Some(w) = window {
        s.set_send_buffer_size(w as usize)?;
        s.set_recv_buffer_size(w as usize)?;
    }
    Ok(s)
}

/// Reads the next state byte, turning the server's refusals into messages.
fn read_state(ctrl: &mut TcpStream, phase: &str, params_sent: bool) -> Result<State, String> {
    let b = proto::read_state_byte(ctrl).map_err(|e| match e {
        CtrlError::Closed => format!("the server closed the control connection ({phase})"),
        e => format!("control connection: {e} ({phase})"),
    })?;
    match State::from_byte(b) {
        Some(State::AccessDenied) if params_sent => {
            Err("server denied access: missing or wrong token (--token)".into())
        }
        Some(State::AccessDenied) => {
            Err("server busy: it is running another test; try again later".into())
        }
        Some(State::ServerError) => {
            let (ie, errno) =
                proto::read_server_error(ctrl).map_err(|e| format!("server error, then: {e}"))?;
            let mut msg = format!("server refused the test: {}", proto::ierr_message(ie));
            if errno != 0 {
                msg.push_str(&format!(" ({})", io::Error::from_raw_os_error(errno)));
            }
            Err(msg)
        }
        Some(State::ServerTerminate) => Err("the server terminated the test".into()),
        Some(s) => Ok(s),
        None => Err(format!("unknown control message {} ({phase})", b as i8)),
    }
}

fn expect_state(
    ctrl: &mut TcpStream,
    want: State,
    phase: &str,
    params_sent: bool,
) -> Result<(), String> {
    let s = read_state(ctrl, phase, params_sent)?;
    if s == want {
        Ok(())
    } else {
        Err(format!(
            "unexpected control message {:?} ({phase}; expected {want:?})",
            s
        ))
    }
}

/// Creates the data streams in iperf3's order: for bidirectional tests the
/// sending streams first, then the receiving ones; ids 1, 3, 4, 5, ...
/// Also returns the first TCP stream's `TCP_MAXSEG` once connected.
fn create_streams(
    cfg: &ClientConfig,
    server: SocketAddr,
    cookie: &[u8; proto::COOKIE_SIZE],
) -> Result<(Vec<Stream>, Option<usize>), String> {
    let mut data_mss = None;
    let n = cfg.parallel as usize;
    let roles: Vec<bool> = if cfg.bidir {
        std::iter::repeat_n(true, n)
            .chain(std::iter::repeat_n(false, n))
            .collect()
    } else {
        vec![!cfg.reverse; n]
    };
    let target = host_port(&server.ip().to_string(), server.port());
    let mut streams = Vec::with_capacity(roles.len());
    for (i, &sender) in roles.iter().enumerate() {
        let id = if i == 0 { 1 } else { i as u32 + 2 };
        let sock = match cfg.protocol {
            Protocol::Tcp => {
                let s = tcp_socket(server, cfg.window, cfg.mss)
                    .map_err(|e| format!("data connection: {e}"))?;
                s.connect_timeout(&SockAddr::from(server), cfg.connect_timeout)
                    .map_err(|e| connect_error(&target, &e, cfg.connect_timeout))?;
                let mut t: TcpStream = s.into();
                data_mss = data_mss.or_else(|| sys::tcp_maxseg(t.as_raw_fd()));
                t.set_write_timeout(Some(cfg.connect_timeout))
                    .and_then(|_| t.write_all(cookie))
                    .map_err(|e| format!("data connection {id}: cannot send cookie: {e}"))?;
                t.set_read_timeout(Some(IO_POLL))
                    .and_then(|_| t.set_write_timeout(Some(IO_POLL)))
                    .map_err(|e| format!("data connection {id}: {e}"))?;
                Sock::Tcp(t)
            }
            Protocol::Udp => Sock::Udp(udp_connect(cfg, server, id)?),
        };
        streams.push(Stream::new(id, sender, sock));
    }
    Ok((streams, data_mss))
}

/// Opens a UDP stream: connect datagram, then wait for the server's reply.
fn udp_connect(cfg: &ClientConfig, server: SocketAddr, id: u32) -> Result<UdpSocket, String> {
    let err = |e: io::Error| format!("UDP stream {id}: {e}");
    let s = Socket::new(
        Domain::for_address(server),
        Type::DGRAM,
        Some(SockProto::UDP),
    )
    .map_err(err)?;
    if let Some(w) = cfg.window {
        s.set_send_buffer_size(w as usize).map_err(err)?;
        s.set_recv_buffer_size(w as usize).map_err(err)?;
    }
    let any: SocketAddr = match server {
        SocketAddr::V4(_) => SocketAddr::from(([0, 0, 0, 0], 0)),
        SocketAddr::V6(_) => SocketAddr::from(([0u16; 8], 0)),
    };
    s.bind(&any.into()).map_err(err)?;
    s.connect(&server.into()).map_err(err)?;
    let u: UdpSocket = s.into();
    u.set_read_timeout(Some(IO_POLL)).map_err(err)?;
    u.send(&proto::UDP_CONNECT_MSG).map_err(err)?;
    let deadline = Instant::now() + cfg.connect_timeout;
    let mut buf = [0u8; 65536];
    loop {
        match u.recv(&mut buf) {
            Ok(n) if proto::is_udp_reply(&buf[..n]) => break,
            Ok(_) => {} // early data of a reverse test; the reply follows
            Err(e) if proto::is_timeout(&e) => {}
            Err(e) if e.kind() == io::ErrorKind::ConnectionRefused => {
                return Err(format!(
                    "UDP stream {id}: the server's UDP port {} is closed (connection refused)",
                    server.port()
                ));
            }
            Err(e) => return Err(err(e)),
        }
        if Instant::now() >= deadline {
            return Err(format!(
                "UDP stream {id}: no reply from the server within {}",
                fmt_secs(cfg.connect_timeout)
            ));
        }
    }
    u.set_write_timeout(Some(IO_POLL)).map_err(err)?;
    Ok(u)
}

/// Waits for in-flight data of the receiving streams: until each TCP stream
/// reached end of stream, no bytes arrived for `quiet`, or `bound` passed.
pub(crate) fn drain_receivers(
    run: &Running,
    transport: Transport,
    bound: Duration,
    quiet: Duration,
    done: impl Fn(&Stream) -> bool,
) {
    let start = Instant::now();
    let mut last_total = u64::MAX;
    let mut last_change = start;
    loop {
        let rx: Vec<&Stream> = run.streams.iter().filter(|s| !s.sender).collect();
        if rx.is_empty()
            || rx
                .iter()
                .all(|s| s.exited() || done(s) || (transport == Transport::Tcp && s.eof()))
        {
            return;
        }
        let now = Instant::now();
        let total: u64 = rx.iter().map(|s| s.bytes()).sum();
        if total != last_total {
            last_total = total;
            last_change = now;
        }
        if now.duration_since(last_change) >= quiet || now.duration_since(start) >= bound {
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

pub(crate) fn run(cfg: &ClientConfig, cancel: &Cancel) -> Result<TestOutcome, String> {
    cfg.validate().map_err(|e| e.to_string())?;
    let target = host_port(
        cfg.host.trim_start_matches('[').trim_end_matches(']'),
        cfg.port,
    );
    let addrs = resolve(&cfg.host, cfg.port)?;
    let mut last_err = None;
    let mut ctrl = None;
    for a in &addrs {
        match TcpStream::connect_timeout(a, cfg.connect_timeout) {
            Ok(s) => {
                ctrl = Some((s, *a));
                break;
            }
            Err(e) => last_err = Some(e),
        }
    }
    let (mut ctrl, server) = match (ctrl, last_err) {
        (Some(c), _) => c,
        (None, Some(e)) => return Err(connect_error(&target, &e, cfg.connect_timeout)),
        (None, None) => return Err(format!("cannot connect to {target}: no address")),
    };
    let ctrl_err = |e: io::Error| format!("control connection to {target}: {e}");
    ctrl.set_nodelay(true).map_err(ctrl_err)?;
    // The first answer is due at once: a silent peer is not an iperf3
    // server (or is stuck), and gets the connect timeout.
    ctrl.set_read_timeout(Some(cfg.connect_timeout))
        .map_err(ctrl_err)?;
    ctrl.set_write_timeout(Some(cfg.connect_timeout))
        .map_err(ctrl_err)?;
    let cookie = proto::make_cookie();
    ctrl.write_all(&cookie).map_err(ctrl_err)?;
    match proto::read_state_byte(&mut ctrl) {
        Err(CtrlError::Io(e)) if proto::is_timeout(&e) => {
            return Err(format!(
                "no answer from {target} within {} (not an iperf3 server?)",
                fmt_secs(cfg.connect_timeout)
            ));
        }
        Err(CtrlError::Closed) => {
            return Err(format!(
                "{target} closed the connection (not an iperf3 server?)"
            ));
        }
        Err(e) => return Err(format!("control connection to {target}: {e}")),
        Ok(b) => match State::from_byte(b) {
            Some(State::ParamExchange) => {}
            Some(State::AccessDenied) => {
                return Err("server busy: it is running another test; try again later".into());
            }
            _ => {
                return Err(format!(
                    "{target} answered {} instead of an iperf3 greeting",
                    b as i8
                ));
            }
        },
    }
    let setup_timeout = cfg.connect_timeout.max(CTRL_TIMEOUT);
    ctrl.set_read_timeout(Some(setup_timeout))
        .map_err(ctrl_err)?;
    ctrl.set_write_timeout(Some(setup_timeout))
        .map_err(ctrl_err)?;

    let transport = cfg.protocol.transport();
    let length = match (cfg.length, cfg.protocol) {
        (Some(l), _) => l,
        (None, Protocol::Tcp) => proto::DEFAULT_TCP_LEN,
        (None, Protocol::Udp) => sys::tcp_maxseg(ctrl.as_raw_fd())
            .filter(|&m| (proto::UdpHeader::len(true)..=proto::MAX_UDP_LEN).contains(&m))
            .unwrap_or(proto::DEFAULT_UDP_LEN),
    };
    let rate = match (cfg.bitrate, cfg.protocol) {
        (Some(r), _) => r,
        (None, Protocol::Tcp) => 0,
        (None, Protocol::Udp) => 1_000_000,
    };
    let params = Params {
        transport: Some(transport),
        omit: 0,
        time: cfg.duration.as_secs_f64().ceil().max(1.0) as u64,
        num: 0,
        blockcount: 0,
        parallel: cfg.parallel,
        reverse: cfg.reverse,
        bidirectional: cfg.bidir,
        window: cfg.window.map(u64::from),
        len: Some(length as u64),
        bandwidth: rate,
        pacing_timer: Some(1000),
        nodelay: false,
        mss: cfg.mss.map(u64::from),
        congestion: None,
        udp_counters_64bit: cfg.protocol == Protocol::Udp,
        zerocopy: cfg.zerocopy,
        token: cfg.token.clone(),
        client_version: Some(concat!("nodebench ", env!("CARGO_PKG_VERSION")).into()),
    };
    proto::write_json(&mut ctrl, &params.to_json()).map_err(ctrl_err)?;
    expect_state(
        &mut ctrl,
        State::CreateStreams,
        "after sending the parameters",
        true,
    )?;
    if cancel.is_cancelled() {
        let _ = proto::write_state(&mut ctrl, State::ClientTerminate);
        return Err("cancelled".into());
    }

    let (streams, data_mss) = create_streams(cfg, server, &cookie)?;
    expect_state(
        &mut ctrl,
        State::TestStart,
        "waiting for the test to start",
        true,
    )?;
    expect_state(
        &mut ctrl,
        State::TestRunning,
        "waiting for the test to start",
        true,
    )?;

    let wcfg = WorkerCfg {
        transport,
        len: length,
        rate,
        zerocopy: cfg.zerocopy && cfg.protocol == Protocol::Tcp,
        udp64: params.udp_counters_64bit,
    };
    let interval = Some(cfg.interval.unwrap_or(Duration::from_secs(1)));
    let mut run = Running::start(streams, wcfg, interval)
        .map_err(|e| format!("cannot start stream threads: {e}"))?;
    let end_at = run.start + cfg.duration;

    // Test running: watch the control connection, report intervals.
    loop {
        let now = Instant::now();
        if now >= end_at || cancel.is_cancelled() {
            break;
        }
        run.tick_if_due(now);
        if let Some(e) = run.first_error() {
            let _ = proto::write_state(&mut ctrl, State::ClientTerminate);
            return Err(e);
        }
        let next = run.next_tick().map_or(end_at, |t| t.min(end_at));
        let wait = next
            .saturating_duration_since(Instant::now())
            .min(Duration::from_millis(100));
        if sys::wait_readable(ctrl.as_raw_fd(), wait) {
            // The server only speaks now to stop the test.
            let s = read_state(&mut ctrl, "during the test", true)?;
            return Err(format!("unexpected control message {s:?} during the test"));
        }
    }

    // End: stop sending, let the data land, then TEST_END.
    if run.has_senders() {
        run.stop_senders();
        run.drain_send_queues(SEND_DRAIN, SEND_SETTLE);
    }
    run.mark_test_end(Instant::now());
    proto::write_state(&mut ctrl, State::TestEnd).map_err(ctrl_err)?;
    ctrl.set_read_timeout(Some(END_TIMEOUT)).map_err(ctrl_err)?;
    expect_state(
        &mut ctrl,
        State::ExchangeResults,
        "waiting for the results",
        true,
    )?;
    ctrl.set_read_timeout(Some(CTRL_TIMEOUT))
        .map_err(ctrl_err)?;
    let quiet = match transport {
        Transport::Tcp => Duration::from_millis(250),
        Transport::Udp => Duration::from_millis(50),
    };
    drain_receivers(&run, transport, RECV_DRAIN, quiet, |_| false);
    run.stop_receivers();
    let (local, cpu, test_len) = run.finish();
    let ours = run.results(&local, cpu);
    proto::write_json(&mut ctrl, &ours.to_json()).map_err(ctrl_err)?;
    let peer_json = proto::read_json(&mut ctrl, proto::MAX_RESULTS_LEN)
        .map_err(|e| format!("reading the server's results: {e}"))?;
    let peer = Results::from_json(&peer_json)
        .map_err(|e| format!("the server's results are malformed: {e}"))?;
    expect_state(&mut ctrl, State::DisplayResults, "after the results", true)?;
    let _ = proto::write_state(&mut ctrl, State::IperfDone);

    let remote = stream::remote_stats(&run.streams, &peer, transport, length);
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
            total: peer.cpu_util_total,
            user: peer.cpu_util_user,
            system: peer.cpu_util_system,
        }),
        protocol: cfg.protocol,
        reverse: cfg.reverse,
        bidir: cfg.bidir,
        length,
        duration: test_len,
        data_mss,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_written_like_urls() {
        assert_eq!(host_port("127.0.0.1", 5201), "127.0.0.1:5201");
        assert_eq!(host_port("::1", 5201), "[::1]:5201");
    }

    #[test]
    fn bad_configs_name_the_flag() {
        let mut c = ClientConfig::new("127.0.0.1");
        c.parallel = 0;
        assert!(c.validate().unwrap_err().to_string().contains("--parallel"));
        c.parallel = 1;
        c.reverse = true;
        c.bidir = true;
        assert!(c.validate().unwrap_err().to_string().contains("--bidir"));
        c.bidir = false;
        c.protocol = Protocol::Udp;
        c.length = Some(70_000);
        assert!(c.validate().unwrap_err().to_string().contains("--length"));
    }

    #[test]
    fn resolves_literals_without_dns() {
        assert_eq!(
            resolve("[::1]", 1).unwrap(),
            vec!["[::1]:1".parse::<SocketAddr>().unwrap()]
        );
        assert_eq!(
            resolve("127.0.0.1", 2).unwrap(),
            vec!["127.0.0.1:2".parse::<SocketAddr>().unwrap()]
        );
    }
}
