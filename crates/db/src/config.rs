//! What `db as3ap` runs with: the target (`--db`), the database size, the
//! seed, the tests, the users and the windows, checked once by `validate`.

use std::path::PathBuf;
use std::time::Duration;

use nodebench_core::bench::BenchError;
use nodebench_core::config::Config;
use nodebench_core::credentials::without_password;
use nodebench_core::names::db::test as names;

/// Bytes of one AS3AP row: the spec sizes the database as four tables of
/// 100-byte rows.
pub const ROW_BYTES: u64 = 100;

/// Tables that scale with `--size` (uniques, hundred, tenpct, updates).
pub const SCALED_TABLES: u64 = 4;

/// Fewest rows per table the query set works with (its key ranges reach
/// row 6,100): `--size` 4,000,000 bytes.
pub const MIN_ROWS: u64 = 10_000;

/// Rows per table of one user: the paper's users are the logical
/// database size over 4 MB, 4 tables of 10,000 rows of 100 bytes.
pub const PAPER_ROWS_PER_USER: u64 = 10_000;

/// Most rows per table: the sparse columns draw one value in each of N
/// strata of 0..=10^9, which must hold two values for 1 to be left out.
pub const MAX_ROWS: u64 = 500_000_000;

/// Most users (connections) a test may open.
pub const MAX_USERS: usize = 1024;

/// Shortest `--time-limit`: a trial loads and runs the single-user tests.
pub const MIN_TIME_LIMIT: Duration = Duration::from_secs(10);

/// Longest `--time-limit`: twice the paper's 12 hours.
pub const MAX_TIME_LIMIT: Duration = Duration::from_secs(24 * 3600);

/// Trials of the equivalent-size search by default (`--search-steps`):
/// doubling from 40 MB to 1.3 GB, or a few doublings and three bisections.
pub const SEARCH_STEPS: usize = 8;

/// Most trials `--search-steps` takes.
pub const MAX_SEARCH_STEPS: usize = 30;

/// `--time-limit`'s range check: the one line that names the flag.
pub fn check_time_limit(d: Duration) -> Result<(), BenchError> {
    if (MIN_TIME_LIMIT..=MAX_TIME_LIMIT).contains(&d) {
        Ok(())
    } else {
        Err(BenchError::Invalid(format!(
            "--time-limit: expected a duration of 10s to 24h (e.g. 2m), got {d:?}"
        )))
    }
}

/// Where the database is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// An SQLite file; `None` is a file in the scratch directory, removed
    /// afterwards.
    Sqlite(Option<PathBuf>),
    /// A PostgreSQL server: `postgres://USER[:PASSWORD]@HOST[:PORT]/DB`.
    Postgres(String),
    /// A MariaDB or MySQL server: `mysql://USER[:PASSWORD]@HOST[:PORT]/DB`, a
    /// unix socket with `?socket=PATH`.
    Mysql(String),
}

/// The `--db` forms, for messages.
const ACCEPTED: &str = "sqlite:PATH, mysql://USER[:PASSWORD]@HOST[:PORT]/DB[?socket=PATH] or postgres://USER[:PASSWORD]@HOST[:PORT]/DB";

/// Refuses a port outside 1..=65535 in a URL's authority (`USER:PASS@HOST:PORT`,
/// `[::1]:PORT`), naming the accepted `form`; the user info is never echoed.
fn check_port(authority: &str, form: &str) -> Result<(), BenchError> {
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let port = match host_port.strip_prefix('[') {
        Some(v6) => v6.split_once("]:").map(|(_, p)| p),
        None => host_port.rsplit_once(':').map(|(_, p)| p),
    };
    match port {
        None => Ok(()),
        Some(p) if p.parse::<u16>().is_ok_and(|p| p > 0) => Ok(()),
        Some(p) => Err(BenchError::Invalid(format!(
            "--db: port '{p}' is not a port (1..65535); expected {form}"
        ))),
    }
}

impl Target {
    /// Parses `--db`: `sqlite:PATH`, `mysql://USER[:PASSWORD]@HOST[:PORT]/DB`
    /// (`?socket=PATH`) or `postgres://USER[:PASSWORD]@HOST[:PORT]/DB`.
    pub fn parse(s: &str) -> Result<Target, BenchError> {
        if let Some(rest) = s.strip_prefix("mysql://") {
            let path = rest.split_once('?').map_or(rest, |(p, _)| p);
            return match path.split_once('/') {
                Some((host, db)) if !host.is_empty() && !db.is_empty() => {
                    check_port(host, "mysql://USER[:PASSWORD]@HOST[:PORT]/DB[?socket=PATH]")?;
                    Ok(Target::Mysql(s.to_string()))
                }
                _ => Err(BenchError::Invalid(
                    "--db: expected mysql://USER[:PASSWORD]@HOST[:PORT]/DB[?socket=PATH]".into(),
                )),
            };
        }
        if s.starts_with("postgres://") || s.starts_with("postgresql://") {
            let rest = s.split_once("://").map_or("", |(_, r)| r);
            return match rest.split_once('/') {
                Some((host, db)) if !host.is_empty() && !db.is_empty() => {
                    check_port(host, "postgres://USER[:PASSWORD]@HOST[:PORT]/DB")?;
                    Ok(Target::Postgres(s.to_string()))
                }
                _ => Err(BenchError::Invalid(
                    "--db: expected postgres://USER[:PASSWORD]@HOST[:PORT]/DB".into(),
                )),
            };
        }
        if let Some(path) = s.strip_prefix("sqlite:") {
            let path = path.strip_prefix("//").unwrap_or(path);
            if path.is_empty() {
                return Err(BenchError::Invalid(
                    "--db: sqlite: needs a file, e.g. sqlite:/tmp/as3ap.db".into(),
                ));
            }
            return Ok(Target::Sqlite(Some(PathBuf::from(path))));
        }
        // Only the scheme is echoed: the rest may hold a password.
        let scheme = s.split_once(':').map_or("", |(scheme, _)| scheme);
        match scheme {
            "" => Err(BenchError::Invalid(format!("--db: expected {ACCEPTED}"))),
            _ => Err(BenchError::Invalid(format!(
                "--db: expected {ACCEPTED}, got a '{scheme}:' URL"
            ))),
        }
    }

    /// The engine's name as results store it.
    pub fn engine(&self) -> &'static str {
        match self {
            Target::Sqlite(_) => "sqlite",
            Target::Postgres(_) => "postgres",
            Target::Mysql(_) => "mysql",
        }
    }

    /// The target as results store it: never with a password.
    pub fn display(&self) -> String {
        match self {
            Target::Sqlite(Some(p)) => format!("sqlite:{}", p.display()),
            Target::Sqlite(None) => "sqlite:(scratch file)".into(),
            Target::Postgres(url) | Target::Mysql(url) => without_password(url),
        }
    }
}

nodebench_core::choice! {
    /// One AS3AP phase or multi-user test `--tests` picks.
    pub enum Test {
        /// The single-user query set.
        Single => names::SINGLE,
        /// IR throughput with IR background.
        Ir => names::IR,
        /// IR throughput with OLTP background.
        IrOltp => names::IR_OLTP,
        /// Cross-section with IR background.
        CrossIr => names::CROSS_IR,
        /// Cross-section with OLTP background.
        CrossOltp => names::CROSS_OLTP,
    }
}

impl Test {
    /// Whether the background users run `oltp_update` (and `updates` is
    /// restored afterwards).
    pub fn oltp_background(self) -> bool {
        matches!(self, Test::IrOltp | Test::CrossOltp)
    }

    /// Whether the measured user runs the cross-section once.
    pub fn cross_section(self) -> bool {
        matches!(self, Test::CrossIr | Test::CrossOltp)
    }
}

/// Everything `db as3ap` runs with.
#[derive(Debug, Clone)]
pub struct As3apConfig {
    /// The database, as `--db` gave it (`None`: a scratch SQLite file);
    /// parsed by [`As3apConfig::target`].
    pub db: Option<String>,
    /// Directory of the default SQLite file.
    pub scratch_dir: PathBuf,
    /// Database size in bytes (4 tables of 100-byte rows).
    pub size: u64,
    /// Seed of the data generator.
    pub seed: u64,
    /// The tests, in this order.
    pub tests: Vec<Test>,
    /// Users (one connection and thread each); `None`: the paper's
    /// database size / 4 MB, at least 1 ([`As3apConfig::users`]).
    pub users: Option<usize>,
    /// Warm-up of each multi-user test.
    pub warmup: Duration,
    /// Measurement of the IR tests (the cross-section tests measure the
    /// cross-section's own run).
    pub measure: Duration,
    /// Keep existing, checked AS3AP tables instead of reloading.
    pub reuse: bool,
    /// Drop existing AS3AP tables and load anew.
    pub recreate: bool,
    /// The spec's metric: search for the equivalent database size, the
    /// largest whose load and tests finish within this limit (the paper's
    /// 12 hours scaled down); `None`: one run at `size`.
    pub time_limit: Option<Duration>,
    /// Most trials of that search.
    pub search_steps: usize,
}

impl Default for As3apConfig {
    /// A 40 MB database (100-odd thousand rows per table) in a scratch
    /// SQLite file, every test, the paper's users (size / 4 MB: 10), 2 s
    /// warm-up and 5 s
    /// measurement (the spec's 15 and 5 minutes are flags away).
    fn default() -> As3apConfig {
        As3apConfig {
            db: None,
            scratch_dir: std::env::temp_dir(),
            size: 40 << 20,
            seed: 1,
            tests: Test::ALL_TESTS.to_vec(),
            users: None,
            warmup: Duration::from_secs(2),
            measure: Duration::from_secs(5),
            reuse: false,
            recreate: false,
            time_limit: None,
            search_steps: SEARCH_STEPS,
        }
    }
}

impl Test {
    /// Every test, in the order they run by default.
    pub const ALL_TESTS: [Test; 5] = [
        Test::Single,
        Test::Ir,
        Test::IrOltp,
        Test::CrossIr,
        Test::CrossOltp,
    ];
}

impl As3apConfig {
    /// Rows of each scaled table: the size over 4 tables of 100 bytes.
    pub fn rows_per_table(&self) -> u64 {
        self.size / (SCALED_TABLES * ROW_BYTES)
    }

    /// Users of the multi-user tests: `--users`, else the paper's logical
    /// database size / 4 MB (4 MB is 10,000 rows per table), at least 1.
    pub fn users(&self) -> usize {
        self.users
            .unwrap_or((self.rows_per_table() / PAPER_ROWS_PER_USER) as usize)
            .max(1)
    }

    /// The target `--db` names: a scratch SQLite file when not given.
    pub fn target(&self) -> Result<Target, BenchError> {
        self.db
            .as_deref()
            .map_or(Ok(Target::Sqlite(None)), Target::parse)
    }
}

impl Config for As3apConfig {
    fn validate(&self) -> Result<(), BenchError> {
        let target = self.target()?;
        if let Target::Postgres(url) | Target::Mysql(url) = &target {
            nodebench_core::credentials::check_password_source(url)?;
        }
        if self.rows_per_table() < MIN_ROWS {
            return Err(BenchError::Invalid(format!(
                "--size: expected at least {} bytes (4 tables of {MIN_ROWS} rows of 100 bytes), e.g. 40MiB",
                MIN_ROWS * SCALED_TABLES * ROW_BYTES
            )));
        }
        if self.rows_per_table() > MAX_ROWS {
            return Err(BenchError::Invalid(
                "--size: expected at most 200GB (500,000,000 rows per table: the sparse ranges 0..10^9 need two values per row)".into(),
            ));
        }
        if let Some(u) = self.users.filter(|&u| u == 0 || u > MAX_USERS) {
            return Err(BenchError::Invalid(format!(
                "--users: expected 1..={MAX_USERS}, got {u}"
            )));
        }
        if self.users.is_none() && self.users() > MAX_USERS {
            return Err(BenchError::Invalid(format!(
                "--users: the size gives {} users (size / 4 MB), more than {MAX_USERS}: give --users",
                self.users()
            )));
        }
        if self.tests.is_empty() {
            return Err(BenchError::Invalid(
                "--tests: expected a list of single,ir,ir-oltp,cross-ir,cross-oltp".into(),
            ));
        }
        if self.measure.is_zero() {
            return Err(BenchError::Invalid(
                "--measure: expected a positive duration, e.g. 5s".into(),
            ));
        }
        if let Some(limit) = self.time_limit {
            check_time_limit(limit)?;
            if self.reuse {
                return Err(BenchError::Invalid(
                    "--reuse and --time-limit: the search loads the tables anew at each size; leave out --reuse".into(),
                ));
            }
        }
        if !(1..=MAX_SEARCH_STEPS).contains(&self.search_steps) {
            return Err(BenchError::Invalid(format!(
                "--search-steps: expected 1..={MAX_SEARCH_STEPS}, got {}",
                self.search_steps
            )));
        }
        if self.reuse && self.recreate {
            return Err(BenchError::Invalid(
                "--reuse and --recreate: give one or the other".into(),
            ));
        }
        check_paths(&target, &self.scratch_dir)
    }
}

/// The paths a SQLite run needs, checked before anything runs (usage
/// errors): the scratch directory of a run without `--db`, and the
/// directory of an explicit `sqlite:PATH` (SQLite would say only "unable
/// to open database file"). Shared by `db as3ap` and `db tpcc`.
pub(crate) fn check_paths(
    target: &Target,
    scratch_dir: &std::path::Path,
) -> Result<(), BenchError> {
    if let Target::Sqlite(None) = target
        && !scratch_dir.is_dir()
    {
        return Err(BenchError::Invalid(format!(
            "--scratch-dir: {} is not a directory (expected an existing directory, e.g. /tmp)",
            scratch_dir.display()
        )));
    }
    if let Target::Sqlite(Some(p)) = target
        && let Some(d) = p.parent().filter(|d| !d.as_os_str().is_empty())
        && !d.is_dir()
    {
        return Err(BenchError::Invalid(format!(
            "--db sqlite:{}: directory {} does not exist (expected sqlite:PATH in an existing directory)",
            p.display(),
            d.display()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_outside_the_range_are_refused_without_the_password() {
        for bad in ["70000", "0", "x"] {
            let e = Target::parse(&format!("mysql://u:pw9@127.0.0.1:{bad}/x"))
                .unwrap_err()
                .to_string();
            assert_eq!(
                e,
                format!(
                    "--db: port '{bad}' is not a port (1..65535); expected mysql://USER[:PASSWORD]@HOST[:PORT]/DB[?socket=PATH]"
                )
            );
            let e = Target::parse(&format!("postgres://u:pw9@[::1]:{bad}/x")).unwrap_err();
            assert!(
                e.to_string().starts_with(&format!("--db: port '{bad}'")),
                "{e}"
            );
        }
        assert!(Target::parse("mysql://u:p:w@127.0.0.1:3306/x").is_ok());
        assert!(Target::parse("postgres://u@h/x").is_ok());
    }

    #[test]
    fn parses_sqlite_targets_and_refuses_the_rest() {
        assert_eq!(
            Target::parse("sqlite:/tmp/a.db").unwrap(),
            Target::Sqlite(Some("/tmp/a.db".into()))
        );
        assert_eq!(
            Target::parse("sqlite:").unwrap_err().to_string(),
            "--db: sqlite: needs a file, e.g. sqlite:/tmp/as3ap.db"
        );
        assert_eq!(
            Target::parse("oracle://u:secret@h")
                .unwrap_err()
                .to_string(),
            "--db: expected sqlite:PATH, mysql://USER[:PASSWORD]@HOST[:PORT]/DB[?socket=PATH] or postgres://USER[:PASSWORD]@HOST[:PORT]/DB, got a 'oracle:' URL"
        );
        let e = Target::parse("mariadb://u:secret@h/d").unwrap_err();
        assert!(
            e.to_string().ends_with("got a 'mariadb:' URL") && !e.to_string().contains("secret"),
            "{e}"
        );
        let pg = Target::parse("postgres://bench:s3cr:et@127.0.0.1:5432/as3ap").unwrap();
        assert_eq!(pg.display(), "postgres://bench@127.0.0.1:5432/as3ap");
        assert_eq!(pg.engine(), "postgres");
        assert!(Target::parse("postgres://host").is_err());
        let my =
            Target::parse("mysql://bench:s3cret@127.0.0.1:13306/as3ap?socket=/tmp/m.sock").unwrap();
        assert_eq!(
            my.display(),
            "mysql://bench@127.0.0.1:13306/as3ap?socket=/tmp/m.sock"
        );
        assert_eq!(my.engine(), "mysql");
        assert_eq!(
            Target::parse("mysql://u:secret@h").unwrap_err().to_string(),
            "--db: expected mysql://USER[:PASSWORD]@HOST[:PORT]/DB[?socket=PATH]"
        );
    }

    #[test]
    fn validate_names_the_flag() {
        let ok = As3apConfig::default();
        assert!(ok.validate().is_ok());
        assert_eq!(ok.rows_per_table(), 104_857);
        let e = As3apConfig {
            users: Some(0),
            ..ok.clone()
        }
        .validate()
        .unwrap_err();
        assert_eq!(e.to_string(), "--users: expected 1..=1024, got 0");
        let e = As3apConfig {
            size: 1 << 20,
            ..ok.clone()
        }
        .validate()
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("--size: expected at least 4000000 bytes")
        );
        let e = As3apConfig {
            reuse: true,
            recreate: true,
            ..ok.clone()
        }
        .validate()
        .unwrap_err();
        assert!(e.to_string().starts_with("--reuse and --recreate"));
    }

    #[test]
    fn time_limit_takes_10s_to_24h_and_no_reuse() {
        let with = |secs: u64| As3apConfig {
            time_limit: Some(Duration::from_secs(secs)),
            ..As3apConfig::default()
        };
        for ok in [10, 20, 600, 12 * 3600, 24 * 3600] {
            assert!(with(ok).validate().is_ok(), "{ok}");
        }
        for bad in [9, 24 * 3600 + 1] {
            assert_eq!(
                with(bad).validate().unwrap_err().to_string(),
                format!("--time-limit: expected a duration of 10s to 24h (e.g. 2m), got {bad}s")
            );
        }
        let e = As3apConfig {
            reuse: true,
            ..with(20)
        }
        .validate()
        .unwrap_err();
        assert!(e.to_string().starts_with("--reuse and --time-limit"), "{e}");
        let e = As3apConfig {
            search_steps: 0,
            ..with(20)
        }
        .validate()
        .unwrap_err();
        assert_eq!(e.to_string(), "--search-steps: expected 1..=30, got 0");
    }
}
