//! The request checks: the distinct requests the catalog's checks need
//! (each sent once however many checks read its reply), sent by `-c`
//! threads within the time budget, and each reply judged against the
//! checks' conditions; and the write probes of `--probe-write`.

use nodebench_core::bench::BenchError;
use std::collections::BTreeMap;
use std::net::IpAddr;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use nodebench_core::bench::Cancel;
use nodebench_core::finding::Finding;

use crate::calibrate::{NotFound, random_token};
use crate::checks::{Applies, Check, Condition, Kind, NAME, NO_SLASH, RANDOM};
use crate::client::{Client, Reply, Request};
use crate::config::Scheme;

/// The requests of the request checks that apply to a `scheme` target, each
/// once, with the (check index, path) pairs that read its reply; [`RANDOM`]
/// in a path becomes a fresh token. A check's `in_dirs` names are requested
/// in each of `dirs` (the crawl's, the root among them) and its `on_files`
/// suffixes appended to each of `files`.
pub fn plan(
    checks: &[Check],
    scheme: Scheme,
    seed: &mut u64,
    dirs: &[String],
    files: &[String],
) -> Vec<(Request, Vec<(usize, String)>)> {
    type Key = (String, String, Vec<(String, String)>);
    let mut by_request: BTreeMap<Key, Vec<(usize, String)>> = BTreeMap::new();
    let mut order: Vec<Key> = Vec::new();
    let mut random = None;
    for (i, check) in checks.iter().enumerate() {
        if check.applies == Applies::Https && scheme != Scheme::Https {
            continue;
        }
        let Kind::Request {
            method,
            paths,
            in_dirs,
            on_files,
            on_crawled,
            headers,
            ..
        } = &check.kind
        else {
            continue;
        };
        let mut all: Vec<String> = Vec::new();
        for p in paths {
            all.push(if p.contains(RANDOM) {
                let token = random.get_or_insert_with(|| random_token(seed)).clone();
                p.replace(RANDOM, &token)
            } else {
                p.clone()
            });
        }
        for d in dirs {
            for rel in in_dirs {
                if rel == NO_SLASH {
                    if d != "/" {
                        all.push(d.trim_end_matches('/').to_string());
                    }
                } else {
                    all.push(format!("{d}{rel}"));
                }
            }
        }
        for f in files {
            for suffix in on_files {
                all.push(if suffix.contains(NAME) {
                    let (dir, name) = f.rsplit_once('/').unwrap_or(("", f));
                    format!("{dir}/{}", suffix.replace(NAME, name))
                } else {
                    format!("{f}{suffix}")
                });
            }
            if *on_crawled {
                all.push(f.clone());
            }
        }
        for path in all {
            let key = (method.clone(), path.clone(), headers.clone());
            let readers = by_request.entry(key.clone()).or_default();
            if readers.is_empty() {
                order.push(key);
            }
            if !readers.iter().any(|(j, p)| *j == i && *p == path) {
                readers.push((i, path));
            }
        }
    }
    order
        .into_iter()
        .map(|key| {
            let readers = by_request.remove(&key).unwrap_or_default();
            let mut request = Request::new(&key.0, &key.1);
            request.headers = key.2;
            (request, readers)
        })
        .collect()
}

/// Sends `requests` from `concurrency` threads; a request not started by
/// `deadline` (or after a cancel) gets `None`.
pub fn send_all(
    client: &Client,
    requests: &[Request],
    concurrency: usize,
    deadline: Instant,
    cancel: &Cancel,
) -> Vec<Option<Result<Reply, BenchError>>> {
    let next = AtomicUsize::new(0);
    let replies: Mutex<Vec<Option<Result<Reply, BenchError>>>> =
        Mutex::new(vec![None; requests.len()]);
    std::thread::scope(|s| {
        for _ in 0..concurrency.min(requests.len()).max(1) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= requests.len() || Instant::now() >= deadline || cancel.is_cancelled() {
                        break;
                    }
                    let reply = client.send(&requests[i]);
                    replies.lock().unwrap_or_else(|e| e.into_inner())[i] = Some(reply);
                }
            });
        }
    });
    replies.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// A short excerpt of `text` around byte `at`, on one line.
fn excerpt(text: &str, at: usize, len: usize) -> String {
    let mut start = at.saturating_sub(30);
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let mut end = (at + len + 50).min(text.len());
    while !text.is_char_boundary(end) {
        end += 1;
    }
    let cut: String = text[start..end]
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    format!("'{}'", cut.trim())
}

/// True when `host` (from a URL) is a private, loopback, link-local or
/// shared address, or `localhost`.
pub fn is_internal(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    match host.parse::<IpAddr>() {
        Ok(IpAddr::V4(a)) => {
            let o = a.octets();
            a.is_private()
                || a.is_loopback()
                || a.is_link_local()
                || (o[0] == 100 && (64..128).contains(&o[1]))
        }
        Ok(IpAddr::V6(a)) => {
            let first = a.segments()[0];
            a.is_loopback() || (first & 0xfe00) == 0xfc00 || (first & 0xffc0) == 0xfe80
        }
        Err(_) => false,
    }
}

/// The host of an absolute URL (`http://10.0.0.5:8080/x` -> `10.0.0.5`).
fn url_host(url: &str) -> Option<&str> {
    let rest = url.split_once("://")?.1;
    let authority = rest.split(['/', '?', '#']).next()?;
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    if authority.starts_with('[') {
        return authority.split_once(']').map(|(h, _)| &h[1..]);
    }
    Some(authority.split(':').next().unwrap_or(authority))
}

/// What a reply is judged with: the soft-404 calibration and the scanned
/// host (an internal address in `Location` is news only when it is not
/// the address scanned).
#[derive(Debug, Clone, Copy)]
pub struct Judge<'a> {
    /// What "not found" looks like.
    pub not_found: &'a NotFound,
    /// The target's host as written.
    pub host: &'a str,
}

/// What judging one reply for one check gave.
#[derive(Debug, Clone)]
pub enum Verdict {
    /// The check's conditions do not hold.
    Clean,
    /// They hold: a finding.
    Finding(Finding),
    /// They hold but the reply looks like the server's "not found": the
    /// request line and status, for `--verbose`.
    Suppressed(String),
}

/// What makes `cond` hold on `reply`, or `None` when it does not.
fn holds(cond: &Condition, reply: &Reply, host: &str) -> Option<String> {
    match cond {
        Condition::Status(codes) => codes
            .contains(&reply.status)
            .then(|| format!("status {}", reply.status)),
        Condition::BodyAny(words) => {
            let text = reply.text();
            words.iter().find_map(|w| {
                text.find(w.as_str())
                    .map(|at| format!("body {}", excerpt(&text, at, w.len())))
            })
        }
        Condition::BodyRegex(re) => {
            let text = reply.text();
            re.find(&text)
                .map(|m| format!("body {}", excerpt(&text, m.start(), m.len())))
        }
        Condition::Header { name, regex } => reply
            .header(name)
            .find(|v| regex.as_ref().is_none_or(|r| r.is_match(v)))
            .map(|v| format!("{name}: {v}")),
        Condition::HeaderLacks {
            name,
            regex,
            or_absent,
        } => {
            let values: Vec<&str> = reply.header(name).collect();
            if values.is_empty() {
                or_absent.then(|| format!("no {name} header"))
            } else {
                values
                    .iter()
                    .find(|v| !regex.is_match(v))
                    .map(|v| format!("{name}: {v}"))
            }
        }
        Condition::HeaderAbsent(name) => reply
            .header(name)
            .next()
            .is_none()
            .then(|| format!("no {name} header")),
        Condition::InternalAddress(name) => reply
            .header(name)
            .find(|v| {
                url_host(v).is_some_and(|h| {
                    is_internal(h) && !h.eq_ignore_ascii_case(host.trim_matches(['[', ']']))
                })
            })
            .map(|v| format!("{name}: {v}")),
    }
}

/// The verdict of `check` on `reply` to `path`: a finding when every
/// condition holds and, where the check asks, the reply is unlike the
/// server's "not found".
pub fn judge(check: &Check, path: &str, reply: &Reply, with: &Judge) -> Verdict {
    let Kind::Request {
        conditions,
        soft404,
        ..
    } = &check.kind
    else {
        return Verdict::Clean;
    };
    let Some(evidence) = conditions
        .iter()
        .map(|c| holds(c, reply, with.host))
        .collect::<Option<Vec<String>>>()
    else {
        return Verdict::Clean;
    };
    if *soft404 && with.not_found.looks_like(reply, path) {
        return Verdict::Suppressed(format!(
            "[{}] {} -> {}",
            check.id, reply.request_line, reply.status
        ));
    }
    Verdict::Finding(Finding {
        id: check.id.clone(),
        name: check.name.clone(),
        severity: check.severity,
        request: reply.request_line.clone(),
        status: Some(reply.status),
        evidence: evidence.join("; "),
        remediation: check.remediation.clone(),
    })
}

/// Adds `f`, found on `path` by a check that reads headers only, to the
/// site-wide findings: the same check and evidence on another path is the
/// same issue of the site, whatever the status of that path's reply (a
/// reflected Origin on a 200 page and on a 403 directory is one
/// misconfiguration), so its path joins that finding's list.
pub fn add_site_wide(site_wide: &mut Vec<(Finding, Vec<String>)>, f: Finding, path: &str) {
    let same = site_wide
        .iter_mut()
        .find(|(g, _)| g.id == f.id && g.evidence == f.evidence);
    match same {
        Some((_, paths)) => {
            if !paths.iter().any(|p| p == path) {
                paths.push(path.to_string());
            }
        }
        None => site_wide.push((f, vec![path.to_string()])),
    }
}

/// One site-wide finding: its first request, and the paths it was seen on
/// in its evidence when there is more than one.
pub fn site_wide_finding((mut f, paths): (Finding, Vec<String>)) -> Finding {
    if paths.len() > 1 {
        f.evidence = format!(
            "{}; seen on {} paths: {}",
            f.evidence,
            paths.len(),
            paths.join(", ")
        );
    }
    f
}

/// What the write probes found, and whether the probe file stayed behind.
#[derive(Debug, Default)]
pub struct WriteOutcome {
    /// methods.put / methods.delete findings.
    pub findings: Vec<Finding>,
    /// A warning when a file the probe wrote could not be removed.
    pub leftover: Option<String>,
}

/// `--probe-write`: PUT a small file at a path named for this scan, GET it
/// back, DELETE it and GET again. PUT is a finding when the file then
/// reads back; DELETE when it removed it.
pub fn write_probes(
    client: &Client,
    put: &Check,
    delete: &Check,
    seed: &mut u64,
) -> Result<WriteOutcome, BenchError> {
    let token = random_token(seed);
    let path = format!("/{token}.txt");
    let content = format!("nodebench scan write probe {token}\n");
    let mut out = WriteOutcome::default();
    let finding = |check: &Check, reply: &Reply, evidence: String| Finding {
        id: check.id.clone(),
        name: check.name.clone(),
        severity: check.severity,
        request: reply.request_line.clone(),
        status: Some(reply.status),
        evidence,
        remediation: check.remediation.clone(),
    };
    let mut req = Request::new("PUT", &path);
    req.body = Some(content.clone().into_bytes());
    let put_reply = client.send(&req)?;
    let stored = client.send(&Request::new("GET", &path))?;
    if !(200..300).contains(&stored.status) || stored.text() != content {
        return Ok(out);
    }
    out.findings.push(finding(
        put,
        &put_reply,
        format!(
            "status {}; GET {path} then returned the {} bytes written",
            put_reply.status,
            content.len()
        ),
    ));
    let delete_reply = client.send(&Request::new("DELETE", &path))?;
    let after = client.send(&Request::new("GET", &path))?;
    if (200..300).contains(&after.status) && after.text() == content {
        out.leftover = Some(format!(
            "--probe-write: the server kept {path} (DELETE answered {}): remove it by hand",
            delete_reply.status
        ));
    } else if (200..300).contains(&delete_reply.status) {
        out.findings.push(finding(
            delete,
            &delete_reply,
            format!(
                "status {}; GET {path} then answered {}",
                delete_reply.status, after.status
            ),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::checks::Catalog;

    fn reply(status: u16, headers: &[(&str, &str)], body: &str) -> Reply {
        Reply::sample(status, headers, body)
    }

    fn check(id: &str) -> Check {
        let catalog = Catalog::builtin().unwrap();
        catalog.checks.into_iter().find(|c| c.id == id).unwrap()
    }

    #[test]
    fn conditions_give_their_evidence() {
        let nf = NotFound::default();
        let none = Judge {
            not_found: &nf,
            host: "127.0.0.1",
        };
        let found = |v: Verdict| match v {
            Verdict::Finding(f) => Some(f),
            _ => None,
        };
        let f = found(judge(
            &check("disclosure.server-version"),
            "/",
            &reply(200, &[("Server", "Apache/2.4.62 (Debian)")], ""),
            &none,
        ))
        .unwrap();
        assert_eq!(f.evidence, "Server: Apache/2.4.62 (Debian)");
        assert!(
            found(judge(
                &check("disclosure.server-version"),
                "/",
                &reply(200, &[("Server", "Apache")], ""),
                &none
            ))
            .is_none()
        );
        let frame = check("headers.frame-protection-missing");
        assert!(found(judge(&frame, "/", &reply(200, &[], ""), &none)).is_some());
        let csp = [(
            "Content-Security-Policy",
            "default-src 'self'; frame-ancestors 'none'",
        )];
        assert!(found(judge(&frame, "/", &reply(200, &csp, ""), &none)).is_none());
        let cookie = check("headers.cookie-httponly");
        assert!(
            found(judge(
                &cookie,
                "/",
                &reply(200, &[("Set-Cookie", "a=b; Path=/")], ""),
                &none
            ))
            .is_some()
        );
        assert!(
            found(judge(
                &cookie,
                "/",
                &reply(200, &[("Set-Cookie", "a=b; HttpOnly")], ""),
                &none
            ))
            .is_none()
        );
        assert!(found(judge(&cookie, "/", &reply(200, &[], ""), &none)).is_none());
    }

    #[test]
    fn the_plan_sends_each_request_once_and_https_checks_only_on_https() {
        let catalog = Catalog::builtin().unwrap();
        let mut seed = 1;
        let dirs = ["/".to_string()];
        let http = plan(&catalog.checks, Scheme::Http, &mut seed, &dirs, &[]);
        let root = http
            .iter()
            .find(|(r, _)| r.method == "GET" && r.path == "/")
            .unwrap();
        assert!(
            root.1.len() > 5,
            "the root page is read by every header check"
        );
        let https = plan(&catalog.checks, Scheme::Https, &mut seed, &dirs, &[]);
        assert_eq!(http.len(), https.len());
        let readers =
            |p: &[(Request, Vec<(usize, String)>)]| p.iter().map(|(_, r)| r.len()).sum::<usize>();
        assert!(readers(&https) > readers(&http));
        assert!(http.iter().all(|(r, _)| !r.path.contains(RANDOM)));
    }

    #[test]
    fn crawled_directories_and_files_expand_the_checks_once_each() {
        let catalog = Catalog::builtin().unwrap();
        let mut seed = 1;
        let dirs = ["/".to_string(), "/pub/files/".to_string()];
        let files = ["/pub/index.php".to_string()];
        let p = plan(&catalog.checks, Scheme::Http, &mut seed, &dirs, &files);
        let sent = |path: &str| {
            p.iter()
                .filter(|(r, _)| r.method == "GET" && r.path == path && r.headers.is_empty())
                .count()
        };
        assert_eq!(
            sent("/pub/files/"),
            1,
            "the listing check looks in each directory"
        );
        assert_eq!(sent("/pub/files/.git/HEAD"), 1);
        assert_eq!(sent("/.git/HEAD"), 1, "the root's fixed path once");
        assert_eq!(sent("/pub/index.php~"), 1);
        let git = p.iter().find(|(r, _)| r.path == "/.git/HEAD").unwrap();
        assert_eq!(
            git.1.len(),
            1,
            "one reader, not one per source: {:?}",
            git.1
        );
    }

    #[test]
    fn internal_addresses_in_location_other_than_the_target() {
        let nf = NotFound::default();
        let with = Judge {
            not_found: &nf,
            host: "127.0.0.1",
        };
        let c = check("disclosure.internal-address-location");
        let moved = |to: &str| reply(301, &[("Location", to)], "");
        let hit = |to: &str| matches!(judge(&c, "/files", &moved(to), &with), Verdict::Finding(_));
        assert!(hit("http://10.0.0.5:8080/files/"));
        assert!(hit("http://[fd00::1]/files/"));
        assert!(hit("http://192.168.1.2/files/"));
        assert!(
            !hit("http://127.0.0.1:8080/files/"),
            "the scanned address itself"
        );
        assert!(!hit("http://www.example.com/files/"));
        assert!(!hit("/files/"));
        assert!(is_internal("172.16.0.1") && !is_internal("172.32.0.1") && is_internal("fe80::1"));
    }
}
