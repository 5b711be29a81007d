//! `http.scan`: the soft-404 calibration, the request checks, the write
//! probes (`--probe-write`), the TLS checks (https) and the local checks
//! (`--local`), recorded as one result: findings counted by severity as
//! metrics, the findings themselves as the `findings` parameter.

use std::collections::BTreeMap;
use std::time::Instant;

use nodebench_core::BenchResult;
use nodebench_core::bench::{BenchError, Benchmark, Context};
use nodebench_core::config::{Choice, Config};
use nodebench_core::finding::{Finding, Severity};
use nodebench_core::model::{Better, Metric, Unit};
use nodebench_core::names::scan::{SCAN, label, metric, param};

use crate::calibrate::{self, NotFound};
use crate::checks::Catalog;
use crate::client::Client;
use crate::config::{ScanConfig, Scheme};
use crate::request::Verdict;
use crate::{crawl, eol, local, request, tls};

/// The hardening scan of one web server.
#[derive(Debug, Clone)]
pub struct Scan {
    /// What to scan and how.
    pub config: ScanConfig,
}

impl Scan {
    /// What the scan will send, for a target that needs `--yes`: the
    /// requests by method with their paths, the TLS handshakes, the limits.
    pub fn plan_text(&self) -> Result<String, BenchError> {
        let target = self.config.target()?;
        let catalog = Catalog::builtin()?;
        let mut seed = 1;
        let root = ["/".to_string()];
        let requests = request::plan(&catalog.checks, target.scheme, &mut seed, &root, &[]);
        let mut by_method: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (r, _) in &requests {
            by_method.entry(&r.method).or_default().push(&r.path);
        }
        let mut text = format!(
            "nodebench scan would send to {} (at most {}/s, {} at a time, within {} s):\n  3 x GET of random paths (what \"not found\" looks like)\n",
            target.url(),
            self.config.rate,
            self.config.concurrency,
            self.config.budget.as_secs()
        );
        if self.config.crawl_pages > 0 {
            text.push_str(&format!(
                "  a same-origin crawl from {}/ (links, forms, scripts, stylesheets, /robots.txt, /sitemap.xml; query strings dropped): at most {} GETs, {} links deep, within {} s\n  then for each directory and file it finds (at most {} and {}): the checks' names in it, and one GET of a random name per directory and per extension\n",
                target.url(),
                self.config.crawl_pages,
                crawl::MAX_DEPTH,
                self.config.budget.as_secs() / 2,
                crawl::DIR_CAP,
                crawl::FILE_CAP,
            ));
        }
        text.push_str(&format!(
            "  the fixed probes ({} requests):\n",
            requests.len()
        ));
        for (method, paths) in by_method {
            text.push_str(&format!(
                "  {} x {method}: {}\n",
                paths.len(),
                paths.join(" ")
            ));
        }
        if self.config.probe_write {
            text.push_str("  --probe-write: PUT, GET, DELETE, GET of /nodebench-<random>.txt\n");
        }
        if target.scheme == Scheme::Https {
            text.push_str(
                "  7 TLS handshakes (default, RSA key exchange only, DHE only, an SSL 3.0 ClientHello, TLS 1.0 only, TLS 1.1 only, weak suites only)\n",
            );
            text.push_str(&format!(
                "  1 x GET / on http://{}:{} (a redirect to https?)\n",
                target.host, self.config.http_port
            ));
        }
        text.push_str(
            "No request carries an attack payload; nothing is written without --probe-write.\n",
        );
        Ok(text)
    }
}

impl Benchmark for Scan {
    fn id(&self) -> &'static str {
        SCAN
    }

    fn validate(&self) -> Result<(), BenchError> {
        self.config.validate()
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        let c = &self.config;
        let target = c.target()?;
        let catalog = Catalog::builtin()?;
        let client = Client::new(&target, c.rate, c.timeout)?;
        let started = Instant::now();
        let deadline = started + c.budget;
        let mut seed = calibrate::seed();
        let mut result = BenchResult::new(SCAN);
        result.set_param(param::URL, target.url());
        result.set_param(param::RATE, c.rate);
        result.set_param(param::CONCURRENCY, c.concurrency);
        result.set_param(param::PROBE_WRITE, c.probe_write);
        result.set_param(param::LOCAL, c.local);
        result.set_param(param::CRAWL_PAGES, c.crawl_pages);

        let not_found = NotFound::learn(&client, &mut seed).map_err(|e| {
            if target.scheme == Scheme::Http && tls::speaks_tls(&client) {
                BenchError::System(format!(
                    "{} speaks TLS, not plain HTTP: use https://{}{}",
                    target.authority(),
                    target.authority(),
                    target.base
                ))
            } else {
                e
            }
        })?;
        result.set_param(param::NOT_FOUND, not_found.summary());

        // The crawl gets half the budget at most, so the checks keep theirs.
        let crawl = if c.crawl_pages > 0 {
            crawl::crawl(
                &client,
                c.crawl_pages,
                c.concurrency,
                started + c.budget / 2,
                &ctx.cancel,
            )
        } else {
            let mut none = crawl::Crawl::default();
            none.dirs.insert("/".into());
            none
        };
        result.set_param(param::CRAWLED, crawl.summary());
        let dirs = crawl.dirs_for_checks();
        let files = crawl.files_for_checks();
        result.set_param(param::DIRECTORIES, dirs.clone());
        let planned = request::plan(&catalog.checks, target.scheme, &mut seed, &dirs, &files);

        // Per-directory and per-extension "not found", then the checks'
        // requests, the crawl's replies reused.
        let mut exts: Vec<String> = planned
            .iter()
            .filter_map(|(r, _)| calibrate::extension(&r.path).map(str::to_ascii_lowercase))
            .collect();
        exts.sort();
        exts.dedup();
        exts.truncate(calibrate::EXT_CAP);
        let more = NotFound::plan_more(&dirs, &exts, &mut seed);
        let mut requests: Vec<_> = more.iter().map(|(r, _)| r.clone()).collect();
        let cached = |r: &crate::client::Request| {
            (r.method == "GET" && r.headers.is_empty())
                .then(|| crawl.pages.get(&r.path))
                .flatten()
        };
        let to_send: Vec<usize> = (0..planned.len())
            .filter(|i| cached(&planned[*i].0).is_none())
            .collect();
        requests.extend(to_send.iter().map(|i| planned[*i].0.clone()));
        ctx.progress.start("scan", requests.len() as u64);
        let mut sent = request::send_all(&client, &requests, c.concurrency, deadline, &ctx.cancel);
        ctx.progress.finish();
        let check_replies = sent.split_off(more.len());
        let mut not_found = not_found;
        for ((req, what), reply) in more.iter().zip(&sent) {
            if let Some(Ok(reply)) = reply {
                not_found.add(what, &req.path, reply);
            }
        }
        let mut replies: Vec<Option<Result<crate::client::Reply, BenchError>>> = planned
            .iter()
            .map(|(r, _)| cached(r).map(|reply| Ok(reply.clone())))
            .collect();
        for (i, reply) in to_send.iter().zip(check_replies) {
            replies[*i] = reply;
        }
        let with = request::Judge {
            not_found: &not_found,
            host: &target.host,
        };
        let mut findings: Vec<Finding> = Vec::new();
        let mut site_wide: Vec<(Finding, Vec<String>)> = Vec::new();
        let mut suppressed: Vec<String> = Vec::new();
        let mut failed: Vec<String> = Vec::new();
        let mut skipped = 0usize;
        for ((_, readers), reply) in planned.iter().zip(&replies) {
            match reply {
                None => skipped += 1,
                Some(Err(e)) => failed.push(e.to_string()),
                Some(Ok(reply)) => {
                    for (i, path) in readers {
                        let check = &catalog.checks[*i];
                        match request::judge(check, path, reply, &with) {
                            Verdict::Finding(f) if check.reads_headers_only() => {
                                request::add_site_wide(&mut site_wide, f, path)
                            }
                            Verdict::Finding(f) => findings.push(f),
                            Verdict::Suppressed(s) => suppressed.push(s),
                            Verdict::Clean => {}
                        }
                    }
                }
            }
        }
        findings.extend(site_wide.into_iter().map(request::site_wide_finding));
        if c.verbose {
            result.set_param(param::SUPPRESSED, suppressed);
        }
        // End-of-life versions named by any reply (the crawl's included).
        let as_of = c.as_of_day()?;
        result.set_param(param::AS_OF, crate::branches::date_text(as_of));
        let all_replies = replies
            .iter()
            .filter_map(|r| r.as_ref().and_then(|r| r.as_ref().ok()))
            .chain(crawl.pages.values());
        findings.extend(eol::judge(&eol::versions(all_replies), &catalog, as_of));
        if skipped > 0 && !ctx.cancel.is_cancelled() {
            result.warnings.push(format!(
                "--budget: {skipped} of {} requests not sent within {} s",
                requests.len(),
                c.budget.as_secs()
            ));
        }
        if let Some(first) = failed.first() {
            result.warnings.push(format!(
                "{} of {} requests failed, e.g.: {first}",
                failed.len(),
                requests.len()
            ));
        }
        let mut handshakes = 0;
        if c.probe_write && !ctx.cancel.is_cancelled() {
            let (put, delete) = (catalog.probe("write-put"), catalog.probe("write-delete"));
            if let (Some(put), Some(delete)) = (put, delete) {
                match request::write_probes(&client, put, delete, &mut seed) {
                    Ok(out) => {
                        findings.extend(out.findings);
                        result.warnings.extend(out.leftover);
                    }
                    Err(e) => result.warnings.push(format!("--probe-write: {e}")),
                }
            }
        }
        if target.scheme == Scheme::Https && !ctx.cancel.is_cancelled() {
            let out = tls::check(&client, &catalog);
            findings.extend(out.findings);
            findings.extend(tls::http_redirect(&client, &catalog, c.http_port));
            handshakes = out.handshakes;
            result.warnings.extend(out.warnings);
        }
        if c.local && !ctx.cancel.is_cancelled() {
            let out = local::check(target.port, &c.docroots, &catalog);
            findings.extend(out.findings);
            result.set_param(param::WORKERS, out.workers);
            result.set_param(param::LOOKED_AT, out.looked_at);
            result.warnings.extend(out.warnings);
        }
        findings.sort_by(|a, b| {
            b.severity
                .rank()
                .cmp(&a.severity.rank())
                .then_with(|| a.id.cmp(&b.id))
                .then_with(|| a.request.cmp(&b.request))
        });
        let families: Vec<&str> = catalog
            .families
            .iter()
            .map(|f| f.name.as_str())
            .filter(|f| *f != "local" || c.local)
            .filter(|f| *f != "tls" || target.scheme == Scheme::Https)
            .collect();
        result.set_param(param::FAMILIES, families);
        for s in Severity::ALL {
            let n = findings.iter().filter(|f| f.severity == *s).count();
            result.metrics.push(
                Metric::new(metric::FINDINGS, n as f64, Unit::Count, Better::Lower)
                    .label(label::SEVERITY, s.as_str()),
            );
        }
        result.metrics.push(Metric::new(
            metric::REQUESTS,
            client.sent() as f64,
            Unit::Count,
            Better::Lower,
        ));
        result.metrics.push(Metric::new(
            metric::PAGES_CRAWLED,
            crawl.pages.len() as f64,
            Unit::Count,
            Better::Higher,
        ));
        result.metrics.push(Metric::new(
            metric::TLS_HANDSHAKES,
            handshakes as f64,
            Unit::Count,
            Better::Lower,
        ));
        result.metrics.push(Metric::new(
            metric::SECONDS,
            started.elapsed().as_secs_f64(),
            Unit::Seconds,
            Better::Lower,
        ));
        result.set_param(param::FINDINGS, findings);
        if ctx.cancel.is_cancelled() {
            result.mark_cancelled();
        }
        ctx.record(result)?;
        Ok(())
    }
}
