//! The integration tests of `db`, one test binary (one link, one
//! process) with a module per area.

#[path = "../common/mod.rs"]
mod common;

mod as3ap_mysql;
mod as3ap_postgres;
mod as3ap_sqlite;
mod endpoint;
mod equivalent;
mod tpcc_mysql;
mod tpcc_postgres;
mod tpcc_sqlite;
