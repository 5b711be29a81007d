//! How connections reach the workers: one accepting thread takes every new
//! connection off the listener and hands the k-th to worker k mod n (of
//! the n workers that started), through that worker's [`Inbox`]: a queue,
//! and an eventfd its epoll loop watches. Round-robin rather than a hash of
//! the addresses (`SO_REUSEPORT`) or whichever worker the kernel wakes (a
//! shared listener with `EPOLLEXCLUSIVE`, which hands most of a burst of
//! connects to one worker): the workers' connection counts differ by at
//! most one, whatever the timing.

use std::fs::File;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::sync::Mutex;
use std::sync::mpsc::Receiver;
use std::time::Duration;

use nodebench_core::bench::Cancel;
use nodebench_core::epoll::{Epoll, IN, Ready};

use super::CANCEL_POLL;

/// Connections accepted before the workers they went to are woken, so a
/// burst is handed over in batches rather than one wake-up per connection.
const ACCEPT_BATCH: usize = 16;
/// Connections accepted per wake-up before the stop flag is looked at again.
const ACCEPT_ROUND: usize = 1024;
/// How long accepting pauses when it fails for lack of descriptors or memory
/// (instead of spinning on the listener).
const ACCEPT_PAUSE: Duration = Duration::from_millis(100);

/// A worker's inbox: the connections handed to it, and the eventfd that
/// wakes it (readable while a hand-over waits).
pub(super) struct Inbox {
    queue: Mutex<Vec<TcpStream>>,
    wake: File,
}

impl Inbox {
    pub(super) fn new() -> io::Result<Inbox> {
        // SAFETY: eventfd has no pointer arguments; a non-negative result
        // is a fresh descriptor that we own from here on.
        let fd = unsafe { libc::eventfd(0, libc::EFD_NONBLOCK | libc::EFD_CLOEXEC) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: `fd` is a valid descriptor nobody else owns.
        let wake = File::from(unsafe { OwnedFd::from_raw_fd(fd) });
        Ok(Inbox {
            queue: Mutex::new(Vec::new()),
            wake,
        })
    }

    /// The descriptor the worker's epoll watches for readability.
    pub(super) fn fd(&self) -> RawFd {
        self.wake.as_raw_fd()
    }

    /// Hands `streams` over (leaving it empty) and wakes the worker.
    fn deliver(&self, streams: &mut Vec<TcpStream>) {
        self.queue
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .append(streams);
        // Adds one to the eventfd's counter; that fails only with the
        // counter at its maximum, when the worker is due to wake anyway.
        let _ = (&self.wake).write(&1u64.to_ne_bytes());
    }

    /// The worker's side: moves what was handed over into `into` and
    /// resets the wake-up. A hand-over after the reset wakes it again.
    pub(super) fn take(&self, into: &mut Vec<TcpStream>) {
        let mut counter = [0u8; 8];
        // Reading resets the counter (WouldBlock when it was 0 already).
        let _ = (&self.wake).read(&mut counter);
        into.append(&mut self.queue.lock().unwrap_or_else(|e| e.into_inner()));
    }
}

/// The listening socket and the epoll instance the accepting thread
/// waits on, both made when the server binds.
pub(super) struct Listener {
    socket: TcpListener,
    epoll: Epoll,
}

impl Listener {
    /// A listening socket with a deep backlog (load tests open hundreds of
    /// connections at once) and SO_REUSEADDR (a restart can reuse the port).
    pub(super) fn bind(addr: SocketAddr) -> Result<Listener, String> {
        use socket2::{Domain, Socket, Type};
        let err = |e: io::Error| format!("--bind/--port {addr}: {e}");
        let socket = Socket::new(Domain::for_address(addr), Type::STREAM, None).map_err(err)?;
        socket.set_reuse_address(true).map_err(err)?;
        socket.bind(&addr.into()).map_err(err)?;
        socket.listen(4096).map_err(err)?;
        socket.set_nonblocking(true).map_err(err)?;
        let socket = TcpListener::from(socket);
        let epoll = Epoll::new().map_err(|e| format!("cannot create an epoll instance: {e}"))?;
        epoll
            .add(socket.as_raw_fd(), 0, IN)
            .map_err(|e| format!("cannot watch the listening socket: {e}"))?;
        Ok(Listener { socket, epoll })
    }

    /// The bound address (with the real port when 0 was asked for).
    pub(super) fn local_addr(&self) -> io::Result<SocketAddr> {
        self.socket.local_addr()
    }
}

/// The accepting thread: waits for the indices of the workers that
/// started, then hands the k-th accepted connection to the (k mod n)-th of
/// them until `cancel` is set; fails when no worker started. Returning
/// closes the listener.
pub(super) fn run(
    listener: Listener,
    inboxes: &[Inbox],
    started: Receiver<Vec<usize>>,
    cancel: &Cancel,
) -> Result<(), String> {
    let Ok(workers) = started.recv() else {
        return Ok(());
    };
    if workers.is_empty() {
        return Err("no server worker thread could be started".into());
    }
    let Listener { socket, epoll } = listener;
    let mut raw = [libc::epoll_event { events: 0, u64: 0 }];
    let mut ready: Vec<Ready> = Vec::with_capacity(raw.len());
    // The connections accepted for each worker since the last hand-over.
    let mut held: Vec<Vec<TcpStream>> = inboxes.iter().map(|_| Vec::new()).collect();
    let mut next = 0;
    while !cancel.is_cancelled() {
        epoll
            .wait(&mut raw, CANCEL_POLL, &mut ready)
            .map_err(|e| format!("epoll_wait: {e}"))?;
        if ready.is_empty() {
            continue;
        }
        for accepted in 1..=ACCEPT_ROUND {
            match socket.accept() {
                Ok((stream, _)) => {
                    if stream.set_nonblocking(true).is_err() {
                        continue;
                    }
                    let _ = stream.set_nodelay(true);
                    held[workers[next]].push(stream);
                    next = (next + 1) % workers.len();
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                Err(e) if e.kind() == io::ErrorKind::ConnectionAborted => {}
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => {
                    // Out of descriptors or memory: serve what came, then
                    // leave the backlog alone for a moment.
                    deliver(inboxes, &mut held);
                    std::thread::sleep(ACCEPT_PAUSE);
                    break;
                }
            }
            if accepted % ACCEPT_BATCH == 0 {
                deliver(inboxes, &mut held);
            }
        }
        deliver(inboxes, &mut held);
    }
    Ok(())
}

/// Hands each worker the connections held for it.
fn deliver(inboxes: &[Inbox], held: &mut [Vec<TcpStream>]) {
    for (inbox, streams) in inboxes.iter().zip(held) {
        if !streams.is_empty() {
            inbox.deliver(streams);
        }
    }
}
