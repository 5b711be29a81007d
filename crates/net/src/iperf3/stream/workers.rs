//! The per-stream worker loops: TCP and UDP senders (paced by a token
//! bucket when a bit rate is set) and receivers, and the UDP loss, order and
//! jitter accounting.

use std::io::{self, Read, Write};
use std::net::{TcpStream, UdpSocket};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::time::{Duration, Instant};

use nodebench_core::rng::XorShift64;

use super::super::proto::{self, UdpHeader};
use super::super::sys;
use super::{Counters, Flags, WorkerCfg};

/// A pseudo-random block, so compressing links do not flatter the result
/// (iperf3 also sends random data by default).
pub(super) fn pattern(len: usize) -> Vec<u8> {
    let mut block = vec![0u8; len];
    XorShift64::new(0x2545_f491_4f6c_dd1d).fill_bytes(&mut block);
    block
}

fn transient(e: &io::Error) -> bool {
    proto::is_timeout(e) || e.kind() == io::ErrorKind::Interrupted
}

/// Token bucket: `rate` bytes/s, holding at most 20 ms of traffic (and at
/// least one block), so a stalled sender does not burst far above the target.
struct Pacer {
    rate: f64,
    tokens: f64,
    cap: f64,
    last: Instant,
}

impl Pacer {
    fn new(bits_per_s: u64, len: usize) -> Option<Pacer> {
        if bits_per_s == 0 {
            return None;
        }
        let rate = bits_per_s as f64 / 8.0;
        Some(Pacer {
            rate,
            tokens: len as f64,
            cap: (rate * 0.02).max(len as f64),
            last: Instant::now(),
        })
    }

    /// Takes `n` bytes' worth of tokens, sleeping until they are there;
    /// false when `stop` was set meanwhile.
    fn take(&mut self, n: usize, stop: &AtomicBool) -> bool {
        let n = n as f64;
        loop {
            let now = Instant::now();
            let dt = now.duration_since(self.last).as_secs_f64();
            self.last = now;
            self.tokens = (self.tokens + dt * self.rate).min(self.cap.max(n));
            if self.tokens >= n {
                self.tokens -= n;
                return true;
            }
            if stop.load(Relaxed) {
                return false;
            }
            let wait = ((n - self.tokens) / self.rate).min(0.05);
            std::thread::sleep(Duration::from_secs_f64(wait));
        }
    }

    /// Gives back tokens for bytes that were not sent.
    fn refund(&mut self, n: usize) {
        self.tokens += n as f64;
    }
}

pub(super) fn tcp_send(s: &TcpStream, c: &Counters, flags: &Flags, cfg: WorkerCfg) {
    let buf = pattern(cfg.len);
    let zc = if cfg.zerocopy {
        match sys::SendfileSource::new(&buf) {
            Ok(z) => Some(z),
            Err(e) => {
                c.fail("zero-copy source", &e);
                return;
            }
        }
    } else {
        None
    };
    let mut pacer = Pacer::new(cfg.rate, cfg.len);
    let fd = s.as_raw_fd();
    let mut w = s;
    let mut total = 0u64;
    while !flags.stop_send.load(Relaxed) {
        if let Some(p) = pacer.as_mut()
            && !p.take(cfg.len, &flags.stop_send)
        {
            break;
        }
        let r = match &zc {
            Some(z) => z.send(fd),
            None => w.write(&buf),
        };
        match r {
            Ok(n) => {
                total += n as u64;
                c.bytes.store(total, Relaxed);
                if let Some(p) = pacer.as_mut() {
                    p.refund(cfg.len - n.min(cfg.len));
                }
            }
            Err(e) if transient(&e) => {
                if let Some(p) = pacer.as_mut() {
                    p.refund(cfg.len);
                }
            }
            Err(e) => {
                c.fail("write", &e);
                break;
            }
        }
    }
}

pub(super) fn tcp_recv(s: &TcpStream, c: &Counters, flags: &Flags, cfg: WorkerCfg, start: Instant) {
    let mut buf = vec![0u8; cfg.len.max(1)];
    let mut r = s;
    let mut total = 0u64;
    while !flags.stop_recv.load(Relaxed) {
        match r.read(&mut buf) {
            Ok(0) => {
                c.eof.store(true, Relaxed);
                break;
            }
            Ok(n) => {
                total += n as u64;
                c.bytes.store(total, Relaxed);
                c.last_rx_us
                    .store(start.elapsed().as_micros() as u64, Relaxed);
            }
            Err(e) if transient(&e) => {}
            Err(e) => {
                c.fail("read", &e);
                break;
            }
        }
    }
}

pub(super) fn udp_send(s: &UdpSocket, c: &Counters, flags: &Flags, cfg: WorkerCfg) {
    let hlen = UdpHeader::len(cfg.udp64);
    let mut buf = pattern(cfg.len.max(hlen));
    let mut pacer = Pacer::new(cfg.rate, buf.len());
    if pacer.is_some() {
        nodebench_core::affinity::precise_timers();
    }
    let mut seq = 0u64;
    let mut total = 0u64;
    while !flags.stop_send.load(Relaxed) {
        if let Some(p) = pacer.as_mut()
            && !p.take(buf.len(), &flags.stop_send)
        {
            break;
        }
        let (sec, usec) = sys::mono_now();
        UdpHeader {
            sec,
            usec,
            seq: seq + 1,
        }
        .encode(&mut buf, cfg.udp64);
        match s.send(&buf) {
            Ok(n) => {
                seq += 1;
                total += n as u64;
                c.packets.store(seq, Relaxed);
                c.bytes.store(total, Relaxed);
            }
            Err(e) if transient(&e) || e.raw_os_error() == Some(libc::ENOBUFS) => {
                if let Some(p) = pacer.as_mut() {
                    p.refund(buf.len());
                }
                std::thread::yield_now();
            }
            Err(e) => {
                c.fail("send", &e);
                break;
            }
        }
    }
}

pub(super) fn udp_recv(s: &UdpSocket, c: &Counters, flags: &Flags, cfg: WorkerCfg, start: Instant) {
    // Room for the largest datagram, whatever length the sender chose.
    let mut buf = vec![0u8; 65536];
    let mut total = 0u64;
    let mut packets = 0u64;
    let mut tracker = UdpTracker::default();
    while !flags.stop_recv.load(Relaxed) {
        match s.recv(&mut buf) {
            Ok(n) => {
                let arrival = sys::mono_us();
                let Some(h) = UdpHeader::decode(&buf[..n], cfg.udp64) else {
                    continue; // a stray handshake datagram
                };
                total += n as u64;
                packets += 1;
                tracker.packet(&h, arrival);
                c.bytes.store(total, Relaxed);
                c.packets.store(packets, Relaxed);
                c.max_seq.store(tracker.max_seq, Relaxed);
                c.lost.store(tracker.lost, Relaxed);
                c.ooo.store(tracker.ooo, Relaxed);
                c.jitter_us.store(tracker.jitter_us.to_bits(), Relaxed);
                c.last_rx_us
                    .store(start.elapsed().as_micros() as u64, Relaxed);
            }
            Err(e) if transient(&e) || e.kind() == io::ErrorKind::ConnectionRefused => {}
            Err(e) => {
                c.fail("recv", &e);
                break;
            }
        }
    }
}

/// Loss, reordering and jitter of a UDP stream, computed the way iperf3
/// does: a forward gap in the sequence counts as loss, a packet behind the
/// highest seen is out of order and takes one loss back; jitter follows
/// RFC 3550: D = difference of transit times (arrival minus send stamp) of
/// consecutive packets, J += (|D| - J) / 16.
#[derive(Debug, Default, Clone)]
pub(super) struct UdpTracker {
    /// Highest sequence number seen.
    pub max_seq: u64,
    /// Packets counted lost.
    pub lost: u64,
    /// Packets that arrived out of order.
    pub ooo: u64,
    /// Jitter, microseconds.
    pub jitter_us: f64,
    prev_transit: Option<i64>,
}

impl UdpTracker {
    /// Accounts one packet that arrived at `arrival_us` (receiver clock).
    pub(crate) fn packet(&mut self, h: &UdpHeader, arrival_us: i64) {
        if h.seq > self.max_seq {
            self.lost += h.seq - self.max_seq - 1;
            self.max_seq = h.seq;
        } else {
            self.ooo += 1;
            self.lost = self.lost.saturating_sub(1);
        }
        let sent = i64::from(h.sec) * 1_000_000 + i64::from(h.usec);
        let transit = arrival_us - sent;
        let prev = self.prev_transit.unwrap_or(transit);
        let d = (transit - prev).abs() as f64;
        self.prev_transit = Some(transit);
        self.jitter_us += (d - self.jitter_us) / 16.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(seq: u64, sent_us: i64) -> UdpHeader {
        UdpHeader {
            sec: (sent_us / 1_000_000) as u32,
            usec: (sent_us % 1_000_000) as u32,
            seq,
        }
    }

    #[test]
    fn tracker_counts_gaps_and_reordering() {
        let mut t = UdpTracker::default();
        for (seq, at) in [(1, 10), (2, 20), (5, 50), (3, 60), (6, 70)] {
            t.packet(&h(seq, at), at + 100);
        }
        // 3 and 4 missing at 5, then 3 arrives late: one loss taken back.
        assert_eq!(t.max_seq, 6);
        assert_eq!(t.lost, 1);
        assert_eq!(t.ooo, 1);
    }

    #[test]
    fn tracker_jitter_follows_rfc3550() {
        let mut t = UdpTracker::default();
        // Constant transit: no jitter.
        for i in 1..=10 {
            t.packet(&h(i, i as i64 * 1000), i as i64 * 1000 + 500);
        }
        assert_eq!(t.jitter_us, 0.0);
        // One packet 160 us late: J = 160/16 = 10 us.
        t.packet(&h(11, 11_000), 11_000 + 500 + 160);
        assert!((t.jitter_us - 10.0).abs() < 1e-9);
        // Back to normal: D = 160 again, J += (160 - 10) / 16.
        t.packet(&h(12, 12_000), 12_000 + 500);
        assert!((t.jitter_us - (10.0 + 150.0 / 16.0)).abs() < 1e-9);
    }

    #[test]
    fn pacer_holds_the_rate() {
        let stop = AtomicBool::new(false);
        // 8 Mbit/s = 1 MB/s; 1000-byte blocks for 100 ms ~ 100 blocks.
        let mut p = Pacer::new(8_000_000, 1000).unwrap();
        let t0 = Instant::now();
        let mut n = 0;
        while t0.elapsed() < Duration::from_millis(100) {
            assert!(p.take(1000, &stop));
            n += 1;
        }
        // The bucket starts with one block and holds at most 20 ms.
        assert!((95..=125).contains(&n), "{n} blocks in 100 ms");
        assert!(Pacer::new(0, 1000).is_none());
    }
}
