//! Where the results store lives.

use std::env;
use std::path::{Path, PathBuf};

/// Environment variable that names the store when `--store` is not given.
pub const STORE_ENV: &str = "NODEBENCH_STORE";

/// File name of the store inside its data directory.
const FILE_NAME: &str = "results.db";

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

/// Resolves the store path: `flag` (the `--store` value) if given, else
/// `NODEBENCH_STORE` if set and non-empty, else [`default_path`].
pub fn resolve_path(flag: Option<&Path>) -> PathBuf {
    if let Some(p) = flag {
        return p.to_path_buf();
    }
    match env::var_os(STORE_ENV) {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => default_path(),
    }
}
