//! `--store` and `NODEBENCH_STORE`: a PostgreSQL store (the database
//! `NODEBENCH_TEST_STORE_POSTGRES` names, scripts/db-servers start) takes
//! runs and serves `runs list/show/export`, `compare` and `report` as a
//! SQLite file does; a value nodebench cannot use, or a server it cannot
//! reach, is one line without the password.

use crate::common;

use std::process::Output;

use common::{QUICK_OPS, bin, closed_port, json, one_line_error, stderr, stdout};

/// The variable naming the test PostgreSQL database.
const POSTGRES_VAR: &str = "NODEBENCH_TEST_STORE_POSTGRES";

/// A schema of its own in the test database, dropped with it.
struct PgStore {
    url: String,
    admin: postgres::Client,
    schema: String,
}

impl PgStore {
    /// A new schema, or `None` (after saying so) without a server outside CI.
    fn new(test: &str) -> Option<PgStore> {
        let base = match std::env::var(POSTGRES_VAR) {
            Ok(url) if !url.is_empty() => url,
            _ => {
                nodebench_core::test_require::missing(
                    test,
                    nodebench_core::test_require::need::POSTGRES,
                    &format!("{POSTGRES_VAR} is not set"),
                    "scripts/db-servers start",
                );
                return None;
            }
        };
        let schema = format!("cli_{test}_{}", std::process::id());
        let mut admin = postgres::Client::connect(&base, postgres::NoTls).unwrap();
        admin
            .batch_execute(&format!(
                "DROP SCHEMA IF EXISTS {schema} CASCADE; CREATE SCHEMA {schema}"
            ))
            .unwrap();
        let url = format!("{base}?options=-c%20search_path%3D{schema}");
        Some(PgStore { url, admin, schema })
    }

    /// `nodebench --store URL ARGS`, waited for.
    fn run(&self, args: &[&str]) -> Output {
        bin()
            .args(["--store", &self.url])
            .args(args)
            .output()
            .unwrap()
    }
}

impl Drop for PgStore {
    fn drop(&mut self) {
        let _ = self
            .admin
            .batch_execute(&format!("DROP SCHEMA IF EXISTS {} CASCADE", self.schema));
    }
}

#[test]
fn a_postgres_store_serves_runs_list_show_export_compare_and_report() {
    let Some(pg) = PgStore::new("serves") else {
        return;
    };
    for cfg in ["a", "b"] {
        let tag = format!("cfg={cfg}");
        let mut args = QUICK_OPS.to_vec();
        args.extend(["--tag", &tag]);
        let o = pg.run(&args);
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let list = json(&pg.run(&["runs", "list", "--json"]));
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["tags"]["cfg"], "b", "newest first");
    assert_eq!(list[1]["tags"]["cfg"], "a");
    assert_eq!(list[0]["status"], "complete");
    let id = list[1]["id"].as_i64().unwrap().to_string();

    let shown = json(&pg.run(&["runs", "show", &id, "--json"]));
    let results = shown["results"].as_array().unwrap();
    assert_eq!(results.len(), list[1]["results"].as_u64().unwrap() as usize);
    assert!(results.iter().all(|r| r["benchmark"] == "cpu.ops"));
    let metrics: usize = results
        .iter()
        .map(|r| r["metrics"].as_array().unwrap().len())
        .sum();
    assert!(metrics > 0);
    assert_eq!(metrics as u64, list[1]["metrics"].as_u64().unwrap());

    let csv = pg.run(&["runs", "export", &id, "--format", "csv"]);
    assert!(csv.status.success(), "{}", stderr(&csv));
    assert_eq!(
        stdout(&csv).lines().count(),
        1 + metrics,
        "header + a row per metric"
    );

    let cmp = json(&pg.run(&["compare", "tag:cfg=a", "tag:cfg=b", "--json"]));
    assert_eq!(cmp["sides"].as_array().unwrap().len(), 2, "{cmp}");

    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("r.html");
    let o = pg.run(&["report", &id, "latest", "-o", html.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(std::fs::read_to_string(&html).unwrap().contains("cpu.ops"));

    let o = pg.run(&["runs", "delete", &id]);
    assert!(o.status.success(), "{}", stderr(&o));
    let list = json(&pg.run(&["runs", "list", "--json"]));
    assert_eq!(list.as_array().unwrap().len(), 1);
}

#[test]
fn a_store_url_of_another_scheme_is_refused_and_nothing_created() {
    let cwd = tempfile::tempdir().unwrap();
    let o = bin()
        .current_dir(cwd.path())
        .args(["--store", "mysql://user:hunter2@db.example/results"])
        .args(["runs", "list"])
        .output()
        .unwrap();
    one_line_error(&o, 2, &["--store", "'mysql://'", "postgres://USER"]);
    assert!(!stderr(&o).contains("hunter2"), "{}", stderr(&o));
    let o = bin()
        .current_dir(cwd.path())
        .env("NODEBENCH_STORE", "mysql://user:hunter2@db.example/results")
        .args(["runs", "list"])
        .output()
        .unwrap();
    // The same refusal, exit 2, whichever of the two named it.
    one_line_error(&o, 2, &["NODEBENCH_STORE", "'mysql://'"]);
    assert!(!stderr(&o).contains("hunter2"), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_dir(cwd.path()).unwrap().count(),
        0,
        "nothing created in the working directory"
    );
}

#[test]
fn a_postgres_server_that_cannot_be_reached_is_one_line_without_the_password() {
    let url = format!(
        "postgres://bench:hunter2@127.0.0.1:{}/results",
        closed_port()
    );
    let o = bin()
        .args(["--store", &url, "runs", "list"])
        .output()
        .unwrap();
    one_line_error(
        &o,
        1,
        &[
            "cannot open results store at postgres://bench@127.0.0.1:",
            "error connecting to server",
        ],
    );
    assert!(!stderr(&o).contains("hunter2"), "{}", stderr(&o));
    let mut args = vec!["--store", &url];
    args.extend(QUICK_OPS);
    let o = bin().args(&args).output().unwrap();
    assert_ne!(o.status.code(), Some(0));
    assert!(!stderr(&o).contains("hunter2"), "{}", stderr(&o));
    assert!(!stdout(&o).contains("hunter2"), "{}", stdout(&o));
}
