//! Soft-404 calibration: before the checks, a few paths that cannot exist
//! are requested to learn what "not found" looks like on this server
//! (status, body length, body fingerprint), so a server that answers 200
//! with the same page to every path gives no default-content finding.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use nodebench_core::rng::splitmix64;

use crate::client::{Client, Reply, Request};

/// What one request for a missing path got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotFoundSample {
    /// The status.
    pub status: u16,
    /// The body's length with the requested path taken out.
    pub length: usize,
    /// A hash of that body.
    pub fingerprint: u64,
}

/// What "not found" looks like on the server.
#[derive(Debug, Clone, Default)]
pub struct NotFound {
    /// One sample per calibration request.
    pub samples: Vec<NotFoundSample>,
}

/// A fresh random token for paths that cannot exist.
pub fn random_token(seed: &mut u64) -> String {
    *seed = splitmix64(*seed);
    format!("nodebench-{:016x}", *seed)
}

/// A seed that differs between scans.
pub fn seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or_default();
    splitmix64(nanos ^ u64::from(std::process::id()))
}

/// The body of `reply` without the requested path (error pages often echo
/// it), for comparing replies to different paths.
fn normalised(reply: &Reply, path: &str) -> Vec<u8> {
    let text = reply.text();
    let name = path.rsplit('/').find(|s| !s.is_empty()).unwrap_or(path);
    text.replace(path, "").replace(name, "").into_bytes()
}

fn sample(reply: &Reply, path: &str) -> NotFoundSample {
    let body = normalised(reply, path);
    let mut h = DefaultHasher::new();
    body.hash(&mut h);
    NotFoundSample {
        status: reply.status,
        length: body.len(),
        fingerprint: h.finish(),
    }
}

impl NotFound {
    /// Requests three paths that cannot exist (a file, an `.html` file and
    /// a directory). The first failure ends the scan: a target that does
    /// not answer these answers no check either.
    pub fn learn(client: &Client, seed: &mut u64) -> Result<NotFound, String> {
        let mut samples = Vec::new();
        for suffix in ["", ".html", "/"] {
            let path = format!("/{}{suffix}", random_token(seed));
            let reply = client.send(&Request::new("GET", &path))?;
            samples.push(sample(&reply, &path));
        }
        Ok(NotFound { samples })
    }

    /// True when `reply` to `path` looks like the server's "not found":
    /// the same status as a calibration reply and the same body (after the
    /// path is taken out) or one of about its length.
    pub fn looks_like(&self, reply: &Reply, path: &str) -> bool {
        let s = sample(reply, path);
        self.samples.iter().any(|n| {
            n.status == s.status
                && (n.fingerprint == s.fingerprint
                    || n.length.abs_diff(s.length) <= 32 + n.length / 20)
        })
    }

    /// Whether the server answers a missing path with a success (a soft 404).
    pub fn is_soft(&self) -> bool {
        self.samples.iter().any(|s| (200..300).contains(&s.status))
    }

    /// A summary for the result: the statuses and lengths seen.
    pub fn summary(&self) -> String {
        self.samples
            .iter()
            .map(|s| format!("{} ({} B)", s.status, s.length))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reply(status: u16, body: &str) -> Reply {
        Reply {
            request_line: "GET / HTTP/1.1".into(),
            status,
            headers: Vec::new(),
            body: body.as_bytes().to_vec(),
        }
    }

    #[test]
    fn a_page_echoing_the_path_still_looks_like_not_found() {
        let nf = NotFound {
            samples: vec![sample(
                &reply(200, "no page /nodebench-1 here"),
                "/nodebench-1",
            )],
        };
        assert!(nf.is_soft());
        assert!(nf.looks_like(&reply(200, "no page /.git/HEAD here"), "/.git/HEAD"));
        let other = "ref: refs/heads/main\n".repeat(40);
        assert!(!nf.looks_like(&reply(200, &other), "/.git/HEAD"));
        assert!(!nf.looks_like(&reply(403, "no page /x here"), "/x"));
    }
}
