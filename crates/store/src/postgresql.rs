//! The PostgreSQL backend of the results store: the same tables and
//! migrations as SQLite (`schema.rs`, in PostgreSQL's words), for a store
//! many nodes write into at once. Each write is one transaction; ids come
//! from sequences, so concurrent writers never collide; a result's sequence
//! number is taken under a lock on its run's row; migrations run under a
//! transaction-scoped advisory lock, so processes opening a new database
//! together migrate it once, in turn.

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use chrono::{DateTime, Utc};
use nodebench_core::credentials::{self, without_password};
use nodebench_core::{BenchResult, Run, RunStatus, ThresholdVerdict};
use postgres::{Client, Config, IsolationLevel, NoTls, Transaction};

use crate::codec::{
    self, Counts, HistogramRow, MetricRow, ResultRow, RunRow, SeriesRow, SummaryRow, json, to_i64,
};
use crate::error::postgres_message;
use crate::schema::{self, postgres_dialect, supported_version};
use crate::{RunSummary, Store, StoreError};

/// How long connecting waits for the server when the URL sets no
/// `connect_timeout`.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The advisory lock migrations hold (any constant shared by every
/// nodebench: "nbstore" in ASCII).
const MIGRATION_LOCK: i64 = 0x006e_6273_746f_7265;

/// The results store in a PostgreSQL database.
pub struct PostgresStore {
    client: Mutex<Client>,
    location: String,
}

impl std::fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PostgresStore")
            .field("location", &self.location)
            .finish_non_exhaustive()
    }
}

impl PostgresStore {
    /// Connects to the database `url` names
    /// (`postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`, or any form the
    /// `postgres` crate reads), creates the schema or brings it up to date.
    /// Fails with [`StoreError::Open`] naming the URL without its password,
    /// or [`StoreError::Newer`].
    pub fn open(url: &str) -> Result<PostgresStore, StoreError> {
        let location = without_password(url);
        let open_error = |message: String| StoreError::Open {
            location: location.clone(),
            source: message.into(),
        };
        let mut config = Config::from_str(url).map_err(|e| open_error(postgres_message(&e)))?;
        if config.get_password().is_none()
            && let Some(p) =
                credentials::password_for(url, "--store").map_err(|e| open_error(e.to_string()))?
        {
            config.password(p);
        }
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        if config.get_application_name().is_none() {
            config.application_name("nodebench");
        }
        let mut client = config
            .connect(NoTls)
            .map_err(|e| open_error(postgres_message(&e)))?;
        match migrate(&mut client) {
            Ok(()) => {}
            Err(e @ StoreError::Newer { .. }) => return Err(e),
            Err(StoreError::Postgres(message)) => return Err(open_error(message)),
            Err(e) => return Err(open_error(e.to_string())),
        }
        Ok(PostgresStore {
            client: Mutex::new(client),
            location,
        })
    }

    /// The URL this store was opened at, without its password.
    pub fn location(&self) -> &str {
        &self.location
    }

    /// The connection (a panic in another thread while holding it leaves
    /// the connection usable: every write is its own transaction).
    fn client(&self) -> MutexGuard<'_, Client> {
        self.client.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The schema version, `None` for a database without a version table.
fn read_version(client: &mut impl postgres::GenericClient) -> Result<Option<i64>, StoreError> {
    let has_table: bool = client
        .query_one("SELECT to_regclass('schema_version') IS NOT NULL", &[])?
        .try_get(0)?;
    if !has_table {
        return Ok(None);
    }
    Ok(client
        .query_opt("SELECT version FROM schema_version", &[])?
        .map(|row| row.try_get(0))
        .transpose()?)
}

/// Applies pending migrations in one transaction under the migration lock;
/// refuses a newer schema.
fn migrate(client: &mut Client) -> Result<(), StoreError> {
    let supported = supported_version();
    match read_version(client)? {
        Some(v) if v > supported => {
            return Err(StoreError::Newer {
                found: v,
                supported,
            });
        }
        Some(v) if v == supported => return Ok(()),
        _ => {}
    }
    let mut tx = client.transaction()?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
    tx.batch_execute("CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)")?;
    let current: i64 = match read_version(&mut tx)? {
        Some(v) => v,
        None => {
            tx.execute("INSERT INTO schema_version (version) VALUES (0)", &[])?;
            0
        }
    };
    for script in schema::pending(current)? {
        tx.batch_execute(&postgres_dialect(script))?;
    }
    tx.execute("UPDATE schema_version SET version = $1", &[&supported])?;
    tx.commit()?;
    Ok(())
}

/// Inserts `result` as number `seq` of run `run_id`, inside `tx`.
fn insert_result(
    tx: &mut Transaction<'_>,
    run_id: i64,
    seq: i64,
    result: &BenchResult,
) -> Result<(), StoreError> {
    let r = ResultRow::encode(result)?;
    let result_id: i64 = tx
        .query_one(
            "INSERT INTO results (run_id, seq, benchmark, parameters, status, error, warnings,
                                  started_at, ended_at, bottleneck, phases, disturbance, error_phase)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING id",
            &[
                &run_id,
                &seq,
                &r.benchmark,
                &r.parameters,
                &r.status,
                &r.error,
                &r.warnings,
                &r.started_at,
                &r.ended_at,
                &r.bottleneck,
                &r.phases,
                &r.disturbance,
                &r.error_phase,
            ],
        )?
        .try_get(0)?;

    if !result.metrics.is_empty() {
        let stmt = tx.prepare(
            "INSERT INTO metrics (result_id, name, value, unit, better, labels, stats,
                                  reference_name, reference_value, percent_of_reference, printed)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
        )?;
        for m in &result.metrics {
            let m = MetricRow::encode(m)?;
            tx.execute(
                &stmt,
                &[
                    &result_id,
                    &m.name,
                    &m.value,
                    &m.unit,
                    &m.better,
                    &m.labels,
                    &m.stats,
                    &m.reference_name,
                    &m.reference_value,
                    &m.percent_of_reference,
                    &m.printed,
                ],
            )?;
        }
    }
    for h in &result.histograms {
        let h = HistogramRow::encode(h)?;
        tx.execute(
            "INSERT INTO histograms (result_id, name, unit, scale, labels, count, hdr_base64)
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
            &[
                &result_id,
                &h.name,
                &h.unit,
                &h.scale,
                &h.labels,
                &h.count,
                &h.hdr_base64,
            ],
        )?;
    }
    let mut before = None;
    for s in &result.series {
        let row = SeriesRow::encode(s, before)?;
        tx.execute(
            "INSERT INTO series (result_id, name, unit, labels, points, points_packed)
             VALUES ($1, $2, $3, $4, $5, $6)",
            &[
                &result_id,
                &row.name,
                &row.unit,
                &row.labels,
                &row.points,
                &row.points_packed,
            ],
        )?;
        before = Some(s);
    }
    Ok(())
}

/// A read-only transaction that sees one snapshot of the store.
fn snapshot(client: &mut Client) -> Result<Transaction<'_>, StoreError> {
    Ok(client
        .build_transaction()
        .isolation_level(IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()?)
}

/// Reads the metrics, histograms and series of run `run_id`'s results into
/// them (`index` maps a result id to its place in `results`): one query per
/// table, however many results, so a remote store answers in few round trips.
fn load_figures(
    tx: &mut Transaction<'_>,
    run_id: i64,
    index: &HashMap<i64, usize>,
    results: &mut [BenchResult],
) -> Result<(), StoreError> {
    let place = |result_id: i64| -> Result<usize, StoreError> {
        index
            .get(&result_id)
            .copied()
            .ok_or_else(|| StoreError::Invalid {
                what: format!("figures of run {run_id}"),
                reason: format!("result {result_id} is not one of its results"),
            })
    };
    for row in tx.query(
        "SELECT m.result_id, m.name, m.value, m.unit, m.better, m.labels, m.stats,
                m.reference_name, m.reference_value, m.percent_of_reference, m.printed
         FROM metrics m JOIN results r ON r.id = m.result_id
         WHERE r.run_id = $1 ORDER BY m.id",
        &[&run_id],
    )? {
        let result_id: i64 = row.try_get(0)?;
        let m = metric_row(&row, 1)?;
        results[place(result_id)?]
            .metrics
            .push(m.decode(result_id)?);
    }
    for row in tx.query(
        "SELECT h.result_id, h.name, h.unit, h.scale, h.labels, h.count, h.hdr_base64
         FROM histograms h JOIN results r ON r.id = h.result_id
         WHERE r.run_id = $1 ORDER BY h.id",
        &[&run_id],
    )? {
        let result_id: i64 = row.try_get(0)?;
        let h = HistogramRow {
            name: row.try_get(1)?,
            unit: row.try_get(2)?,
            scale: row.try_get(3)?,
            labels: row.try_get(4)?,
            count: row.try_get(5)?,
            hdr_base64: row.try_get(6)?,
        };
        results[place(result_id)?]
            .histograms
            .push(h.decode(result_id)?);
    }
    for row in tx.query(
        "SELECT s.result_id, s.name, s.unit, s.labels, s.points, s.points_packed
         FROM series s JOIN results r ON r.id = s.result_id
         WHERE r.run_id = $1 ORDER BY s.id",
        &[&run_id],
    )? {
        let result_id: i64 = row.try_get(0)?;
        let s = SeriesRow {
            name: row.try_get(1)?,
            unit: row.try_get(2)?,
            labels: row.try_get(3)?,
            points: row.try_get(4)?,
            points_packed: row.try_get(5)?,
        };
        let of = &mut results[place(result_id)?].series;
        let series = s.decode(result_id, of.last())?;
        of.push(series);
    }
    Ok(())
}

impl Store for PostgresStore {
    fn begin_run(&mut self, run: &Run) -> Result<i64, StoreError> {
        let row = RunRow::encode(run)?;
        let mut client = self.client();
        let mut tx = client.transaction()?;
        let id: i64 = tx
            .query_one(
                "INSERT INTO runs (started_at, ended_at, status, nodebench_version, command_line,
                                   tags, inventory, schema_version, verdicts, build)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id",
                &[
                    &row.started_at,
                    &row.ended_at,
                    &row.status,
                    &row.nodebench_version,
                    &row.command_line,
                    &row.tags,
                    &row.inventory,
                    &row.schema_version,
                    &row.verdicts,
                    &row.build,
                ],
            )?
            .try_get(0)?;
        for (seq, result) in run.results.iter().enumerate() {
            insert_result(&mut tx, id, to_i64(seq, "result number")?, result)?;
        }
        tx.commit()?;
        Ok(id)
    }

    fn add_result(&mut self, run_id: i64, result: &BenchResult) -> Result<(), StoreError> {
        let mut client = self.client();
        let mut tx = client.transaction()?;
        // The run's row lock: two writers of one run take numbers in turn.
        if tx
            .query_opt("SELECT 1 FROM runs WHERE id = $1 FOR UPDATE", &[&run_id])?
            .is_none()
        {
            return Err(StoreError::NotFound(run_id));
        }
        let seq: i64 = tx
            .query_one(
                "SELECT COALESCE(MAX(seq) + 1, 0) FROM results WHERE run_id = $1",
                &[&run_id],
            )?
            .try_get(0)?;
        insert_result(&mut tx, run_id, seq, result)?;
        tx.commit()?;
        Ok(())
    }

    fn finish_run(
        &mut self,
        run_id: i64,
        status: RunStatus,
        ended_at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let changed = self.client().execute(
            "UPDATE runs SET status = $1, ended_at = $2 WHERE id = $3",
            &[&status.as_str(), &codec::ts(&ended_at), &run_id],
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
        let changed = self.client().execute(
            "UPDATE runs SET verdicts = $1 WHERE id = $2",
            &[&json(verdicts)?, &run_id],
        )?;
        if changed == 0 {
            return Err(StoreError::NotFound(run_id));
        }
        Ok(())
    }

    fn list_runs(&self) -> Result<Vec<RunSummary>, StoreError> {
        let mut client = self.client();
        let mut tx = snapshot(&mut client)?;
        let mut per_run: HashMap<i64, Counts> = HashMap::new();
        for row in tx.query(
            "SELECT r.run_id, r.benchmark, (SELECT COUNT(*) FROM metrics m WHERE m.result_id = r.id)
             FROM results r ORDER BY r.run_id, r.seq, r.id",
            &[],
        )? {
            let counts = per_run.entry(row.try_get(0)?).or_default();
            codec::count_result(counts, row.try_get(1)?, row.try_get(2)?);
        }
        let mut summaries = Vec::new();
        // Byte order ("C"): the timestamps' text order is their time order.
        for row in tx.query(
            "SELECT id, started_at, ended_at, status, command_line, tags, inventory
             FROM runs ORDER BY started_at COLLATE \"C\" DESC, id DESC",
            &[],
        )? {
            let summary = SummaryRow {
                id: row.try_get(0)?,
                started_at: row.try_get(1)?,
                ended_at: row.try_get(2)?,
                status: row.try_get(3)?,
                command_line: row.try_get(4)?,
                tags: row.try_get(5)?,
                inventory: row.try_get(6)?,
            };
            let counts = per_run.remove(&summary.id).unwrap_or_default();
            summaries.push(summary.decode(counts)?);
        }
        tx.commit()?;
        Ok(summaries)
    }

    fn load_run(&self, id: i64) -> Result<Run, StoreError> {
        let mut client = self.client();
        let mut tx = snapshot(&mut client)?;
        let Some(row) = tx.query_opt(
            "SELECT started_at, ended_at, status, nodebench_version, command_line, tags, inventory,
                    schema_version, verdicts, build
             FROM runs WHERE id = $1",
            &[&id],
        )?
        else {
            return Err(StoreError::NotFound(id));
        };
        let mut run = RunRow {
            started_at: row.try_get(0)?,
            ended_at: row.try_get(1)?,
            status: row.try_get(2)?,
            nodebench_version: row.try_get(3)?,
            command_line: row.try_get(4)?,
            tags: row.try_get(5)?,
            inventory: row.try_get(6)?,
            schema_version: row.try_get(7)?,
            verdicts: row.try_get(8)?,
            build: row.try_get(9)?,
        }
        .decode(id)?;

        let mut index = HashMap::new();
        for row in tx.query(
            "SELECT id, benchmark, parameters, status, error, warnings, started_at, ended_at,
                    bottleneck, phases, disturbance, error_phase
             FROM results WHERE run_id = $1 ORDER BY seq, id",
            &[&id],
        )? {
            let result_id: i64 = row.try_get(0)?;
            let r = result_row(&row, 1)?;
            index.insert(result_id, run.results.len());
            run.results.push(r.decode(id, result_id)?);
        }
        load_figures(&mut tx, id, &index, &mut run.results)?;
        // Runs stored before orientation existed read as this version.
        codec::settle(&mut run);
        tx.commit()?;
        Ok(run)
    }

    fn load_runs_metrics(&self, ids: &[i64]) -> Result<Vec<Run>, StoreError> {
        let mut client = self.client();
        let mut tx = snapshot(&mut client)?;
        let wanted: Vec<i64> = ids.to_vec();
        let mut runs: HashMap<i64, Run> = HashMap::new();
        for row in tx.query(
            "SELECT id, started_at, ended_at, status, nodebench_version, command_line, tags,
                    inventory, schema_version, verdicts, build
             FROM runs WHERE id = ANY($1)",
            &[&wanted],
        )? {
            let id: i64 = row.try_get(0)?;
            let run = RunRow {
                started_at: row.try_get(1)?,
                ended_at: row.try_get(2)?,
                status: row.try_get(3)?,
                nodebench_version: row.try_get(4)?,
                command_line: row.try_get(5)?,
                tags: row.try_get(6)?,
                inventory: row.try_get(7)?,
                schema_version: row.try_get(8)?,
                verdicts: row.try_get(9)?,
                build: row.try_get(10)?,
            }
            .decode(id)?;
            runs.insert(id, run);
        }
        // Result id -> (run id, place in its results).
        let mut index: HashMap<i64, (i64, usize)> = HashMap::new();
        for row in tx.query(
            "SELECT id, run_id, benchmark, parameters, status, error, warnings, started_at,
                    ended_at, bottleneck, phases, disturbance, error_phase
             FROM results WHERE run_id = ANY($1) ORDER BY run_id, seq, id",
            &[&wanted],
        )? {
            let result_id: i64 = row.try_get(0)?;
            let run_id: i64 = row.try_get(1)?;
            let r = result_row(&row, 2)?;
            let Some(run) = runs.get_mut(&run_id) else {
                continue;
            };
            index.insert(result_id, (run_id, run.results.len()));
            run.results.push(r.decode(run_id, result_id)?);
        }
        for row in tx.query(
            "SELECT m.result_id, m.name, m.value, m.unit, m.better, m.labels, m.stats,
                    m.reference_name, m.reference_value, m.percent_of_reference, m.printed
             FROM metrics m JOIN results r ON r.id = m.result_id
             WHERE r.run_id = ANY($1) ORDER BY m.id",
            &[&wanted],
        )? {
            let result_id: i64 = row.try_get(0)?;
            let m = metric_row(&row, 1)?;
            let Some(&(run_id, place)) = index.get(&result_id) else {
                continue;
            };
            if let Some(run) = runs.get_mut(&run_id) {
                run.results[place].metrics.push(m.decode(result_id)?);
            }
        }
        tx.commit()?;
        codec::in_order(ids, runs)
    }

    fn delete_run(&mut self, id: i64) -> Result<(), StoreError> {
        let changed = self
            .client()
            .execute("DELETE FROM runs WHERE id = $1", &[&id])?;
        if changed == 0 {
            return Err(StoreError::NotFound(id));
        }
        Ok(())
    }
}

/// A results row read from `row`, its columns (benchmark, parameters,
/// status, error, warnings, start, end, bottleneck, phases, disturbance,
/// error phase) from column `at` on, as every results query selects them.
fn result_row(row: &postgres::Row, at: usize) -> Result<ResultRow, postgres::Error> {
    Ok(ResultRow {
        benchmark: row.try_get(at)?,
        parameters: row.try_get(at + 1)?,
        status: row.try_get(at + 2)?,
        error: row.try_get(at + 3)?,
        warnings: row.try_get(at + 4)?,
        started_at: row.try_get(at + 5)?,
        ended_at: row.try_get(at + 6)?,
        bottleneck: row.try_get(at + 7)?,
        phases: row.try_get(at + 8)?,
        disturbance: row.try_get(at + 9)?,
        error_phase: row.try_get(at + 10)?,
    })
}

/// A metrics row read from `row`, its columns (name, value, unit, better,
/// labels, stats, reference name and value, percent of reference, printed)
/// from column `at` on, as every metrics query selects them.
fn metric_row(row: &postgres::Row, at: usize) -> Result<MetricRow, postgres::Error> {
    Ok(MetricRow {
        name: row.try_get(at)?,
        value: row.try_get(at + 1)?,
        unit: row.try_get(at + 2)?,
        better: row.try_get(at + 3)?,
        labels: row.try_get(at + 4)?,
        stats: row.try_get(at + 5)?,
        reference_name: row.try_get(at + 6)?,
        reference_value: row.try_get(at + 7)?,
        percent_of_reference: row.try_get(at + 8)?,
        printed: row.try_get(at + 9)?,
    })
}
