//! Soft-404 calibration: before the checks, a few paths that cannot exist
//! are requested to learn what "not found" looks like on this server
//! (status, body length, body fingerprint), so a server that answers 200
//! with the same page to every path gives no default-content finding. The
//! root's three samples come first; once the crawl has found the
//! directories and the plan the extensions, one more sample per directory
//! (`/dir/<random>`) and per extension (`/<random>.ext`) follows, and a
//! candidate is compared with the root's, its directory's and its
//! extension's samples.

use nodebench_core::bench::BenchError;
use std::collections::BTreeMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use nodebench_core::rng::splitmix64;

use crate::client::{Client, Reply, Request};

/// What one more calibration request stands for: a directory (`/pub/`) or
/// an extension (`php`).
pub type Calibrates = (Option<String>, Option<String>);

/// The most extensions calibrated (one GET each).
pub const EXT_CAP: usize = 24;

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
    /// One sample per calibration request at the root.
    pub samples: Vec<NotFoundSample>,
    /// One sample per crawled directory (`/pub/`), of `/pub/<random>`.
    pub by_dir: BTreeMap<String, NotFoundSample>,
    /// One sample per extension (`php`), of `/<random>.php`.
    pub by_ext: BTreeMap<String, NotFoundSample>,
}

/// The directory of `path` (`/a/b.txt` -> `/a/`, `/a/b/` -> `/a/`).
pub fn parent_dir(path: &str) -> &str {
    let trimmed = path.strip_suffix('/').unwrap_or(path);
    match trimmed.rfind('/') {
        Some(i) => &path[..=i],
        None => "/",
    }
}

/// The extension of `path`'s last segment (`/a/b.tar.gz` -> `gz`), if any.
pub fn extension(path: &str) -> Option<&str> {
    if path.ends_with('/') {
        return None;
    }
    let name = path.rsplit('/').next().unwrap_or(path);
    let (stem, ext) = name.rsplit_once('.')?;
    (!stem.is_empty()
        && !ext.is_empty()
        && ext.len() <= 8
        && ext.bytes().all(|b| b.is_ascii_alphanumeric()))
    .then_some(ext)
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
    pub fn learn(client: &Client, seed: &mut u64) -> Result<NotFound, BenchError> {
        let mut samples = Vec::new();
        for suffix in ["", ".html", "/"] {
            let path = format!("/{}{suffix}", random_token(seed));
            let reply = client.send(&Request::new("GET", &path))?;
            samples.push(sample(&reply, &path));
        }
        Ok(NotFound {
            samples,
            ..NotFound::default()
        })
    }

    /// The calibration requests for `dirs` (other than the root) and
    /// `exts`, each with what it calibrates: (directory, extension).
    pub fn plan_more(
        dirs: &[String],
        exts: &[String],
        seed: &mut u64,
    ) -> Vec<(Request, Calibrates)> {
        let mut out = Vec::new();
        for d in dirs.iter().filter(|d| d.as_str() != "/") {
            let path = format!("{d}{}", random_token(seed));
            out.push((Request::new("GET", &path), (Some(d.clone()), None)));
        }
        for e in exts {
            let path = format!("/{}.{e}", random_token(seed));
            out.push((Request::new("GET", &path), (None, Some(e.clone()))));
        }
        out
    }

    /// Adds the sample of a [`NotFound::plan_more`] request.
    pub fn add(&mut self, what: &Calibrates, path: &str, reply: &Reply) {
        let s = sample(reply, path);
        match what {
            (Some(d), _) => {
                self.by_dir.insert(d.clone(), s);
            }
            (None, Some(e)) => {
                self.by_ext.insert(e.clone(), s);
            }
            (None, None) => {}
        }
    }

    /// True when the root's samples of one status all have the same
    /// fingerprint: the server's "not found" is one page, so only that
    /// page (not one of about its length) is "not found".
    fn stable(&self) -> bool {
        self.samples.iter().all(|a| {
            self.samples
                .iter()
                .all(|b| a.status != b.status || a.fingerprint == b.fingerprint)
        })
    }

    /// True when `reply` to `path` looks like the server's "not found":
    /// the same status as a calibration reply of the root, of `path`'s
    /// directory or of its extension, and the same body (after the path is
    /// taken out), or, where the server's "not found" pages differ from
    /// one another, one of about its length.
    pub fn looks_like(&self, reply: &Reply, path: &str) -> bool {
        let s = sample(reply, path);
        let stable = self.stable();
        // The nearest calibrated directory above the path.
        let mut d = path;
        let dir = loop {
            d = parent_dir(d);
            if let Some(s) = self.by_dir.get(d) {
                break Some(s);
            }
            if d == "/" {
                break None;
            }
        };
        let ext = extension(path).and_then(|e| self.by_ext.get(e));
        self.samples.iter().chain(dir).chain(ext).any(|n| {
            n.status == s.status
                && (n.fingerprint == s.fingerprint
                    || (!stable && n.length.abs_diff(s.length) <= 32 + n.length / 20))
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
            ..NotFound::default()
        };
        assert!(nf.is_soft());
        assert!(nf.looks_like(&reply(200, "no page /.git/HEAD here"), "/.git/HEAD"));
        let other = "ref: refs/heads/main\n".repeat(40);
        assert!(!nf.looks_like(&reply(200, &other), "/.git/HEAD"));
        assert!(!nf.looks_like(&reply(403, "no page /x here"), "/x"));
        // One "not found" page: a real small file of about its length is
        // no longer taken for it.
        assert!(!nf.looks_like(&reply(200, "DB_PASSWORD=x\n"), "/.env"));
    }

    #[test]
    fn varying_not_found_pages_compare_by_length_and_directories_by_their_own() {
        let mut nf = NotFound {
            samples: vec![
                sample(
                    &reply(200, "shop: nothing at /nodebench-1 (1)"),
                    "/nodebench-1",
                ),
                sample(
                    &reply(200, "shop: nothing at /nodebench-2.html (22)"),
                    "/nodebench-2.html",
                ),
            ],
            ..NotFound::default()
        };
        assert!(nf.looks_like(&reply(200, "shop: nothing at /x (333)"), "/x"));
        let wiki = reply(200, &"wiki: no such article".repeat(20));
        assert!(!nf.looks_like(&wiki, "/wiki/.env"));
        nf.add(&(Some("/wiki/".into()), None), "/wiki/nodebench-3", &wiki);
        assert!(nf.looks_like(&wiki, "/wiki/.env"));
        assert!(nf.looks_like(&wiki, "/wiki/.svn/entries"));
        assert!(!nf.looks_like(&wiki, "/other/.env"));
        let php = reply(404, "File not found.");
        nf.add(&(None, Some("php".into())), "/nodebench-4.php", &php);
        assert!(nf.looks_like(&php, "/admin/x.php"));
        assert!(!nf.looks_like(&php, "/admin/x.txt"));
        assert_eq!(parent_dir("/a/b.txt"), "/a/");
        assert_eq!(parent_dir("/a/b/"), "/a/");
        assert_eq!(parent_dir("/"), "/");
        assert_eq!(extension("/a/b.tar.gz"), Some("gz"));
        assert_eq!(extension("/.env"), None);
        assert_eq!(extension("/a.b/"), None);
    }
}
