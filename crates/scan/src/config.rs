//! What `nodebench scan` is asked to do: the target URL and the limits that
//! keep the scan safe (rate, concurrency, time budget, write probes only on
//! request, non-loopback targets only when confirmed).

use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::time::Duration;

use nodebench_core::bench::BenchError;
use nodebench_core::config::Config;

/// http or https.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// Plain HTTP.
    Http,
    /// HTTP over TLS: the TLS checks run too.
    Https,
}

/// The scanned server: scheme, host, port and the base path the checks'
/// paths are appended to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// http or https.
    pub scheme: Scheme,
    /// Host name or address as written (IPv6 without brackets).
    pub host: String,
    /// TCP port.
    pub port: u16,
    /// Base path without a trailing slash (`""` for the server's root).
    pub base: String,
}

/// The accepted form of the URL, for error lines.
pub const URL_FORM: &str = "http[s]://HOST[:PORT][/BASE]";

impl Target {
    /// Parses `http[s]://HOST[:PORT][/BASE]`.
    pub fn parse(url: &str) -> Result<Target, BenchError> {
        let bad =
            |why: &str| BenchError::Invalid(format!("URL '{url}': {why}; expected {URL_FORM}"));
        let (scheme, rest) = if let Some(r) = url.strip_prefix("http://") {
            (Scheme::Http, r)
        } else if let Some(r) = url.strip_prefix("https://") {
            (Scheme::Https, r)
        } else {
            return Err(bad("the scheme must be http or https"));
        };
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, ""),
        };
        if path.contains(['?', '#', ' ']) {
            return Err(bad("the base path takes no query, fragment or space"));
        }
        let default_port = match scheme {
            Scheme::Http => 80,
            Scheme::Https => 443,
        };
        let (host, port) = if let Some(v6) = authority.strip_prefix('[') {
            let (h, after) = v6.split_once(']').ok_or_else(|| bad("unclosed '['"))?;
            let port = match after.strip_prefix(':') {
                Some(p) => Some(p),
                None if after.is_empty() => None,
                None => return Err(bad("junk after the IPv6 address")),
            };
            (h.to_string(), port)
        } else {
            match authority.rsplit_once(':') {
                Some((h, p)) => (h.to_string(), Some(p)),
                None => (authority.to_string(), None),
            }
        };
        if host.is_empty() || host.contains('@') {
            return Err(bad("no host"));
        }
        let port = match port {
            Some(p) => match p.parse::<u16>() {
                Ok(n) if n > 0 => n,
                _ => return Err(bad(&format!("port '{p}' is not 1..=65535"))),
            },
            None => default_port,
        };
        Ok(Target {
            scheme,
            host,
            port,
            base: path.trim_end_matches('/').to_string(),
        })
    }

    /// `host:port` as written in a Host header or an error line.
    pub fn authority(&self) -> String {
        if self.host.contains(':') {
            format!("[{}]:{}", self.host, self.port)
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }

    /// The URL again (`https://host:port/base`).
    pub fn url(&self) -> String {
        let scheme = match self.scheme {
            Scheme::Http => "http",
            Scheme::Https => "https",
        };
        format!("{scheme}://{}{}", self.authority(), self.base)
    }

    /// The addresses the host resolves to.
    pub fn resolve(&self) -> Result<Vec<SocketAddr>, BenchError> {
        let addrs: Vec<SocketAddr> = (self.host.as_str(), self.port)
            .to_socket_addrs()
            .map_err(|e| BenchError::System(format!("cannot resolve host '{}': {e}", self.host)))?
            .collect();
        if addrs.is_empty() {
            return Err(BenchError::System(format!(
                "host '{}' has no address",
                self.host
            )));
        }
        Ok(addrs)
    }

    /// True when every address of the host is a loopback address (so the
    /// scan needs no `--yes`); false when it does not resolve.
    pub fn is_loopback(&self) -> bool {
        self.resolve()
            .map(|a| a.iter().all(|a| a.ip().is_loopback()))
            .unwrap_or(false)
    }
}

/// The scan's configuration.
#[derive(Debug, Clone)]
pub struct ScanConfig {
    /// The target, `http[s]://HOST[:PORT][/BASE]`.
    pub url: String,
    /// Requests per second at most (`--rate`).
    pub rate: u32,
    /// Requests in flight at most (`-c`).
    pub concurrency: usize,
    /// The whole scan's time budget (`--budget`): checks not started by
    /// then are skipped and the result says how many.
    pub budget: Duration,
    /// Connect and read timeout of one request (`--timeout`).
    pub timeout: Duration,
    /// Run the PUT/DELETE probes on a path the scan names and removes
    /// (`--probe-write`).
    pub probe_write: bool,
    /// Run the local checks: the server's processes, document root and
    /// configuration on this machine (`--local`).
    pub local: bool,
    /// Document roots for the local checks (`--docroot`); default: the
    /// ones the server's configuration names.
    pub docroots: Vec<PathBuf>,
    /// The user confirmed that a non-loopback target may be scanned (`--yes`).
    pub confirmed: bool,
    /// Pages the same-origin crawl fetches at most (`--crawl-pages`; 0
    /// turns the crawl off).
    pub crawl_pages: usize,
    /// Also list the candidates suppressed as looking like "not found"
    /// (`--verbose`).
    pub verbose: bool,
    /// The day end-of-life versions are judged on, `YYYY-MM-DD`
    /// (`--as-of`); default today.
    pub as_of: Option<String>,
    /// The plain HTTP port of an https target's host, checked for a
    /// redirect to https (`--http-port`).
    pub http_port: u16,
}

/// The most `--crawl-pages` accepted.
pub const CRAWL_PAGES_MAX: usize = 10_000;

impl Default for ScanConfig {
    fn default() -> Self {
        ScanConfig {
            url: String::new(),
            rate: 50,
            concurrency: 4,
            budget: Duration::from_secs(60),
            timeout: Duration::from_secs(5),
            probe_write: false,
            local: false,
            docroots: Vec::new(),
            confirmed: false,
            crawl_pages: 200,
            verbose: false,
            as_of: None,
            http_port: 80,
        }
    }
}

impl ScanConfig {
    /// The parsed target.
    pub fn target(&self) -> Result<Target, BenchError> {
        Target::parse(&self.url)
    }

    /// The day of `--as-of` (days since 1970-01-01), today without it.
    pub fn as_of_day(&self) -> Result<i64, BenchError> {
        match &self.as_of {
            None => Ok(crate::branches::today()),
            Some(t) => crate::branches::days(t).ok_or_else(|| {
                BenchError::Invalid(format!("--as-of: expected a date YYYY-MM-DD, got '{t}'"))
            }),
        }
    }
}

impl Config for ScanConfig {
    fn validate(&self) -> Result<(), BenchError> {
        let target = self.target()?;
        if !(1..=1000).contains(&self.rate) {
            return Err(BenchError::Invalid(format!(
                "--rate: expected 1..=1000 requests per second, got {}",
                self.rate
            )));
        }
        if !(1..=64).contains(&self.concurrency) {
            return Err(BenchError::Invalid(format!(
                "-c: expected 1..=64 requests in flight, got {}",
                self.concurrency
            )));
        }
        if self.budget < Duration::from_secs(1) {
            return Err(BenchError::Invalid(
                "--budget: expected a duration of at least 1s, e.g. 60s".into(),
            ));
        }
        if self.timeout < Duration::from_millis(100) || self.timeout > Duration::from_secs(120) {
            return Err(BenchError::Invalid(
                "--timeout: expected a duration from 100ms to 2m, e.g. 5s".into(),
            ));
        }
        self.as_of_day()?;
        if self.http_port == 0 {
            return Err(BenchError::Invalid(
                "--http-port: expected a port 1..=65535, got 0".into(),
            ));
        }
        if self.crawl_pages > CRAWL_PAGES_MAX {
            return Err(BenchError::Invalid(format!(
                "--crawl-pages: expected 0..={CRAWL_PAGES_MAX} pages (0: no crawl), got {}",
                self.crawl_pages
            )));
        }
        if self.local && !target.is_loopback() {
            return Err(BenchError::Invalid(format!(
                "--local: the server must run on this machine (a loopback URL), got host '{}'",
                target.host
            )));
        }
        for d in &self.docroots {
            if !d.is_dir() {
                return Err(BenchError::Invalid(format!(
                    "--docroot: '{}' is not a directory",
                    d.display()
                )));
            }
        }
        if !self.confirmed && !target.is_loopback() {
            return Err(BenchError::Invalid(format!(
                "'{}' is not a loopback address: the scan sends the requests listed above to it; pass --yes to send them",
                target.host
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_parse_into_targets() {
        let t = Target::parse("https://[::1]:8443/app/").unwrap();
        assert_eq!(
            (t.scheme, t.host.as_str(), t.port, t.base.as_str()),
            (Scheme::Https, "::1", 8443, "/app")
        );
        assert_eq!(t.authority(), "[::1]:8443");
        let t = Target::parse("http://127.0.0.1").unwrap();
        assert_eq!((t.port, t.base.as_str()), (80, ""));
        for bad in [
            "ftp://x",
            "http://",
            "http://h:0",
            "http://h:99999",
            "http://h/?q",
        ] {
            let e = Target::parse(bad).unwrap_err();
            assert!(e.to_string().contains(URL_FORM), "{e}");
        }
    }

    #[test]
    fn validation_names_the_flag() {
        let ok = ScanConfig {
            url: "http://127.0.0.1:8080".into(),
            ..ScanConfig::default()
        };
        ok.validate().unwrap();
        let e = ScanConfig {
            rate: 0,
            ..ok.clone()
        }
        .validate()
        .unwrap_err();
        assert!(
            e.to_string().starts_with("--rate: expected 1..=1000"),
            "{e}"
        );
        let e = ScanConfig {
            concurrency: 0,
            ..ok.clone()
        }
        .validate()
        .unwrap_err();
        assert!(e.to_string().starts_with("-c: "), "{e}");
        let e = ScanConfig {
            as_of: Some("2026-02-30".into()),
            ..ok.clone()
        }
        .validate()
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "--as-of: expected a date YYYY-MM-DD, got '2026-02-30'"
        );
        let far = ScanConfig {
            url: "http://192.0.2.1".into(),
            ..ok.clone()
        };
        assert!(far.validate().unwrap_err().to_string().contains("--yes"));
        ScanConfig {
            confirmed: true,
            ..far.clone()
        }
        .validate()
        .unwrap();
        let e = ScanConfig {
            local: true,
            confirmed: true,
            ..far
        }
        .validate()
        .unwrap_err();
        assert!(e.to_string().starts_with("--local: "), "{e}");
    }
}
