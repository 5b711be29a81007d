//! `nodebench http serve`: the built-in target server. Pages of any size
//! generated on the fly (`/bytes/<size>`, `/1150`, `/3985`, `/100k`, `/10G`),
//! a CPU-bound page (`/cpu/<n>`) and a delayed page (`/delay/<duration>`);
//! [`ENDPOINTS`] lists them. Pages another area answers (`--db`: `/db/ir`)
//! come in as core's `Endpoint`s, one handler per worker (`dynamic`).
//!
//! Design: a small thread-per-core server. Every worker runs its own
//! level-triggered epoll loop over non-blocking sockets. One accepting
//! thread takes the new connections off the listener and deals them out
//! round-robin, the k-th to worker k mod n, through a per-worker queue and
//! eventfd (`accept`), so the workers' shares of the connections differ by
//! at most one; a connection stays on the worker it was dealt to. Each
//! worker counts the responses it wrote ([`Counts::requests_per_worker`]).
//! Delayed replies wait in a per-worker deadline heap, so they hold up
//! nothing else; `/cpu` work runs on the worker, as a CPU-bound page
//! occupies a PHP worker. Keep-alive follows Apache's defaults: 100 requests
//! per connection (the 100th response says `Connection: close`), idle
//! connections closed after 15 s. After a closing response the server shuts
//! its side and drains what the client still sends (a lingering close, as
//! Apache does) so the client reads the whole response instead of a reset.

mod accept;
mod config;
mod dynamic;
mod endpoints;
mod handle;
mod head;
pub mod http1;

use nodebench_core::bench::BenchError;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpStream};
use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicI32, AtomicU64, Ordering};
use std::sync::{Arc, mpsc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime};

use nodebench_core::bench::Cancel;
use nodebench_core::cputime;

pub use config::{
    DEFAULT_KEEPALIVE_REQUESTS, DEFAULT_KEEPALIVE_TIMEOUT, MAX_THREADS, ServerConfig,
};
pub use endpoints::{
    DEFAULT_CPU_ROUNDS, ENDPOINTS, MAX_CPU_ROUNDS, MAX_DELAY, PATTERN, SERVED_FORMS, cpu_work,
    status,
};
pub use handle::{Counts, ServerHandle};

use accept::{Inbox, Listener};
use dynamic::Dynamic;
use endpoints::{Body, Reply};
use handle::{Counters, Served};
use head::Heads;
use http1::{MAX_HEAD, Version};
use nodebench_core::epoll::{Epoll, HUP_OR_ERR, IN, OUT, Ready};

/// How long a request head or a response may stall before the connection
/// is dropped (Apache's `Timeout`, shortened).
const STALL_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a lingering close drains the client's leftovers.
const LINGER: Duration = Duration::from_secs(2);
/// How often idle and stalled connections are looked for.
const SWEEP_EVERY: Duration = Duration::from_millis(50);
/// Longest a worker sleeps before looking at the stop flag.
const CANCEL_POLL: Duration = Duration::from_millis(100);
/// Bytes read per `read` call.
const READ_CHUNK: usize = 4096;
/// Generated bodies up to this size are copied behind the head and go out
/// in one `write`; larger ones are written straight from the pattern buffer.
const INLINE_BODY: u64 = 64 * 1024;
/// Bytes written per `write` call for large bodies.
const WRITE_CHUNK: usize = 256 * 1024;
/// Bytes one connection may write per wake-up before the worker serves the others.
const WRITE_BUDGET: u64 = 4 << 20;
/// The epoll token of a worker's inbox (connection tokens are
/// `generation << 32 | index`).
const INBOX: u64 = u64::MAX;

/// What every worker reads.
struct Shared {
    config: ServerConfig,
    counters: Counters,
    /// Each worker's kernel thread id once it runs (0 before), for its
    /// scheduler times.
    tids: Vec<AtomicI32>,
    /// Each worker's inbox of connections the accepting thread dealt it.
    inboxes: Vec<Inbox>,
}

/// A bound server, not yet serving.
pub struct Server {
    shared: Arc<Shared>,
    listener: Listener,
    epolls: Vec<Epoll>,
    /// Each worker's handlers of the dynamic endpoints.
    dynamic: Vec<Vec<Dynamic>>,
    addr: SocketAddr,
}

impl Server {
    /// Binds the listening socket, prepares the workers' event loops and
    /// opens each worker's handlers of the dynamic endpoints; the error
    /// names the flag at fault.
    pub fn bind(config: ServerConfig) -> Result<Server, BenchError> {
        if config.threads == 0 || config.threads > MAX_THREADS {
            return Err(BenchError::System(format!(
                "--threads: expected 1 to {MAX_THREADS} worker threads, got {}",
                config.threads
            )));
        }
        if config.keepalive_timeout.is_zero() {
            return Err(BenchError::System(
                "--keepalive-timeout: expected a positive duration like 15s".into(),
            ));
        }
        let dynamic = dynamic::open(&config).map_err(BenchError::System)?;
        let listener = Listener::bind(config.bind).map_err(BenchError::System)?;
        let addr = listener
            .local_addr()
            .map_err(|e| BenchError::System(format!("--bind {}: {e}", config.bind)))?;
        let inboxes = (0..config.threads)
            .map(|_| {
                Inbox::new()
                    .map_err(|e| BenchError::System(format!("cannot create an eventfd: {e}")))
            })
            .collect::<Result<Vec<_>, BenchError>>()?;
        let epolls = inboxes
            .iter()
            .map(|inbox| {
                let ep = Epoll::new().map_err(|e| {
                    BenchError::System(format!("cannot create an epoll instance: {e}"))
                })?;
                ep.add(inbox.fd(), INBOX, IN).map_err(|e| {
                    BenchError::System(format!("cannot watch a worker's eventfd: {e}"))
                })?;
                Ok(ep)
            })
            .collect::<Result<Vec<_>, BenchError>>()?;
        Ok(Server {
            shared: Arc::new(Shared {
                inboxes,
                tids: (0..config.threads).map(|_| AtomicI32::new(0)).collect(),
                counters: Counters {
                    served: (0..config.threads).map(|_| Served::default()).collect(),
                    connections: AtomicU64::new(0),
                },
                config,
            }),
            listener,
            epolls,
            dynamic,
            addr,
        })
    }

    /// The bound address (with the real port when 0 was asked for).
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// Responses fully written so far (every status, 404 and 400 included).
    pub fn requests_served(&self) -> u64 {
        self.counts().requests_served()
    }

    /// Connections accepted so far.
    pub fn connections_accepted(&self) -> u64 {
        self.counts().connections_accepted()
    }

    /// Responses each worker thread wrote so far, in worker order.
    pub fn requests_per_worker(&self) -> Vec<u64> {
        self.counts().requests_per_worker()
    }

    /// A live view of the counters, still readable after [`Server::serve`]
    /// returns.
    pub fn counts(&self) -> Counts {
        Counts(self.shared.clone())
    }

    /// Starts the workers and the accepting thread in the background; the
    /// handle stops them. Should the system refuse the accepting thread,
    /// the listener is closed (connections are refused).
    pub fn spawn(self) -> ServerHandle {
        let cancel = Cancel::new();
        let workers = start(
            self.listener,
            self.epolls,
            self.dynamic,
            &self.shared,
            &cancel,
        )
        .unwrap_or_default();
        ServerHandle {
            counts: Counts(self.shared),
            addr: self.addr,
            cancel,
            workers,
        }
    }

    /// Serves until `cancel` is set, then returns (the first thread's
    /// error, if any).
    pub fn serve(self, cancel: &Cancel) -> Result<(), BenchError> {
        let workers = start(
            self.listener,
            self.epolls,
            self.dynamic,
            &self.shared,
            cancel,
        )
        .map_err(BenchError::System)?;
        let mut first_error = Ok(());
        for w in workers {
            let outcome = w
                .join()
                .unwrap_or_else(|_| Err("a server worker panicked".into()));
            if first_error.is_ok() {
                first_error = outcome;
            }
        }
        first_error.map_err(BenchError::System)
    }
}

/// Starts the accepting thread, then one worker thread per event loop,
/// and tells the accepting thread which workers started: a worker the
/// system refuses is left out (the others still serve). Fails when the
/// accepting thread is refused (which closes the listener).
fn start(
    listener: Listener,
    epolls: Vec<Epoll>,
    dynamic: Vec<Vec<Dynamic>>,
    shared: &Arc<Shared>,
    cancel: &Cancel,
) -> Result<Vec<JoinHandle<Result<(), String>>>, String> {
    let (tell, started) = mpsc::channel();
    let acceptor = {
        let (shared, cancel) = (shared.clone(), cancel.clone());
        std::thread::Builder::new()
            .name("http-accept".into())
            .spawn(move || accept::run(listener, &shared.inboxes, started, &cancel))
            .map_err(|e| format!("cannot start the server's accepting thread: {e}"))?
    };
    let mut threads = vec![acceptor];
    let mut live = Vec::new();
    for (i, (epoll, dynamic)) in epolls.into_iter().zip(dynamic).enumerate() {
        let (shared, cancel) = (shared.clone(), cancel.clone());
        let worker = std::thread::Builder::new()
            .name(format!("http-serve-{i}"))
            .spawn(move || {
                shared.tids[i].store(cputime::current_tid(), Ordering::Relaxed);
                Worker::new(&shared, i, epoll, dynamic).run(&cancel)
            });
        if let Ok(w) = worker {
            threads.push(w);
            live.push(i);
        }
    }
    let _ = tell.send(live);
    Ok(threads)
}

/// Where a connection is in its request/response cycle.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Waiting for (the rest of) a request, or discarding a request body.
    Reading,
    /// A response is prepared and waits for its deadline (`/delay`).
    Delayed(Instant),
    /// Writing a response.
    Writing,
    /// The last response went out; draining the client's leftovers until it closes.
    Lingering(Instant),
}

/// How a response answers its request.
#[derive(Debug, Clone, Copy)]
struct Framing {
    /// HEAD: the head only, with the body's length.
    head_only: bool,
    /// The request's version.
    version: Version,
    /// The client asked to keep the connection.
    keep_alive: bool,
    /// Send `100 Continue` first (the client sent `Expect: 100-continue`).
    send_continue: bool,
}

impl Framing {
    /// For a request that could not be read: close afterwards.
    const CLOSING: Framing = Framing {
        head_only: false,
        version: Version::Http11,
        keep_alive: false,
        send_continue: false,
    };
}

/// What one write pass achieved.
enum Flush {
    /// The whole response is out.
    Done,
    /// The socket buffer is full, or this connection used its share of the
    /// wake-up; wait for writability.
    Pending,
}

/// The part of a request body still to read and throw away.
enum Discard {
    /// None: the next bytes are the next request.
    Nothing,
    /// This many bytes (`Content-Length`).
    Bytes(u64),
    /// Up to the end of a chunked body.
    Chunked(http1::ChunkedBody),
}

struct Conn {
    stream: TcpStream,
    token: u64,
    phase: Phase,
    /// Received bytes not yet consumed.
    inbuf: Vec<u8>,
    /// The request body still to read and discard.
    discard: Discard,
    /// The response head (and a small body), and how much of it is written.
    out: Vec<u8>,
    out_pos: usize,
    /// Generated body bytes still to write after `out`, and how many went.
    body_left: u64,
    body_sent: u64,
    /// Responses started on this connection.
    responses: u32,
    /// Close once the current response is out.
    close_after: bool,
    /// Last progress (bytes in or out).
    last_active: Instant,
    /// Events the connection is registered for.
    interest: u32,
}

/// The pattern, repeated to fill one large write from any offset.
fn pattern_buffer() -> &'static [u8] {
    static BUF: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    BUF.get_or_init(|| {
        PATTERN
            .iter()
            .copied()
            .cycle()
            .take(WRITE_CHUNK + PATTERN.len())
            .collect()
    })
}

/// The part of a worker a connection needs while it runs.
struct Env<'a> {
    epoll: &'a Epoll,
    config: &'a ServerConfig,
    /// This worker's response count.
    served: &'a AtomicU64,
    timers: &'a mut BinaryHeap<Reverse<(Instant, u64)>>,
    dynamic: &'a mut [Dynamic],
    heads: &'a Heads,
}

impl Conn {
    fn new(stream: TcpStream, token: u64, now: Instant) -> Conn {
        Conn {
            stream,
            token,
            phase: Phase::Reading,
            inbuf: Vec::new(),
            discard: Discard::Nothing,
            out: Vec::new(),
            out_pos: 0,
            body_left: 0,
            body_sent: 0,
            responses: 0,
            close_after: false,
            last_active: now,
            interest: IN,
        }
    }

    fn want(&mut self, env: &Env, events: u32) -> io::Result<()> {
        if self.interest != events {
            env.epoll
                .modify(self.stream.as_raw_fd(), self.token, events)?;
            self.interest = events;
        }
        Ok(())
    }

    /// Advances the connection as far as it can go without blocking; false
    /// when it should be closed.
    fn drive(&mut self, env: &mut Env, mut readable: bool, now: Instant) -> bool {
        self.step(env, &mut readable, now).unwrap_or(false)
    }

    fn step(&mut self, env: &mut Env, readable: &mut bool, now: Instant) -> io::Result<bool> {
        loop {
            match self.phase {
                Phase::Delayed(_) => return Ok(true),
                Phase::Lingering(_) => {
                    let mut sink = [0u8; READ_CHUNK];
                    while *readable {
                        match self.stream.read(&mut sink) {
                            Ok(0) => return Ok(false),
                            Ok(_) => {}
                            Err(e) if e.kind() == io::ErrorKind::WouldBlock => *readable = false,
                            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                            Err(_) => return Ok(false),
                        }
                    }
                    return Ok(true);
                }
                Phase::Writing => match self.flush(now)? {
                    Flush::Pending => {
                        self.want(env, OUT)?;
                        return Ok(true);
                    }
                    Flush::Done => {
                        env.served.fetch_add(1, Ordering::Relaxed);
                        if self.close_after {
                            let _ = self.stream.shutdown(Shutdown::Write);
                            self.phase = Phase::Lingering(now + LINGER);
                            self.inbuf = Vec::new();
                            self.want(env, IN)?;
                        } else {
                            self.phase = Phase::Reading;
                        }
                    }
                },
                Phase::Reading => {
                    let body_left = match &mut self.discard {
                        Discard::Nothing => false,
                        Discard::Bytes(left) => {
                            let n = (*left).min(self.inbuf.len() as u64);
                            self.inbuf.drain(..n as usize);
                            *left -= n;
                            *left > 0
                        }
                        Discard::Chunked(body) => match body.skip(&self.inbuf) {
                            Ok((n, ended)) => {
                                self.inbuf.drain(..n);
                                !ended
                            }
                            // The reply went out already; the framing is lost.
                            Err(_) => return Ok(false),
                        },
                    };
                    if !body_left {
                        self.discard = Discard::Nothing;
                        if self.take_request(env, now) {
                            continue;
                        }
                    }
                    if !*readable {
                        self.want(env, IN)?;
                        return Ok(true);
                    }
                    let old = self.inbuf.len();
                    self.inbuf.resize(old + READ_CHUNK, 0);
                    let got = self.stream.read(&mut self.inbuf[old..]);
                    self.inbuf.truncate(old + *got.as_ref().unwrap_or(&0));
                    match got {
                        Ok(0) => return Ok(false),
                        Ok(n) => {
                            self.last_active = now;
                            *readable = n == READ_CHUNK;
                        }
                        Err(e) if e.kind() == io::ErrorKind::WouldBlock => *readable = false,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(e) => return Err(e),
                    }
                }
            }
        }
    }

    /// Parses the next request in `inbuf` and prepares its response; false
    /// when no complete request head is there yet.
    fn take_request(&mut self, env: &mut Env, now: Instant) -> bool {
        let skip = http1::leading_blank_lines(&self.inbuf);
        if skip > 0 {
            self.inbuf.drain(..skip);
        }
        let Some(end) = http1::head_end(&self.inbuf) else {
            if self.inbuf.len() >= MAX_HEAD {
                let text = format!("431 request head longer than {MAX_HEAD} bytes\n");
                self.respond(env, 431, Body::Text(text), Framing::CLOSING);
                self.phase = Phase::Writing;
                return true;
            }
            return false;
        };
        let reply = match http1::parse(&self.inbuf[..end]) {
            Ok(head) => {
                let head_only = head.method == "HEAD";
                let method = if head_only { "GET" } else { head.method };
                self.discard = if head.chunked {
                    Discard::Chunked(http1::ChunkedBody::default())
                } else if head.content_length > 0 {
                    Discard::Bytes(head.content_length)
                } else {
                    Discard::Nothing
                };
                let framing = Framing {
                    head_only,
                    version: head.version,
                    keep_alive: head.keep_alive,
                    send_continue: head.expect_continue
                        && (head.content_length > 0 || head.chunked),
                };
                let reply = dynamic::route(env.dynamic, method, head.path, head.query)
                    .unwrap_or_else(|| endpoints::route(method, head.path));
                Ok((reply, framing))
            }
            Err(r) => Err(r),
        };
        self.inbuf.drain(..end);
        match reply {
            Ok((Reply::Now(r), framing)) => {
                self.respond(env, r.status, r.body, framing);
                self.phase = Phase::Writing;
            }
            Ok((Reply::After(delay, r), framing)) => {
                self.respond(env, r.status, r.body, framing);
                let deadline = now + delay;
                self.phase = Phase::Delayed(deadline);
                env.timers.push(Reverse((deadline, self.token)));
                // Nothing to watch until the deadline but errors and hang-ups.
                if self.want(env, 0).is_err() {
                    self.close_after = true;
                }
            }
            Err(rejection) => {
                let text = format!("{} {}\n", rejection.status, rejection.reason);
                self.respond(env, rejection.status, Body::Text(text), Framing::CLOSING);
                self.phase = Phase::Writing;
            }
        }
        true
    }

    /// Writes the response head (and a small body) into `out` and sets up a
    /// large body; decides whether the connection closes afterwards.
    fn respond(&mut self, env: &Env, status: u16, body: Body, framing: Framing) {
        self.responses = self.responses.saturating_add(1);
        let limit = env.config.keepalive_requests;
        let framing_lost = matches!(status, 400 | 431 | 505);
        self.close_after =
            !framing.keep_alive || framing_lost || (limit > 0 && self.responses >= limit);
        self.out.clear();
        self.out_pos = 0;
        self.body_sent = 0;
        self.body_left = 0;
        if framing.send_continue {
            // The client holds its body back until it sees this.
            self.out.extend_from_slice(b"HTTP/1.1 100 Continue\r\n\r\n");
        }
        env.heads.write(&mut self.out, status, body.len());
        if self.close_after {
            self.out.extend_from_slice(b"Connection: close\r\n");
        } else if framing.version == Version::Http10 {
            self.out.extend_from_slice(b"Connection: keep-alive\r\n");
        }
        if status == 405 {
            self.out.extend_from_slice(b"Allow: GET, HEAD, POST\r\n");
        }
        self.out.extend_from_slice(b"\r\n");
        if framing.head_only {
            return;
        }
        match body {
            Body::Text(t) => self.out.extend_from_slice(t.as_bytes()),
            Body::Pattern(n) if n <= INLINE_BODY => {
                self.out.extend_from_slice(&pattern_buffer()[..n as usize]);
            }
            Body::Pattern(n) => self.body_left = n,
        }
    }

    /// Writes what is pending of the current response.
    fn flush(&mut self, now: Instant) -> io::Result<Flush> {
        while self.out_pos < self.out.len() {
            match self.stream.write(&self.out[self.out_pos..]) {
                Ok(n) => {
                    self.out_pos += n;
                    self.last_active = now;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(Flush::Pending),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        let mut budget = WRITE_BUDGET;
        while self.body_left > 0 {
            if budget == 0 {
                return Ok(Flush::Pending);
            }
            let offset = (self.body_sent % PATTERN.len() as u64) as usize;
            let len = self.body_left.min(WRITE_CHUNK as u64) as usize;
            match self.stream.write(&pattern_buffer()[offset..offset + len]) {
                Ok(n) => {
                    self.body_left -= n as u64;
                    self.body_sent += n as u64;
                    budget = budget.saturating_sub(n as u64);
                    self.last_active = now;
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(Flush::Pending),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(Flush::Done)
    }

    /// Whether the connection has outstayed its welcome at `now`.
    fn expired(&self, now: Instant, keepalive_timeout: Duration) -> bool {
        let quiet = now.saturating_duration_since(self.last_active);
        match self.phase {
            Phase::Reading if self.inbuf.is_empty() && matches!(self.discard, Discard::Nothing) => {
                quiet >= keepalive_timeout
            }
            Phase::Reading | Phase::Writing => quiet >= STALL_TIMEOUT.max(keepalive_timeout),
            Phase::Delayed(_) => false,
            Phase::Lingering(until) => now >= until,
        }
    }
}

/// A connection slot; `generation` tells a stale token from the current owner.
struct Slot {
    generation: u32,
    conn: Option<Conn>,
}

fn token_of(index: usize, generation: u32) -> u64 {
    (u64::from(generation) << 32) | index as u64
}

/// One event loop.
struct Worker<'a> {
    shared: &'a Shared,
    /// Its index: which response count and inbox are its.
    index: usize,
    epoll: Epoll,
    slots: Vec<Slot>,
    free: Vec<usize>,
    timers: BinaryHeap<Reverse<(Instant, u64)>>,
    /// This worker's handlers of the dynamic endpoints.
    dynamic: Vec<Dynamic>,
    /// The headers every response carries, dated this second.
    heads: Heads,
    /// Connections taken from the inbox, being registered.
    incoming: Vec<TcpStream>,
}

impl<'a> Worker<'a> {
    fn new(shared: &'a Shared, index: usize, epoll: Epoll, dynamic: Vec<Dynamic>) -> Worker<'a> {
        Worker {
            shared,
            index,
            epoll,
            slots: Vec::new(),
            free: Vec::new(),
            timers: BinaryHeap::new(),
            dynamic,
            heads: Heads::new(SystemTime::now()),
            incoming: Vec::new(),
        }
    }

    fn run(mut self, cancel: &Cancel) -> Result<(), String> {
        let mut raw = vec![libc::epoll_event { events: 0, u64: 0 }; 256];
        let mut ready: Vec<Ready> = Vec::with_capacity(raw.len());
        let mut next_sweep = Instant::now() + SWEEP_EVERY;
        while !cancel.is_cancelled() {
            let now = Instant::now();
            let mut wake = next_sweep.min(now + CANCEL_POLL);
            if let Some(Reverse((deadline, _))) = self.timers.peek() {
                wake = wake.min(*deadline);
            }
            self.epoll
                .wait(&mut raw, wake.saturating_duration_since(now), &mut ready)
                .map_err(|e| format!("epoll_wait: {e}"))?;
            let now = Instant::now();
            self.heads.refresh(SystemTime::now());
            for r in &ready {
                if r.token == INBOX {
                    self.take_incoming(now);
                } else {
                    self.on_ready(r.token, r.events, now);
                }
            }
            self.fire_timers(now);
            if now >= next_sweep {
                self.sweep(now);
                next_sweep = now + SWEEP_EVERY;
            }
        }
        Ok(())
    }

    /// Registers the connections the accepting thread dealt this worker.
    fn take_incoming(&mut self, now: Instant) {
        let mut incoming = std::mem::take(&mut self.incoming);
        self.shared.inboxes[self.index].take(&mut incoming);
        for stream in incoming.drain(..) {
            let index = self.free.pop().unwrap_or_else(|| {
                self.slots.push(Slot {
                    generation: 0,
                    conn: None,
                });
                self.slots.len() - 1
            });
            let token = token_of(index, self.slots[index].generation);
            if self.epoll.add(stream.as_raw_fd(), token, IN).is_err() {
                self.free.push(index);
                continue;
            }
            self.slots[index].conn = Some(Conn::new(stream, token, now));
            self.shared
                .counters
                .connections
                .fetch_add(1, Ordering::Relaxed);
        }
        self.incoming = incoming;
    }

    fn env(&mut self) -> (Env<'_>, &mut Vec<Slot>) {
        (
            Env {
                epoll: &self.epoll,
                config: &self.shared.config,
                served: &self.shared.counters.served[self.index].0,
                timers: &mut self.timers,
                dynamic: &mut self.dynamic,
                heads: &self.heads,
            },
            &mut self.slots,
        )
    }

    fn slot_of(&self, token: u64) -> Option<usize> {
        let index = (token & u64::from(u32::MAX)) as usize;
        let generation = (token >> 32) as u32;
        let slot = self.slots.get(index)?;
        (slot.generation == generation && slot.conn.is_some()).then_some(index)
    }

    fn on_ready(&mut self, token: u64, events: u32, now: Instant) {
        let Some(index) = self.slot_of(token) else {
            return;
        };
        let (mut env, slots) = self.env();
        let Some(conn) = slots[index].conn.as_mut() else {
            return;
        };
        let alive = match conn.phase {
            // Only errors and hang-ups are reported while a reply waits.
            Phase::Delayed(_) => events & HUP_OR_ERR == 0,
            _ => conn.drive(&mut env, events & (IN | HUP_OR_ERR) != 0, now),
        };
        if !alive {
            self.close(index);
        }
    }

    fn fire_timers(&mut self, now: Instant) {
        while let Some(Reverse((deadline, token))) = self.timers.peek().copied() {
            if deadline > now {
                break;
            }
            self.timers.pop();
            let Some(index) = self.slot_of(token) else {
                continue;
            };
            let (mut env, slots) = self.env();
            let Some(conn) = slots[index].conn.as_mut() else {
                continue;
            };
            if conn.phase != Phase::Delayed(deadline) {
                continue;
            }
            conn.phase = Phase::Writing;
            if !conn.drive(&mut env, false, now) {
                self.close(index);
            }
        }
    }

    fn sweep(&mut self, now: Instant) {
        let timeout = self.shared.config.keepalive_timeout;
        for index in 0..self.slots.len() {
            if self.slots[index]
                .conn
                .as_ref()
                .is_some_and(|c| c.expired(now, timeout))
            {
                self.close(index);
            }
        }
    }

    /// Drops the connection (closing its socket, which also removes it
    /// from the epoll set) and retires its token.
    fn close(&mut self, index: usize) {
        let slot = &mut self.slots[index];
        if slot.conn.take().is_some() {
            slot.generation = slot.generation.wrapping_add(1);
            self.free.push(index);
        }
    }
}

#[cfg(test)]
mod tests;
