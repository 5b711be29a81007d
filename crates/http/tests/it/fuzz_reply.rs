//! Fuzzing of the load client's HTTP/1.1 reply parser (`ReplyParser`) with
//! `nodebench_core::fuzz`. Generated valid replies (status line, headers,
//! interim 1xx heads, `Content-Length`, chunked or read-to-close bodies)
//! are fed split at random points, as reads return them, and must give
//! the right status, body and head sizes, keep-alive decision and end
//! offset. Mutated and random bytes must never panic and never count more
//! bytes than were fed, and the outcome must not depend on how the bytes
//! were split. A few seconds by default; `NODEBENCH_FUZZ_SECONDS=600` runs
//! each target for ten minutes.

use nodebench_core::fuzz;
use nodebench_http::client::h1::{Feed, MAX_HEAD, ReplyParser};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use nodebench_core::fuzz::{apply, edits};

/// How a generated reply's body is delimited.
#[derive(Debug, Clone)]
enum Framing {
    /// `Content-Length: N` and N body bytes.
    Length(Vec<u8>),
    /// `Transfer-Encoding: chunked`: each chunk's data, its size's leading
    /// zeros and upper-case flag, and whether it has an extension; then
    /// trailer lines.
    Chunked {
        chunks: Vec<(Vec<u8>, usize, bool, bool)>,
        last_extension: bool,
        trailers: Vec<String>,
    },
    /// No length: the body runs to the end of the connection.
    UntilClose(Vec<u8>),
}

/// A valid reply and how it arrives.
#[derive(Debug, Clone)]
struct Reply {
    /// `HTTP/1.0` rather than `HTTP/1.1`.
    http10: bool,
    /// Interim 1xx heads before the final one.
    interim: Vec<u16>,
    /// The final status.
    status: u16,
    /// The reason phrase (may be empty).
    reason: String,
    /// Other headers.
    headers: Vec<(String, String)>,
    /// The length of one more header's value, near the head size limit.
    big_header: Option<usize>,
    /// `Connection:` value, if any.
    connection: Option<String>,
    /// Letter case of the framing header names (bit per letter).
    case: u64,
    /// Body framing.
    framing: Framing,
    /// The request was HEAD.
    head_request: bool,
    /// Bytes after the reply (the parser must report where it ended).
    extra: Vec<u8>,
    /// Where reads split the bytes (positions modulo the length).
    splits: Vec<usize>,
}

/// `name` with letters upper-cased where `case` has a bit set.
fn cased(name: &str, case: u64) -> String {
    name.chars()
        .enumerate()
        .map(|(i, c)| {
            if case >> (i % 64) & 1 == 1 {
                c.to_ascii_uppercase()
            } else {
                c
            }
        })
        .collect()
}

impl Reply {
    /// No body on the wire: a HEAD request, 204 or 304.
    fn bodiless(&self) -> bool {
        self.head_request || self.status == 204 || self.status == 304
    }

    /// The final head's bytes (status line, headers, blank line).
    fn final_head(&self) -> Vec<u8> {
        let v = if self.http10 { "1.0" } else { "1.1" };
        let mut h = if self.reason.is_empty() {
            format!("HTTP/{v} {}\r\n", self.status)
        } else {
            format!("HTTP/{v} {} {}\r\n", self.status, self.reason)
        };
        for (k, val) in &self.headers {
            h.push_str(&format!("{k}: {val}\r\n"));
        }
        if let Some(n) = self.big_header {
            h.push_str(&format!("X-Big: {}\r\n", "b".repeat(n)));
        }
        if let Some(c) = &self.connection {
            h.push_str(&format!("{}:{c}\r\n", cased("connection", self.case)));
        }
        match &self.framing {
            Framing::Length(body) => h.push_str(&format!(
                "{}: {}\r\n",
                cased("content-length", self.case),
                body.len()
            )),
            Framing::Chunked { .. } => h.push_str(&format!(
                "{}: gzip, {}\r\n",
                cased("transfer-encoding", self.case),
                cased("chunked", self.case >> 20)
            )),
            Framing::UntilClose(_) => {}
        }
        h.push_str("\r\n");
        h.into_bytes()
    }

    /// The interim heads' bytes.
    fn interim_heads(&self) -> Vec<u8> {
        self.interim
            .iter()
            .flat_map(|s| format!("HTTP/1.1 {s} Info\r\nX-I: {s}\r\n\r\n").into_bytes())
            .collect()
    }

    /// The body as sent (nothing when bodiless).
    fn body_wire(&self) -> Vec<u8> {
        if self.bodiless() {
            return Vec::new();
        }
        match &self.framing {
            Framing::Length(b) | Framing::UntilClose(b) => b.clone(),
            Framing::Chunked {
                chunks,
                last_extension,
                trailers,
            } => {
                let mut w = Vec::new();
                let size = |n: usize, zeros: usize, upper: bool| {
                    let hex = if upper {
                        format!("{n:X}")
                    } else {
                        format!("{n:x}")
                    };
                    format!("{}{hex}", "0".repeat(zeros))
                };
                for (data, zeros, upper, ext) in chunks {
                    if data.is_empty() {
                        continue;
                    }
                    w.extend(size(data.len(), *zeros, *upper).into_bytes());
                    if *ext {
                        w.extend(b";name=\"v;1\"");
                    }
                    w.extend(b"\r\n");
                    w.extend(data);
                    w.extend(b"\r\n");
                }
                w.extend(b"0");
                if *last_extension {
                    w.extend(b" ;last");
                }
                w.extend(b"\r\n");
                for t in trailers {
                    w.extend(t.as_bytes());
                    w.extend(b"\r\n");
                }
                w.extend(b"\r\n");
                w
            }
        }
    }

    /// The reply's bytes, without `extra`.
    fn wire(&self) -> Vec<u8> {
        let mut w = self.interim_heads();
        w.extend(self.final_head());
        w.extend(self.body_wire());
        w
    }

    /// Body bytes the parser must count.
    fn body_len(&self) -> u64 {
        if self.bodiless() {
            return 0;
        }
        match &self.framing {
            Framing::Length(b) | Framing::UntilClose(b) => b.len() as u64,
            Framing::Chunked { chunks, .. } => chunks.iter().map(|c| c.0.len() as u64).sum(),
        }
    }

    /// Whether the connection must close after this reply.
    fn closes(&self) -> bool {
        let c = self
            .connection
            .as_deref()
            .unwrap_or("")
            .to_ascii_lowercase();
        let tokens: Vec<&str> = c.split(',').map(str::trim).collect();
        let mut close = self.http10;
        if tokens.contains(&"close") {
            close = true;
        } else if tokens.contains(&"keep-alive") {
            close = false;
        }
        close || (!self.bodiless() && matches!(self.framing, Framing::UntilClose(_)))
    }

    /// The body runs to the connection's end.
    fn until_close(&self) -> bool {
        !self.bodiless() && matches!(self.framing, Framing::UntilClose(_))
    }
}

fn bytes(max: usize) -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..max)
}

fn framing() -> impl Strategy<Value = Framing> {
    prop_oneof![
        prop_oneof![bytes(300), bytes(70_000)].prop_map(Framing::Length),
        (
            prop::collection::vec((bytes(300), 0usize..4, any::<bool>(), any::<bool>()), 0..6),
            any::<bool>(),
            prop::collection::vec("X-[A-Za-z]{1,6}: [ -~]{0,10}", 0..3),
        )
            .prop_map(|(chunks, last_extension, trailers)| Framing::Chunked {
                chunks,
                last_extension,
                trailers,
            }),
        bytes(300).prop_map(Framing::UntilClose),
    ]
}

fn reply() -> impl Strategy<Value = Reply> {
    (
        (
            any::<bool>(),
            prop::collection::vec(prop_oneof![Just(100u16), Just(102), Just(103)], 0..3),
            prop_oneof![200u16..600, Just(204), Just(304), Just(200)],
            "[A-Za-z ]{0,12}",
            prop::collection::vec(
                (
                    "[A-Za-z][A-Za-z0-9-]{0,14}".prop_filter("not a framing header", |k| {
                        let k = k.to_ascii_lowercase();
                        k != "content-length" && k != "transfer-encoding" && k != "connection"
                    }),
                    "[ -~]{0,30}",
                ),
                0..6,
            ),
        ),
        (
            prop::option::of(prop_oneof![
                Just(" close".to_string()),
                Just("Keep-Alive".to_string()),
                Just(" upgrade, CLOSE ".to_string()),
                Just("keep-alive, foo".to_string()),
                Just("foo".to_string()),
            ]),
            any::<u64>(),
            framing(),
            any::<bool>(),
            bytes(20),
            prop::collection::vec(any::<usize>(), 0..8),
            prop::option::weighted(0.03, (MAX_HEAD - 400)..(MAX_HEAD + 400)),
        ),
    )
        .prop_map(
            |(
                (http10, interim, status, reason, headers),
                (connection, case, framing, head_request, extra, splits, big_header),
            )| Reply {
                http10,
                interim,
                status,
                reason: reason.trim_start().to_string(),
                headers,
                big_header,
                connection,
                case,
                framing,
                head_request,
                extra,
                splits,
            },
        )
}

/// What feeding a reply gave.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Ended {
    /// Complete after this many bytes.
    Done(usize),
    /// All bytes consumed, not complete.
    More,
    /// Refused.
    Bad,
}

/// The parser's outcome and counters after feeding.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Outcome {
    ended: Ended,
    status: u16,
    body_bytes: u64,
    header_bytes: u64,
    close: bool,
    until_close: bool,
}

/// Splits `data` at `splits` (positions modulo its length, sorted).
fn pieces(data: &[u8], splits: &[usize]) -> Vec<std::ops::Range<usize>> {
    let mut cuts: Vec<usize> = splits
        .iter()
        .map(|s| if data.is_empty() { 0 } else { s % data.len() })
        .collect();
    cuts.push(0);
    cuts.push(data.len());
    cuts.sort_unstable();
    cuts.dedup();
    cuts.windows(2).map(|w| w[0]..w[1]).collect()
}

/// Feeds `data` to a fresh parser in the given pieces, as reads would,
/// stopping at the first `Done` or `Bad`; checks that no call reports
/// more bytes used than it was given and that the counters never exceed
/// the bytes fed.
fn feed(data: &[u8], splits: &[usize], head_request: bool) -> Result<Outcome, TestCaseError> {
    let mut p = ReplyParser::new(head_request);
    let mut server = None;
    let mut ended = Ended::More;
    for range in pieces(data, splits) {
        let start = range.start;
        let piece = &data[range];
        match p.feed(piece, &mut server) {
            Feed::More => {}
            Feed::Done(used) => {
                prop_assert!(used <= piece.len(), "used {used} of {}", piece.len());
                ended = Ended::Done(start + used);
                break;
            }
            Feed::Bad => {
                ended = Ended::Bad;
                break;
            }
        }
    }
    let fed = match ended {
        Ended::Done(n) => n,
        _ => data.len(),
    } as u64;
    if ended != Ended::Bad {
        prop_assert!(
            p.header_bytes + p.body_bytes <= fed,
            "counted {} + {} of {fed} bytes",
            p.header_bytes,
            p.body_bytes
        );
    }
    Ok(Outcome {
        ended,
        status: p.status,
        body_bytes: p.body_bytes,
        header_bytes: p.header_bytes,
        close: p.close,
        until_close: p.until_close(),
    })
}

#[test]
fn valid_replies_parse_whatever_the_reads() {
    fuzz::run("reply_valid", reply(), |r| {
        let wire = r.wire();
        let head_len = (r.interim_heads().len() + r.final_head().len()) as u64;
        let mut data = wire.clone();
        if !r.until_close() {
            data.extend(&r.extra);
        }
        let got = feed(&data, &r.splits, r.head_request)?;
        let final_head = r.final_head().len();
        if final_head > MAX_HEAD {
            prop_assert_eq!(got.ended, Ended::Bad);
            return Ok(());
        }
        let want_end = if r.until_close() {
            Ended::More
        } else {
            Ended::Done(wire.len())
        };
        prop_assert_eq!(&got.ended, &want_end);
        prop_assert_eq!(got.status, r.status);
        prop_assert_eq!(got.header_bytes, head_len);
        prop_assert_eq!(got.body_bytes, r.body_len());
        prop_assert_eq!(got.close, r.closes());
        prop_assert_eq!(got.until_close, r.until_close());
        if r.until_close() {
            // The connection's end completes it.
            let mut p = ReplyParser::new(r.head_request);
            prop_assert_eq!(p.feed(&wire, &mut None), Feed::More);
            prop_assert!(p.finish_at_eof());
            prop_assert_eq!(p.body_bytes, r.body_len());
        }
        Ok(())
    });
}

/// Huge or malformed numbers put in place of a valid reply's lengths.
fn number_text() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("18446744073709551615".to_string()),
        Just("18446744073709551616".to_string()),
        Just("99999999999999999999999".to_string()),
        Just("fffffffffffffff".to_string()),
        Just("ffffffffffffffff".to_string()),
        Just("-1".to_string()),
        Just("+5".to_string()),
        Just("".to_string()),
        Just("0x10".to_string()),
        Just("1 2".to_string()),
        "[0-9a-fA-F]{1,24}",
    ]
}

/// Bytes near valid replies (edited, with a length swapped for a huge or
/// malformed number, or cut), or random bytes behind a status line.
fn near_valid() -> impl Strategy<Value = (Vec<u8>, bool, Vec<usize>)> {
    let edited = (reply(), edits()).prop_map(|(r, e)| apply(r.wire(), &e));
    let renumbered = (reply(), number_text()).prop_map(|(r, n)| {
        let text = String::from_utf8_lossy(&r.wire()).into_owned();
        let swapped = match &r.framing {
            Framing::Length(b) => {
                text.replacen(&format!(": {}\r\n", b.len()), &format!(": {n}\r\n"), 1)
            }
            _ => text.replacen("\r\n\r\n", &format!("\r\n\r\n{n}\r\n"), 1),
        };
        swapped.into_bytes()
    });
    let cut = (reply(), any::<usize>()).prop_map(|(r, at)| {
        let mut w = r.wire();
        w.truncate(at % (w.len() + 1));
        w
    });
    let random = (
        prop_oneof![
            Just(&b""[..]),
            Just(&b"HTTP/1.1 200 OK\r\n"[..]),
            Just(&b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"[..]),
        ],
        bytes(400),
    )
        .prop_map(|(head, tail)| [head, &tail[..]].concat());
    (
        prop_oneof![3 => edited, 2 => renumbered, 1 => cut, 2 => random],
        any::<bool>(),
        prop::collection::vec(any::<usize>(), 0..8),
    )
}

#[test]
fn mutated_and_random_bytes_never_panic_or_overread() {
    fuzz::run(
        "reply_mutated",
        near_valid(),
        |(data, head_request, splits)| {
            let split = feed(&data, &splits, head_request)?;
            let whole = feed(&data, &[], head_request)?;
            // How the reads split the bytes does not change the outcome (the
            // counters of a refused reply depend on where it was refused).
            if whole.ended == Ended::Bad || split.ended == Ended::Bad {
                prop_assert_eq!(&split.ended, &whole.ended);
            } else {
                prop_assert_eq!(&split, &whole);
            }
            Ok(())
        },
    );
}
