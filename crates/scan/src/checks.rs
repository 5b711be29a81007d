//! The check files (`crates/scan/checks/*.toml`, one per family, embedded
//! in the binary): their format, and the catalog they load into.
//!
//! A check either describes HTTP requests and the conditions a reply must
//! meet to be a finding (all of its `[[check.match]]` tables), or names a
//! `probe` the scan implements in code (TLS handshakes, write probes, local
//! checks) and only takes its id, title, severity and remediation from the
//! file.

use nodebench_core::bench::BenchError;
use nodebench_core::finding::Severity;
use regex::Regex;
use serde::Deserialize;

/// The embedded check files, by file name.
pub const FILES: &[(&str, &str)] = &[
    (
        "default-content.toml",
        include_str!("../checks/default-content.toml"),
    ),
    ("disclosure.toml", include_str!("../checks/disclosure.toml")),
    ("methods.toml", include_str!("../checks/methods.toml")),
    ("headers.toml", include_str!("../checks/headers.toml")),
    ("cors.toml", include_str!("../checks/cors.toml")),
    ("exposures.toml", include_str!("../checks/exposures.toml")),
    ("panels.toml", include_str!("../checks/panels.toml")),
    ("eol.toml", include_str!("../checks/eol.toml")),
    ("tls.toml", include_str!("../checks/tls.toml")),
    ("local.toml", include_str!("../checks/local.toml")),
];

/// Methods a check may send: the scan never sends anything that changes
/// the server (PUT and DELETE are probes, only with `--probe-write`).
pub const SAFE_METHODS: &[&str] = &["GET", "HEAD", "OPTIONS", "TRACE", "TRACK", "DEBUG"];

/// The checks' code-driven probes, by the name a check file gives them.
pub const PROBES: &[&str] = &[
    "ssl-3",
    "tls-1.0",
    "tls-1.1",
    "tls-weak-cipher",
    "cert-expired",
    "cert-expiring",
    "cert-self-signed",
    "cert-hostname",
    "cert-untrusted",
    "cert-weak-key",
    "cert-sha1",
    "no-forward-secrecy",
    "dh-weak",
    "http-no-redirect",
    "eol-branch",
    "eol-release",
    "write-put",
    "write-delete",
    "worker-root",
    "worker-nobody",
    "docroot-world-writable",
    "docroot-worker-writable",
    "config-secret-readable",
    "secret-readable",
    "config-writable",
    "default-content-on-disk",
];

/// The placeholder a check path may hold: replaced by a fresh random token
/// (a path that cannot exist, for error pages).
pub const RANDOM: &str = "{random}";

/// The `in_dirs` entry that stands for a crawled directory without its
/// trailing slash (servers answer it with a redirect to the slash form).
pub const NO_SLASH: &str = "{no-slash}";

/// The `on_files` placeholder for a crawled file's name: `.{name}.swp`
/// asks for `/dir/.index.php.swp` beside `/dir/index.php` (vim's swap file).
pub const NAME: &str = "{name}";

/// A check file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileText {
    family: String,
    description: String,
    #[serde(rename = "check")]
    checks: Vec<CheckText>,
    /// eol.toml: when the branch table was last checked.
    #[serde(default)]
    checked: Option<String>,
    /// eol.toml: the release branches and their end of life.
    #[serde(default, rename = "branch")]
    branches: Vec<crate::branches::BranchText>,
}

/// One `[[check]]` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckText {
    id: String,
    name: String,
    severity: String,
    remediation: String,
    #[serde(default)]
    method: Option<String>,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    paths: Vec<String>,
    #[serde(default)]
    in_dirs: Vec<String>,
    #[serde(default)]
    on_files: Vec<String>,
    #[serde(default)]
    on_crawled: bool,
    #[serde(default)]
    headers: Vec<String>,
    #[serde(default)]
    scheme: Option<String>,
    #[serde(default = "yes")]
    soft404: bool,
    #[serde(default)]
    on_disk: bool,
    #[serde(default)]
    probe: Option<String>,
    #[serde(default, rename = "match")]
    conditions: Vec<ConditionText>,
}

fn yes() -> bool {
    true
}

/// One `[[check.match]]` as written: exactly one kind of condition.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ConditionText {
    status: Option<Vec<u16>>,
    body_any: Option<Vec<String>>,
    body_regex: Option<String>,
    header: Option<String>,
    regex: Option<String>,
    lacks: Option<String>,
    #[serde(default)]
    or_absent: bool,
    header_absent: Option<String>,
    internal_address: Option<String>,
}

/// A condition on a reply.
#[derive(Debug, Clone)]
pub enum Condition {
    /// The status is one of these.
    Status(Vec<u16>),
    /// The body holds one of these strings.
    BodyAny(Vec<String>),
    /// The body matches.
    BodyRegex(Regex),
    /// The header is present (and, with a regex, one of its values matches).
    Header {
        /// Header name, any case.
        name: String,
        /// What a value must match.
        regex: Option<Regex>,
    },
    /// The header is present with a value that does not match `regex`
    /// (or, with `or_absent`, it is missing).
    HeaderLacks {
        /// Header name, any case.
        name: String,
        /// What every value should match.
        regex: Regex,
        /// A missing header meets the condition too.
        or_absent: bool,
    },
    /// The header is missing.
    HeaderAbsent(String),
    /// The header (`Location`) names a private, loopback or link-local
    /// address other than the scanned host.
    InternalAddress(String),
}

/// Which targets a check applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applies {
    /// Every target.
    Any,
    /// https targets only (HSTS, Secure cookies).
    Https,
}

/// What a check does.
#[derive(Debug, Clone)]
pub enum Kind {
    /// Send `method` to each path; a reply meeting every condition (and,
    /// with `soft404`, unlike the server's "not found") is a finding.
    Request {
        /// GET, HEAD, OPTIONS or TRACE.
        method: String,
        /// Paths below the target's base; may hold [`RANDOM`].
        paths: Vec<String>,
        /// Names requested in every directory the crawl found (`""`: the
        /// directory itself; [`NO_SLASH`]: the directory without its slash).
        in_dirs: Vec<String>,
        /// Suffixes appended to every file the crawl found (`~`, `.bak`);
        /// one holding [`NAME`] replaces the file's name instead
        /// (`.{name}.swp`).
        on_files: Vec<String>,
        /// The conditions are also judged on every file the crawl found
        /// (a linked `/backup/site.sql`): content checks whose body
        /// patterns say what a file is, whatever its name.
        on_crawled: bool,
        /// Request headers sent with it (`Origin: ...`).
        headers: Vec<(String, String)>,
        /// All must hold.
        conditions: Vec<Condition>,
        /// Compare a matching reply with the soft-404 calibration.
        soft404: bool,
        /// The paths are files a default install puts in the document
        /// root, which `--local` looks for on disk.
        on_disk: bool,
    },
    /// A probe implemented in code, by its name in [`PROBES`].
    Probe(String),
}

/// One check of the catalog.
#[derive(Debug, Clone)]
pub struct Check {
    /// Stable id, `family.name`.
    pub id: String,
    /// Title.
    pub name: String,
    /// Its family (the file's `family`).
    pub family: String,
    /// How much a finding matters.
    pub severity: Severity,
    /// What to change.
    pub remediation: String,
    /// Which targets it applies to.
    pub applies: Applies,
    /// What it does.
    pub kind: Kind,
}

/// A family: one check file.
#[derive(Debug, Clone)]
pub struct Family {
    /// Its name (`default-content`).
    pub name: String,
    /// What it looks for.
    pub description: String,
}

/// Every check of the embedded files.
#[derive(Debug, Clone)]
pub struct Catalog {
    /// The families, in file order.
    pub families: Vec<Family>,
    /// The checks, in file order.
    pub checks: Vec<Check>,
    /// The end-of-life table's branches (eol.toml).
    pub branches: Vec<crate::branches::Branch>,
    /// When that table was last checked (`YYYY-MM-DD`).
    pub eol_checked: Option<String>,
}

impl Check {
    /// Whether its findings come from reply headers (and the status)
    /// alone, so the same finding on many paths is one issue of the site
    /// (a CORS policy, a missing header).
    pub fn reads_headers_only(&self) -> bool {
        match &self.kind {
            Kind::Request { conditions, .. } => conditions
                .iter()
                .all(|c| !matches!(c, Condition::BodyAny(_) | Condition::BodyRegex(_))),
            Kind::Probe(_) => false,
        }
    }
}

impl Catalog {
    /// Loads the embedded check files.
    pub fn builtin() -> Result<Catalog, BenchError> {
        Catalog::parse(FILES)
    }

    /// Loads check files given as (file name, text).
    pub fn parse(files: &[(&str, &str)]) -> Result<Catalog, BenchError> {
        let mut families = Vec::new();
        let mut checks: Vec<Check> = Vec::new();
        let mut branches = Vec::new();
        let mut eol_checked = None;
        for (file, text) in files {
            let parsed: FileText = toml::from_str(text)
                .map_err(|e| BenchError::System(format!("check file {file}: {e}")))?;
            for c in parsed.checks {
                let check = compile(&parsed.family, c)
                    .map_err(|e| BenchError::System(format!("{file}: {e}")))?;
                if checks.iter().any(|o| o.id == check.id) {
                    return Err(BenchError::System(format!(
                        "{file}: check id '{}' given twice",
                        check.id
                    )));
                }
                checks.push(check);
            }
            for b in parsed.branches {
                branches.push(
                    crate::branches::branch(b)
                        .map_err(|e| BenchError::System(format!("{file}: {e}")))?,
                );
            }
            if let Some(c) = parsed.checked {
                if crate::branches::days(&c).is_none() {
                    return Err(BenchError::System(format!(
                        "{file}: checked '{c}' is not YYYY-MM-DD"
                    )));
                }
                eol_checked = Some(c);
            }
            families.push(Family {
                name: parsed.family,
                description: parsed.description,
            });
        }
        Ok(Catalog {
            families,
            checks,
            branches,
            eol_checked,
        })
    }

    /// The check implementing `probe`.
    pub fn probe(&self, probe: &str) -> Option<&Check> {
        self.checks
            .iter()
            .find(|c| matches!(&c.kind, Kind::Probe(p) if p == probe))
    }
}

/// One check as written into its compiled form, refusing what the format
/// does not allow (an unsafe method, an unknown probe, a bad regex).
fn compile(family: &str, c: CheckText) -> Result<Check, BenchError> {
    let id = c.id.clone();
    let err = |why: String| BenchError::System(format!("check '{id}': {why}"));
    if !id.starts_with(&format!("{family}.")) {
        return Err(err(format!("the id must start with '{family}.'")));
    }
    let severity: Severity = c.severity.parse().map_err(|e| err(format!("{e}")))?;
    let applies = match c.scheme.as_deref() {
        None => Applies::Any,
        Some("https") => Applies::Https,
        Some(other) => return Err(err(format!("scheme '{other}': only https may be named"))),
    };
    let kind = if let Some(probe) = c.probe {
        if !PROBES.contains(&probe.as_str()) {
            return Err(err(format!(
                "unknown probe '{probe}' (known: {})",
                PROBES.join(", ")
            )));
        }
        if c.path.is_some() || !c.paths.is_empty() || !c.conditions.is_empty() {
            return Err(err("a probe takes no path or match".into()));
        }
        Kind::Probe(probe)
    } else {
        let method = c.method.unwrap_or_else(|| "GET".into());
        if !SAFE_METHODS.contains(&method.as_str()) {
            return Err(err(format!(
                "method '{method}': a check sends only {}",
                SAFE_METHODS.join(", ")
            )));
        }
        let mut paths: Vec<String> = c.path.into_iter().chain(c.paths).collect();
        if paths.is_empty() && c.in_dirs.is_empty() && c.on_files.is_empty() && !c.on_crawled {
            return Err(err("no path, in_dirs, on_files or on_crawled".into()));
        }
        for rel in c.in_dirs.iter().chain(&c.on_files) {
            if rel.starts_with('/') || rel.contains("..") || rel.contains(char::is_whitespace) {
                return Err(err(format!(
                    "'{rel}': in_dirs and on_files take names relative to a directory or file"
                )));
            }
        }
        let mut headers = Vec::new();
        for h in &c.headers {
            let Some((name, value)) = h.split_once(':') else {
                return Err(err(format!("header '{h}': expected 'Name: value'")));
            };
            let name = name.trim();
            if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
                return Err(err(format!("header '{h}': bad name")));
            }
            headers.push((name.to_string(), value.trim().to_string()));
        }
        for p in &mut paths {
            if !p.starts_with('/') {
                return Err(err(format!("path '{p}' must start with '/'")));
            }
            *p = p.trim().to_string();
        }
        if c.conditions.is_empty() {
            return Err(err("no [[check.match]]".into()));
        }
        let conditions = c
            .conditions
            .into_iter()
            .map(condition)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| err(e.to_string()))?;
        Kind::Request {
            method,
            paths,
            in_dirs: c.in_dirs,
            on_files: c.on_files,
            on_crawled: c.on_crawled,
            headers,
            conditions,
            soft404: c.soft404,
            on_disk: c.on_disk,
        }
    };
    Ok(Check {
        id: c.id,
        name: c.name,
        family: family.to_string(),
        severity,
        remediation: c.remediation.trim().to_string(),
        applies,
        kind,
    })
}

/// One condition as written into its compiled form.
fn condition(t: ConditionText) -> Result<Condition, BenchError> {
    let regex =
        |r: &str| Regex::new(r).map_err(|e| BenchError::System(format!("regex '{r}': {e}")));
    let kinds = [
        t.status.is_some(),
        t.body_any.is_some(),
        t.body_regex.is_some(),
        t.header.is_some(),
        t.header_absent.is_some(),
        t.internal_address.is_some(),
    ];
    if kinds.iter().filter(|k| **k).count() != 1 {
        return Err(BenchError::System(
            "each [[check.match]] takes exactly one of status, body_any, body_regex, header, header_absent, internal_address"
                .into(),
        ));
    }
    if t.header.is_none() && (t.regex.is_some() || t.lacks.is_some() || t.or_absent) {
        return Err(BenchError::System(
            "regex, lacks and or_absent go with header".into(),
        ));
    }
    Ok(if let Some(s) = t.status {
        Condition::Status(s)
    } else if let Some(words) = t.body_any {
        Condition::BodyAny(words)
    } else if let Some(r) = t.body_regex {
        Condition::BodyRegex(regex(&r)?)
    } else if let Some(name) = t.header_absent {
        Condition::HeaderAbsent(name)
    } else if let Some(name) = t.internal_address {
        Condition::InternalAddress(name)
    } else {
        let name = t.header.unwrap_or_default();
        match (t.regex, t.lacks) {
            (Some(_), Some(_)) => {
                return Err(BenchError::System(
                    "header takes regex or lacks, not both".into(),
                ));
            }
            (None, Some(l)) => Condition::HeaderLacks {
                name,
                regex: regex(&l)?,
                or_absent: t.or_absent,
            },
            (r, None) => {
                if t.or_absent {
                    return Err(BenchError::System("or_absent goes with lacks".into()));
                }
                Condition::Header {
                    name,
                    regex: r.as_deref().map(regex).transpose()?,
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_files_load_and_every_probe_has_a_check() {
        let catalog = Catalog::builtin().unwrap();
        for probe in PROBES {
            assert!(
                catalog.probe(probe).is_some(),
                "no check runs probe {probe}"
            );
        }
        let families: Vec<&str> = catalog.families.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(
            families,
            [
                "default-content",
                "disclosure",
                "methods",
                "headers",
                "cors",
                "exposures",
                "panels",
                "eol",
                "tls",
                "local"
            ]
        );
    }

    #[test]
    fn unsafe_methods_unknown_probes_and_bad_regexes_are_refused() {
        let file = |check: &str| {
            format!(
                "family = \"x\"\ndescription = \"d\"\n[[check]]\nid = \"x.a\"\nname = \"n\"\nseverity = \"low\"\nremediation = \"r\"\n{check}"
            )
        };
        let refused = |check: &str| Catalog::parse(&[("x.toml", &file(check))]).unwrap_err();
        assert!(
            refused("method = \"PUT\"\npath = \"/\"\n[[check.match]]\nstatus = [200]")
                .to_string()
                .contains("method 'PUT'")
        );
        assert!(
            refused("probe = \"rm-rf\"")
                .to_string()
                .contains("unknown probe 'rm-rf'")
        );
        assert!(
            refused("path = \"/\"\n[[check.match]]\nbody_regex = \"(\"")
                .to_string()
                .contains("regex '('")
        );
        assert!(
            refused("path = \"/\"\n[[check.match]]\nstatus = [200]\nbody_any = [\"a\"]")
                .to_string()
                .contains("exactly one")
        );
        assert!(
            refused("path = \"/\"")
                .to_string()
                .contains("no [[check.match]]")
        );
        assert!(
            refused("path = \"/\"\nseverity2 = 1")
                .to_string()
                .contains("unknown field")
        );
        let ok = Catalog::parse(&[(
            "x.toml",
            &file("path = \"/a\"\n[[check.match]]\nheader = \"Server\"\nregex = \"[0-9]\""),
        )])
        .unwrap();
        assert_eq!(ok.checks[0].family, "x");
    }
}
