//! Fuzzing of the built-in server's request reading with
//! `nodebench_core::fuzz`: the request-head parser and the chunked-body
//! decoder. Generated valid heads and bodies, fed whole or split at random
//! points, must read as what was generated; mutated and random bytes must
//! give a rejection or an error, never a panic, and the decoder keeps no
//! bytes. A few seconds by default; `NODEBENCH_FUZZ_SECONDS=600` runs each
//! target for ten minutes.

use nodebench_core::fuzz;
use nodebench_http::server::http1::{self, ChunkedBody, Version};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// A generated request head and what it must parse to.
#[derive(Debug, Clone)]
struct GenHead {
    bytes: Vec<u8>,
    method: String,
    path: String,
    http11: bool,
    keep_alive: bool,
    content_length: u64,
    chunked: bool,
    expect_continue: bool,
}

fn token() -> impl Strategy<Value = String> {
    "[A-Za-z0-9!#$%&'*+.^_`|~-]{1,12}"
}

fn head() -> impl Strategy<Value = GenHead> {
    (
        prop_oneof![
            Just("GET".to_string()),
            Just("HEAD".to_string()),
            Just("POST".to_string()),
            token()
        ],
        "(/[a-zA-Z0-9._~%-]{0,10}){1,4}",
        prop::option::of("[a-z0-9=&]{0,12}"),
        any::<bool>(),
        prop::option::of(prop_oneof![
            Just("close"),
            Just("keep-alive"),
            Just("Keep-Alive, Upgrade")
        ]),
        // Body framing: none, Content-Length, or chunked.
        prop_oneof![
            Just((None, false)),
            any::<u64>().prop_map(|n| (Some(n), false)),
            Just((None, true)),
        ],
        any::<bool>(),
        prop::collection::vec((token(), "[ -~]{0,20}"), 0..5),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_map(
            |(method, path, query, http11, conn, (cl, chunked), expect, extra, lf, absolute)| {
                let eol = if lf { "\n" } else { "\r\n" };
                let target = match &query {
                    Some(q) => format!("{path}?{q}"),
                    None => path.clone(),
                };
                let target = if absolute {
                    format!("http://example.test{target}")
                } else {
                    target
                };
                let version = if http11 { "HTTP/1.1" } else { "HTTP/1.0" };
                let mut text = format!("{method} {target} {version}{eol}");
                for (name, value) in &extra {
                    // Only headers the parser skips.
                    let lower = name.to_ascii_lowercase();
                    if [
                        "connection",
                        "content-length",
                        "transfer-encoding",
                        "expect",
                    ]
                    .contains(&lower.as_str())
                    {
                        continue;
                    }
                    text += &format!("{name}: {}{eol}", value.trim());
                }
                if let Some(c) = conn {
                    text += &format!("Connection: {c}{eol}");
                }
                if let Some(n) = cl {
                    text += &format!("Content-Length: {n}{eol}");
                }
                if chunked {
                    text += &format!("Transfer-Encoding: gzip, chunked{eol}");
                }
                if expect {
                    text += &format!("Expect: 100-continue{eol}");
                }
                text += eol;
                let close = conn.is_some_and(|c| c.contains("close"));
                let ka = conn.is_some_and(|c| c.to_ascii_lowercase().contains("keep-alive"));
                GenHead {
                    bytes: text.into_bytes(),
                    method,
                    path,
                    http11,
                    keep_alive: if http11 { !close } else { ka && !close },
                    content_length: cl.unwrap_or(0),
                    chunked,
                    expect_continue: expect && http11,
                }
            },
        )
}

#[test]
fn fuzz_valid_heads_parse_to_what_was_sent() {
    fuzz::run("server::request head", head(), |g| {
        prop_assert_eq!(http1::head_end(&g.bytes), Some(g.bytes.len()));
        let h = http1::parse(&g.bytes).map_err(|r| {
            TestCaseError::fail(format!(
                "{} {}: {}",
                r.status,
                r.reason,
                String::from_utf8_lossy(&g.bytes)
            ))
        })?;
        prop_assert_eq!(h.method, g.method.as_str());
        prop_assert_eq!(h.path, g.path.as_str());
        prop_assert_eq!(h.version == Version::Http11, g.http11);
        prop_assert_eq!(h.keep_alive, g.keep_alive);
        prop_assert_eq!(h.content_length, g.content_length);
        prop_assert_eq!(h.chunked, g.chunked);
        prop_assert_eq!(h.expect_continue, g.expect_continue);
        // Split anywhere before its end, the head is incomplete.
        for cut in [1, g.bytes.len() / 2, g.bytes.len() - 1] {
            prop_assert_eq!(http1::head_end(&g.bytes[..cut]), None);
        }
        Ok(())
    });
}

/// A chunked body (sizes, data, extensions, trailers, CRLF or LF) and the
/// points to split it at.
fn chunked_body() -> impl Strategy<Value = (Vec<u8>, Vec<usize>)> {
    (
        prop::collection::vec(
            (
                prop::collection::vec(any::<u8>(), 1..300),
                any::<bool>(),
                any::<bool>(),
            ),
            0..6,
        ),
        prop::collection::vec("[A-Za-z-]{1,10}: [ -~]{0,10}", 0..3),
        any::<bool>(),
        prop::collection::vec(any::<usize>(), 0..8),
    )
        .prop_map(|(chunks, trailers, lf, cuts)| {
            let eol: &[u8] = if lf { b"\n" } else { b"\r\n" };
            let mut b = Vec::new();
            for (data, upper, ext) in chunks {
                let size = if upper {
                    format!("{:X}", data.len())
                } else {
                    format!("{:x}", data.len())
                };
                b.extend_from_slice(size.as_bytes());
                if ext {
                    b.extend_from_slice(b";name=\"value\"");
                }
                b.extend_from_slice(eol);
                b.extend_from_slice(&data);
                b.extend_from_slice(eol);
            }
            b.extend_from_slice(b"0");
            b.extend_from_slice(eol);
            for t in trailers {
                b.extend_from_slice(t.as_bytes());
                b.extend_from_slice(eol);
            }
            b.extend_from_slice(eol);
            let n = b.len();
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (n + 1)).collect();
            cuts.sort_unstable();
            (b, cuts)
        })
}

#[test]
fn fuzz_chunked_bodies_end_exactly_where_they_end() {
    fuzz::run("server::chunked body", chunked_body(), |(body, cuts)| {
        let next = b"GET / HTTP/1.1\r\n\r\n";
        let mut stream = body.clone();
        stream.extend_from_slice(next);
        let mut decoder = ChunkedBody::default();
        let mut at = 0;
        let mut ended = None;
        let mut bounds: Vec<usize> = cuts.clone();
        bounds.push(stream.len());
        for end in bounds {
            if end <= at {
                continue;
            }
            let (used, done) = decoder
                .skip(&stream[at..end])
                .map_err(|e| TestCaseError::fail(format!("{e} at byte {at}")))?;
            at += used;
            if done {
                ended = Some(at);
                break;
            }
            prop_assert_eq!(at, end, "consumed everything while not done");
        }
        prop_assert_eq!(ended, Some(body.len()), "the body's end");
        Ok(())
    });
}

/// Bytes of a valid head or body with edits.
fn mutated() -> impl Strategy<Value = Vec<u8>> {
    let valid = prop_oneof![
        head().prop_map(|g| g.bytes),
        chunked_body().prop_map(|(b, _)| b)
    ];
    (
        valid,
        prop::collection::vec((any::<usize>(), any::<u8>(), 0u8..4), 1..6),
    )
        .prop_map(|(mut b, edits)| {
            for (at, byte, kind) in edits {
                let i = at % (b.len() + 1);
                match kind {
                    0 => b.insert(i, byte),
                    1 if i < b.len() => {
                        b.remove(i);
                    }
                    2 if i < b.len() => b[i] ^= byte | 1,
                    _ if i < b.len() => b[i] = byte,
                    _ => b.push(byte),
                }
            }
            b
        })
}

/// Every reader on `bytes`: no panic, and rejections use a real status.
fn read_everything(bytes: &[u8]) -> Result<(), TestCaseError> {
    let skip = http1::leading_blank_lines(bytes);
    prop_assert!(skip <= bytes.len());
    let rest = &bytes[skip..];
    let end = http1::head_end(rest);
    if let Some(e) = end {
        prop_assert!(e <= rest.len());
    }
    if let Err(r) = http1::parse(&rest[..end.unwrap_or(rest.len())]) {
        prop_assert!(matches!(r.status, 400 | 505), "status {}", r.status);
    }
    let mut decoder = ChunkedBody::default();
    if let Ok((used, _)) = decoder.skip(bytes) {
        prop_assert!(used <= bytes.len());
    }
    Ok(())
}

#[test]
fn fuzz_mutated_requests_never_panic() {
    fuzz::run("server::mutated requests", mutated(), |b| {
        read_everything(&b)
    });
}

#[test]
fn fuzz_random_bytes_never_panic() {
    fuzz::run(
        "server::random request bytes",
        prop::collection::vec(any::<u8>(), 0..512),
        |b| read_everything(&b),
    );
}
