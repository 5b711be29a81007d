//! Target URLs: `http://HOST[:PORT]/PATH` and `https://HOST[:PORT]/PATH`,
//! parsed once into a [`Target`] with one-line errors that name the URL and
//! the accepted forms; on the command line also `/PATH` alone ([`UrlArg`]),
//! a page of the built-in server started in this process.

use nodebench_core::bench::BenchError;
use std::net::{SocketAddr, ToSocketAddrs};

use nodebench_core::config::Choice;

/// The accepted forms, quoted in every parse error.
const FORM: &str = "expected http://HOST[:PORT]/PATH, https://HOST[:PORT]/PATH, or /PATH (the built-in server, started in this process)";

/// `s` with its control characters escaped (`\n`, `\u{1b}`), so an error
/// that quotes it stays on one line.
fn quoted(s: &str) -> String {
    s.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

nodebench_core::choice! {
    /// The URL scheme, named as written before `://` (lower case).
    pub enum Scheme {
        /// Plain HTTP (default port 80).
        Http => "http",
        /// HTTP over TLS (default port 443).
        Https => "https",
    }
}

impl Scheme {
    /// The port used when the URL names none.
    pub fn default_port(self) -> u16 {
        match self {
            Scheme::Http => 80,
            Scheme::Https => 443,
        }
    }
}

/// A URL as the command line gives it: a full URL, or only a path, served
/// by the built-in server that the benchmark starts in this process.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum UrlArg {
    /// `http://...` or `https://...`.
    Full(Target),
    /// `/PATH[?QUERY]`: the path (and query) on the built-in server.
    Path(String),
}

impl UrlArg {
    /// Parses `s`: a path when it starts with `/`, else a full URL; the
    /// error names the URL and the accepted forms.
    pub fn parse(s: &str) -> Result<UrlArg, BenchError> {
        if !s.starts_with('/') {
            return Target::parse(s).map(UrlArg::Full);
        }
        if s.starts_with("//") {
            return Err(BenchError::Invalid(format!(
                "URL: '{}' has no scheme; {FORM}",
                quoted(s)
            )));
        }
        if s.bytes()
            .any(|b| b.is_ascii_whitespace() || b.is_ascii_control())
        {
            return Err(BenchError::Invalid(format!(
                "URL: '{}' contains whitespace or control characters; {FORM}",
                quoted(s)
            )));
        }
        Ok(UrlArg::Path(s.split('#').next().unwrap_or(s).to_string()))
    }

    /// The target and whether it is the built-in server: a path becomes
    /// `http://127.0.0.1:0/PATH`, whose port the server's replaces.
    pub fn into_target(self) -> (Target, bool) {
        match self {
            UrlArg::Full(t) => (t, false),
            UrlArg::Path(p) => (
                Target {
                    port: 0,
                    path_and_query: p,
                    ..Target::default()
                },
                true,
            ),
        }
    }
}

/// A parsed target URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// http or https.
    pub scheme: Scheme,
    /// Host name or address as written (IPv6 without the brackets).
    pub host: String,
    /// Port (the scheme's default when not written).
    pub port: u16,
    /// Path and query as sent in the request line; `/` when the URL has none.
    pub path_and_query: String,
}

/// `http://127.0.0.1/`, the local machine's web server: a placeholder for
/// configurations built from defaults, which name their own target.
impl Default for Target {
    fn default() -> Target {
        Target {
            scheme: Scheme::Http,
            host: "127.0.0.1".into(),
            port: Scheme::Http.default_port(),
            path_and_query: "/".into(),
        }
    }
}

impl Target {
    /// Parses `s`; the error names the URL and the accepted form.
    pub fn parse(s: &str) -> Result<Target, BenchError> {
        let err = |why: &str| BenchError::Invalid(format!("URL: '{}' {why}; {FORM}", quoted(s)));
        let (scheme, rest) = match s.split_once("://") {
            Some((sch, rest)) => {
                let scheme = Scheme::from_name(&sch.to_ascii_lowercase())
                    .map_err(|_| err("has an unsupported scheme"))?;
                (scheme, rest)
            }
            None => return Err(err("has no scheme")),
        };
        if s.bytes()
            .any(|b| b.is_ascii_whitespace() || b.is_ascii_control())
        {
            return Err(err("contains whitespace or control characters"));
        }
        // The authority ends at the path, the query or the fragment.
        let (authority, path) = match rest.find(['/', '?', '#']) {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        };
        let path = path.split('#').next().unwrap_or("");
        let path_and_query = if path.is_empty() {
            "/".to_string()
        } else if path.starts_with('?') {
            format!("/{path}")
        } else {
            path.to_string()
        };
        if authority.contains('@') {
            return Err(err("has user information, which is not supported"));
        }
        let (host, port) = if let Some(after) = authority.strip_prefix('[') {
            let (h, tail) = after
                .split_once(']')
                .ok_or_else(|| err("has an unclosed '[' in its host"))?;
            if h.parse::<std::net::Ipv6Addr>().is_err() {
                return Err(err("has an invalid IPv6 address"));
            }
            let port = match tail {
                "" => None,
                t => Some(
                    t.strip_prefix(':')
                        .ok_or_else(|| err("has text after its IPv6 address"))?,
                ),
            };
            (h, port)
        } else {
            match authority.rsplit_once(':') {
                Some((h, p)) => (h, Some(p)),
                None => (authority, None),
            }
        };
        if host.is_empty() {
            return Err(err("has no host"));
        }
        let bracketed = authority.starts_with('[');
        if !bracketed
            && !host
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-._".contains(&b))
        {
            return Err(err("has an invalid host"));
        }
        let port = match port {
            None => scheme.default_port(),
            Some(p) => match p.parse::<u16>() {
                Ok(n) if n > 0 => n,
                _ => return Err(err("has an invalid port (expected 1-65535)")),
            },
        };
        Ok(Target {
            scheme,
            host: host.to_string(),
            port,
            path_and_query,
        })
    }

    /// Resolves the host to its first socket address.
    pub fn resolve(&self) -> Result<SocketAddr, BenchError> {
        (self.host.as_str(), self.port)
            .to_socket_addrs()
            .map_err(|e| BenchError::System(format!("cannot resolve {}: {e}", self.host)))?
            .next()
            .ok_or_else(|| BenchError::System(format!("cannot resolve {}: no address", self.host)))
    }

    /// The `Host` header value: the host, bracketed if IPv6, with the port
    /// unless it is the scheme's default.
    pub fn authority(&self) -> String {
        let host = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        if self.port == self.scheme.default_port() {
            host
        } else {
            format!("{host}:{}", self.port)
        }
    }

    /// The URL written back out (`http://host:port/path`).
    pub fn url(&self) -> String {
        let host = if self.host.contains(':') {
            format!("[{}]", self.host)
        } else {
            self.host.clone()
        };
        format!(
            "{}://{}:{}{}",
            self.scheme.as_str(),
            host,
            self.port,
            self.path_and_query
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_usual_forms() {
        let t = Target::parse("http://127.0.0.1:8080/f3985?x=1").unwrap();
        assert_eq!(t.scheme, Scheme::Http);
        assert_eq!(t.host, "127.0.0.1");
        assert_eq!(t.port, 8080);
        assert_eq!(t.path_and_query, "/f3985?x=1");
        assert_eq!(t.authority(), "127.0.0.1:8080");

        let t = Target::parse("https://localhost").unwrap();
        assert_eq!(t.port, 443);
        assert_eq!(t.path_and_query, "/");
        assert_eq!(t.authority(), "localhost");

        let t = Target::parse("HTTP://[::1]:81?q#frag").unwrap();
        assert_eq!(t.host, "::1");
        assert_eq!(t.port, 81);
        assert_eq!(t.path_and_query, "/?q");
        assert_eq!(t.authority(), "[::1]:81");
        assert_eq!(t.url(), "http://[::1]:81/?q");
    }

    #[test]
    fn rejects_bad_urls_with_the_accepted_form() {
        for (url, why) in [
            ("ftp://x", "unsupported scheme"),
            ("127.0.0.1:80/", "no scheme"),
            ("http://", "no host"),
            ("http:///path", "no host"),
            ("http://host:0/", "invalid port"),
            ("http://host:99999/", "invalid port"),
            ("http://host:abc/", "invalid port"),
            ("http://ho st/", "whitespace"),
            ("http://[::1/", "unclosed"),
            ("http://u:p@host/", "user information"),
            ("http://a:b:c/", "invalid host"),
            ("http://h$st/", "invalid host"),
        ] {
            let e = Target::parse(url).unwrap_err();
            assert!(e.to_string().contains(why), "{url}: {e}");
            assert!(
                e.to_string().contains(url) && e.to_string().contains("http://HOST[:PORT]/PATH"),
                "{e}"
            );
            assert!(!e.to_string().contains('\n'));
        }
    }

    /// Inputs the fuzzer (tests/it/fuzz_url.rs) found mishandled.
    #[test]
    fn fuzz_regressions() {
        // A fragment right after the host was taken as part of the host.
        let t = Target::parse("http://A#").unwrap();
        assert_eq!((t.host.as_str(), t.path_and_query.as_str()), ("A", "/"));
        let t = Target::parse("https://h:8443#x/y?z").unwrap();
        assert_eq!((t.port, t.path_and_query.as_str()), (8443, "/"));
        // A control character in the URL broke its error onto two lines.
        let e = Target::parse("\nhttp://0").unwrap_err().to_string();
        assert_eq!(
            e,
            "URL: '\\nhttp://0' has an unsupported scheme; expected http://HOST[:PORT]/PATH, https://HOST[:PORT]/PATH, or /PATH (the built-in server, started in this process)"
        );
        let e = Target::parse("http://a b\u{1b}/").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("URL: 'http://a b\\u{1b}/' contains whitespace"),
            "{e}"
        );
    }

    #[test]
    fn a_path_alone_is_the_built_in_server() {
        assert_eq!(
            UrlArg::parse("/bytes/3985?x#f").unwrap(),
            UrlArg::Path("/bytes/3985?x".into())
        );
        let (t, built_in) = UrlArg::parse("/cpu/20000").unwrap().into_target();
        assert!(built_in);
        assert_eq!(
            (t.host.as_str(), t.path_and_query.as_str()),
            ("127.0.0.1", "/cpu/20000")
        );
        let (t, built_in) = UrlArg::parse("http://h:81/x").unwrap().into_target();
        assert!(!built_in);
        assert_eq!(t.port, 81);
        for bad in ["//h/x", "/a b", "bytes/3985"] {
            let e = UrlArg::parse(bad).unwrap_err();
            assert!(
                e.to_string().contains("or /PATH (the built-in server"),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn resolves_loopback() {
        let t = Target::parse("http://127.0.0.1:8080/").unwrap();
        assert_eq!(t.resolve().unwrap(), "127.0.0.1:8080".parse().unwrap());
    }
}
