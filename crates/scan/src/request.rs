//! The request checks: the distinct requests the catalog's checks need
//! (each sent once however many checks read its reply), sent by `-c`
//! threads within the time budget, and each reply judged against the
//! checks' conditions; and the write probes of `--probe-write`.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use nodebench_core::bench::Cancel;
use nodebench_core::finding::Finding;

use crate::calibrate::{NotFound, random_token};
use crate::checks::{Applies, Check, Condition, Kind, RANDOM};
use crate::client::{Client, Reply, Request};
use crate::config::Scheme;

/// The requests of the request checks that apply to a `scheme` target, each
/// once, with the (check index, path) pairs that read its reply; [`RANDOM`]
/// in a path becomes a fresh token.
pub fn plan(
    checks: &[Check],
    scheme: Scheme,
    seed: &mut u64,
) -> Vec<(Request, Vec<(usize, String)>)> {
    let mut by_request: BTreeMap<(String, String), Vec<(usize, String)>> = BTreeMap::new();
    let mut order: Vec<(String, String)> = Vec::new();
    let mut random = None;
    for (i, check) in checks.iter().enumerate() {
        if check.applies == Applies::Https && scheme != Scheme::Https {
            continue;
        }
        let Kind::Request { method, paths, .. } = &check.kind else {
            continue;
        };
        for p in paths {
            let path = if p.contains(RANDOM) {
                let token = random.get_or_insert_with(|| random_token(seed)).clone();
                p.replace(RANDOM, &token)
            } else {
                p.clone()
            };
            let key = (method.clone(), path.clone());
            if !by_request.contains_key(&key) {
                order.push(key.clone());
            }
            by_request.entry(key).or_default().push((i, path));
        }
    }
    order
        .into_iter()
        .map(|key| {
            let readers = by_request.remove(&key).unwrap_or_default();
            (Request::new(&key.0, &key.1), readers)
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
) -> Vec<Option<Result<Reply, String>>> {
    let next = AtomicUsize::new(0);
    let replies: Mutex<Vec<Option<Result<Reply, String>>>> = Mutex::new(vec![None; requests.len()]);
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

/// What makes `cond` hold on `reply`, or `None` when it does not.
fn holds(cond: &Condition, reply: &Reply) -> Option<String> {
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
    }
}

/// The finding of `check` in `reply` to `path`: every condition holds and,
/// where the check asks, the reply is unlike the server's "not found".
pub fn judge(check: &Check, path: &str, reply: &Reply, not_found: &NotFound) -> Option<Finding> {
    let Kind::Request {
        conditions,
        soft404,
        ..
    } = &check.kind
    else {
        return None;
    };
    let evidence = conditions
        .iter()
        .map(|c| holds(c, reply))
        .collect::<Option<Vec<String>>>()?;
    if *soft404 && not_found.looks_like(reply, path) {
        return None;
    }
    Some(Finding {
        id: check.id.clone(),
        name: check.name.clone(),
        severity: check.severity,
        request: reply.request_line.clone(),
        status: Some(reply.status),
        evidence: evidence.join("; "),
        remediation: check.remediation.clone(),
    })
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
) -> Result<WriteOutcome, String> {
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
        Reply {
            request_line: "GET / HTTP/1.1".into(),
            status,
            headers: headers
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            body: body.as_bytes().to_vec(),
        }
    }

    fn check(id: &str) -> Check {
        let catalog = Catalog::builtin().unwrap();
        catalog.checks.into_iter().find(|c| c.id == id).unwrap()
    }

    #[test]
    fn conditions_give_their_evidence() {
        let none = NotFound::default();
        let f = judge(
            &check("disclosure.server-version"),
            "/",
            &reply(200, &[("Server", "Apache/2.4.62 (Debian)")], ""),
            &none,
        )
        .unwrap();
        assert_eq!(f.evidence, "Server: Apache/2.4.62 (Debian)");
        assert!(
            judge(
                &check("disclosure.server-version"),
                "/",
                &reply(200, &[("Server", "Apache")], ""),
                &none
            )
            .is_none()
        );
        let frame = check("headers.frame-protection-missing");
        assert!(judge(&frame, "/", &reply(200, &[], ""), &none).is_some());
        let csp = [(
            "Content-Security-Policy",
            "default-src 'self'; frame-ancestors 'none'",
        )];
        assert!(judge(&frame, "/", &reply(200, &csp, ""), &none).is_none());
        let cookie = check("headers.cookie-httponly");
        assert!(
            judge(
                &cookie,
                "/",
                &reply(200, &[("Set-Cookie", "a=b; Path=/")], ""),
                &none
            )
            .is_some()
        );
        assert!(
            judge(
                &cookie,
                "/",
                &reply(200, &[("Set-Cookie", "a=b; HttpOnly")], ""),
                &none
            )
            .is_none()
        );
        assert!(judge(&cookie, "/", &reply(200, &[], ""), &none).is_none());
    }

    #[test]
    fn the_plan_sends_each_request_once_and_https_checks_only_on_https() {
        let catalog = Catalog::builtin().unwrap();
        let mut seed = 1;
        let http = plan(&catalog.checks, Scheme::Http, &mut seed);
        let root = http
            .iter()
            .find(|(r, _)| r.method == "GET" && r.path == "/")
            .unwrap();
        assert!(
            root.1.len() > 5,
            "the root page is read by every header check"
        );
        let https = plan(&catalog.checks, Scheme::Https, &mut seed);
        assert_eq!(http.len(), https.len());
        let readers =
            |p: &[(Request, Vec<(usize, String)>)]| p.iter().map(|(_, r)| r.len()).sum::<usize>();
        assert!(readers(&https) > readers(&http));
        assert!(http.iter().all(|(r, _)| !r.path.contains(RANDOM)));
    }
}
