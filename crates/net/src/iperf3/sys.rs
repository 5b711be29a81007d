//! Thin wrappers over the Linux calls the streams need: `TCP_INFO`,
//! `SIOCOUTQ`, `getrusage`, `TCP_MAXSEG`, `TCP_CONGESTION`, `sendfile` from a
//! memfd, and the monotonic clock the UDP header carries.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::time::{Duration, Instant};

/// The `TCP_INFO` figures a sender reports.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TcpInfo {
    /// Retransmitted segments over the connection's life.
    pub total_retrans: u64,
    /// Congestion window in bytes (segments x MSS, as iperf3 reports it).
    pub snd_cwnd_bytes: u64,
    /// Smoothed RTT, microseconds.
    pub rtt_us: u64,
}

/// Reads `TCP_INFO`; `None` when the kernel refuses.
pub(crate) fn tcp_info(fd: RawFd) -> Option<TcpInfo> {
    // SAFETY: tcp_info is plain old data; zeroed is a valid value.
    let mut info: libc::tcp_info = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::tcp_info>() as libc::socklen_t;
    // SAFETY: the pointer and length describe `info`.
    let rc = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_INFO,
            (&mut info as *mut libc::tcp_info).cast(),
            &mut len,
        )
    };
    if rc != 0 {
        return None;
    }
    Some(TcpInfo {
        total_retrans: u64::from(info.tcpi_total_retrans),
        snd_cwnd_bytes: u64::from(info.tcpi_snd_cwnd) * u64::from(info.tcpi_snd_mss),
        rtt_us: u64::from(info.tcpi_rtt),
    })
}

/// Bytes in the socket's send queue: for TCP, sent but not yet acknowledged
/// plus not yet sent; for UDP, not yet handed to the device.
pub(crate) fn outq(fd: RawFd) -> Option<u64> {
    let mut n: libc::c_int = 0;
    // SAFETY: SIOCOUTQ (== TIOCOUTQ) writes one int.
    let rc = unsafe { libc::ioctl(fd, libc::TIOCOUTQ, &mut n) };
    if rc != 0 || n < 0 {
        None
    } else {
        Some(n as u64)
    }
}

/// The control connection's MSS (`TCP_MAXSEG`), used for iperf3's default
/// UDP datagram size.
pub(crate) fn tcp_maxseg(fd: RawFd) -> Option<usize> {
    let mut v: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: the pointer and length describe `v`.
    let rc = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_MAXSEG,
            (&mut v as *mut libc::c_int).cast(),
            &mut len,
        )
    };
    (rc == 0 && v > 0).then_some(v as usize)
}

/// Sets `TCP_MAXSEG` (iperf3's `--set-mss`): on a socket before it
/// connects, or on a listener for the connections it accepts, it bounds the
/// segment size both ways (it lowers the MSS advertised in the handshake).
pub(crate) fn set_tcp_maxseg(fd: RawFd, mss: u32) -> io::Result<()> {
    let v = mss as libc::c_int;
    // SAFETY: the pointer and length describe `v`.
    let rc = unsafe {
        libc::setsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_MAXSEG,
            (&v as *const libc::c_int).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// Sets the TCP congestion control algorithm.
pub(crate) fn set_congestion(fd: RawFd, name: &str) -> io::Result<()> {
    // SAFETY: the pointer and length describe `name`'s bytes.
    let rc = unsafe {
        libc::setsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_CONGESTION,
            name.as_ptr().cast(),
            name.len() as libc::socklen_t,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// The congestion control algorithm in use, when the kernel says.
pub(crate) fn congestion(fd: RawFd) -> Option<String> {
    let mut buf = [0u8; 32];
    let mut len = buf.len() as libc::socklen_t;
    // SAFETY: the pointer and length describe `buf`.
    let rc = unsafe {
        libc::getsockopt(
            fd,
            libc::IPPROTO_TCP,
            libc::TCP_CONGESTION,
            buf.as_mut_ptr().cast(),
            &mut len,
        )
    };
    if rc != 0 {
        return None;
    }
    let s = &buf[..(len as usize).min(buf.len())];
    let end = s.iter().position(|&b| b == 0).unwrap_or(s.len());
    std::str::from_utf8(&s[..end]).ok().map(str::to_owned)
}

/// Process CPU time (user, system), as iperf3's `cpu_util` reads it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct CpuMark {
    wall: Instant,
    user: Duration,
    system: Duration,
}

impl CpuMark {
    /// Now.
    pub(crate) fn now() -> CpuMark {
        let (user, system) = nodebench_core::cputime::process();
        CpuMark {
            wall: Instant::now(),
            user,
            system,
        }
    }

    /// Percent (user + system, user, system) of one CPU since `self`.
    pub(crate) fn since(&self) -> (f64, f64, f64) {
        let end = CpuMark::now();
        let wall = end.wall.duration_since(self.wall).as_secs_f64();
        if wall <= 0.0 {
            return (0.0, 0.0, 0.0);
        }
        let u = end.user.saturating_sub(self.user).as_secs_f64() / wall * 100.0;
        let s = end.system.saturating_sub(self.system).as_secs_f64() / wall * 100.0;
        (u + s, u, s)
    }
}

/// Monotonic clock as (seconds, microseconds), the time base iperf3 puts in
/// UDP headers (only differences are used, for jitter).
pub(crate) fn mono_now() -> (u32, u32) {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime fills `ts`.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    (ts.tv_sec as u32, (ts.tv_nsec / 1000) as u32)
}

/// Monotonic clock in microseconds.
pub(crate) fn mono_us() -> i64 {
    let (s, u) = mono_now();
    i64::from(s) * 1_000_000 + i64::from(u)
}

/// A memfd holding one block of data, the source `sendfile` sends from for
/// zero-copy TCP sending (iperf3 `-Z` sends from a file the same way).
pub(crate) struct SendfileSource {
    fd: OwnedFd,
    len: usize,
}

impl SendfileSource {
    /// A memfd filled with `data`.
    pub(crate) fn new(data: &[u8]) -> io::Result<SendfileSource> {
        // The raw system call: glibc's memfd_create wrapper is 2.27, above
        // the portable binaries' 2.17 floor; the call exists since Linux 3.17.
        // SAFETY: the name is a NUL-terminated literal.
        let raw = unsafe {
            libc::syscall(
                libc::SYS_memfd_create,
                c"nodebench-net-zc".as_ptr(),
                libc::MFD_CLOEXEC,
            )
        } as libc::c_int;
        if raw < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: memfd_create returned a fresh descriptor we own.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let mut off = 0;
        while off < data.len() {
            // SAFETY: the pointer and length describe the unwritten tail.
            let n = unsafe {
                libc::write(
                    fd.as_raw_fd(),
                    data[off..].as_ptr().cast(),
                    data.len() - off,
                )
            };
            if n < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(e);
            }
            off += n as usize;
        }
        Ok(SendfileSource {
            fd,
            len: data.len(),
        })
    }

    /// Sends the block (or as much as the socket takes) to `sock`.
    pub(crate) fn send(&self, sock: RawFd) -> io::Result<usize> {
        let mut off: libc::off_t = 0;
        // SAFETY: both descriptors are open; `off` is a valid offset pointer.
        let n = unsafe { libc::sendfile(sock, self.fd.as_raw_fd(), &mut off, self.len) };
        if n < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(n as usize)
        }
    }
}

/// Waits until `fd` is readable or `timeout` passes; true when readable
/// (or at end of stream / error, which a read then reports).
pub(crate) fn wait_readable(fd: RawFd, timeout: Duration) -> bool {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    let ms = timeout.as_millis().min(i32::MAX as u128) as libc::c_int;
    // SAFETY: one valid pollfd.
    let rc = unsafe { libc::poll(&mut p, 1, ms) };
    rc > 0
}
