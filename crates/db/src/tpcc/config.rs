//! `db tpcc`'s configuration: the database (as `db as3ap` takes it), the
//! warehouses, the terminals, the windows, the isolation level.

use std::path::PathBuf;
use std::time::Duration;

use nodebench_core::bench::BenchError;
use nodebench_core::config::Config;

use crate::config::Target;
use crate::engine::Isolation;

/// Items in ITEM, stock rows per warehouse (clause 1.2.1 / 4.3.3.1).
pub const ITEMS: u64 = 100_000;
/// Districts per warehouse.
pub const DISTRICTS: u64 = 10;
/// Customers per district.
pub const CUSTOMERS: u64 = 3_000;
/// Orders loaded per district (one per customer).
pub const ORDERS: u64 = 3_000;
/// Loaded orders from this id on are undelivered (in NEW-ORDER).
pub const FIRST_NEW_ORDER: u64 = 2_101;

/// Most warehouses `--warehouses` takes.
pub const MAX_WAREHOUSES: u64 = 10_000;
/// Most terminals.
pub const MAX_USERS: usize = 1024;

/// Everything `db tpcc` runs with.
#[derive(Debug, Clone)]
pub struct TpccConfig {
    /// The database, as `--db` gave it (`None`: a scratch SQLite file).
    pub db: Option<String>,
    /// Directory of the default SQLite file.
    pub scratch_dir: PathBuf,
    /// Warehouses (the scale factor).
    pub warehouses: u64,
    /// Terminals: one connection and thread each, terminal `i` bound to
    /// warehouse `i % W + 1`.
    pub users: usize,
    /// Warm-up before the measured window.
    pub warmup: Duration,
    /// The measured window.
    pub duration: Duration,
    /// The spec's keying and think times (clause 5.2.5.7) between
    /// transactions; off by default, as HammerDB and go-tpc run.
    pub spec_timing: bool,
    /// The isolation level to set; `None`: the engine's default.
    pub isolation: Option<Isolation>,
    /// Seed of the load's and the terminals' generators.
    pub seed: u64,
    /// Keep existing, checked TPC-C tables instead of loading.
    pub reuse: bool,
    /// Drop existing TPC-C tables and load anew.
    pub recreate: bool,
    /// Connections the load fills tables on side by side (`--loaders`).
    pub loaders: usize,
    /// Most retries of a transaction the engine failed (deadlock,
    /// serialization failure, lock wait timeout).
    pub max_retries: u32,
    /// NOT SPEC-COMPLIANT, for tests only: items (and stock rows per
    /// warehouse) and customers (and loaded orders) per district divided
    /// by this factor (1: the spec's scale). Results record it.
    pub test_scale_down: u64,
}

impl Default for TpccConfig {
    /// One warehouse in a scratch SQLite file, 1 terminal, 2 s warm-up,
    /// 10 s measured, no think times, the engine's isolation.
    fn default() -> TpccConfig {
        TpccConfig {
            db: None,
            scratch_dir: std::env::temp_dir(),
            warehouses: 1,
            users: 1,
            warmup: Duration::from_secs(2),
            duration: Duration::from_secs(10),
            spec_timing: false,
            isolation: None,
            seed: 1,
            reuse: false,
            recreate: false,
            loaders: 4,
            max_retries: 10,
            test_scale_down: 1,
        }
    }
}

impl TpccConfig {
    /// The target `--db` names: a scratch SQLite file when not given.
    pub fn target(&self) -> Result<Target, BenchError> {
        self.db
            .as_deref()
            .map_or(Ok(Target::Sqlite(None)), Target::parse)
    }

    /// Items (and stock rows per warehouse).
    pub fn items(&self) -> u64 {
        ITEMS / self.test_scale_down
    }

    /// Customers (and loaded orders) per district.
    pub fn customers(&self) -> u64 {
        CUSTOMERS / self.test_scale_down
    }

    /// The first loaded order still undelivered: the spec's 2,101 of
    /// 3,000 (the last 900), scaled as the customers are.
    pub fn first_new_order(&self) -> u64 {
        self.customers() - (ORDERS - FIRST_NEW_ORDER) / self.test_scale_down
    }
}

impl Config for TpccConfig {
    fn validate(&self) -> Result<(), BenchError> {
        let target = self.target()?;
        if let Target::Postgres(url) | Target::Mysql(url) = &target {
            nodebench_core::credentials::check_password_source(url)?;
        }
        if !(1..=MAX_WAREHOUSES).contains(&self.warehouses) {
            return Err(BenchError::Invalid(format!(
                "--warehouses: expected 1..={MAX_WAREHOUSES}, got {}",
                self.warehouses
            )));
        }
        if !(1..=MAX_USERS).contains(&self.users) {
            return Err(BenchError::Invalid(format!(
                "--users: expected 1..={MAX_USERS}, got {}",
                self.users
            )));
        }
        if self.duration.is_zero() {
            return Err(BenchError::Invalid(
                "--duration: expected a positive duration, e.g. 60s".into(),
            ));
        }
        if self.reuse && self.recreate {
            return Err(BenchError::Invalid(
                "--reuse and --recreate: give one or the other".into(),
            ));
        }
        if !(1..=64).contains(&self.loaders) {
            return Err(BenchError::Invalid(format!(
                "--loaders: expected 1..=64, got {}",
                self.loaders
            )));
        }
        if ![1, 10, 100].contains(&self.test_scale_down) {
            return Err(BenchError::Invalid(
                "test_scale_down: expected 1, 10 or 100".into(),
            ));
        }
        crate::config::check_paths(&target, &self.scratch_dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validate_names_the_flag() {
        let ok = TpccConfig::default();
        assert!(ok.validate().is_ok());
        assert_eq!(
            (ok.items(), ok.customers(), ok.first_new_order()),
            (100_000, 3_000, 2_101)
        );
        let e = |c: TpccConfig| c.validate().unwrap_err().to_string();
        assert_eq!(
            e(TpccConfig {
                warehouses: 0,
                ..ok.clone()
            }),
            "--warehouses: expected 1..=10000, got 0"
        );
        assert_eq!(
            e(TpccConfig {
                users: 0,
                ..ok.clone()
            }),
            "--users: expected 1..=1024, got 0"
        );
        assert!(
            e(TpccConfig {
                duration: Duration::ZERO,
                ..ok.clone()
            })
            .starts_with("--duration")
        );
        assert!(
            e(TpccConfig {
                reuse: true,
                recreate: true,
                ..ok.clone()
            })
            .starts_with("--reuse and --recreate")
        );
        let small = TpccConfig {
            test_scale_down: 10,
            ..ok
        };
        assert_eq!(
            (small.items(), small.customers(), small.first_new_order()),
            (10_000, 300, 211)
        );
    }
}
