//! End-of-life versions: the products and versions the replies name
//! (`Server`, `X-Powered-By`, error pages), judged against the branch table
//! of `checks/eol.toml` on a date (`--as-of`, default today). A branch past
//! its end is the `eol-branch` probe's finding; a release older than its
//! supported branch's newest is the `eol-release` probe's (info only).

use std::collections::BTreeSet;
use std::sync::OnceLock;

use nodebench_core::finding::Finding;
use regex::Regex;

use crate::branches::{date_text, in_branch, version};
use crate::checks::Catalog;
use crate::client::Reply;

/// One product version a reply named.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Seen {
    /// The product as the table names it.
    pub product: String,
    /// The version as written (`1.1.1w`).
    pub version: String,
    /// Where: the header line or the body excerpt.
    pub evidence: String,
    /// The request line of the reply.
    pub request: String,
}

fn version_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"\b(Apache Tomcat|Apache|nginx|PHP|OpenSSL)/([0-9]+(?:\.[0-9]+)+[a-z]?)")
            .expect("the version regex compiles")
    })
}

/// The product versions in `text`.
fn in_text(text: &str) -> Vec<(String, String)> {
    version_regex()
        .captures_iter(text)
        .map(|c| {
            let product = match &c[1] {
                "Apache" => "Apache httpd",
                other => other,
            };
            (product.to_string(), c[2].to_string())
        })
        .collect()
}

/// The versions `replies` name: in Server and X-Powered-By, and in the
/// bodies of error replies (status 400 and up), each product version once.
pub fn versions<'a>(replies: impl IntoIterator<Item = &'a Reply>) -> Vec<Seen> {
    let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
    let mut out = Vec::new();
    for reply in replies {
        let mut sources: Vec<String> = ["Server", "X-Powered-By"]
            .iter()
            .flat_map(|h| reply.header(h).map(move |v| format!("{h}: {v}")))
            .collect();
        if reply.status >= 400 {
            let text = reply.text();
            for m in version_regex().find_iter(&text) {
                sources.push(format!("error page: '{}'", m.as_str()));
            }
        }
        for source in sources {
            for (product, version) in in_text(&source) {
                if seen.insert((product.clone(), version.clone())) {
                    out.push(Seen {
                        product,
                        version,
                        evidence: source.clone(),
                        request: reply.request_line.clone(),
                    });
                }
            }
        }
    }
    out
}

/// The findings for `seen` on day `as_of`.
pub fn judge(seen: &[Seen], catalog: &Catalog, as_of: i64) -> Vec<Finding> {
    let mut out = Vec::new();
    for s in seen {
        // The longest branch the version is in.
        let Some(b) = catalog
            .branches
            .iter()
            .filter(|b| b.product == s.product && in_branch(&s.version, &b.branch))
            .max_by_key(|b| b.branch.len())
        else {
            continue;
        };
        let past = b.end.filter(|end| *end <= as_of);
        let (probe, why) = if let Some(end) = past {
            (
                "eol-branch",
                format!(
                    "{} {} is in branch {}, without security support since {} (as of {})",
                    s.product,
                    s.version,
                    b.branch,
                    date_text(end),
                    date_text(as_of)
                ),
            )
        } else if let Some(newest) = &b.newest
            && version(&s.version) < version(newest)
        {
            (
                "eol-release",
                format!(
                    "{} {} is older than {newest}, the newest of branch {} known to the table of {}",
                    s.product,
                    s.version,
                    b.branch,
                    catalog.eol_checked.as_deref().unwrap_or("?")
                ),
            )
        } else {
            continue;
        };
        if let Some(c) = catalog.probe(probe) {
            out.push(Finding {
                id: c.id.clone(),
                name: c.name.clone(),
                severity: c.severity,
                request: s.request.clone(),
                status: None,
                evidence: format!("{}; {why}", s.evidence),
                remediation: c.remediation.clone(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::branches::days;

    fn reply(status: u16, headers: &[(&str, &str)], body: &str) -> Reply {
        Reply::sample(status, headers, body)
    }

    #[test]
    fn versions_come_from_headers_and_error_pages() {
        let replies = [
            reply(
                200,
                &[
                    ("Server", "Apache/2.4.41 (Ubuntu) OpenSSL/1.1.1f"),
                    ("X-Powered-By", "PHP/7.4.3"),
                ],
                "",
            ),
            reply(
                404,
                &[("Server", "Apache-Coyote/1.1")],
                "<h3>Apache Tomcat/8.5.99</h3>",
            ),
            reply(200, &[], "<p>nginx/1.0.0 in a page that is no error</p>"),
        ];
        let seen = versions(&replies);
        let pv: Vec<(&str, &str)> = seen
            .iter()
            .map(|s| (s.product.as_str(), s.version.as_str()))
            .collect();
        assert_eq!(
            pv,
            [
                ("Apache httpd", "2.4.41"),
                ("OpenSSL", "1.1.1f"),
                ("PHP", "7.4.3"),
                ("Apache Tomcat", "8.5.99")
            ]
        );
        assert_eq!(seen[3].evidence, "error page: 'Apache Tomcat/8.5.99'");
    }

    #[test]
    fn branches_past_their_end_and_older_releases() {
        let catalog = Catalog::builtin().unwrap();
        let as_of = days("2026-11-27").unwrap();
        let seen = |product: &str, version: &str| Seen {
            product: product.into(),
            version: version.into(),
            evidence: format!("Server: {product}/{version}"),
            request: "GET / HTTP/1.1".into(),
        };
        let ids = |s: Seen, day: i64| -> Vec<(String, String)> {
            judge(&[s], &catalog, day)
                .into_iter()
                .map(|f| (f.id, f.evidence))
                .collect()
        };
        let f = ids(seen("nginx", "1.22.1"), as_of);
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].0, "eol.branch-end-of-life");
        assert!(f[0].1.ends_with("nginx 1.22.1 is in branch 1.22, without security support since 2023-04-11 (as of 2026-11-27)"), "{f:?}");
        assert_eq!(
            ids(seen("OpenSSL", "1.1.1f"), as_of)[0].0,
            "eol.branch-end-of-life"
        );
        // PHP 8.2 is supported until the end of 2026.
        assert!(ids(seen("PHP", "8.2.29"), as_of).is_empty());
        assert_eq!(
            ids(seen("PHP", "8.2.29"), days("2027-01-01").unwrap())[0].0,
            "eol.branch-end-of-life"
        );
        // Apache 2.4 is supported: an older release is info.
        let f = ids(seen("Apache httpd", "2.4.62"), as_of);
        assert_eq!(f[0].0, "eol.older-release");
        assert!(ids(seen("Apache httpd", "2.4.65"), as_of).is_empty());
        assert!(ids(seen("nginx", "1.28.0"), as_of).is_empty());
        assert!(
            ids(seen("nginx", "9.9.9"), as_of).is_empty(),
            "no branch, no finding"
        );
        assert!(
            in_branch("1.1.1w", "1.1.1")
                && !in_branch("1.1.10", "1.1.1")
                && !in_branch("3.10.1", "3.1")
        );
    }
}
