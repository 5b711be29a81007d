//! The SQLite backend of the results store.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use nodebench_core::{BenchResult, Run, RunStatus, ThresholdVerdict};
use rusqlite::{
    Connection, ErrorCode, OptionalExtension, Transaction, TransactionBehavior, params,
};

use crate::codec::{
    self, Counts, HistogramRow, MetricRow, ResultRow, RunRow, SeriesRow, SummaryRow, json, to_i64,
};
use crate::schema::{self, supported_version};
use crate::{RunSummary, Store, StoreError};

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
            location: path.display().to_string(),
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
    for script in schema::pending(current)? {
        tx.execute_batch(script)?;
    }
    tx.execute("UPDATE schema_version SET version = ?1", [supported])?;
    tx.commit()?;
    Ok(())
}

// ---- writing --------------------------------------------------------------

/// Inserts `result` as number `seq` of run `run_id`, inside `tx`.
fn insert_result(
    tx: &Transaction<'_>,
    run_id: i64,
    seq: i64,
    result: &BenchResult,
) -> Result<(), StoreError> {
    let r = ResultRow::encode(result)?;
    tx.execute(
        "INSERT INTO results (run_id, seq, benchmark, parameters, status, error, warnings, started_at, ended_at, bottleneck, phases, disturbance, error_phase)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
        params![
            run_id,
            seq,
            r.benchmark,
            r.parameters,
            r.status,
            r.error,
            r.warnings,
            r.started_at,
            r.ended_at,
            r.bottleneck,
            r.phases,
            r.disturbance,
            r.error_phase,
        ],
    )?;
    let result_id = tx.last_insert_rowid();

    let mut stmt = tx.prepare_cached(
        "INSERT INTO metrics (result_id, name, value, unit, better, labels, stats,
                              reference_name, reference_value, percent_of_reference, printed)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
    )?;
    for m in &result.metrics {
        let m = MetricRow::encode(m)?;
        stmt.execute(params![
            result_id,
            m.name,
            m.value,
            m.unit,
            m.better,
            m.labels,
            m.stats,
            m.reference_name,
            m.reference_value,
            m.percent_of_reference,
            m.printed,
        ])?;
    }

    let mut stmt = tx.prepare_cached(
        "INSERT INTO histograms (result_id, name, unit, scale, labels, count, hdr_base64)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
    )?;
    for h in &result.histograms {
        let h = HistogramRow::encode(h)?;
        stmt.execute(params![
            result_id,
            h.name,
            h.unit,
            h.scale,
            h.labels,
            h.count,
            h.hdr_base64,
        ])?;
    }

    let mut stmt = tx.prepare_cached(
        "INSERT INTO series (result_id, name, unit, labels, points, points_packed)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?;
    let mut before = None;
    for s in &result.series {
        let row = SeriesRow::encode(s, before)?;
        stmt.execute(params![
            result_id,
            row.name,
            row.unit,
            row.labels,
            row.points,
            row.points_packed
        ])?;
        before = Some(s);
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
        "SELECT name, value, unit, better, labels, stats, reference_name, reference_value, percent_of_reference, printed
         FROM metrics WHERE result_id = ?1 ORDER BY id",
    )?;
    let mut rows = stmt.query([result_id])?;
    while let Some(row) = rows.next()? {
        let m = metric_row(row, 0)?;
        r.metrics.push(m.decode(result_id)?);
    }

    let mut stmt = conn.prepare_cached(
        "SELECT name, unit, scale, labels, count, hdr_base64 FROM histograms WHERE result_id = ?1 ORDER BY id",
    )?;
    let mut rows = stmt.query([result_id])?;
    while let Some(row) = rows.next()? {
        let h = HistogramRow {
            name: row.get(0)?,
            unit: row.get(1)?,
            scale: row.get(2)?,
            labels: row.get(3)?,
            count: row.get(4)?,
            hdr_base64: row.get(5)?,
        };
        r.histograms.push(h.decode(result_id)?);
    }

    let mut stmt = conn.prepare_cached(
        "SELECT name, unit, labels, points, points_packed FROM series WHERE result_id = ?1 ORDER BY id",
    )?;
    let mut rows = stmt.query([result_id])?;
    while let Some(row) = rows.next()? {
        let s = SeriesRow {
            name: row.get(0)?,
            unit: row.get(1)?,
            labels: row.get(2)?,
            points: row.get(3)?,
            points_packed: row.get(4)?,
        };
        let series = s.decode(result_id, r.series.last())?;
        r.series.push(series);
    }
    Ok(())
}

impl Store for SqliteStore {
    fn begin_run(&mut self, run: &Run) -> Result<i64, StoreError> {
        let row = RunRow::encode(run)?;
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        tx.execute(
            "INSERT INTO runs (started_at, ended_at, status, nodebench_version, command_line, tags,
                               inventory, schema_version, verdicts, build)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                row.started_at,
                row.ended_at,
                row.status,
                row.nodebench_version,
                row.command_line,
                row.tags,
                row.inventory,
                row.schema_version,
                row.verdicts,
                row.build,
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
            params![status.as_str(), codec::ts(&ended_at), run_id],
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

        let mut per_run: HashMap<i64, Counts> = HashMap::new();
        {
            let mut stmt = tx.prepare(
                "SELECT r.run_id, r.benchmark, (SELECT COUNT(*) FROM metrics m WHERE m.result_id = r.id)
                 FROM results r ORDER BY r.run_id, r.seq, r.id",
            )?;
            let mut rows = stmt.query([])?;
            while let Some(row) = rows.next()? {
                let counts = per_run.entry(row.get(0)?).or_default();
                codec::count_result(counts, row.get(1)?, row.get(2)?);
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
                let summary = SummaryRow {
                    id: row.get(0)?,
                    started_at: row.get(1)?,
                    ended_at: row.get(2)?,
                    status: row.get(3)?,
                    command_line: row.get(4)?,
                    tags: row.get(5)?,
                    inventory: row.get(6)?,
                };
                let counts = per_run.remove(&summary.id).unwrap_or_default();
                summaries.push(summary.decode(counts)?);
            }
        }
        tx.commit()?;
        Ok(summaries)
    }

    fn load_run(&self, id: i64) -> Result<Run, StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        let row: Option<RunRow> = tx
            .query_row(
                "SELECT started_at, ended_at, status, nodebench_version, command_line, tags, inventory,
                        schema_version, verdicts, build
                 FROM runs WHERE id = ?1",
                [id],
                |r| {
                    Ok(RunRow {
                        started_at: r.get(0)?,
                        ended_at: r.get(1)?,
                        status: r.get(2)?,
                        nodebench_version: r.get(3)?,
                        command_line: r.get(4)?,
                        tags: r.get(5)?,
                        inventory: r.get(6)?,
                        schema_version: r.get(7)?,
                        verdicts: r.get(8)?,
                        build: r.get(9)?,
                    })
                },
            )
            .optional()?;
        let Some(row) = row else {
            return Err(StoreError::NotFound(id));
        };
        let mut run = row.decode(id)?;

        let mut stmt = tx.prepare(
            "SELECT id, benchmark, parameters, status, error, warnings, started_at, ended_at, bottleneck, phases, disturbance, error_phase
             FROM results WHERE run_id = ?1 ORDER BY seq, id",
        )?;
        let mut rows = stmt.query([id])?;
        while let Some(row) = rows.next()? {
            let result_id: i64 = row.get(0)?;
            let r = result_row(row, 1)?;
            let mut result = r.decode(id, result_id)?;
            load_figures(&tx, result_id, &mut result)?;
            run.results.push(result);
        }
        drop(rows);
        drop(stmt);
        // Runs stored before orientation existed read as this version.
        codec::settle(&mut run);
        tx.commit()?;
        Ok(run)
    }

    fn load_runs_metrics(&self, ids: &[i64]) -> Result<Vec<Run>, StoreError> {
        let tx = self.conn.unchecked_transaction()?;
        // The ids as a JSON array, read by json_each: one statement for any
        // number of runs.
        let wanted = json(ids)?;
        let mut runs: HashMap<i64, Run> = HashMap::new();
        {
            let mut stmt = tx.prepare(
                "SELECT id, started_at, ended_at, status, nodebench_version, command_line, tags,
                        inventory, schema_version, verdicts, build
                 FROM runs WHERE id IN (SELECT value FROM json_each(?1))",
            )?;
            let mut rows = stmt.query([&wanted])?;
            while let Some(r) = rows.next()? {
                let id: i64 = r.get(0)?;
                let row = RunRow {
                    started_at: r.get(1)?,
                    ended_at: r.get(2)?,
                    status: r.get(3)?,
                    nodebench_version: r.get(4)?,
                    command_line: r.get(5)?,
                    tags: r.get(6)?,
                    inventory: r.get(7)?,
                    schema_version: r.get(8)?,
                    verdicts: r.get(9)?,
                    build: r.get(10)?,
                };
                runs.insert(id, row.decode(id)?);
            }
        }
        // Result id -> (run id, place in its results).
        let mut index: HashMap<i64, (i64, usize)> = HashMap::new();
        {
            let mut stmt = tx.prepare(
                "SELECT id, run_id, benchmark, parameters, status, error, warnings, started_at,
                        ended_at, bottleneck, phases, disturbance, error_phase
                 FROM results WHERE run_id IN (SELECT value FROM json_each(?1))
                 ORDER BY run_id, seq, id",
            )?;
            let mut rows = stmt.query([&wanted])?;
            while let Some(row) = rows.next()? {
                let result_id: i64 = row.get(0)?;
                let run_id: i64 = row.get(1)?;
                let r = result_row(row, 2)?;
                let Some(run) = runs.get_mut(&run_id) else {
                    continue;
                };
                index.insert(result_id, (run_id, run.results.len()));
                run.results.push(r.decode(run_id, result_id)?);
            }
        }
        {
            let mut stmt = tx.prepare(
                "SELECT m.result_id, m.name, m.value, m.unit, m.better, m.labels, m.stats,
                        m.reference_name, m.reference_value, m.percent_of_reference, m.printed
                 FROM metrics m JOIN results r ON r.id = m.result_id
                 WHERE r.run_id IN (SELECT value FROM json_each(?1)) ORDER BY m.id",
            )?;
            let mut rows = stmt.query([&wanted])?;
            while let Some(row) = rows.next()? {
                let result_id: i64 = row.get(0)?;
                let m = metric_row(row, 1)?;
                let Some(&(run_id, place)) = index.get(&result_id) else {
                    continue;
                };
                if let Some(run) = runs.get_mut(&run_id) {
                    run.results[place].metrics.push(m.decode(result_id)?);
                }
            }
        }
        tx.commit()?;
        codec::in_order(ids, runs)
    }

    fn delete_run(&mut self, id: i64) -> Result<(), StoreError> {
        let changed = self.conn.execute("DELETE FROM runs WHERE id = ?1", [id])?;
        if changed == 0 {
            return Err(StoreError::NotFound(id));
        }
        Ok(())
    }
}

/// A results row read from `row`, its columns (benchmark, parameters,
/// status, error, warnings, start, end, bottleneck, phases, disturbance,
/// error phase) from column `at` on, as every results query selects them.
fn result_row(row: &rusqlite::Row<'_>, at: usize) -> Result<ResultRow, rusqlite::Error> {
    Ok(ResultRow {
        benchmark: row.get(at)?,
        parameters: row.get(at + 1)?,
        status: row.get(at + 2)?,
        error: row.get(at + 3)?,
        warnings: row.get(at + 4)?,
        started_at: row.get(at + 5)?,
        ended_at: row.get(at + 6)?,
        bottleneck: row.get(at + 7)?,
        phases: row.get(at + 8)?,
        disturbance: row.get(at + 9)?,
        error_phase: row.get(at + 10)?,
    })
}

/// A metrics row read from `row`, its columns (name, value, unit, better,
/// labels, stats, reference name and value, percent of reference, printed)
/// from column `at` on, as every metrics query selects them.
fn metric_row(row: &rusqlite::Row<'_>, at: usize) -> Result<MetricRow, rusqlite::Error> {
    Ok(MetricRow {
        name: row.get(at)?,
        value: row.get(at + 1)?,
        unit: row.get(at + 2)?,
        better: row.get(at + 3)?,
        labels: row.get(at + 4)?,
        stats: row.get(at + 5)?,
        reference_name: row.get(at + 6)?,
        reference_value: row.get(at + 7)?,
        percent_of_reference: row.get(at + 8)?,
        printed: row.get(at + 9)?,
    })
}
