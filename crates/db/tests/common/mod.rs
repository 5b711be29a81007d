//! What the AS3AP engine tests share: the small database they load, the
//! server URL from scripts/db-servers (skipped outside CI when unset, a
//! failure under CI), running the benchmark, and reading its results.

// Each test file uses its own part of this module.
#![allow(dead_code)]

use std::time::Duration;

use nodebench_core::BenchResult;
use nodebench_core::bench::{Cancel, collect};
use nodebench_core::inventory::Inventory;
use nodebench_core::names::db::param;
use nodebench_db::as3ap::As3ap;
use nodebench_db::config::{As3apConfig, Test};

/// The smallest database: 10,000 rows per table.
pub const SMALL: u64 = 4_000_000;

/// The URL in the environment variable `var` (set by scripts/test through
/// `scripts/db-servers start`), or `None` after saying so outside CI.
pub fn server(var: &str, test: &str) -> Option<String> {
    match std::env::var(var) {
        Ok(url) => Some(url),
        Err(_) => {
            let need = if var.contains("POSTGRES") {
                nodebench_core::test_require::need::POSTGRES
            } else {
                nodebench_core::test_require::need::MYSQL
            };
            nodebench_core::test_require::missing(
                test,
                need,
                &format!("{var} is not set"),
                "scripts/db-servers start",
            );
            None
        }
    }
}

/// A small, short run of `tests` on the database at `db` (a `--db` URL).
pub fn config(db: &str, tests: Vec<Test>) -> As3apConfig {
    As3apConfig {
        db: Some(db.to_string()),
        size: SMALL,
        tests,
        users: Some(3),
        warmup: Duration::from_millis(200),
        measure: Duration::from_millis(500),
        ..As3apConfig::default()
    }
}

/// Runs AS3AP with `c`; its results, or the error's text.
pub fn run(c: As3apConfig) -> Result<Vec<BenchResult>, String> {
    collect(&As3ap { config: c }, &Inventory::default(), Cancel::new()).map_err(|e| e.to_string())
}

/// The result of test `t` among `rs`.
pub fn of<'a>(rs: &'a [BenchResult], t: &str) -> &'a BenchResult {
    rs.iter()
        .find(|r| r.param(param::TEST).and_then(|v| v.as_str()) == Some(t))
        .unwrap_or_else(|| panic!("no {t} result"))
}

/// The value of metric `name` with `labels` in `r`.
pub fn value(r: &BenchResult, name: &str, labels: &[(&str, &str)]) -> f64 {
    r.metric(name, labels)
        .unwrap_or_else(|| panic!("no {name}{labels:?}"))
        .value
}

/// Checks the single-user result: every one of the paper's tests is
/// there with its rows equal to the rows the data implies, both
/// statements the paper requires refused were refused, and a few steps'
/// rows; prints the tests (for the record of a run).
pub fn check_single(single: &BenchResult, engine: &str) {
    use nodebench_core::names::db::{label, metric};
    assert_eq!(
        single.status,
        nodebench_core::ResultStatus::Passed,
        "{:?} {:?}",
        single.error,
        single.warnings
    );
    let mut listed = Vec::new();
    for t in nodebench_db::single::TESTS {
        let at = [(label::QUERY, t)];
        let rows = value(single, metric::QUERY_ROWS, &at);
        assert_eq!(rows, value(single, metric::QUERY_ROWS_EXPECTED, &at), "{t}");
        assert!(value(single, metric::QUERY_SECONDS, &at) >= 0.0, "{t}");
        listed.push(format!("{t}={rows}"));
    }
    assert_eq!(listed.len(), 37);
    // The data-dependent counts, from the generator (10,000 rows, seed 1).
    let facts = nodebench_db::expect::Facts::of(10_000, 1);
    for (t, want) in [
        ("subtotal_report", facts.report_rows),
        ("sel_10pct_cl", facts.uniques_key_tenth),
        ("proj_10pct", facts.tenpct_signed_values),
        ("join_1_10", facts.join_1_10),
    ] {
        assert_eq!(
            value(single, metric::QUERY_ROWS, &[(label::QUERY, t)]),
            want as f64,
            "{t}"
        );
    }
    eprintln!("{engine}: single-user tests (rows): {}", listed.join(" "));
    for (t, step, rows) in [
        ("refer_integrity", "integrity_test", 0.0),
        ("append_duplicate", "append_duplicate", 0.0),
        ("bulk_append", "bulk_append", 1000.0),
        ("bulk_modify", "bulk_modify", 1000.0),
        ("update_key", "del_t_end", 1.0),
        ("update_alpha", "mod_t_cod", 1.0),
        ("join_2", "join_2", 1.0),
        ("o_mode_100k", "o_mode_100k_file", 1000.0),
        ("o_mode_1k", "o_mode_1k_relation", 10.0),
        ("subtotal_report", "create_view", 0.0),
    ] {
        let at = [(label::QUERY, t), (label::STEP, step)];
        assert_eq!(value(single, metric::STEP_ROWS, &at), rows, "{t} {step}");
    }
    for (t, step) in [
        ("refer_integrity", "integrity_test"),
        ("append_duplicate", "append_duplicate"),
    ] {
        let at = [(label::QUERY, t), (label::STEP, step)];
        assert_eq!(value(single, metric::REFUSED, &at), 1.0, "{t} {step}");
    }
}

/// The isolation levels a multi-user result recorded: (requested,
/// reported, effective) of `role`.
pub fn isolation(r: &BenchResult, role: &str) -> (String, String, String) {
    use nodebench_core::names::db::param;
    let get = |p: &str| {
        r.param(p)
            .and_then(|v| v.get(role))
            .and_then(|v| v.as_str())
            .unwrap_or_else(|| panic!("no {p}.{role}"))
            .to_string()
    };
    (
        get(param::ISOLATION_REQUESTED),
        get(param::ISOLATION_REPORTED),
        get(param::ISOLATION_EFFECTIVE),
    )
}
pub mod tpcc;
