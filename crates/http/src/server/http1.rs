//! HTTP/1.x requests, as the built-in server reads them: the head's request
//! line, `Connection`, `Content-Length`, `Transfer-Encoding` and `Expect`
//! (every other header is skipped), and the framing of a chunked body,
//! which [`ChunkedBody`] skips as it arrives.

/// Longest request head (request line and headers) the server reads; a
/// longer one gets 431.
pub const MAX_HEAD: usize = 16 * 1024;

/// HTTP/1.0 or HTTP/1.1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    /// HTTP/1.0: the connection closes unless `Connection: keep-alive`.
    Http10,
    /// HTTP/1.1: the connection stays open unless `Connection: close`.
    Http11,
}

/// A parsed request head.
#[derive(Debug, PartialEq, Eq)]
pub struct Head<'a> {
    /// The method, as sent (`GET`, `HEAD`, `POST`).
    pub method: &'a str,
    /// The path, without query string (absolute-form targets are reduced to it).
    pub path: &'a str,
    /// The query string (after `?`, before any `#`), if any.
    pub query: Option<&'a str>,
    /// Protocol version.
    pub version: Version,
    /// Whether the client asks to keep the connection open afterwards.
    pub keep_alive: bool,
    /// Request body length to read and discard (0 with a chunked body).
    pub content_length: u64,
    /// The body is sent in chunks (`Transfer-Encoding` ending in `chunked`).
    pub chunked: bool,
    /// The client waits for `100 Continue` before sending its body.
    pub expect_continue: bool,
}

/// Why a head could not be used, with the status to answer.
#[derive(Debug, PartialEq, Eq)]
pub struct Rejection {
    /// 400 or 505.
    pub status: u16,
    /// A short reason for the response body.
    pub reason: &'static str,
}

fn reject(status: u16, reason: &'static str) -> Rejection {
    Rejection { status, reason }
}

/// Where the head in `buf` ends (the index just past its blank line), or
/// `None` while it is incomplete. Bare-LF line ends are accepted.
pub fn head_end(buf: &[u8]) -> Option<usize> {
    let mut i = 0;
    while let Some(off) = buf[i..].iter().position(|&b| b == b'\n') {
        let nl = i + off;
        match buf.get(nl + 1) {
            Some(b'\n') => return Some(nl + 2),
            Some(b'\r') if buf.get(nl + 2) == Some(&b'\n') => return Some(nl + 3),
            _ => i = nl + 1,
        }
    }
    None
}

/// How many empty lines (CRLF or LF) `buf` starts with, in bytes: RFC 9112
/// asks servers to skip them before a request line.
pub fn leading_blank_lines(buf: &[u8]) -> usize {
    let mut i = 0;
    loop {
        if buf[i..].starts_with(b"\r\n") {
            i += 2;
        } else if buf[i..].starts_with(b"\n") {
            i += 1;
        } else {
            return i;
        }
    }
}

fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Parses a complete head (as delimited by [`head_end`], without leading
/// blank lines).
pub fn parse(head: &[u8]) -> Result<Head<'_>, Rejection> {
    let text = std::str::from_utf8(head).map_err(|_| reject(400, "request head is not UTF-8"))?;
    let mut lines = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l));
    let request_line = lines.next().unwrap_or_default();
    let mut parts = request_line.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(reject(400, "malformed request line"));
    };
    if !is_token(method) {
        return Err(reject(400, "malformed method"));
    }
    let version = match version {
        "HTTP/1.1" => Version::Http11,
        "HTTP/1.0" => Version::Http10,
        v if v.starts_with("HTTP/") && v.len() > 5 => {
            return Err(reject(505, "only HTTP/1.0 and HTTP/1.1 are served"));
        }
        _ => return Err(reject(400, "malformed protocol version")),
    };
    let (path, query) =
        origin_path(target).ok_or_else(|| reject(400, "malformed request target"))?;

    let mut close = false;
    let mut keep_alive = false;
    let mut content_length: Option<u64> = None;
    let mut chunked = false;
    let mut expect_continue = false;
    for line in lines {
        if line.is_empty() {
            break;
        }
        if line.starts_with([' ', '\t']) {
            return Err(reject(400, "folded header lines are not accepted"));
        }
        let (name, value) = line
            .split_once(':')
            .ok_or_else(|| reject(400, "header line without a colon"))?;
        if !is_token(name) {
            return Err(reject(400, "malformed header name"));
        }
        let value = value.trim_matches([' ', '\t']);
        if name.eq_ignore_ascii_case("connection") {
            for option in value.split(',').map(str::trim) {
                close |= option.eq_ignore_ascii_case("close");
                keep_alive |= option.eq_ignore_ascii_case("keep-alive");
            }
        } else if name.eq_ignore_ascii_case("content-length") {
            if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
                return Err(reject(400, "malformed Content-Length"));
            }
            let n: u64 = value
                .parse()
                .map_err(|_| reject(400, "Content-Length too large"))?;
            if content_length.is_some_and(|c| c != n) {
                return Err(reject(400, "conflicting Content-Length headers"));
            }
            content_length = Some(n);
        } else if name.eq_ignore_ascii_case("expect") {
            expect_continue |= value.eq_ignore_ascii_case("100-continue");
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            // RFC 9112 6.3: the body's length is known only when chunked is
            // the final coding; the codings before it do not matter to a
            // server that throws the body away.
            let last = value.rsplit(',').next().unwrap_or_default().trim();
            if !last.eq_ignore_ascii_case("chunked") {
                return Err(reject(400, "Transfer-Encoding must end in chunked"));
            }
            chunked = true;
        }
    }
    if chunked && content_length.is_some() {
        return Err(reject(
            400,
            "both Transfer-Encoding and Content-Length were sent",
        ));
    }
    Ok(Head {
        method,
        path,
        query,
        version,
        keep_alive: match version {
            Version::Http11 => !close,
            Version::Http10 => keep_alive && !close,
        },
        content_length: content_length.unwrap_or(0),
        chunked,
        expect_continue: expect_continue && version == Version::Http11,
    })
}

/// Where a chunked body's framing is (RFC 9112 7.1).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum Chunk {
    /// In a chunk-size line, reading its hex digits.
    #[default]
    Size,
    /// In a chunk-size line past its digits (extensions, up to LF).
    Extension,
    /// In a chunk's data.
    Data,
    /// After a chunk's data, up to its LF.
    DataEnd,
    /// In the trailer section after the last chunk; `at_line_start` while
    /// nothing of the current line was read (an empty line ends the body).
    Trailer { at_line_start: bool },
}

/// Skips a chunked request body as its bytes arrive, without keeping any:
/// chunk-size lines (hex, with optional extensions), the data, the last
/// (zero-size) chunk and the trailer section, whose empty line ends it.
#[derive(Debug, Default)]
pub struct ChunkedBody {
    state: Chunk,
    /// Size of the current chunk as read so far, then its bytes left.
    size: u64,
    /// Hex digits read of the current size.
    digits: u32,
}

/// Most hex digits of a chunk size (15 keeps it below 2^60).
const MAX_SIZE_DIGITS: u32 = 15;

impl ChunkedBody {
    /// Consumes what of `buf` belongs to the body: `(bytes, true)` when the
    /// body ended after `bytes` (the rest is the next request), `(buf.len(),
    /// false)` while more is to come; `Err` when the framing is malformed.
    pub fn skip(&mut self, buf: &[u8]) -> Result<(usize, bool), &'static str> {
        let mut i = 0;
        while i < buf.len() {
            let b = buf[i];
            match self.state {
                Chunk::Size => match b {
                    b'0'..=b'9' | b'a'..=b'f' | b'A'..=b'F' => {
                        if self.digits == MAX_SIZE_DIGITS {
                            return Err("chunk size too large");
                        }
                        let digit = (b as char).to_digit(16).unwrap_or(0);
                        self.size = self.size * 16 + u64::from(digit);
                        self.digits += 1;
                    }
                    b';' | b' ' | b'\t' | b'\r' if self.digits > 0 => self.state = Chunk::Extension,
                    b'\n' if self.digits > 0 => self.end_size_line(),
                    _ => return Err("malformed chunk size"),
                },
                Chunk::Extension => {
                    if b == b'\n' {
                        self.end_size_line();
                    }
                }
                Chunk::Data => {
                    let n = self.size.min((buf.len() - i) as u64);
                    self.size -= n;
                    i += n as usize;
                    if self.size == 0 {
                        self.state = Chunk::DataEnd;
                    }
                    continue;
                }
                Chunk::DataEnd => match b {
                    b'\r' => {}
                    b'\n' => {
                        self.state = Chunk::Size;
                        self.digits = 0;
                    }
                    _ => return Err("chunk data longer than its size"),
                },
                Chunk::Trailer { at_line_start } => match b {
                    b'\n' if at_line_start => return Ok((i + 1, true)),
                    b'\n' => {
                        self.state = Chunk::Trailer {
                            at_line_start: true,
                        }
                    }
                    b'\r' => {}
                    _ => {
                        self.state = Chunk::Trailer {
                            at_line_start: false,
                        }
                    }
                },
            }
            i += 1;
        }
        Ok((i, false))
    }

    fn end_size_line(&mut self) {
        self.state = if self.size == 0 {
            Chunk::Trailer {
                at_line_start: true,
            }
        } else {
            Chunk::Data
        };
    }
}

/// The path of an origin-form (`/a?b`) or absolute-form (`http://h/a?b`)
/// target and its query apart; `None` for anything else.
fn origin_path(target: &str) -> Option<(&str, Option<&str>)> {
    let path = if target.starts_with('/') {
        target
    } else {
        let rest = target
            .strip_prefix("http://")
            .or_else(|| target.strip_prefix("https://"))?;
        match rest.find('/') {
            Some(i) => &rest[i..],
            None => "/",
        }
    };
    let path = path.split('#').next().unwrap_or(path);
    Some(match path.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (path, None),
    })
}

/// The reason phrase of the statuses the server sends.
pub fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        505 => "HTTP Version Not Supported",
        _ => "Unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn head_end_finds_crlf_and_bare_lf_blank_lines() {
        assert_eq!(head_end(b"GET / HTTP/1.1\r\nHost: x\r\n\r\nrest"), Some(27));
        assert_eq!(head_end(b"GET / HTTP/1.1\nHost: x\n\n"), Some(24));
        assert_eq!(head_end(b"GET / HTTP/1.1\r\nHost: x\r\n"), None);
        assert_eq!(leading_blank_lines(b"\r\n\nGET"), 3);
    }

    #[test]
    fn keep_alive_follows_the_version_and_connection_header() {
        let h = parse(b"GET /1150 HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        assert_eq!((h.method, h.path, h.keep_alive), ("GET", "/1150", true));
        let h = parse(b"GET / HTTP/1.1\r\nConnection: Close\r\n\r\n").unwrap();
        assert!(!h.keep_alive);
        let h = parse(b"GET / HTTP/1.0\r\n\r\n").unwrap();
        assert!(!h.keep_alive);
        let h = parse(b"GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").unwrap();
        assert!(h.keep_alive);
    }

    #[test]
    fn targets_lose_query_and_authority() {
        let h = parse(b"GET http://h:8080/bytes/10?x=1 HTTP/1.1\r\n\r\n").unwrap();
        assert_eq!((h.path, h.query), ("/bytes/10", Some("x=1")));
        let h = parse(b"GET /db/ir?key=5#top HTTP/1.1\r\n\r\n").unwrap();
        assert_eq!((h.path, h.query), ("/db/ir", Some("key=5")));
        let h = parse(b"GET /db/ir#top HTTP/1.1\r\n\r\n").unwrap();
        assert_eq!((h.path, h.query), ("/db/ir", None));
        let h = parse(b"POST /cpu?n=1 HTTP/1.1\r\nContent-Length: 12\r\n\r\n").unwrap();
        assert_eq!(
            (h.path, h.query, h.content_length),
            ("/cpu", Some("n=1"), 12)
        );
        let h = parse(b"POST / HTTP/1.1\r\nContent-Length: 9\r\nExpect: 100-continue\r\n\r\n");
        assert!(h.unwrap().expect_continue);
    }

    #[test]
    fn bad_heads_are_rejected_with_their_status() {
        let status = |h: &[u8]| parse(h).unwrap_err().status;
        assert_eq!(status(b"GARBAGE\r\n\r\n"), 400);
        assert_eq!(status(b"GET / HTTP/2.0\r\n\r\n"), 505);
        assert_eq!(status(b"GET / FTP\r\n\r\n"), 400);
        assert_eq!(status(b"GET nope HTTP/1.1\r\n\r\n"), 400);
        assert_eq!(status(b"GET / HTTP/1.1\r\nNoColon\r\n\r\n"), 400);
        assert_eq!(status(b"POST / HTTP/1.1\r\nContent-Length: x\r\n\r\n"), 400);
        assert_eq!(
            status(b"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"),
            400
        );
        assert_eq!(
            status(b"POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n"),
            400
        );
        assert_eq!(
            status(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n"),
            400
        );
        let h = parse(b"POST / HTTP/1.1\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n").unwrap();
        assert!(h.chunked);
    }

    /// A chunked body with an extension, a hex size, a trailer and bare-LF
    /// line ends, followed by the next request.
    const BODY: &[u8] = b"4;name=v\r\nWiki\r\nA\npedia in\r\n\n0\r\nX-Sum: 1\r\n\r\n";

    #[test]
    fn a_chunked_body_is_skipped_up_to_its_end_in_one_piece_or_byte_by_byte() {
        let mut buf = BODY.to_vec();
        buf.extend_from_slice(b"GET / HTTP/1.1\r\n\r\n");
        assert_eq!(ChunkedBody::default().skip(&buf), Ok((BODY.len(), true)));

        let mut c = ChunkedBody::default();
        for (i, b) in BODY.iter().enumerate() {
            let want = (1, i + 1 == BODY.len());
            assert_eq!(c.skip(std::slice::from_ref(b)), Ok(want), "byte {i}");
        }
        // The data may hold anything, CR LF included.
        let body = b"3\r\n\r\n\n\r\n0\r\n\r\n";
        assert_eq!(ChunkedBody::default().skip(body), Ok((body.len(), true)));
    }

    #[test]
    fn malformed_chunk_framing_is_an_error() {
        let err = |b: &[u8]| ChunkedBody::default().skip(b).unwrap_err();
        assert_eq!(err(b"x\r\n"), "malformed chunk size");
        assert_eq!(err(b"\r\n"), "malformed chunk size");
        assert_eq!(err(b"2\r\nabc\r\n"), "chunk data longer than its size");
        assert_eq!(err(b"1000000000000000\r\n"), "chunk size too large");
    }
}
