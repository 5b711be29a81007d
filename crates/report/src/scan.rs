//! `http.scan` results: the findings grouped by severity (highest first),
//! each with its request, evidence and remediation, under a line with the
//! counts, the requests sent and the time taken.

use std::fmt::Write as _;

use nodebench_core::BenchResult;
use nodebench_core::config::Choice;
use nodebench_core::finding::{Severity, findings};
use nodebench_core::names::scan::{label, metric, param};

/// The value of metric `name` with `labels`, as a whole number.
fn count(r: &BenchResult, name: &str, labels: &[(&str, &str)]) -> u64 {
    r.metric(name, labels).map_or(0, |m| m.value.round() as u64)
}

/// The scan's report.
pub fn report(r: &BenchResult) -> String {
    let mut out = String::new();
    let w = &mut out;
    let url = r
        .param(param::URL)
        .and_then(|v| v.as_str())
        .unwrap_or_default();
    let counts: Vec<String> = Severity::ALL
        .iter()
        .rev()
        .map(|s| {
            let n = count(r, metric::FINDINGS, &[(label::SEVERITY, s.as_str())]);
            format!("{n} {s}")
        })
        .collect();
    let seconds = r.metric(metric::SECONDS, &[]).map_or(0.0, |m| m.value);
    let _ = writeln!(
        w,
        "{} [{}]  {url}: {}  ({} requests, {} TLS handshakes, {seconds:.1} s)",
        r.benchmark,
        r.status.as_str(),
        counts.join(", "),
        count(r, metric::REQUESTS, &[]),
        count(r, metric::TLS_HANDSHAKES, &[]),
    );
    if let Some(nf) = r.param(param::NOT_FOUND).and_then(|v| v.as_str()) {
        let _ = writeln!(w, "not found looks like: {nf}");
    }
    if let Some(crawled) = r.param(param::CRAWLED).and_then(|v| v.as_str()) {
        let _ = writeln!(w, "crawl: {crawled}");
    }
    if let Some(workers) = r.param(param::WORKERS).and_then(|v| v.as_array()) {
        let list: Vec<&str> = workers.iter().filter_map(|v| v.as_str()).collect();
        let _ = writeln!(
            w,
            "workers: {}",
            if list.is_empty() {
                "none found".to_string()
            } else {
                list.join(", ")
            }
        );
    }
    let all = findings(r);
    for s in Severity::ALL.iter().rev() {
        let group: Vec<_> = all.iter().filter(|f| f.severity == *s).collect();
        if group.is_empty() {
            continue;
        }
        let _ = writeln!(w, "\n{} ({})", s.as_str().to_uppercase(), group.len());
        for f in group {
            let status = f.status.map(|s| format!(" -> {s}")).unwrap_or_default();
            let _ = writeln!(w, "  [{}] {}", f.id, f.name);
            let _ = writeln!(w, "      request:  {}{status}", f.request);
            for (i, line) in f.evidence.lines().enumerate() {
                let head = if i == 0 { "evidence:" } else { "         " };
                let _ = writeln!(w, "      {head} {line}");
            }
            let _ = writeln!(w, "      fix:      {}", f.remediation);
        }
    }
    if all.is_empty() {
        let _ = writeln!(w, "no findings");
    }
    if let Some(list) = r.param(param::SUPPRESSED).and_then(|v| v.as_array()) {
        let _ = writeln!(w);
        for s in list.iter().filter_map(|v| v.as_str()) {
            let _ = writeln!(w, "suppressed (looks like not-found): {s}");
        }
    }
    for warning in &r.warnings {
        let _ = writeln!(w, "warning: {warning}");
    }
    if let Some(e) = &r.error {
        let _ = writeln!(w, "error: {e}");
    }
    out
}

#[cfg(test)]
mod tests {
    use nodebench_core::finding::Finding;
    use nodebench_core::model::{Better, Metric, Unit};

    use super::*;

    #[test]
    fn findings_print_grouped_by_severity_with_evidence_and_fix() {
        let mut r = BenchResult::new(nodebench_core::names::scan::SCAN);
        r.set_param(param::URL, "http://127.0.0.1:8080");
        let f = |id: &str, severity| Finding {
            id: id.into(),
            name: format!("{id} name"),
            severity,
            request: "GET /.env HTTP/1.1".into(),
            status: Some(200),
            evidence: "status 200\nsecond line".into(),
            remediation: "remove it".into(),
        };
        r.set_param(
            param::FINDINGS,
            vec![f("a.high", Severity::High), f("b.low", Severity::Low)],
        );
        for (s, n) in [("high", 1.0), ("low", 1.0), ("medium", 0.0), ("info", 0.0)] {
            r.metrics.push(
                Metric::new(metric::FINDINGS, n, Unit::Count, Better::Lower)
                    .label(label::SEVERITY, s),
            );
        }
        let text = report(&r);
        assert!(
            text.contains("http://127.0.0.1:8080: 1 high, 0 medium, 1 low, 0 info"),
            "{text}"
        );
        let high = text.find("HIGH (1)").unwrap();
        let low = text.find("LOW (1)").unwrap();
        assert!(high < low && !text.contains("MEDIUM"), "{text}");
        assert!(text.contains("      request:  GET /.env HTTP/1.1 -> 200\n      evidence: status 200\n                second line\n      fix:      remove it"), "{text}");
        assert!(!text.contains("suppressed"), "{text}");
        r.set_param(param::CRAWLED, "3 pages fetched, 2 directories, 1 files");
        r.set_param(
            param::SUPPRESSED,
            vec!["[default-content.env-file] GET /wiki/.env HTTP/1.1 -> 200"],
        );
        let text = report(&r);
        assert!(
            text.contains("crawl: 3 pages fetched, 2 directories, 1 files\n"),
            "{text}"
        );
        assert!(
            text.contains("suppressed (looks like not-found): [default-content.env-file] GET /wiki/.env HTTP/1.1 -> 200\n"),
            "{text}"
        );
    }
}
