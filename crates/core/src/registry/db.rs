//! The database area's benchmarks.

use super::catalog::{m, of, open};
use super::{Bottleneck, Descriptor, Report, fig};
use crate::model::Unit;
use crate::names::db;
use crate::names::latency::{
    LATENCY_MAX, LATENCY_MEAN, LATENCY_P50, LATENCY_P90, LATENCY_P99, LATENCY_P999,
};

/// AS3AP: `db as3ap`.
pub const AS3AP: Descriptor = Descriptor {
    id: db::AS3AP,
    command: &["db", "as3ap"],
    suite_step: true,
    metrics: &[
        m(db::metric::ROWS, Unit::Count),
        m(db::metric::LOAD_SECONDS, Unit::Seconds),
        m(db::metric::LOAD_ROWS_PER_SECOND, Unit::OpsPerSecond),
        m(db::metric::INDEX_SECONDS, Unit::Seconds),
        m(db::metric::PRELOAD_SECONDS, Unit::Seconds),
        m(db::metric::QUERIES_PER_SECOND, Unit::OpsPerSecond),
        m(db::metric::QUERIES, Unit::Count),
        m(db::metric::QUERY_SECONDS, Unit::Seconds),
        m(db::metric::QUERY_ROWS, Unit::Count),
        m(db::metric::STEP_SECONDS, Unit::Seconds),
        m(db::metric::STEP_ROWS, Unit::Count),
        m(db::metric::QUERY_ROWS_EXPECTED, Unit::Count),
        m(db::metric::REFUSED, Unit::Count),
        m(db::metric::ERRORS, Unit::Count),
        m(db::metric::OLTP_UPDATES, Unit::Count),
        m(db::metric::SIGNED_DELTA, Unit::Count),
        m(db::metric::RESTORE_SECONDS, Unit::Seconds),
        m(db::metric::SECONDS, Unit::Seconds),
        m(db::metric::EQUIVALENT_SIZE, Unit::Bytes),
        m(db::metric::EQUIVALENT_ROWS_PER_TABLE, Unit::Count),
        m(db::metric::SEARCH_SECONDS, Unit::Seconds),
        m(db::metric::TRIAL_SIZE, Unit::Bytes),
        m(db::metric::TRIAL_ROWS_PER_TABLE, Unit::Count),
        m(db::metric::TRIAL_SECONDS, Unit::Seconds),
        m(db::metric::TRIAL_WITHIN_LIMIT, Unit::Count),
        m(db::metric::TEST_SECONDS, Unit::Seconds),
        m(LATENCY_P50, Unit::Seconds),
        m(LATENCY_P90, Unit::Seconds),
        m(LATENCY_P99, Unit::Seconds),
        m(LATENCY_P999, Unit::Seconds),
        m(LATENCY_MEAN, Unit::Seconds),
        m(LATENCY_MAX, Unit::Seconds),
    ],
    labels: &[
        of(
            db::label::TABLE,
            &[
                db::table::UNIQUES,
                db::table::HUNDRED,
                db::table::TENPCT,
                db::table::UPDATES,
                db::table::TINY,
                db::label::ALL,
            ],
        ),
        // `as3ap_<table>_<column>`, or `all`.
        open(db::label::INDEX),
        // The AS3AP query names of the db crate's query sets.
        open(db::label::QUERY),
        // The statement of a single-user test.
        open(db::label::STEP),
        of(
            db::label::USER,
            &[db::label::ALL, db::label::MEASURED, db::label::BACKGROUND],
        ),
        of(
            db::label::KIND,
            &[db::label::BUSY, db::label::DEADLOCK, db::label::OTHER],
        ),
        // The equivalent-size search: its trials, numbered from 1, and
        // the phases timed at the equivalent size.
        open(db::label::TRIAL),
        of(
            db::label::TEST,
            &[
                db::test::LOAD,
                db::test::SINGLE,
                db::test::IR,
                db::test::IR_OLTP,
                db::test::CROSS_IR,
                db::test::CROSS_OLTP,
            ],
        ),
    ],
    headline: fig(db::metric::SECONDS, &[]),
    watched: Some(fig(
        db::metric::QUERIES_PER_SECOND,
        &[(db::label::USER, db::label::ALL)],
    )),
    scale_params: &[],
    workload_params: db::AS3AP_WORKLOAD_PARAMS,
    bottleneck: Bottleneck::None,
    report: Report::As3ap,
    charts: &[],
    chart_title: &[],
};

/// The TPC-C-derived OLTP workload: `db tpcc`.
pub const TPCC: Descriptor = Descriptor {
    id: db::TPCC,
    command: &["db", "tpcc"],
    suite_step: false,
    metrics: &[
        m(db::metric::ROWS, Unit::Count),
        m(db::metric::LOAD_SECONDS, Unit::Seconds),
        m(db::metric::LOAD_ROWS_PER_SECOND, Unit::OpsPerSecond),
        m(db::metric::INDEX_SECONDS, Unit::Seconds),
        m(db::metric::SECONDS, Unit::Seconds),
        m(db::tpcc::metric::NOPM, Unit::Count),
        m(db::tpcc::metric::TPM, Unit::Count),
        m(db::tpcc::metric::TRANSACTIONS, Unit::Count),
        m(
            db::tpcc::metric::TRANSACTIONS_PER_SECOND,
            Unit::OpsPerSecond,
        ),
        m(db::tpcc::metric::ROLLBACKS, Unit::Count),
        m(db::tpcc::metric::RETRIES, Unit::Count),
        m(db::tpcc::metric::FAILURES, Unit::Count),
        m(db::tpcc::metric::CHECK_PASSED, Unit::Count),
        m(LATENCY_P50, Unit::Seconds),
        m(LATENCY_P90, Unit::Seconds),
        m(LATENCY_P99, Unit::Seconds),
        m(LATENCY_P999, Unit::Seconds),
        m(LATENCY_MEAN, Unit::Seconds),
        m(LATENCY_MAX, Unit::Seconds),
    ],
    labels: &[
        of(
            db::label::TABLE,
            &[
                db::tpcc::table::WAREHOUSE,
                db::tpcc::table::DISTRICT,
                db::tpcc::table::CUSTOMER,
                db::tpcc::table::HISTORY,
                db::tpcc::table::NEW_ORDER,
                db::tpcc::table::ORDERS,
                db::tpcc::table::ORDER_LINE,
                db::tpcc::table::ITEM,
                db::tpcc::table::STOCK,
                db::label::ALL,
            ],
        ),
        // go-tpc's index names, `<table>_pkey` (PostgreSQL), or `all`.
        open(db::label::INDEX),
        of(
            db::tpcc::label::TXN,
            &[
                db::tpcc::txn::NEW_ORDER,
                db::tpcc::txn::PAYMENT,
                db::tpcc::txn::ORDER_STATUS,
                db::tpcc::txn::DELIVERY,
                db::tpcc::txn::STOCK_LEVEL,
                db::label::ALL,
            ],
        ),
        of(
            db::label::KIND,
            &[
                db::label::DEADLOCK,
                db::label::SERIALIZATION,
                db::label::BUSY,
            ],
        ),
        // The clause of 3.3.2 each condition is.
        open(db::tpcc::label::CHECK),
    ],
    headline: fig(db::tpcc::metric::NOPM, &[]),
    watched: None,
    scale_params: &[],
    workload_params: &[],
    bottleneck: Bottleneck::None,
    report: Report::Tpcc,
    charts: &[],
    chart_title: &[],
};
