//! The plain HTTP/1.1 engine: one epoll instance per thread, libc only.
//!
//! Lean by construction: the request is serialised once and sent with one
//! `send` per request; each socket is registered once, edge-triggered, for
//! input and output, so a request costs no `epoll_ctl`; replies are read
//! into one per-thread buffer and parsed in place by [`ReplyParser`]
//! without allocating; `epoll_wait` is shared by all ready connections. In
//! steady state a keep-alive request is one `send` and one `recv`.
//!
//! Timers (the open model's planned send times, httperf's connection
//! schedule) wait in `epoll_pwait2` with a nanosecond timeout, falling back
//! to `epoll_wait` in milliseconds on kernels before 5.11.

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::net::SocketAddr;
use std::os::fd::RawFd;
use std::time::{Duration, Instant};

use nodebench_core::bench::Cancel;

use crate::client::h1::{Feed, ReplyParser};
use crate::client::{LATE_SLACK, ThreadPlan};
use crate::load::{LoadConfig, Model};
use crate::stats::{ErrorKind, Exchange, ThreadStats};

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
    fd: RawFd,
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
            fd: -1,
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

fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

/// A short lower-case description of an errno for one-line messages.
fn describe(errno: i32) -> String {
    match errno {
        libc::ECONNREFUSED => "connection refused".into(),
        libc::ECONNRESET => "connection reset".into(),
        libc::ETIMEDOUT => "connection timed out".into(),
        libc::EHOSTUNREACH => "no route to host".into(),
        libc::ENETUNREACH => "network unreachable".into(),
        libc::EMFILE | libc::ENFILE => "no file descriptors left".into(),
        libc::EADDRNOTAVAIL => "no local address available".into(),
        e => {
            let s = std::io::Error::from_raw_os_error(e).to_string();
            s.split(" (os error").next().unwrap_or(&s).to_lowercase()
        }
    }
}

/// A socket address in the form `connect(2)` takes.
struct RawAddr {
    storage: libc::sockaddr_storage,
    len: libc::socklen_t,
    family: libc::c_int,
}

impl RawAddr {
    fn new(addr: SocketAddr) -> RawAddr {
        // SAFETY: sockaddr_storage is plain data, large enough for either
        // family; each arm writes a valid sockaddr_in/in6 at its start.
        unsafe {
            let mut storage: libc::sockaddr_storage = std::mem::zeroed();
            match addr {
                SocketAddr::V4(a) => {
                    let sin = &mut *(&mut storage as *mut _ as *mut libc::sockaddr_in);
                    sin.sin_family = libc::AF_INET as libc::sa_family_t;
                    sin.sin_port = a.port().to_be();
                    sin.sin_addr.s_addr = u32::from_ne_bytes(a.ip().octets());
                    RawAddr {
                        storage,
                        len: std::mem::size_of::<libc::sockaddr_in>() as libc::socklen_t,
                        family: libc::AF_INET,
                    }
                }
                SocketAddr::V6(a) => {
                    let sin6 = &mut *(&mut storage as *mut _ as *mut libc::sockaddr_in6);
                    sin6.sin6_family = libc::AF_INET6 as libc::sa_family_t;
                    sin6.sin6_port = a.port().to_be();
                    sin6.sin6_addr.s6_addr = a.ip().octets();
                    sin6.sin6_flowinfo = a.flowinfo();
                    sin6.sin6_scope_id = a.scope_id();
                    RawAddr {
                        storage,
                        len: std::mem::size_of::<libc::sockaddr_in6>() as libc::socklen_t,
                        family: libc::AF_INET6,
                    }
                }
            }
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
    epfd: RawFd,
    addr: RawAddr,
    addr_text: SocketAddr,
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
    /// epoll_pwait2 is not available: wait in milliseconds.
    coarse_wait: bool,
}

/// Runs one worker thread of a plain-HTTP/1.1 load and returns what it measured.
pub fn run_thread(plan: &ThreadPlan, cfg: &LoadConfig, cancel: &Cancel) -> ThreadStats {
    let mut stats = ThreadStats::new(plan.start);
    nodebench_core::affinity::precise_timers();
    let addr = match cfg.target.resolve() {
        Ok(a) => a,
        Err(e) => {
            stats.fatal = Some(e);
            return stats;
        }
    };
    // SAFETY: epoll_create1 has no memory arguments.
    let epfd = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
    if epfd < 0 {
        stats.fatal = Some(format!(
            "cannot create an epoll instance: {}",
            describe(errno())
        ));
        return stats;
    }
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
        epfd,
        addr: RawAddr::new(addr),
        addr_text: addr,
        request: crate::client::serialize_request(cfg),
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
        coarse_wait: false,
    };
    engine.run(cancel);
    for c in &engine.conns {
        if c.fd >= 0 {
            // SAFETY: fd is a socket this engine opened and still owns.
            unsafe { libc::close(c.fd) };
        }
    }
    // SAFETY: epfd is this engine's epoll instance.
    unsafe { libc::close(epfd) };
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
            let n = self.wait(&mut events, wake.saturating_duration_since(now));
            if n == 0 {
                continue;
            }
            for ev in &events[..n] {
                let (bits, key) = (ev.events, ev.u64 as usize);
                // A timestamp per event (one per reply), so latencies do
                // not take the time spent on the events before it.
                self.handle(key, bits, Instant::now());
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

    /// Waits for events up to `timeout`; returns how many arrived.
    fn wait(&mut self, events: &mut [libc::epoll_event], timeout: Duration) -> usize {
        let max = events.len() as libc::c_int;
        let n = if self.coarse_wait {
            let ms = timeout.as_nanos().div_ceil(1_000_000).min(i32::MAX as u128) as libc::c_int;
            // SAFETY: events is a valid buffer of `max` entries.
            unsafe { libc::epoll_wait(self.epfd, events.as_mut_ptr(), max, ms) }
        } else {
            let ts = libc::timespec {
                tv_sec: timeout.as_secs() as libc::time_t,
                tv_nsec: timeout.subsec_nanos() as libc::c_long,
            };
            // SAFETY: events holds `max` entries; ts outlives the call; a
            // null sigmask means none.
            let r = unsafe {
                libc::syscall(
                    libc::SYS_epoll_pwait2,
                    self.epfd,
                    events.as_mut_ptr(),
                    max,
                    &ts as *const libc::timespec,
                    std::ptr::null::<libc::sigset_t>(),
                    0usize,
                )
            };
            if r < 0 && errno() == libc::ENOSYS {
                self.coarse_wait = true;
                return 0;
            }
            r as libc::c_int
        };
        if n < 0 { 0 } else { n as usize }
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

    fn close(&mut self, i: usize) {
        let c = &mut self.conns[i];
        if c.fd >= 0 {
            // SAFETY: the fd is ours; closing also removes it from epoll.
            unsafe { libc::close(c.fd) };
            c.fd = -1;
        }
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
        if c.fd >= 0 {
            c.state = State::Sending;
            self.write(i, now);
            return;
        }
        if let Err(e) = self.connect(i, now) {
            self.connect_failed(i, e);
            return;
        }
        self.write(i, now);
    }

    fn connect(&mut self, i: usize, now: Instant) -> Result<(), i32> {
        // SAFETY: plain socket syscalls on an fd this function owns; the
        // option and address pointers are valid for the given lengths.
        unsafe {
            let fd = libc::socket(
                self.addr.family,
                libc::SOCK_STREAM | libc::SOCK_NONBLOCK | libc::SOCK_CLOEXEC,
                0,
            );
            if fd < 0 {
                return Err(errno());
            }
            let one: libc::c_int = 1;
            libc::setsockopt(
                fd,
                libc::IPPROTO_TCP,
                libc::TCP_NODELAY,
                &one as *const _ as *const libc::c_void,
                std::mem::size_of::<libc::c_int>() as libc::socklen_t,
            );
            let mut ev = libc::epoll_event {
                events: (libc::EPOLLIN | libc::EPOLLOUT | libc::EPOLLRDHUP | libc::EPOLLET) as u32,
                u64: i as u64,
            };
            if libc::epoll_ctl(self.epfd, libc::EPOLL_CTL_ADD, fd, &mut ev) < 0 {
                let e = errno();
                libc::close(fd);
                return Err(e);
            }
            let r = libc::connect(
                fd,
                &self.addr.storage as *const _ as *const libc::sockaddr,
                self.addr.len,
            );
            if r < 0 && errno() != libc::EINPROGRESS {
                let e = errno();
                libc::close(fd);
                return Err(e);
            }
            let c = &mut self.conns[i];
            c.fd = fd;
            c.state = State::Connecting;
            c.connect_start = now;
        }
        Ok(())
    }

    /// Writes (the rest of) the request. On loopback a connect has
    /// normally completed by the time `connect` returns, so the request is
    /// tried at once; EAGAIN waits for the socket's EPOLLOUT edge.
    fn write(&mut self, i: usize, now: Instant) {
        let c = &mut self.conns[i];
        let rest = &self.request[c.written..];
        // SAFETY: rest is a valid buffer; MSG_NOSIGNAL turns SIGPIPE into EPIPE.
        let n = unsafe {
            libc::send(
                c.fd,
                rest.as_ptr() as *const libc::c_void,
                rest.len(),
                libc::MSG_NOSIGNAL,
            )
        };
        if n < 0 {
            let e = errno();
            if e == libc::EAGAIN || e == libc::EWOULDBLOCK {
                return;
            }
            if c.state == State::Connecting {
                self.connect_failed(i, e);
            } else {
                self.request_failed(i, ErrorKind::from_errno(e), now);
            }
            return;
        }
        if c.state == State::Connecting {
            let d = now.saturating_duration_since(c.connect_start);
            self.stats.record_connect(d);
        }
        let c = &mut self.conns[i];
        let n = n as usize;
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
    fn connect_failed(&mut self, i: usize, e: i32) {
        let kind = ErrorKind::from_errno(e);
        if self.stats.connections == 0 {
            // Nothing ever connected: the target is unreachable, so stop
            // with a clear reason instead of piling up errors.
            self.stats.fatal = Some(format!(
                "cannot connect to {}: {}",
                self.addr_text,
                describe(e)
            ));
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
        let err = bits & (libc::EPOLLERR | libc::EPOLLHUP) as u32 != 0;
        match c.state {
            State::Connecting => {
                if err {
                    let e = socket_error(c.fd);
                    self.connect_failed(i, if e == 0 { libc::ECONNRESET } else { e });
                } else if bits & libc::EPOLLOUT as u32 != 0 {
                    self.write(i, now);
                }
            }
            State::Sending => {
                if err {
                    let e = socket_error(c.fd);
                    self.request_failed(i, ErrorKind::from_errno(e), now);
                } else if bits & libc::EPOLLOUT as u32 != 0 {
                    self.write(i, now);
                }
                // A reply may already be arriving (a server that answers
                // before reading the whole request).
                if self.conns[i].state == State::Waiting
                    && bits & (libc::EPOLLIN | libc::EPOLLRDHUP) as u32 != 0
                {
                    self.read(i, bits, now);
                }
            }
            State::Waiting => {
                if bits
                    & (libc::EPOLLIN | libc::EPOLLRDHUP | libc::EPOLLHUP | libc::EPOLLERR) as u32
                    != 0
                {
                    self.read(i, bits, now);
                }
            }
            State::Idle => {
                // Input on an idle keep-alive connection: the server closed
                // it (keep-alive timeout); reconnect on the next request.
                if bits
                    & (libc::EPOLLIN | libc::EPOLLRDHUP | libc::EPOLLHUP | libc::EPOLLERR) as u32
                    != 0
                {
                    self.close(i);
                }
            }
            State::Closed | State::Done => {}
        }
    }

    /// Reads what arrived for connection `i` and completes its reply.
    fn read(&mut self, i: usize, bits: u32, now: Instant) {
        let hup = bits & (libc::EPOLLRDHUP | libc::EPOLLHUP | libc::EPOLLERR) as u32 != 0;
        loop {
            let c = &mut self.conns[i];
            // SAFETY: buf is a valid, writable buffer of its length.
            let n = unsafe {
                libc::recv(
                    c.fd,
                    self.buf.as_mut_ptr() as *mut libc::c_void,
                    self.buf.len(),
                    0,
                )
            };
            if n < 0 {
                let e = errno();
                if e == libc::EAGAIN || e == libc::EWOULDBLOCK {
                    return;
                }
                if e == libc::EINTR {
                    continue;
                }
                self.request_failed(i, ErrorKind::from_errno(e), now);
                return;
            }
            if n == 0 {
                if c.parser.finish_at_eof() {
                    self.complete(i, now, true);
                } else {
                    // The connection ended before the reply did.
                    self.request_failed(i, ErrorKind::Receive, now);
                }
                return;
            }
            let n = n as usize;
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

fn socket_error(fd: RawFd) -> i32 {
    let mut e: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: e and len are valid for getsockopt to fill.
    unsafe {
        libc::getsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_ERROR,
            &mut e as *mut _ as *mut libc::c_void,
            &mut len,
        );
    }
    e
}
