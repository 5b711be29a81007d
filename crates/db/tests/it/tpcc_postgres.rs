//! TPC-C on PostgreSQL (the server `scripts/db-servers start` runs; its URL in
//! NODEBENCH_TEST_POSTGRES): a small (scaled-down) load and run pass the
//! consistency checks, each transaction does what the tables say, planted
//! corruption fails the checks and `--reuse`. Without the variable the
//! test says it skipped, and fails under CI (CI=true).

use nodebench_db::engine::postgres::PostgresConnector;

use crate::common;
use common::tpcc;

#[test]
fn small_database_runs_transactions_and_checks_on_postgres() {
    let Some(url) = common::server("NODEBENCH_TEST_POSTGRES", "tpcc_postgres") else {
        return;
    };
    tpcc::load_and_run(&url, "postgres");
    let connector = PostgresConnector::new(&url).unwrap();
    tpcc::transactions(&connector);
    tpcc::corruption(&connector, &url);
}
