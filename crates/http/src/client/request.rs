//! The HTTP/1.1 request as written on the wire, serialised once per run.

use crate::config::LoadConfig;

/// The request as written on the wire, serialised once: request line,
/// `Host`, `User-Agent`, `Accept`, `Connection: close` when keep-alive is
/// off, `Content-Length` when there is a body, the user's headers (which
/// replace the defaults of the same name), then the body.
pub fn serialize_request(cfg: &LoadConfig) -> Vec<u8> {
    let r = &cfg.request;
    let has = |name: &str| r.headers.iter().any(|(k, _)| k.eq_ignore_ascii_case(name));
    let mut out = Vec::with_capacity(256 + r.body.len());
    out.extend_from_slice(r.method.as_bytes());
    out.push(b' ');
    out.extend_from_slice(cfg.target.path_and_query.as_bytes());
    out.extend_from_slice(b" HTTP/1.1\r\n");
    let mut header = |k: &str, v: &str| {
        out.extend_from_slice(k.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(v.as_bytes());
        out.extend_from_slice(b"\r\n");
    };
    if !has("host") {
        header("Host", &cfg.target.authority());
    }
    if !has("user-agent") {
        header(
            "User-Agent",
            concat!("nodebench/", env!("CARGO_PKG_VERSION")),
        );
    }
    if !has("accept") {
        header("Accept", "*/*");
    }
    if !cfg.keepalive && !has("connection") {
        header("Connection", "close");
    }
    if (!r.body.is_empty() || matches!(r.method.as_str(), "POST" | "PUT" | "PATCH"))
        && !has("content-length")
    {
        header("Content-Length", &r.body.len().to_string());
    }
    for (k, v) in &r.headers {
        header(k, v);
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(&r.body);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::url::Target;

    #[test]
    fn request_is_serialised_once_with_user_headers_winning() {
        let mut c = LoadConfig {
            keepalive: false,
            target: Target::parse("http://127.0.0.1:8080/x?y").unwrap(),
            ..LoadConfig::default()
        };
        c.request.headers = vec![
            ("X-A".into(), "1".into()),
            ("Accept".into(), "text/html".into()),
        ];
        let text = String::from_utf8(serialize_request(&c)).unwrap();
        assert!(text.starts_with("GET /x?y HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n"));
        assert!(text.contains("Connection: close\r\n"));
        assert!(text.contains("X-A: 1\r\n"));
        assert!(text.contains("Accept: text/html\r\n"));
        assert!(!text.contains("Accept: */*"));
        assert!(!text.contains("Content-Length"));
        assert!(text.ends_with("\r\n\r\n"));

        c.request.method = "POST".into();
        c.request.body = b"abc".to_vec();
        c.keepalive = true;
        let text = String::from_utf8(serialize_request(&c)).unwrap();
        assert!(text.starts_with("POST /x?y HTTP/1.1\r\n"));
        assert!(!text.contains("Connection:"));
        assert!(text.ends_with("Content-Length: 3\r\nX-A: 1\r\nAccept: text/html\r\n\r\nabc"));
    }
}
