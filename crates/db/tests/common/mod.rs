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
            assert!(
                std::env::var("CI").is_err(),
                "{var} is not set: scripts/test starts the server (scripts/db-servers start)"
            );
            eprintln!("{test}: skipped: {var} not set (scripts/db-servers start)");
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
        users: 3,
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
