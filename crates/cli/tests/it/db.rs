//! `nodebench db as3ap` through the binary: the defaults end to end on
//! SQLite within a minute with the scratch file removed, one clear line for
//! each bad input, and no password anywhere; Ctrl-C during a load (SQLite,
//! PostgreSQL, MariaDB) drops the half-loaded tables; the built-in HTTP server's
//! `/db/ir` page on an AS3AP database (`http serve|load --db`).
//!
//! The PostgreSQL and MariaDB tests use the servers `scripts/db-servers
//! start` runs (NODEBENCH_TEST_POSTGRES, NODEBENCH_TEST_MYSQL); without them
//! they say they skipped, and fail under CI.

use crate::common;

use std::io::{Read, Write};
use std::process::Stdio;
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
        // The paper's users: 40 MiB / 4 MB.
        assert_eq!(r["parameters"]["users"], 10);
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
    // Paths and URLs that cannot be right are refused before anything
    // runs: exit 2, one line, nothing stored (see input.rs).
    one_line_error(
        &go(&["--db", "sqlite:/nonexistent/dir/a.db"]),
        2,
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

/// The PostgreSQL server's URL, or `None` (after saying so) outside CI.
fn postgres() -> Option<String> {
    match std::env::var("NODEBENCH_TEST_POSTGRES") {
        Ok(url) => Some(url),
        Err(_) => {
            nodebench_core::test_require::missing(
                "db (PostgreSQL)",
                nodebench_core::test_require::need::POSTGRES,
                "NODEBENCH_TEST_POSTGRES is not set",
                "scripts/db-servers start",
            );
            None
        }
    }
}

/// `db as3ap --db DB` on the smallest database (10,000 rows per table),
/// IR only, 2 users for 100 ms, with `extra` flags.
fn small_load(db: &str, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "db",
        "as3ap",
        "--db",
        db,
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
    ];
    args.extend_from_slice(extra);
    run(&args)
}

/// `http load /db/ir --db DB` keep-alive, `n` requests over 3 connections
/// and 2 server threads: the result, checked passed with every request
/// answered 200 and counted by the server.
fn load_db_ir(db: &str, n: u64) -> serde_json::Value {
    let out = run(&[
        "--json",
        "http",
        "load",
        "/db/ir",
        "--db",
        db,
        "--server-threads",
        "2",
        "-n",
        &n.to_string(),
        "-c",
        "3",
        "-k",
    ]);
    let r = json(&out)["results"][0].clone();
    assert_eq!(r["status"], "passed", "{r}");
    assert_eq!(common::metric(&r, "requests_completed", &[]), n as f64);
    assert_eq!(common::metric(&r, "non_2xx", &[]), 0.0);
    // Rows of one length: none counts as failed by ab's Length check.
    assert_eq!(common::metric(&r, "requests_failed", &[]), 0.0);
    assert_eq!(r["parameters"]["server_requests_served"], n);
    r
}

#[test]
fn ctrl_c_during_a_postgres_load_drops_the_tables_and_bad_input_is_one_line() {
    let Some(url) = postgres() else { return };
    let t = TempStore::new();
    let child = t
        .command()
        .args([
            "-q",
            "--json",
            "db",
            "as3ap",
            "--size",
            "4GB",
            "--recreate",
            "--db",
        ])
        .arg(&url)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The load of 4 GB takes minutes; 2 s in, COPY is streaming.
    std::thread::sleep(Duration::from_secs(2));
    common::interrupt(child.id());
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", stderr(&out));
    let saved: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let r = &saved["results"][0];
    assert_eq!(r["parameters"]["test"], "load");
    assert_eq!(r["parameters"]["engine"], "postgres");
    assert_eq!(r["status"], "cancelled");
    assert_eq!(r["error"], nodebench_db::as3ap::LOAD_INTERRUPTED);
    // The tables are gone: the database loads anew without --recreate.
    let out = small_load(&url, &[]);
    assert!(out.status.success(), "{}", stderr(&out));

    // The web tier on it: /db/ir through the built-in server.
    let r = load_db_ir(&url, 200);
    let shown = url.split_once("://").unwrap();
    let user_host = format!("{}://bench@{}", shown.0, shown.1.split_once('@').unwrap().1);
    assert_eq!(
        r["parameters"]["server_endpoints"],
        format!("/db/ir={user_host}")
    );

    // Existing tables are neither reused nor overwritten without being told.
    one_line_error(
        &small_load(&url, &[]),
        1,
        &["AS3AP tables already exist", "--reuse", "--recreate"],
    );
    let (scheme_user, rest) = url.split_once('@').unwrap();
    let user = scheme_user.rsplit_once(':').unwrap().0;
    let out = small_load(&format!("{user}:not-the-password@{rest}"), &[]);
    one_line_error(&out, 1, &["password authentication failed"]);
    assert!(!stderr(&out).contains("not-the-password"));
    let (base, _) = url.rsplit_once('/').unwrap();
    one_line_error(
        &small_load(&format!("{base}/no_such_db"), &[]),
        1,
        &["database \"no_such_db\" does not exist"],
    );
    one_line_error(
        &run(&["db", "as3ap", "--db", &url, "--users", "0"]),
        2,
        &["--users: expected 1..=1024, got 0"],
    );
}

/// `GET PATH` on `addr` over a fresh connection: the status and body.
fn get(addr: &str, path: &str) -> (u16, String) {
    let mut s = std::net::TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut reply = String::new();
    s.read_to_string(&mut reply).unwrap();
    let (head, body) = reply.split_once("\r\n\r\n").unwrap();
    let status = head.split_whitespace().nth(1).unwrap().parse().unwrap();
    (status, body.to_string())
}

#[test]
fn the_http_servers_db_ir_page_answers_from_an_as3ap_database() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("as3ap.db");
    let db = format!("sqlite:{}", path.display());
    let out = small_load(&db, &[]);
    assert!(out.status.success(), "{}", stderr(&out));

    // In process: every request answered and counted by the server.
    let r = load_db_ir(&db, 300);
    assert_eq!(r["parameters"]["server_endpoints"], format!("/db/ir={db}"));

    // `http serve --db`: the row of a key, its banner line.
    let mut child = common::bin()
        .args([
            "http",
            "serve",
            "--port",
            "0",
            "--threads",
            "2",
            "--db",
            &db,
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut banner = String::new();
    std::io::BufRead::read_line(&mut out, &mut banner).unwrap();
    let addr = banner
        .split_whitespace()
        .find_map(|w| w.strip_prefix("http://"))
        .unwrap_or_else(|| panic!("no address in {banner:?}"))
        .to_string();
    let (status, body) = get(&addr, "/db/ir?key=1234");
    let (status_random, body_random) = get(&addr, "/db/ir");
    let (status_bad, _) = get(&addr, "/db/ir?key=1");
    let (_, index) = get(&addr, "/");
    common::interrupt(child.id());
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    assert!(child.wait().unwrap().success());
    assert_eq!(status, 200, "{body}");
    assert!(body.starts_with("col_key=      1234\ncol_code="), "{body}");
    assert_eq!(body.lines().count(), 5, "{body}");
    assert_eq!(status_random, 200, "{body_random}");
    assert_eq!(status_bad, 400);
    assert!(index.contains("/db/ir[?key=N]"), "{index}");
    assert!(
        rest.contains("/db/ir[?key=N]"),
        "the banner lists the page: {rest}"
    );
    assert!(rest.contains("served 4 requests"), "{rest}");
}

#[test]
fn a_bad_db_for_the_http_server_is_one_line_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("none.db");
    let db = format!("sqlite:{}", missing.display());
    one_line_error(
        &run(&["http", "serve", "--port", "0", "--db", &db]),
        2,
        &["--db sqlite:", "no such file", "nodebench db as3ap --db"],
    );
    assert!(!missing.exists());
    let out = run(&[
        "http",
        "serve",
        "--port",
        "0",
        "--db",
        "oracle://u:hunter2@h/x",
    ]);
    one_line_error(&out, 2, &["--db: expected sqlite:PATH"]);
    assert!(!stderr(&out).contains("hunter2"));
    let closed = common::closed_port();
    let out = run(&[
        "http",
        "serve",
        "--port",
        "0",
        "--db",
        &format!("postgres://bench:hunter2@127.0.0.1:{closed}/as3ap"),
    ]);
    one_line_error(&out, 2, &["--db postgres://bench@127.0.0.1:"]);
    assert!(!stderr(&out).contains("hunter2"));
    one_line_error(
        &run(&["http", "load", "http://127.0.0.1:1/db/ir", "--db", &db]),
        2,
        &["--db: applies only to a URL that is a path"],
    );
    one_line_error(
        &run(&["http", "load", "/db/ir", "--db", "oracle://x"]),
        2,
        &["--db: expected sqlite:PATH"],
    );
}

#[test]
fn runs_show_and_the_html_report_print_the_as3ap_tables_of_a_stored_run() {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("sqlite:{}", dir.path().join("as3ap.db").display());
    let t = TempStore::new();
    let out = t.run(&[
        "-q",
        "db",
        "as3ap",
        "--db",
        &db,
        "--size",
        "4000000",
        "--tests",
        "single,ir,ir-oltp",
        "--users",
        "2",
        "--warmup",
        "0",
        "--measure",
        "200ms",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let out = t.run(&["runs", "show", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = common::stdout(&out);
    assert!(
        text.contains(&format!("db.as3ap on {db} (SQLite 3.")),
        "{text}"
    );
    assert!(
        text.contains("10000 rows per table (4000000 B), seed 1, 2 users"),
        "{text}"
    );
    assert!(text.contains("\nload [passed]: 40001 rows in "), "{text}");
    assert!(text.contains("\n  updates           10000 "), "{text}");
    assert!(text.contains("\nsingle [passed]: "), "{text}");
    for q in ["sel_1_cl", "join_2_ncl"] {
        assert!(
            text.lines().any(|l| l.starts_with(&format!("  {q} "))),
            "{q}: {text}"
        );
    }
    assert_eq!(text.matches("multi-user tests").count(), 1, "{text}");
    let row = |test: &str| -> Vec<String> {
        text.lines()
            .find(|l| l.starts_with(&format!("  {test} ")))
            .unwrap_or_else(|| panic!("no {test} row: {text}"))
            .split_whitespace()
            .map(String::from)
            .collect()
    };
    let ir = row("ir");
    assert_eq!(ir[1], "passed", "{ir:?}");
    assert!(ir[3].parse::<f64>().unwrap() > 0.0, "q/s all: {ir:?}");
    assert_eq!(ir.len(), 11, "no restore for IR: {ir:?}");
    let oltp = row("ir-oltp");
    assert_eq!(oltp.len(), 11, "with the restore seconds: {oltp:?}");
    assert_eq!(oltp[9], "0", "errors: {oltp:?}");

    let html = t.store().with_file_name("r.html");
    let out = t.run(&["report", "latest", "-o", html.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    let page = std::fs::read_to_string(&html).unwrap();
    assert_eq!(page.matches("<h3>db.as3ap</h3>").count(), 1, "one block");
    assert!(page.contains("multi-user tests") && page.contains("sel_1_cl"));
}

#[test]
fn ctrl_c_during_a_mariadb_load_drops_the_tables_and_says_so() {
    // The server scripts/db-servers starts; CI (which sets CI) must have it.
    let Ok(url) = std::env::var("NODEBENCH_TEST_MYSQL") else {
        nodebench_core::test_require::missing(
            "ctrl_c_during_a_mariadb_load_drops_the_tables_and_says_so",
            nodebench_core::test_require::need::MYSQL,
            "NODEBENCH_TEST_MYSQL is not set",
            "scripts/db-servers start",
        );
        return;
    };
    use nodebench_db::data::TABLES;
    use nodebench_db::engine::Connector;
    use nodebench_db::engine::mysql::MysqlConnector;
    let mut s = MysqlConnector::new(&url).unwrap().connect().unwrap();
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
    // The web tier on it: /db/ir through the built-in server.
    let out = small_load(&url, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    load_db_ir(&url, 200);
}

#[test]
fn the_size_help_names_the_default_in_its_own_unit_with_its_true_row_count() {
    let help = common::stdout(&run(&["db", "as3ap", "--help"]));
    let line = help.lines().find(|l| l.contains("--size")).unwrap();
    assert!(line.contains("[default: 40MiB]"), "{line}");
    // 40 MiB in four tables of 100-byte rows: 41,943,040 / 400 = 104,857.6.
    assert!(
        line.contains("the default 40MiB: 104,857 rows each"),
        "{line}"
    );
    assert!(!line.contains("40MB"), "{line}");
}
