//! PostgreSQL through the `postgres` crate (the synchronous client over
//! tokio-postgres: one blocking connection per user thread). The load is,
//! as `pgbench -i` does it, `COPY ... FROM STDIN (FREEZE)` (binary format,
//! so the server parses no numbers or dates; sent in [`COPY_CHUNK`]
//! pieces) into a table created in the same
//! transaction, then the primary key built over the loaded rows: the
//! spec's clustered key is that primary key's B-tree with the rows loaded
//! in key order. Hash indexes are `USING hash`, B-trees B-trees. The
//! preload is `pg_prewarm` where the extension is installed, else full
//! scans.

use nodebench_core::bench::BenchError;
use std::io::Write;

use nodebench_core::bench::Cancel;
use nodebench_core::credentials;
use postgres::error::SqlState;
use postgres::{Client, NoTls, Statement};

use super::{Connector, DbError, ErrorKind, Fetched, IrRow, Loaded, Session, Settings};
use super::{Isolation, IsolationSet};
use crate::data::{Row, Table};
use crate::schema::{FOREIGN_KEY, FOREIGN_KEY_INDEX, INDEXES, Index, IndexKind};

/// Rows between two looks at the cancel flag during the load.
const CANCEL_EVERY: u64 = 4096;

/// Bytes of COPY data sent to the server at once. The client's writer
/// sends every write over 4 KiB as its own message, each a round through
/// its runtime; one write per 256 KiB makes that cost negligible.
const COPY_CHUNK: usize = 256 * 1024;

/// Opens connections on one PostgreSQL database.
#[derive(Clone)]
pub struct PostgresConnector {
    /// `postgres://user:pass@host[:port]/db`.
    pub url: String,
    /// The password when the URL has none (`PGPASSWORD`, the password
    /// file, the prompt: [`credentials::password_for`]).
    pub password: Option<String>,
}

impl std::fmt::Debug for PostgresConnector {
    /// The URL without its password; the password never.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresConnector")
            .field("url", &credentials::without_password(&self.url))
            .finish_non_exhaustive()
    }
}

impl PostgresConnector {
    /// A connector on `url`, its password looked up once where the URL
    /// has none.
    pub fn new(url: &str) -> Result<PostgresConnector, BenchError> {
        Ok(PostgresConnector {
            url: url.to_string(),
            password: credentials::password_for(url, "--db")?,
        })
    }
}

/// Connections the load fills tables on side by side: while one
/// connection's server process builds a primary key, or waits for rows,
/// the other's parses and stores a COPY.
const LOAD_CONNECTIONS: usize = 2;

impl Connector for PostgresConnector {
    fn load_connections(&self) -> usize {
        LOAD_CONNECTIONS
    }

    fn connect(&self) -> Result<Box<dyn Session>, DbError> {
        let mut config: postgres::Config = self.url.parse().map_err(error)?;
        if let Some(p) = &self.password
            && config.get_password().is_none()
        {
            config.password(p);
        }
        let client = config.connect(NoTls).map_err(error)?;
        Ok(Box::new(PostgresSession {
            client,
            ir: None,
            oltp: None,
            prepared: Default::default(),
        }))
    }
}

mod sql;

/// One PostgreSQL connection with its prepared statements.
struct PostgresSession {
    client: Client,
    ir: Option<Statement>,
    oltp: Option<Statement>,
    /// The statements of [`super::sql::Sql`], by their `?` text.
    prepared: std::collections::HashMap<String, Statement>,
}

/// The kind of a PostgreSQL error by its SQLSTATE.
fn error(e: postgres::Error) -> DbError {
    let kind = match e.code() {
        Some(c) if *c == SqlState::T_R_DEADLOCK_DETECTED => ErrorKind::Deadlock,
        Some(c) if *c == SqlState::T_R_SERIALIZATION_FAILURE => ErrorKind::Serialization,
        Some(c) if *c == SqlState::LOCK_NOT_AVAILABLE => ErrorKind::Busy,
        _ => ErrorKind::Other,
    };
    let message = match e.as_db_error() {
        Some(db) => db.message().to_string(),
        None => e.to_string(),
    };
    DbError { kind, message }
}

/// The start of a binary COPY stream: its signature, no flags (no OIDs)
/// and an empty header extension.
const COPY_BINARY_HEADER: &[u8] = b"PGCOPY\n\xff\r\n\0\0\0\0\0\0\0\0\0";

/// The end of a binary COPY stream: a tuple of -1 fields.
const COPY_BINARY_TRAILER: [u8; 2] = (-1i16).to_be_bytes();

/// Microseconds from the Unix epoch to PostgreSQL's, 2000-01-01, where its
/// binary timestamps count from.
const POSTGRES_EPOCH_MICROS: i64 = 946_684_800_000_000;

/// A numeric's sign in its binary form (`NUMERIC_NEG`; positive is 0).
const NUMERIC_NEG: u16 = 0x4000;

/// Appends one field of a binary COPY tuple: its length, then its bytes.
fn field(out: &mut Vec<u8>, bytes: &[u8]) {
    out.extend_from_slice(&(bytes.len() as i32).to_be_bytes());
    out.extend_from_slice(bytes);
}

/// `cents` / 100 as a NUMERIC with two places in PostgreSQL's binary form:
/// digit count, weight (of the first digit, in powers of 10000), sign,
/// display scale, then the base-10000 digits, most significant first.
pub(crate) fn numeric_2dp(out: &mut Vec<u8>, cents: i64) {
    let sign = if cents < 0 { NUMERIC_NEG } else { 0 };
    let cents = cents.unsigned_abs();
    let (mut whole, fraction) = (cents / 100, (cents % 100) as u16 * 100);
    // At most 5 base-10000 digits for a u64's whole part, plus the fraction.
    let mut digits = [0u16; 6];
    let mut start = digits.len() - 1;
    digits[start] = fraction;
    while whole > 0 {
        start -= 1;
        digits[start] = (whole % 10_000) as u16;
        whole /= 10_000;
    }
    let digits = &digits[start..];
    let weight = digits.len() as i16 - 2;
    out.extend_from_slice(&(8 + 2 * digits.len() as i32).to_be_bytes());
    out.extend_from_slice(&(digits.len() as u16).to_be_bytes());
    out.extend_from_slice(&weight.to_be_bytes());
    out.extend_from_slice(&sign.to_be_bytes());
    out.extend_from_slice(&2u16.to_be_bytes());
    for d in digits {
        out.extend_from_slice(&d.to_be_bytes());
    }
}

/// Appends `r` as one tuple of a binary COPY into the scaled tables'
/// columns (see [`column_type`]).
fn binary_tuple(out: &mut Vec<u8>, r: &Row) {
    out.extend_from_slice(&(crate::data::COLUMNS.len() as i16).to_be_bytes());
    field(out, &(r.key as i32).to_be_bytes());
    field(out, &(r.int as i32).to_be_bytes());
    field(out, &(r.signed as i32).to_be_bytes());
    field(out, &r.float.to_be_bytes());
    field(out, &r.double.to_be_bytes());
    numeric_2dp(out, r.decim_cents());
    let micros = r.date.and_utc().timestamp_micros() - POSTGRES_EPOCH_MICROS;
    field(out, &micros.to_be_bytes());
    field(out, r.code.as_bytes());
    field(out, r.name.as_bytes());
    field(out, r.address.as_bytes());
}

/// The PostgreSQL column type of a scaled table's column.
fn column_type(column: &str) -> &'static str {
    match column {
        // The primary key is added after the COPY (see `load`).
        "col_key" => "INTEGER NOT NULL",
        "col_int" => "INTEGER NOT NULL",
        // Nullable, as the paper declares it.
        "col_signed" => "INTEGER",
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
            "col_key INTEGER NOT NULL PRIMARY KEY".to_string()
        };
        self.execute(&format!("CREATE TABLE {} ({columns})", table.name))
            .map(|_| ())
    }

    fn set_isolation(&mut self, level: Isolation) -> Result<IsolationSet, DbError> {
        self.execute(&format!(
            "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL {}",
            level.sql()
        ))?;
        let row = self
            .client
            .query_one("SHOW transaction_isolation", &[])
            .map_err(error)?;
        let reported: String = row.get(0);
        let effective = if reported == "read uncommitted" {
            // PostgreSQL takes the level and runs it as READ COMMITTED.
            "read committed".to_string()
        } else {
            reported.clone()
        };
        Ok(IsolationSet {
            reported,
            effective,
        })
    }

    fn fetch_lines(&mut self, sql: &str) -> Result<Vec<String>, DbError> {
        // The simple-query protocol: every column comes as the server's text.
        let mut out = Vec::new();
        for m in self.client.simple_query(sql).map_err(error)? {
            if let postgres::SimpleQueryMessage::Row(row) = m {
                let line = (0..row.len())
                    .map(|i| row.get(i).unwrap_or(""))
                    .collect::<Vec<_>>()
                    .join("|");
                out.push(line);
            }
        }
        Ok(out)
    }

    fn add_foreign_key(&mut self) -> Result<(), DbError> {
        self.execute(&format!(
            "CREATE INDEX IF NOT EXISTS {FOREIGN_KEY_INDEX} ON hundred (col_signed)"
        ))?;
        self.execute(&format!(
            "ALTER TABLE hundred ADD CONSTRAINT {FOREIGN_KEY} FOREIGN KEY (col_signed) REFERENCES updates (col_key)"
        ))
        .map(|_| ())
    }

    fn drop_foreign_key(&mut self) -> Result<(), DbError> {
        self.execute(&format!(
            "ALTER TABLE IF EXISTS hundred DROP CONSTRAINT IF EXISTS {FOREIGN_KEY}"
        ))
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
        // Binary: the server takes each value as stored, without parsing
        // numbers, numerics and timestamps from text.
        let sql = format!(
            "COPY {} ({}) FROM STDIN (FORMAT binary, FREEZE)",
            table.name,
            crate::data::COLUMNS.join(", ")
        );
        let mut writer = self.client.copy_in(&sql).map_err(error)?;
        let mut chunk = Vec::with_capacity(COPY_CHUNK + 512);
        chunk.extend_from_slice(COPY_BINARY_HEADER);
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
            binary_tuple(&mut chunk, &r);
            if chunk.len() >= COPY_CHUNK {
                writer.write_all(&chunk).map_err(io)?;
                chunk.clear();
            }
            n += 1;
        }
        chunk.extend_from_slice(&COPY_BINARY_TRAILER);
        writer.write_all(&chunk).map_err(io)?;
        writer.finish().map_err(error)?;
        // Built over the loaded rows in one sort, as pgbench -i builds its
        // primary keys, rather than grown row by row during the COPY.
        self.execute(&format!(
            "ALTER TABLE {} ADD PRIMARY KEY ({})",
            table.name,
            table.primary_key()
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
            index_mapping: "clustered: primary key B-tree (tenpct: key, code), rows loaded in key order; hash: USING hash; B-tree: B-tree; foreign key: hundred_signed_fk".into(),
        })
    }

    fn bigint(&self) -> &'static str {
        "BIGINT"
    }

    fn sql(&mut self) -> &mut dyn super::sql::Sql {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The NUMERIC binary form: digit count, weight, sign, scale, digits.
    fn numeric(cents: i64) -> Vec<u16> {
        let mut out = Vec::new();
        numeric_2dp(&mut out, cents);
        let len = i32::from_be_bytes(out[..4].try_into().unwrap()) as usize;
        assert_eq!(len, out.len() - 4);
        out[4..]
            .chunks(2)
            .map(|c| u16::from_be_bytes([c[0], c[1]]))
            .collect()
    }

    #[test]
    fn numerics_are_base_10000_digits_with_two_places() {
        // 12345.25 = 1 * 10000^1 + 2345 * 10000^0 + 2500 * 10000^-1.
        assert_eq!(numeric(1_234_525), [3, 1, 0, 2, 1, 2345, 2500]);
        assert_eq!(numeric(-25), [1, (-1i16) as u16, NUMERIC_NEG, 2, 2500]);
        assert_eq!(numeric(0), [1, (-1i16) as u16, 0, 2, 0]);
        assert_eq!(numeric(-4_999_975), [3, 1, NUMERIC_NEG, 2, 4, 9999, 7500]);
        // 10000.00: the zero digits are kept (the server strips them).
        assert_eq!(numeric(1_000_000), [3, 1, 0, 2, 1, 0, 0]);
    }
}
