//! TPC-C on MariaDB/MySQL (the server `scripts/db-servers start` runs; its URL in
//! NODEBENCH_TEST_MYSQL): a small (scaled-down) load and run pass the
//! consistency checks, each transaction does what the tables say, planted
//! corruption fails the checks and `--reuse`. Without the variable the
//! test says it skipped, and fails under CI (CI=true).

use nodebench_db::engine::mysql::MysqlConnector;

use crate::common;
use common::tpcc;

#[test]
fn small_database_runs_transactions_and_checks_on_mysql() {
    let Some(url) = common::server("NODEBENCH_TEST_MYSQL", "tpcc_mysql") else {
        return;
    };
    tpcc::load_and_run(&url, "mysql");
    let connector = MysqlConnector::new(&url).unwrap();
    tpcc::transactions(&connector);
    tpcc::corruption(&connector, &url);
}
