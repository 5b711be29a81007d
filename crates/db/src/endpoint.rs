//! The built-in HTTP server's database page, `/db/ir` (`nodebench http
//! serve --db URL`, or `http load|sweep /db/ir --db URL`): AS3AP's
//! `ir_select` of a random key of `updates` (or `?key=N`) on a database
//! loaded by `nodebench db as3ap`, the row as the body. It implements
//! core's [`Endpoint`] (the http crate knows only that trait); each server
//! worker gets its own connection, as each PHP worker of the AMP-stack study's stack
//! held its own MySQL connection.

use crate::data::{dense_index, dense_key};
use nodebench_core::bench::BenchError;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

use nodebench_core::endpoint::{Endpoint, EndpointReply, Handler};
use nodebench_core::names::db::table;
use nodebench_core::rng::{XorShift64, splitmix64};

use crate::config::Target;
use crate::engine::mysql::MysqlConnector;
use crate::engine::postgres::PostgresConnector;
use crate::engine::sqlite::SqliteConnector;
use crate::engine::{Connector, DbError, Session};
use crate::schema::CHECKSUM_TABLE;

/// The endpoint's path.
pub const IR_PATH: &str = "/db/ir";

/// `/db/ir` on the database `--db` names.
#[derive(Debug)]
pub struct IrEndpoint {
    /// `--db` as given (may hold a password: never shown).
    db: String,
    /// Handlers opened so far: each one's key sequence starts from its own seed.
    opened: AtomicU64,
    /// The password where `db` has none, looked up once for all workers
    /// (so a prompt is shown once, not once a worker).
    password: OnceLock<Result<Option<String>, String>>,
}

impl IrEndpoint {
    /// The endpoint on `db` (`sqlite:PATH` or a server URL, as `db as3ap
    /// --db` takes it); nothing is opened until a server worker asks.
    pub fn new(db: impl Into<String>) -> IrEndpoint {
        IrEndpoint {
            db: db.into(),
            opened: AtomicU64::new(0),
            password: OnceLock::new(),
        }
    }

    /// The password for a server URL without one, looked up on the first
    /// call only ([`nodebench_core::credentials::password_for`]).
    fn password(&self, url: &str) -> Result<Option<String>, String> {
        self.password
            .get_or_init(|| {
                nodebench_core::credentials::password_for(url, "--db").map_err(|e| e.to_string())
            })
            .clone()
    }

    /// A checked session on the database and its rows per table.
    fn connect(&self) -> Result<(Box<dyn Session>, u64), String> {
        let target = Target::parse(&self.db).map_err(|e| e.to_string())?;
        let shown = target.display();
        let hint = format!("load it first with: nodebench db as3ap --db {shown} --tests single");
        let connector: Box<dyn Connector> = match &target {
            Target::Sqlite(Some(path)) => {
                if !path.is_file() {
                    return Err(format!("--db {shown}: no such file; {hint}"));
                }
                Box::new(SqliteConnector { path: path.clone() })
            }
            Target::Postgres(url) => Box::new(PostgresConnector {
                url: url.clone(),
                password: self.password(url)?,
            }),
            Target::Mysql(url) => Box::new(MysqlConnector {
                url: url.clone(),
                password: self.password(url)?,
            }),
            Target::Sqlite(None) => return Err("--db: expected sqlite:PATH or a server URL".into()),
        };
        let fail = |e: DbError| format!("--db {shown}: {e}");
        let mut session = connector.connect().map_err(fail)?;
        if !session.table_exists(CHECKSUM_TABLE).map_err(fail)? {
            return Err(format!("--db {shown}: no AS3AP database there; {hint}"));
        }
        let rows = session
            .fetch(&format!(
                "SELECT rows_per_table FROM {CHECKSUM_TABLE} WHERE table_name = '{}'",
                table::UPDATES
            ))
            .map_err(fail)?;
        match rows.first.first() {
            Some(Some(n)) if rows.rows == 1 && *n > 0 => Ok((session, *n as u64)),
            _ => Err(format!(
                "--db {shown}: the AS3AP load recorded no updates table; {hint}"
            )),
        }
    }
}

impl Endpoint for IrEndpoint {
    fn path(&self) -> &str {
        IR_PATH
    }

    fn help(&self) -> String {
        format!(
            "{IR_PATH}[?key=N]  AS3AP's ir_select of a random key (or N) of updates on {}: the row, one column=value a line; 500 when the database fails",
            self.target()
        )
    }

    fn target(&self) -> String {
        Target::parse(&self.db).map_or_else(|_| "(invalid --db)".into(), |t| t.display())
    }

    fn validate(&self) -> Result<(), BenchError> {
        match Target::parse(&self.db)? {
            Target::Postgres(url) | Target::Mysql(url) => {
                nodebench_core::credentials::check_password_source(&url)
            }
            Target::Sqlite(_) => Ok(()),
        }
    }

    fn open(&self) -> Result<Box<dyn Handler>, BenchError> {
        let (session, rows) = self.connect().map_err(BenchError::Invalid)?;
        let n = self.opened.fetch_add(1, Ordering::Relaxed);
        Ok(Box::new(IrHandler {
            session,
            rows,
            rng: XorShift64::new(splitmix64(n + 1)),
        }))
    }
}

/// One server worker's connection.
struct IrHandler {
    session: Box<dyn Session>,
    /// Rows of `updates`: its keys are the dense range 0, 2..=rows.
    rows: u64,
    rng: XorShift64,
}

impl IrHandler {
    /// The key a query names (`key=N`), or a random one without a query.
    fn key(&mut self, query: Option<&str>) -> Result<i64, String> {
        let rows = self.rows;
        let bad = || {
            format!(
                "400 {IR_PATH}: expected no query or ?key=N with N a loaded key: 0 or 2 to {rows}\n"
            )
        };
        match query.filter(|q| !q.is_empty()) {
            None => Ok(dense_key(self.rng.below(rows))),
            Some(q) => match q.strip_prefix("key=").map(str::parse::<i64>) {
                Some(Ok(k)) if dense_index(k, rows).is_some() => Ok(k),
                _ => Err(bad()),
            },
        }
    }
}

impl Handler for IrHandler {
    fn handle(&mut self, query: Option<&str>) -> EndpointReply {
        let key = match self.key(query) {
            Ok(k) => k,
            Err(e) => return EndpointReply::new(400, e),
        };
        match self.session.ir_select(key) {
            Ok(Some(row)) => EndpointReply::new(200, row.to_string()),
            Ok(None) => EndpointReply::new(
                404,
                format!("404 {IR_PATH}: no row of updates has col_key {key}\n"),
            ),
            Err(e) => EndpointReply::new(500, format!("500 {IR_PATH}: ir_select: {e}\n")),
        }
    }
}
