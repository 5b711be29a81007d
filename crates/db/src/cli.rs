//! `nodebench db ...`: the flags of `db as3ap` and their one conversion
//! into its config.

use std::path::PathBuf;
use std::time::Duration;

use crate::config::{As3apConfig, Test};
use crate::engine::Isolation;
use crate::tpcc::TpccConfig;
use clap::Args;
use nodebench_core::bench::{BenchError, Benchmark};
use nodebench_core::cli::{BenchArgs, Runnable};
use nodebench_core::names::db;

use nodebench_core::cli::parse::{
    duration_text, or_default, parse_duration, parse_size, size_text,
};

/// `--isolation`'s levels.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum IsolationArg {
    /// READ UNCOMMITTED.
    ReadUncommitted,
    /// READ COMMITTED.
    ReadCommitted,
    /// REPEATABLE READ.
    RepeatableRead,
    /// SERIALIZABLE.
    Serializable,
}

impl From<IsolationArg> for Isolation {
    fn from(a: IsolationArg) -> Isolation {
        match a {
            IsolationArg::ReadUncommitted => Isolation::ReadUncommitted,
            IsolationArg::ReadCommitted => Isolation::ReadCommitted,
            IsolationArg::RepeatableRead => Isolation::RepeatableRead,
            IsolationArg::Serializable => Isolation::Serializable,
        }
    }
}

/// A TPC-C-derived OLTP workload (TPC-C-derived, not audited, not
/// comparable to published TPC-C results): the nine tables of
/// --warehouses loaded in parallel (rows/s, each index timed), the
/// five transactions in the 45/43/4/4/4 mix by --users terminals, then
/// the consistency checks; NOPM, TPM, per-transaction throughput and
/// latency, rollbacks, retries by kind. See docs/tpcc.md.
#[derive(Debug, Args)]
pub struct TpccArgs {
    /// The database, as `db as3ap` takes it: sqlite:PATH (default: a file
    /// in --scratch-dir, removed afterwards),
    /// mysql://USER[:PASSWORD]@HOST[:PORT]/DB or
    /// postgres://USER[:PASSWORD]@HOST[:PORT]/DB. Never stored or printed
    /// with its password; leave it out and set MYSQL_PWD or PGPASSWORD (or
    /// NODEBENCH_PASSWORD_FILE, a 0600 file).
    #[arg(long, value_name = "URL")]
    pub db: Option<String>,
    /// Directory of the default SQLite file.
    #[arg(long, value_name = "PATH")]
    pub scratch_dir: Option<PathBuf>,
    /// Warehouses (the scale: 10 districts, 30,000 customers, 100,000 stock rows each).
    #[arg(long, value_name = "W", default_value_t = TpccConfig::default().warehouses)]
    pub warehouses: u64,
    /// Terminals: one connection and thread each, terminal i bound to warehouse i % W + 1.
    #[arg(long, value_name = "N", default_value_t = TpccConfig::default().users)]
    pub users: usize,
    /// Warm-up before the measured window.
    #[arg(long, value_name = "DURATION", default_value = duration_text(TpccConfig::default().warmup), value_parser = parse_warmup)]
    pub warmup: Duration,
    /// The measured window.
    #[arg(long, value_name = "DURATION", default_value = duration_text(TpccConfig::default().duration), value_parser = parse_duration)]
    pub duration: Duration,
    /// The spec's keying and think times around each transaction (default:
    /// none, as HammerDB and go-tpc run).
    #[arg(long)]
    pub spec_timing: bool,
    /// Isolation level of every transaction (default: the engine's).
    #[arg(long, value_name = "LEVEL")]
    pub isolation: Option<IsolationArg>,
    /// Seed of the load's and the terminals' generators.
    #[arg(long, value_name = "N", default_value_t = TpccConfig::default().seed)]
    pub seed: u64,
    /// Keep existing TPC-C tables after checking the recorded scale,
    /// ITEM's checksum, the fixed tables' row counts and the consistency
    /// conditions.
    #[arg(long)]
    pub reuse: bool,
    /// Drop existing TPC-C tables and load anew.
    #[arg(long)]
    pub recreate: bool,
    /// Connections the load runs on side by side (servers; SQLite loads on one).
    #[arg(long, value_name = "N", default_value_t = TpccConfig::default().loaders)]
    pub loaders: usize,
    /// Most retries of a transaction the engine failed (deadlock,
    /// serialization failure, lock wait timeout).
    #[arg(long, value_name = "N", default_value_t = TpccConfig::default().max_retries)]
    pub max_retries: u32,
    /// NOT SPEC-COMPLIANT, for tests: items and customers divided by 10 or 100.
    #[arg(long, value_name = "N", default_value_t = 1, hide = true)]
    pub test_scale_down: u64,
}

impl From<&TpccArgs> for TpccConfig {
    fn from(a: &TpccArgs) -> TpccConfig {
        let d = TpccConfig::default();
        TpccConfig {
            db: a.db.clone(),
            scratch_dir: a.scratch_dir.clone().unwrap_or(d.scratch_dir),
            warehouses: a.warehouses,
            users: a.users,
            warmup: a.warmup,
            duration: a.duration,
            spec_timing: a.spec_timing,
            isolation: a.isolation.map(Into::into),
            seed: a.seed,
            reuse: a.reuse,
            recreate: a.recreate,
            loaders: a.loaders,
            max_retries: a.max_retries,
            test_scale_down: a.test_scale_down,
        }
    }
}

/// The AS3AP benchmark: the five tables generated from --seed and
/// loaded (rows/s), the spec's indexes, the single-user query set and
/// the multi-user tests of the AMP-stack study (IR and cross-section with IR or
/// OLTP background); queries/s, latency percentiles, per-query times.
#[derive(Debug, Args)]
pub struct As3apArgs {
    /// The database: sqlite:PATH (default: a file in --scratch-dir,
    /// removed afterwards; an explicit file is kept),
    /// mysql://USER[:PASSWORD]@HOST[:PORT]/DB (MariaDB or MySQL; a unix
    /// socket with ?socket=PATH) or postgres://USER[:PASSWORD]@HOST[:PORT]/DB.
    /// Never stored or printed with its password; leave the password out
    /// and set MYSQL_PWD or PGPASSWORD (or NODEBENCH_PASSWORD_FILE, a 0600
    /// file) to keep it off the command line.
    #[arg(long, value_name = "URL")]
    pub db: Option<String>,
    /// Directory of the default SQLite file.
    #[arg(long, value_name = "PATH")]
    pub scratch_dir: Option<PathBuf>,
    /// Database size: four tables of 100-byte rows (the default 40MiB: 104,857 rows each; 4GB as the AMP-stack study).
    #[arg(long, value_name = "SIZE", default_value = size_text(As3apConfig::default().size), value_parser = parse_size)]
    pub size: u64,
    /// Seed of the data generator (the same seed gives the same data on every engine).
    #[arg(long, value_name = "N", default_value_t = As3apConfig::default().seed)]
    pub seed: u64,
    /// Tests, comma-separated (default all): single, ir, ir-oltp, cross-ir, cross-oltp.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub tests: Vec<Test>,
    /// Users: one connection and thread each (default: the paper's database size / 4 MB, at least 1).
    #[arg(long, value_name = "N")]
    pub users: Option<usize>,
    /// Warm-up of each multi-user test (the spec: 15m).
    #[arg(long, value_name = "DURATION", default_value = duration_text(As3apConfig::default().warmup), value_parser = parse_warmup)]
    pub warmup: Duration,
    /// Measured window of the IR tests (the spec: 5m).
    #[arg(long, value_name = "DURATION", default_value = duration_text(As3apConfig::default().measure), value_parser = parse_duration)]
    pub measure: Duration,
    /// Keep existing AS3AP tables, after checking their row counts and
    /// checksums against the ones recorded at their load.
    #[arg(long)]
    pub reuse: bool,
    /// Drop existing AS3AP tables and load anew.
    #[arg(long)]
    pub recreate: bool,
    /// The spec's metric, the equivalent database size: search for the
    /// largest database whose load and tests (--tests, default single)
    /// finish within DURATION (10s to 24h; the paper's 12 hours scaled
    /// down): from --size, doubling while they fit, halving while they
    /// miss, then bisecting; each trial a real run, stopped at the limit.
    #[arg(long, value_name = "DURATION", value_parser = parse_time_limit)]
    pub time_limit: Option<Duration>,
    /// Most trials of the --time-limit search (each at most the limit long).
    #[arg(long, value_name = "N", default_value_t = As3apConfig::default().search_steps)]
    pub search_steps: usize,
}

/// `--time-limit`'s syntax (its range is the config's to check).
fn parse_time_limit(s: &str) -> Result<Duration, String> {
    parse_duration(s).map_err(|_| "expected a duration of 10s to 24h (e.g. 2m)".to_string())
}

/// A warm-up: a duration or 0 for none.
/// Zero with or without a unit (`0`, `0s`, `0ms`) is no warm-up.
fn parse_warmup(s: &str) -> Result<Duration, String> {
    let t = s.trim();
    let unit = t.trim_start_matches(|c: char| c.is_ascii_digit() || c == '.');
    let number = &t[..t.len() - unit.len()];
    let zero = number.contains('0') && number.chars().all(|c| c == '0' || c == '.');
    if zero && (unit.is_empty() || parse_duration(&format!("1{unit}")).is_ok()) {
        return Ok(Duration::ZERO);
    }
    parse_duration(s).map_err(|e| format!("{e}, or 0 for none"))
}

impl From<&As3apArgs> for As3apConfig {
    fn from(a: &As3apArgs) -> As3apConfig {
        let d = As3apConfig::default();
        As3apConfig {
            db: a.db.clone(),
            scratch_dir: a.scratch_dir.clone().unwrap_or(d.scratch_dir),
            size: a.size,
            seed: a.seed,
            // The search times the single-user module unless told
            // otherwise: fixed multi-user windows would eat a short limit.
            tests: match a.time_limit {
                Some(_) => or_default(&a.tests, vec![Test::Single]),
                None => or_default(&a.tests, d.tests),
            },
            users: a.users,
            warmup: a.warmup,
            measure: a.measure,
            reuse: a.reuse,
            recreate: a.recreate,
            time_limit: a.time_limit,
            search_steps: a.search_steps,
        }
    }
}

impl BenchArgs for As3apArgs {
    const ID: &'static str = db::AS3AP;

    fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        Ok(Box::new(crate::as3ap::As3ap {
            config: self.into(),
        }))
    }
}

impl BenchArgs for TpccArgs {
    const ID: &'static str = db::TPCC;

    fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        Ok(Box::new(crate::tpcc::Tpcc {
            config: self.into(),
        }))
    }
}

/// The benchmarks of this crate, as the CLI and the suites run them.
pub const RUNNABLE: &[Runnable] = &[Runnable::of::<As3apArgs>(), Runnable::of::<TpccArgs>()];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn warmup_takes_zero_with_or_without_a_unit() {
        for zero in ["0", "0s", "0ms", "0.0s", " 0m "] {
            assert_eq!(parse_warmup(zero), Ok(Duration::ZERO), "{zero}");
        }
        assert_eq!(parse_warmup("2s"), Ok(Duration::from_secs(2)));
        assert_eq!(parse_warmup("500ms"), Ok(Duration::from_millis(500)));
        for bad in ["0x", "", "s", "-1s", "0.s.0"] {
            let e = parse_warmup(bad).expect_err(bad);
            assert!(e.contains("or 0 for none"), "{bad}: {e}");
        }
    }
}
