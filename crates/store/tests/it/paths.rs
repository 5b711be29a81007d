//! Store location resolution and parsing. Kept in its own test binary (its
//! own process) because it changes environment variables, which are
//! process-global.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use nodebench_store::{Location, STORE_ENV, default_path};

/// Sets or removes an environment variable.
fn set(key: &str, value: Option<&str>) {
    // SAFETY: only one test of this binary touches the environment; the
    // other parses values without reading it.
    unsafe {
        match value {
            Some(v) => std::env::set_var(key, v),
            None => std::env::remove_var(key),
        }
    }
}

fn resolve(flag: Option<&str>) -> Location {
    Location::resolve(flag.map(OsStr::new)).unwrap()
}

fn sqlite(path: &str) -> Location {
    Location::Sqlite(PathBuf::from(path))
}

fn refusal(value: &str) -> String {
    Location::parse(OsStr::new(value), "--store")
        .unwrap_err()
        .to_string()
}

#[test]
fn resolve_prefers_flag_then_env_then_default_and_reads_each_form() {
    set("XDG_DATA_HOME", Some("/xdg/data"));
    set("HOME", Some("/home/someone"));
    set(STORE_ENV, None);
    let flag = "/tmp/flag-results.db";

    // Default: XDG_DATA_HOME, then HOME, then the current directory.
    assert_eq!(
        default_path(),
        PathBuf::from("/xdg/data/nodebench/results.db")
    );
    assert_eq!(resolve(None), Location::Sqlite(default_path()));
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
    assert_eq!(resolve(None), sqlite("./nodebench-results.db"));

    // An empty NODEBENCH_STORE counts as unset.
    set(STORE_ENV, Some(""));
    assert_eq!(resolve(None), Location::Sqlite(default_path()));

    // NODEBENCH_STORE over the default, the flag over both.
    set(STORE_ENV, Some("/tmp/env-results.db"));
    assert_eq!(resolve(None), sqlite("/tmp/env-results.db"));
    assert_eq!(resolve(Some(flag)), sqlite(flag));
    set(STORE_ENV, Some("postgres://u:pw@db.example:5433/results"));
    assert_eq!(
        resolve(None),
        Location::Postgres("postgres://u:pw@db.example:5433/results".into())
    );
    assert_eq!(
        resolve(None).to_string(),
        "postgres://u@db.example:5433/results"
    );
    // A bad NODEBENCH_STORE is refused naming the variable.
    set(STORE_ENV, Some("mysql://u:pw@h/db"));
    let err = Location::resolve(None).unwrap_err().to_string();
    assert!(
        err.starts_with("NODEBENCH_STORE: unsupported store URL scheme 'mysql://'"),
        "{err}"
    );
    assert!(!err.contains("pw"), "{err}");
    // A file named explicitly in a directory that does not exist is
    // refused naming where it came from; nothing is created.
    set(STORE_ENV, Some("/nonexistent-nodebench/env.db"));
    let err = Location::resolve(None).unwrap_err().to_string();
    assert!(
        err.starts_with("NODEBENCH_STORE: directory /nonexistent-nodebench does not exist"),
        "{err}"
    );
    let err = Location::resolve(Some(OsStr::new("/nonexistent-nodebench/flag.db")))
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("--store: directory"), "{err}");
    assert!(!std::path::Path::new("/nonexistent-nodebench").exists());
    set(STORE_ENV, None);
    assert_eq!(resolve(Some(flag)), sqlite(flag));

    // The forms of a value (read, not resolved: their directories need
    // not exist here).
    let parsed = |v: &str| Location::parse(OsStr::new(v), "--store").unwrap();
    assert_eq!(resolve(Some("results.db")), sqlite("results.db"));
    assert_eq!(parsed("./a:b/results.db"), sqlite("./a:b/results.db"));
    assert_eq!(resolve(Some("sqlite:///var/r.db")), sqlite("/var/r.db"));
    assert_eq!(parsed("sqlite:rel/r.db"), sqlite("rel/r.db"));
    assert_eq!(
        resolve(Some("postgresql://u@h/db")),
        Location::Postgres("postgresql://u@h/db".into())
    );
    assert_eq!(Path::new(flag), Path::new("/tmp/flag-results.db"));
}

#[test]
fn store_values_nodebench_cannot_use_are_one_line_without_the_password() {
    let accepted =
        "accepted: a file path, sqlite://PATH, postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE";
    assert_eq!(
        refusal("mysql://user:hunter2@db.example/results"),
        format!("--store: unsupported store URL scheme 'mysql://'; {accepted}")
    );
    assert_eq!(
        refusal("https://user:hunter2@example.org/x"),
        format!("--store: unsupported store URL scheme 'https://'; {accepted}")
    );
    assert_eq!(refusal(""), format!("--store: empty; {accepted}"));
    assert_eq!(
        refusal("sqlite://"),
        "--store: sqlite: needs a file, e.g. sqlite:///var/lib/nodebench/results.db"
    );
    let bad_port = refusal("postgres://user:hunter2@db.example:notaport/results");
    assert!(
        bad_port.starts_with("--store: not a PostgreSQL URL (invalid connection string"),
        "{bad_port}"
    );
    assert!(!bad_port.contains("hunter2"), "{bad_port}");
    assert_eq!(bad_port.lines().count(), 1);
}
