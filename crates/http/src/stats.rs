//! What a load run measured, per client thread and then merged: latency
//! HdrHistograms (nanoseconds), status classes, failures and errors by kind,
//! bytes, and per-second buckets. Memory is bounded: histograms have fixed
//! bounds (values above the top are clamped to it) and the per-second
//! buckets grow with the run's length in seconds, never with its request
//! count.

use std::time::{Duration, Instant};

use hdrhistogram::Histogram as Hdr;
use nodebench_core::config::Choice;
use nodebench_core::latency::{histogram, record};
use nodebench_core::names::http::load as names;

/// Why a request or connection failed. The names follow httperf's error
/// list; [`ErrorKind::ab_class`] folds them into ab's four failure columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The server refused the connection (ECONNREFUSED).
    ConnectRefused,
    /// The server reset the connection (ECONNRESET, EPIPE).
    ConnectReset,
    /// Any other connect failure (EHOSTUNREACH, ENETUNREACH...).
    ConnectOther,
    /// A reply did not complete within `--timeout` (httperf client-timo).
    ClientTimeout,
    /// The connection timed out in the kernel (ETIMEDOUT, httperf socket-timo).
    SocketTimeout,
    /// The connection broke while a reply was due (EOF before it completed).
    Receive,
    /// A reply's body length differed from the first reply's (ab "Length").
    Length,
    /// No file descriptors left (EMFILE, ENFILE).
    NoFileDescriptors,
    /// No local address/port left (EADDRNOTAVAIL).
    NoLocalAddresses,
    /// Anything else: an unparsable reply, an unexpected errno.
    Exception,
}

impl ErrorKind {
    /// Position in [`ErrorKind::ALL`] and in [`ThreadStats::errors`].
    pub fn index(self) -> usize {
        self as usize
    }

    /// Maps an errno from socket/connect/read/write.
    pub fn from_errno(errno: i32) -> ErrorKind {
        match errno {
            libc::ECONNREFUSED => ErrorKind::ConnectRefused,
            libc::ECONNRESET | libc::EPIPE | libc::ECONNABORTED => ErrorKind::ConnectReset,
            libc::ETIMEDOUT => ErrorKind::SocketTimeout,
            libc::EMFILE | libc::ENFILE => ErrorKind::NoFileDescriptors,
            libc::EADDRNOTAVAIL | libc::EADDRINUSE => ErrorKind::NoLocalAddresses,
            libc::EHOSTUNREACH | libc::ENETUNREACH | libc::ENETDOWN | libc::EHOSTDOWN => {
                ErrorKind::ConnectOther
            }
            _ => ErrorKind::Exception,
        }
    }

    /// ab's failure column, one of [`names::FAILED_CLASSES`]: `connect`,
    /// `receive`, `length` or `exceptions`.
    pub fn ab_class(self) -> &'static str {
        let [connect, receive, length, exceptions] = names::FAILED_CLASSES;
        match self {
            ErrorKind::ConnectRefused
            | ErrorKind::ConnectOther
            | ErrorKind::NoFileDescriptors
            | ErrorKind::NoLocalAddresses => connect,
            ErrorKind::ConnectReset
            | ErrorKind::ClientTimeout
            | ErrorKind::SocketTimeout
            | ErrorKind::Receive => receive,
            ErrorKind::Length => length,
            ErrorKind::Exception => exceptions,
        }
    }
}

nodebench_core::choice_from_str!(ErrorKind);

/// The label of each kind in results (`kind=...`): httperf's names.
impl Choice for ErrorKind {
    /// Every kind, in the order of [`ErrorKind::index`] and [`names::ERROR_KINDS`].
    const ALL: &'static [Self] = &[
        ErrorKind::ConnectRefused,
        ErrorKind::ConnectReset,
        ErrorKind::ConnectOther,
        ErrorKind::ClientTimeout,
        ErrorKind::SocketTimeout,
        ErrorKind::Receive,
        ErrorKind::Length,
        ErrorKind::NoFileDescriptors,
        ErrorKind::NoLocalAddresses,
        ErrorKind::Exception,
    ];

    fn as_str(self) -> &'static str {
        names::ERROR_KINDS[self.index()]
    }
}

/// One finished request/response exchange, as an engine saw it.
#[derive(Debug, Clone, Copy)]
pub struct Exchange {
    /// Open model: when the request was due (latency counts from here, so a
    /// stalled server is not hidden by the client waiting for it). None in
    /// the closed model.
    pub planned: Option<Instant>,
    /// When the request started: its first write, or the start of the
    /// connect when the request needed a new connection.
    pub sent: Instant,
    /// When the first byte of the reply arrived.
    pub first_byte: Instant,
    /// When the reply was complete.
    pub done: Instant,
    /// Reply status code.
    pub status: u16,
    /// Bytes of the status line and headers.
    pub header_bytes: u64,
    /// Bytes of the body (chunked: the data bytes only).
    pub body_bytes: u64,
    /// The body length differed from the first reply's (ab counts it failed).
    pub length_mismatch: bool,
}

/// Counts of one per-second bucket.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Bucket {
    /// Replies completed in this second.
    pub completions: u64,
    /// Errors in this second.
    pub errors: u64,
    /// Reply bytes (headers + body) completed in this second.
    pub bytes: u64,
}

/// What one client thread measured (or, after [`ThreadStats::merge`], all of them).
#[derive(Debug, Clone)]
pub struct ThreadStats {
    /// The run's start; per-second buckets count from here.
    pub start: Instant,
    /// Total latency in ns: from the planned send time in the open model
    /// (corrected for coordinated omission), from the request's start in
    /// the closed model. ab's "served within" comes from here.
    pub total: Hdr<u64>,
    /// Latency in ns from the request's actual start to the reply's end:
    /// wrk's uncorrected figure, and ab's "Processing".
    pub uncorrected: Hdr<u64>,
    /// Connect time of each new connection, ns.
    pub connect: Hdr<u64>,
    /// From the request's start to the first reply byte, ns (ab "Waiting").
    pub waiting: Hdr<u64>,
    /// Replies completed (any status).
    pub completed: u64,
    /// Replies by status class: index 0 = 1xx ... 4 = 5xx; 5 = anything else.
    pub status: [u64; names::STATUS_CLASSES.len()],
    /// Replies by exact status code, in the order first seen.
    pub codes: Vec<(u16, u64)>,
    /// Errors by kind, indexed by [`ErrorKind::index`].
    pub errors: [u64; names::ERROR_KINDS.len()],
    /// Connections opened successfully.
    pub connections: u64,
    /// Requests written.
    pub requests_sent: u64,
    /// Open model: requests sent late because the client was busy (the
    /// connection was free but the thread did not get to it in time).
    pub sent_late: u64,
    /// Bytes written to sockets.
    pub bytes_out: u64,
    /// Bytes read from sockets.
    pub bytes_in: u64,
    /// Reply header bytes of completed replies.
    pub header_bytes: u64,
    /// Reply body bytes of completed replies (ab "HTML transferred").
    pub body_bytes: u64,
    /// Body length of the first reply (ab "Document Length").
    pub document_length: Option<u64>,
    /// The first reply's `Server` header (ab "Server Software").
    pub server: Option<String>,
    /// Per-second buckets, index = whole seconds since `start`.
    pub buckets: Vec<Bucket>,
    /// Set by an engine that had to give up (e.g. every connect refused
    /// before any succeeded); a one-line reason.
    pub fatal: Option<String>,
}

impl ThreadStats {
    /// Empty stats for a run that started at `start`.
    pub fn new(start: Instant) -> Self {
        ThreadStats {
            start,
            total: histogram(),
            uncorrected: histogram(),
            connect: histogram(),
            waiting: histogram(),
            completed: 0,
            status: [0; names::STATUS_CLASSES.len()],
            codes: Vec::new(),
            errors: [0; names::ERROR_KINDS.len()],
            connections: 0,
            requests_sent: 0,
            sent_late: 0,
            bytes_out: 0,
            bytes_in: 0,
            header_bytes: 0,
            body_bytes: 0,
            document_length: None,
            server: None,
            buckets: Vec::new(),
            fatal: None,
        }
    }

    fn bucket(&mut self, at: Instant) -> &mut Bucket {
        let i = at.saturating_duration_since(self.start).as_secs() as usize;
        if i >= self.buckets.len() {
            self.buckets.resize(i + 1, Bucket::default());
        }
        &mut self.buckets[i]
    }

    /// A new connection was established after `d`.
    pub fn record_connect(&mut self, d: Duration) {
        self.connections += 1;
        record(&mut self.connect, d);
    }

    /// A reply completed.
    pub fn record_exchange(&mut self, e: &Exchange) {
        self.completed += 1;
        let class = (e.status / 100) as usize;
        let slot = if (1..=5).contains(&class) {
            class - 1
        } else {
            5
        };
        self.status[slot] += 1;
        self.count_code(e.status, 1);
        if e.length_mismatch {
            self.errors[ErrorKind::Length.index()] += 1;
        }
        let total_from = e.planned.unwrap_or(e.sent).min(e.sent);
        record(
            &mut self.total,
            e.done.saturating_duration_since(total_from),
        );
        record(
            &mut self.uncorrected,
            e.done.saturating_duration_since(e.sent),
        );
        record(
            &mut self.waiting,
            e.first_byte.saturating_duration_since(e.sent),
        );
        self.header_bytes += e.header_bytes;
        self.body_bytes += e.body_bytes;
        if self.document_length.is_none() && (200..300).contains(&e.status) {
            self.document_length = Some(e.body_bytes);
        }
        let bytes = e.header_bytes + e.body_bytes;
        let b = self.bucket(e.done);
        b.completions += 1;
        b.bytes += bytes;
    }

    /// A request or connection failed.
    pub fn record_error(&mut self, kind: ErrorKind) {
        self.errors[kind.index()] += 1;
        let now = Instant::now();
        self.bucket(now).errors += 1;
    }

    /// Adds `other`'s counts and histograms into these.
    pub fn merge(&mut self, other: &ThreadStats) {
        // Same bounds on both sides, so adding cannot fail.
        let _ = self.total.add(&other.total);
        let _ = self.uncorrected.add(&other.uncorrected);
        let _ = self.connect.add(&other.connect);
        let _ = self.waiting.add(&other.waiting);
        self.completed += other.completed;
        for (a, b) in self.status.iter_mut().zip(other.status) {
            *a += b;
        }
        for &(code, n) in &other.codes {
            self.count_code(code, n);
        }
        for (a, b) in self.errors.iter_mut().zip(other.errors) {
            *a += b;
        }
        self.connections += other.connections;
        self.requests_sent += other.requests_sent;
        self.sent_late += other.sent_late;
        self.bytes_out += other.bytes_out;
        self.bytes_in += other.bytes_in;
        self.header_bytes += other.header_bytes;
        self.body_bytes += other.body_bytes;
        if self.document_length.is_none() {
            self.document_length = other.document_length;
        }
        if self.server.is_none() {
            self.server.clone_from(&other.server);
        }
        // Align the buckets on the earlier start (the engines of one run
        // share its start, so this is normally a no-op).
        if other.start < self.start {
            let shift = self.start.duration_since(other.start).as_secs() as usize;
            self.buckets
                .splice(0..0, std::iter::repeat_n(Bucket::default(), shift));
            self.start = other.start;
        }
        let offset = other.start.duration_since(self.start).as_secs() as usize;
        for (i, b) in other.buckets.iter().enumerate() {
            let j = offset + i;
            if j >= self.buckets.len() {
                self.buckets.resize(j + 1, Bucket::default());
            }
            let t = &mut self.buckets[j];
            t.completions += b.completions;
            t.errors += b.errors;
            t.bytes += b.bytes;
        }
        if self.fatal.is_none() {
            self.fatal.clone_from(&other.fatal);
        }
    }

    /// Adds `n` replies of status `code`.
    fn count_code(&mut self, code: u16, n: u64) {
        match self.codes.iter_mut().find(|(c, _)| *c == code) {
            Some((_, count)) => *count += n,
            None => self.codes.push((code, n)),
        }
    }

    /// Replies whose status was `code`.
    pub fn code_count(&self, code: u16) -> u64 {
        self.codes
            .iter()
            .find(|(c, _)| *c == code)
            .map_or(0, |(_, n)| *n)
    }

    /// Errors of every kind.
    pub fn error_total(&self) -> u64 {
        self.errors.iter().sum()
    }

    /// Errors of one kind.
    pub fn error_count(&self, kind: ErrorKind) -> u64 {
        self.errors[kind.index()]
    }

    /// Failed requests as ab counts them: every error (connect, receive,
    /// length, exception).
    pub fn failed(&self) -> u64 {
        self.error_total()
    }

    /// Replies whose status was not 2xx.
    pub fn non_2xx(&self) -> u64 {
        self.completed - self.status[1]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exchange(start: Instant, planned_ms: Option<u64>, sent_ms: u64, done_ms: u64) -> Exchange {
        let at = |ms| start + Duration::from_millis(ms);
        Exchange {
            planned: planned_ms.map(at),
            sent: at(sent_ms),
            first_byte: at(done_ms),
            done: at(done_ms),
            status: 200,
            header_bytes: 100,
            body_bytes: 1000,
            length_mismatch: false,
        }
    }

    #[test]
    fn corrected_latency_counts_from_the_planned_time() {
        let t0 = Instant::now();
        let mut s = ThreadStats::new(t0);
        s.record_exchange(&exchange(t0, Some(0), 500, 510));
        assert_eq!(s.completed, 1);
        let ms = |ns: u64| (ns as f64 / 1e6).round() as u64;
        assert_eq!(ms(s.total.max()), 510);
        assert_eq!(ms(s.uncorrected.max()), 10);
        assert_eq!(s.body_bytes, 1000);
        assert_eq!(s.document_length, Some(1000));
    }

    #[test]
    fn merge_adds_counts_and_aligns_buckets() {
        let t0 = Instant::now();
        let mut a = ThreadStats::new(t0);
        let mut b = ThreadStats::new(t0 + Duration::from_secs(1));
        a.record_exchange(&exchange(t0, None, 0, 100));
        b.record_exchange(&exchange(t0, None, 1000, 1100));
        b.record_exchange(&exchange(t0, None, 2000, 2100));
        let mut e = exchange(t0, None, 0, 50);
        e.status = 404;
        b.record_exchange(&e);
        b.record_error(ErrorKind::ConnectRefused);
        a.merge(&b);
        assert_eq!(a.completed, 4);
        assert_eq!(a.status[1], 3);
        assert_eq!(a.status[3], 1);
        assert_eq!(a.non_2xx(), 1);
        assert_eq!(a.error_count(ErrorKind::ConnectRefused), 1);
        assert_eq!(a.total.len(), 4);
        // b's buckets count from one second later; merged they are shifted
        // by that second (its reply before its own start lands in its first).
        let completions: Vec<u64> = a.buckets.iter().map(|b| b.completions).collect();
        assert_eq!(completions, vec![1, 2, 1]);
    }

    #[test]
    fn errno_maps_to_kinds() {
        for (errno, kind) in [
            (libc::ECONNREFUSED, ErrorKind::ConnectRefused),
            (libc::EMFILE, ErrorKind::NoFileDescriptors),
            (libc::EADDRNOTAVAIL, ErrorKind::NoLocalAddresses),
            (libc::ETIMEDOUT, ErrorKind::SocketTimeout),
            (libc::EPIPE, ErrorKind::ConnectReset),
            (libc::EPROTO, ErrorKind::Exception),
        ] {
            assert_eq!(ErrorKind::from_errno(errno), kind, "errno {errno}");
        }
        for (i, k) in ErrorKind::ALL.iter().enumerate() {
            assert_eq!(k.index(), i);
        }
        assert_eq!(ErrorKind::ALL.len(), names::ERROR_KINDS.len());
        assert_eq!(ErrorKind::ClientTimeout.as_str(), "client_timeout");
        assert_eq!(ErrorKind::NoLocalAddresses.to_string(), "addr_unavail");
        assert_eq!(
            "fd_unavail".parse::<ErrorKind>(),
            Ok(ErrorKind::NoFileDescriptors)
        );
        assert_eq!(ErrorKind::Exception.ab_class(), "exceptions");
    }
}
