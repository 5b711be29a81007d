//! HTTP/2 pieces of the tokio engine: the request in HTTP/2 form, built
//! once, the connection that `--streams` request slots share, and the
//! HTTP/1.1 text size of a response head.

use std::cell::{Cell, RefCell};

use bytes::Bytes;
use http::header::{HeaderMap, HeaderName, HeaderValue};
use http::{Method, Request, Uri};
use nodebench_core::config::Choice;

use crate::config::LoadConfig;

/// Headers HTTP/2 forbids (RFC 9113 8.2.2) or carries as pseudo-headers.
const NOT_IN_H2: [&str; 7] = [
    "host",
    "connection",
    "keep-alive",
    "proxy-connection",
    "transfer-encoding",
    "upgrade",
    "te",
];

/// The request in HTTP/2 form, built once; each stream clones it.
pub(super) struct H2Request {
    /// Its method.
    method: Method,
    /// `scheme://authority/path?query`.
    uri: Uri,
    /// Regular headers (no pseudo-headers, nothing connection-specific).
    headers: HeaderMap,
    /// The body, sent in one DATA frame.
    pub(super) body: Bytes,
}

impl H2Request {
    /// The same request [`serialize_request`] writes for HTTP/1.1: default
    /// `User-Agent` and `Accept`, `Content-Length` with a body, the user's
    /// headers replacing defaults; a user `Host` becomes the `:authority`;
    /// connection-specific headers are dropped.
    ///
    /// [`serialize_request`]: crate::client::request::serialize_request
    pub(super) fn new(cfg: &LoadConfig) -> Result<H2Request, String> {
        let r = &cfg.request;
        let method = Method::from_bytes(r.method.as_bytes())
            .map_err(|_| format!("method {:?} is not a valid HTTP method", r.method))?;
        let host = r
            .headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case("host"))
            .map_or_else(|| cfg.target.authority(), |(_, v)| v.clone());
        let uri_text = format!(
            "{}://{}{}",
            cfg.target.scheme.as_str(),
            host,
            cfg.target.path_and_query
        );
        let uri: Uri = uri_text
            .parse()
            .map_err(|e| format!("URL '{uri_text}' is not valid for HTTP/2: {e}"))?;
        let mut headers = HeaderMap::new();
        let bad = |k: &str, v: &str| format!("header {:?} is not valid", format!("{k}: {v}"));
        let mut defaults = vec![
            (
                "user-agent".to_string(),
                concat!("nodebench/", env!("CARGO_PKG_VERSION")).to_string(),
            ),
            ("accept".to_string(), "*/*".to_string()),
        ];
        if !r.body.is_empty() || matches!(r.method.as_str(), "POST" | "PUT" | "PATCH") {
            defaults.push(("content-length".to_string(), r.body.len().to_string()));
        }
        let user_has = |name: &str| r.headers.iter().any(|(k, _)| k.eq_ignore_ascii_case(name));
        let defaults = defaults.into_iter().filter(|(k, _)| !user_has(k));
        for (k, v) in defaults.chain(r.headers.iter().cloned()) {
            if NOT_IN_H2.iter().any(|n| k.eq_ignore_ascii_case(n)) {
                continue;
            }
            let name = HeaderName::from_bytes(k.as_bytes()).map_err(|_| bad(&k, &v))?;
            let value = HeaderValue::from_str(&v).map_err(|_| bad(&k, &v))?;
            headers.append(name, value);
        }
        Ok(H2Request {
            method,
            uri,
            headers,
            body: Bytes::from(r.body.clone()),
        })
    }

    /// A fresh request for one stream.
    pub(super) fn build(&self) -> Request<()> {
        let mut req = Request::new(());
        *req.method_mut() = self.method.clone();
        *req.uri_mut() = self.uri.clone();
        *req.headers_mut() = self.headers.clone();
        req
    }
}

/// One HTTP/2 connection shared by the `--streams` request slots riding on
/// it. The first slot that needs it connects while the others wait their
/// turn, then they clone its stream opener. A slot whose request failed on
/// it forgets it here (as an HTTP/1.1 slot drops its connection), so the
/// next slot that needs one opens a new one; slots still holding the old
/// one go on using it until a request of theirs fails too.
#[derive(Default)]
pub(super) struct Shared {
    /// The open connection's generation and stream opener.
    pub(super) open: RefCell<Option<(u64, h2::client::SendRequest<Bytes>)>>,
    /// Held while connecting, so one slot connects and the others wait.
    pub(super) connecting: tokio::sync::Mutex<()>,
    /// Connections opened for this group so far.
    pub(super) opened: Cell<u64>,
}

impl Shared {
    /// Forgets connection `generation` if it is still the group's one.
    pub(super) fn forget(&self, generation: u64) {
        let mut open = self.open.borrow_mut();
        if open.as_ref().is_some_and(|(g, _)| *g == generation) {
            *open = None;
        }
    }
}

/// The size of an HTTP/2 response head written as HTTP/1.1 text: the
/// status line `HTTP/2 NNN\r\n`, each `name: value\r\n`, the blank line.
pub(super) fn h1_head_size(headers: &HeaderMap) -> u64 {
    let fields: usize = headers
        .iter()
        .map(|(k, v)| k.as_str().len() + v.len() + 4)
        .sum();
    (12 + fields + 2) as u64
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::config::{Model, RequestSpec};
    use crate::url::Target;

    fn cfg(url: &str, method: &str, headers: &[(&str, &str)], body: &[u8]) -> LoadConfig {
        LoadConfig {
            request: RequestSpec {
                method: method.into(),
                headers: headers
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                body: body.to_vec(),
            },
            http2: true,
            timeout: Duration::from_secs(1),
            ..LoadConfig::new(Target::parse(url).unwrap(), Model::default())
        }
    }

    #[test]
    fn h2_request_mirrors_the_http1_request() {
        let c = cfg(
            "https://127.0.0.1:8443/a?b=1",
            "POST",
            &[
                ("Connection", "close"),
                ("Host", "example.test"),
                ("Accept", "text/plain"),
                ("X-Id", "7"),
            ],
            b"hello",
        );
        let r = H2Request::new(&c).unwrap().build();
        assert_eq!(r.method(), Method::POST);
        assert_eq!(r.uri().to_string(), "https://example.test/a?b=1");
        let h = r.headers();
        assert!(h.get("connection").is_none() && h.get("host").is_none());
        assert_eq!(h.get("accept").unwrap(), "text/plain");
        assert_eq!(h.get_all("accept").iter().count(), 1);
        assert_eq!(h.get("x-id").unwrap(), "7");
        assert_eq!(h.get("content-length").unwrap(), "5");
        assert!(
            h.get("user-agent")
                .unwrap()
                .to_str()
                .unwrap()
                .starts_with("nodebench/")
        );

        let plain = H2Request::new(&cfg("http://127.0.0.1:8080/", "GET", &[], b"")).unwrap();
        assert_eq!(plain.build().uri().to_string(), "http://127.0.0.1:8080/");
        assert!(plain.headers.get("content-length").is_none());
    }

    #[test]
    fn bad_methods_and_headers_are_one_line_errors() {
        let e = H2Request::new(&cfg("http://h/", "G T", &[], b""))
            .err()
            .unwrap();
        assert!(e.contains("method") && !e.contains('\n'), "{e}");
        let e = H2Request::new(&cfg("http://h/", "GET", &[("X", "a\nb")], b""))
            .err()
            .unwrap();
        assert!(e.contains("header") && !e.contains('\n'), "{e}");
    }

    #[test]
    fn h2_head_size_is_its_http1_text_size() {
        let mut h = HeaderMap::new();
        h.insert("server", HeaderValue::from_static("x"));
        h.insert("content-length", HeaderValue::from_static("10"));
        // "HTTP/2 200\r\n" + "server: x\r\n" + "content-length: 10\r\n" + "\r\n"
        assert_eq!(h1_head_size(&h), 12 + 11 + 20 + 2);
    }
}
