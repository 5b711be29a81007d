//! Where the results store lives: a SQLite file (the default) or a
//! PostgreSQL database, named by `--store` or `NODEBENCH_STORE`.

use std::env;
use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};

use nodebench_core::credentials::without_password;

use crate::{PostgresStore, SqliteStore, Store, StoreError};

/// Environment variable that names the store when `--store` is not given.
pub const STORE_ENV: &str = "NODEBENCH_STORE";

/// File name of the store inside its data directory.
const FILE_NAME: &str = "results.db";

/// The forms a store value may take, for refusals.
const ACCEPTED: &str =
    "accepted: a file path, sqlite://PATH, postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE";

/// Where the store lives when neither `--store` nor `NODEBENCH_STORE` says:
/// `$XDG_DATA_HOME/nodebench/results.db` (when set to an absolute path), else
/// `~/.local/share/nodebench/results.db` (from `HOME`), else
/// `./nodebench-results.db`.
pub fn default_path() -> PathBuf {
    if let Some(data) = env::var_os("XDG_DATA_HOME").map(PathBuf::from)
        && data.is_absolute()
    {
        return data.join("nodebench").join(FILE_NAME);
    }
    if let Some(home) = env::var_os("HOME").filter(|h| !h.is_empty()) {
        return PathBuf::from(home)
            .join(".local/share/nodebench")
            .join(FILE_NAME);
    }
    Path::new(".").join("nodebench-results.db")
}

/// A results store: its backend and where it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// A SQLite file (created with its directories when missing).
    Sqlite(PathBuf),
    /// A PostgreSQL database: the URL as given, password included (shown
    /// only through [`Location`]'s `Display`, which leaves it out).
    Postgres(String),
}

impl Location {
    /// Reads a store value; `source` names where it came from (`--store`,
    /// `NODEBENCH_STORE`) for the refusal. `postgres://` and
    /// `postgresql://` URLs name a PostgreSQL database, `sqlite://PATH` (or
    /// `sqlite:PATH`) and anything without a `SCHEME://` a SQLite file;
    /// another scheme is refused naming only the scheme, as the rest may
    /// hold a password.
    pub fn parse(value: &OsStr, source: &str) -> Result<Location, StoreError> {
        let Some(text) = value.to_str() else {
            return Ok(Location::Sqlite(PathBuf::from(value)));
        };
        if text.is_empty() {
            return Err(StoreError::Location(format!("{source}: empty; {ACCEPTED}")));
        }
        if let Some(path) = text.strip_prefix("sqlite:") {
            let path = path.strip_prefix("//").unwrap_or(path);
            if path.is_empty() {
                return Err(StoreError::Location(format!(
                    "{source}: sqlite: needs a file, e.g. sqlite:///var/lib/nodebench/results.db"
                )));
            }
            return Ok(Location::Sqlite(PathBuf::from(path)));
        }
        match url_scheme(text) {
            None => Ok(Location::Sqlite(PathBuf::from(text))),
            Some("postgres" | "postgresql") => {
                check_postgres_url(text, source)?;
                Ok(Location::Postgres(text.to_string()))
            }
            Some(scheme) => Err(StoreError::Location(format!(
                "{source}: unsupported store URL scheme '{scheme}://'; {ACCEPTED}"
            ))),
        }
    }

    /// The store `flag` (the `--store` value) names if given, else
    /// `NODEBENCH_STORE` if set and non-empty, else the SQLite file at
    /// [`default_path`].
    ///
    /// A SQLite file named explicitly must be in a directory that exists:
    /// a mistyped path is refused rather than created; only the default
    /// location creates its directories.
    pub fn resolve(flag: Option<&OsStr>) -> Result<Location, StoreError> {
        let (value, source) = match (flag, env::var_os(STORE_ENV)) {
            (Some(value), _) => (value.to_os_string(), "--store"),
            (None, Some(value)) if !value.is_empty() => (value, STORE_ENV),
            _ => return Ok(Location::Sqlite(default_path())),
        };
        let location = Location::parse(&value, source)?;
        if let Location::Sqlite(path) = &location {
            check_parent(path, source)?;
            check_file(path, source)?;
        }
        Ok(location)
    }

    /// Opens (creating when needed) the store here.
    pub fn open(&self) -> Result<Box<dyn Store>, StoreError> {
        Ok(match self {
            Location::Sqlite(path) => Box::new(SqliteStore::open(path)?),
            Location::Postgres(url) => Box::new(PostgresStore::open(url)?),
        })
    }
}

impl fmt::Display for Location {
    /// The path, or the URL without its password.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Sqlite(path) => write!(f, "{}", path.display()),
            Location::Postgres(url) => f.write_str(&without_password(url)),
        }
    }
}

/// Refuses a SQLite file named by `source` whose directory does not exist.
fn check_parent(path: &Path, source: &str) -> Result<(), StoreError> {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => return Ok(()),
    };
    if parent.is_dir() {
        return Ok(());
    }
    Err(StoreError::Location(format!(
        "{source}: directory {} does not exist (create it first; nodebench creates only its default store's directories)",
        parent.display()
    )))
}

/// Refuses a SQLite store path that is a directory, or an existing file
/// that is not a SQLite database (an empty file is one SQLite starts).
fn check_file(path: &Path, source: &str) -> Result<(), StoreError> {
    let accepted = "expected a SQLite file (created when missing) or postgres://USER[:PASSWORD]@HOST[:PORT]/DB";
    if path.is_dir() {
        return Err(StoreError::Location(format!(
            "{source}: {} is a directory; {accepted}",
            path.display()
        )));
    }
    let Ok(mut file) = std::fs::File::open(path) else {
        return Ok(());
    };
    let mut head = [0u8; 16];
    let read = std::io::Read::read(&mut file, &mut head).unwrap_or(0);
    if read > 0 && (read < head.len() || &head != b"SQLite format 3\0") {
        return Err(StoreError::Location(format!(
            "{source}: {} is not a SQLite database; {accepted}",
            path.display()
        )));
    }
    Ok(())
}

/// The scheme of `text` when it starts like a URL (`SCHEME://`, the scheme
/// a letter then letters, digits, `+`, `-` or `.`).
fn url_scheme(text: &str) -> Option<&str> {
    let (scheme, _) = text.split_once("://")?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then_some(scheme)
}

/// Parses the PostgreSQL `url` before anything connects; the refusal names
/// `source` and the accepted form.
fn check_postgres_url(url: &str, source: &str) -> Result<(), StoreError> {
    url.parse::<postgres::Config>().map(|_| ()).map_err(|e| {
        StoreError::Location(format!(
            "{source}: not a PostgreSQL URL ({}); accepted: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE",
            crate::error::postgres_message(&e)
        ))
    })
}
