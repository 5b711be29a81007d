//! `nodebench net pingpong HOST`: the TCP and UDP ping-pong of the CS 553 benchmarking report.
//! Client threads each send a message of the given size and wait for the
//! same bytes back, as fast as they can, for a fixed time per cell (protocol
//! x message size x thread count); every round trip is timed into an
//! HdrHistogram. The echo side runs inside `nodebench net serve` (TCP and
//! UDP on the iperf3 port + 1).
//!
//! TCP: a connection starts with the message size as a 4-byte big-endian
//! number, then carries messages of exactly that size each way. TCP_NODELAY
//! is set on both ends (a ping-pong measures latency, not batching). UDP:
//! each datagram is echoed as is; a reply that does not come within the
//! receive timeout counts as lost.
//!
//! Placement decides the figure on loopback: a round trip between two
//! threads on one CPU is a context switch, between two CPUs it is a
//! wake-up of the other CPU, which in a VM whose vCPU sleeps costs tens of
//! microseconds. With `--loopback` the client threads and the in-process
//! echo server's threads are pinned apart (clients on every other allowed
//! CPU, the echo on the rest; [`Placement`]) so the figure is the same
//! from run to run and matches `net serve` and `net pingpong` as two
//! processes on two CPUs. `--cpus` pins the client threads where told,
//! `net serve --cpus` the echo threads; `--busy-poll` makes the clients
//! spin on non-blocking receives instead of sleeping in them.

use std::io::{Read, Write};
use std::net::{IpAddr, SocketAddr, TcpStream, UdpSocket};
use std::sync::Barrier;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram as Hdr;
use nodebench_core::affinity;
use nodebench_core::bench::{BenchError, Benchmark, Cancel, Context};
use nodebench_core::config::{Choice, Config};
use nodebench_core::latency;
use nodebench_core::names::net as names;
use nodebench_core::names::{labels, latency as latency_names};
use nodebench_core::{BenchResult, Better, Histogram, Metric, Unit};

use crate::echo::{MAX_TCP_MESSAGE, nth_cpu, with_echo_server};

/// Largest UDP payload over IPv4.
pub const MAX_UDP_PAYLOAD: usize = 65_507;

nodebench_core::choice! {
    /// TCP or UDP.
    pub enum Proto {
        /// A TCP connection per thread.
        Tcp => names::protocol::TCP,
        /// A UDP socket per thread.
        Udp => names::protocol::UDP,
    }
}

/// Everything `net pingpong` runs with.
#[derive(Debug, Clone)]
pub struct PingpongConfig {
    /// The echo server's address (HOST and the iperf3 port + 1).
    pub server: SocketAddr,
    /// Protocols to run.
    pub protocols: Vec<Proto>,
    /// Message sizes in bytes (UDP sizes above 65507 are clamped to it).
    pub sizes: Vec<usize>,
    /// Client thread counts.
    pub threads: Vec<usize>,
    /// Time per cell.
    pub duration: Duration,
    /// How long to wait for a reply (connect and UDP receive).
    pub timeout: Duration,
    /// Start the echo server in this process on an ephemeral loopback port
    /// for this run (`--loopback`); `server` is then its address.
    pub loopback: bool,
    /// CPUs the client threads are pinned to, thread `i` on `cpus[i % len]`
    /// (`--cpus`); `None`: unpinned, or with `loopback` every other allowed
    /// CPU ([`Placement`]).
    pub cpus: Option<Vec<usize>>,
    /// Spin on non-blocking receives instead of sleeping in blocking ones
    /// (`--busy-poll`): the client's CPU never idles, so a reply needs no
    /// wake-up; costs a CPU per client thread.
    pub busy_poll: bool,
}

impl Default for PingpongConfig {
    /// Both protocols, 1 B to 64 KiB messages, 1 to 8 threads, 1 s a cell,
    /// against the echo server of `nodebench net serve` on this host.
    fn default() -> Self {
        PingpongConfig {
            server: SocketAddr::from(([127, 0, 0, 1], DEFAULT_ECHO_PORT)),
            protocols: Proto::ALL.to_vec(),
            sizes: vec![1, 64, 1024, 16 << 10, 64 << 10],
            threads: vec![1, 2, 4, 8],
            duration: Duration::from_secs(1),
            timeout: Duration::from_secs(2),
            loopback: false,
            cpus: None,
            busy_poll: false,
        }
    }
}

/// The echo server's default port: the iperf3 port (5201) plus one.
pub const DEFAULT_ECHO_PORT: u16 = 5202;

impl Config for PingpongConfig {
    fn validate(&self) -> Result<(), BenchError> {
        if self.protocols.is_empty() {
            return Err(BenchError::Invalid(format!(
                "--protocols: expected a list of {}",
                Proto::accepted()
            )));
        }
        if self.sizes.is_empty()
            || self.sizes.contains(&0)
            || self.sizes.iter().any(|&s| s > MAX_TCP_MESSAGE)
        {
            return Err(BenchError::Invalid(format!(
                "--sizes: expected message sizes from 1 B to {} like 1,64,1KiB,64KiB",
                MAX_TCP_MESSAGE
            )));
        }
        if self.threads.is_empty() || self.threads.contains(&0) {
            return Err(BenchError::Invalid(
                "--threads: expected a list of positive thread counts like 1,2,4,8".into(),
            ));
        }
        if self.cpus.as_ref().is_some_and(|c| c.is_empty()) {
            return Err(BenchError::Invalid(
                "--cpus: expected a list of CPUs like 0,2-3".into(),
            ));
        }
        if self.duration.is_zero() || self.timeout.is_zero() {
            return Err(BenchError::Invalid(
                "--duration: expected a positive duration like 1s".into(),
            ));
        }
        Ok(())
    }
}

/// Which CPUs the client threads and the echo server's threads are pinned
/// to; an empty list leaves those threads unpinned.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Placement {
    /// Client thread `i` runs on `client[i % len]`.
    pub client: Vec<usize>,
    /// The echo server's TCP connection `j` (in accept order) runs on
    /// `echo[j % len]`, its UDP thread on `echo[0]`.
    pub echo: Vec<usize>,
}

impl Placement {
    /// The placement of a run: the clients on `cpus` when given. With an
    /// in-process echo server (`loopback`) the echo goes on the `allowed`
    /// CPUs the clients do not use, and without `cpus` the clients take
    /// every other allowed CPU (the second, fourth, ...), so a client never
    /// shares its CPU with the thread answering it where there are two.
    pub fn new(cpus: Option<&[usize]>, loopback: bool, allowed: &[usize]) -> Placement {
        let client: Vec<usize> = match cpus {
            Some(c) => c.to_vec(),
            None if loopback => allowed.iter().skip(1).step_by(2).copied().collect(),
            None => Vec::new(),
        };
        if !loopback {
            return Placement {
                client,
                echo: Vec::new(),
            };
        }
        let mut echo: Vec<usize> = allowed
            .iter()
            .filter(|c| !client.contains(c))
            .copied()
            .collect();
        if echo.is_empty() {
            // The clients hold every allowed CPU: each echo thread goes on
            // the next client CPU after its own.
            echo = client.clone();
            if !echo.is_empty() {
                echo.rotate_left(1);
            }
        }
        Placement { client, echo }
    }

    /// The CPU of client thread `i`, if pinned.
    pub fn client_cpu(&self, i: usize) -> Option<usize> {
        nth_cpu(&self.client, i)
    }

    /// The CPU of the echo server's `j`-th thread, if pinned.
    pub fn echo_cpu(&self, j: usize) -> Option<usize> {
        nth_cpu(&self.echo, j)
    }
}

/// A CPU list as a result parameter: `0,2`, or `none`.
fn cpu_param(cpus: &[usize]) -> String {
    if cpus.is_empty() {
        return "none".into();
    }
    cpus.iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// The `net.pingpong` benchmark: one result per protocol.
#[derive(Debug, Clone)]
pub struct Pingpong {
    /// Its configuration.
    pub config: PingpongConfig,
}

/// What one client thread did in one cell.
struct ThreadOutcome {
    round_trips: u64,
    lost: u64,
    latency: Hdr<u64>,
}

impl ThreadOutcome {
    fn new() -> ThreadOutcome {
        ThreadOutcome {
            round_trips: 0,
            lost: 0,
            latency: latency::histogram(),
        }
    }
}

/// What one client thread runs in a cell.
#[derive(Debug, Clone, Copy)]
struct ClientSpec {
    server: SocketAddr,
    size: usize,
    duration: Duration,
    timeout: Duration,
    /// Spin on non-blocking sockets (`--busy-poll`).
    busy_poll: bool,
    /// The CPU this thread is pinned to, if any.
    cpu: Option<usize>,
}

fn would_block(e: &std::io::Error) -> bool {
    matches!(
        e.kind(),
        std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
    )
}

/// Spins until `op` stops saying "would block", giving up after `timeout`
/// with a `TimedOut` error; other errors are returned as they come.
fn spin<T>(timeout: Duration, mut op: impl FnMut() -> std::io::Result<T>) -> std::io::Result<T> {
    let mut deadline = None;
    loop {
        match op() {
            Err(e) if would_block(&e) || e.kind() == std::io::ErrorKind::Interrupted => {
                let d = *deadline.get_or_insert_with(|| Instant::now() + timeout);
                if Instant::now() >= d {
                    return Err(std::io::ErrorKind::TimedOut.into());
                }
                std::hint::spin_loop();
            }
            other => return other,
        }
    }
}

/// One message out and its echo back on a TCP connection, blocking or
/// spinning on the non-blocking socket.
fn tcp_round_trip(
    s: &mut TcpStream,
    msg: &[u8],
    back: &mut [u8],
    spec: &ClientSpec,
) -> Result<(), String> {
    let server = spec.server;
    if !spec.busy_poll {
        s.write_all(msg)
            .map_err(|e| format!("pingpong {server}: send: {e}"))?;
        return s
            .read_exact(back)
            .map_err(|e| format!("pingpong {server}: receive: {e}"));
    }
    let mut sent = 0;
    while sent < msg.len() {
        sent += spin(spec.timeout, || s.write(&msg[sent..]))
            .map_err(|e| format!("pingpong {server}: send: {e}"))?;
    }
    let mut got = 0;
    while got < back.len() {
        match spin(spec.timeout, || s.read(&mut back[got..])) {
            Ok(0) => {
                return Err(format!(
                    "pingpong {server}: the server closed the connection"
                ));
            }
            Ok(n) => got += n,
            Err(e) => return Err(format!("pingpong {server}: receive: {e}")),
        }
    }
    Ok(())
}

fn tcp_client(spec: ClientSpec, start: &Barrier, cancel: &Cancel) -> Result<ThreadOutcome, String> {
    let (server, size, timeout) = (spec.server, spec.size, spec.timeout);
    if let Some(cpu) = spec.cpu {
        affinity::pin_current_thread(cpu);
    }
    let connect = || -> Result<TcpStream, String> {
        let mut s = TcpStream::connect_timeout(&server, timeout).map_err(|e| {
            format!("cannot connect to {server} (pingpong echo, the iperf3 port + 1): {e}")
        })?;
        s.set_nodelay(true).map_err(|e| e.to_string())?;
        s.set_read_timeout(Some(timeout))
            .map_err(|e| e.to_string())?;
        s.write_all(&(size as u32).to_be_bytes())
            .map_err(|e| format!("pingpong {server}: {e}"))?;
        s.set_nonblocking(spec.busy_poll)
            .map_err(|e| e.to_string())?;
        Ok(s)
    };
    let setup = connect();
    // Every thread reaches the barrier, also after a failed setup, so the
    // others are not left waiting for it.
    start.wait();
    let mut s = setup?;
    let msg = vec![0x5Au8; size];
    let mut back = vec![0u8; size];
    let mut out = ThreadOutcome::new();
    let end = Instant::now() + spec.duration;
    while Instant::now() < end && !cancel.is_cancelled() {
        let t = Instant::now();
        tcp_round_trip(&mut s, &msg, &mut back, &spec)?;
        latency::record(&mut out.latency, t.elapsed());
        out.round_trips += 1;
    }
    Ok(out)
}

fn udp_client(spec: ClientSpec, start: &Barrier, cancel: &Cancel) -> Result<ThreadOutcome, String> {
    let (server, size, timeout) = (spec.server, spec.size, spec.timeout);
    if let Some(cpu) = spec.cpu {
        affinity::pin_current_thread(cpu);
    }
    let bind: SocketAddr = match server.ip() {
        IpAddr::V4(_) => "0.0.0.0:0".parse().map_err(|e| format!("{e}"))?,
        IpAddr::V6(_) => "[::]:0".parse().map_err(|e| format!("{e}"))?,
    };
    let open = || -> Result<UdpSocket, String> {
        let s = UdpSocket::bind(bind).map_err(|e| format!("udp bind: {e}"))?;
        s.connect(server)
            .map_err(|e| format!("cannot reach {server}: {e}"))?;
        s.set_read_timeout(Some(timeout))
            .map_err(|e| e.to_string())?;
        s.set_nonblocking(spec.busy_poll)
            .map_err(|e| e.to_string())?;
        Ok(s)
    };
    let setup = open();
    // As for TCP: wait for the others whatever the setup gave.
    start.wait();
    let s = setup?;
    let mut msg = vec![0x5Au8; size];
    let mut back = vec![0u8; size.max(8)];
    let mut out = ThreadOutcome::new();
    let end = Instant::now() + spec.duration;
    let mut seq: u64 = 0;
    // Blocking sockets wait in the kernel (the read timeout); busy-polled
    // ones spin on "would block" for as long.
    let recv = |back: &mut [u8]| {
        if spec.busy_poll {
            spin(timeout, || s.recv(back))
        } else {
            s.recv(back)
        }
    };
    while Instant::now() < end && !cancel.is_cancelled() {
        seq += 1;
        let stamp = seq.to_le_bytes();
        let n = size.min(8);
        msg[..n].copy_from_slice(&stamp[..n]);
        let t = Instant::now();
        let sent = if spec.busy_poll {
            spin(timeout, || s.send(&msg))
        } else {
            s.send(&msg)
        };
        sent.map_err(|e| format!("pingpong {server}: send: {e}"))?;
        loop {
            match recv(&mut back) {
                // A late reply to an earlier message is skipped (its stamp differs).
                Ok(got) if got == size && back[..n] == stamp[..n] => {
                    latency::record(&mut out.latency, t.elapsed());
                    out.round_trips += 1;
                    break;
                }
                Ok(_) => continue,
                Err(e) if would_block(&e) => {
                    out.lost += 1;
                    break;
                }
                Err(e) => {
                    return Err(format!(
                        "pingpong {server}: receive: {e} (is `nodebench net serve` running there?)"
                    ));
                }
            }
        }
    }
    Ok(out)
}

impl Benchmark for Pingpong {
    fn id(&self) -> &'static str {
        names::PINGPONG
    }

    fn validate(&self) -> Result<(), BenchError> {
        self.config.validate()
    }

    /// Runs every cell; with `loopback`, against the echo server started
    /// in this process for it.
    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        self.config.validate()?;
        let placement = Placement::new(
            self.config.cpus.as_deref(),
            self.config.loopback,
            &affinity::allowed_cpus(),
        );
        if !self.config.loopback {
            return self.measure(&self.config, &placement, ctx);
        }
        with_echo_server(placement.echo.clone(), |server| {
            let config = PingpongConfig {
                server,
                ..self.config.clone()
            };
            self.measure(&config, &placement, ctx)
        })
    }
}

impl Pingpong {
    /// Every cell against `c`'s echo server, one result per protocol.
    fn measure(
        &self,
        c: &PingpongConfig,
        placement: &Placement,
        ctx: &mut Context<'_>,
    ) -> Result<(), BenchError> {
        ctx.progress.start(
            "net pingpong",
            (c.protocols.len() * c.sizes.len() * c.threads.len()) as u64,
        );
        for &proto in &c.protocols {
            if ctx.cancel.is_cancelled() {
                break;
            }
            let mut result = BenchResult::new(self.id());
            result.set_param(names::param::SERVER, c.server.to_string());
            if c.loopback {
                result.set_param(names::param::IN_PROCESS_SERVER, true);
                result.set_param(names::param::ECHO_CPUS, cpu_param(&placement.echo));
            }
            result.set_param(names::param::CLIENT_CPUS, cpu_param(&placement.client));
            result.set_param(names::param::BUSY_POLL, c.busy_poll);
            result.set_param(names::param::PROTOCOL, proto.as_str());
            result.set_param(names::param::DURATION_S, c.duration.as_secs_f64());
            'cells: for &size in &c.sizes {
                let size = if proto == Proto::Udp {
                    size.min(MAX_UDP_PAYLOAD)
                } else {
                    size
                };
                for &threads in &c.threads {
                    if ctx.cancel.is_cancelled() {
                        result.mark_cancelled();
                        break 'cells;
                    }
                    let start = Barrier::new(threads);
                    let t0 = Instant::now();
                    let cancel = ctx.cancel.clone();
                    let outcomes: Vec<Result<ThreadOutcome, String>> = std::thread::scope(|s| {
                        let hs: Vec<_> = (0..threads)
                            .map(|i| {
                                let (start, cancel) = (&start, &cancel);
                                let spec = ClientSpec {
                                    server: c.server,
                                    size,
                                    duration: c.duration,
                                    timeout: c.timeout,
                                    busy_poll: c.busy_poll,
                                    cpu: placement.client_cpu(i),
                                };
                                s.spawn(move || match proto {
                                    Proto::Tcp => tcp_client(spec, start, cancel),
                                    Proto::Udp => udp_client(spec, start, cancel),
                                })
                            })
                            .collect();
                        hs.into_iter()
                            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                            .collect()
                    });
                    let wall = t0.elapsed().as_secs_f64();
                    let mut hist = latency::histogram();
                    let (mut trips, mut lost) = (0u64, 0u64);
                    for o in outcomes {
                        match o {
                            Ok(o) => {
                                trips += o.round_trips;
                                lost += o.lost;
                                let _ = hist.add(&o.latency);
                            }
                            Err(e) => {
                                result.mark_failed(e);
                                break 'cells;
                            }
                        }
                    }
                    let m = |n: &str, v: f64, u: Unit, b: Better| {
                        Metric::new(n, v, u, b)
                            .label(names::label::PROTOCOL, proto.as_str())
                            .label(labels::SIZE, size)
                            .label(labels::THREADS, threads)
                    };
                    result.metrics.push(m(
                        names::metric::ROUND_TRIPS,
                        trips as f64 / wall.max(1e-9),
                        Unit::OpsPerSecond,
                        Better::Higher,
                    ));
                    for (name, q) in [
                        (latency_names::LATENCY_P50, 0.5),
                        (latency_names::LATENCY_P99, 0.99),
                        (latency_names::LATENCY_P999, 0.999),
                    ] {
                        result.metrics.push(m(
                            name,
                            hist.value_at_quantile(q) as f64 * 1e-9,
                            Unit::Seconds,
                            Better::Lower,
                        ));
                    }
                    result.metrics.push(m(
                        latency_names::LATENCY_MAX,
                        hist.max() as f64 * 1e-9,
                        Unit::Seconds,
                        Better::Lower,
                    ));
                    if proto == Proto::Udp {
                        result.metrics.push(m(
                            names::metric::LOST,
                            lost as f64,
                            Unit::Count,
                            Better::Lower,
                        ));
                    }
                    let labels = [
                        (names::label::PROTOCOL, proto.as_str().to_string()),
                        (labels::SIZE, size.to_string()),
                        (labels::THREADS, threads.to_string()),
                    ]
                    .into_iter()
                    .map(|(k, v)| (k.to_string(), v))
                    .collect();
                    result.histograms.push(Histogram::from_hdr(
                        names::metric::LATENCY,
                        Unit::Seconds,
                        1e9,
                        labels,
                        &hist,
                    ));
                    ctx.progress.advance(1);
                }
            }
            if !ctx.record(result)? {
                break;
            }
        }
        ctx.progress.finish();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::echo::EchoServer;
    use nodebench_core::ResultStatus;
    use nodebench_core::bench::collect;
    use nodebench_core::inventory::Inventory;
    use std::net::TcpListener;
    use std::sync::Arc;

    #[test]
    fn tcp_and_udp_round_trips_against_the_echo_server() {
        let server = EchoServer::bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let addr = server.local_addr().unwrap();
        let cancel = Cancel::new();
        std::thread::scope(|s| {
            let c2 = cancel.clone();
            s.spawn(move || server.serve(&c2));
            let cfg = PingpongConfig {
                server: addr,
                protocols: vec![Proto::Tcp, Proto::Udp],
                sizes: vec![1, 65_536],
                threads: vec![1, 2],
                duration: Duration::from_millis(100),
                timeout: Duration::from_secs(1),
                loopback: false,
                cpus: None,
                busy_poll: false,
            };
            let out = collect(
                &Pingpong { config: cfg },
                &Inventory::default(),
                Cancel::new(),
            );
            cancel.cancel();
            let out = out.unwrap();
            assert_eq!(out.len(), 2);
            for r in &out {
                assert_eq!(r.status, ResultStatus::Passed, "{:?}", r.error);
                let rates: Vec<&Metric> = r
                    .metrics
                    .iter()
                    .filter(|m| m.name == "round_trips")
                    .collect();
                assert_eq!(rates.len(), 4);
                assert!(rates.iter().all(|m| m.value > 10.0), "{rates:?}");
                assert_eq!(r.histograms.len(), 4);
            }
            // UDP sizes are clamped to the largest datagram.
            assert!(out[1].metrics.iter().any(|m| m.labels["size"] == "65507"));
        });
    }

    #[test]
    fn loopback_pins_clients_and_echo_apart() {
        // Two CPUs: the client on the second, the echo on the first.
        let p = Placement::new(None, true, &[0, 1]);
        assert_eq!((p.client.clone(), p.echo.clone()), (vec![1], vec![0]));
        assert_eq!((p.client_cpu(3), p.echo_cpu(3)), (Some(1), Some(0)));
        // Four: clients on every other one, the echo on the rest.
        let p = Placement::new(None, true, &[0, 1, 2, 3]);
        assert_eq!((p.client, p.echo), (vec![1, 3], vec![0, 2]));
        // Clients told where: the echo on what is left, or next to them.
        let p = Placement::new(Some(&[2]), true, &[0, 1, 2]);
        assert_eq!((p.client, p.echo), (vec![2], vec![0, 1]));
        let p = Placement::new(Some(&[1, 0]), true, &[0, 1]);
        assert_eq!((p.client, p.echo), (vec![1, 0], vec![0, 1]));
        // One CPU: everything on it.
        let p = Placement::new(None, true, &[5]);
        assert_eq!((p.client_cpu(0), p.echo_cpu(0)), (None, Some(5)));
        // A remote server: clients pinned only when told.
        assert_eq!(Placement::new(None, false, &[0, 1]), Placement::default());
        let p = Placement::new(Some(&[1]), false, &[0, 1]);
        assert_eq!((p.client_cpu(0), p.echo_cpu(0)), (Some(1), None));
    }

    #[test]
    fn busy_poll_and_pinned_clients_count_round_trips() {
        let cpu = affinity::allowed_cpus()[0];
        let cfg = PingpongConfig {
            protocols: vec![Proto::Tcp, Proto::Udp],
            sizes: vec![14, 65_536],
            threads: vec![1],
            duration: Duration::from_millis(100),
            timeout: Duration::from_secs(1),
            loopback: true,
            cpus: Some(vec![cpu]),
            busy_poll: true,
            ..PingpongConfig::default()
        };
        let out = collect(
            &Pingpong { config: cfg },
            &Inventory::default(),
            Cancel::new(),
        )
        .unwrap();
        assert_eq!(out.len(), 2);
        for r in &out {
            assert_eq!(r.status, ResultStatus::Passed, "{:?}", r.error);
            assert_eq!(r.parameters[names::param::BUSY_POLL].as_bool(), Some(true));
            let pinned = r.parameters[names::param::CLIENT_CPUS].as_str();
            assert_eq!(pinned, Some(cpu.to_string().as_str()));
            let trips: Vec<f64> = r
                .metrics
                .iter()
                .filter(|m| m.name == names::metric::ROUND_TRIPS)
                .map(|m| m.value)
                .collect();
            assert_eq!(trips.len(), 2);
            assert!(trips.iter().all(|&t| t > 10.0), "{trips:?}");
        }
        let lost = out[1]
            .metrics
            .iter()
            .filter(|m| m.name == names::metric::LOST)
            .map(|m| m.value)
            .sum::<f64>();
        assert_eq!(lost, 0.0);
    }

    #[test]
    fn a_client_that_cannot_connect_still_releases_the_others() {
        let closed = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let start = Arc::new(Barrier::new(2));
        let (tx, rx) = std::sync::mpsc::channel();
        let other = Arc::clone(&start);
        std::thread::spawn(move || {
            other.wait();
            let _ = tx.send(());
        });
        let t = Duration::from_millis(200);
        let spec = ClientSpec {
            server: closed,
            size: 1,
            duration: t,
            timeout: t,
            busy_poll: false,
            cpu: None,
        };
        let err = tcp_client(spec, &start, &Cancel::new()).err();
        assert!(err.unwrap().contains("cannot connect"));
        assert!(
            rx.recv_timeout(Duration::from_secs(10)).is_ok(),
            "the other thread was left at the start barrier"
        );
    }

    #[test]
    fn no_echo_server_is_a_clear_error() {
        let closed = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let cfg = PingpongConfig {
            server: closed,
            protocols: vec![Proto::Tcp],
            sizes: vec![1],
            threads: vec![1],
            duration: Duration::from_millis(50),
            timeout: Duration::from_millis(500),
            loopback: false,
            cpus: None,
            busy_poll: false,
        };
        let out = collect(
            &Pingpong { config: cfg },
            &Inventory::default(),
            Cancel::new(),
        )
        .unwrap();
        assert_eq!(out[0].status, ResultStatus::Failed);
        assert!(
            out[0].error.as_ref().unwrap().contains("cannot connect"),
            "{:?}",
            out[0].error
        );
    }
}
