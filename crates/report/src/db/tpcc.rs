//! `db.tpcc` results of a run printed together: per database, the scale
//! and the settings read from it, the load (rows, rows/s, each index),
//! then the run: NOPM and TPM, one row per transaction (count, per second,
//! latency percentiles, failures), rollbacks and retries by kind, the
//! consistency conditions. Figures come from the results only.

use std::fmt::Write as _;

use nodebench_core::BenchResult;
use nodebench_core::names::db::tpcc::{label as tlabel, metric as tmetric, param as tparam, txn};
use nodebench_core::names::db::{label, metric, param, tpcc::test};

use super::{fixed, ms, param_text, status_line, value};

/// The transactions, in the order the table lists them.
const TXNS: [&str; 5] = [
    txn::NEW_ORDER,
    txn::PAYMENT,
    txn::ORDER_STATUS,
    txn::DELIVERY,
    txn::STOCK_LEVEL,
];

/// The report of every `db.tpcc` result of a run, in order.
pub fn report(results: &[&BenchResult]) -> String {
    let mut out = String::new();
    let mut heading = String::new();
    for r in results {
        let h = head(r);
        if h != heading {
            out.push_str(&h);
            heading = h;
        }
        match param_text(r, param::TEST).as_deref() {
            Some(test::LOAD) => out.push_str(&load(r)),
            _ => out.push_str(&run(r)),
        }
    }
    out
}

/// The database, scale, terminals and settings.
fn head(r: &BenchResult) -> String {
    let p = |k: &str| param_text(r, k).unwrap_or_default();
    let mut out = format!(
        "{} on {} ({}): {} warehouses, {} users, isolation {}\n  cache: {}; durability: {}\n  TPC-C-derived, not audited, not comparable to published TPC-C results\n",
        r.benchmark,
        p(param::DB),
        p(param::SERVER_VERSION),
        p(tparam::WAREHOUSES),
        p(param::USERS),
        p(param::ISOLATION),
        p(param::CACHE),
        p(param::DURABILITY),
    );
    if p(param::REUSED) == "true" {
        out.push_str("  tables reused (checked)\n");
    }
    out
}

/// The load's totals and index times.
fn load(r: &BenchResult) -> String {
    let all = [(label::TABLE, label::ALL)];
    let rest = format!(
        ": {} rows in {} s, {} rows/s; indexes {} s",
        fixed(value(r, metric::ROWS, &all), 0),
        fixed(value(r, metric::LOAD_SECONDS, &all), 3),
        fixed(value(r, metric::LOAD_ROWS_PER_SECOND, &all), 0),
        fixed(
            value(r, metric::INDEX_SECONDS, &[(label::INDEX, label::ALL)]),
            3
        ),
    );
    let mut out = status_line(r, test::LOAD, &rest);
    for m in r.metrics_named(metric::INDEX_SECONDS) {
        if let Some(i) = m.labels.get(label::INDEX).filter(|i| *i != label::ALL) {
            let _ = writeln!(out, "  index {i}: {:.3} s", m.value);
        }
    }
    out
}

/// The run: NOPM, TPM, the transactions, retries, checks.
fn run(r: &BenchResult) -> String {
    let rest = format!(
        ": NOPM {}, TPM {} over {} s",
        fixed(value(r, tmetric::NOPM, &[]), 0),
        fixed(value(r, tmetric::TPM, &[]), 0),
        fixed(value(r, metric::SECONDS, &[]), 1),
    );
    let mut out = status_line(r, test::RUN, &rest);
    let _ = writeln!(
        out,
        "  {:<13} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8}",
        "transaction", "count", "per s", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "failed"
    );
    for t in TXNS {
        let at = [(tlabel::TXN, t)];
        let _ = writeln!(
            out,
            "  {:<13} {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>8}",
            t,
            fixed(value(r, tmetric::TRANSACTIONS, &at), 0),
            fixed(value(r, tmetric::TRANSACTIONS_PER_SECOND, &at), 1),
            ms(value(r, metric::LATENCY_P50, &at)),
            ms(value(r, metric::LATENCY_P90, &at)),
            ms(value(r, metric::LATENCY_P99, &at)),
            ms(value(r, metric::LATENCY_P999, &at)),
            fixed(value(r, tmetric::FAILURES, &at), 0),
        );
    }
    let retries: Vec<String> = r
        .metrics_named(tmetric::RETRIES)
        .filter_map(|m| Some(format!("{} {:.0}", m.labels.get(label::KIND)?, m.value)))
        .collect();
    let _ = writeln!(
        out,
        "  rollbacks (New-Order's unused item) {}; retries: {}",
        fixed(value(r, tmetric::ROLLBACKS, &[]), 0),
        retries.join(", ")
    );
    let checks: Vec<String> = r
        .metrics_named(tmetric::CHECK_PASSED)
        .filter_map(|m| {
            let c = m.labels.get(tlabel::CHECK)?;
            Some(format!(
                "{c} {}",
                if m.value == 1.0 { "ok" } else { "FAILED" }
            ))
        })
        .collect();
    if !checks.is_empty() {
        let _ = writeln!(out, "  consistency: {}", checks.join(", "));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::{Better, Metric, Unit};

    #[test]
    fn prints_nopm_the_transactions_and_the_checks() {
        let mut r = BenchResult::new(nodebench_core::names::db::TPCC);
        r.set_param(param::TEST, test::RUN);
        r.set_param(tparam::WAREHOUSES, 2);
        let m = |n: &str, v: f64| Metric::new(n, v, Unit::Count, Better::Higher);
        r.metrics.push(m(tmetric::NOPM, 30_000.0));
        r.metrics.push(m(tmetric::TPM, 66_000.0));
        r.metrics
            .push(m(tmetric::TRANSACTIONS, 5000.0).label(tlabel::TXN, txn::NEW_ORDER));
        r.metrics
            .push(m(metric::LATENCY_P50, 0.0012).label(tlabel::TXN, txn::NEW_ORDER));
        r.metrics
            .push(m(tmetric::CHECK_PASSED, 0.0).label(tlabel::CHECK, "3.3.2.1"));
        let text = report(&[&r]);
        assert!(text.contains("NOPM 30000, TPM 66000"), "{text}");
        assert!(text.contains("new_order"), "{text}");
        assert!(text.contains("1.200"), "{text}");
        assert!(text.contains("3.3.2.1 FAILED"), "{text}");
        assert!(text.contains("not comparable to published TPC-C results"));
    }
}
