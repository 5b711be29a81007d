//! Store path resolution. Kept in its own test binary (its own process)
//! because it changes environment variables, which are process-global.

use std::path::{Path, PathBuf};

use nodebench_store::{STORE_ENV, default_path, resolve_path};

/// Sets or removes an environment variable.
fn set(key: &str, value: Option<&str>) {
    // SAFETY: this test binary has this single test, so no other thread
    // reads or writes the environment while it runs.
    unsafe {
        match value {
            Some(v) => std::env::set_var(key, v),
            None => std::env::remove_var(key),
        }
    }
}

#[test]
fn resolve_path_prefers_flag_then_env_then_default() {
    set("XDG_DATA_HOME", Some("/xdg/data"));
    set("HOME", Some("/home/someone"));
    set(STORE_ENV, None);
    let flag = Path::new("/flag/results.db");

    // Default: XDG_DATA_HOME, then HOME, then the current directory.
    assert_eq!(
        default_path(),
        PathBuf::from("/xdg/data/nodebench/results.db")
    );
    assert_eq!(resolve_path(None), default_path());
    set("XDG_DATA_HOME", Some(""));
    assert_eq!(
        default_path(),
        PathBuf::from("/home/someone/.local/share/nodebench/results.db")
    );
    set("XDG_DATA_HOME", Some("relative/dir"));
    assert_eq!(
        default_path(),
        PathBuf::from("/home/someone/.local/share/nodebench/results.db")
    );
    set("XDG_DATA_HOME", None);
    assert_eq!(
        default_path(),
        PathBuf::from("/home/someone/.local/share/nodebench/results.db")
    );
    set("HOME", None);
    assert_eq!(default_path(), PathBuf::from("./nodebench-results.db"));
    assert_eq!(resolve_path(None), PathBuf::from("./nodebench-results.db"));

    // An empty NODEBENCH_STORE counts as unset.
    set(STORE_ENV, Some(""));
    assert_eq!(resolve_path(None), default_path());

    // NODEBENCH_STORE over the default, the flag over both.
    set(STORE_ENV, Some("/env/results.db"));
    assert_eq!(resolve_path(None), PathBuf::from("/env/results.db"));
    assert_eq!(resolve_path(Some(flag)), flag);
    set(STORE_ENV, None);
    assert_eq!(resolve_path(Some(flag)), flag);
}
