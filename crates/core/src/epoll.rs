//! A thin, level-triggered epoll wrapper over an `OwnedFd`: the built-in HTTP
//! server runs one per worker, the HTTP/1.1 load engine one per thread.

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::time::Duration;

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
        // SAFETY: `fd` is a valid descriptor nobody else owns.
        Ok(Epoll {
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
}
