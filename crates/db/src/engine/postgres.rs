//! PostgreSQL through the `postgres` crate (the synchronous client over
//! tokio-postgres: one blocking connection per user thread). The load is,
//! as `pgbench -i` does it, `COPY ... FROM STDIN (FREEZE)` (text format,
//! sent in [`COPY_CHUNK`] pieces) into a table created in the same
//! transaction, then the primary key built over the loaded rows: the
//! spec's clustered key is that primary key's B-tree with the rows loaded
//! in key order. Hash indexes are `USING hash`, B-trees B-trees. The
//! preload is `pg_prewarm` where the extension is installed, else full
//! scans.

use std::io::Write;

use nodebench_core::bench::Cancel;
use postgres::error::SqlState;
use postgres::{Client, NoTls, Statement};

use super::{Connector, DbError, ErrorKind, Fetched, IrRow, Loaded, Session, Settings};
use crate::data::{Row, Table};
use crate::schema::{INDEXES, Index, IndexKind};

/// Rows between two looks at the cancel flag during the load.
const CANCEL_EVERY: u64 = 4096;

/// Bytes of COPY text sent to the server at once. The client's writer
/// sends every write over 4 KiB as its own message, each a round through
/// its runtime; one write per 256 KiB makes that cost negligible.
const COPY_CHUNK: usize = 256 * 1024;

/// Opens connections on one PostgreSQL database.
#[derive(Debug, Clone)]
pub struct PostgresConnector {
    /// `postgres://user:pass@host[:port]/db`.
    pub url: String,
}

impl Connector for PostgresConnector {
    fn connect(&self) -> Result<Box<dyn Session>, DbError> {
        let client = Client::connect(&self.url, NoTls).map_err(error)?;
        Ok(Box::new(PostgresSession {
            client,
            ir: None,
            oltp: None,
        }))
    }
}

/// One PostgreSQL connection with its prepared statements.
struct PostgresSession {
    client: Client,
    ir: Option<Statement>,
    oltp: Option<Statement>,
}

/// The kind of a PostgreSQL error by its SQLSTATE.
fn error(e: postgres::Error) -> DbError {
    let kind = match e.code() {
        Some(c) if *c == SqlState::T_R_DEADLOCK_DETECTED => ErrorKind::Deadlock,
        Some(c)
            if *c == SqlState::LOCK_NOT_AVAILABLE || *c == SqlState::T_R_SERIALIZATION_FAILURE =>
        {
            ErrorKind::Busy
        }
        _ => ErrorKind::Other,
    };
    let message = match e.as_db_error() {
        Some(db) => db.message().to_string(),
        None => e.to_string(),
    };
    DbError { kind, message }
}

/// The PostgreSQL column type of a scaled table's column.
fn column_type(column: &str) -> &'static str {
    match column {
        // The primary key is added after the COPY (see `load`).
        "col_key" => "INTEGER NOT NULL",
        "col_int" | "col_signed" => "INTEGER NOT NULL",
        "col_float" => "REAL NOT NULL",
        "col_double" => "DOUBLE PRECISION NOT NULL",
        "col_decim" => "NUMERIC(18,2) NOT NULL",
        "col_date" => "TIMESTAMP NOT NULL",
        "col_code" => "CHAR(10) NOT NULL",
        "col_name" => "CHAR(20) NOT NULL",
        _ => "VARCHAR(80) NOT NULL",
    }
}

/// A column of `row` as an integer where it is one.
fn integer(row: &postgres::Row, i: usize) -> Option<i64> {
    row.try_get::<_, Option<i64>>(i).ok().flatten().or_else(|| {
        row.try_get::<_, Option<i32>>(i)
            .ok()
            .flatten()
            .map(i64::from)
    })
}

impl Session for PostgresSession {
    fn execute(&mut self, sql: &str) -> Result<u64, DbError> {
        self.client.execute(sql, &[]).map_err(error)
    }

    fn fetch(&mut self, sql: &str) -> Result<Fetched, DbError> {
        let rows = self.client.query(sql, &[]).map_err(error)?;
        Ok(Fetched {
            rows: rows.len() as u64,
            first: rows
                .first()
                .map(|r| (0..r.len()).map(|i| integer(r, i)).collect())
                .unwrap_or_default(),
        })
    }

    fn ir_select(&mut self, key: i64) -> Result<Option<IrRow>, DbError> {
        if self.ir.is_none() {
            self.ir = Some(
                self.client
                    .prepare("SELECT col_key, col_code, col_date, col_signed, col_name FROM updates WHERE col_key = $1")
                    .map_err(error)?,
            );
        }
        let stmt = self.ir.as_ref().expect("prepared above");
        let row = self
            .client
            .query_opt(stmt, &[&(key as i32)])
            .map_err(error)?;
        let Some(row) = row else { return Ok(None) };
        let date: chrono::NaiveDateTime = row.try_get(2).map_err(error)?;
        Ok(Some(IrRow {
            key: row.try_get::<_, i32>(0).map_err(error)?.into(),
            code: row.try_get(1).map_err(error)?,
            date: date.format("%Y-%m-%d %H:%M:%S").to_string(),
            signed: row.try_get::<_, i32>(3).map_err(error)?.into(),
            name: row.try_get(4).map_err(error)?,
        }))
    }

    fn oltp_update(&mut self, key: i64) -> Result<u64, DbError> {
        if self.oltp.is_none() {
            self.oltp = Some(
                self.client
                    .prepare("UPDATE updates SET col_signed = col_signed + 1 WHERE col_key = $1")
                    .map_err(error)?,
            );
        }
        let stmt = self.oltp.as_ref().expect("prepared above");
        self.client.execute(stmt, &[&(key as i32)]).map_err(error)
    }

    fn create_table(&mut self, table: Table) -> Result<(), DbError> {
        let columns = if table.distinct.is_some() {
            crate::data::COLUMNS
                .iter()
                .map(|c| format!("{c} {}", column_type(c)))
                .collect::<Vec<_>>()
                .join(", ")
        } else {
            "col_key INTEGER NOT NULL".to_string()
        };
        self.execute(&format!("CREATE TABLE {} ({columns})", table.name))
            .map(|_| ())
    }

    fn load(
        &mut self,
        table: Table,
        rows: &mut dyn Iterator<Item = Row>,
        cancel: &Cancel,
    ) -> Result<Loaded, DbError> {
        // FREEZE: the table was created in this transaction, so its rows
        // can be written frozen (no hint-bit rewrite or vacuum later).
        let sql = format!(
            "COPY {} ({}) FROM STDIN (FREEZE)",
            table.name,
            crate::data::COLUMNS.join(", ")
        );
        let mut writer = self.client.copy_in(&sql).map_err(error)?;
        let mut chunk = String::with_capacity(COPY_CHUNK + 512);
        let mut n = 0;
        let io = |e: std::io::Error| DbError::other(format!("COPY: {e}"));
        for r in rows {
            if n % CANCEL_EVERY == 0 && cancel.is_cancelled() {
                // Dropped unfinished, the COPY is aborted.
                drop(writer);
                return Ok(Loaded {
                    rows: n,
                    cancelled: true,
                });
            }
            use std::fmt::Write as _;
            let _ = writeln!(
                chunk,
                "{}\t{}\t{}\t{:?}\t{:?}\t{:.2}\t{}\t{}\t{}\t{}",
                r.key,
                r.int,
                r.signed,
                r.float,
                r.double,
                r.decim,
                r.date,
                r.code,
                r.name,
                r.address
            );
            if chunk.len() >= COPY_CHUNK {
                writer.write_all(chunk.as_bytes()).map_err(io)?;
                chunk.clear();
            }
            n += 1;
        }
        writer.write_all(chunk.as_bytes()).map_err(io)?;
        writer.finish().map_err(error)?;
        // Built over the loaded rows in one sort, as pgbench -i builds its
        // primary keys, rather than grown row by row during the COPY.
        self.execute(&format!(
            "ALTER TABLE {} ADD PRIMARY KEY (col_key)",
            table.name
        ))?;
        Ok(Loaded {
            rows: n,
            cancelled: false,
        })
    }

    fn create_index(&mut self, index: Index) -> Result<(), DbError> {
        let using = match index.kind {
            IndexKind::Hash => "hash",
            IndexKind::BTree | IndexKind::Clustered => "btree",
        };
        self.execute(&format!(
            "CREATE INDEX {} ON {} USING {using} ({})",
            index.name(),
            index.table,
            index.column
        ))
        .map(|_| ())
    }

    fn table_exists(&mut self, name: &str) -> Result<bool, DbError> {
        let row = self
            .client
            .query_one(
                "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = $1",
                &[&name],
            )
            .map_err(error)?;
        Ok(row.get::<_, i64>(0) > 0)
    }

    fn preload(&mut self) -> Result<(), DbError> {
        let mut relations = vec!["updates".to_string(), "hundred".to_string()];
        relations.extend(
            INDEXES
                .iter()
                .filter(|i| i.table == "updates" && i.kind != IndexKind::Clustered)
                .map(|i| i.name()),
        );
        relations.push("updates_pkey".into());
        let prewarm = self
            .fetch("SELECT 1 FROM pg_extension WHERE extname = 'pg_prewarm'")?
            .rows
            > 0;
        if prewarm {
            for r in &relations {
                self.fetch(&format!("SELECT pg_prewarm('{r}')"))?;
            }
        } else {
            for sql in [
                "SELECT SUM(LENGTH(col_address)) FROM updates",
                "SELECT SUM(LENGTH(col_address)) FROM hundred",
            ] {
                self.fetch(sql)?;
            }
        }
        Ok(())
    }

    fn settings(&mut self) -> Result<Settings, DbError> {
        let mut show = |name: &str| -> Result<String, DbError> {
            let row = self
                .client
                .query_one(&format!("SHOW {name}"), &[])
                .map_err(error)?;
            Ok(row.get::<_, String>(0))
        };
        Ok(Settings {
            version: format!("PostgreSQL {}", show("server_version")?),
            isolation: show("transaction_isolation")?,
            cache: format!("shared_buffers={}", show("shared_buffers")?),
            durability: format!(
                "fsync={}, synchronous_commit={}",
                show("fsync")?,
                show("synchronous_commit")?
            ),
            index_mapping: "clustered: primary key B-tree, rows loaded in key order; hash: USING hash; B-tree: B-tree".into(),
        })
    }

    fn bigint(&self) -> &'static str {
        "BIGINT"
    }
}
