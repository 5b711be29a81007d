//! Errors of the results store.

/// Everything that can go wrong with the results store, each with one clear
/// message that names the store where it matters (a database URL always
/// without its password).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The `--store` value (or `NODEBENCH_STORE`) is not a store nodebench
    /// can use: an unknown URL scheme, an unreadable PostgreSQL URL. The
    /// message names where the value came from and the accepted forms, and
    /// never echoes a password.
    #[error("{0}")]
    Location(String),
    /// The store could not be opened or created (directory not creatable,
    /// not a database, server unreachable, login refused, migration
    /// failed...).
    #[error("cannot open results store at {location}: {source}")]
    Open {
        /// The store that was being opened: its path, or its URL without
        /// the password.
        location: String,
        /// Why it could not be opened.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// There is no run with this id in the store.
    #[error("no run with id {0}")]
    NotFound(i64),
    /// The database was written by a newer nodebench with a schema this one
    /// does not know.
    #[error("store schema version {found} is newer than this nodebench supports ({supported})")]
    Newer {
        /// Schema version found in the database.
        found: i64,
        /// Newest schema version this nodebench knows.
        supported: i64,
    },
    /// An SQLite error while reading or writing the store.
    #[error("results store error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// A PostgreSQL error while reading or writing the store: the server's
    /// message, or the client's with its cause.
    #[error("results store error: {0}")]
    Postgres(String),
    /// A value could not be encoded as JSON for the store.
    #[error("cannot encode a value as JSON for the results store: {0}")]
    Json(#[from] serde_json::Error),
    /// A stored value cannot be read back (unknown status or unit, bad
    /// timestamp, malformed JSON, out-of-range number).
    #[error("results store holds an unreadable {what}: {reason}")]
    Invalid {
        /// Which value, e.g. `status of run 3`.
        what: String,
        /// What is wrong with it.
        reason: String,
    },
}

impl From<postgres::Error> for StoreError {
    fn from(e: postgres::Error) -> StoreError {
        StoreError::Postgres(postgres_message(&e))
    }
}

/// One line for a PostgreSQL error: the server's severity and message
/// (`ERROR: relation "runs" does not exist`), or the client's error with
/// its cause (`error connecting to server: Connection refused (os error
/// 111)`), which `postgres::Error`'s own text leaves out.
pub(crate) fn postgres_message(e: &postgres::Error) -> String {
    if let Some(db) = e.as_db_error() {
        return format!("{}: {}", db.severity(), db.message());
    }
    match std::error::Error::source(e) {
        Some(cause) => format!("{e}: {cause}"),
        None => e.to_string(),
    }
}

impl nodebench_core::error::Kind for StoreError {
    /// A store location refused or a run id it does not hold is input
    /// (exit 2); anything else failed (exit 1).
    fn kind(&self) -> nodebench_core::error::ErrorKind {
        use nodebench_core::error::ErrorKind;
        match self {
            StoreError::NotFound(_) | StoreError::Location(_) => ErrorKind::Usage,
            _ => ErrorKind::Failed,
        }
    }
}
