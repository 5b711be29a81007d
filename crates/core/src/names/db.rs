//! Names of the database benchmarks' results.

/// Benchmark id of sysbench's OLTP scripts (`oltp_read_write`,
/// `oltp_read_only`...), imported from their output; the figures are the
/// [`super::sysbench`] names.
pub const SYSBENCH_OLTP: &str = "db.sysbench_oltp";

/// Benchmark id of the AS3AP benchmark (`nodebench db as3ap`): the load,
/// the single-user query set and the multi-user tests, one result each.
pub const AS3AP: &str = "db.as3ap";

/// The AS3AP phases and multi-user tests, by the names `--tests` takes and
/// the [`label::TEST`] label and [`param::TEST`] parameter hold.
pub mod test {
    /// Generating and loading the tables, then building the indexes.
    pub const LOAD: &str = "load";
    /// The single-user query set, each query timed.
    pub const SINGLE: &str = "single";
    /// IR throughput with IR background: every user runs `ir_select`.
    pub const IR: &str = "ir";
    /// IR throughput with OLTP background: one user `ir_select`, the others
    /// `oltp_update`.
    pub const IR_OLTP: &str = "ir-oltp";
    /// Cross-section with IR background.
    pub const CROSS_IR: &str = "cross-ir";
    /// Cross-section with OLTP background.
    pub const CROSS_OLTP: &str = "cross-oltp";
    /// The spec's metric (`--time-limit`): the search for the equivalent
    /// database size, one result summing up its trials.
    pub const EQUIVALENT_SIZE: &str = "equivalent-size";
}

/// The AS3AP tables (the [`label::TABLE`] label).
pub mod table {
    /// Every column has unique values.
    pub const UNIQUES: &str = "uniques";
    /// Most columns have 100 distinct values.
    pub const HUNDRED: &str = "hundred";
    /// Most columns have distinct values on 10 % of the rows.
    pub const TENPCT: &str = "tenpct";
    /// Like uniques, the target of updates, with the most indexes.
    pub const UPDATES: &str = "updates";
    /// One row, one column.
    pub const TINY: &str = "tiny";
}

/// Metric (and histogram) names.
pub mod metric {
    pub use crate::names::latency::{
        LATENCY_MAX, LATENCY_MEAN, LATENCY_P50, LATENCY_P90, LATENCY_P99, LATENCY_P999,
    };
    /// Rows loaded (all tables, or one with the `table` label).
    pub const ROWS: &str = "rows";
    /// Seconds the rows took to stream in, with each table's clustered
    /// (primary) key: without the secondary indexes.
    pub const LOAD_SECONDS: &str = "load_seconds";
    /// Rows loaded per second.
    pub const LOAD_ROWS_PER_SECOND: &str = "load_rows_per_second";
    /// Seconds the secondary indexes took to build (all, or one with the
    /// `index` label).
    pub const INDEX_SECONDS: &str = "index_seconds";
    /// Seconds reading the indexes and tables of the multi-user tests into
    /// the cache.
    pub const PRELOAD_SECONDS: &str = "preload_seconds";
    /// Queries per second of a multi-user test (`user` label: all or measured).
    pub const QUERIES_PER_SECOND: &str = "queries_per_second";
    /// Queries completed in the measured window (`user` label).
    pub const QUERIES: &str = "queries";
    /// Latency of the measured user's queries (the histogram's name).
    pub const LATENCY: &str = "latency";
    /// Seconds one query took (`query` label): the single-user set and the
    /// cross-section.
    pub const QUERY_SECONDS: &str = "query_seconds";
    /// Rows a query returned or changed (`query` label).
    pub const QUERY_ROWS: &str = "query_rows";
    /// Seconds one statement of a single-user test took (`query` label:
    /// the test, `step` label: the statement).
    pub const STEP_SECONDS: &str = "step_seconds";
    /// Rows one statement of a single-user test returned or changed.
    pub const STEP_ROWS: &str = "step_rows";
    /// The rows the generated data implies for a test (`query` label):
    /// [`QUERY_ROWS`] must equal it, else the result fails.
    pub const QUERY_ROWS_EXPECTED: &str = "query_rows_expected";
    /// 1 where the engine refused a statement the paper requires it to
    /// refuse (a duplicate key, a foreign-key violation), for that reason.
    pub const REFUSED: &str = "refused";
    /// Statements that failed, by kind (`kind` label).
    pub const ERRORS: &str = "errors";
    /// `oltp_update` statements completed during a test (warm-up included).
    pub const OLTP_UPDATES: &str = "oltp_updates";
    /// How much `sum(col_signed)` of `updates` grew during an OLTP test:
    /// equals [`OLTP_UPDATES`] when every completed update took effect.
    pub const SIGNED_DELTA: &str = "signed_delta";
    /// Seconds restoring the `updates` table after an OLTP test took.
    pub const RESTORE_SECONDS: &str = "restore_seconds";
    /// Seconds the whole test (or query set) measured.
    pub const SECONDS: &str = "seconds";
    /// The spec's metric: the largest logical database size (4 tables of
    /// N 100-byte rows) whose timed tests finished within `--time-limit`.
    pub const EQUIVALENT_SIZE: &str = "equivalent_size";
    /// Rows per table of [`EQUIVALENT_SIZE`].
    pub const EQUIVALENT_ROWS_PER_TABLE: &str = "equivalent_rows_per_table";
    /// Seconds the whole search for the equivalent size took.
    pub const SEARCH_SECONDS: &str = "search_seconds";
    /// Logical database size of one trial of the search (`trial` label).
    pub const TRIAL_SIZE: &str = "trial_size";
    /// Rows per table of one trial (`trial` label).
    pub const TRIAL_ROWS_PER_TABLE: &str = "trial_rows_per_table";
    /// Seconds one trial's timed tests took, load included (`trial` label);
    /// a trial is stopped soon after the limit.
    pub const TRIAL_SECONDS: &str = "trial_seconds";
    /// 1 where the trial finished within the limit, else 0 (`trial` label).
    pub const TRIAL_WITHIN_LIMIT: &str = "trial_within_limit";
    /// Seconds each timed phase took at the equivalent size (`test` label:
    /// load, single, a multi-user test).
    pub const TEST_SECONDS: &str = "test_seconds";
}

/// Label keys and values.
pub mod label {
    /// The phase or multi-user test ([`super::test`]).
    pub const TEST: &str = "test";
    /// The table ([`super::table`]).
    pub const TABLE: &str = "table";
    /// The index.
    pub const INDEX: &str = "index";
    /// The query, by the AS3AP name.
    pub const QUERY: &str = "query";
    /// The statement of a single-user test (`step_seconds`, `step_rows`).
    pub const STEP: &str = "step";
    /// Whose queries: [`ALL`] users, the [`MEASURED`] one or the
    /// [`BACKGROUND`] ones.
    pub const USER: &str = "user";
    /// Every user (or table, or index) together.
    pub const ALL: &str = "all";
    /// The one measured user (user 0).
    pub const MEASURED: &str = "measured";
    /// The users other than the measured one.
    pub const BACKGROUND: &str = "background";
    /// An error's kind ([`BUSY`], [`DEADLOCK`], [`OTHER`]).
    pub const KIND: &str = "kind";
    /// The engine said the table or row was locked and the wait timed out.
    pub const BUSY: &str = "busy";
    /// The engine broke a deadlock by failing this statement.
    pub const DEADLOCK: &str = "deadlock";
    /// The engine could not serialize the transaction (PostgreSQL's
    /// serialization failure).
    pub const SERIALIZATION: &str = "serialization";
    /// Any other failure.
    pub const OTHER: &str = "other";
    /// One trial of the equivalent-size search, numbered from 1.
    pub const TRIAL: &str = "trial";
}

/// Parameter names.
pub mod param {
    /// The phase or test this result is ([`super::test`]).
    pub const TEST: &str = "test";
    /// The target, with any password removed.
    pub const DB: &str = "db";
    /// The engine: sqlite, mysql, postgres.
    pub const ENGINE: &str = "engine";
    /// The server's (or library's) version.
    pub const SERVER_VERSION: &str = "server_version";
    /// Database size asked for (`--size`), bytes.
    pub const SIZE: &str = "size";
    /// Rows per table (the size over 4 tables of 100-byte rows).
    pub const ROWS_PER_TABLE: &str = "rows_per_table";
    /// Seed of the data generator.
    pub const SEED: &str = "seed";
    /// Users (connections, one thread each): `--users`, else the paper's
    /// database size / 4 MB (at least 1).
    pub const USERS: &str = "users";
    /// Warm-up before the measurement.
    pub const WARMUP: &str = "warmup";
    /// Measurement window.
    pub const MEASURE: &str = "measure";
    /// Whether the tables were kept from an earlier run (`--reuse`).
    pub const REUSED: &str = "reused";
    /// The transaction isolation level.
    pub const ISOLATION: &str = "isolation";
    /// The isolation level each role of a multi-user test asked for
    /// (`ir_select`: READ UNCOMMITTED, the paper's level 0; `oltp_update`:
    /// SERIALIZABLE, level 3; each cross-section query its Table 8.1
    /// level): an object, role to level.
    pub const ISOLATION_REQUESTED: &str = "isolation_requested";
    /// What the engine reported for each role's connections after the
    /// level was set (its own words): an object, role to level.
    pub const ISOLATION_REPORTED: &str = "isolation_reported";
    /// What the engine gives for each role where it differs from the
    /// report (PostgreSQL runs READ UNCOMMITTED as READ COMMITTED; SQLite
    /// reads uncommitted rows only in shared-cache mode): role to level.
    pub const ISOLATION_EFFECTIVE: &str = "isolation_effective";
    /// Cache size setting (SQLite `cache_size`, InnoDB buffer pool,
    /// shared_buffers).
    pub const CACHE: &str = "cache";
    /// Durability setting (SQLite `synchronous` and journal mode, fsync,
    /// innodb_flush_log_at_trx_commit).
    pub const DURABILITY: &str = "durability";
    /// How the spec's clustered / hash / B-tree indexes were built here.
    pub const INDEX_MAPPING: &str = "index_mapping";
    /// The limit the equivalent-size search held each trial to
    /// (`--time-limit`), seconds: the paper's 12 hours scaled down.
    pub const TIME_LIMIT: &str = "time_limit";
    /// Most trials the search may run (`--search-steps`).
    pub const SEARCH_STEPS: &str = "search_steps";
    /// The phases each trial timed: the load, then `--tests`.
    pub const TIMED_TESTS: &str = "timed_tests";
    /// What the search found ([`super::bound`]).
    pub const EQUIVALENT: &str = "equivalent";
}

/// Values of [`param::EQUIVALENT`].
pub mod bound {
    /// A size fit and the next larger size tried missed: the equivalent
    /// size to the search's resolution.
    pub const FOUND: &str = "found";
    /// Every size tried fit (the steps or the largest size ran out): the
    /// equivalent size is at least this.
    pub const AT_LEAST: &str = "at least";
    /// No size tried fit, the smallest one included.
    pub const NONE: &str = "none";
}

/// The parameters that define an AS3AP workload: results compare only
/// where these agree (the `test` label tells the phases apart).
pub const AS3AP_WORKLOAD_PARAMS: &[&str] = &[param::ENGINE, param::ROWS_PER_TABLE, param::USERS];

/// Benchmark id of the TPC-C-derived OLTP workload (`nodebench db tpcc`):
/// the load and the timed run, one result each. TPC-C-derived, not
/// audited, not comparable to published TPC-C results.
pub const TPCC: &str = "db.tpcc";

/// Names of `db.tpcc`'s results beyond the AS3AP ones it shares
/// ([`metric::ROWS`], [`metric::LOAD_SECONDS`], [`metric::INDEX_SECONDS`],
/// the latency percentiles, [`label::TABLE`], [`label::INDEX`],
/// [`label::KIND`]...).
pub mod tpcc {
    /// The phases ([`super::param::TEST`]).
    pub mod test {
        /// Generating and loading the nine tables, then the indexes.
        pub const LOAD: &str = super::super::test::LOAD;
        /// The timed run of the transaction mix, then the consistency checks.
        pub const RUN: &str = "run";
    }

    /// The nine tables, by the spec's names (the `table` label).
    pub mod table {
        /// WAREHOUSE.
        pub const WAREHOUSE: &str = "warehouse";
        /// DISTRICT.
        pub const DISTRICT: &str = "district";
        /// CUSTOMER.
        pub const CUSTOMER: &str = "customer";
        /// HISTORY.
        pub const HISTORY: &str = "history";
        /// NEW-ORDER.
        pub const NEW_ORDER: &str = "new_order";
        /// ORDER.
        pub const ORDERS: &str = "orders";
        /// ORDER-LINE.
        pub const ORDER_LINE: &str = "order_line";
        /// ITEM.
        pub const ITEM: &str = "item";
        /// STOCK.
        pub const STOCK: &str = "stock";
    }

    /// The five transactions (the [`label::TXN`] label).
    pub mod txn {
        /// New-Order (clause 2.4).
        pub const NEW_ORDER: &str = "new_order";
        /// Payment (clause 2.5).
        pub const PAYMENT: &str = "payment";
        /// Order-Status (clause 2.6).
        pub const ORDER_STATUS: &str = "order_status";
        /// Delivery (clause 2.7).
        pub const DELIVERY: &str = "delivery";
        /// Stock-Level (clause 2.8).
        pub const STOCK_LEVEL: &str = "stock_level";
    }

    /// Metric and series names.
    pub mod metric {
        /// New-Order transactions completed per minute of the measured
        /// window (HammerDB's NOPM, go-tpc's tpmC).
        pub const NOPM: &str = "nopm";
        /// Transactions of every kind completed per minute.
        pub const TPM: &str = "tpm";
        /// Transactions completed in the window (`txn` label).
        pub const TRANSACTIONS: &str = "transactions";
        /// Transactions completed per second (`txn` label).
        pub const TRANSACTIONS_PER_SECOND: &str = "transactions_per_second";
        /// New-Orders rolled back on purpose (the 1 % with an unused item).
        pub const ROLLBACKS: &str = "rollbacks";
        /// Transactions retried after the engine failed them (`kind`
        /// label: deadlock, serialization, busy).
        pub const RETRIES: &str = "retries";
        /// Transactions that failed for good (`kind` label).
        pub const FAILURES: &str = "failures";
        /// Consistency conditions checked after the run (`check` label),
        /// 1 where it held, else 0.
        pub const CHECK_PASSED: &str = "check_passed";
    }

    /// Series names (not metrics: thresholds judge no series).
    pub mod series {
        /// Transactions completed in each second of the window (`txn`
        /// label, `all` for every kind).
        pub const PER_SECOND: &str = "transactions_per_second_series";
    }

    /// Label keys and values.
    pub mod label {
        /// The transaction ([`super::txn`]), or `all`.
        pub const TXN: &str = "txn";
        /// The consistency condition, by clause (`3.3.2.1` ...).
        pub const CHECK: &str = "check";
    }

    /// Parameter names.
    pub mod param {
        /// Warehouses (`--warehouses`).
        pub const WAREHOUSES: &str = "warehouses";
        /// Items in ITEM and stock rows per warehouse (100,000 by the spec;
        /// fewer only through the test-only scale knob).
        pub const ITEMS: &str = "items";
        /// Customers per district (3,000 by the spec).
        pub const CUSTOMERS_PER_DISTRICT: &str = "customers_per_district";
        /// Whether the spec's keying and think times ran (`--spec-timing`).
        pub const SPEC_TIMING: &str = "spec_timing";
        /// The constant C of NURand for C_LAST at load time.
        pub const C_LAST_LOAD: &str = "c_last_load";
        /// The constants C of the run (C_LAST, C_ID, OL_I_ID).
        pub const C_RUN: &str = "c_run";
        /// The transaction mix, percent (an object, txn to percent).
        pub const MIX: &str = "mix";
        /// Most retries of one transaction.
        pub const MAX_RETRIES: &str = "max_retries";
    }
}
