//! A minimal, allocation-free HTTP/1.x reply parser for the load engines:
//! the status line, and of the headers only `Content-Length`,
//! `Transfer-Encoding: chunked`, `Connection` and (once) `Server`, matched
//! case-insensitively. Bodies are counted and skipped, never kept, so a
//! reply of any size goes through a fixed buffer. It is fed whatever each
//! read returned; a head split across reads is carried in a small buffer
//! that is reused from reply to reply.

use std::sync::LazyLock;

use memchr::memmem;

/// Largest reply head accepted (status line, headers and the blank line),
/// in one read or split across several.
pub const MAX_HEAD: usize = 64 * 1024;

/// What a [`ReplyParser::feed`] call found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Feed {
    /// The reply is not complete yet; every byte was consumed.
    More,
    /// The reply completed after this many bytes of the input.
    Done(usize),
    /// The bytes are not an HTTP/1.x reply (or the head is too large).
    Bad,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Chunk {
    Size { value: u64, digits: u8 },
    Ext(u64),
    SizeLf(u64),
    Data(u64),
    DataCr,
    DataLf,
    TrailerStart,
    TrailerLine,
    TrailerLineLf,
    FinalLf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Head,
    Length(u64),
    Chunked(Chunk),
    UntilClose,
    Done,
}

/// Parses one reply at a time; [`ReplyParser::reset`] readies it for the next.
#[derive(Debug)]
pub struct ReplyParser {
    state: State,
    head: Vec<u8>,
    /// The request was HEAD: replies have no body whatever they say.
    pub head_request: bool,
    /// Status code of the reply (the final one, after any 1xx).
    pub status: u16,
    /// Bytes of status lines and headers (1xx heads included).
    pub header_bytes: u64,
    /// Body bytes (chunked: data bytes only).
    pub body_bytes: u64,
    /// The connection cannot carry another request after this reply
    /// (`Connection: close`, HTTP/1.0 without keep-alive, or a body that
    /// runs to the end of the connection).
    pub close: bool,
}

impl ReplyParser {
    /// A parser for replies to `HEAD` requests when `head_request`.
    pub fn new(head_request: bool) -> Self {
        ReplyParser {
            state: State::Head,
            head: Vec::new(),
            head_request,
            status: 0,
            header_bytes: 0,
            body_bytes: 0,
            close: false,
        }
    }

    /// Readies the parser for the next reply, keeping its buffer.
    pub fn reset(&mut self) {
        self.state = State::Head;
        self.head.clear();
        self.status = 0;
        self.header_bytes = 0;
        self.body_bytes = 0;
        self.close = false;
    }

    /// True once any byte of the current reply arrived.
    pub fn started(&self) -> bool {
        self.state != State::Head || !self.head.is_empty() || self.header_bytes > 0
    }

    /// Body bytes still due while a `Content-Length` body is being read
    /// (None before its head, after its end, and for other framings).
    pub fn body_left(&self) -> Option<u64> {
        match self.state {
            State::Length(left) => Some(left),
            _ => None,
        }
    }

    /// True while the body runs to the end of the connection.
    pub fn until_close(&self) -> bool {
        self.state == State::UntilClose
    }

    /// The connection reached EOF: true when that completes the reply (a
    /// body delimited by the connection's end).
    pub fn finish_at_eof(&mut self) -> bool {
        if self.state == State::UntilClose {
            self.state = State::Done;
            true
        } else {
            false
        }
    }

    /// Feeds the next bytes read. `server` receives the `Server` header's
    /// value when it is None (so only the first reply allocates).
    pub fn feed(&mut self, data: &[u8], server: &mut Option<String>) -> Feed {
        let mut pos = 0;
        loop {
            match self.state {
                State::Head => {
                    // A head longer than MAX_HEAD is refused however the
                    // reads split it: when its end is found, and as soon
                    // as the part without an end is longer.
                    let (end_in_data, head_len) = if self.head.is_empty() {
                        match find_head_end(data, pos) {
                            Some(e) if e - pos > MAX_HEAD => return Feed::Bad,
                            Some(e) => (e, e - pos),
                            None => {
                                if data.len() - pos > MAX_HEAD {
                                    return Feed::Bad;
                                }
                                self.head.extend_from_slice(&data[pos..]);
                                return Feed::More;
                            }
                        }
                    } else {
                        let old = self.head.len();
                        self.head.extend_from_slice(&data[pos..]);
                        match find_head_end(&self.head, old.saturating_sub(3)) {
                            Some(e) if e > MAX_HEAD => return Feed::Bad,
                            Some(e) => {
                                self.head.truncate(e);
                                (pos + (e - old), e)
                            }
                            None => {
                                if self.head.len() > MAX_HEAD {
                                    return Feed::Bad;
                                }
                                return Feed::More;
                            }
                        }
                    };
                    let parsed = if self.head.is_empty() {
                        parse_head(&data[pos..end_in_data], server)
                    } else {
                        parse_head(&self.head, server)
                    };
                    self.head.clear();
                    let Some(h) = parsed else {
                        return Feed::Bad;
                    };
                    self.header_bytes += head_len as u64;
                    pos = end_in_data;
                    self.status = h.status;
                    if (100..200).contains(&h.status) {
                        if h.status == 101 {
                            return Feed::Bad;
                        }
                        // Interim reply: the final one follows.
                        continue;
                    }
                    self.close = h.close;
                    self.state = if self.head_request || h.status == 204 || h.status == 304 {
                        State::Done
                    } else if h.chunked {
                        State::Chunked(Chunk::Size {
                            value: 0,
                            digits: 0,
                        })
                    } else if let Some(n) = h.length {
                        if n == 0 {
                            State::Done
                        } else {
                            State::Length(n)
                        }
                    } else {
                        self.close = true;
                        State::UntilClose
                    };
                }
                State::Length(left) => {
                    let take = (left).min((data.len() - pos) as u64);
                    self.body_bytes += take;
                    pos += take as usize;
                    if take == left {
                        self.state = State::Done;
                    } else {
                        self.state = State::Length(left - take);
                        return Feed::More;
                    }
                }
                State::UntilClose => {
                    self.body_bytes += (data.len() - pos) as u64;
                    return Feed::More;
                }
                State::Chunked(c) => match self.chunked(c, data, &mut pos) {
                    Some(true) => self.state = State::Done,
                    Some(false) => return Feed::More,
                    None => return Feed::Bad,
                },
                State::Done => return Feed::Done(pos),
            }
        }
    }

    /// Runs the chunked-body machine over `data[*pos..]`: Some(true) when
    /// the body ended, Some(false) when more is needed, None when malformed.
    fn chunked(&mut self, mut c: Chunk, data: &[u8], pos: &mut usize) -> Option<bool> {
        while *pos < data.len() {
            if let Chunk::Data(left) = c {
                let take = left.min((data.len() - *pos) as u64);
                self.body_bytes += take;
                *pos += take as usize;
                c = if take == left {
                    Chunk::DataCr
                } else {
                    Chunk::Data(left - take)
                };
                continue;
            }
            let b = data[*pos];
            *pos += 1;
            c = match (c, b) {
                (Chunk::Size { value, digits }, _) => match hex(b) {
                    Some(d) if digits < 15 => Chunk::Size {
                        value: value * 16 + d,
                        digits: digits + 1,
                    },
                    Some(_) => return None,
                    None if digits == 0 => return None,
                    None if b == b'\r' => Chunk::SizeLf(value),
                    None if b == b';' || b == b' ' || b == b'\t' => Chunk::Ext(value),
                    None => return None,
                },
                (Chunk::Ext(v), b'\r') => Chunk::SizeLf(v),
                (Chunk::Ext(v), _) => Chunk::Ext(v),
                (Chunk::SizeLf(0), b'\n') => Chunk::TrailerStart,
                (Chunk::SizeLf(v), b'\n') => Chunk::Data(v),
                (Chunk::DataCr, b'\r') => Chunk::DataLf,
                (Chunk::DataLf, b'\n') => Chunk::Size {
                    value: 0,
                    digits: 0,
                },
                (Chunk::TrailerStart, b'\r') => Chunk::FinalLf,
                (Chunk::TrailerLine, b'\r') => Chunk::TrailerLineLf,
                (Chunk::TrailerStart | Chunk::TrailerLine, _) => Chunk::TrailerLine,
                (Chunk::TrailerLineLf, b'\n') => Chunk::TrailerStart,
                (Chunk::FinalLf, b'\n') => return Some(true),
                _ => return None,
            };
        }
        self.state = State::Chunked(c);
        Some(false)
    }
}

fn hex(b: u8) -> Option<u64> {
    match b {
        b'0'..=b'9' => Some(u64::from(b - b'0')),
        b'a'..=b'f' => Some(u64::from(b - b'a' + 10)),
        b'A'..=b'F' => Some(u64::from(b - b'A' + 10)),
        _ => None,
    }
}

/// The index just past the `\r\n\r\n` that ends a head, searching from `from`.
fn find_head_end(buf: &[u8], from: usize) -> Option<usize> {
    static END: LazyLock<memmem::Finder<'static>> =
        LazyLock::new(|| memmem::Finder::new(b"\r\n\r\n"));
    END.find(buf.get(from..)?).map(|p| from + p + 4)
}

/// The `\n`-separated lines of a head, found with SIMD `memchr`.
struct Lines<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for Lines<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        if self.rest.is_empty() {
            return None;
        }
        let (line, rest) = match memchr::memchr(b'\n', self.rest) {
            Some(i) => (&self.rest[..i], &self.rest[i + 1..]),
            None => (self.rest, &[][..]),
        };
        self.rest = rest;
        Some(line)
    }
}

/// What a head says about its reply.
struct Head {
    status: u16,
    close: bool,
    chunked: bool,
    length: Option<u64>,
}

fn trim(v: &[u8]) -> &[u8] {
    let start = v
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t'))
        .unwrap_or(v.len());
    let end = v
        .iter()
        .rposition(|b| !matches!(b, b' ' | b'\t'))
        .map_or(start, |e| e + 1);
    &v[start..end.max(start)]
}

fn has_token(v: &[u8], token: &[u8]) -> bool {
    v.split(|&b| b == b',')
        .any(|t| trim(t).eq_ignore_ascii_case(token))
}

/// Parses a head (status line and headers, terminator included).
fn parse_head(head: &[u8], server: &mut Option<String>) -> Option<Head> {
    let mut lines = Lines { rest: head };
    let status_line = lines.next()?;
    if status_line.len() < 12 || !status_line.starts_with(b"HTTP/1.") || status_line[8] != b' ' {
        return None;
    }
    let http10 = status_line[7] == b'0';
    let code = &status_line[9..12];
    if !code.iter().all(u8::is_ascii_digit)
        || status_line
            .get(12)
            .is_some_and(|&b| b != b' ' && b != b'\r')
    {
        return None;
    }
    let status = code.iter().fold(0u16, |a, &d| a * 10 + u16::from(d - b'0'));
    let mut h = Head {
        status,
        close: http10,
        chunked: false,
        length: None,
    };
    for line in lines {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.is_empty() {
            continue;
        }
        let colon = memchr::memchr(b':', line)?;
        let (name, value) = (&line[..colon], trim(&line[colon + 1..]));
        match name.len() {
            14 if name.eq_ignore_ascii_case(b"content-length") => {
                if value.is_empty() || !value.iter().all(u8::is_ascii_digit) || value.len() > 19 {
                    return None;
                }
                h.length = Some(
                    value
                        .iter()
                        .fold(0u64, |a, &d| a * 10 + u64::from(d - b'0')),
                );
            }
            17 if name.eq_ignore_ascii_case(b"transfer-encoding") => {
                let last = value.rsplit(|&b| b == b',').next().map(trim).unwrap_or(b"");
                h.chunked = last.eq_ignore_ascii_case(b"chunked");
            }
            10 if name.eq_ignore_ascii_case(b"connection") => {
                if has_token(value, b"close") {
                    h.close = true;
                } else if has_token(value, b"keep-alive") {
                    h.close = false;
                }
            }
            6 if server.is_none() && name.eq_ignore_ascii_case(b"server") => {
                *server = Some(String::from_utf8_lossy(value).into_owned());
            }
            _ => {}
        }
    }
    Some(h)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Feeds `reply` in pieces of `step` bytes; returns (status, body bytes,
    /// header bytes, close, bytes left over after the reply).
    fn run(reply: &[u8], step: usize, head_request: bool) -> Option<(u16, u64, u64, bool, usize)> {
        let mut p = ReplyParser::new(head_request);
        let mut server = None;
        let mut at = 0;
        while at < reply.len() {
            let end = (at + step).min(reply.len());
            match p.feed(&reply[at..end], &mut server) {
                Feed::More => at = end,
                Feed::Done(used) => {
                    return Some((
                        p.status,
                        p.body_bytes,
                        p.header_bytes,
                        p.close,
                        reply.len() - (at + used),
                    ));
                }
                Feed::Bad => return None,
            }
        }
        p.finish_at_eof()
            .then_some((p.status, p.body_bytes, p.header_bytes, p.close, 0))
    }

    #[test]
    fn content_length_in_any_split() {
        let reply = b"HTTP/1.1 200 OK\r\nServer: t\r\ncontent-LENGTH: 10\r\n\r\n0123456789";
        for step in 1..=reply.len() {
            assert_eq!(
                run(reply, step, false),
                Some((200, 10, 50, false, 0)),
                "step {step}"
            );
        }
    }

    #[test]
    fn chunked_with_extensions_and_trailers() {
        let reply = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n5;x=y\r\nhello\r\nA\r\n0123456789\r\n0\r\nX-T: 1\r\n\r\n";
        for step in 1..=reply.len() {
            let r = run(reply, step, false).unwrap_or_else(|| panic!("step {step}"));
            assert_eq!((r.0, r.1, r.4), (200, 15, 0), "step {step}");
        }
        let plain = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n";
        assert_eq!(run(plain, 7, false).unwrap().1, 3);
        let bad = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n";
        assert_eq!(run(bad, 100, false), None);
    }

    #[test]
    fn close_rules() {
        let r = run(b"HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n", 100, false).unwrap();
        assert!(r.3, "HTTP/1.0 closes by default");
        let r = run(
            b"HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n",
            100,
            false,
        )
        .unwrap();
        assert!(!r.3);
        let r = run(
            b"HTTP/1.1 200 OK\r\nconnection: CLOSE\r\nContent-Length: 1\r\n\r\nx",
            100,
            false,
        )
        .unwrap();
        assert!(r.3);
        // No length: the body runs to EOF.
        let r = run(b"HTTP/1.1 200 OK\r\n\r\nabcdef", 4, false).unwrap();
        assert_eq!((r.1, r.3), (6, true));
    }

    #[test]
    fn bodiless_replies_and_interim_heads() {
        let r = run(
            b"HTTP/1.1 200 OK\r\nContent-Length: 3985\r\n\r\n",
            100,
            true,
        )
        .unwrap();
        assert_eq!((r.0, r.1), (200, 0));
        let r = run(
            b"HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n",
            100,
            false,
        )
        .unwrap();
        assert_eq!((r.0, r.1), (304, 0));
        let r = run(
            b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\nno",
            5,
            false,
        )
        .unwrap();
        assert_eq!((r.0, r.1), (404, 2));
    }

    #[test]
    fn leftover_bytes_are_reported() {
        let r = run(
            b"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxEXTRA",
            1000,
            false,
        )
        .unwrap();
        assert_eq!(r.4, 5);
    }

    #[test]
    fn garbage_is_rejected() {
        assert_eq!(run(b"SSH-2.0-OpenSSH\r\n\r\n", 100, false), None);
        assert_eq!(run(b"HTTP/1.1 2x0 OK\r\n\r\n", 100, false), None);
        assert_eq!(
            run(b"HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n", 100, false),
            None
        );
        assert_eq!(
            run(b"HTTP/1.1 200 OK\r\nno colon\r\n\r\n", 100, false),
            None
        );
        let huge = vec![b'a'; MAX_HEAD + 10];
        let mut p = ReplyParser::new(false);
        assert_eq!(p.feed(&huge, &mut None), Feed::Bad);
    }

    /// An input the fuzzer (tests/it/fuzz_reply.rs) found mishandled: a head
    /// over [`MAX_HEAD`] was accepted when it came in one read and refused
    /// when split; now it is refused either way, and one of exactly
    /// `MAX_HEAD` bytes is accepted either way.
    #[test]
    fn the_head_limit_does_not_depend_on_the_reads() {
        let head = |len: usize| {
            let fixed = "HTTP/1.1 200 OK\r\nX-Big: \r\nContent-Length: 0\r\n\r\n".len();
            let h = format!(
                "HTTP/1.1 200 OK\r\nX-Big: {}\r\nContent-Length: 0\r\n\r\n",
                "b".repeat(len - fixed)
            );
            assert_eq!(h.len(), len);
            h.into_bytes()
        };
        for step in [1 << 20, 40_000, 4096, 1000] {
            let at_limit = head(MAX_HEAD);
            assert_eq!(
                run(&at_limit, step, false),
                Some((200, 0, MAX_HEAD as u64, false, 0)),
                "step {step}"
            );
            assert_eq!(run(&head(MAX_HEAD + 1), step, false), None, "step {step}");
        }
    }

    #[test]
    fn server_is_captured_once() {
        let mut p = ReplyParser::new(false);
        let mut server = None;
        let reply = b"HTTP/1.1 200 OK\r\nSERVER:  nginx/1.22 \r\nContent-Length: 0\r\n\r\n";
        assert_eq!(p.feed(reply, &mut server), Feed::Done(reply.len()));
        assert_eq!(server.as_deref(), Some("nginx/1.22"));
        assert!(p.started());
        p.reset();
        assert!(!p.started());
    }
}
