//! `db.as3ap` results of a run printed together: per database, the target
//! and the settings read from it, the load (rows, seconds, rows/s, each
//! table and index), the single-user query table by the spec's query names,
//! and one row per multi-user test (queries/s of all users and of the
//! measured user, latency percentiles, errors, the restore of `updates`).
//!
//! Figures come from the results' metrics and parameters only.

use std::fmt::Write as _;

use nodebench_core::BenchResult;
use nodebench_core::names::db::{label, metric, param, test};

mod equivalent;
pub mod tpcc;

/// A parameter as text (strings without their quotes).
fn param_text(r: &BenchResult, key: &str) -> Option<String> {
    r.param(key).map(|v| match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    })
}

/// The value of metric `name` with `labels`.
fn value(r: &BenchResult, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    r.metric(name, labels).map(|m| m.value)
}

/// `v` with `digits` decimals, or empty.
fn fixed(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(String::new, |v| format!("{v:.digits$}"))
}

/// Seconds as milliseconds with three decimals, or empty.
fn ms(v: Option<f64>) -> String {
    v.map_or_else(String::new, |s| format!("{:.3}", s * 1e3))
}

/// The report of every `db.as3ap` result of a run, in order; a heading
/// each time the database (or its size, seed, users) changes.
pub fn report(results: &[&BenchResult]) -> String {
    let mut out = String::new();
    let mut heading = String::new();
    let mut multi_open = false;
    for r in results {
        let h = head(r);
        if h != heading {
            out.push_str(&h);
            heading = h;
            multi_open = false;
        }
        let phase = param_text(r, param::TEST).unwrap_or_default();
        match phase.as_str() {
            test::LOAD => {
                out.push_str(&load(r));
                multi_open = false;
            }
            test::SINGLE => {
                out.push_str(&single(r));
                multi_open = false;
            }
            test::EQUIVALENT_SIZE => {
                out.push_str(&equivalent::report(r));
                multi_open = false;
            }
            _ => {
                if !multi_open {
                    out.push_str(&multi_heading());
                    multi_open = true;
                }
                out.push_str(&multi_row(r, &phase));
            }
        }
    }
    out
}

/// The database, its size and users, and the settings read from it.
fn head(r: &BenchResult) -> String {
    let p = |k: &str| param_text(r, k).unwrap_or_default();
    let mut out = format!(
        "{} on {} ({}): {} rows per table ({} B), seed {}, {} users",
        r.benchmark,
        p(param::DB),
        p(param::SERVER_VERSION),
        p(param::ROWS_PER_TABLE),
        p(param::SIZE),
        p(param::SEED),
        p(param::USERS),
    );
    if param_text(r, param::REUSED).as_deref() == Some("true") {
        out.push_str(", tables reused (checked)");
    }
    let _ = write!(
        out,
        "\n  isolation: {}; cache: {}; durability: {}\n  indexes: {}\n",
        p(param::ISOLATION),
        p(param::CACHE),
        p(param::DURABILITY),
        p(param::INDEX_MAPPING)
    );
    out
}

/// `PHASE [status]` and the error or warnings of a result, if any.
fn status_line(r: &BenchResult, phase: &str, rest: &str) -> String {
    let mut out = format!("{phase} [{}]{rest}\n", r.status.as_str());
    if let Some(e) = &r.error {
        let _ = writeln!(out, "  error: {e}");
    }
    for w in &r.warnings {
        let _ = writeln!(out, "  warning: {w}");
    }
    out
}

/// The load: totals, then each table and each index.
fn load(r: &BenchResult) -> String {
    let all = [(label::TABLE, label::ALL)];
    let rows = value(r, metric::ROWS, &all);
    let secs = value(r, metric::LOAD_SECONDS, &all);
    let rate = value(r, metric::LOAD_ROWS_PER_SECOND, &all);
    let index_all = value(r, metric::INDEX_SECONDS, &[(label::INDEX, label::ALL)]);
    let rest = match (rows, secs) {
        (Some(n), Some(s)) => format!(
            ": {n:.0} rows in {s:.3} s, {} rows/s; indexes {} s",
            fixed(rate, 0),
            fixed(index_all, 3)
        ),
        _ => String::new(),
    };
    let mut out = status_line(r, test::LOAD, &rest);
    let tables: Vec<&str> = r
        .metrics_named(metric::ROWS)
        .filter_map(|m| m.labels.get(label::TABLE).map(String::as_str))
        .filter(|t| *t != label::ALL)
        .collect();
    if !tables.is_empty() {
        let _ = writeln!(out, "  {:<10} {:>12} {:>10}", "table", "rows", "seconds");
        for t in tables {
            let at = [(label::TABLE, t)];
            let _ = writeln!(
                out,
                "  {t:<10} {:>12} {:>10}",
                fixed(value(r, metric::ROWS, &at), 0),
                fixed(value(r, metric::LOAD_SECONDS, &at), 3)
            );
        }
    }
    let indexes: Vec<(&str, f64)> = r
        .metrics_named(metric::INDEX_SECONDS)
        .filter_map(|m| m.labels.get(label::INDEX).map(|i| (i.as_str(), m.value)))
        .filter(|(i, _)| *i != label::ALL)
        .collect();
    if !indexes.is_empty() {
        let width = indexes.iter().map(|(i, _)| i.len()).max().unwrap_or(0);
        let _ = writeln!(out, "  {:<width$} {:>10}", "index", "seconds");
        for (i, s) in indexes {
            let _ = writeln!(out, "  {i:<width$} {s:>10.3}");
        }
    }
    out
}

/// The single-user set: each query's seconds and rows by its spec name.
fn single(r: &BenchResult) -> String {
    let queries: Vec<(&str, f64)> = r
        .metrics_named(metric::QUERY_SECONDS)
        .filter_map(|m| m.labels.get(label::QUERY).map(|q| (q.as_str(), m.value)))
        .collect();
    let rest = format!(
        ": {} queries in {} s",
        queries.len(),
        fixed(value(r, metric::SECONDS, &[]), 3)
    );
    let mut out = status_line(r, test::SINGLE, &rest);
    if queries.is_empty() {
        return out;
    }
    let width = queries.iter().map(|(q, _)| q.len()).max().unwrap_or(0);
    let _ = writeln!(
        out,
        "  {:<width$} {:>12} {:>10} {:>10}",
        "test", "seconds", "rows", "expected"
    );
    for (q, s) in queries {
        let at = [(label::QUERY, q)];
        let _ = writeln!(
            out,
            "  {q:<width$} {s:>12.6} {:>10} {:>10}",
            fixed(value(r, metric::QUERY_ROWS, &at), 0),
            fixed(value(r, metric::QUERY_ROWS_EXPECTED, &at), 0)
        );
    }
    out
}

/// The heading of the multi-user rows.
fn multi_heading() -> String {
    format!(
        "multi-user tests (q/s all: every user, in the IR test; latency: the measured user's in the IR tests, the background users' in the cross-section tests)\n  {:<10} {:<9} {:>9} {:>12} {:>12} {:>14} {:>9} {:>9} {:>9} {:>10} {:>7} {:>10}\n",
        "test",
        "status",
        "seconds",
        "q/s all",
        "q/s measured",
        "q/s background",
        "p50 ms",
        "p90 ms",
        "p99 ms",
        "p99.9 ms",
        "errors",
        "restore s"
    )
}

/// One multi-user test's row, then its error and warnings.
fn multi_row(r: &BenchResult, phase: &str) -> String {
    fn user(u: &str) -> [(&str, &str); 1] {
        [(label::USER, u)]
    }
    let whose = if r
        .metric(metric::LATENCY_P50, &user(label::MEASURED))
        .is_some()
    {
        label::MEASURED
    } else {
        label::BACKGROUND
    };
    let pct = |name: &str| ms(value(r, name, &user(whose)));
    let errors: f64 = r.metrics_named(metric::ERRORS).map(|m| m.value).sum();
    let row = format!(
        "  {phase:<10} {:<9} {:>9} {:>12} {:>12} {:>14} {:>9} {:>9} {:>9} {:>10} {:>7} {:>10}",
        r.status.as_str(),
        fixed(value(r, metric::SECONDS, &[]), 3),
        fixed(value(r, metric::QUERIES_PER_SECOND, &user(label::ALL)), 1),
        fixed(
            value(r, metric::QUERIES_PER_SECOND, &user(label::MEASURED)),
            1
        ),
        fixed(
            value(r, metric::QUERIES_PER_SECOND, &user(label::BACKGROUND)),
            1
        ),
        pct(metric::LATENCY_P50),
        pct(metric::LATENCY_P90),
        pct(metric::LATENCY_P99),
        pct(metric::LATENCY_P999),
        errors,
        fixed(value(r, metric::RESTORE_SECONDS, &[]), 3),
    );
    let mut out = format!("{}\n", row.trim_end());
    let levels = |p: &str| r.param(p).and_then(|v| v.as_object());
    if let (Some(asked), Some(reported)) = (
        levels(param::ISOLATION_REQUESTED),
        levels(param::ISOLATION_REPORTED),
    ) {
        let effective = levels(param::ISOLATION_EFFECTIVE);
        fn text(v: Option<&serde_json::Value>) -> &str {
            v.and_then(|v| v.as_str()).unwrap_or("?")
        }
        let roles: Vec<String> = asked
            .iter()
            .filter(|(role, _)| role.as_str() == "ir_select" || role.as_str() == "oltp_update")
            .map(|(role, level)| {
                let got = text(reported.get(role));
                let gives = text(effective.and_then(|e| e.get(role)));
                if gives == got {
                    format!("{role} {} (reported {got})", text(Some(level)))
                } else {
                    format!(
                        "{role} {} (reported {got}, gives {gives})",
                        text(Some(level))
                    )
                }
            })
            .collect();
        if !roles.is_empty() {
            let _ = writeln!(out, "    isolation: {}", roles.join("; "));
        }
    }
    let by_kind: Vec<String> = r
        .metrics_named(metric::ERRORS)
        .filter(|m| m.value > 0.0)
        .filter_map(|m| {
            m.labels
                .get(label::KIND)
                .map(|k| format!("{k} {:.0}", m.value))
        })
        .collect();
    if !by_kind.is_empty() {
        let _ = writeln!(out, "    errors by kind: {}", by_kind.join(", "));
    }
    if let Some(e) = &r.error {
        let _ = writeln!(out, "    error: {e}");
    }
    for w in &r.warnings {
        let _ = writeln!(out, "    warning: {w}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::names::db::AS3AP;
    use nodebench_core::{Better, Metric, Unit};

    fn result(phase: &str) -> BenchResult {
        let mut r = BenchResult::new(AS3AP);
        r.set_param(param::TEST, phase);
        r.set_param(param::DB, "sqlite:/tmp/a.db");
        r.set_param(param::SERVER_VERSION, "SQLite 3.46.0");
        r.set_param(param::ROWS_PER_TABLE, 10_000);
        r.set_param(param::SIZE, 4_000_000);
        r.set_param(param::SEED, 1);
        r.set_param(param::USERS, 6);
        r.set_param(param::REUSED, false);
        r.set_param(param::ISOLATION, "serializable");
        r.set_param(param::CACHE, "cache_size=-65536 per connection");
        r.set_param(param::DURABILITY, "journal_mode=wal, synchronous=NORMAL");
        r.set_param(param::INDEX_MAPPING, "clustered: rowid");
        r
    }

    fn m(name: &str, v: f64, labels: &[(&str, &str)]) -> Metric {
        labels.iter().fold(
            Metric::new(name, v, Unit::Seconds, Better::Lower),
            |m, &(k, l)| m.label(k, l),
        )
    }

    #[test]
    fn load_single_and_multi_user_tests_print_as_tables() {
        let mut load = result(test::LOAD);
        load.metrics.extend([
            m(metric::ROWS, 10_000.0, &[(label::TABLE, "updates")]),
            m(metric::LOAD_SECONDS, 0.25, &[(label::TABLE, "updates")]),
            m(metric::ROWS, 40_001.0, &[(label::TABLE, label::ALL)]),
            m(metric::LOAD_SECONDS, 2.0, &[(label::TABLE, label::ALL)]),
            m(
                metric::LOAD_ROWS_PER_SECOND,
                20_000.5,
                &[(label::TABLE, label::ALL)],
            ),
            m(
                metric::INDEX_SECONDS,
                0.125,
                &[(label::INDEX, "as3ap_updates_code")],
            ),
            m(metric::INDEX_SECONDS, 0.5, &[(label::INDEX, label::ALL)]),
        ]);
        let mut single = result(test::SINGLE);
        single.metrics.extend([
            m(
                metric::QUERY_SECONDS,
                0.000125,
                &[(label::QUERY, "sel_1_cl")],
            ),
            m(metric::QUERY_ROWS, 1.0, &[(label::QUERY, "sel_1_cl")]),
            m(
                metric::QUERY_ROWS_EXPECTED,
                1.0,
                &[(label::QUERY, "sel_1_cl")],
            ),
            m(metric::SECONDS, 1.5, &[]),
        ]);
        let mut ir = result(test::IR);
        for (param, level) in [
            (param::ISOLATION_REQUESTED, "READ UNCOMMITTED"),
            (param::ISOLATION_REPORTED, "read uncommitted"),
            (param::ISOLATION_EFFECTIVE, "read committed"),
        ] {
            ir.set_param(param, serde_json::json!({ "ir_select": level }));
        }
        for (u, qps) in [
            (label::ALL, 6000.0),
            (label::MEASURED, 1000.0),
            (label::BACKGROUND, 5000.0),
        ] {
            ir.metrics
                .push(m(metric::QUERIES_PER_SECOND, qps, &[(label::USER, u)]));
        }
        ir.metrics.extend([
            m(metric::SECONDS, 5.0, &[]),
            m(
                metric::LATENCY_P50,
                0.0005,
                &[(label::USER, label::MEASURED)],
            ),
            m(
                metric::LATENCY_P999,
                0.002,
                &[(label::USER, label::MEASURED)],
            ),
            m(metric::LATENCY_P50, 0.9, &[(label::USER, label::ALL)]),
            m(metric::ERRORS, 0.0, &[(label::KIND, label::BUSY)]),
        ]);
        let mut oltp = result(test::IR_OLTP);
        oltp.metrics.extend([
            m(metric::ERRORS, 2.0, &[(label::KIND, label::BUSY)]),
            m(metric::ERRORS, 1.0, &[(label::KIND, label::OTHER)]),
            m(metric::RESTORE_SECONDS, 0.75, &[]),
        ]);
        oltp.mark_failed("restoring updates after ir-oltp: disk full");
        let text = report(&[&load, &single, &ir, &oltp]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "db.as3ap on sqlite:/tmp/a.db (SQLite 3.46.0): 10000 rows per table (4000000 B), seed 1, 6 users"
        );
        assert!(lines[1].contains("durability: journal_mode=wal"), "{text}");
        assert_eq!(
            lines[3],
            "load [passed]: 40001 rows in 2.000 s, 20000 rows/s; indexes 0.500 s"
        );
        assert!(
            text.contains("\n  updates           10000      0.250\n"),
            "{text}"
        );
        assert!(
            text.contains("\n  as3ap_updates_code      0.125\n"),
            "{text}"
        );
        assert!(
            text.contains("single [passed]: 1 queries in 1.500 s\n"),
            "{text}"
        );
        assert!(
            text.contains("\n  sel_1_cl     0.000125          1          1\n"),
            "{text}"
        );
        let ir_row = lines.iter().find(|l| l.starts_with("  ir ")).unwrap();
        let cells: Vec<&str> = ir_row.split_whitespace().collect();
        // The measured user's percentiles, not the background's 900 ms.
        assert_eq!(
            cells,
            [
                "ir", "passed", "5.000", "6000.0", "1000.0", "5000.0", "0.500", "2.000", "0"
            ]
        );
        assert!(
            text.contains("\n    isolation: ir_select READ UNCOMMITTED (reported read uncommitted, gives read committed)\n"),
            "{text}"
        );
        let oltp_row = lines.iter().find(|l| l.starts_with("  ir-oltp")).unwrap();
        assert!(
            oltp_row.contains(" failed ") && oltp_row.ends_with(" 3      0.750"),
            "{oltp_row}"
        );
        assert!(
            text.contains("    errors by kind: busy 2, other 1\n"),
            "{text}"
        );
        assert!(
            text.contains("    error: restoring updates after ir-oltp: disk full\n"),
            "{text}"
        );
        assert_eq!(text.matches("multi-user tests").count(), 1, "{text}");
    }
}
