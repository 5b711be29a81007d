//! `nodebench http download URL`: one large download over one connection,
//! as the E3-1220 node-pair report measures with `wget http://host/10g.bin`: the body is read
//! with a 1 MiB buffer and thrown away (no disk in the way), and the result
//! carries the body's byte count (checked against `Content-Length`), the time
//! to the first byte, the average rate (body bytes over the time from the
//! request to the last byte), the best one-second rate, and the rate of
//! every second as a time series. Content-Length, chunked and
//! close-delimited bodies are all read; https:// goes through rustls.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use nodebench_core::bench::{BenchError, Benchmark, Cancel, Context};
use nodebench_core::config::Config;
use nodebench_core::names::http as names;
use nodebench_core::{BenchResult, Better, Metric, Reference, TimeSeries, Unit};

use crate::client::h1::{Feed, ReplyParser};
use crate::config::InProcessServer;
use crate::in_process::Running;
use crate::link;
use crate::url::{Scheme, Target};

/// Bytes asked for per `read`.
const BUFFER: usize = 1 << 20;
/// Longest a blocking read waits before the loop looks at the clock and the
/// stop flag again.
const POLL: Duration = Duration::from_millis(250);

/// What `http download` runs with.
#[derive(Debug, Clone)]
pub struct DownloadConfig {
    /// What to fetch.
    pub target: Target,
    /// Stop after this long (the result keeps what arrived); None: until the body ends.
    pub max_time: Option<Duration>,
    /// Give up when connecting, or when no byte arrives, for this long.
    pub timeout: Duration,
    /// Accept any TLS certificate (https:// only).
    pub insecure: bool,
    /// Length of one rate sample.
    pub interval: Duration,
    /// The built-in server started in this process for a URL that is only
    /// a path; off for a full URL.
    pub server: InProcessServer,
}

impl DownloadConfig {
    /// Defaults: no time limit, 30 s timeout, certificates checked, 1 s samples.
    pub fn new(target: Target) -> DownloadConfig {
        DownloadConfig {
            target,
            max_time: None,
            timeout: Duration::from_secs(30),
            insecure: false,
            interval: Duration::from_secs(1),
            server: InProcessServer::default(),
        }
    }
}

impl Default for DownloadConfig {
    /// [`DownloadConfig::new`]'s defaults against the default target.
    fn default() -> Self {
        DownloadConfig::new(Target::default())
    }
}

impl Config for DownloadConfig {
    fn validate(&self) -> Result<(), BenchError> {
        let positive = |d: Duration, flag: &str| {
            if d.is_zero() {
                Err(BenchError::Invalid(format!(
                    "{flag}: expected a positive duration like 30s"
                )))
            } else {
                Ok(())
            }
        };
        self.server.check()?;
        self.server
            .check_path(&self.target.path_and_query, "GET", None)?;
        positive(self.timeout, "--timeout")?;
        positive(self.interval, "--interval")?;
        if let Some(t) = self.max_time {
            positive(t, "--max-time")?;
        }
        Ok(())
    }
}

/// Why a download ended before its body did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// `--max-time` passed.
    MaxTime,
    /// Ctrl-C / SIGTERM.
    Cancelled,
}

/// What one download measured.
#[derive(Debug, Clone)]
pub struct DownloadOutcome {
    /// Status code of the reply.
    pub status: u16,
    /// The `Server` header, if any.
    pub server: Option<String>,
    /// Body bytes received.
    pub bytes: u64,
    /// Body length announced by `Content-Length`, when it was.
    pub expected: Option<u64>,
    /// The body ended as its framing says (all of Content-Length, the last
    /// chunk, or the connection's end for a close-delimited body).
    pub complete: bool,
    /// Set when the download was stopped before the body ended.
    pub stopped: Option<Stop>,
    /// TCP (and TLS) connection set-up time.
    pub connect: Duration,
    /// From the request sent to the first byte of the reply.
    pub first_byte: Duration,
    /// From the request sent to the last byte received.
    pub total: Duration,
    /// Body bytes/s of each interval, `(seconds since the request, rate)`
    /// at each interval's end; the last one may be shorter.
    pub rates: Vec<(f64, f64)>,
    /// Length of the full intervals in `rates`.
    pub interval: Duration,
}

impl DownloadOutcome {
    /// Body bytes over the time from the request to the last byte.
    pub fn average_rate(&self) -> f64 {
        self.bytes as f64 / self.total.as_secs_f64().max(1e-9)
    }

    /// The best full-interval rate (the average when no interval was full).
    pub fn max_rate(&self) -> f64 {
        let full = self.interval.as_secs_f64();
        let mut prev = 0.0;
        let mut best: Option<f64> = None;
        for &(t, r) in &self.rates {
            if t - prev >= full * 0.999 {
                best = Some(best.map_or(r, |b: f64| b.max(r)));
            }
            prev = t;
        }
        best.unwrap_or_else(|| self.average_rate())
    }
}

/// A plain or TLS connection.
enum Conn {
    Plain(TcpStream),
    Tls(Box<rustls::StreamOwned<rustls::ClientConnection, TcpStream>>),
}

impl Read for Conn {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Conn::Plain(s) => s.read(buf),
            Conn::Tls(s) => s.read(buf),
        }
    }
}

impl Write for Conn {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Conn::Plain(s) => s.write(buf),
            Conn::Tls(s) => s.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Conn::Plain(s) => s.flush(),
            Conn::Tls(s) => s.flush(),
        }
    }
}

fn open(cfg: &DownloadConfig) -> Result<Conn, String> {
    let t = &cfg.target;
    let addr = t.resolve().map_err(|e| e.to_string())?;
    let tcp = TcpStream::connect_timeout(&addr, cfg.timeout)
        .map_err(|e| format!("cannot connect to {} ({addr}): {e}", t.authority()))?;
    tcp.set_read_timeout(Some(POLL.min(cfg.timeout)))
        .map_err(|e| e.to_string())?;
    let _ = tcp.set_nodelay(true);
    match t.scheme {
        Scheme::Http => Ok(Conn::Plain(tcp)),
        Scheme::Https => {
            let tls = crate::client::tokio_engine::tls_config(false, cfg.insecure)
                .map_err(|e| e.to_string())?;
            let name = rustls::pki_types::ServerName::try_from(t.host.clone())
                .map_err(|e| format!("URL: '{}' is not a TLS server name: {e}", t.host))?;
            let conn = rustls::ClientConnection::new(Arc::new(tls), name)
                .map_err(|e| format!("TLS setup: {e}"))?;
            Ok(Conn::Tls(Box::new(rustls::StreamOwned::new(conn, tcp))))
        }
    }
}

/// Per-interval byte counts, sampled as reads come in.
struct Sampler {
    start: Instant,
    interval: Duration,
    next: Instant,
    bytes: u64,
    rates: Vec<(f64, f64)>,
}

impl Sampler {
    fn new(start: Instant, interval: Duration) -> Sampler {
        Sampler {
            start,
            interval,
            next: start + interval,
            bytes: 0,
            rates: Vec::new(),
        }
    }

    /// Closes every interval that ended by `now` (empty ones give 0).
    fn tick(&mut self, now: Instant) {
        while now >= self.next {
            let t = self.next.duration_since(self.start).as_secs_f64();
            self.rates
                .push((t, self.bytes as f64 / self.interval.as_secs_f64()));
            self.bytes = 0;
            self.next += self.interval;
        }
    }

    /// Closes the last, partial interval at `end`.
    fn finish(mut self, end: Instant) -> Vec<(f64, f64)> {
        self.tick(end);
        let began = self.next - self.interval;
        let part = end.saturating_duration_since(began).as_secs_f64();
        if part > 0.0 && self.bytes > 0 {
            let t = end.duration_since(self.start).as_secs_f64();
            self.rates.push((t, self.bytes as f64 / part));
        }
        self.rates
    }
}

/// Downloads `cfg.target` once; an error is a download that could not
/// start (resolve, connect, TLS, no reply at all) or broke off for a reason
/// other than a short body.
pub fn download(cfg: &DownloadConfig, cancel: &Cancel) -> Result<DownloadOutcome, BenchError> {
    if cfg.timeout.is_zero() || cfg.interval.is_zero() {
        return Err(BenchError::System(
            "--timeout and the sample interval must be positive durations".into(),
        ));
    }
    let t0 = Instant::now();
    let mut conn = open(cfg).map_err(BenchError::System)?;
    let request = format!(
        "GET {} HTTP/1.1\r\nHost: {}\r\nUser-Agent: nodebench/{}\r\nAccept: */*\r\nAccept-Encoding: identity\r\nConnection: close\r\n\r\n",
        cfg.target.path_and_query,
        cfg.target.authority(),
        env!("CARGO_PKG_VERSION")
    );
    let url = cfg.target.url();
    conn.write_all(request.as_bytes())
        .and_then(|()| conn.flush())
        .map_err(|e| {
            let hint = if e.to_string().contains("certificate") {
                " (--insecure accepts any certificate)"
            } else {
                ""
            };
            format!("{url}: cannot send the request: {e}{hint}")
        })
        .map_err(BenchError::System)?;
    let sent = Instant::now();
    let connect = sent.duration_since(t0);
    let deadline = cfg.max_time.map(|d| sent + d);

    let mut parser = ReplyParser::new(false);
    let mut server = None;
    let mut buf = vec![0u8; BUFFER];
    let mut sampler = Sampler::new(sent, cfg.interval);
    let (mut first_byte, mut last_byte) = (None, sent);
    let mut expected = None;
    let mut complete = false;
    let mut stopped = None;
    loop {
        let now = Instant::now();
        sampler.tick(now);
        if cancel.is_cancelled() {
            stopped = Some(Stop::Cancelled);
            break;
        }
        if deadline.is_some_and(|d| now >= d) {
            stopped = Some(Stop::MaxTime);
            break;
        }
        let n = match conn.read(&mut buf) {
            Ok(n) => n,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock
                        | io::ErrorKind::TimedOut
                        | io::ErrorKind::Interrupted
                ) =>
            {
                if now.duration_since(last_byte.max(sent)) >= cfg.timeout {
                    return Err(BenchError::System(format!(
                        "{url}: no data for {:.0} s (--timeout)",
                        cfg.timeout.as_secs_f64()
                    )));
                }
                continue;
            }
            // A reset part-way: keep what arrived, as a short body.
            Err(_) if parser.started() => break,
            Err(e) => return Err(BenchError::System(format!("{url}: {e}"))),
        };
        let now = Instant::now();
        if n == 0 {
            complete = parser.finish_at_eof();
            if !parser.started() {
                return Err(BenchError::System(format!(
                    "{url}: the server closed the connection without a reply"
                )));
            }
            break;
        }
        first_byte.get_or_insert(now);
        last_byte = now;
        let before = parser.body_bytes;
        let feed = parser.feed(&buf[..n], &mut server);
        sampler.bytes += parser.body_bytes - before;
        if let Some(left) = parser.body_left() {
            expected = Some(parser.body_bytes + left);
        }
        match feed {
            Feed::More => {}
            Feed::Done(_) => {
                complete = true;
                break;
            }
            Feed::Bad => {
                return Err(BenchError::System(format!(
                    "{url}: the reply is not HTTP/1.x"
                )));
            }
        }
    }
    let end = last_byte;
    Ok(DownloadOutcome {
        status: parser.status,
        server,
        bytes: parser.body_bytes,
        expected,
        complete,
        stopped,
        connect,
        first_byte: first_byte.unwrap_or(end).duration_since(sent),
        total: end.duration_since(sent),
        rates: sampler.finish(end),
        interval: cfg.interval,
    })
}

/// The `http.download` benchmark: one result.
#[derive(Debug, Clone)]
pub struct Download {
    /// Its configuration.
    pub config: DownloadConfig,
}

impl Benchmark for Download {
    fn id(&self) -> &'static str {
        names::DOWNLOAD
    }

    fn validate(&self) -> Result<(), BenchError> {
        self.config.validate()
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        self.config.validate()?;
        let started_at = Utc::now();
        let mut server = Running::start(&self.config.server)?;
        let mut config = self.config.clone();
        if let Some(s) = &server {
            config.target = s.target(&config.target);
        }
        ctx.progress.start("http download", 1);
        let outcome = download(&config, &ctx.cancel);
        ctx.progress.finish();
        let outcome = outcome?;
        let mut result = download_result(&config, &outcome);
        if let Some(s) = &mut server {
            s.check(&mut result, u64::from(outcome.complete));
        }
        result.started_at = started_at;
        ctx.record(result)?;
        if let Some(s) = server {
            s.stop();
        }
        Ok(())
    }
}

/// The `http.download` result of one download: bytes, rates (set against
/// the egress interface's line rate when the target is remote), times, the
/// per-interval rate series, and a failed status for a non-2xx reply or a
/// body shorter than announced.
pub fn download_result(cfg: &DownloadConfig, o: &DownloadOutcome) -> BenchResult {
    let mut r = BenchResult::new(names::DOWNLOAD);
    r.set_param(names::download::param::URL, cfg.target.url());
    r.set_param(names::download::param::STATUS, o.status);
    r.set_param(names::download::param::COMPLETE, o.complete);
    if let Some(e) = o.expected {
        r.set_param(names::download::param::CONTENT_LENGTH, e);
    }
    if let Some(s) = &o.server {
        r.set_param(names::download::param::SERVER, s);
    }
    if let Some(d) = cfg.max_time {
        r.set_param(names::download::param::MAX_TIME_S, d.as_secs_f64());
    }
    r.set_param(names::download::param::BUFFER, BUFFER);
    let link = cfg.target.resolve().ok().and_then(link::link_to);
    if let Some(l) = &link {
        r.set_param(names::download::param::LINK, l.describe());
    }
    let reference = link.and_then(|l| l.line_rate).map(|v| Reference {
        name: "line rate of the egress interface".into(),
        value: v,
    });
    r.metrics = vec![
        Metric::new(
            names::download::BYTES,
            o.bytes as f64,
            Unit::Bytes,
            Better::Higher,
        ),
        Metric::new(
            names::download::THROUGHPUT,
            o.average_rate(),
            Unit::BytesPerSecond,
            Better::Higher,
        )
        .with_reference(reference.clone()),
        Metric::new(
            names::download::THROUGHPUT_MAX,
            o.max_rate(),
            Unit::BytesPerSecond,
            Better::Higher,
        )
        .with_reference(reference),
        Metric::new(
            names::download::TIME,
            o.total.as_secs_f64(),
            Unit::Seconds,
            Better::Lower,
        ),
        Metric::new(
            names::download::FIRST_BYTE,
            o.first_byte.as_secs_f64(),
            Unit::Seconds,
            Better::Lower,
        ),
        Metric::new(
            names::download::CONNECT,
            o.connect.as_secs_f64(),
            Unit::Seconds,
            Better::Lower,
        ),
    ];
    r.series.push(TimeSeries {
        name: names::download::THROUGHPUT.into(),
        unit: Unit::BytesPerSecond,
        labels: Default::default(),
        points: o.rates.clone(),
    });
    if !(200..300).contains(&o.status) {
        r.mark_failed(format!("the server answered {}", o.status));
    } else {
        match o.stopped {
            Some(Stop::Cancelled) => r.mark_cancelled(),
            Some(Stop::MaxTime) => r.warnings.push(format!(
                "stopped by --max-time after {} body bytes{}",
                o.bytes,
                o.expected.map(|e| format!(" of {e}")).unwrap_or_default()
            )),
            None if !o.complete => r.mark_failed(match o.expected {
                Some(e) => format!("the connection closed after {} of {e} body bytes", o.bytes),
                None => format!("the connection closed mid-body after {} bytes", o.bytes),
            }),
            None => {}
        }
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::{Server, ServerConfig};
    use nodebench_core::ResultStatus;

    fn target(h: &crate::server::ServerHandle, path: &str) -> Target {
        Target::parse(&format!("http://{}{path}", h.local_addr())).unwrap()
    }

    #[test]
    fn downloads_exactly_the_announced_body_with_per_second_rates() {
        let h = Server::bind(ServerConfig::default()).unwrap().spawn();
        let mut cfg = DownloadConfig::new(target(&h, "/bytes/50M"));
        cfg.interval = Duration::from_millis(10);
        let o = download(&cfg, &Cancel::new()).unwrap();
        assert_eq!(o.status, 200);
        assert_eq!(o.bytes, 50 << 20);
        assert_eq!(o.expected, Some(50 << 20));
        assert!(o.complete && o.stopped.is_none());
        assert!(!o.rates.is_empty(), "per-interval points");
        assert!(o.max_rate() > 0.0 && o.average_rate() > 0.0);
        assert!(o.first_byte <= o.total);
        let r = download_result(&cfg, &o);
        assert_eq!(r.status, ResultStatus::Passed, "{:?}", r.error);
        let bytes = r.metrics.iter().find(|m| m.name == "bytes").unwrap();
        assert_eq!(bytes.value, 52_428_800.0);
        assert!(!r.series[0].points.is_empty());
        // The server counts the response just after its last write.
        let end = Instant::now() + Duration::from_secs(5);
        while h.requests_served() < 1 && Instant::now() < end {
            std::thread::sleep(Duration::from_millis(5));
        }
        assert_eq!(h.requests_served(), 1);
    }

    #[test]
    fn max_time_stops_a_long_download_and_keeps_what_arrived() {
        let h = Server::bind(ServerConfig::default()).unwrap().spawn();
        let mut cfg = DownloadConfig::new(target(&h, "/bytes/1TB"));
        cfg.max_time = Some(Duration::from_millis(300));
        let o = download(&cfg, &Cancel::new()).unwrap();
        assert_eq!(o.stopped, Some(Stop::MaxTime));
        assert!(!o.complete && o.bytes > 0);
        assert_eq!(o.expected, Some(1_000_000_000_000));
        let r = download_result(&cfg, &o);
        assert_eq!(r.status, ResultStatus::Passed);
        assert!(r.warnings[0].contains("--max-time"), "{:?}", r.warnings);
    }

    #[test]
    fn a_404_fails_and_a_refused_connection_is_an_error() {
        let h = Server::bind(ServerConfig::default()).unwrap().spawn();
        let cfg = DownloadConfig::new(target(&h, "/missing"));
        let o = download(&cfg, &Cancel::new()).unwrap();
        let r = download_result(&cfg, &o);
        assert_eq!(r.status, ResultStatus::Failed);
        assert!(r.error.unwrap().contains("404"));
        let addr = h.local_addr();
        drop(h);
        let cfg = DownloadConfig::new(Target::parse(&format!("http://{addr}/1")).unwrap());
        let e = download(&cfg, &Cancel::new()).unwrap_err();
        assert!(e.to_string().contains("cannot connect"), "{e}");
    }

    #[test]
    fn close_delimited_and_chunked_bodies_are_read_to_their_end() {
        use std::net::TcpListener;
        let l = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = l.local_addr().unwrap();
        let replies: [&[u8]; 2] = [
            b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\nhello, world",
            b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n7\r\n, world\r\n0\r\n\r\n",
        ];
        std::thread::scope(|s| {
            s.spawn(|| {
                for reply in replies {
                    let (mut c, _) = l.accept().unwrap();
                    let mut req = [0u8; 1024];
                    let _ = c.read(&mut req).unwrap();
                    c.write_all(reply).unwrap();
                }
            });
            for _ in replies {
                let cfg = DownloadConfig::new(Target::parse(&format!("http://{addr}/")).unwrap());
                let o = download(&cfg, &Cancel::new()).unwrap();
                assert_eq!((o.bytes, o.complete), (12, true));
            }
        });
    }
}
