//! A thin, level-triggered epoll wrapper over an `OwnedFd`: the built-in HTTP
//! server runs one per worker, the HTTP/1.1 load engine one per thread
//! (registering its sockets edge-triggered, and waiting with nanosecond
//! timeouts for the open model's schedule).

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// Set once `epoll_pwait2` was found missing (kernels before 5.11), so
/// [`Epoll::wait_precise`] waits in milliseconds from then on.
static NO_PWAIT2: AtomicBool = AtomicBool::new(false);

/// Readable.
pub const IN: u32 = libc::EPOLLIN as u32;
/// Writable.
pub const OUT: u32 = libc::EPOLLOUT as u32;
/// The peer closed or the socket failed (always reported, even when not asked for).
pub const HUP_OR_ERR: u32 = (libc::EPOLLHUP | libc::EPOLLERR) as u32;

/// An epoll instance.
pub struct Epoll {
    fd: OwnedFd,
}

/// One readiness report: the token given at registration and the event bits.
#[derive(Clone, Copy)]
pub struct Ready {
    /// The registration's token.
    pub token: u64,
    /// `IN`, `OUT` and `HUP_OR_ERR` bits.
    pub events: u32,
}

impl Epoll {
    /// A new epoll instance (close-on-exec).
    pub fn new() -> io::Result<Epoll> {
        // SAFETY: epoll_create1 has no pointer arguments; a non-negative
        // result is a fresh descriptor that we own from here on.
        let fd = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Epoll {
            // SAFETY: `fd` is a valid descriptor nobody else owns.
            fd: unsafe { OwnedFd::from_raw_fd(fd) },
        })
    }

    fn ctl(&self, op: i32, fd: RawFd, token: u64, events: u32) -> io::Result<()> {
        let mut ev = libc::epoll_event { events, u64: token };
        // SAFETY: `ev` lives across the call; both descriptors are open.
        let rc = unsafe { libc::epoll_ctl(self.fd.as_raw_fd(), op, fd, &mut ev) };
        if rc < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    /// Watches `fd` for `events`, reporting `token`.
    pub fn add(&self, fd: RawFd, token: u64, events: u32) -> io::Result<()> {
        self.ctl(libc::EPOLL_CTL_ADD, fd, token, events)
    }

    /// Changes what `fd` is watched for.
    pub fn modify(&self, fd: RawFd, token: u64, events: u32) -> io::Result<()> {
        self.ctl(libc::EPOLL_CTL_MOD, fd, token, events)
    }

    /// Stops watching `fd`.
    pub fn delete(&self, fd: RawFd) -> io::Result<()> {
        self.ctl(libc::EPOLL_CTL_DEL, fd, 0, 0)
    }

    /// Waits up to `timeout` for readiness; an interrupted wait reports nothing.
    pub fn wait(
        &self,
        buf: &mut [libc::epoll_event],
        timeout: Duration,
        out: &mut Vec<Ready>,
    ) -> io::Result<()> {
        out.clear();
        // Round up so a deadline 0.4 ms away does not spin with timeout 0.
        let ms = timeout.as_micros().div_ceil(1000).min(i32::MAX as u128) as i32;
        // SAFETY: `buf` is a valid, writable array of `buf.len()` events.
        let n = unsafe {
            libc::epoll_wait(
                self.fd.as_raw_fd(),
                buf.as_mut_ptr(),
                buf.len().min(i32::MAX as usize) as i32,
                ms,
            )
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                return Ok(());
            }
            return Err(e);
        }
        out.extend(buf[..n as usize].iter().map(|ev| Ready {
            token: ev.u64,
            events: ev.events,
        }));
        Ok(())
    }

    /// Like [`wait`](Self::wait), with the timeout in nanoseconds
    /// (`epoll_pwait2`), for timers finer than a millisecond; on kernels
    /// before 5.11, which lack it, the timeout is rounded up to milliseconds.
    pub fn wait_precise(
        &self,
        buf: &mut [libc::epoll_event],
        timeout: Duration,
        out: &mut Vec<Ready>,
    ) -> io::Result<()> {
        if NO_PWAIT2.load(Ordering::Relaxed) {
            return self.wait(buf, timeout, out);
        }
        out.clear();
        let ts = libc::timespec {
            tv_sec: timeout.as_secs().min(libc::time_t::MAX as u64) as libc::time_t,
            tv_nsec: timeout.subsec_nanos() as libc::c_long,
        };
        // SAFETY: `buf` is a valid, writable array of `buf.len()` events;
        // `ts` outlives the call; a null signal mask means none.
        let n = unsafe {
            libc::syscall(
                libc::SYS_epoll_pwait2,
                self.fd.as_raw_fd(),
                buf.as_mut_ptr(),
                buf.len().min(i32::MAX as usize) as libc::c_int,
                &ts as *const libc::timespec,
                std::ptr::null::<libc::sigset_t>(),
                0usize,
            )
        };
        if n < 0 {
            let e = io::Error::last_os_error();
            return match e.raw_os_error() {
                Some(libc::ENOSYS) => {
                    NO_PWAIT2.store(true, Ordering::Relaxed);
                    self.wait(buf, timeout, out)
                }
                Some(libc::EINTR) => Ok(()),
                _ => Err(e),
            };
        }
        out.extend(buf[..n as usize].iter().map(|ev| Ready {
            token: ev.u64,
            events: ev.events,
        }));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::unix::net::UnixStream;
    use std::time::Instant;

    #[test]
    fn precise_wait_reports_readiness_and_times_out() {
        let ep = Epoll::new().unwrap();
        let (mut a, b) = UnixStream::pair().unwrap();
        ep.add(b.as_raw_fd(), 7, IN).unwrap();
        let mut buf = vec![libc::epoll_event { events: 0, u64: 0 }; 4];
        let mut out = Vec::new();
        let t = Instant::now();
        ep.wait_precise(&mut buf, Duration::from_micros(1500), &mut out)
            .unwrap();
        assert!(out.is_empty());
        assert!(
            t.elapsed() >= Duration::from_micros(1500),
            "{:?}",
            t.elapsed()
        );
        a.write_all(b"x").unwrap();
        ep.wait_precise(&mut buf, Duration::from_secs(5), &mut out)
            .unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!((out[0].token, out[0].events & IN), (7, IN));
    }
}
