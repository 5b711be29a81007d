//! The backends the store tests run on: a SQLite file in a temporary
//! directory, and a PostgreSQL schema of its own in the database
//! `NODEBENCH_TEST_STORE_POSTGRES` names (scripts/db-servers start prints
//! it; scripts/test sets it). Without that variable the PostgreSQL tests
//! say they are skipped, and fail under CI.

#![allow(dead_code)] // each test binary uses its own part

use std::path::PathBuf;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use nodebench_store::{Location, Store, StoreError};
use tempfile::TempDir;

/// The variable naming the test PostgreSQL database.
pub const POSTGRES_VAR: &str = "NODEBENCH_TEST_STORE_POSTGRES";

/// One empty store for one test, removed when dropped.
pub enum Backend {
    /// A SQLite file (not created yet) in its own directory.
    Sqlite {
        /// Holds the directory for the test's life.
        _dir: TempDir,
        /// The store file.
        path: PathBuf,
    },
    /// A schema of its own in the test database.
    Postgres {
        /// The database URL with the schema as the search path.
        url: String,
        /// A connection to the database outside the store.
        admin: Box<Mutex<postgres::Client>>,
        /// The schema's name.
        schema: String,
    },
}

/// The test database's URL, or `None` (after saying so) outside CI.
pub fn postgres_url() -> Option<String> {
    match std::env::var(POSTGRES_VAR) {
        Ok(url) if !url.is_empty() => Some(url),
        _ => {
            nodebench_core::test_require::missing(
                "store (PostgreSQL)",
                nodebench_core::test_require::need::POSTGRES,
                &format!("{POSTGRES_VAR} is not set"),
                "scripts/db-servers start",
            );
            None
        }
    }
}

impl Backend {
    /// A new SQLite store path, in a directory that does not exist yet.
    pub fn sqlite() -> Backend {
        let dir = TempDir::new().unwrap();
        let path = dir.path().join("nested/dir/results.db");
        Backend::Sqlite { _dir: dir, path }
    }

    /// A new, empty PostgreSQL schema, or `None` without a test server
    /// (outside CI).
    pub fn postgres() -> Option<Backend> {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let base = postgres_url()?;
        let schema = format!(
            "store_test_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let mut admin = postgres::Client::connect(&base, postgres::NoTls)
            .unwrap_or_else(|e| panic!("{POSTGRES_VAR}: cannot connect: {e:?}"));
        admin
            .batch_execute(&format!(
                "DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}; SET search_path = {schema}"
            ))
            .unwrap();
        let sep = if base.contains('?') { '&' } else { '?' };
        let url = format!("{base}{sep}options=-c%20search_path%3D{schema}");
        Some(Backend::Postgres {
            url,
            admin: Box::new(Mutex::new(admin)),
            schema,
        })
    }

    /// Where the store is.
    pub fn location(&self) -> Location {
        match self {
            Backend::Sqlite { path, .. } => Location::Sqlite(path.clone()),
            Backend::Postgres { url, .. } => Location::Postgres(url.clone()),
        }
    }

    /// Opens the store.
    pub fn try_open(&self) -> Result<Box<dyn Store>, StoreError> {
        self.location().open()
    }

    /// Opens the store, which must work.
    pub fn open(&self) -> Box<dyn Store> {
        self.try_open().unwrap()
    }

    /// Runs `sql` (statements without parameters) on the store's database,
    /// beside the store.
    pub fn execute(&self, sql: &str) {
        match self {
            Backend::Sqlite { path, .. } => rusqlite::Connection::open(path)
                .unwrap()
                .execute_batch(sql)
                .unwrap(),
            Backend::Postgres { admin, .. } => admin.lock().unwrap().batch_execute(sql).unwrap(),
        }
    }

    /// The one integer `sql` selects.
    pub fn query_i64(&self, sql: &str) -> i64 {
        match self {
            Backend::Sqlite { path, .. } => rusqlite::Connection::open(path)
                .unwrap()
                .query_row(sql, [], |r| r.get(0))
                .unwrap(),
            Backend::Postgres { admin, .. } => {
                admin.lock().unwrap().query_one(sql, &[]).unwrap().get(0)
            }
        }
    }

    /// The number of rows in `table`.
    pub fn count(&self, table: &str) -> i64 {
        self.query_i64(&format!("SELECT COUNT(*) FROM {table}"))
    }

    /// The schema version the store records.
    pub fn schema_version(&self) -> i64 {
        self.query_i64("SELECT version FROM schema_version")
    }
}

impl Drop for Backend {
    fn drop(&mut self) {
        if let Backend::Postgres { admin, schema, .. } = self
            && let Ok(admin) = admin.get_mut()
        {
            let _ = admin.batch_execute(&format!("DROP SCHEMA IF EXISTS {schema} CASCADE"));
        }
    }
}

/// Declares each named test function (taking a `&Backend`) as one test
/// on SQLite (module `sqlite`) and one on PostgreSQL (module `postgres`).
#[macro_export]
macro_rules! on_both_backends {
    ($($name:ident),* $(,)?) => {
        mod sqlite {
            $(
                #[test]
                fn $name() {
                    super::$name(&$crate::common::Backend::sqlite());
                }
            )*
        }
        mod postgres {
            $(
                #[test]
                fn $name() {
                    if let Some(backend) = $crate::common::Backend::postgres() {
                        super::$name(&backend);
                    }
                }
            )*
        }
    };
}
