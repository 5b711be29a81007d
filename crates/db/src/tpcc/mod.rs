//! `nodebench db tpcc`: a TPC-C-derived OLTP workload (TPC-C-derived,
//! not audited, not comparable to published TPC-C results) on SQLite,
//! MariaDB/MySQL and PostgreSQL: the nine tables loaded (or reused after
//! a check), the five transactions run by `--users` terminals for
//! `--warmup` then `--duration`, the consistency conditions checked. One
//! result for the load, one for the run. See docs/tpcc.md.
//!
//! Bottom to top: `random` (clause 2.1.6 and 4.3.2), `schema`, `load`,
//! `txn` (the five transactions), `driver` (the terminals), `check`
//! (clause 3.3.2), `figures`, then this module.

pub mod check;
pub mod config;
pub mod driver;
mod figures;
pub mod load;
pub mod random;
pub mod schema;
pub mod txn;

use nodebench_core::BenchResult;
use nodebench_core::bench::{BenchError, Benchmark, Context};
use nodebench_core::config::Config;
use nodebench_core::names::db::tpcc::{param as tparam, test};
use nodebench_core::names::db::{self as names, param};

use crate::as3ap::{on, on_target};
use crate::config::Target;
use crate::engine::sql::{Sql, V};
use crate::engine::{Connector, DbError, Settings};
pub use config::TpccConfig;
use random::{Constants, Rng};
use schema::Dialect;

/// The table recording what was loaded (scale, seed, the load's C_LAST
/// constant, ITEM's checksum), for `--reuse`.
pub const META_TABLE: &str = "nodebench_tpcc";

/// What an interrupted load says (the result's error).
pub const LOAD_INTERRUPTED: &str =
    "interrupted during the load: the half-loaded TPC-C tables were dropped";

/// The `db.tpcc` benchmark.
#[derive(Debug, Clone)]
pub struct Tpcc {
    /// Its configuration.
    pub config: TpccConfig,
}

impl Benchmark for Tpcc {
    fn id(&self) -> &'static str {
        names::TPCC
    }

    fn validate(&self) -> Result<(), BenchError> {
        self.config.validate()
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        self.config.validate()?;
        let target = self.config.target()?;
        on_target(
            &target,
            &self.config.scratch_dir,
            "tpcc",
            &mut |connector| self.run_on(&target, connector, ctx),
        )
    }
}

/// The recorded load: `name -> value`.
fn meta(s: &mut dyn Sql) -> Result<std::collections::BTreeMap<String, i64>, DbError> {
    Ok(
        s.query(&format!("SELECT nb_name, nb_value FROM {META_TABLE}"), &[])?
            .into_iter()
            .filter_map(|r| Some((r[0].text()?, r[1].int()?)))
            .collect(),
    )
}

/// ITEM's checksum: rows, sum of I_IM_ID, sum of I_PRICE in cents (ITEM
/// is never written by the transactions).
fn item_checksum(s: &mut dyn Sql) -> Result<i64, DbError> {
    let r = s.query(
        "SELECT COUNT(*), SUM(i_im_id), SUM(i_price * 100) FROM item",
        &[],
    )?;
    let r = r.first().ok_or_else(|| DbError::other("item: no rows"))?;
    let n = |v: &V| v.num().unwrap_or(0.0).round() as i64;
    Ok(n(&r[0])
        .wrapping_mul(1_000_003)
        .wrapping_add(n(&r[1]).wrapping_mul(7919))
        .wrapping_add(n(&r[2])))
}

/// The TPC-C tables (and the meta table) that exist.
fn present(s: &mut dyn crate::engine::Session) -> Result<Vec<String>, DbError> {
    let mut out = Vec::new();
    for name in schema::TABLES.iter().map(|t| t.name).chain([META_TABLE]) {
        if s.table_exists(name)? {
            out.push(name.to_string());
        }
    }
    Ok(out)
}

/// Drops every TPC-C table and the meta table.
fn drop_all(s: &mut dyn Sql) -> Result<(), DbError> {
    for name in schema::TABLES.iter().map(|t| t.name).chain([META_TABLE]) {
        s.batch(&format!("DROP TABLE IF EXISTS {name}"))?;
    }
    Ok(())
}

impl Tpcc {
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
        let dialect = Dialect::of(target.engine());
        let mut session = connector.connect().map_err(&fail)?;
        let settings = session.settings().map_err(&fail)?;
        let there = present(session.as_mut()).map_err(&fail)?;
        let s = session.sql();
        let mut reused = false;
        if !there.is_empty() {
            if c.reuse {
                reuse_check(s, c).map_err(|e| {
                    BenchError::System(format!("--reuse: {e}; give --recreate to load anew"))
                })?;
                reused = true;
            } else if c.recreate {
                drop_all(s).map_err(&fail)?;
            } else {
                return Err(BenchError::System(format!(
                    "--db {db}: TPC-C tables already exist ({}); give --reuse to keep them (checked) or --recreate to load anew",
                    there.join(", ")
                )));
            }
        }
        let mut rng =
            Rng::new(c.seed ^ chrono::Utc::now().timestamp_nanos_opt().unwrap_or(0) as u64);
        let c_load = if reused {
            meta(s)
                .map_err(&fail)?
                .get("c_last_load")
                .copied()
                .unwrap_or(0) as u64
        } else {
            Constants::draw(&mut rng).c_last
        };
        let c_run = Constants::for_run(&mut rng, c_load);
        let base = |phase: &str| base_result(c, target, phase, &settings, reused, c_load, &c_run);
        if !reused {
            let mut r = base(test::LOAD);
            let plan = load::Plan::of(c, c_load);
            let loaders = if dialect == Dialect::Sqlite {
                1
            } else {
                c.loaders
            };
            ctx.progress.start("db tpcc load", 1);
            let loaded = load::run(connector, s, dialect, &plan, loaders, &ctx.cancel)
                .and_then(|l| record_meta(s, c, c_load).map(|_| l));
            ctx.progress.finish();
            match loaded {
                Ok(l) if l.cancelled => {
                    drop_all(s).map_err(&fail)?;
                    r.mark_cancelled();
                    r.error = Some(LOAD_INTERRUPTED.into());
                    ctx.record(r)?;
                    return Ok(());
                }
                Ok(l) => {
                    figures::load(&l, &mut r);
                    ctx.record(r)?;
                }
                Err(e) => {
                    let _ = s.rollback();
                    let _ = drop_all(s);
                    r.mark_failed(format!("load: {e}"));
                    ctx.record(r)?;
                    return Ok(());
                }
            }
        }
        if ctx.cancel.is_cancelled() {
            return Ok(());
        }
        let mut r = base(test::RUN);
        let plan = driver::Plan {
            connector,
            users: c.users,
            scale: txn::Scale {
                warehouses: c.warehouses,
                items: c.items(),
                customers: c.customers(),
                named: (c.customers() / 3).max(1),
                c: c_run,
            },
            warmup: c.warmup,
            duration: c.duration,
            spec_timing: c.spec_timing,
            isolation: c.isolation,
            max_retries: c.max_retries,
            seed: c.seed,
        };
        ctx.progress.start("db tpcc run", 1);
        let outcome = driver::run(&plan, &ctx.cancel);
        ctx.progress.finish();
        match outcome {
            Ok(o) => figures::run(c, &o, &settings, &mut r),
            Err(e) => r.mark_failed(format!("run: {e}")),
        }
        match check::run(s) {
            Ok(verdicts) => figures::checks(&verdicts, &mut r),
            Err(e) => r.mark_failed(format!("consistency checks: {e}")),
        }
        ctx.record(r)?;
        Ok(())
    }
}

/// Records the load's scale, seed, C_LAST constant and ITEM checksum.
fn record_meta(s: &mut dyn Sql, c: &TpccConfig, c_load: u64) -> Result<(), DbError> {
    s.batch(&format!(
        "CREATE TABLE {META_TABLE} (nb_name VARCHAR(32) NOT NULL PRIMARY KEY, nb_value BIGINT NOT NULL)"
    ))?;
    let sum = item_checksum(s)?;
    let rows = [
        ("warehouses", c.warehouses as i64),
        ("items", c.items() as i64),
        ("customers", c.customers() as i64),
        ("seed", c.seed as i64),
        ("c_last_load", c_load as i64),
        ("item_checksum", sum),
    ];
    let rows: Vec<Vec<V>> = rows
        .iter()
        .map(|(k, v)| vec![V::S(k.to_string()), V::I(*v)])
        .collect();
    s.begin(true)?;
    s.append(META_TABLE, &["nb_name", "nb_value"], &rows)?;
    s.commit()
}

/// `--reuse`: the recorded scale is this run's, ITEM's checksum and the
/// fixed tables' row counts are the load's, the consistency conditions hold.
fn reuse_check(s: &mut dyn Sql, c: &TpccConfig) -> Result<(), String> {
    let m = meta(s).map_err(|e| format!("no record of the load ({e})"))?;
    for (k, want) in [
        ("warehouses", c.warehouses as i64),
        ("items", c.items() as i64),
        ("customers", c.customers() as i64),
    ] {
        let got = m.get(k).copied();
        if got != Some(want) {
            return Err(format!(
                "the tables were loaded with {k} = {}, this run asks for {want}",
                got.map_or("?".into(), |g| g.to_string())
            ));
        }
    }
    let sum = item_checksum(s).map_err(|e| e.to_string())?;
    if m.get("item_checksum") != Some(&sum) {
        return Err("item's checksum differs from the one recorded at its load".into());
    }
    let w = c.warehouses as i64;
    for (t, want) in [
        ("warehouse", w),
        ("district", w * 10),
        ("customer", w * 10 * c.customers() as i64),
        ("stock", w * c.items() as i64),
    ] {
        let n = s
            .query(&format!("SELECT COUNT(*) FROM {t}"), &[])
            .map_err(|e| e.to_string())?
            .first()
            .and_then(|r| r[0].int());
        if n != Some(want) {
            return Err(format!("{t} has {n:?} rows, expected {want}"));
        }
    }
    for v in check::run(s).map_err(|e| e.to_string())? {
        if let Some(why) = v.violation {
            return Err(format!("consistency condition {} fails: {why}", v.clause));
        }
    }
    Ok(())
}

/// A result of `phase` with every parameter set.
fn base_result(
    c: &TpccConfig,
    target: &Target,
    phase: &str,
    settings: &Settings,
    reused: bool,
    c_load: u64,
    c_run: &Constants,
) -> BenchResult {
    let mut r = BenchResult::new(names::TPCC);
    r.set_param(param::TEST, phase);
    r.set_param(param::DB, target.display());
    r.set_param(param::ENGINE, target.engine());
    r.set_param(param::SERVER_VERSION, &settings.version);
    r.set_param(tparam::WAREHOUSES, c.warehouses);
    r.set_param(tparam::ITEMS, c.items());
    r.set_param(tparam::CUSTOMERS_PER_DISTRICT, c.customers());
    r.set_param(param::SEED, c.seed);
    r.set_param(param::USERS, c.users);
    r.set_param(param::WARMUP, c.warmup.as_secs_f64());
    r.set_param(param::MEASURE, c.duration.as_secs_f64());
    r.set_param(tparam::SPEC_TIMING, c.spec_timing);
    r.set_param(param::REUSED, reused);
    r.set_param(param::ISOLATION, &settings.isolation);
    r.set_param(param::CACHE, &settings.cache);
    r.set_param(param::DURABILITY, &settings.durability);
    r.set_param(tparam::C_LAST_LOAD, c_load);
    let run: std::collections::BTreeMap<&str, u64> = [
        ("c_last", c_run.c_last),
        ("c_id", c_run.c_id),
        ("ol_i_id", c_run.ol_i_id),
    ]
    .into();
    r.set_param(tparam::C_RUN, &run);
    r.set_param(tparam::MAX_RETRIES, c.max_retries);
    if c.test_scale_down != 1 {
        r.warnings.push(format!(
            "NOT SPEC-COMPLIANT: items and customers scaled down {}x (a test setting)",
            c.test_scale_down
        ));
    }
    r
}
