//! `nodebench scan URL`: the flags of the web server hardening scan and
//! their one conversion into its config.

use std::path::PathBuf;
use std::time::Duration;

use crate::config::ScanConfig;
use clap::Args;
use nodebench_core::bench::{BenchError, Benchmark};
use nodebench_core::cli::{BenchArgs, Runnable};
use nodebench_core::finding::Severity;
use nodebench_core::names::scan;

use nodebench_core::cli::parse::{duration_text, parse_duration};

/// Options of `scan`.
#[derive(Debug, Args)]
pub struct ScanArgs {
    /// The server: http[s]://HOST[:PORT][/BASE]. A non-loopback host needs
    /// --yes (the requests are printed first).
    #[arg(value_name = "URL")]
    pub url: String,
    /// Requests per second at most.
    #[arg(long, value_name = "N", default_value_t = ScanConfig::default().rate)]
    pub rate: u32,
    /// Requests in flight at most.
    #[arg(short = 'c', long = "concurrency", value_name = "N", default_value_t = ScanConfig::default().concurrency)]
    pub concurrency: usize,
    /// Time budget of the whole scan: checks not started by then are
    /// skipped (the result says how many).
    #[arg(long, value_name = "DURATION", default_value = duration_text(ScanConfig::default().budget), value_parser = parse_duration)]
    pub budget: Duration,
    /// Connect and read timeout of one request.
    #[arg(long, value_name = "DURATION", default_value = duration_text(ScanConfig::default().timeout), value_parser = parse_duration)]
    pub timeout: Duration,
    /// Also try PUT and DELETE, on /nodebench-<random>.txt only, removed
    /// afterwards.
    #[arg(long)]
    pub probe_write: bool,
    /// Also check the server on this machine: its worker processes' user,
    /// the configuration's and document root's permissions, default files
    /// on disk (run as root to see other users' processes).
    #[arg(long)]
    pub local: bool,
    /// Document root for --local (repeatable); default: the ones the
    /// server's configuration names.
    #[arg(long, value_name = "PATH")]
    pub docroot: Vec<PathBuf>,
    /// Pages the same-origin crawl from the URL fetches at most (links,
    /// forms, scripts, stylesheets, robots.txt, sitemap.xml; 5 links deep);
    /// 0 turns the crawl off.
    #[arg(long, value_name = "N", default_value_t = ScanConfig::default().crawl_pages)]
    pub crawl_pages: usize,
    /// Also list the candidates suppressed because they looked like the
    /// server's "not found" page.
    #[arg(long)]
    pub verbose: bool,
    /// Judge end-of-life versions on this day (YYYY-MM-DD) instead of today.
    #[arg(long, value_name = "DATE")]
    pub as_of: Option<String>,
    /// For an https URL: the host's plain HTTP port, checked for a redirect
    /// to https.
    #[arg(long, value_name = "PORT", default_value_t = ScanConfig::default().http_port)]
    pub http_port: u16,
    /// Send the requests to a non-loopback host.
    #[arg(long)]
    pub yes: bool,
    /// Exit 1 when a finding at or above this severity exists: info, low,
    /// medium, high.
    #[arg(long, value_name = "LEVEL")]
    pub fail_on: Option<Severity>,
}

impl From<&ScanArgs> for ScanConfig {
    fn from(a: &ScanArgs) -> ScanConfig {
        ScanConfig {
            url: a.url.clone(),
            rate: a.rate,
            concurrency: a.concurrency,
            budget: a.budget,
            timeout: a.timeout,
            probe_write: a.probe_write,
            local: a.local,
            docroots: a.docroot.clone(),
            confirmed: a.yes,
            crawl_pages: a.crawl_pages,
            verbose: a.verbose,
            as_of: a.as_of.clone(),
            http_port: a.http_port,
        }
    }
}

impl BenchArgs for ScanArgs {
    const ID: &'static str = scan::SCAN;

    fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        Ok(Box::new(crate::scan::Scan {
            config: self.into(),
        }))
    }
}

/// The benchmarks of this crate, as the CLI and the suites run them.
pub const RUNNABLE: &[Runnable] = &[Runnable::of::<ScanArgs>()];
