//! TPC-C on SQLite: a 1-warehouse load at the spec's scale has exactly
//! the spec's row counts (clause 4.3.3.1); on a small (scaled-down)
//! database the run passes its consistency checks, each transaction does
//! what the tables say, and planted corruption fails the checks.

use std::time::Duration;

use nodebench_core::ResultStatus;
use nodebench_core::names::db::tpcc::{table, test};
use nodebench_core::names::db::{label, metric};
use nodebench_db::engine::sqlite::SqliteConnector;
use nodebench_db::tpcc::TpccConfig;

use crate::common;
use common::tpcc::{self, of, value};

#[test]
fn one_warehouse_has_the_specs_row_counts() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite:{}", dir.path().join("tpcc.db").display());
    let rs = tpcc::run(TpccConfig {
        db: Some(db),
        users: 1,
        warmup: Duration::ZERO,
        duration: Duration::from_millis(300),
        ..TpccConfig::default()
    })
    .unwrap();
    let load = of(&rs, test::LOAD);
    assert_eq!(load.status, ResultStatus::Passed, "{:?}", load.error);
    for (t, n) in [
        (table::ITEM, 100_000.0),
        (table::WAREHOUSE, 1.0),
        (table::STOCK, 100_000.0),
        (table::DISTRICT, 10.0),
        (table::CUSTOMER, 30_000.0),
        (table::HISTORY, 30_000.0),
        (table::ORDERS, 30_000.0),
        (table::NEW_ORDER, 9_000.0),
    ] {
        assert_eq!(value(load, metric::ROWS, &[(label::TABLE, t)]), n, "{t}");
    }
    // 5 to 15 lines an order, averaging 10.
    let lines = value(load, metric::ROWS, &[(label::TABLE, table::ORDER_LINE)]);
    assert!((290_000.0..=310_000.0).contains(&lines), "{lines}");
    assert!(value(load, metric::LOAD_ROWS_PER_SECOND, &[]) > 0.0);
    let run = of(&rs, test::RUN);
    assert_eq!(run.status, ResultStatus::Passed, "{:?}", run.error);
}

#[test]
fn small_database_runs_transactions_and_checks_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("small.db");
    let db = format!("sqlite:{}", path.display());
    tpcc::load_and_run(&db, "sqlite");
    let connector = SqliteConnector { path };
    tpcc::transactions(&connector);
    tpcc::corruption(&connector, &db);
}
