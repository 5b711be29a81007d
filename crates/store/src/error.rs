//! Errors of the results store.

use std::path::PathBuf;

/// Everything that can go wrong with the results store, each with one clear
/// message that names the store path where it matters.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The store could not be opened or created (directory not creatable,
    /// not a database, migration failed...).
    #[error("cannot open results store at {}: {source}", path.display())]
    Open {
        /// The store path that was being opened.
        path: PathBuf,
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
