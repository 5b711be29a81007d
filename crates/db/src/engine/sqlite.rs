//! SQLite through rusqlite (bundled, so the same SQLite everywhere): a file
//! in WAL mode (readers never wait for the writer), `synchronous=NORMAL`, a
//! 64 MiB page cache per connection, a 10 s busy timeout and foreign keys
//! checked (`PRAGMA foreign_keys=ON`; off during the load). The spec's
//! clustered key is the rowid (`col_key INTEGER PRIMARY KEY`), tenpct's
//! composite (key, code) a `WITHOUT ROWID` table's primary key; SQLite has
//! no hash index, so hash and B-tree indexes are both B-trees. The load is
//! one transaction of prepared inserts. Isolation: every SQLite transaction
//! is serializable; `PRAGMA read_uncommitted` acts only between connections
//! of one shared cache, which these are not (WAL: a reader sees the last
//! commit).

use std::path::PathBuf;
use std::time::Duration;

use nodebench_core::bench::Cancel;
use rusqlite::{Connection, ErrorCode, params};

use super::{Connector, DbError, ErrorKind, Fetched, IrRow, Loaded, Session, Settings};
use super::{Isolation, IsolationSet};
use crate::data::{Row, Table};
use crate::schema::{FOREIGN_KEY, FOREIGN_KEY_INDEX, INDEXES, Index};

/// Page cache of each connection, KiB (`PRAGMA cache_size=-65536`).
const CACHE_KIB: i64 = 64 << 10;

/// How long a statement waits for a lock before failing as busy.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// Rows between two looks at the cancel flag during the load.
const CANCEL_EVERY: u64 = 4096;

/// Opens connections on one SQLite file.
#[derive(Debug, Clone)]
pub struct SqliteConnector {
    /// The database file.
    pub path: PathBuf,
}

impl Connector for SqliteConnector {
    fn connect(&self) -> Result<Box<dyn Session>, DbError> {
        let conn = Connection::open(&self.path)
            .map_err(|e| DbError::other(format!("cannot open {}: {e}", self.path.display())))?;
        conn.busy_timeout(BUSY_TIMEOUT).map_err(error)?;
        conn.pragma_update(None, "journal_mode", "WAL")
            .map_err(error)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(error)?;
        conn.pragma_update(None, "cache_size", -CACHE_KIB)
            .map_err(error)?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(error)?;
        conn.set_prepared_statement_cache_capacity(64);
        Ok(Box::new(SqliteSession {
            conn,
            translated: Default::default(),
        }))
    }
}

mod sql;

/// One SQLite connection.
struct SqliteSession {
    conn: Connection,
    /// Statements of [`super::sql::Sql`] as SQLite takes them (no
    /// `FOR UPDATE`: a write transaction holds the database's lock).
    translated: std::collections::HashMap<String, String>,
}

/// The kind of a rusqlite error: busy and locked are lock waits that timed
/// out; SQLite has no deadlock detection beyond that.
fn error(e: rusqlite::Error) -> DbError {
    let kind = match e.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => ErrorKind::Busy,
        _ => ErrorKind::Other,
    };
    DbError {
        kind,
        message: e.to_string(),
    }
}

/// The SQLite column type of a scaled table's column.
fn column_type(column: &str) -> &'static str {
    match column {
        "col_key" => "INTEGER NOT NULL",
        "col_int" => "INTEGER NOT NULL",
        // Nullable, as the paper declares it.
        "col_signed" => "INTEGER",
        "col_float" | "col_double" => "REAL NOT NULL",
        "col_decim" => "NUMERIC(18,2) NOT NULL",
        _ => "TEXT NOT NULL",
    }
}

impl Session for SqliteSession {
    fn execute(&mut self, sql: &str) -> Result<u64, DbError> {
        self.conn.execute(sql, []).map(|n| n as u64).map_err(error)
    }

    fn fetch(&mut self, sql: &str) -> Result<Fetched, DbError> {
        let mut stmt = self.conn.prepare_cached(sql).map_err(error)?;
        let columns = stmt.column_count();
        let mut rows = stmt.query([]).map_err(error)?;
        let mut out = Fetched::default();
        while let Some(row) = rows.next().map_err(error)? {
            if out.rows == 0 {
                out.first = (0..columns)
                    .map(|i| row.get::<_, Option<i64>>(i).ok().flatten())
                    .collect();
            }
            out.rows += 1;
        }
        Ok(out)
    }

    fn ir_select(&mut self, key: i64) -> Result<Option<IrRow>, DbError> {
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT col_key, col_code, col_date, col_signed, col_name FROM updates WHERE col_key = ?1",
            )
            .map_err(error)?;
        let mut rows = stmt.query([key]).map_err(error)?;
        let Some(row) = rows.next().map_err(error)? else {
            return Ok(None);
        };
        Ok(Some(IrRow {
            key: row.get(0).map_err(error)?,
            code: row.get(1).map_err(error)?,
            date: row.get(2).map_err(error)?,
            signed: row.get(3).map_err(error)?,
            name: row.get(4).map_err(error)?,
        }))
    }

    fn oltp_update(&mut self, key: i64) -> Result<u64, DbError> {
        let mut stmt = self
            .conn
            .prepare_cached("UPDATE updates SET col_signed = col_signed + 1 WHERE col_key = ?1")
            .map_err(error)?;
        stmt.execute([key]).map(|n| n as u64).map_err(error)
    }

    fn create_table(&mut self, table: Table) -> Result<(), DbError> {
        let sql = if table.distinct.is_none() {
            format!("CREATE TABLE {} (col_key INTEGER PRIMARY KEY)", table.name)
        } else {
            let mut columns: Vec<String> = crate::data::COLUMNS
                .iter()
                .map(|c| format!("{c} {}", column_type(c)))
                .collect();
            let rowid = table.primary_key() == "col_key";
            if rowid {
                // The rowid: the rows stored in key order.
                columns[0] = "col_key INTEGER PRIMARY KEY".into();
            } else {
                columns.push(format!("PRIMARY KEY ({})", table.primary_key()));
            }
            if table.name == nodebench_core::names::db::table::HUNDRED {
                columns.push(format!(
                    "CONSTRAINT {FOREIGN_KEY} FOREIGN KEY (col_signed) REFERENCES updates (col_key)"
                ));
            }
            format!(
                "CREATE TABLE {} ({}){}",
                table.name,
                columns.join(", "),
                if rowid { "" } else { " WITHOUT ROWID" }
            )
        };
        self.execute(&sql).map(|_| ())
    }

    fn set_isolation(&mut self, level: Isolation) -> Result<IsolationSet, DbError> {
        let dirty = level == Isolation::ReadUncommitted;
        self.conn
            .pragma_update(None, "read_uncommitted", dirty)
            .map_err(error)?;
        let on: i64 = self
            .conn
            .query_row("PRAGMA read_uncommitted", [], |r| r.get(0))
            .map_err(error)?;
        Ok(IsolationSet {
            reported: format!("SERIALIZABLE, read_uncommitted={on}"),
            effective: if dirty {
                "SERIALIZABLE (read_uncommitted acts only in shared-cache mode; WAL readers see the last commit)".into()
            } else {
                "SERIALIZABLE".into()
            },
        })
    }

    fn fetch_lines(&mut self, sql: &str) -> Result<Vec<String>, DbError> {
        use rusqlite::types::ValueRef;
        let mut stmt = self.conn.prepare_cached(sql).map_err(error)?;
        let columns = stmt.column_count();
        let mut rows = stmt.query([]).map_err(error)?;
        let mut out = Vec::new();
        while let Some(row) = rows.next().map_err(error)? {
            let mut line = String::new();
            for i in 0..columns {
                if i > 0 {
                    line.push('|');
                }
                match row.get_ref(i).map_err(error)? {
                    ValueRef::Null => {}
                    ValueRef::Integer(v) => line.push_str(&v.to_string()),
                    ValueRef::Real(v) => line.push_str(&v.to_string()),
                    ValueRef::Text(t) | ValueRef::Blob(t) => {
                        line.push_str(&String::from_utf8_lossy(t))
                    }
                }
            }
            out.push(line);
        }
        Ok(out)
    }

    fn add_foreign_key(&mut self) -> Result<(), DbError> {
        // Declared with the table; checked from here on, with an index on
        // the referencing column so a change of an updates key does not
        // scan hundred.
        self.conn
            .pragma_update(None, "foreign_keys", "ON")
            .map_err(error)?;
        self.execute(&format!(
            "CREATE INDEX IF NOT EXISTS {FOREIGN_KEY_INDEX} ON hundred (col_signed)"
        ))?;
        let orphans = self.fetch("PRAGMA foreign_key_check(hundred)")?.rows;
        if orphans > 0 {
            return Err(DbError::other(format!(
                "{orphans} hundred rows refer to no updates key"
            )));
        }
        Ok(())
    }

    fn drop_foreign_key(&mut self) -> Result<(), DbError> {
        self.conn
            .pragma_update(None, "foreign_keys", "OFF")
            .map_err(error)
    }

    fn load(
        &mut self,
        table: Table,
        rows: &mut dyn Iterator<Item = Row>,
        cancel: &Cancel,
    ) -> Result<Loaded, DbError> {
        let sql = format!(
            "INSERT INTO {} ({}) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            table.name,
            crate::data::COLUMNS.join(", ")
        );
        let mut stmt = self.conn.prepare_cached(&sql).map_err(error)?;
        let mut n = 0;
        for r in rows {
            if n % CANCEL_EVERY == 0 && cancel.is_cancelled() {
                return Ok(Loaded {
                    rows: n,
                    cancelled: true,
                });
            }
            stmt.execute(params![
                r.key,
                r.int,
                r.signed,
                r.float as f64,
                r.double,
                r.decim,
                r.date_text(),
                r.code,
                r.name,
                r.address
            ])
            .map_err(error)?;
            n += 1;
        }
        Ok(Loaded {
            rows: n,
            cancelled: false,
        })
    }

    fn create_index(&mut self, index: Index) -> Result<(), DbError> {
        self.execute(&format!(
            "CREATE INDEX {} ON {} ({})",
            index.name(),
            index.table,
            index.column
        ))
        .map(|_| ())
    }

    fn table_exists(&mut self, name: &str) -> Result<bool, DbError> {
        self.conn
            .query_row(
                "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?1",
                [name],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n > 0)
            .map_err(error)
    }

    fn preload(&mut self) -> Result<(), DbError> {
        // Every page of the two tables' B-trees (the rowid tree is the
        // clustered key) and of updates' indexes, into this connection's
        // cache and the OS page cache the other connections share.
        for sql in [
            "SELECT SUM(LENGTH(col_address)) FROM updates",
            "SELECT SUM(LENGTH(col_address)) FROM hundred",
        ] {
            self.fetch(sql)?;
        }
        for i in INDEXES
            .iter()
            .filter(|i| i.table == "updates" && i.column != "col_key")
        {
            self.fetch(&format!(
                "SELECT COUNT({c}) FROM updates INDEXED BY {n} WHERE {c} IS NOT NULL",
                c = i.column,
                n = i.name()
            ))?;
        }
        Ok(())
    }

    fn sql(&mut self) -> &mut dyn super::sql::Sql {
        self
    }

    fn bigint(&self) -> &'static str {
        "INTEGER"
    }

    fn settings(&mut self) -> Result<Settings, DbError> {
        let pragma = |conn: &Connection, name: &str| -> Result<String, DbError> {
            conn.query_row(&format!("PRAGMA {name}"), [], |r| {
                r.get::<_, rusqlite::types::Value>(0)
            })
            .map(|v| match v {
                rusqlite::types::Value::Integer(i) => i.to_string(),
                rusqlite::types::Value::Text(t) => t,
                other => format!("{other:?}"),
            })
            .map_err(error)
        };
        let synchronous = match pragma(&self.conn, "synchronous")?.as_str() {
            "0" => "OFF",
            "1" => "NORMAL",
            "2" => "FULL",
            "3" => "EXTRA",
            _ => "unknown",
        };
        Ok(Settings {
            version: format!("SQLite {}", rusqlite::version()),
            isolation: "serializable".into(),
            cache: format!(
                "cache_size={} per connection",
                pragma(&self.conn, "cache_size")?
            ),
            durability: format!(
                "journal_mode={}, synchronous={synchronous}",
                pragma(&self.conn, "journal_mode")?
            ),
            index_mapping:
                "clustered: rowid (col_key INTEGER PRIMARY KEY), tenpct (key, code) WITHOUT ROWID primary key; hash: B-tree (SQLite has no hash index); B-tree: B-tree; foreign key: declared, foreign_keys=ON".into(),
        })
    }
}
