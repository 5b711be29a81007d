//! `nodebench db as3ap` through the binary: the defaults end to end on
//! SQLite within a minute with the scratch file removed, one clear line for
//! each bad input, and no password anywhere.

mod common;

use std::time::{Duration, Instant};

use common::{TempStore, json, one_line_error, run, stderr};

#[test]
fn defaults_run_end_to_end_on_sqlite_in_under_a_minute() {
    let scratch = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let out = common::bin()
        .args(["--no-save", "-q", "--json", "db", "as3ap"])
        .env("TMPDIR", scratch.path())
        .output()
        .unwrap();
    let took = start.elapsed();
    let run = json(&out);
    assert!(took < Duration::from_secs(60), "took {took:?}");
    let results = run["results"].as_array().unwrap();
    let tests: Vec<&str> = results
        .iter()
        .map(|r| r["parameters"]["test"].as_str().unwrap())
        .collect();
    assert_eq!(
        tests,
        ["load", "single", "ir", "ir-oltp", "cross-ir", "cross-oltp"]
    );
    for r in results {
        assert_eq!(r["status"], "passed", "{r}");
        assert_eq!(r["parameters"]["engine"], "sqlite");
        assert_eq!(r["parameters"]["users"], 6);
        assert!(
            r["parameters"]["server_version"]
                .as_str()
                .unwrap()
                .starts_with("SQLite 3.")
        );
    }
    let rows = common::metric(&results[0], "rows", &[("table", "updates")]);
    assert_eq!(rows, 104_857.0, "40MiB / 400 B");
    assert!(common::metric(&results[2], "queries_per_second", &[("user", "measured")]) > 0.0);
    let left: Vec<_> = std::fs::read_dir(scratch.path()).unwrap().collect();
    assert!(left.is_empty(), "scratch files left: {left:?}");
}

#[test]
fn bad_input_gives_one_line_and_a_non_zero_exit() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite:{}", dir.path().join("a.db").display());
    let quick = [
        "--size",
        "4000000",
        "--users",
        "2",
        "--warmup",
        "0",
        "--measure",
        "100ms",
    ];
    let args = |extra: &[&str]| {
        let mut v = vec!["db", "as3ap"];
        v.extend_from_slice(extra);
        v.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let go = |extra: &[&str]| {
        let a = args(extra);
        run(&a.iter().map(String::as_str).collect::<Vec<_>>())
    };
    one_line_error(
        &go(&["--users", "0"]),
        2,
        &["--users: expected 1..=1024, got 0"],
    );
    one_line_error(
        &go(&["--size", "1MB"]),
        2,
        &["--size: expected at least 4000000 bytes"],
    );
    one_line_error(&go(&["--tests", "ir,bogus"]), 2, &["--tests", "ir-oltp"]);
    one_line_error(
        &go(&["--reuse", "--recreate"]),
        2,
        &["--reuse and --recreate"],
    );
    let out = go(&["--db", "mariadb://bench:hunter2@127.0.0.1/as3ap"]);
    one_line_error(
        &out,
        2,
        &["--db: expected sqlite:PATH, mysql://", "'mariadb:'"],
    );
    assert!(!stderr(&out).contains("hunter2"));
    let closed = common::closed_port();
    for scheme in ["postgres", "mysql"] {
        let url = format!("{scheme}://bench:hunter2@127.0.0.1:{closed}/as3ap");
        let out = go(&["--db", &url]);
        one_line_error(
            &out,
            1,
            &[&format!("--db {scheme}://bench@127.0.0.1:"), "/as3ap: "],
        );
        assert!(!stderr(&out).contains("hunter2"));
    }
    one_line_error(
        &go(&["--db", "sqlite:/nonexistent/dir/a.db"]),
        1,
        &["directory /nonexistent/dir does not exist"],
    );

    // Existing tables are neither reused nor overwritten without being told.
    let mut first = vec!["--db", db.as_str(), "--tests", "ir"];
    first.extend_from_slice(&quick);
    let out = go(&first);
    assert!(out.status.success(), "{}", stderr(&out));
    one_line_error(
        &go(&first),
        1,
        &["AS3AP tables already exist", "--reuse", "--recreate"],
    );
    let mut other_seed = first.clone();
    other_seed.extend_from_slice(&["--reuse", "--seed", "9"]);
    one_line_error(&go(&other_seed), 1, &["--reuse:", "--seed 9", "--recreate"]);
}

#[test]
fn ctrl_c_during_the_load_drops_the_tables_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.db");
    let t = TempStore::new();
    let child = t
        .command()
        .args(["-q", "--json", "db", "as3ap", "--size", "4GB", "--db"])
        .arg(format!("sqlite:{}", path.display()))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the load has written something, then interrupt it.
    let deadline = Instant::now() + Duration::from_secs(30);
    let wal = dir.path().join("big.db-wal");
    while std::fs::metadata(&wal).map_or(0, |m| m.len()) < (1 << 20) {
        assert!(Instant::now() < deadline, "the load never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    common::interrupt(child.id());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    let saved: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = &saved["results"][0];
    assert_eq!(r["status"], "cancelled");
    assert_eq!(r["error"], nodebench_db::as3ap::LOAD_INTERRUPTED);
    // The tables are gone: the same file loads anew without --recreate.
    let out = run(&[
        "db",
        "as3ap",
        "--db",
        &format!("sqlite:{}", path.display()),
        "--size",
        "4000000",
        "--tests",
        "ir",
        "--users",
        "2",
        "--warmup",
        "0",
        "--measure",
        "100ms",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
}

#[test]
fn ctrl_c_during_a_mariadb_load_drops_the_tables_and_says_so() {
    // The server scripts/db-servers starts; CI (which sets CI) must have it.
    let Ok(url) = std::env::var("NODEBENCH_TEST_MYSQL") else {
        assert!(
            std::env::var("CI").is_err(),
            "NODEBENCH_TEST_MYSQL is not set: scripts/test starts the server (scripts/db-servers start)"
        );
        eprintln!("skipped: NODEBENCH_TEST_MYSQL not set (scripts/db-servers start)");
        return;
    };
    use nodebench_db::data::TABLES;
    use nodebench_db::engine::Connector;
    use nodebench_db::engine::mysql::MysqlConnector;
    let mut s = MysqlConnector { url: url.clone() }.connect().unwrap();
    let t = TempStore::new();
    let child = t
        .command()
        .args(["-q", "--json", "db", "as3ap", "--size", "4GB", "--recreate"])
        .args(["--db", &url])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Wait until the load is under way (its first table exists and the
    // stream has run a moment), then interrupt it.
    let deadline = Instant::now() + Duration::from_secs(30);
    while !s.table_exists("uniques").unwrap() {
        assert!(Instant::now() < deadline, "the load never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(500));
    common::interrupt(child.id());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    let saved: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = &saved["results"][0];
    assert_eq!(r["status"], "cancelled");
    assert_eq!(r["error"], nodebench_db::as3ap::LOAD_INTERRUPTED);
    assert_eq!(r["parameters"]["engine"], "mysql");
    for table in TABLES {
        assert!(!s.table_exists(table.name).unwrap(), "{} left", table.name);
    }
}
