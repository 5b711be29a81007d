//! MariaDB and MySQL through the `mysql` crate (the synchronous sibling of
//! mysql_async: one blocking connection per user thread), over TCP, or a
//! unix socket with `?socket=PATH`. Tables are InnoDB: the spec's clustered
//! key is the primary key (InnoDB stores the rows in its B-tree); InnoDB
//! has no hash index (`USING HASH` is taken as a B-tree), so hash and
//! B-tree indexes are both B-trees. The load is `LOAD DATA LOCAL INFILE`
//! fed from the generator while it runs (the server's `local_infile` on),
//! else multi-row INSERTs. The preload scans `updates`' clustered and
//! secondary indexes and `hundred` into the buffer pool.

use nodebench_core::bench::BenchError;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::Write as _;
use std::sync::mpsc;

use mysql::prelude::Queryable;
use mysql::{Conn, LocalInfileHandler, Opts, OptsBuilder, Statement, Value};
use nodebench_core::bench::Cancel;
use nodebench_core::credentials;

use super::{Connector, DbError, ErrorKind, Fetched, IrRow, Loaded, Session, Settings};
use super::{Isolation, IsolationSet};
use crate::data::{COLUMNS, Row, Table};
use crate::schema::{FOREIGN_KEY, FOREIGN_KEY_INDEX, INDEXES, Index, IndexKind};

/// Rows between two looks at the cancel flag during the load.
const CANCEL_EVERY: u64 = 4096;

/// Bytes of generated rows handed to the LOAD DATA stream at a time.
const CHUNK_BYTES: usize = 256 << 10;

/// Chunks the generator may run ahead of the server.
const CHUNKS_AHEAD: usize = 4;

/// Rows per INSERT statement when the server refuses LOAD DATA LOCAL.
const INSERT_ROWS: usize = 1000;

/// MySQL's error codes the multi-user tests count by kind.
const ER_LOCK_WAIT_TIMEOUT: u16 = 1205;
/// See [`ER_LOCK_WAIT_TIMEOUT`].
const ER_LOCK_DEADLOCK: u16 = 1213;

/// Prepared statements a connection keeps.
const STMT_CACHE: usize = 128;

/// Opens connections on one MariaDB or MySQL database.
#[derive(Clone)]
pub struct MysqlConnector {
    /// `mysql://user:pass@host[:port]/db[?socket=PATH]`.
    pub url: String,
    /// The password when the URL has none (`MYSQL_PWD`, the password
    /// file, the prompt: [`credentials::password_for`]).
    pub password: Option<String>,
}

impl std::fmt::Debug for MysqlConnector {
    /// The URL without its password; the password never.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MysqlConnector")
            .field("url", &credentials::without_password(&self.url))
            .finish_non_exhaustive()
    }
}

impl MysqlConnector {
    /// A connector on `url`, its password looked up once where the URL
    /// has none.
    pub fn new(url: &str) -> Result<MysqlConnector, BenchError> {
        Ok(MysqlConnector {
            url: url.to_string(),
            password: credentials::password_for(url, "--db")?,
        })
    }
}

impl Connector for MysqlConnector {
    fn connect(&self) -> Result<Box<dyn Session>, DbError> {
        let opts = Opts::from_url(&self.url)
            .map_err(|e| DbError::other(credentials::redact(&e.to_string())))?;
        // The crate would move a TCP connection to the server's socket when
        // it can: the URL says how to connect, so only `prefer_socket=true`
        // in it does that.
        let prefer_socket = self.url.contains("prefer_socket=true");
        // CLIENT_FOUND_ROWS: an UPDATE reports the rows it matched, as
        // SQLite and PostgreSQL do, not only those whose value changed.
        let mut builder = OptsBuilder::from_opts(opts)
            .prefer_socket(prefer_socket)
            .additional_capabilities(mysql::consts::CapabilityFlags::CLIENT_FOUND_ROWS)
            // TPC-C prepares a statement per IN-list length.
            .stmt_cache_size(STMT_CACHE);
        if let Some(p) = &self.password {
            builder = builder.pass(Some(p.clone()));
        }
        let conn = Conn::new(builder).map_err(error)?;
        Ok(Box::new(MysqlSession {
            conn,
            ir: None,
            oltp: None,
            local_infile: None,
        }))
    }
}

mod sql;

/// One connection with its prepared statements.
struct MysqlSession {
    conn: Conn,
    ir: Option<Statement>,
    oltp: Option<Statement>,
    /// Whether the server takes LOAD DATA LOCAL INFILE (asked once).
    local_infile: Option<bool>,
}

/// The kind and one-line message of a driver error.
fn error(e: mysql::Error) -> DbError {
    match e {
        mysql::Error::MySqlError(e) => DbError {
            kind: match e.code {
                ER_LOCK_DEADLOCK => ErrorKind::Deadlock,
                ER_LOCK_WAIT_TIMEOUT => ErrorKind::Busy,
                _ => ErrorKind::Other,
            },
            message: format!("{} (error {})", e.message, e.code),
        },
        mysql::Error::IoError(e) => DbError::other(format!("connection: {e}")),
        mysql::Error::DriverError(e) => DbError::other(e.to_string()),
        other => DbError::other(other.to_string()),
    }
}

/// The MySQL column type of a scaled table's column.
fn column_type(column: &str) -> &'static str {
    match column {
        "col_key" => "INT NOT NULL",
        "col_int" => "INT NOT NULL",
        // Nullable, as the paper declares it.
        "col_signed" => "INT",
        "col_float" => "FLOAT NOT NULL",
        "col_double" => "DOUBLE NOT NULL",
        "col_decim" => "DECIMAL(18,2) NOT NULL",
        "col_date" => "DATETIME NOT NULL",
        "col_code" => "CHAR(10) NOT NULL",
        "col_name" => "CHAR(20) NOT NULL",
        _ => "VARCHAR(80) NOT NULL",
    }
}

/// A value as an integer where it is one (the text protocol sends numbers
/// as text; SUM of integers is a DECIMAL).
fn integer(v: &Value) -> Option<i64> {
    match v {
        Value::Int(i) => Some(*i),
        Value::UInt(u) => i64::try_from(*u).ok(),
        Value::Bytes(b) => std::str::from_utf8(b).ok()?.parse().ok(),
        _ => None,
    }
}

/// Appends `r` as one line of LOAD DATA's default format (tab-separated;
/// the generated text has no tab, newline or backslash).
fn tsv_line(out: &mut String, r: &Row) {
    let _ = writeln!(
        out,
        "{}\t{}\t{}\t{:?}\t{:?}\t{}\t{}\t{}\t{}\t{}",
        r.key,
        r.int,
        r.signed,
        r.float,
        r.double,
        r.decim_text(),
        r.date_text(),
        r.code,
        r.name,
        r.address
    );
}

/// Appends `r` as one parenthesised tuple of an INSERT's VALUES.
fn values_tuple(out: &mut String, r: &Row) {
    let quoted = |s: &str| s.replace('\\', "\\\\").replace('\'', "''");
    let _ = write!(
        out,
        "({},{},{},{:?},{:?},{},'{}','{}','{}','{}')",
        r.key,
        r.int,
        r.signed,
        r.float,
        r.double,
        r.decim_text(),
        r.date_text(),
        quoted(&r.code),
        quoted(&r.name),
        quoted(&r.address)
    );
}

impl MysqlSession {
    /// `LOAD DATA LOCAL INFILE` fed by a handler that reads the chunks this
    /// thread generates while the statement runs on a second thread (the
    /// rows iterator stays here). Cancelled, the stream just ends: the rows
    /// sent so far are kept, and the caller drops the table.
    fn load_data(
        &mut self,
        table: Table,
        rows: &mut dyn Iterator<Item = Row>,
        cancel: &Cancel,
    ) -> Result<Loaded, DbError> {
        let (tx, rx) = mpsc::sync_channel::<Vec<u8>>(CHUNKS_AHEAD);
        let mut rx = Some(rx);
        self.conn
            .set_local_infile_handler(Some(LocalInfileHandler::new(move |_, out| {
                for chunk in rx.take().into_iter().flatten() {
                    out.write_all(&chunk)?;
                }
                Ok(())
            })));
        let sql = format!(
            "LOAD DATA LOCAL INFILE 'as3ap-{}' INTO TABLE {} CHARACTER SET latin1 \
             FIELDS TERMINATED BY '\\t' LINES TERMINATED BY '\\n' ({})",
            table.name,
            table.name,
            COLUMNS.join(", ")
        );
        let conn = &mut self.conn;
        std::thread::scope(|scope| {
            let statement = scope.spawn(move || {
                let done = conn.query_drop(&sql).map(|_| conn.affected_rows());
                // Drops the receiver: a refused statement never asked for
                // the stream, and the generator must not wait on it.
                conn.set_local_infile_handler(None);
                done
            });
            let mut n = 0;
            let mut cancelled = false;
            let mut chunk = String::with_capacity(CHUNK_BYTES + 256);
            for r in rows {
                if n % CANCEL_EVERY == 0 && cancel.is_cancelled() {
                    cancelled = true;
                    break;
                }
                tsv_line(&mut chunk, &r);
                n += 1;
                if chunk.len() >= CHUNK_BYTES {
                    let full = std::mem::replace(&mut chunk, String::with_capacity(CHUNK_BYTES));
                    if tx.send(full.into_bytes()).is_err() {
                        break;
                    }
                }
            }
            if !cancelled && !chunk.is_empty() {
                let _ = tx.send(chunk.into_bytes());
            }
            drop(tx);
            let stored = statement
                .join()
                .map_err(|_| DbError::other("the LOAD DATA thread panicked"))?
                .map_err(error)?;
            if !cancelled && stored != n {
                return Err(DbError::other(format!(
                    "LOAD DATA stored {stored} of the {n} rows sent into {}",
                    table.name
                )));
            }
            Ok(Loaded {
                rows: stored,
                cancelled,
            })
        })
    }

    /// Multi-row INSERTs of [`INSERT_ROWS`] rows each.
    fn insert_rows(
        &mut self,
        table: Table,
        rows: &mut dyn Iterator<Item = Row>,
        cancel: &Cancel,
    ) -> Result<Loaded, DbError> {
        let head = format!(
            "INSERT INTO {} ({}) VALUES ",
            table.name,
            COLUMNS.join(", ")
        );
        let mut sql = String::with_capacity(INSERT_ROWS * 140);
        let mut n = 0;
        let mut batch = 0;
        for r in rows {
            if n % CANCEL_EVERY == 0 && cancel.is_cancelled() {
                return Ok(Loaded {
                    rows: n - batch,
                    cancelled: true,
                });
            }
            if batch == 0 {
                sql.clear();
                sql.push_str(&head);
            } else {
                sql.push(',');
            }
            values_tuple(&mut sql, &r);
            batch += 1;
            n += 1;
            if batch as usize == INSERT_ROWS {
                self.conn.query_drop(&sql).map_err(error)?;
                batch = 0;
            }
        }
        if batch > 0 {
            self.conn.query_drop(&sql).map_err(error)?;
        }
        Ok(Loaded {
            rows: n,
            cancelled: false,
        })
    }

    /// The server's variables of these names (those it has).
    fn variables(&mut self, names: &[&str]) -> Result<HashMap<String, String>, DbError> {
        let list = names
            .iter()
            .map(|n| format!("'{n}'"))
            .collect::<Vec<_>>()
            .join(", ");
        let rows: Vec<(String, String)> = self
            .conn
            .query(format!("SHOW VARIABLES WHERE Variable_name IN ({list})"))
            .map_err(error)?;
        Ok(rows.into_iter().collect())
    }
}

impl Session for MysqlSession {
    fn execute(&mut self, sql: &str) -> Result<u64, DbError> {
        self.conn.query_drop(sql).map_err(error)?;
        Ok(self.conn.affected_rows())
    }

    fn fetch(&mut self, sql: &str) -> Result<Fetched, DbError> {
        let mut result = self.conn.query_iter(sql).map_err(error)?;
        let mut out = Fetched::default();
        if let Some(set) = result.iter() {
            for row in set {
                let row = row.map_err(error)?;
                if out.rows == 0 {
                    out.first = (0..row.len())
                        .map(|i| row.as_ref(i).and_then(integer))
                        .collect();
                }
                out.rows += 1;
            }
        }
        Ok(out)
    }

    fn ir_select(&mut self, key: i64) -> Result<Option<IrRow>, DbError> {
        if self.ir.is_none() {
            self.ir = Some(
                self.conn
                    .prep("SELECT col_key, col_code, col_date, col_signed, col_name FROM updates WHERE col_key = ?")
                    .map_err(error)?,
            );
        }
        let stmt = self.ir.as_ref().expect("prepared above");
        let row: Option<mysql::Row> = self.conn.exec_first(stmt, (key,)).map_err(error)?;
        let Some(row) = row else { return Ok(None) };
        let column = |i: usize| -> Result<Value, DbError> {
            row.as_ref(i)
                .cloned()
                .ok_or_else(|| DbError::other(format!("ir_select: no column {i}")))
        };
        let int = |i: usize| {
            mysql::from_value_opt::<i64>(column(i)?)
                .map_err(|e| DbError::other(format!("ir_select: column {i}: {e}")))
        };
        let text = |i: usize| {
            mysql::from_value_opt::<String>(column(i)?)
                .map_err(|e| DbError::other(format!("ir_select: column {i}: {e}")))
        };
        let date = match column(2)? {
            Value::Date(y, mo, d, h, mi, s, _) => {
                format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}")
            }
            other => mysql::from_value_opt::<String>(other)
                .map_err(|e| DbError::other(format!("ir_select: col_date: {e}")))?,
        };
        Ok(Some(IrRow {
            key: int(0)?,
            code: text(1)?,
            date,
            signed: int(3)?,
            name: text(4)?,
        }))
    }

    fn oltp_update(&mut self, key: i64) -> Result<u64, DbError> {
        if self.oltp.is_none() {
            self.oltp = Some(
                self.conn
                    .prep("UPDATE updates SET col_signed = col_signed + 1 WHERE col_key = ?")
                    .map_err(error)?,
            );
        }
        let stmt = self.oltp.as_ref().expect("prepared above");
        self.conn.exec_drop(stmt, (key,)).map_err(error)?;
        Ok(self.conn.affected_rows())
    }

    fn create_table(&mut self, table: Table) -> Result<(), DbError> {
        let columns = if table.distinct.is_some() {
            let mut columns: Vec<String> = COLUMNS
                .iter()
                .map(|c| format!("{c} {}", column_type(c)))
                .collect();
            columns.push(format!("PRIMARY KEY ({})", table.primary_key()));
            columns.join(", ")
        } else {
            "col_key INT NOT NULL PRIMARY KEY".to_string()
        };
        self.execute(&format!(
            "CREATE TABLE {} ({columns}) ENGINE=InnoDB",
            table.name
        ))
        .map(|_| ())
    }

    fn load(
        &mut self,
        table: Table,
        rows: &mut dyn Iterator<Item = Row>,
        cancel: &Cancel,
    ) -> Result<Loaded, DbError> {
        if self.local_infile.is_none() {
            let on = self
                .fetch("SELECT @@local_infile")?
                .first
                .first()
                .copied()
                .flatten();
            self.local_infile = Some(on == Some(1));
        }
        if self.local_infile == Some(true) {
            self.load_data(table, rows, cancel)
        } else {
            self.insert_rows(table, rows, cancel)
        }
    }

    fn create_index(&mut self, index: Index) -> Result<(), DbError> {
        // InnoDB builds every kind as a B-tree; the clustered key is the
        // table's primary key.
        self.execute(&format!(
            "CREATE INDEX {} ON {} ({})",
            index.name(),
            index.table,
            index.column
        ))
        .map(|_| ())
    }

    fn set_isolation(&mut self, level: Isolation) -> Result<IsolationSet, DbError> {
        self.execute(&format!(
            "SET SESSION TRANSACTION ISOLATION LEVEL {}",
            level.sql()
        ))?;
        // MySQL 8 and MariaDB 11 name it transaction_isolation; older
        // MariaDB tx_isolation.
        let reported: Option<String> = self
            .conn
            .query_first("SELECT @@SESSION.transaction_isolation")
            .or_else(|_| self.conn.query_first("SELECT @@SESSION.tx_isolation"))
            .map_err(error)?;
        let reported = reported.unwrap_or_else(|| "?".into());
        Ok(IsolationSet {
            effective: reported.clone(),
            reported,
        })
    }

    fn fetch_lines(&mut self, sql: &str) -> Result<Vec<String>, DbError> {
        let rows: Vec<mysql::Row> = self.conn.query(sql).map_err(error)?;
        Ok(rows
            .into_iter()
            .map(|row| {
                (0..row.len())
                    .map(|i| match row.as_ref(i) {
                        Some(Value::NULL) | None => String::new(),
                        Some(Value::Bytes(b)) => String::from_utf8_lossy(b).into_owned(),
                        Some(v) => v.as_sql(true).trim_matches('\'').to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join("|")
            })
            .collect())
    }

    fn add_foreign_key(&mut self) -> Result<(), DbError> {
        // InnoDB needs an index on the referencing column (and would make
        // one); the same one as on the other engines.
        let indexed: Option<i64> = self
            .conn
            .exec_first(
                "SELECT COUNT(*) FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = 'hundred' AND index_name = ?",
                (FOREIGN_KEY_INDEX,),
            )
            .map_err(error)?;
        if indexed.unwrap_or(0) == 0 {
            self.execute(&format!(
                "CREATE INDEX {FOREIGN_KEY_INDEX} ON hundred (col_signed)"
            ))?;
        }
        self.execute(&format!(
            "ALTER TABLE hundred ADD CONSTRAINT {FOREIGN_KEY} FOREIGN KEY (col_signed) REFERENCES updates (col_key)"
        ))
        .map(|_| ())
    }

    fn drop_foreign_key(&mut self) -> Result<(), DbError> {
        let present: Option<i64> = self
            .conn
            .exec_first(
                "SELECT COUNT(*) FROM information_schema.table_constraints WHERE constraint_schema = DATABASE() AND table_name = 'hundred' AND constraint_name = ?",
                (FOREIGN_KEY,),
            )
            .map_err(error)?;
        if present.unwrap_or(0) > 0 {
            self.execute(&format!(
                "ALTER TABLE hundred DROP FOREIGN KEY {FOREIGN_KEY}"
            ))?;
        }
        Ok(())
    }

    fn drop_index(&self, name: &str, table: &str) -> String {
        format!("DROP INDEX {name} ON {table}")
    }

    fn table_exists(&mut self, name: &str) -> Result<bool, DbError> {
        let n: Option<i64> = self
            .conn
            .exec_first(
                "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?",
                (name,),
            )
            .map_err(error)?;
        Ok(n.unwrap_or(0) > 0)
    }

    fn preload(&mut self) -> Result<(), DbError> {
        // The clustered indexes (every row) of the two tables, then each
        // secondary index of updates, into the buffer pool.
        for sql in [
            "SELECT SUM(LENGTH(col_address)) FROM updates",
            "SELECT SUM(LENGTH(col_address)) FROM hundred",
        ] {
            self.fetch(sql)?;
        }
        for i in INDEXES
            .iter()
            .filter(|i| i.table == "updates" && i.kind != IndexKind::Clustered)
        {
            self.fetch(&format!(
                "SELECT COUNT({c}) FROM updates FORCE INDEX ({n})",
                c = i.column,
                n = i.name()
            ))?;
        }
        Ok(())
    }

    fn settings(&mut self) -> Result<Settings, DbError> {
        let v = self.variables(&[
            "version",
            "version_comment",
            "default_storage_engine",
            "transaction_isolation",
            "tx_isolation",
            "innodb_buffer_pool_size",
            "innodb_flush_log_at_trx_commit",
            "sync_binlog",
            "log_bin",
        ])?;
        let get = |name: &str| v.get(name).cloned().unwrap_or_else(|| "?".into());
        let isolation = v
            .get("transaction_isolation")
            .or_else(|| v.get("tx_isolation"))
            .cloned()
            .unwrap_or_else(|| "?".into());
        Ok(Settings {
            version: format!(
                "{} ({}), tables ENGINE=InnoDB (default_storage_engine={})",
                get("version"),
                get("version_comment"),
                get("default_storage_engine")
            ),
            isolation,
            cache: format!("innodb_buffer_pool_size={}", get("innodb_buffer_pool_size")),
            durability: format!(
                "innodb_flush_log_at_trx_commit={}, sync_binlog={}, log_bin={}",
                get("innodb_flush_log_at_trx_commit"),
                get("sync_binlog"),
                get("log_bin")
            ),
            index_mapping:
                "clustered: InnoDB primary key (rows stored in its B-tree; tenpct: key, code); hash: B-tree (InnoDB has no hash index: USING HASH is taken as BTREE); B-tree: B-tree; foreign key: hundred_signed_fk"
                    .into(),
        })
    }

    fn bigint(&self) -> &'static str {
        "SIGNED"
    }

    fn sql(&mut self) -> &mut dyn super::sql::Sql {
        self
    }
}
