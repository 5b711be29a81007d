//! Names of the web server hardening scan's results (`nodebench scan`).

/// Benchmark id of the hardening scan: one result per scan, its findings
/// counted by severity.
pub const SCAN: &str = "http.scan";

/// Metric names.
pub mod metric {
    /// Findings of one severity (the [`super::label::SEVERITY`] label:
    /// info, low, medium, high); lower is better.
    pub const FINDINGS: &str = "findings";
    /// HTTP requests the scan sent (calibration, checks, TLS handshakes not
    /// counted).
    pub const REQUESTS: &str = "requests";
    /// TLS handshakes the TLS checks made.
    pub const TLS_HANDSHAKES: &str = "tls_handshakes";
    /// Seconds the scan took.
    pub const SECONDS: &str = "seconds";
    /// Pages the crawl fetched (the start page, robots.txt and sitemap.xml
    /// included).
    pub const PAGES_CRAWLED: &str = "pages_crawled";
}

/// Label keys.
pub mod label {
    /// The severity of the counted findings (a [`super::severity`] name).
    pub const SEVERITY: &str = "severity";
}

/// Severities of findings, lowest first: the values of the
/// [`label::SEVERITY`] label and of `--fail-on`.
pub mod severity {
    /// Worth knowing, no weakness by itself.
    pub const INFO: &str = "info";
    /// A small hardening gap.
    pub const LOW: &str = "low";
    /// Something an attacker can use.
    pub const MEDIUM: &str = "medium";
    /// A direct exposure.
    pub const HIGH: &str = "high";
}

/// Parameter names.
pub mod param {
    /// The scanned URL.
    pub const URL: &str = "url";
    /// Requests per second at most (`--rate`).
    pub const RATE: &str = "rate";
    /// Requests in flight at most (`-c`).
    pub const CONCURRENCY: &str = "concurrency";
    /// Whether PUT/DELETE probes ran (`--probe-write`).
    pub const PROBE_WRITE: &str = "probe_write";
    /// Whether the local checks ran (`--local`).
    pub const LOCAL: &str = "local";
    /// The check families that ran.
    pub const FAMILIES: &str = "families";
    /// What "not found" looked like on the server (the soft-404
    /// calibration): status and body length.
    pub const NOT_FOUND: &str = "not_found";
    /// `--local`: the server's worker processes and who they run as.
    pub const WORKERS: &str = "workers";
    /// `--local`: the configuration files and document roots looked at.
    pub const LOOKED_AT: &str = "looked_at";
    /// Pages the crawl fetches at most (`--crawl-pages`; 0: no crawl).
    pub const CRAWL_PAGES: &str = "crawl_pages";
    /// What the crawl found: pages fetched, directories and files.
    pub const CRAWLED: &str = "crawled";
    /// The directories the checks looked in (the root and the crawl's).
    pub const DIRECTORIES: &str = "directories";
    /// `--verbose`: candidates suppressed because they looked like the
    /// server's "not found" (`[check id] request line -> status`).
    pub const SUPPRESSED: &str = "suppressed";
    /// The date end-of-life versions are judged against (`--as-of`).
    pub const AS_OF: &str = "as_of";
    /// The findings, as a JSON array of [`crate::finding::Finding`].
    pub const FINDINGS: &str = "findings";
}
