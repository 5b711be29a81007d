//! The scan's HTTP/1.1 client: one connection per request (`Connection:
//! close`), plain or TLS (OpenSSL, certificate not verified: the TLS checks
//! judge it), every request through one rate limiter, replies read whole up
//! to a size cap. Hand-written rather than a client crate because the scan
//! needs what those hide: TRACE and OPTIONS sent as written, no redirect
//! followed, every header line as received, and one line saying why a port
//! that does not speak HTTP answered what it did.

use nodebench_core::bench::BenchError;
use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use openssl::ssl::{SslConnector, SslMethod, SslStream, SslVerifyMode};

use crate::config::{Scheme, Target};

/// Reply bodies are read up to this many bytes (enough for any page a
/// check matches on).
pub const BODY_CAP: usize = 256 * 1024;
/// The longest reply head accepted.
const HEAD_CAP: usize = 64 * 1024;
/// The User-Agent the scan sends, so server logs show what it was.
pub const USER_AGENT: &str = concat!("nodebench-scan/", env!("CARGO_PKG_VERSION"));

/// One request.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Request {
    /// The method.
    pub method: String,
    /// The path below the target's base (`/.git/HEAD`).
    pub path: String,
    /// A body (the PUT probe's).
    pub body: Option<Vec<u8>>,
    /// Extra request headers (`Origin` of the CORS checks).
    pub headers: Vec<(String, String)>,
}

impl Request {
    /// A request without a body.
    pub fn new(method: &str, path: &str) -> Request {
        Request {
            method: method.into(),
            path: path.into(),
            body: None,
            headers: Vec::new(),
        }
    }
}

/// One reply.
#[derive(Debug, Clone)]
pub struct Reply {
    /// The request line sent (`GET /x HTTP/1.1`), the evidence's first part.
    pub request_line: String,
    /// The status code.
    pub status: u16,
    /// Header names and values as received, in order.
    pub headers: Vec<(String, String)>,
    /// The body (chunked coding removed), at most [`BODY_CAP`] bytes.
    pub body: Vec<u8>,
}

impl Reply {
    /// A reply to `GET /` for unit tests: status, headers and body text.
    #[cfg(test)]
    pub(crate) fn sample(status: u16, headers: &[(&str, &str)], body: &str) -> Reply {
        Reply {
            request_line: "GET / HTTP/1.1".into(),
            status,
            headers: headers
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            body: body.as_bytes().to_vec(),
        }
    }

    /// The values of header `name` (any case), in order.
    pub fn header<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.headers
            .iter()
            .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The body as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// Spaces requests at most `rate` per second across every thread.
#[derive(Debug)]
pub struct RateLimiter {
    interval: Duration,
    next: Mutex<Instant>,
}

impl RateLimiter {
    /// A limiter of `rate` requests per second.
    pub fn new(rate: u32) -> RateLimiter {
        RateLimiter {
            interval: Duration::from_secs(1) / rate.max(1),
            next: Mutex::new(Instant::now()),
        }
    }

    /// Waits for the next slot.
    pub fn wait(&self) {
        let slot = {
            let mut next = self.next.lock().unwrap_or_else(|e| e.into_inner());
            let slot = (*next).max(Instant::now());
            *next = slot + self.interval;
            slot
        };
        let now = Instant::now();
        if slot > now {
            std::thread::sleep(slot - now);
        }
    }
}

/// The connection to the target for one request.
enum Conn {
    Plain(TcpStream),
    Tls(Box<SslStream<TcpStream>>),
}

impl Read for Conn {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        match self {
            Conn::Plain(s) => s.read(buf),
            Conn::Tls(s) => s.read(buf),
        }
    }
}

impl Write for Conn {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self {
            Conn::Plain(s) => s.write(buf),
            Conn::Tls(s) => s.write(buf),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        match self {
            Conn::Plain(s) => s.flush(),
            Conn::Tls(s) => s.flush(),
        }
    }
}

/// The client of one scan.
pub struct Client {
    target: Target,
    addrs: Vec<SocketAddr>,
    timeout: Duration,
    limiter: RateLimiter,
    tls: Option<SslConnector>,
    sent: AtomicU64,
}

impl Client {
    /// A client of `target` (resolved once), at most `rate` requests per
    /// second, each connect and read waiting at most `timeout`.
    pub fn new(target: &Target, rate: u32, timeout: Duration) -> Result<Client, BenchError> {
        let addrs = target.resolve()?;
        let tls = match target.scheme {
            Scheme::Http => None,
            Scheme::Https => {
                let mut b = SslConnector::builder(SslMethod::tls_client())
                    .map_err(|e| BenchError::System(format!("cannot set up TLS: {e}")))?;
                b.set_verify(SslVerifyMode::NONE);
                Some(b.build())
            }
        };
        Ok(Client {
            target: target.clone(),
            addrs,
            timeout,
            limiter: RateLimiter::new(rate),
            tls,
            sent: AtomicU64::new(0),
        })
    }

    /// Requests sent so far (connections that failed included).
    pub fn sent(&self) -> u64 {
        self.sent.load(Ordering::Relaxed)
    }

    /// The target.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// Opens a TCP connection to the first address that answers.
    pub fn connect(&self) -> Result<TcpStream, BenchError> {
        let mut last = String::new();
        for a in &self.addrs {
            match TcpStream::connect_timeout(a, self.timeout) {
                Ok(s) => {
                    let _ = s.set_read_timeout(Some(self.timeout));
                    let _ = s.set_write_timeout(Some(self.timeout));
                    let _ = s.set_nodelay(true);
                    return Ok(s);
                }
                Err(e) => last = format!("cannot connect to {a}: {e}"),
            }
        }
        Err(BenchError::System(last))
    }

    /// Sends `req` (after the rate limiter's slot) and reads the reply.
    pub fn send(&self, req: &Request) -> Result<Reply, BenchError> {
        self.limiter.wait();
        self.sent.fetch_add(1, Ordering::Relaxed);
        let tcp = self.connect()?;
        let mut conn = match &self.tls {
            None => Conn::Plain(tcp),
            Some(connector) => {
                let mut cfg = connector
                    .configure()
                    .map_err(|e| BenchError::System(format!("cannot set up TLS: {e}")))?;
                cfg.set_verify_hostname(false);
                let sni = self.target.host.parse::<std::net::IpAddr>().is_err();
                cfg.set_use_server_name_indication(sni);
                let stream = cfg
                    .connect(&self.target.host, tcp)
                    .map_err(|e| {
                        format!(
                            "TLS handshake with {} failed ({e}): is it an https port?",
                            self.target.authority()
                        )
                    })
                    .map_err(BenchError::System)?;
                Conn::Tls(Box::new(stream))
            }
        };
        let path = format!("{}{}", self.target.base, req.path);
        let request_line = format!("{} {path} HTTP/1.1", req.method);
        let mut head = format!(
            "{request_line}\r\nHost: {}\r\nUser-Agent: {USER_AGENT}\r\nAccept: */*\r\nConnection: close\r\n",
            self.target.authority()
        );
        for (name, value) in &req.headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        if let Some(body) = &req.body {
            head.push_str(&format!(
                "Content-Type: text/plain\r\nContent-Length: {}\r\n",
                body.len()
            ));
        }
        head.push_str("\r\n");
        let mut out = head.into_bytes();
        out.extend_from_slice(req.body.as_deref().unwrap_or_default());
        conn.write_all(&out)
            .and_then(|_| conn.flush())
            .map_err(|e| {
                BenchError::System(format!(
                    "{}: cannot send the request: {e}",
                    self.target.authority()
                ))
            })?;
        read_reply(
            &mut conn,
            &self.target.authority(),
            &req.method,
            request_line,
        )
    }
}

/// Reads one reply from `conn`: the head, then the body by its length, its
/// chunks or to the end of the connection.
fn read_reply(
    conn: &mut impl Read,
    authority: &str,
    method: &str,
    request_line: String,
) -> Result<Reply, BenchError> {
    let mut buf: Vec<u8> = Vec::with_capacity(8192);
    let mut chunk = [0u8; 16384];
    let head_end = loop {
        if let Some(i) = find(&buf, b"\r\n\r\n") {
            break i + 4;
        }
        if !buf.is_empty() && !b"HTTP/".starts_with(&buf[..buf.len().min(5)]) {
            return Err(not_http(authority, &buf));
        }
        if buf.len() > HEAD_CAP {
            return Err(BenchError::System(format!(
                "{authority}: reply head over {HEAD_CAP} bytes"
            )));
        }
        match conn.read(&mut chunk) {
            Ok(0) if buf.is_empty() => {
                return Err(BenchError::System(format!(
                    "{authority} closed the connection without an HTTP reply (not an HTTP server, or a TLS port spoken to as http?)"
                )));
            }
            Ok(0) => return Err(not_http(authority, &buf)),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                return Err(if buf.is_empty() {
                    BenchError::System(format!(
                        "{authority} sent no HTTP reply before the timeout (not an HTTP server?)"
                    ))
                } else {
                    not_http(authority, &buf)
                });
            }
            Err(e) if buf.is_empty() && e.kind() == ErrorKind::ConnectionReset => {
                return Err(BenchError::System(format!(
                    "{authority} reset the connection without an HTTP reply (not an HTTP server, or a TLS port spoken to as http?)"
                )));
            }
            Err(e) => {
                return Err(BenchError::System(format!(
                    "{authority}: cannot read the reply: {e}"
                )));
            }
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let status: u16 = status_line
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| not_http(authority, &buf))?;
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .collect();
    let header = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.clone())
    };
    let mut body = buf[head_end..].to_vec();
    let no_body = method == "HEAD" || status / 100 == 1 || status == 204 || status == 304;
    if !no_body {
        let length: Option<usize> = header("Content-Length").and_then(|v| v.parse().ok());
        let want = length.unwrap_or(usize::MAX).min(BODY_CAP);
        while body.len() < want {
            match conn.read(&mut chunk) {
                Ok(0) => break,
                Ok(n) => body.extend_from_slice(&chunk[..n]),
                // A reply cut short still shows what it showed.
                Err(_) => break,
            }
        }
        body.truncate(want);
        if length.is_none()
            && header("Transfer-Encoding")
                .is_some_and(|v| v.to_ascii_lowercase().contains("chunked"))
        {
            body = dechunk(&body);
        }
    } else {
        body.clear();
    }
    Ok(Reply {
        request_line,
        status,
        headers,
        body,
    })
}

/// The one line for a peer that answered something other than HTTP.
fn not_http(authority: &str, got: &[u8]) -> BenchError {
    BenchError::System(not_http_text(authority, got))
}

/// [`not_http`]'s text.
fn not_http_text(authority: &str, got: &[u8]) -> String {
    if got.first().is_some_and(|b| (0x14..=0x17).contains(b)) && got.get(1) == Some(&3) {
        return format!("{authority} answered with TLS, not plain HTTP: use https://{authority}");
    }
    let excerpt: String = String::from_utf8_lossy(&got[..got.len().min(40)])
        .chars()
        .map(|c| if c.is_control() { '.' } else { c })
        .collect();
    format!("{authority} did not answer HTTP (it sent '{excerpt}')")
}

/// The position of `needle` in `hay`.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The body of a chunked reply: its chunks' data joined (as far as it
/// reads; a cut-off reply gives what arrived).
fn dechunk(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut rest = raw;
    while let Some(eol) = find(rest, b"\r\n") {
        let size_text = String::from_utf8_lossy(&rest[..eol]);
        let size_text = size_text.split(';').next().unwrap_or_default().trim();
        let Ok(size) = usize::from_str_radix(size_text, 16) else {
            break;
        };
        if size == 0 {
            break;
        }
        let start = eol + 2;
        let end = (start + size).min(rest.len());
        out.extend_from_slice(&rest[start..end]);
        rest = rest.get(end + 2..).unwrap_or_default();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(raw: &[u8], method: &str) -> Result<Reply, BenchError> {
        read_reply(&mut &raw[..], "h:1", method, "GET / HTTP/1.1".into())
    }

    #[test]
    fn replies_parse_by_length_chunks_or_close() {
        let r = reply(
            b"HTTP/1.1 200 OK\r\nServer: x/1.2\r\nContent-Length: 5\r\n\r\nhelloEXTRA",
            "GET",
        )
        .unwrap();
        assert_eq!((r.status, r.text().as_str()), (200, "hello"));
        assert_eq!(r.header("server").collect::<Vec<_>>(), ["x/1.2"]);
        let r = reply(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\n\r\n", "GET").unwrap();
        assert_eq!(r.text(), "abcde");
        let r = reply(b"HTTP/1.0 404 Not Found\r\n\r\nto the end", "GET").unwrap();
        assert_eq!((r.status, r.text().as_str()), (404, "to the end"));
        let r = reply(b"HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\n", "HEAD").unwrap();
        assert!(r.body.is_empty());
    }

    #[test]
    fn other_protocols_get_one_line_saying_what_came() {
        let e = reply(b"SSH-2.0-OpenSSH_9.2\r\n", "GET")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "h:1 did not answer HTTP (it sent 'SSH-2.0-OpenSSH_9.2..')"
        );
        let e = reply(&[0x15, 3, 1, 0, 2, 2, 70], "GET").unwrap_err();
        assert!(
            e.to_string()
                .contains("answered with TLS, not plain HTTP: use https://h:1"),
            "{e}"
        );
        let e = reply(b"", "GET").unwrap_err();
        assert!(
            e.to_string()
                .contains("closed the connection without an HTTP reply"),
            "{e}"
        );
    }

    #[test]
    fn the_limiter_spaces_requests() {
        let limiter = RateLimiter::new(100);
        let start = Instant::now();
        for _ in 0..11 {
            limiter.wait();
        }
        assert!(
            start.elapsed() >= Duration::from_millis(95),
            "{:?}",
            start.elapsed()
        );
    }
}
