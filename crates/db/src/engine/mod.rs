//! What the benchmark needs from a database engine: a [`Connector`] that
//! opens one [`Session`] per user, and the session's statements (the load,
//! the prepared `ir_select` and `oltp_update`, plain SQL for the query
//! set). Errors carry the kind the multi-user tests count.

pub mod mysql;
pub mod postgres;
pub mod sql;
pub mod sqlite;

use nodebench_core::bench::Cancel;
use nodebench_core::names::db::label;

use crate::data::{Row, Table};
use crate::schema::Index;

/// How a statement failed, as the multi-user tests count it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// A lock wait timed out (SQLite busy/locked, lock wait timeout).
    Busy,
    /// The engine broke a deadlock by failing this statement.
    Deadlock,
    /// The engine could not serialize the transaction (PostgreSQL's
    /// serialization failure at REPEATABLE READ and above).
    Serialization,
    /// Anything else.
    Other,
}

impl ErrorKind {
    /// The `kind` label's value.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::Busy => label::BUSY,
            ErrorKind::Deadlock => label::DEADLOCK,
            ErrorKind::Serialization => label::SERIALIZATION,
            ErrorKind::Other => label::OTHER,
        }
    }
}

/// A failed statement or connection: its kind and the engine's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DbError {
    /// What kind of failure.
    pub kind: ErrorKind,
    /// The engine's message.
    pub message: String,
}

impl std::fmt::Display for DbError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl DbError {
    /// An error of kind [`ErrorKind::Other`].
    pub fn other(message: impl Into<String>) -> DbError {
        DbError {
            kind: ErrorKind::Other,
            message: message.into(),
        }
    }
}

/// The rows a query returned and its first row as integers (a NULL or
/// non-integer column is `None`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fetched {
    /// Rows returned.
    pub rows: u64,
    /// The first row's columns.
    pub first: Vec<Option<i64>>,
}

/// The row `ir_select` reads from `updates`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IrRow {
    /// `col_key`.
    pub key: i64,
    /// `col_code`.
    pub code: String,
    /// `col_date`, `YYYY-MM-DD HH:MM:SS`.
    pub date: String,
    /// `col_signed`.
    pub signed: i64,
    /// `col_name`.
    pub name: String,
}

/// One `column=value` a line, in the select list's order (the body of
/// the HTTP endpoint `/db/ir`). The integers are right-aligned in the
/// width of a 32-bit column (10 and 11 characters) as the text columns
/// are fixed-width already, so every row has the same length: load
/// generators (ab) count a reply whose length differs from the first as
/// failed.
impl std::fmt::Display for IrRow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(f, "col_key={:>10}", self.key)?;
        writeln!(f, "col_code={}", self.code)?;
        writeln!(f, "col_date={}", self.date)?;
        writeln!(f, "col_signed={:>11}", self.signed)?;
        writeln!(f, "col_name={}", self.name)
    }
}

/// How a table's load ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Loaded {
    /// Rows written.
    pub rows: u64,
    /// Stopped by the cancel flag before the last row.
    pub cancelled: bool,
}

/// The engine's settings that make figures comparable, read from it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    /// Server (or library) version.
    pub version: String,
    /// Transaction isolation level.
    pub isolation: String,
    /// Cache size setting.
    pub cache: String,
    /// Durability setting.
    pub durability: String,
    /// How the spec's index kinds are built.
    pub index_mapping: String,
}

/// A transaction isolation level, as the paper numbers them (footnote 7:
/// 0 browse / dirty reads, 1 cursor stability, 3 repeatable reads) and as
/// SQL names them; the paper's level 2 is taken as REPEATABLE READ and its
/// level 3 as SERIALIZABLE (its "repeatable reads" excludes phantoms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Isolation {
    /// Level 0: dirty reads.
    ReadUncommitted,
    /// Level 1: cursor stability.
    ReadCommitted,
    /// Level 2.
    RepeatableRead,
    /// Level 3: repeatable reads, no phantoms.
    Serializable,
}

impl Isolation {
    /// The SQL name, as `SET TRANSACTION ISOLATION LEVEL` takes it.
    pub fn sql(self) -> &'static str {
        match self {
            Isolation::ReadUncommitted => "READ UNCOMMITTED",
            Isolation::ReadCommitted => "READ COMMITTED",
            Isolation::RepeatableRead => "REPEATABLE READ",
            Isolation::Serializable => "SERIALIZABLE",
        }
    }

    /// The paper's level number.
    pub fn level(self) -> u8 {
        match self {
            Isolation::ReadUncommitted => 0,
            Isolation::ReadCommitted => 1,
            Isolation::RepeatableRead => 2,
            Isolation::Serializable => 3,
        }
    }
}

/// What a session says of the isolation level it was set to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IsolationSet {
    /// The level the engine reports for the session (its own words).
    pub reported: String,
    /// What the engine gives for it where that differs from the report
    /// (PostgreSQL runs READ UNCOMMITTED as READ COMMITTED), else the
    /// report.
    pub effective: String,
}

/// One connection: one user of the multi-user tests.
pub trait Session: Send {
    /// Runs a statement; returns the rows it changed.
    fn execute(&mut self, sql: &str) -> Result<u64, DbError>;
    /// Runs a query, reading every row.
    fn fetch(&mut self, sql: &str) -> Result<Fetched, DbError>;
    /// The prepared `ir_select` of `key` (`col_key, col_code, col_date,
    /// col_signed, col_name` of `updates`); returns the row, `None` when
    /// there is no such key.
    fn ir_select(&mut self, key: i64) -> Result<Option<IrRow>, DbError>;
    /// The prepared `oltp_update` of `key` (`col_signed + 1`, a column
    /// without an index); returns the rows changed.
    fn oltp_update(&mut self, key: i64) -> Result<u64, DbError>;
    /// Creates `table` (with its clustered key).
    fn create_table(&mut self, table: Table) -> Result<(), DbError>;
    /// Streams `rows` into `table` by the engine's fastest path, polling
    /// `cancel` every few thousand rows.
    fn load(
        &mut self,
        table: Table,
        rows: &mut dyn Iterator<Item = Row>,
        cancel: &Cancel,
    ) -> Result<Loaded, DbError>;
    /// Builds a secondary index.
    fn create_index(&mut self, index: Index) -> Result<(), DbError>;
    /// The statement dropping index `name` of `table` (the single-user
    /// set's `drop_idx_upd_int`).
    fn drop_index(&self, name: &str, _table: &str) -> String {
        format!("DROP INDEX {name}")
    }
    /// Sets the isolation level of this session's transactions from now
    /// on; returns what the engine reports for it.
    fn set_isolation(&mut self, level: Isolation) -> Result<IsolationSet, DbError>;
    /// Runs a query and renders each row as text, its columns separated
    /// by `|` (the output-mode tests' "to a file" and "to the screen").
    fn fetch_lines(&mut self, sql: &str) -> Result<Vec<String>, DbError>;
    /// Declares the foreign key `hundred.col_signed` -> `updates.col_key`
    /// (and the index on `hundred.col_signed` it checks with) or, where the
    /// table declares it, turns its checking on.
    fn add_foreign_key(&mut self) -> Result<(), DbError>;
    /// Removes the foreign key (or turns its checking off) so updates can
    /// be dropped and reloaded.
    fn drop_foreign_key(&mut self) -> Result<(), DbError>;
    /// Whether a table of this name exists.
    fn table_exists(&mut self, name: &str) -> Result<bool, DbError>;
    /// Reads the multi-user tests' tables and indexes into the engine's
    /// cache (the spec's index preload step).
    fn preload(&mut self) -> Result<(), DbError>;
    /// The settings results record.
    fn settings(&mut self) -> Result<Settings, DbError>;
    /// The engine's name of a 64-bit integer in a CAST.
    fn bigint(&self) -> &'static str;
    /// The same connection's parameterised statements (TPC-C).
    fn sql(&mut self) -> &mut dyn sql::Sql;
}

/// Opens sessions on one database.
pub trait Connector: Sync {
    /// A new connection.
    fn connect(&self) -> Result<Box<dyn Session>, DbError>;
    /// Connections the load fills tables on side by side, each table in
    /// its own transaction; 1 (the default) loads every table in one
    /// transaction on the run's connection.
    fn load_connections(&self) -> usize {
        1
    }
}
