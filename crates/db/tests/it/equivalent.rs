//! The equivalent-size search (`--time-limit`) on PostgreSQL (the server
//! `scripts/db-servers start` runs; NODEBENCH_TEST_POSTGRES): each trial
//! after the first drops the tables the one before left and loads its own
//! size; the results are the summary and the load and single-user results
//! of the trial at the equivalent size; existing tables without
//! `--recreate` stop the first trial with the plain run's error.

use std::time::Duration;

use nodebench_core::ResultStatus;
use nodebench_core::names::db::{label, metric, param, table, test};
use nodebench_db::config::{As3apConfig, Test};
use nodebench_db::engine::Connector;
use nodebench_db::engine::postgres::PostgresConnector;

use crate::common;
use common::{run, value};

#[test]
fn the_search_loads_each_size_anew_on_postgres() {
    let Some(url) = common::server("NODEBENCH_TEST_POSTGRES", "equivalent") else {
        return;
    };
    let c = As3apConfig {
        time_limit: Some(Duration::from_secs(10)),
        search_steps: 2,
        recreate: true,
        ..common::config(&url, vec![Test::Single])
    };
    let rs = run(c.clone()).unwrap();
    let phases: Vec<&str> = rs
        .iter()
        .map(|r| r.param(param::TEST).unwrap().as_str().unwrap())
        .collect();
    assert_eq!(phases, [test::EQUIVALENT_SIZE, test::LOAD, test::SINGLE]);
    for r in &rs {
        assert_eq!(r.status, ResultStatus::Passed, "{:?}", r.error);
        assert_eq!(r.param(param::ENGINE).unwrap(), "postgres");
    }
    let summary = &rs[0];
    let trial = |name: &str, i: &str| value(summary, name, &[(label::TRIAL, i)]);
    assert_eq!(trial(metric::TRIAL_ROWS_PER_TABLE, "1"), 10_000.0);
    // 10,000 rows per table load and run in a few seconds; the second
    // trial doubles.
    assert_eq!(trial(metric::TRIAL_WITHIN_LIMIT, "1"), 1.0);
    assert_eq!(trial(metric::TRIAL_ROWS_PER_TABLE, "2"), 20_000.0);
    let rows = value(summary, metric::EQUIVALENT_ROWS_PER_TABLE, &[]);
    assert_eq!(value(summary, metric::EQUIVALENT_SIZE, &[]), rows * 400.0);
    let load = &rs[1];
    assert_eq!(
        value(load, metric::ROWS, &[(label::TABLE, table::UPDATES)]),
        rows
    );
    // The tables left are the last trial's: 20,000 rows per table.
    let mut s = PostgresConnector::new(&url).unwrap().connect().unwrap();
    let left = s.fetch("SELECT count(*) FROM updates").unwrap();
    assert_eq!(left.first[0], Some(20_000));
    // Without --recreate the existing tables stop the first trial.
    let e = run(As3apConfig {
        recreate: false,
        ..c
    })
    .unwrap_err();
    assert!(e.contains("AS3AP tables already exist"), "{e}");
}
