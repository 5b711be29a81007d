//! The plain HTTP/1.1 engine: one epoll instance per thread over
//! non-blocking sockets, as wrk runs its event loops.
//!
//! Lean by construction: the request is serialised once and sent with one
//! `send` per request; each socket is registered once, edge-triggered, for
//! input and output, so a request costs no `epoll_ctl`; replies are read
//! into one per-thread buffer and parsed in place by [`ReplyParser`]
//! without allocating; `epoll_wait` is shared by all ready connections. In
//! steady state a keep-alive request is one `send` and one `recv`.
//! Sockets are owned ([`TcpStream`]): dropping one closes it, which also
//! takes it out of the epoll set.
//!
//! Timers (the open model's planned send times, httperf's connection
//! schedule) wait with a nanosecond timeout ([`Epoll::wait_precise`]).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::os::fd::AsRawFd;
use std::time::{Duration, Instant};

use nodebench_core::bench::Cancel;
use nodebench_core::epoll::{Epoll, HUP_OR_ERR, IN, OUT, Ready};
use socket2::{Domain, SockAddr, Socket, Type};

use crate::client::h1::{Feed, ReplyParser};
use crate::client::plan::{LATE_SLACK, ThreadPlan};
use crate::client::request::serialize_request;
use crate::config::{LoadConfig, Model};
use crate::stats::{ErrorKind, Exchange, ThreadStats};

/// The peer shut down its side (`EPOLLRDHUP`).
const RDHUP: u32 = libc::EPOLLRDHUP as u32;

/// What each socket is registered for, once: input, output and the peer's
/// hang-up, edge-triggered.
const SOCKET_EVENTS: u32 = IN | OUT | RDHUP | libc::EPOLLET as u32;

/// Bytes read per `recv`; a reply up to this size takes one call.
const READ_BUF: usize = 64 * 1024;

/// Longest sleep between checks for timed-out requests.
const MAX_SWEEP: Duration = Duration::from_millis(100);

/// Timer key for the `ConnRate` connection schedule.
const SPAWN: u32 = u32::MAX;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// No socket.
    Closed,
    /// Connecting; the request goes out once connected.
    Connecting,
    /// Part of the request is written; waiting for room to write the rest.
    Sending,
    /// The request is written; waiting for the reply.
    Waiting,
    /// Connected, nothing in flight.
    Idle,
    /// Finished: no more requests for this connection.
    Done,
}

struct Conn {
    /// The connection's socket, when open.
    stream: Option<TcpStream>,
    state: State,
    parser: ReplyParser,
    /// Bytes of the request written so far.
    written: usize,
    /// When the current connect began.
    connect_start: Instant,
    /// When the current request began (its connect, when it opened one).
    sent: Instant,
    /// Open model: when the current request was due.
    planned: Option<Instant>,
    /// When the current reply's first byte came.
    first_byte: Option<Instant>,
    /// Open model: index of this connection's next request.
    next: u64,
    /// `ConnRate`: requests made on this connection.
    calls: u32,
    /// When the connection last became free.
    free_since: Instant,
}

impl Conn {
    fn new(head_request: bool, now: Instant) -> Conn {
        Conn {
            stream: None,
            state: State::Closed,
            parser: ReplyParser::new(head_request),
            written: 0,
            connect_start: now,
            sent: now,
            planned: None,
            first_byte: None,
            next: 0,
            calls: 0,
            free_since: now,
        }
    }

    fn in_flight(&self) -> bool {
        matches!(
            self.state,
            State::Connecting | State::Sending | State::Waiting
        )
    }
}

/// A short lower-case description of a socket error for one-line messages.
fn describe(e: &io::Error) -> String {
    match e.raw_os_error().unwrap_or(0) {
        libc::ECONNREFUSED => "connection refused".into(),
        libc::ECONNRESET => "connection reset".into(),
        libc::ETIMEDOUT => "connection timed out".into(),
        libc::EHOSTUNREACH => "no route to host".into(),
        libc::ENETUNREACH => "network unreachable".into(),
        libc::EMFILE | libc::ENFILE => "no file descriptors left".into(),
        libc::EADDRNOTAVAIL => "no local address available".into(),
        _ => {
            let s = e.to_string();
            s.split(" (os error").next().unwrap_or(&s).to_lowercase()
        }
    }
}

/// What a connection does between requests, from the model.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Pace {
    /// Next request as soon as the last reply completed.
    Closed,
    /// Next request at its planned time.
    Open,
    /// New connections on a schedule, each making `calls` requests.
    ConnRate { calls: u32 },
}

struct Engine<'a> {
    plan: &'a ThreadPlan,
    epoll: Epoll,
    /// The target's address, for `connect` and for messages.
    addr: SocketAddr,
    /// The same address in the form `connect` takes, built once.
    sock_addr: SockAddr,
    request: Vec<u8>,
    pace: Pace,
    /// Close the connection after each request (keep-alive off).
    close_each: bool,
    head_request: bool,
    timeout: Duration,
    conns: Vec<Conn>,
    /// `ConnRate`: slots free for the next connection.
    free_slots: Vec<u32>,
    /// `ConnRate`: connections opened so far by this thread.
    spawned: u64,
    /// `ConnRate`: no more connections to open.
    spawn_done: bool,
    timers: BinaryHeap<Reverse<(Instant, u32)>>,
    buf: Vec<u8>,
    /// Connections not yet Done (closed/open model) or open (`ConnRate`).
    active: usize,
    /// Connections whose request failed, to go on with in the next loop
    /// round (deferred, so a run of failures never recurses).
    ready: Vec<u32>,
    /// The other half of `ready`, swapped in to drain it without allocating.
    ready_spare: Vec<u32>,
    stats: ThreadStats,
}

/// Runs one worker thread of a plain-HTTP/1.1 load and returns what it measured.
pub fn run_thread(plan: &ThreadPlan, cfg: &LoadConfig, cancel: &Cancel) -> ThreadStats {
    let mut stats = ThreadStats::new(plan.start);
    nodebench_core::affinity::precise_timers();
    let addr = match cfg.target.resolve() {
        Ok(a) => a,
        Err(e) => {
            stats.fatal = Some(e.to_string());
            return stats;
        }
    };
    let epoll = match Epoll::new() {
        Ok(e) => e,
        Err(e) => {
            stats.fatal = Some(format!("cannot create an epoll instance: {}", describe(&e)));
            return stats;
        }
    };
    let pace = match cfg.model {
        Model::Closed { .. } => Pace::Closed,
        Model::Open { .. } => Pace::Open,
        Model::ConnRate { calls_per_conn, .. } => Pace::ConnRate {
            calls: calls_per_conn,
        },
    };
    let head_request = cfg.request.method.eq_ignore_ascii_case("HEAD");
    let now = Instant::now();
    let fixed = if matches!(pace, Pace::ConnRate { .. }) {
        0
    } else {
        plan.connections as usize
    };
    let mut engine = Engine {
        plan,
        epoll,
        addr,
        sock_addr: SockAddr::from(addr),
        request: serialize_request(cfg),
        pace,
        close_each: !cfg.keepalive && !matches!(pace, Pace::ConnRate { .. }),
        head_request,
        timeout: cfg.timeout,
        conns: (0..fixed).map(|_| Conn::new(head_request, now)).collect(),
        free_slots: Vec::new(),
        spawned: 0,
        spawn_done: false,
        timers: BinaryHeap::with_capacity(fixed + 1),
        buf: vec![0u8; READ_BUF],
        active: fixed,
        ready: Vec::with_capacity(fixed),
        ready_spare: Vec::with_capacity(fixed),
        stats,
    };
    engine.run(cancel);
    // The sockets and the epoll instance close as the engine drops.
    engine.stats
}

impl Engine<'_> {
    fn run(&mut self, cancel: &Cancel) {
        let now = Instant::now();
        match self.pace {
            Pace::Closed | Pace::Open => {
                for i in 0..self.conns.len() {
                    self.next_request(i, now);
                }
            }
            Pace::ConnRate { .. } => {
                if self.plan.connections == 0 {
                    self.spawn_done = true;
                } else {
                    self.timers
                        .push(Reverse((self.plan.conn_planned(0), SPAWN)));
                }
            }
        }
        let cap = self.conns.len().clamp(16, 1024);
        let mut events = vec![libc::epoll_event { events: 0, u64: 0 }; cap];
        let mut ready: Vec<Ready> = Vec::with_capacity(cap);
        let mut next_sweep = now + self.sweep_interval();
        loop {
            if cancel.is_cancelled() || self.stats.fatal.is_some() {
                break;
            }
            let now = Instant::now();
            self.fire_timers(now);
            if !self.ready.is_empty() {
                let mut batch = std::mem::take(&mut self.ready_spare);
                std::mem::swap(&mut batch, &mut self.ready);
                for &i in &batch {
                    self.next_request(i as usize, now);
                }
                batch.clear();
                self.ready_spare = batch;
            }
            if self.finished() {
                break;
            }
            if now >= next_sweep {
                self.sweep(now);
                next_sweep = now + self.sweep_interval();
                if self.finished() {
                    break;
                }
            }
            let mut wake = next_sweep;
            if let Some(Reverse((t, _))) = self.timers.peek() {
                wake = wake.min(*t);
            }
            if !self.ready.is_empty() {
                wake = now;
            }
            // A failed wait (it cannot fail with a valid buffer) is an
            // empty round: the loop checks the clock and cancellation again.
            let timeout = wake.saturating_duration_since(now);
            if self
                .epoll
                .wait_precise(&mut events, timeout, &mut ready)
                .is_err()
            {
                continue;
            }
            for ev in &ready {
                // A timestamp per event (one per reply), so latencies do
                // not take the time spent on the events before it.
                self.handle(ev.token as usize, ev.events, Instant::now());
            }
        }
    }

    fn finished(&self) -> bool {
        match self.pace {
            Pace::ConnRate { .. } => self.spawn_done && self.active == 0,
            _ => self.active == 0,
        }
    }

    fn sweep_interval(&self) -> Duration {
        (self.timeout / 4).clamp(Duration::from_millis(1), MAX_SWEEP)
    }

    fn fire_timers(&mut self, now: Instant) {
        while let Some(&Reverse((t, key))) = self.timers.peek() {
            if t > now {
                break;
            }
            self.timers.pop();
            if key == SPAWN {
                self.spawn(t, now);
            } else {
                self.next_request(key as usize, now);
            }
        }
    }

    /// `ConnRate`: opens the connection due at `due`, and schedules the next.
    fn spawn(&mut self, due: Instant, now: Instant) {
        if !self.plan.claim() {
            self.spawn_done = true;
            return;
        }
        self.spawned += 1;
        if self.spawned >= u64::from(self.plan.connections) {
            self.spawn_done = true;
        } else {
            let next = self.plan.conn_planned(self.spawned);
            self.timers.push(Reverse((next, SPAWN)));
        }
        if now.saturating_duration_since(due) > LATE_SLACK {
            self.stats.sent_late += 1;
        }
        let i = match self.free_slots.pop() {
            Some(i) => i as usize,
            None => {
                self.conns.push(Conn::new(self.head_request, now));
                self.conns.len() - 1
            }
        };
        self.active += 1;
        let c = &mut self.conns[i];
        c.calls = 1;
        c.planned = Some(due);
        self.start_request(i, now);
    }

    /// The connection is free: start its next request, schedule it, or
    /// finish the connection.
    fn next_request(&mut self, i: usize, now: Instant) {
        match self.pace {
            Pace::Closed => {
                if self.plan.past_deadline(now) || !self.plan.claim() {
                    self.finish(i);
                    return;
                }
                self.conns[i].planned = None;
                self.start_request(i, now);
            }
            Pace::Open => {
                let next = self.conns[i].next;
                let planned = self.plan.planned(i, next);
                if !self.plan.slot_exists(i, next)
                    || self.plan.deadline.is_some_and(|d| planned >= d)
                {
                    self.finish(i);
                    return;
                }
                if planned > now {
                    self.timers.push(Reverse((planned, i as u32)));
                    return;
                }
                if !self.plan.claim() {
                    self.finish(i);
                    return;
                }
                let c = &mut self.conns[i];
                c.next += 1;
                if c.free_since <= planned && now.saturating_duration_since(planned) > LATE_SLACK {
                    self.stats.sent_late += 1;
                }
                c.planned = Some(planned);
                self.start_request(i, now);
            }
            Pace::ConnRate { calls } => {
                let c = &mut self.conns[i];
                if c.calls >= calls {
                    self.finish(i);
                    return;
                }
                c.calls += 1;
                c.planned = None;
                self.start_request(i, now);
            }
        }
    }

    /// Finishes connection `i`: closes it and frees its slot.
    fn finish(&mut self, i: usize) {
        if self.conns[i].state == State::Done {
            return;
        }
        self.close(i);
        self.conns[i].state = State::Done;
        self.active -= 1;
        if matches!(self.pace, Pace::ConnRate { .. }) {
            self.free_slots.push(i as u32);
        }
    }

    /// Closes connection `i`'s socket (dropping it also takes it out of
    /// the epoll set) and readies the connection for a new one.
    fn close(&mut self, i: usize) {
        let c = &mut self.conns[i];
        c.stream = None;
        c.state = State::Closed;
        c.written = 0;
        c.parser.reset();
        c.first_byte = None;
    }

    /// Starts a request on connection `i`, connecting first if needed.
    fn start_request(&mut self, i: usize, now: Instant) {
        let c = &mut self.conns[i];
        c.sent = now;
        c.first_byte = None;
        c.written = 0;
        c.parser.reset();
        if c.stream.is_some() {
            c.state = State::Sending;
            self.write(i, now);
            return;
        }
        if let Err(e) = self.connect(i) {
            self.connect_failed(i, &e);
            return;
        }
        self.write(i, now);
    }

    /// Opens connection `i`'s socket (non-blocking, close-on-exec,
    /// `TCP_NODELAY`), registers it and starts the connect: four syscalls,
    /// `socket`, `setsockopt`, `epoll_ctl` and `connect`. A socket that
    /// fails on the way is closed as it drops.
    fn connect(&mut self, i: usize) -> io::Result<()> {
        // The connect time runs from here to the first write that goes
        // through (curl's time_connect: socket to established).
        let start = Instant::now();
        let socket = Socket::new(
            Domain::for_address(self.addr),
            Type::STREAM.nonblocking(),
            None,
        )?;
        let _ = socket.set_tcp_nodelay(true);
        self.epoll
            .add(socket.as_raw_fd(), i as u64, SOCKET_EVENTS)?;
        match socket.connect(&self.sock_addr) {
            Ok(()) => {}
            Err(e) if e.raw_os_error() == Some(libc::EINPROGRESS) => {}
            Err(e) => return Err(e),
        }
        let c = &mut self.conns[i];
        c.stream = Some(TcpStream::from(socket));
        c.state = State::Connecting;
        c.connect_start = start;
        Ok(())
    }

    /// Writes (the rest of) the request. On loopback a connect has
    /// normally completed by the time `connect` returns, so the request is
    /// tried at once; EAGAIN waits for the socket's EPOLLOUT edge.
    fn write(&mut self, i: usize, now: Instant) {
        let c = &mut self.conns[i];
        let Some(stream) = &c.stream else {
            return;
        };
        // One `send` (MSG_NOSIGNAL: a closed peer is EPIPE, not SIGPIPE).
        let n = match (&*stream).write(&self.request[c.written..]) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
            Err(e) => {
                if c.state == State::Connecting {
                    self.connect_failed(i, &e);
                } else {
                    self.request_failed(i, kind_of(&e), now);
                }
                return;
            }
        };
        if c.state == State::Connecting {
            // Read the clock now: `now` may be the moment the connect began
            // (a loopback connect completes inside `connect`).
            let d = Instant::now().saturating_duration_since(c.connect_start);
            self.stats.record_connect(d);
        }
        let c = &mut self.conns[i];
        c.written += n;
        self.stats.bytes_out += n as u64;
        if c.written < self.request.len() {
            c.state = State::Sending;
        } else {
            c.state = State::Waiting;
            self.stats.requests_sent += 1;
        }
    }

    /// A connect failed with `e` before any byte of the request went out.
    fn connect_failed(&mut self, i: usize, e: &io::Error) {
        let kind = kind_of(e);
        if self.stats.connections == 0 {
            // Nothing ever connected: the target is unreachable, so stop
            // with a clear reason instead of piling up errors.
            self.stats.fatal = Some(format!("cannot connect to {}: {}", self.addr, describe(e)));
        }
        self.request_failed(i, kind, Instant::now());
    }

    /// The current request of connection `i` failed: count it, drop the
    /// connection, and go on with the next request in the next loop round.
    fn request_failed(&mut self, i: usize, kind: ErrorKind, now: Instant) {
        self.stats.record_error(kind);
        self.close(i);
        if matches!(self.pace, Pace::ConnRate { .. }) || self.stats.fatal.is_some() {
            self.finish(i);
            return;
        }
        self.conns[i].free_since = now;
        self.ready.push(i as u32);
    }

    fn handle(&mut self, i: usize, bits: u32, now: Instant) {
        let Some(c) = self.conns.get(i) else {
            return;
        };
        let err = bits & HUP_OR_ERR != 0;
        match c.state {
            State::Connecting => {
                if err {
                    let e = socket_error(c.stream.as_ref())
                        .unwrap_or_else(|| io::Error::from_raw_os_error(libc::ECONNRESET));
                    self.connect_failed(i, &e);
                } else if bits & OUT != 0 {
                    self.write(i, now);
                }
            }
            State::Sending => {
                if err {
                    let kind = socket_error(c.stream.as_ref())
                        .map_or(ErrorKind::Exception, |e| kind_of(&e));
                    self.request_failed(i, kind, now);
                } else if bits & OUT != 0 {
                    self.write(i, now);
                }
                // A reply may already be arriving (a server that answers
                // before reading the whole request).
                if self.conns[i].state == State::Waiting && bits & (IN | RDHUP) != 0 {
                    self.read(i, bits, now);
                }
            }
            State::Waiting => {
                if bits & (IN | RDHUP | HUP_OR_ERR) != 0 {
                    self.read(i, bits, now);
                }
            }
            State::Idle => {
                // Input on an idle keep-alive connection: the server closed
                // it (keep-alive timeout); reconnect on the next request.
                if bits & (IN | RDHUP | HUP_OR_ERR) != 0 {
                    self.close(i);
                }
            }
            State::Closed | State::Done => {}
        }
    }

    /// Reads what arrived for connection `i` and completes its reply.
    fn read(&mut self, i: usize, bits: u32, now: Instant) {
        let hup = bits & (RDHUP | HUP_OR_ERR) != 0;
        loop {
            let c = &mut self.conns[i];
            let Some(stream) = &c.stream else {
                return;
            };
            // One `recv` into the thread's buffer.
            let n = match (&*stream).read(&mut self.buf) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.request_failed(i, kind_of(&e), now);
                    return;
                }
            };
            if n == 0 {
                if c.parser.finish_at_eof() {
                    self.complete(i, now, true);
                } else {
                    // The connection ended before the reply did.
                    self.request_failed(i, ErrorKind::Receive, now);
                }
                return;
            }
            self.stats.bytes_in += n as u64;
            if c.first_byte.is_none() {
                c.first_byte = Some(now);
            }
            match c.parser.feed(&self.buf[..n], &mut self.stats.server) {
                Feed::More => {
                    // Edge-triggered: read on while the buffer filled, the
                    // body runs to EOF, or the peer has hung up.
                    if n < self.buf.len() && !hup && !c.parser.until_close() {
                        return;
                    }
                }
                Feed::Done(used) => {
                    if used < n {
                        // More bytes than one reply: nothing was pipelined,
                        // so the server broke the protocol.
                        self.request_failed(i, ErrorKind::Exception, now);
                    } else {
                        self.complete(i, now, false);
                    }
                    return;
                }
                Feed::Bad => {
                    self.request_failed(i, ErrorKind::Exception, now);
                    return;
                }
            }
        }
    }

    /// Records the completed reply of connection `i` and moves it on.
    fn complete(&mut self, i: usize, now: Instant, eof: bool) {
        let c = &mut self.conns[i];
        let status = c.parser.status;
        let body = c.parser.body_bytes;
        let length_mismatch =
            (200..300).contains(&status) && self.stats.document_length.is_some_and(|d| d != body);
        let e = Exchange {
            planned: c.planned,
            sent: c.sent,
            first_byte: c.first_byte.unwrap_or(now),
            done: now,
            status,
            header_bytes: c.parser.header_bytes,
            body_bytes: body,
            length_mismatch,
        };
        let close = eof || c.parser.close || self.close_each;
        self.stats.record_exchange(&e);
        if close {
            self.close(i);
        } else {
            let c = &mut self.conns[i];
            c.state = State::Idle;
            c.parser.reset();
        }
        self.conns[i].free_since = now;
        self.next_request(i, now);
    }

    /// Fails requests that ran past the timeout.
    fn sweep(&mut self, now: Instant) {
        for i in 0..self.conns.len() {
            let c = &self.conns[i];
            if c.in_flight() && now.saturating_duration_since(c.sent) >= self.timeout {
                let kind = if c.state == State::Connecting {
                    ErrorKind::SocketTimeout
                } else {
                    ErrorKind::ClientTimeout
                };
                self.request_failed(i, kind, now);
            }
        }
    }
}

/// The pending error of a socket (`SO_ERROR`), if any.
fn socket_error(stream: Option<&TcpStream>) -> Option<io::Error> {
    stream.and_then(|s| s.take_error().ok().flatten())
}

/// The error kind of a failed socket call, by its errno.
fn kind_of(e: &io::Error) -> ErrorKind {
    ErrorKind::from_errno(e.raw_os_error().unwrap_or(0))
}
