//! The SQLite backend of the results store.

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use chrono::{DateTime, SecondsFormat, Utc};
use nodebench_core::inventory::Inventory;
use nodebench_core::stats::Stats;
use nodebench_core::{
    BenchResult, Better, Histogram, Metric, Reference, ResultStatus, Run, RunStatus,
    ThresholdVerdict, TimeSeries, Unit,
};
use rusqlite::{
    Connection, ErrorCode, OptionalExtension, Transaction, TransactionBehavior, params,
};
use serde::de::DeserializeOwned;

use crate::{RunSummary, Store, StoreError};

/// Schema migrations, oldest first: script `i` brings the schema from
/// version `i` to version `i + 1`. Never edit a released script; append a
/// new one instead.
///
/// Real columns that may hold NaN are nullable: SQLite stores NaN as NULL,
/// and NULL reads back as NaN.
const MIGRATIONS: &[&str] = &[
    r#"
CREATE TABLE runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    started_at TEXT NOT NULL,
    ended_at TEXT,
    status TEXT NOT NULL,
    nodebench_version TEXT NOT NULL,
    command_line TEXT NOT NULL,
    tags TEXT NOT NULL,
    inventory TEXT,
    schema_version INTEGER NOT NULL
);
CREATE INDEX runs_started_at ON runs (started_at);

CREATE TABLE results (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    benchmark TEXT NOT NULL,
    parameters TEXT NOT NULL,
    status TEXT NOT NULL,
    error TEXT,
    warnings TEXT NOT NULL,
    started_at TEXT NOT NULL,
    ended_at TEXT NOT NULL
);
CREATE INDEX results_run_id ON results (run_id, seq);

CREATE TABLE metrics (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    result_id INTEGER NOT NULL REFERENCES results (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    value REAL,
    unit TEXT NOT NULL,
    better TEXT NOT NULL,
    labels TEXT NOT NULL,
    stats TEXT,
    reference_name TEXT,
    reference_value REAL,
    percent_of_reference REAL
);
CREATE INDEX metrics_result_id ON metrics (result_id);

CREATE TABLE histograms (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    result_id INTEGER NOT NULL REFERENCES results (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    unit TEXT NOT NULL,
    scale REAL,
    labels TEXT NOT NULL,
    count INTEGER NOT NULL,
    hdr_base64 TEXT NOT NULL
);
CREATE INDEX histograms_result_id ON histograms (result_id);

CREATE TABLE series (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    result_id INTEGER NOT NULL REFERENCES results (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    unit TEXT NOT NULL,
    labels TEXT NOT NULL,
    points TEXT NOT NULL
);
CREATE INDEX series_result_id ON series (result_id);
"#,
    r#"
ALTER TABLE runs ADD COLUMN verdicts TEXT NOT NULL DEFAULT '[]';
"#,
    r#"
ALTER TABLE results ADD COLUMN bottleneck TEXT;
"#,
];

/// How long a statement waits for another process's lock before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The longest pause between two tries of [`retry_busy`].
const MAX_BUSY_PAUSE: Duration = Duration::from_millis(50);

/// The results store in one SQLite file (WAL mode, so `nodebench runs list`
/// can read while a run writes).
pub struct SqliteStore {
    conn: Connection,
    path: PathBuf,
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl SqliteStore {
    /// Opens the store at `path`, creating its parent directories and the
    /// database if needed, and brings its schema up to date. Fails with
    /// [`StoreError::Open`] naming the path, or [`StoreError::Newer`] if the
    /// database comes from a newer nodebench.
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        let open_error = |source: Box<dyn std::error::Error + Send + Sync>| StoreError::Open {
            path: path.to_path_buf(),
            source,
        };
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            fs::create_dir_all(parent).map_err(|e| {
                open_error(Box::new(std::io::Error::new(
                    e.kind(),
                    format!("cannot create directory {}: {e}", parent.display()),
                )))
            })?;
        }
        let mut conn = Connection::open(path).map_err(|e| open_error(Box::new(e)))?;
        configure(&conn).map_err(|e| open_error(Box::new(e)))?;
        match migrate(&mut conn) {
            Ok(()) => {}
            Err(e @ StoreError::Newer { .. }) => return Err(e),
            Err(StoreError::Sqlite(e)) => return Err(open_error(Box::new(e))),
            Err(e) => return Err(open_error(Box::new(e))),
        }
        Ok(SqliteStore {
            conn,
            path: path.to_path_buf(),
        })
    }

    /// The path this store was opened at.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Per-connection settings: WAL, NORMAL sync (durable at each commit but
/// for power loss), foreign keys (for cascading deletes), busy timeout.
fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.busy_timeout(BUSY_TIMEOUT)?;
    // Switching a new database to WAL needs an exclusive lock, and SQLite
    // fails at once instead of calling the busy handler when another
    // process holds the file (two runs creating the store together).
    let _mode: String =
        retry_busy(|| conn.pragma_update_and_check(None, "journal_mode", "WAL", |row| row.get(0)))?;
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.pragma_update(None, "foreign_keys", "ON")?;
    Ok(())
}

/// Runs `op` again while SQLite reports the database busy, pausing a little
/// longer each time, until [`BUSY_TIMEOUT`] has passed: for the statements
/// where SQLite does not wait for the lock itself.
fn retry_busy<T>(mut op: impl FnMut() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        match op() {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == ErrorCode::DatabaseBusy && start.elapsed() < BUSY_TIMEOUT =>
            {
                std::thread::sleep(pause);
                pause = (pause * 2).min(MAX_BUSY_PAUSE);
            }
            other => return other,
        }
    }
}

/// The schema version this build writes and understands.
fn supported_version() -> i64 {
    i64::try_from(MIGRATIONS.len()).unwrap_or(i64::MAX)
}

/// Reads the schema version; `None` for a database without a version table.
fn read_version(conn: &Connection) -> rusqlite::Result<Option<i64>> {
    let has_table: bool = conn.query_row(
        "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version')",
        [],
        |row| row.get(0),
    )?;
    if !has_table {
        return Ok(None);
    }
    conn.query_row("SELECT version FROM schema_version", [], |row| row.get(0))
        .optional()
}

/// Applies pending migrations in one transaction; refuses a newer schema.
fn migrate(conn: &mut Connection) -> Result<(), StoreError> {
    let supported = supported_version();
    let newer = |found| StoreError::Newer { found, supported };
    // Fast path without a write lock: already up to date.
    match read_version(conn)? {
        Some(v) if v > supported => return Err(newer(v)),
        Some(v) if v == supported => return Ok(()),
        _ => {}
    }
    // IMMEDIATE: two processes opening a new store at once migrate in turn.
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.execute_batch("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")?;
    let current: i64 = match tx
        .query_row("SELECT version FROM schema_version", [], |row| row.get(0))
        .optional()?
    {
        Some(v) => v,
        None => {
            tx.execute("INSERT INTO schema_version (version) VALUES (0)", [])?;
            0
        }
    };
    if current > supported {
        return Err(newer(current));
    }
    let start = usize::try_from(current).map_err(|_| StoreError::Invalid {
        what: "schema version".into(),
        reason: format!("{current} is negative"),
    })?;
    for script in &MIGRATIONS[start..] {
        tx.execute_batch(script)?;
    }
    tx.execute("UPDATE schema_version SET version = ?1", [supported])?;
    tx.commit()?;
    Ok(())
}

// ---- encoding -------------------------------------------------------------

/// RFC 3339 UTC with nanoseconds: fixed width, so text order is time order,
/// and it reads back exactly.
fn ts(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Nanos, true)
}

fn json<T: serde::Serialize + ?Sized>(value: &T) -> Result<String, StoreError> {
    Ok(serde_json::to_string(value)?)
}

fn to_i64<T: TryInto<i64> + Copy + std::fmt::Display>(
    value: T,
    what: &str,
) -> Result<i64, StoreError> {
    value.try_into().map_err(|_| StoreError::Invalid {
        what: what.to_string(),
        reason: format!("{value} does not fit in a 64-bit signed integer"),
    })
}

// ---- decoding -------------------------------------------------------------

fn invalid(what: impl FnOnce() -> String, reason: impl std::fmt::Display) -> StoreError {
    StoreError::Invalid {
        what: what(),
        reason: reason.to_string(),
    }
}

fn parse_ts(s: &str, what: impl FnOnce() -> String) -> Result<DateTime<Utc>, StoreError> {
    DateTime::parse_from_rfc3339(s)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| invalid(what, format!("timestamp {s:?}: {e}")))
}

fn parse_json<T: DeserializeOwned>(
    s: &str,
    what: impl FnOnce() -> String,
) -> Result<T, StoreError> {
    serde_json::from_str(s).map_err(|e| invalid(what, format!("JSON {s:?}: {e}")))
}

fn parse_with<T>(
    s: &str,
    parse: fn(&str) -> Option<T>,
    what: impl FnOnce() -> String,
) -> Result<T, StoreError> {
    parse(s).ok_or_else(|| invalid(what, format!("unknown value {s:?}")))
}

fn parse_unit(s: &str, what: impl FnOnce() -> String) -> Result<Unit, StoreError> {
    parse_with(s, Unit::from_symbol, what)
}

/// SQLite stores NaN as NULL; read it back as NaN.
fn real(v: Option<f64>) -> f64 {
    v.unwrap_or(f64::NAN)
}

// ---- writing --------------------------------------------------------------

/// Inserts `result` as number `seq` of run `run_id`, inside `tx`.
fn insert_result(
    tx: &Transaction<'_>,
    run_id: i64,
    seq: i64,
    result: &BenchResult,
) -> Result<(), StoreError> {
    tx.execute(
        "INSERT INTO results (run_id, seq, benchmark, parameters, status, error, warnings, started_at, ended_at, bottleneck)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![
            run_id,
            seq,
            result.benchmark,
            json(&result.parameters)?,
            result.status.as_str(),
            result.error,
            json(&result.warnings)?,
            ts(&result.started_at),
            ts(&result.ended_at),
            result.bottleneck,
        ],
    )?;
    let result_id = tx.last_insert_rowid();

    let mut stmt = tx.prepare_cached(
        "INSERT INTO metrics (result_id, name, value, unit, better, labels, stats,
                              reference_name, reference_value, percent_of_reference)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?;
    for m in &result.metrics {
        let stats = m.stats.as_ref().map(json).transpose()?;
        stmt.execute(params![
            result_id,
            m.name,
            m.value,
            m.unit.symbol(),
            m.better.as_str(),
            json(&m.labels)?,
            stats,
            m.reference.as_ref().map(|r| r.name.as_str()),
            m.reference.as_ref().map(|r| r.value),
            m.percent_of_reference,
        ])?;
    }

    let mut stmt = tx.prepare_cached(
        "INSERT INTO histograms (result_id, name, unit, scale, labels, count, hdr_base64)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    for h in &result.histograms {
        stmt.execute(params![
            result_id,
            h.name,
            h.unit.symbol(),
            h.scale,
            json(&h.labels)?,
            to_i64(h.count, "histogram count")?,
            h.hdr_base64,
        ])?;
    }

    let mut stmt = tx.prepare_cached(
        "INSERT INTO series (result_id, name, unit, labels, points) VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for s in &result.series {
        stmt.execute(params![
            result_id,
            s.name,
            s.unit.symbol(),
            json(&s.labels)?,
            json(&s.points)?
        ])?;
    }
    Ok(())
}

/// Fails with [`StoreError::NotFound`] unless run `id` exists.
fn check_run_exists(conn: &Connection, id: i64) -> Result<(), StoreError> {
    let found = conn
        .query_row("SELECT 1 FROM runs WHERE id = ?1", [id], |_| Ok(()))
        .optional()?;
    found.ok_or(StoreError::NotFound(id))
}

// ---- reading --------------------------------------------------------------

/// Reads the metrics, histograms and series of result `result_id` into `r`.
fn load_figures(conn: &Connection, result_id: i64, r: &mut BenchResult) -> Result<(), StoreError> {
    let mut stmt = conn.prepare_cached(
        "SELECT name, value, unit, better, labels, stats, reference_name, reference_value, percent_of_reference
         FROM metrics WHERE result_id = ?1 ORDER BY id",
    )?;
    let mut rows = stmt.query([result_id])?;
    while let Some(row) = rows.next()? {
        let name: String = row.get(0)?;
        let what = |field: &str| {
            let name = name.clone();
            let field = field.to_string();
            move || format!("{field} of metric {name:?} of result {result_id}")
        };
        let unit = parse_unit(&row.get::<_, String>(2)?, what("unit"))?;
        let better = parse_with(&row.get::<_, String>(3)?, Better::parse, what("direction"))?;
        let labels = parse_json(&row.get::<_, String>(4)?, what("labels"))?;
        let stats = match row.get::<_, Option<String>>(5)? {
            Some(s) => Some(parse_json::<Stats>(&s, what("stats"))?),
            None => None,
        };
        let reference = row
            .get::<_, Option<String>>(6)?
            .map(|rname| -> rusqlite::Result<Reference> {
                Ok(Reference {
                    name: rname,
                    value: real(row.get(7)?),
                })
            })
            .transpose()?;
        r.metrics.push(Metric {
            value: real(row.get(1)?),
            unit,
            better,
            labels,
            stats,
            reference,
            percent_of_reference: row.get(8)?,
            name,
        });
    }

    let mut stmt = conn.prepare_cached(
        "SELECT name, unit, scale, labels, count, hdr_base64 FROM histograms WHERE result_id = ?1 ORDER BY id",
    )?;
    let mut rows = stmt.query([result_id])?;
    while let Some(row) = rows.next()? {
        let name: String = row.get(0)?;
        let what = |field: &'static str| {
            let name = name.clone();
            move || format!("{field} of histogram {name:?} of result {result_id}")
        };
        let count: i64 = row.get(4)?;
        r.histograms.push(Histogram {
            unit: parse_unit(&row.get::<_, String>(1)?, what("unit"))?,
            scale: real(row.get(2)?),
            labels: parse_json(&row.get::<_, String>(3)?, what("labels"))?,
            count: u64::try_from(count)
                .map_err(|e| invalid(what("count"), format!("{count}: {e}")))?,
            hdr_base64: row.get(5)?,
            name,
        });
    }

    let mut stmt = conn.prepare_cached(
        "SELECT name, unit, labels, points FROM series WHERE result_id = ?1 ORDER BY id",
    )?;
    let mut rows = stmt.query([result_id])?;
    while let Some(row) = rows.next()? {
        let name: String = row.get(0)?;
        let what = |field: &'static str| {
            let name = name.clone();
            move || format!("{field} of series {name:?} of result {result_id}")
        };
        r.series.push(TimeSeries {
            unit: parse_unit(&row.get::<_, String>(1)?, what("unit"))?,
            labels: parse_json(&row.get::<_, String>(2)?, what("labels"))?,
            points: parse_json(&row.get::<_, String>(3)?, what("points"))?,
            name,
        });
    }
    Ok(())
}

/// The `hostname` key of an inventory's JSON, if it has one.
fn hostname_of(inventory: Option<&str>) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(inventory?).ok()?;
    value.get("hostname")?.as_str().map(str::to_string)
}

impl Store for SqliteStore {
    fn begin_run(&mut self, run: &Run) -> Result<i64, StoreError> {
        let inventory = run.inventory.as_ref().map(json).transpose()?;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        tx.execute(
            "INSERT INTO runs (started_at, ended_at, status, nodebench_version, command_line, tags,
                               inventory, schema_version, verdicts)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                ts(&run.started_at),
                run.ended_at.as_ref().map(ts),
                run.status.as_str(),
                run.nodebench_version,
                json(&run.command_line)?,
                json(&run.tags)?,
                inventory,
                run.schema_version,
                json(&run.verdicts)?,
            ],
        )?;
        let id = tx.last_insert_rowid();
        for (seq, result) in run.results.iter().enumerate() {
            insert_result(&tx, id, to_i64(seq, "result number")?, result)?;
        }
        tx.commit()?;
        Ok(id)
    }

    fn add_result(&mut self, run_id: i64, result: &BenchResult) -> Result<(), StoreError> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        check_run_exists(&tx, run_id)?;
        let seq: i64 = tx.query_row(
            "SELECT COALESCE(MAX(seq) + 1, 0) FROM results WHERE run_id = ?1",
            [run_id],
            |row| row.get(0),
        )?;
        insert_result(&tx, run_id, seq, result)?;
        tx.commit()?;
        Ok(())
    }

    fn finish_run(
        &mut self,
        run_id: i64,
        status: RunStatus,
        ended_at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let changed = self.conn.execute(
            "UPDATE runs SET status = ?1, ended_at = ?2 WHERE id = ?3",
            params![status.as_str(), ts(&ended_at), run_id],
        )?;
        if changed == 0 {
            return Err(StoreError::NotFound(run_id));
        }
        Ok(())
    }

    fn set_verdicts(
        &mut self,
        run_id: i64,
        verdicts: &[ThresholdVerdict],
    ) -> Result<(), StoreError> {
        let changed = self.conn.execute(
            "UPDATE runs SET verdicts = ?1 WHERE id = ?2",
            params![json(verdicts)?, run_id],
        )?;
        if changed == 0 {
            return Err(StoreError::NotFound(run_id));
        }
        Ok(())
    }

    fn list_runs(&self) -> Result<Vec<RunSummary>, StoreError> {
        // One read transaction: a consistent snapshot while a run writes.
        let tx = self.conn.unchecked_transaction()?;

        // run id -> (distinct benchmarks in order, result count, metric count)
        let mut per_run: HashMap<i64, (Vec<String>, usize, usize)> = HashMap::new();
        {
            let mut stmt = tx.prepare(
                "SELECT r.run_id, r.benchmark, (SELECT COUNT(*) FROM metrics m WHERE m.result_id = r.id)
                 FROM results r ORDER BY r.run_id, r.seq, r.id",
            )?;
            let mut rows = stmt.query([])?;
            while let Some(row) = rows.next()? {
                let run_id: i64 = row.get(0)?;
                let benchmark: String = row.get(1)?;
                let metrics: i64 = row.get(2)?;
                let entry = per_run.entry(run_id).or_default();
                if !entry.0.contains(&benchmark) {
                    entry.0.push(benchmark);
                }
                entry.1 += 1;
                entry.2 += usize::try_from(metrics).unwrap_or(0);
            }
        }

        let mut summaries = Vec::new();
        {
            let mut stmt = tx.prepare(
                "SELECT id, started_at, ended_at, status, command_line, tags, inventory
                 FROM runs ORDER BY started_at DESC, id DESC",
            )?;
            let mut rows = stmt.query([])?;
            while let Some(row) = rows.next()? {
                let id: i64 = row.get(0)?;
                let what = |field: &'static str| move || format!("{field} of run {id}");
                let ended_at = match row.get::<_, Option<String>>(2)? {
                    Some(s) => Some(parse_ts(&s, what("end time"))?),
                    None => None,
                };
                let (benchmarks, result_count, metric_count) =
                    per_run.remove(&id).unwrap_or_default();
                summaries.push(RunSummary {
                    id,
                    started_at: parse_ts(&row.get::<_, String>(1)?, what("start time"))?,
                    ended_at,
                    status: parse_with(
                        &row.get::<_, String>(3)?,
                        RunStatus::parse,
                        what("status"),
                    )?,
                    command_line: parse_json(&row.get::<_, String>(4)?, what("command line"))?,
                    tags: parse_json(&row.get::<_, String>(5)?, what("tags"))?,
                    benchmarks,
                    result_count,
                    metric_count,
                    hostname: hostname_of(row.get::<_, Option<String>>(6)?.as_deref()),
                });
            }
        }
        tx.commit()?;
        Ok(summaries)
    }

    fn load_run(&self, id: i64) -> Result<Run, StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        let what = |field: &'static str| move || format!("{field} of run {id}");

        type RunRow = (
            String,
            Option<String>,
            String,
            String,
            String,
            String,
            Option<String>,
            i64,
            String,
        );
        let row: Option<RunRow> = tx
            .query_row(
                "SELECT started_at, ended_at, status, nodebench_version, command_line, tags, inventory,
                        schema_version, verdicts
                 FROM runs WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?, r.get(5)?, r.get(6)?, r.get(7)?, r.get(8)?)),
            )
            .optional()?;
        let Some((
            started_at,
            ended_at,
            status,
            nodebench_version,
            command_line,
            tags,
            inventory,
            schema_version,
            verdicts,
        )) = row
        else {
            return Err(StoreError::NotFound(id));
        };
        let mut run = Run {
            schema_version: u32::try_from(schema_version)
                .map_err(|e| invalid(what("schema version"), format!("{schema_version}: {e}")))?,
            id: Some(id),
            started_at: parse_ts(&started_at, what("start time"))?,
            ended_at: ended_at
                .map(|s| parse_ts(&s, what("end time")))
                .transpose()?,
            status: parse_with(&status, RunStatus::parse, what("status"))?,
            nodebench_version,
            command_line: parse_json(&command_line, what("command line"))?,
            tags: parse_json(&tags, what("tags"))?,
            inventory: inventory
                .map(|s| parse_json::<Inventory>(&s, what("inventory")))
                .transpose()?,
            results: Vec::new(),
            verdicts: parse_json(&verdicts, what("verdicts"))?,
        };

        let mut stmt = tx.prepare(
            "SELECT id, benchmark, parameters, status, error, warnings, started_at, ended_at, bottleneck
             FROM results WHERE run_id = ?1 ORDER BY seq, id",
        )?;
        let mut rows = stmt.query([id])?;
        while let Some(row) = rows.next()? {
            let result_id: i64 = row.get(0)?;
            let what =
                |field: &'static str| move || format!("{field} of result {result_id} of run {id}");
            let parameters: BTreeMap<String, serde_json::Value> =
                parse_json(&row.get::<_, String>(2)?, what("parameters"))?;
            let mut result = BenchResult {
                benchmark: row.get(1)?,
                parameters,
                status: parse_with(
                    &row.get::<_, String>(3)?,
                    ResultStatus::parse,
                    what("status"),
                )?,
                error: row.get(4)?,
                warnings: parse_json(&row.get::<_, String>(5)?, what("warnings"))?,
                started_at: parse_ts(&row.get::<_, String>(6)?, what("start time"))?,
                ended_at: parse_ts(&row.get::<_, String>(7)?, what("end time"))?,
                metrics: Vec::new(),
                histograms: Vec::new(),
                series: Vec::new(),
                bottleneck: row.get(8)?,
            };
            load_figures(&tx, result_id, &mut result)?;
            run.results.push(result);
        }
        drop(rows);
        drop(stmt);
        tx.commit()?;
        Ok(run)
    }

    fn delete_run(&mut self, id: i64) -> Result<(), StoreError> {
        let changed = self.conn.execute("DELETE FROM runs WHERE id = ?1", [id])?;
        if changed == 0 {
            return Err(StoreError::NotFound(id));
        }
        Ok(())
    }
}
