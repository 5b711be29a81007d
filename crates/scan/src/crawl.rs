//! The bounded same-origin crawl: from the start page, the links, form
//! actions and script/stylesheet sources of every HTML page, the entries of
//! `/sitemap.xml` and the `Disallow`/`Allow` paths of `/robots.txt` (probed,
//! not obeyed: they name what the owner hides), query strings and
//! fragments dropped, at most [`MAX_DEPTH`] links deep and `--crawl-pages`
//! pages, through the scan's client (its rate limit) and before a
//! deadline. What it finds, the directories and files, is where the checks
//! with `in_dirs` and `on_files` look as well as at their fixed paths; the
//! replies it got are reused for the same GET.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;
use std::time::Instant;

use nodebench_core::bench::Cancel;
use regex::Regex;

use crate::calibrate::{extension, parent_dir};
use crate::client::{Client, Reply, Request};
use crate::config::{Scheme, Target};
use crate::request::send_all;

/// Links followed from the start page at most this deep.
pub const MAX_DEPTH: usize = 5;
/// The most directories and files the checks expand to (the shallowest,
/// then in name order), so a large site cannot spend the budget on them.
pub const DIR_CAP: usize = 32;
/// See [`DIR_CAP`].
pub const FILE_CAP: usize = 64;

/// What the crawl found.
#[derive(Debug, Clone, Default)]
pub struct Crawl {
    /// GET replies by path (below the target's base).
    pub pages: BTreeMap<String, Reply>,
    /// Directories (`/`, `/pub/`, `/pub/files/`), the root always.
    pub dirs: BTreeSet<String>,
    /// Files (`/pub/files/report.txt`).
    pub files: BTreeSet<String>,
    /// Paths the links named that were not fetched (page cap, depth,
    /// deadline).
    pub not_fetched: usize,
}

impl Crawl {
    /// The directories the checks expand to, at most [`DIR_CAP`], the
    /// shallowest first.
    pub fn dirs_for_checks(&self) -> Vec<String> {
        let mut d: Vec<String> = self.dirs.iter().cloned().collect();
        d.sort_by_key(|p| (p.matches('/').count(), p.clone()));
        d.truncate(DIR_CAP);
        d
    }

    /// The files the checks expand to, at most [`FILE_CAP`].
    pub fn files_for_checks(&self) -> Vec<String> {
        let mut f: Vec<String> = self.files.iter().cloned().collect();
        f.sort_by_key(|p| (p.matches('/').count(), p.clone()));
        f.truncate(FILE_CAP);
        f
    }

    /// One line for the result: pages fetched, directories and files found.
    pub fn summary(&self) -> String {
        format!(
            "{} pages fetched, {} directories, {} files{}",
            self.pages.len(),
            self.dirs.len(),
            self.files.len(),
            if self.not_fetched > 0 {
                format!(
                    " ({} linked paths not fetched: page cap, depth or time)",
                    self.not_fetched
                )
            } else {
                String::new()
            }
        )
    }

    /// Records `path` (a file or a directory) and its parent directories.
    fn note(&mut self, path: &str) {
        if path.ends_with('/') {
            self.dirs.insert(path.to_string());
        } else {
            self.files.insert(path.to_string());
        }
        let mut p = path;
        while p != "/" {
            p = parent_dir(p);
            self.dirs.insert(p.to_string());
        }
    }
}

/// Extensions of paths that are fetched and read for links; others (images,
/// archives, scripts) are only recorded.
fn is_page(path: &str) -> bool {
    match extension(path) {
        None => true,
        Some(e) => matches!(
            e.to_ascii_lowercase().as_str(),
            "html"
                | "htm"
                | "xhtml"
                | "php"
                | "asp"
                | "aspx"
                | "jsp"
                | "cgi"
                | "pl"
                | "xml"
                | "txt"
        ),
    }
}

fn attribute_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r#"(?i)\b(?:href|src|action)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>"']+))"#)
            .expect("the link regex compiles")
    })
}

fn loc_regex() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"(?i)<loc>\s*([^<\s]+)\s*</loc>").expect("the loc regex compiles")
    })
}

/// The link targets named in an HTML page (attribute values, entities
/// `&amp;` undone).
pub fn html_links(html: &str) -> Vec<String> {
    attribute_regex()
        .captures_iter(html)
        .filter_map(|c| c.get(1).or(c.get(2)).or(c.get(3)))
        .map(|m| m.as_str().trim().replace("&amp;", "&"))
        .collect()
}

/// The paths `robots.txt` names (Disallow, Allow; a `*` or `$` cuts the
/// path there) and its Sitemap URLs.
pub fn robots_entries(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or_default().trim();
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let key = key.trim().to_ascii_lowercase();
        let value = value.trim();
        if key == "sitemap" {
            out.push(value.to_string());
        } else if key == "disallow" || key == "allow" {
            let cut = value.split(['*', '$']).next().unwrap_or_default();
            if cut.starts_with('/') && cut.len() > 1 {
                out.push(cut.to_string());
            }
        }
    }
    out
}

/// The `<loc>` URLs of a sitemap.
pub fn sitemap_entries(text: &str) -> Vec<String> {
    loc_regex()
        .captures_iter(text)
        .map(|c| c[1].replace("&amp;", "&"))
        .collect()
}

/// `.` and `..` segments resolved; `None` when `..` climbs above the root.
fn normalise(path: &str) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    let last = segments.len().saturating_sub(1);
    let mut dir = path.ends_with('/');
    for (i, s) in segments.iter().enumerate() {
        match *s {
            "." => dir |= i == last,
            ".." => {
                out.pop()?;
                dir |= i == last;
            }
            "" if i != last => {}
            "" => {}
            s => out.push(s),
        }
    }
    let mut p = format!("/{}", out.join("/"));
    if dir && !p.ends_with('/') {
        p.push('/');
    }
    Some(p)
}

/// Spaces, quotes and bytes outside printable ASCII percent-encoded.
fn encode(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_graphic() && b != b'"' && b != b'<' && b != b'>' && b != b'\\' {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `link` as found on the page at `from` (a path below the base), resolved
/// to a path below the target's base: same scheme, host and port only,
/// query and fragment dropped; `None` for another origin, another scheme
/// (`mailto:`, `javascript:`), or a path outside the base.
pub fn resolve(target: &Target, from: &str, link: &str) -> Option<String> {
    let link = link.split('#').next().unwrap_or_default();
    let link = link.split('?').next().unwrap_or_default().trim();
    if link.is_empty() {
        return None;
    }
    let lower = link.to_ascii_lowercase();
    let scheme_name = match target.scheme {
        Scheme::Http => "http",
        Scheme::Https => "https",
    };
    let absolute = if let Some(rest) = lower
        .strip_prefix("http://")
        .or_else(|| lower.strip_prefix("https://"))
        .or_else(|| lower.strip_prefix("//"))
    {
        if !lower.starts_with("//") && !lower.starts_with(&format!("{scheme_name}://")) {
            return None;
        }
        let at = link.len() - rest.len();
        let (authority, path) = match link[at..].find('/') {
            Some(i) => (&link[at..at + i], &link[at + i..]),
            None => (&link[at..], "/"),
        };
        let default = match target.scheme {
            Scheme::Http => 80,
            Scheme::Https => 443,
        };
        let same = authority.eq_ignore_ascii_case(&target.authority())
            || (target.port == default && authority.eq_ignore_ascii_case(&target.host))
            || (target.port == default
                && authority.eq_ignore_ascii_case(&format!("[{}]", target.host)));
        if !same {
            return None;
        }
        path.to_string()
    } else if lower.contains(':') && !lower.starts_with('/') && !lower.starts_with('.') {
        // mailto:, javascript:, data:, tel: (or a relative name with a
        // colon, which is rare enough to leave).
        return None;
    } else if link.starts_with('/') {
        link.to_string()
    } else {
        format!("{}{}{link}", target.base, parent_dir(&format!("{from}x")))
    };
    let path = normalise(&encode(&absolute))?;
    if target.base.is_empty() {
        return Some(path);
    }
    if path == target.base {
        return Some("/".into());
    }
    path.strip_prefix(&target.base)
        .filter(|p| p.starts_with('/'))
        .map(str::to_string)
}

/// Crawls from the start page until `deadline`: [`MAX_DEPTH`] levels, at
/// most `page_cap` GETs (the start page, robots.txt and sitemap.xml
/// counted), `concurrency` at a time.
pub fn crawl(
    client: &Client,
    page_cap: usize,
    concurrency: usize,
    deadline: Instant,
    cancel: &Cancel,
) -> Crawl {
    let target = client.target().clone();
    let mut found = Crawl::default();
    found.dirs.insert("/".into());
    let mut seen: BTreeSet<String> = BTreeSet::new();
    let mut frontier: Vec<String> = ["/", "/robots.txt", "/sitemap.xml"]
        .iter()
        .map(|p| p.to_string())
        .collect();
    seen.extend(frontier.iter().cloned());
    for depth in 0..=MAX_DEPTH {
        let room = page_cap.saturating_sub(found.pages.len());
        if frontier.is_empty() || room == 0 || Instant::now() >= deadline || cancel.is_cancelled() {
            break;
        }
        let left = frontier.len().saturating_sub(room);
        found.not_fetched += left;
        frontier.truncate(room);
        let requests: Vec<Request> = frontier.iter().map(|p| Request::new("GET", p)).collect();
        let replies = send_all(client, &requests, concurrency, deadline, cancel);
        let mut next: Vec<String> = Vec::new();
        for (path, reply) in frontier.iter().zip(replies) {
            let Some(Ok(reply)) = reply else {
                found.not_fetched += 1;
                continue;
            };
            let mut links: Vec<String> = Vec::new();
            let ok = (200..300).contains(&reply.status);
            if (300..400).contains(&reply.status) {
                links.extend(reply.header("Location").map(str::to_string));
            } else if ok && path == "/robots.txt" {
                links.extend(robots_entries(&reply.text()));
            } else if ok && (path.ends_with(".xml") || path == "/sitemap.xml") {
                links.extend(sitemap_entries(&reply.text()));
            } else if ok {
                let html = reply
                    .header("Content-Type")
                    .any(|v| v.to_ascii_lowercase().contains("html"));
                if html {
                    links.extend(html_links(&reply.text()));
                }
            }
            if ok && !matches!(path.as_str(), "/robots.txt" | "/sitemap.xml") {
                found.note(path);
            }
            found.pages.insert(path.clone(), reply);
            for link in links {
                let Some(p) = resolve(&target, path, &link) else {
                    continue;
                };
                if !seen.insert(p.clone()) {
                    continue;
                }
                if is_page(&p) && depth < MAX_DEPTH {
                    next.push(p);
                } else {
                    // Recorded (where a check expands to it) without a GET;
                    // a robots.txt entry is probed by the checks.
                    found.note(&p);
                }
            }
        }
        frontier = next;
    }
    found.not_fetched += frontier.len();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(url: &str) -> Target {
        Target::parse(url).unwrap()
    }

    #[test]
    fn links_resolve_to_same_origin_paths_without_query() {
        let t = target("http://127.0.0.1:8080");
        let r = |from: &str, link: &str| resolve(&t, from, link);
        assert_eq!(r("/", "/pub/files/").as_deref(), Some("/pub/files/"));
        assert_eq!(
            r("/a/b.html", "c.html?x=1#top").as_deref(),
            Some("/a/c.html")
        );
        assert_eq!(r("/a/b/", "../x/").as_deref(), Some("/a/x/"));
        assert_eq!(r("/a/b/", "./").as_deref(), Some("/a/b/"));
        assert_eq!(r("/", "http://127.0.0.1:8080/y").as_deref(), Some("/y"));
        assert_eq!(r("/", "//127.0.0.1:8080/z").as_deref(), Some("/z"));
        assert_eq!(r("/", "https://127.0.0.1:8080/y"), None);
        assert_eq!(r("/", "http://example.com/y"), None);
        assert_eq!(r("/", "mailto:a@b"), None);
        assert_eq!(r("/", "javascript:void(0)"), None);
        assert_eq!(r("/", "#top"), None);
        assert_eq!(r("/", "/../../etc/passwd"), None);
        assert_eq!(r("/", "/a b").as_deref(), Some("/a%20b"));
        let app = target("http://127.0.0.1:8080/app");
        assert_eq!(resolve(&app, "/", "/app/x/").as_deref(), Some("/x/"));
        assert_eq!(resolve(&app, "/x/", "y.php").as_deref(), Some("/x/y.php"));
        assert_eq!(resolve(&app, "/", "/other/"), None);
        let web = target("http://localhost");
        assert_eq!(
            resolve(&web, "/", "http://LOCALHOST/q").as_deref(),
            Some("/q")
        );
    }

    #[test]
    fn pages_robots_and_sitemaps_give_their_links() {
        let html = r#"<a href="/pub/files/">files</a><form action='/login.php' method=post>
            <script src=/js/app.js></script><link rel=stylesheet href="/css/a.css?v=2">
            <a href="/q?a=1&amp;b=2">q</a>"#;
        assert_eq!(
            html_links(html),
            [
                "/pub/files/",
                "/login.php",
                "/js/app.js",
                "/css/a.css?v=2",
                "/q?a=1&b=2"
            ]
        );
        let robots = "User-agent: *\nDisallow: /private/ # hidden\nDisallow: /*.bak$\nAllow: /public/\nDisallow:\nSitemap: http://h/sitemap2.xml\n";
        assert_eq!(
            robots_entries(robots),
            ["/private/", "/public/", "http://h/sitemap2.xml"]
        );
        let sitemap = "<urlset><url><loc> http://h/a.html </loc></url><url><loc>http://h/b/</loc></url></urlset>";
        assert_eq!(sitemap_entries(sitemap), ["http://h/a.html", "http://h/b/"]);
        let mut c = Crawl::default();
        c.note("/pub/files/report.txt");
        assert_eq!(
            c.dirs.iter().map(String::as_str).collect::<Vec<_>>(),
            ["/", "/pub/", "/pub/files/"]
        );
        assert_eq!(c.files_for_checks(), ["/pub/files/report.txt"]);
        assert!(is_page("/a/") && is_page("/x.php") && !is_page("/x.png"));
    }
}
