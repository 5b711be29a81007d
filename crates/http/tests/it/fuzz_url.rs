//! Fuzzing of the target URL parser (`Target::parse`) with
//! `nodebench_core::fuzz`: generated valid URLs must parse to exactly their
//! parts and write back (`Target::url`) to a URL that parses to the same
//! target; mutated and random text must never panic, any URL it accepts
//! must round-trip the same way, and every refusal is one line naming the
//! accepted form. A few seconds by default; `NODEBENCH_FUZZ_SECONDS=600`
//! runs each target for ten minutes.

use std::net::{Ipv4Addr, Ipv6Addr};

use nodebench_core::config::Choice;
use nodebench_core::fuzz;
use nodebench_http::url::{Scheme, Target};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

use nodebench_core::fuzz::{apply, edits};

/// The parts a valid URL is generated from, and what parsing must give.
#[derive(Debug, Clone)]
struct Parts {
    /// The scheme as written (any letter case).
    scheme_text: String,
    /// The scheme it names.
    scheme: Scheme,
    /// The host as written in the URL (IPv6 in brackets).
    host_text: String,
    /// The host the target must hold (IPv6 without brackets).
    host: String,
    /// The port as written, if any.
    port: Option<u16>,
    /// Path and query as written after the authority (may be empty or
    /// start with `?`).
    path: String,
    /// A `#fragment`, dropped by the parser.
    fragment: Option<String>,
}

impl Parts {
    fn url(&self) -> String {
        let mut s = format!("{}://{}", self.scheme_text, self.host_text);
        if let Some(p) = self.port {
            s.push_str(&format!(":{p}"));
        }
        s.push_str(&self.path);
        if let Some(f) = &self.fragment {
            s.push('#');
            s.push_str(f);
        }
        s
    }

    /// The request target the parser must produce from `path`.
    fn path_and_query(&self) -> String {
        if self.path.is_empty() {
            "/".into()
        } else if self.path.starts_with('?') {
            format!("/{}", self.path)
        } else {
            self.path.clone()
        }
    }
}

/// A scheme in any letter case.
fn scheme() -> impl Strategy<Value = (String, Scheme)> {
    (
        prop_oneof![Just(Scheme::Http), Just(Scheme::Https)],
        any::<u8>(),
    )
        .prop_map(|(s, case)| {
            let text: String = s
                .as_str()
                .chars()
                .enumerate()
                .map(|(i, c)| {
                    if case >> (i % 8) & 1 == 1 {
                        c.to_ascii_uppercase()
                    } else {
                        c
                    }
                })
                .collect();
            (text, s)
        })
}

/// A host: a name, an IPv4 address, or an IPv6 address in brackets; as
/// written and as the target must hold it.
fn host() -> impl Strategy<Value = (String, String)> {
    prop_oneof![
        "[a-zA-Z0-9]([a-zA-Z0-9_-]{0,12}[a-zA-Z0-9])?(\\.[a-zA-Z0-9-]{1,10}){0,3}"
            .prop_map(|h| (h.clone(), h)),
        any::<[u8; 4]>().prop_map(|o| {
            let h = Ipv4Addr::from(o).to_string();
            (h.clone(), h)
        }),
        any::<[u16; 8]>().prop_map(|s| {
            let h = Ipv6Addr::from(s).to_string();
            (format!("[{h}]"), h)
        }),
        Just(("localhost".to_string(), "localhost".to_string())),
    ]
}

/// Path and query text: empty, a path, a query alone, or both; printable
/// ASCII and some non-ASCII letters, no `#`.
fn path() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        "/[a-zA-Z0-9._~%!$&'()*+,;=:@/-]{0,30}",
        "\\?[a-zA-Z0-9=&%/?.-]{0,20}",
        "/[a-z0-9/]{0,10}\\?[a-z0-9=&]{0,10}",
        "/[a-zé日本/]{0,8}",
    ]
}

/// Valid URLs, from their parts.
fn parts() -> impl Strategy<Value = Parts> {
    (
        scheme(),
        host(),
        prop::option::of(1u16..=u16::MAX),
        path(),
        prop::option::of("[a-z0-9#?/]{0,8}"),
    )
        .prop_map(
            |((scheme_text, scheme), (host_text, host), port, path, fragment)| Parts {
                scheme_text,
                scheme,
                host_text,
                host,
                port,
                path,
                fragment,
            },
        )
}

/// Text near valid URLs (a valid one with bytes inserted, deleted or
/// replaced, huge ports, odd brackets), or plain random text.
fn near_valid() -> impl Strategy<Value = String> {
    let edited = (parts(), edits())
        .prop_map(|(p, e)| String::from_utf8_lossy(&apply(p.url().into_bytes(), &e)).into_owned());
    let odd = (
        scheme(),
        prop_oneof![
            Just("[::1".to_string()),
            Just("[::1]x".to_string()),
            Just("[]".to_string()),
            Just("h:".to_string()),
            Just("h:99999999999999999999".to_string()),
            Just("h:-1".to_string()),
            Just("h:+80".to_string()),
            Just("u@h".to_string()),
            Just("a:b:c".to_string()),
            Just("[1.2.3.4]".to_string()),
            Just(":80".to_string()),
        ],
        path(),
    )
        .prop_map(|((s, _), a, p)| format!("{s}://{a}{p}"));
    prop_oneof![
        4 => edited,
        1 => odd,
        2 => any::<String>(),
        2 => prop::collection::vec(any::<u8>(), 0..64)
            .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
    ]
}

/// An accepted target's invariants: a host, a non-zero port, a request
/// target starting with `/`, and a written-back URL that parses to it.
fn check_accepted(t: &Target) -> Result<(), TestCaseError> {
    prop_assert!(!t.host.is_empty());
    prop_assert!(t.port > 0);
    prop_assert!(t.path_and_query.starts_with('/'), "{t:?}");
    prop_assert!(!t.path_and_query.contains('#'), "{t:?}");
    let again = Target::parse(&t.url());
    prop_assert_eq!(again.as_ref(), Ok(t), "{}", t.url());
    Ok(())
}

/// A refusal's invariants: one line that quotes the accepted form.
fn check_refused(url: &str, e: &str) -> Result<(), TestCaseError> {
    prop_assert!(!e.contains('\n') && !e.contains('\r'), "{url:?}: {e:?}");
    prop_assert!(
        e.contains(
            "expected http://HOST[:PORT]/PATH, https://HOST[:PORT]/PATH, or /PATH (the built-in server"
        ),
        "{e}"
    );
    prop_assert!(e.starts_with("URL: '"), "{e}");
    Ok(())
}

#[test]
fn valid_urls_parse_to_their_parts_and_round_trip() {
    fuzz::run("url_valid", parts(), |p| {
        let url = p.url();
        let t = Target::parse(&url).map_err(|e| TestCaseError::fail(format!("{url}: {e}")))?;
        prop_assert_eq!(t.scheme, p.scheme, "{}", url);
        prop_assert_eq!(&t.host, &p.host, "{}", url);
        prop_assert_eq!(t.port, p.port.unwrap_or(p.scheme.default_port()), "{}", url);
        prop_assert_eq!(&t.path_and_query, &p.path_and_query(), "{}", url);
        check_accepted(&t)
    });
}

#[test]
fn mutated_and_random_text_never_panics() {
    fuzz::run("url_mutated", near_valid(), |s| match Target::parse(&s) {
        Ok(t) => check_accepted(&t),
        Err(e) => check_refused(&s, &e.to_string()),
    });
}
