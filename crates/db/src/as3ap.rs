//! `nodebench db as3ap`: load (or reuse, checked) the five AS3AP tables,
//! then run the chosen tests. One result per phase: the load, the
//! single-user set, each multi-user test; so an interrupted run keeps what
//! finished.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram as Hdr;
use nodebench_core::bench::{BenchError, Benchmark, Context};
use nodebench_core::config::{Choice, Config};
use nodebench_core::names::db::{self as names, label, metric, param, test};
use nodebench_core::{BenchResult, Better, Histogram, Metric, Unit};

use crate::config::{As3apConfig, Target, Test};
use crate::data::{Checksum, DATA_FORMAT, Generator, TABLES, Table};
use crate::engine::mysql::MysqlConnector;
use crate::engine::postgres::PostgresConnector;
use crate::engine::sqlite::SqliteConnector;
use crate::engine::{Connector, DbError, Session, Settings};
use crate::load;
use crate::multi::{self, Outcome, Plan};
use crate::queries;
use crate::schema::{self, CHECKSUM_TABLE, INDEXES};

/// The checksum table's row that records the data format
/// ([`DATA_FORMAT`] in its `rows_per_table`).
const FORMAT_ROW: &str = "data_format";

/// What an interrupted load says (the result's error).
pub const LOAD_INTERRUPTED: &str =
    "interrupted during the load: the half-loaded AS3AP tables were dropped";

/// The `db.as3ap` benchmark.
#[derive(Debug, Clone)]
pub struct As3ap {
    /// Its configuration.
    pub config: As3apConfig,
}

/// The scratch SQLite file and its WAL companions, removed when dropped.
pub(crate) struct ScratchDb(pub(crate) PathBuf);

impl Drop for ScratchDb {
    fn drop(&mut self) {
        for suffix in ["", "-wal", "-shm", "-journal"] {
            let mut p = self.0.clone().into_os_string();
            p.push(suffix);
            let _ = std::fs::remove_file(p);
        }
    }
}

impl Benchmark for As3ap {
    fn id(&self) -> &'static str {
        names::AS3AP
    }

    fn validate(&self) -> Result<(), BenchError> {
        self.config.validate()
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        self.config.validate()?;
        if self.config.time_limit.is_some() {
            let trial = |config| Box::new(As3ap { config }) as Box<dyn Benchmark>;
            return crate::equivalent::run(&self.config, &trial, ctx);
        }
        let target = self.config.target()?;
        on_target(
            &target,
            &self.config.scratch_dir,
            "as3ap",
            &mut |connector| self.run_on(&target, connector, ctx),
        )
    }
}

/// Runs `f` with the connector of `target`: a server's, an explicit SQLite
/// file's, or a scratch SQLite file in `scratch_dir` (named after
/// `benchmark`) removed when `f` returns. Shared by `db as3ap` and
/// `db tpcc`.
pub(crate) fn on_target(
    target: &Target,
    scratch_dir: &Path,
    benchmark: &str,
    f: &mut dyn FnMut(&dyn Connector) -> Result<(), BenchError>,
) -> Result<(), BenchError> {
    // A local server's CPU time is the workload's, not a disturbance.
    let _serving = crate::serving::under_test(target);
    let (path, _scratch) = match target {
        Target::Sqlite(Some(p)) => (p.clone(), None),
        Target::Postgres(url) => {
            return f(&PostgresConnector::new(url)?);
        }
        Target::Mysql(url) => return f(&MysqlConnector::new(url)?),
        Target::Sqlite(None) => {
            let p = scratch_dir.join(format!(
                "nodebench-{benchmark}-{}-{}.db",
                std::process::id(),
                chrono::Utc::now().timestamp_nanos_opt().unwrap_or(0)
            ));
            (p.clone(), Some(ScratchDb(p)))
        }
    };
    f(&SqliteConnector { path })
}

/// Failures of the run as a whole (not of one statement) name the target.
pub(crate) fn on(db: &str) -> impl Fn(DbError) -> BenchError + '_ {
    move |e| BenchError::System(format!("--db {db}: {e}"))
}

impl As3ap {
    /// Everything after the connection target is known.
    fn run_on(
        &self,
        target: &Target,
        connector: &dyn Connector,
        ctx: &mut Context<'_>,
    ) -> Result<(), BenchError> {
        let c = &self.config;
        let db = target.display();
        let fail = on(&db);
        let mut s = connector.connect().map_err(&fail)?;
        let settings = s.settings().map_err(&fail)?;
        let n = c.rows_per_table();
        let present = present_tables(s.as_mut()).map_err(&fail)?;
        let mut reused = false;
        if !present.is_empty() {
            if c.reuse {
                check_reuse(s.as_mut(), n, c.seed).map_err(|e| {
                    BenchError::System(format!("--reuse: {e}; give --recreate to load anew"))
                })?;
                reused = true;
            } else if c.recreate {
                drop_all(s.as_mut()).map_err(&fail)?;
            } else {
                return Err(BenchError::System(format!(
                    "--db {db}: AS3AP tables already exist ({}); give --reuse to keep them (checked) or --recreate to load anew",
                    present.join(", ")
                )));
            }
        }
        let base = |phase: &str| self.base_result(target, phase, &settings, reused);
        if !reused {
            let mut r = base(test::LOAD);
            let loaded = load(s.as_mut(), connector, n, c.seed, ctx, &mut r);
            match loaded {
                Ok(true) => {
                    ctx.record(r)?;
                }
                Ok(false) => {
                    drop_all(s.as_mut()).map_err(&fail)?;
                    r.mark_cancelled();
                    r.error = Some(LOAD_INTERRUPTED.into());
                    ctx.record(r)?;
                    return Ok(());
                }
                Err(e) => {
                    let _ = s.execute("ROLLBACK");
                    let _ = drop_all(s.as_mut());
                    r.mark_failed(format!("load: {e}"));
                    ctx.record(r)?;
                    return Ok(());
                }
            }
        }
        let mut preloaded = false;
        for &t in &c.tests {
            if ctx.cancel.is_cancelled() {
                break;
            }
            let mut r = base(t.as_str());
            if t == Test::Single {
                let facts = crate::expect::Facts::of(n, c.seed);
                crate::single::run(s.as_mut(), &facts, &c.scratch_dir, ctx, &mut r);
            } else {
                if !preloaded {
                    let start = Instant::now();
                    if let Err(e) = s.preload() {
                        r.warnings.push(format!("preload: {e}"));
                    }
                    r.metrics
                        .push(seconds(metric::PRELOAD_SECONDS, start.elapsed()));
                    preloaded = true;
                }
                self.multi_user(connector, s.as_mut(), t, n, ctx, &mut r);
            }
            if !ctx.record(r)? && ctx.cancel.is_cancelled() {
                break;
            }
        }
        Ok(())
    }

    /// A result of `phase` with every parameter set.
    fn base_result(
        &self,
        target: &Target,
        phase: &str,
        settings: &Settings,
        reused: bool,
    ) -> BenchResult {
        let c = &self.config;
        let mut r = BenchResult::new(names::AS3AP);
        r.set_param(param::TEST, phase);
        r.set_param(param::DB, target.display());
        r.set_param(param::ENGINE, target.engine());
        r.set_param(param::SERVER_VERSION, &settings.version);
        r.set_param(param::SIZE, c.size);
        r.set_param(param::ROWS_PER_TABLE, c.rows_per_table());
        r.set_param(param::SEED, c.seed);
        r.set_param(param::USERS, c.users());
        r.set_param(param::WARMUP, c.warmup.as_secs_f64());
        r.set_param(param::MEASURE, c.measure.as_secs_f64());
        r.set_param(param::REUSED, reused);
        r.set_param(param::ISOLATION, &settings.isolation);
        r.set_param(param::CACHE, &settings.cache);
        r.set_param(param::DURABILITY, &settings.durability);
        r.set_param(param::INDEX_MAPPING, &settings.index_mapping);
        r
    }

    /// One multi-user test into `r`, then `updates` restored after an OLTP
    /// background.
    fn multi_user(
        &self,
        connector: &dyn Connector,
        s: &mut dyn Session,
        t: Test,
        n: u64,
        ctx: &mut Context<'_>,
        r: &mut BenchResult,
    ) {
        let c = &self.config;
        let updates = crate::data::table(names::table::UPDATES);
        let before = if t.oltp_background() {
            match checksum(s, updates) {
                Ok(v) => Some(v),
                Err(e) => {
                    r.mark_failed(format!("{t}: {e}"));
                    return;
                }
            }
        } else {
            None
        };
        ctx.progress.start(&format!("db as3ap {t}"), 1);
        let plan = Plan {
            connector,
            test: t,
            users: c.users(),
            rows: n,
            warmup: c.warmup,
            measure: c.measure,
            seed: c.seed,
        };
        let outcome = multi::run(&plan, &ctx.cancel);
        ctx.progress.finish();
        match outcome {
            Ok(o) => figures(t, &o, r),
            Err(e) => r.mark_failed(format!("{t}: {e}")),
        }
        let Some(before) = before else { return };
        match checksum(s, updates) {
            Ok(after) => r.metrics.push(count(
                metric::SIGNED_DELTA,
                (after.signed - before.signed) as f64,
            )),
            Err(e) => r.warnings.push(format!("checksum after {t}: {e}")),
        }
        let start = Instant::now();
        match restore_updates(s, n, c.seed) {
            Ok(()) => r
                .metrics
                .push(seconds(metric::RESTORE_SECONDS, start.elapsed())),
            Err(e) => r.mark_failed(format!("restoring updates after {t}: {e}")),
        }
    }
}

/// The figures of a finished multi-user test: the measured user's and the
/// background users' queries apart (and, in the IR test, where every user
/// runs `ir_select`, all of them together), the isolation levels asked for
/// and reported, the cross-section's queries.
fn figures(t: Test, o: &Outcome, r: &mut BenchResult) {
    let window = o.window.as_secs_f64().max(1e-9);
    let merged = |users: &[multi::UserTally]| {
        let mut h = nodebench_core::latency::histogram();
        for u in users {
            let _ = h.add(&u.latency);
        }
        (users.iter().map(|u| u.queries).sum::<u64>(), h)
    };
    r.metrics.push(seconds(metric::SECONDS, o.window));
    let mut requested = BTreeMap::new();
    let mut reported = BTreeMap::new();
    let mut effective = BTreeMap::new();
    for (role, level, set) in &o.isolation {
        requested.insert(role.to_string(), level.sql().to_string());
        reported.insert(role.to_string(), set.reported.clone());
        effective.insert(role.to_string(), set.effective.clone());
    }
    if t.cross_section() {
        let levels: BTreeMap<&str, _> = queries::cross_section()
            .into_iter()
            .map(|q| (q.name, q.isolation))
            .collect();
        for q in &o.cross {
            if let Some(level) = levels.get(q.name) {
                requested.insert(q.name.to_string(), level.sql().to_string());
            }
            reported.insert(q.name.to_string(), q.isolation.reported.clone());
            effective.insert(q.name.to_string(), q.isolation.effective.clone());
            r.metrics.push(
                Metric::new(
                    metric::QUERY_SECONDS,
                    q.seconds,
                    Unit::Seconds,
                    Better::Lower,
                )
                .label(label::QUERY, q.name),
            );
            r.metrics
                .push(count(metric::QUERY_ROWS, q.rows as f64).label(label::QUERY, q.name));
            if let Some(m) = &q.mismatch {
                r.warnings.push(m.clone());
                if r.error.is_none() {
                    r.mark_failed(format!("cross-section: {m}"));
                }
            }
        }
    }
    r.set_param(param::ISOLATION_REQUESTED, &requested);
    r.set_param(param::ISOLATION_REPORTED, &reported);
    r.set_param(param::ISOLATION_EFFECTIVE, &effective);
    let mut who = Vec::new();
    if t == Test::Ir {
        who.push((label::ALL, merged(&o.users)));
    }
    if !t.cross_section() {
        who.push((label::MEASURED, merged(&o.users[..1])));
    }
    who.push((label::BACKGROUND, merged(&o.users[1..])));
    for (user, (q, h)) in who {
        r.metrics
            .push(count(metric::QUERIES, q as f64).label(label::USER, user));
        r.metrics.push(
            Metric::new(
                metric::QUERIES_PER_SECOND,
                q as f64 / window,
                Unit::OpsPerSecond,
                Better::Higher,
            )
            .label(label::USER, user),
        );
        latency_figures(&h, label::USER, user, r);
    }
    if t.oltp_background() {
        r.metrics
            .push(count(metric::OLTP_UPDATES, o.oltp_updates as f64));
    }
    let mut errors = [0u64; 3];
    for u in &o.users {
        for (e, n) in errors.iter_mut().zip(u.errors) {
            *e += n;
        }
        if let Some(m) = &u.first_error
            && !r.warnings.contains(m)
        {
            r.warnings.push(m.clone());
        }
    }
    for (kind, n) in [label::BUSY, label::DEADLOCK, label::OTHER]
        .into_iter()
        .zip(errors)
    {
        r.metrics
            .push(count(metric::ERRORS, n as f64).label(label::KIND, kind));
    }
    if o.cancelled {
        r.mark_cancelled();
    }
}

/// The latency percentiles and histogram of `h`, labelled `key=value`
/// (as3ap: the user; tpcc: the transaction).
pub(crate) fn latency_figures(h: &Hdr<u64>, key: &str, value: &str, r: &mut BenchResult) {
    if h.is_empty() {
        return;
    }
    let mut labels = BTreeMap::new();
    labels.insert(key.to_string(), value.to_string());
    r.histograms.push(Histogram::from_hdr(
        metric::LATENCY,
        Unit::Seconds,
        1e9,
        labels,
        h,
    ));
    for (name, q) in [
        (metric::LATENCY_P50, 0.5),
        (metric::LATENCY_P90, 0.9),
        (metric::LATENCY_P99, 0.99),
        (metric::LATENCY_P999, 0.999),
    ] {
        r.metrics.push(
            Metric::new(
                name,
                h.value_at_quantile(q) as f64 / 1e9,
                Unit::Seconds,
                Better::Lower,
            )
            .label(key, value),
        );
    }
    r.metrics.push(
        Metric::new(
            metric::LATENCY_MEAN,
            h.mean() / 1e9,
            Unit::Seconds,
            Better::Lower,
        )
        .label(key, value),
    );
    r.metrics.push(
        Metric::new(
            metric::LATENCY_MAX,
            h.max() as f64 / 1e9,
            Unit::Seconds,
            Better::Lower,
        )
        .label(key, value),
    );
}

pub(crate) fn seconds(name: &str, d: Duration) -> Metric {
    Metric::new(name, d.as_secs_f64(), Unit::Seconds, Better::Lower)
}

pub(crate) fn count(name: &str, v: f64) -> Metric {
    Metric::new(name, v, Unit::Count, Better::Higher)
}

/// The AS3AP tables (and the checksum table) that exist.
fn present_tables(s: &mut dyn Session) -> Result<Vec<String>, DbError> {
    let mut out = Vec::new();
    for name in TABLES.iter().map(|t| t.name).chain([CHECKSUM_TABLE]) {
        if s.table_exists(name)? {
            out.push(name.to_string());
        }
    }
    Ok(out)
}

/// Drops every AS3AP table (and the scratch tables of an interrupted test).
fn drop_all(s: &mut dyn Session) -> Result<(), DbError> {
    s.execute(&format!("DROP VIEW IF EXISTS {}", schema::REPORTVIEW))?;
    let scratch = crate::single::SCRATCH
        .iter()
        .chain(queries::CROSS_SECTION_SCRATCH)
        .copied();
    for name in TABLES
        .iter()
        .map(|t| t.name)
        .chain([CHECKSUM_TABLE])
        .chain(scratch)
    {
        s.execute(&format!("DROP TABLE IF EXISTS {name}"))?;
    }
    Ok(())
}

/// The checksum of `table` as stored.
fn checksum(s: &mut dyn Session, table: Table) -> Result<Checksum, DbError> {
    let sql = Checksum::query(table, s.bigint());
    Ok(Checksum::from_figures(&s.fetch(&sql)?.first))
}

/// Checks existing tables before `--reuse` keeps them: the checksum table
/// says they were loaded with this seed and size, and every table's
/// checksum as stored equals the one recorded at the load.
fn check_reuse(s: &mut dyn Session, n: u64, seed: u64) -> Result<(), DbError> {
    let format = s.fetch(&format!(
        "SELECT rows_per_table FROM {CHECKSUM_TABLE} WHERE table_name = '{FORMAT_ROW}'"
    ))?;
    let found = format
        .first
        .first()
        .copied()
        .flatten()
        .filter(|_| format.rows == 1);
    if found != Some(DATA_FORMAT) {
        return Err(DbError::other(format!(
            "the existing AS3AP tables were loaded by another data generator (data format {}, this one writes {DATA_FORMAT})",
            found.map_or("1".to_string(), |f| f.to_string())
        )));
    }
    for t in TABLES {
        let recorded = s.fetch(&format!(
            "SELECT rows_per_table, seed, row_count, sum_key, sum_signed, sum_key_int, sum_key_signed, sum_address_len FROM {CHECKSUM_TABLE} WHERE table_name = '{}'",
            t.name
        ))?;
        if recorded.rows != 1 || recorded.first[..2] != [Some(n as i64), Some(seed as i64)] {
            return Err(DbError::other(format!(
                "the existing {} table was not loaded for {n} rows per table (--size) and --seed {seed}",
                t.name
            )));
        }
        let want = Checksum::from_figures(&recorded.first[2..]);
        let stored = checksum(s, t)?;
        if stored != want {
            return Err(DbError::other(format!(
                "the {} table's checksum {} differs from the one recorded at its load, {}",
                t.name,
                stored.text(),
                want.text()
            )));
        }
    }
    Ok(())
}

/// Creates and loads the tables, each with its clustered key, in one
/// transaction or side by side on the connections the engine loads with
/// ([`Connector::load_connections`]), then builds the secondary indexes;
/// the figures go into `r`. `Ok(false)` when cancelled (the caller drops
/// what was loaded).
fn load(
    s: &mut dyn Session,
    connector: &dyn Connector,
    n: u64,
    seed: u64,
    ctx: &mut Context<'_>,
    r: &mut BenchResult,
) -> Result<bool, DbError> {
    let total: u64 = TABLES.iter().map(|t| t.rows(n)).sum();
    ctx.progress
        .start("db as3ap load", TABLES.len() as u64 + INDEXES.len() as u64);
    let start = Instant::now();
    let mut sums = Vec::new();
    let progress = ctx.progress;
    let mut done = |l: load::TableLoad| {
        r.metrics
            .push(count(metric::ROWS, l.loaded.rows as f64).label(label::TABLE, l.table.name));
        r.metrics
            .push(seconds(metric::LOAD_SECONDS, l.time).label(label::TABLE, l.table.name));
        sums.push((l.table, l.sum));
        progress.advance(1);
    };
    let connections = connector.load_connections();
    let loaded = if connections > 1 {
        load::side_by_side(connector, connections, n, seed, &ctx.cancel, &mut done)
    } else {
        load::in_one_transaction(s, n, seed, &ctx.cancel, &mut done)
    };
    if !loaded? {
        ctx.progress.finish();
        return Ok(false);
    }
    let load_time = start.elapsed();
    let all = |m: Metric| m.label(label::TABLE, label::ALL);
    r.metrics.push(all(count(metric::ROWS, total as f64)));
    r.metrics
        .push(all(seconds(metric::LOAD_SECONDS, load_time)));
    r.metrics.push(all(Metric::new(
        metric::LOAD_ROWS_PER_SECOND,
        total as f64 / load_time.as_secs_f64().max(1e-9),
        Unit::OpsPerSecond,
        Better::Higher,
    )));
    let start = Instant::now();
    for i in schema::secondary_all() {
        if ctx.cancel.is_cancelled() {
            ctx.progress.finish();
            return Ok(false);
        }
        let t0 = Instant::now();
        s.create_index(i)?;
        r.metrics
            .push(seconds(metric::INDEX_SECONDS, t0.elapsed()).label(label::INDEX, i.name()));
        ctx.progress.advance(1);
    }
    let t0 = Instant::now();
    s.add_foreign_key()?;
    r.metrics.push(
        seconds(metric::INDEX_SECONDS, t0.elapsed()).label(label::INDEX, schema::FOREIGN_KEY),
    );
    r.metrics
        .push(seconds(metric::INDEX_SECONDS, start.elapsed()).label(label::INDEX, label::ALL));
    ctx.progress.finish();
    s.execute(&format!(
        "CREATE TABLE {CHECKSUM_TABLE} (table_name VARCHAR(16) NOT NULL, rows_per_table BIGINT NOT NULL, seed BIGINT NOT NULL, row_count BIGINT NOT NULL, sum_key BIGINT NOT NULL, sum_signed BIGINT NOT NULL, sum_key_int BIGINT NOT NULL, sum_key_signed BIGINT NOT NULL, sum_address_len BIGINT NOT NULL)"
    ))?;
    s.execute(&format!(
        "INSERT INTO {CHECKSUM_TABLE} VALUES ('{FORMAT_ROW}', {DATA_FORMAT}, {seed}, 0, 0, 0, 0, 0, 0)"
    ))?;
    for (t, sum) in sums {
        let stored = checksum(s, t)?;
        if stored != sum {
            return Err(DbError::other(format!(
                "the {} table as stored ({}) differs from the generated data ({})",
                t.name,
                stored.text(),
                sum.text()
            )));
        }
        s.execute(&format!(
            "INSERT INTO {CHECKSUM_TABLE} VALUES ('{}', {n}, {seed}, {})",
            t.name,
            sum.figures().map(|f| f.to_string()).join(", ")
        ))?;
    }
    Ok(true)
}

/// Drops `updates` and loads it again from the generator, with its
/// indexes, then checks its checksum against the recorded one.
fn restore_updates(s: &mut dyn Session, n: u64, seed: u64) -> Result<(), DbError> {
    let t = crate::data::table(names::table::UPDATES);
    s.drop_foreign_key()?;
    s.execute("BEGIN")?;
    s.execute(&format!("DROP TABLE {}", t.name))?;
    s.create_table(t)?;
    let mut rows = Generator::new(t, n, seed);
    s.load(t, &mut rows, &nodebench_core::bench::Cancel::new())?;
    s.execute("COMMIT")?;
    for i in schema::secondary(t.name) {
        s.create_index(i)?;
    }
    s.add_foreign_key()?;
    let stored = checksum(s, t)?;
    let want = Checksum::generated(t, n, seed);
    if stored != want {
        return Err(DbError::other(format!(
            "updates as restored ({}) differs from the generated data ({})",
            stored.text(),
            want.text()
        )));
    }
    Ok(())
}
