//! Data streams: one thread per stream doing blocking I/O with large
//! buffers, publishing its counters through atomics (a plain store per
//! write, no syscall beyond the write itself), and a [`Running`] test that
//! starts them, samples them per interval (`TCP_INFO` for TCP senders) and
//! stops them.

use std::io;
use std::net::{TcpStream, UdpSocket};
use std::os::fd::{AsRawFd, RawFd};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use super::proto::{self, Transport};
use super::sys;
use super::{IntervalStats, StreamStats};

mod workers;

use workers::{tcp_recv, tcp_send, udp_recv, udp_send};

/// Timeout on data-socket reads and writes, so a worker notices the stop
/// flags even when the peer stops reading or sending.
const IO_POLL: Duration = Duration::from_millis(100);

/// A data socket.
pub(crate) enum Sock {
    /// A TCP data connection.
    Tcp(TcpStream),
    /// A connected UDP socket.
    Udp(UdpSocket),
}

impl Sock {
    fn fd(&self) -> RawFd {
        match self {
            Sock::Tcp(s) => s.as_raw_fd(),
            Sock::Udp(s) => s.as_raw_fd(),
        }
    }

    /// Closes our sending direction so the peer reads end of stream (TCP).
    pub(crate) fn shutdown_write(&self) {
        if let Sock::Tcp(s) = self {
            let _ = s.shutdown(std::net::Shutdown::Write);
        }
    }
}

/// What a worker publishes.
#[derive(Default)]
pub(crate) struct Counters {
    bytes: AtomicU64,
    /// UDP: datagrams sent (sender) or received (receiver).
    packets: AtomicU64,
    /// UDP receiver: highest sequence number seen.
    max_seq: AtomicU64,
    lost: AtomicU64,
    ooo: AtomicU64,
    /// UDP receiver: jitter in microseconds, as f64 bits.
    jitter_us: AtomicU64,
    /// Time of the last received bytes, microseconds after the test start.
    last_rx_us: AtomicU64,
    eof: AtomicBool,
    exited: AtomicBool,
    error: Mutex<Option<String>>,
    /// The worker thread's CPU time (user + system) and life, microseconds,
    /// and the CPU it last ran on plus one (0: unknown), set as it exits.
    thread_cpu_us: AtomicU64,
    thread_wall_us: AtomicU64,
    last_cpu: AtomicU64,
}

impl Counters {
    fn fail(&self, what: &str, e: &io::Error) {
        if let Ok(mut g) = self.error.lock() {
            g.get_or_insert_with(|| format!("{what}: {e}"));
        }
    }
}

/// Stop flags shared by a test's workers.
#[derive(Default)]
pub(crate) struct Flags {
    stop_send: AtomicBool,
    stop_recv: AtomicBool,
}

/// How the workers of a test send and receive.
#[derive(Debug, Clone, Copy)]
pub(crate) struct WorkerCfg {
    pub transport: Transport,
    /// Write/read size.
    pub len: usize,
    /// Target bits/s per sending stream; 0 = unlimited.
    pub rate: u64,
    /// TCP senders use sendfile from a memfd.
    pub zerocopy: bool,
    /// 64-bit UDP counters.
    pub udp64: bool,
}

#[derive(Default)]
struct Sampler {
    bytes: u64,
    packets: u64,
    lost: u64,
    ooo: u64,
    retrans_base: Option<u64>,
    retrans: u64,
    max_cwnd: u64,
    rtt_sum: u64,
    rtt_n: u64,
}

/// One data stream of a test.
pub(crate) struct Stream {
    /// iperf3 stream id.
    pub id: u32,
    /// This side sends on it.
    pub sender: bool,
    sock: Arc<Sock>,
    c: Arc<Counters>,
    handle: Option<JoinHandle<()>>,
    samp: Sampler,
    /// When this stream's measurement ended (senders: when sending stopped).
    end: Option<Instant>,
}

impl Stream {
    /// A stream over `sock`, not yet started.
    pub(crate) fn new(id: u32, sender: bool, sock: Sock) -> Stream {
        Stream {
            id,
            sender,
            sock: Arc::new(sock),
            c: Arc::new(Counters::default()),
            handle: None,
            samp: Sampler::default(),
            end: None,
        }
    }

    /// TCP: the connection's `TCP_MAXSEG` (the largest segment it sends).
    pub(crate) fn tcp_maxseg(&self) -> Option<usize> {
        match &*self.sock {
            Sock::Tcp(t) => sys::tcp_maxseg(t.as_raw_fd()),
            Sock::Udp(_) => None,
        }
    }

    /// Bytes counted so far.
    pub(crate) fn bytes(&self) -> u64 {
        self.c.bytes.load(Relaxed)
    }

    /// UDP receiver: highest sequence number seen.
    pub(crate) fn max_seq(&self) -> u64 {
        self.c.max_seq.load(Relaxed)
    }

    /// The peer closed its sending direction (TCP receiver).
    pub(crate) fn eof(&self) -> bool {
        self.c.eof.load(Relaxed)
    }

    /// The worker ended (end of stream, error or stop).
    pub(crate) fn exited(&self) -> bool {
        self.c.exited.load(Relaxed)
    }

    /// Microseconds after the start when bytes last arrived.
    pub(crate) fn last_rx_us(&self) -> u64 {
        self.c.last_rx_us.load(Relaxed)
    }

    /// The worker's error, if it failed.
    pub(crate) fn error(&self) -> Option<String> {
        self.c.error.lock().ok().and_then(|g| g.clone())
    }

    fn spawn(&mut self, flags: &Arc<Flags>, cfg: WorkerCfg, start: Instant) -> io::Result<()> {
        let sock = self.sock.clone();
        let c = self.c.clone();
        let flags = flags.clone();
        let sender = self.sender;
        let name = format!("net-{}-{}", if sender { "tx" } else { "rx" }, self.id);
        let h = std::thread::Builder::new().name(name).spawn(move || {
            let began = Instant::now();
            match (&*sock, sender) {
                (Sock::Tcp(s), true) => tcp_send(s, &c, &flags, cfg),
                (Sock::Tcp(s), false) => tcp_recv(s, &c, &flags, cfg, start),
                (Sock::Udp(s), true) => udp_send(s, &c, &flags, cfg),
                (Sock::Udp(s), false) => udp_recv(s, &c, &flags, cfg, start),
            }
            let (user, system) = nodebench_core::cputime::thread();
            c.thread_cpu_us
                .store((user + system).as_micros() as u64, Relaxed);
            c.thread_wall_us
                .store(began.elapsed().as_micros() as u64, Relaxed);
            // SAFETY: sched_getcpu takes no arguments; -1 on failure.
            let cpu = unsafe { libc::sched_getcpu() };
            c.last_cpu
                .store(u64::try_from(cpu).map_or(0, |c| c + 1), Relaxed);
            c.exited.store(true, Relaxed);
        })?;
        self.handle = Some(h);
        Ok(())
    }

    /// Figures for the interval since the previous sample, `seconds` long.
    fn sample(&mut self, seconds: f64, transport: Transport) -> StreamStats {
        let bytes = self.c.bytes.load(Relaxed);
        let mut st = StreamStats {
            id: self.id,
            sender: self.sender,
            bytes: bytes - self.samp.bytes.min(bytes),
            seconds,
            ..StreamStats::default()
        };
        self.samp.bytes = bytes;
        match transport {
            Transport::Tcp => {
                if self.sender
                    && let Some(ti) = sys::tcp_info(self.sock.fd())
                {
                    let base = *self.samp.retrans_base.get_or_insert(0);
                    let total = ti.total_retrans.saturating_sub(base);
                    st.retransmits = Some(total.saturating_sub(self.samp.retrans));
                    self.samp.retrans = total;
                    st.snd_cwnd = Some(ti.snd_cwnd_bytes);
                    st.rtt_us = Some(ti.rtt_us);
                    self.samp.max_cwnd = self.samp.max_cwnd.max(ti.snd_cwnd_bytes);
                    self.samp.rtt_sum += ti.rtt_us;
                    self.samp.rtt_n += 1;
                }
            }
            Transport::Udp => {
                let packets = self.c.packets.load(Relaxed);
                st.packets = Some(packets - self.samp.packets.min(packets));
                self.samp.packets = packets;
                if !self.sender {
                    let lost = self.c.lost.load(Relaxed);
                    let ooo = self.c.ooo.load(Relaxed);
                    // Lost can shrink when a late packet fills a gap.
                    st.lost_packets = Some(lost.saturating_sub(self.samp.lost));
                    st.out_of_order = Some(ooo - self.samp.ooo.min(ooo));
                    self.samp.lost = lost;
                    self.samp.ooo = ooo;
                    st.jitter_ms = Some(f64::from_bits(self.c.jitter_us.load(Relaxed)) / 1000.0);
                }
            }
        }
        st
    }

    /// Whole-test figures for this stream, `seconds` long.
    fn totals(&self, seconds: f64, transport: Transport) -> StreamStats {
        let mut st = StreamStats {
            id: self.id,
            sender: self.sender,
            bytes: self.c.bytes.load(Relaxed),
            seconds,
            ..StreamStats::default()
        };
        let wall = self.c.thread_wall_us.load(Relaxed);
        if wall > 0 {
            st.thread_cpu = Some(100.0 * self.c.thread_cpu_us.load(Relaxed) as f64 / wall as f64);
            st.last_cpu = self
                .c
                .last_cpu
                .load(Relaxed)
                .checked_sub(1)
                .and_then(|c| u32::try_from(c).ok());
        }
        match transport {
            Transport::Tcp => {
                if self.sender && self.samp.retrans_base.is_some() {
                    st.retransmits = Some(self.samp.retrans);
                    st.snd_cwnd = Some(self.samp.max_cwnd);
                    st.rtt_us = self.samp.rtt_sum.checked_div(self.samp.rtt_n);
                }
            }
            Transport::Udp => {
                st.packets = Some(self.c.packets.load(Relaxed));
                if !self.sender {
                    st.lost_packets = Some(self.c.lost.load(Relaxed));
                    st.out_of_order = Some(self.c.ooo.load(Relaxed));
                    st.jitter_ms = Some(f64::from_bits(self.c.jitter_us.load(Relaxed)) / 1000.0);
                }
            }
        }
        st
    }
}

/// A test whose streams are running.
pub(crate) struct Running {
    pub streams: Vec<Stream>,
    flags: Arc<Flags>,
    transport: Transport,
    /// When the test clock started.
    pub start: Instant,
    cpu: sys::CpuMark,
    last_tick: Instant,
    interval: Option<Duration>,
    /// Interval reports so far.
    pub intervals: Vec<IntervalStats>,
    send_end: Option<Instant>,
}

impl Running {
    /// Starts a worker for each stream; `interval` of `None` or zero means
    /// no interval reports except the final partial one.
    pub(crate) fn start(
        mut streams: Vec<Stream>,
        cfg: WorkerCfg,
        interval: Option<Duration>,
    ) -> io::Result<Running> {
        let flags = Arc::new(Flags::default());
        let cpu = sys::CpuMark::now();
        let start = Instant::now();
        for s in &mut streams {
            if s.sender && cfg.transport == Transport::Tcp {
                // Retransmits count from the test start.
                s.samp.retrans_base = sys::tcp_info(s.sock.fd()).map(|t| t.total_retrans);
            }
        }
        let mut run = Running {
            streams,
            flags,
            transport: cfg.transport,
            start,
            cpu,
            last_tick: start,
            interval: interval.filter(|d| !d.is_zero()),
            intervals: Vec::new(),
            send_end: None,
        };
        for i in 0..run.streams.len() {
            if let Err(e) = run.streams[i].spawn(&run.flags, cfg, start) {
                run.abort();
                return Err(e);
            }
        }
        Ok(run)
    }

    /// When the next interval report is due.
    pub(crate) fn next_tick(&self) -> Option<Instant> {
        self.interval.map(|d| self.last_tick + d)
    }

    /// Records an interval report if one is due at `now`.
    pub(crate) fn tick_if_due(&mut self, now: Instant) {
        if let Some(t) = self.next_tick()
            && now >= t
        {
            self.record_interval(t);
        }
    }

    fn record_interval(&mut self, end: Instant) {
        let seconds = end.saturating_duration_since(self.last_tick).as_secs_f64();
        let transport = self.transport;
        let streams = self
            .streams
            .iter_mut()
            .map(|s| s.sample(seconds, transport))
            .collect();
        self.intervals.push(IntervalStats {
            start: self.last_tick.duration_since(self.start).as_secs_f64(),
            end: end.duration_since(self.start).as_secs_f64(),
            streams,
        });
        self.last_tick = end;
    }

    /// The first worker error, if any.
    pub(crate) fn first_error(&self) -> Option<String> {
        self.streams
            .iter()
            .find_map(|s| s.error().map(|e| format!("stream {}: {e}", s.id)))
    }

    /// Has any stream of ours to send on.
    pub(crate) fn has_senders(&self) -> bool {
        self.streams.iter().any(|s| s.sender)
    }

    /// Stops the senders; returns when they stopped.
    pub(crate) fn stop_senders(&mut self) -> Instant {
        self.flags.stop_send.store(true, Relaxed);
        let now = Instant::now();
        for s in self.streams.iter_mut().filter(|s| s.sender) {
            s.end = Some(now);
        }
        // Workers see the flag within one write timeout.
        let deadline = now + IO_POLL * 3;
        while Instant::now() < deadline && self.streams.iter().any(|s| s.sender && !s.exited()) {
            std::thread::sleep(Duration::from_millis(1));
        }
        self.send_end = Some(now);
        now
    }

    /// After the senders stopped: waits (at most `bound`) until every byte
    /// they wrote left the host and, for TCP, was acknowledged, then `settle`
    /// more, so the receiver can read what is queued before the test ends
    /// and its byte count is complete.
    pub(crate) fn drain_send_queues(&self, bound: Duration, settle: Duration) {
        let deadline = Instant::now() + bound;
        let fds: Vec<RawFd> = self
            .streams
            .iter()
            .filter(|s| s.sender)
            .map(|s| s.sock.fd())
            .collect();
        if fds.is_empty() {
            return;
        }
        while Instant::now() < deadline
            && fds.iter().any(|&fd| sys::outq(fd).is_some_and(|n| n > 0))
        {
            std::thread::sleep(Duration::from_millis(2));
        }
        std::thread::sleep(settle);
    }

    /// Closes the sending direction of TCP sender streams (the peer sees end
    /// of stream once it has read everything).
    pub(crate) fn shutdown_senders(&self) {
        for s in self.streams.iter().filter(|s| s.sender) {
            s.sock.shutdown_write();
        }
    }

    /// Stops the receivers and ends their measurement.
    pub(crate) fn stop_receivers(&mut self) {
        self.flags.stop_recv.store(true, Relaxed);
        let now = Instant::now();
        for s in self.streams.iter_mut().filter(|s| !s.sender) {
            // A receiver's measurement ends with the last bytes it got, or
            // at the end of the test if that was later.
            let last = self.start + Duration::from_micros(s.last_rx_us());
            let test_end = self.send_end.unwrap_or(now);
            s.end = Some(last.max(test_end.min(now)));
        }
    }

    /// Stops everything and waits for the workers.
    pub(crate) fn abort(&mut self) {
        self.flags.stop_send.store(true, Relaxed);
        self.flags.stop_recv.store(true, Relaxed);
        self.join();
    }

    fn join(&mut self) {
        for s in &mut self.streams {
            if let Some(h) = s.handle.take() {
                let _ = h.join();
            }
        }
    }

    /// Marks the end of the test for the receivers (the moment TEST_END was
    /// sent or received), used when a receiver got its last bytes earlier.
    pub(crate) fn mark_test_end(&mut self, at: Instant) {
        if self.send_end.is_none() {
            self.send_end = Some(at);
        }
    }

    /// Ends the test: stops all workers, records the final partial interval,
    /// and returns the per-stream totals, the CPU use and the test length.
    pub(crate) fn finish(&mut self) -> (Vec<StreamStats>, (f64, f64, f64), f64) {
        self.flags.stop_send.store(true, Relaxed);
        if !self.flags.stop_recv.load(Relaxed) {
            self.stop_receivers();
        }
        self.join();
        let cpu = self.cpu.since();
        let now = Instant::now();
        let end = self
            .streams
            .iter()
            .filter_map(|s| s.end)
            .max()
            .unwrap_or(now);
        let test_len = self
            .send_end
            .unwrap_or(end)
            .duration_since(self.start)
            .as_secs_f64();
        // Final partial interval, when anything happened after the last tick.
        let last_tick = self.last_tick;
        if end > last_tick + Duration::from_millis(1)
            || self.streams.iter().any(|s| s.bytes() > s.samp.bytes)
        {
            let transport = self.transport;
            let start = self.start;
            let streams: Vec<StreamStats> = self
                .streams
                .iter_mut()
                .map(|s| {
                    let e = s.end.unwrap_or(end).max(last_tick);
                    s.sample(e.duration_since(last_tick).as_secs_f64(), transport)
                })
                .collect();
            self.intervals.push(IntervalStats {
                start: last_tick.duration_since(start).as_secs_f64(),
                end: end.max(last_tick).duration_since(start).as_secs_f64(),
                streams,
            });
            self.last_tick = end;
        }
        let totals = self
            .streams
            .iter()
            .map(|s| {
                let e = s.end.unwrap_or(end);
                s.totals(e.duration_since(self.start).as_secs_f64(), self.transport)
            })
            .collect();
        (totals, cpu, test_len)
    }

    /// Our results message for the peer, from [`Running::finish`]'s totals.
    pub(crate) fn results(&self, totals: &[StreamStats], cpu: (f64, f64, f64)) -> proto::Results {
        let tcp = self.transport == Transport::Tcp;
        let sender_has_retransmits = if !self.has_senders() {
            -1
        } else if tcp {
            1
        } else {
            0
        };
        let congestion_used = if tcp {
            self.streams
                .first()
                .and_then(|s| sys::congestion(s.sock.fd()))
        } else {
            None
        };
        let streams = self
            .streams
            .iter()
            .zip(totals)
            .map(|(s, t)| proto::StreamResult {
                id: s.id,
                bytes: t.bytes,
                retransmits: match (s.sender && tcp, t.retransmits) {
                    (true, Some(r)) => r as i64,
                    _ => -1,
                },
                jitter: t.jitter_ms.unwrap_or(0.0) / 1000.0,
                errors: t.lost_packets.unwrap_or(0),
                // iperf3 semantics: sent count, or highest sequence seen.
                packets: if s.sender {
                    t.packets.unwrap_or(0)
                } else {
                    s.max_seq()
                },
                start_time: 0.0,
                end_time: t.seconds,
                thread_cpu: t.thread_cpu,
                last_cpu: t.last_cpu,
            })
            .collect();
        proto::Results {
            cpu_util_total: cpu.0,
            cpu_util_user: cpu.1,
            cpu_util_system: cpu.2,
            sender_has_retransmits,
            congestion_used,
            streams,
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.abort();
    }
}

/// The peer's per-stream figures, from its results message, matched to our
/// streams by id. A peer receiver's packet count is derived from its bytes
/// (iperf3 reports the highest sequence number there).
pub(crate) fn remote_stats(
    ours: &[Stream],
    peer: &proto::Results,
    transport: Transport,
    len: usize,
) -> Vec<StreamStats> {
    let mut out = Vec::new();
    for r in &peer.streams {
        // The peer sent on the streams we received on, and the other way round.
        let peer_sender = match ours.iter().find(|s| s.id == r.id) {
            Some(s) => !s.sender,
            None => continue,
        };
        let mut st = StreamStats {
            id: r.id,
            sender: peer_sender,
            bytes: r.bytes,
            seconds: (r.end_time - r.start_time).max(0.0),
            thread_cpu: r.thread_cpu,
            last_cpu: r.last_cpu,
            ..StreamStats::default()
        };
        match transport {
            Transport::Tcp => {
                if peer_sender && r.retransmits >= 0 {
                    st.retransmits = Some(r.retransmits as u64);
                }
            }
            Transport::Udp => {
                if peer_sender {
                    st.packets = Some(r.packets);
                } else {
                    st.packets = Some(if len > 0 { r.bytes / len as u64 } else { 0 });
                    st.lost_packets = Some(r.errors);
                    st.jitter_ms = Some(r.jitter * 1000.0);
                }
            }
        }
        out.push(st);
    }
    out
}
