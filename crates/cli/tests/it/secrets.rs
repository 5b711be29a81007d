//! No secret is ever stored or printed: benchmarks given a known password
//! or token (in a URL, a query parameter, `--token`, an `Authorization`
//! header), passing and failing, then every place it could land is read
//! for it: the SQLite file's bytes, the PostgreSQL store's rows, every
//! export format, `--json`, the HTML report, stdout and stderr, and a fleet
//! run's remote command line and stored run. The servers are the ones
//! `scripts/db-servers start` runs, whose user `nbsecret` has the password
//! [`SECRET`]; the fleet hosts those of `scripts/ssh-hosts`.

use crate::common;

use std::process::Output;

use common::{TempStore, bin, stderr, stdout};

/// The password of the test servers' user `nbsecret`, and the token.
const SECRET: &str = "Nb-S3cret-7q4z";

/// Fails when `SECRET` is in `what`'s bytes.
fn absent(what: &str, bytes: &[u8]) {
    let found = bytes.windows(SECRET.len()).any(|w| w == SECRET.as_bytes());
    assert!(
        !found,
        "the secret is in {what}: {}",
        String::from_utf8_lossy(bytes)
    );
}

/// Fails when the secret is on the command's stdout or stderr.
fn clean(what: &str, o: &Output) {
    absent(&format!("{what}: stdout"), &o.stdout);
    absent(&format!("{what}: stderr"), &o.stderr);
}

/// Every stored run of `t` exported in every format, the HTML report of
/// them all, `runs list` and `runs show --json`: none holds the secret.
fn exports_are_clean(t: &TempStore, runs: usize) {
    let list = t.run(&["--json", "runs", "list"]);
    clean("runs list", &list);
    let listed: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(listed.as_array().unwrap().len(), runs, "{}", stdout(&list));
    for back in 0..runs {
        let id = format!("latest~{back}");
        for format in ["json", "csv", "md", "junit"] {
            let o = t.run(&["runs", "export", &id, "--format", format]);
            assert!(o.status.success(), "{}", stderr(&o));
            clean(&format!("runs export {id} --format {format}"), &o);
        }
        let o = t.run(&["--json", "runs", "show", &id]);
        assert!(o.status.success(), "{}", stderr(&o));
        clean(&format!("runs show {id}"), &o);
        let o = t.run(&["runs", "show", &id]);
        clean(&format!("runs show {id} (tables)"), &o);
    }
    let html = t.store().with_file_name("report.html");
    let mut args: Vec<String> = vec!["report".into()];
    args.extend((0..runs).map(|b| format!("latest~{b}")));
    args.extend(["-o".into(), html.display().to_string()]);
    let o = t.run(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(o.status.success(), "{}", stderr(&o));
    absent("the HTML report", &std::fs::read(&html).unwrap());
    // The database file and its journal, byte for byte.
    for entry in std::fs::read_dir(t.store().parent().unwrap()).unwrap() {
        let path = entry.unwrap().path();
        if path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("results.db")
        {
            absent(&path.display().to_string(), &std::fs::read(&path).unwrap());
        }
    }
}

#[test]
fn failing_and_passing_benchmarks_keep_the_secret_out_of_everything() {
    let t = TempStore::new();
    let port = common::closed_port().to_string();
    let cases: Vec<(Vec<String>, bool)> = vec![
        // Servers that are not there: the runs fail, their errors are stored.
        (
            vec![
                "db".into(),
                "as3ap".into(),
                "--db".into(),
                format!("mysql://nbsecret:{SECRET}@127.0.0.1:{port}/as3ap"),
            ],
            false,
        ),
        (
            vec![
                "db".into(),
                "as3ap".into(),
                "--db".into(),
                format!("postgres://nbsecret@127.0.0.1:{port}/as3ap?password={SECRET}"),
            ],
            false,
        ),
        // A token and credential headers on runs that pass.
        (
            vec![
                "net".into(),
                "tcp".into(),
                "--loopback".into(),
                "-t".into(),
                "1".into(),
                "--token".into(),
                SECRET.into(),
            ],
            true,
        ),
        (
            vec![
                "http".into(),
                "load".into(),
                "-n".into(),
                "20".into(),
                "-c".into(),
                "1".into(),
                "-H".into(),
                format!("Authorization: Bearer {SECRET}"),
                format!("--header=Cookie: sid={SECRET}"),
                "/bytes/100".into(),
            ],
            true,
        ),
    ];
    for (args, passes) in &cases {
        for json in [false, true] {
            let mut c = t.command();
            c.arg("-q");
            if json {
                c.arg("--json");
            }
            let o = c.args(args).output().unwrap();
            assert_eq!(o.status.success(), *passes, "{args:?}: {}", stderr(&o));
            clean(&format!("{args:?}"), &o);
            if !passes {
                assert!(stderr(&o).contains("db.as3ap"), "{}", stderr(&o));
            }
        }
    }
    exports_are_clean(&t, 2 * cases.len());
    let o = t.run(&["runs", "export", "latest", "--format", "json"]);
    assert!(stdout(&o).contains("Authorization: ***"), "{}", stdout(&o));
}

#[test]
fn tags_and_suite_settings_that_hold_secrets_are_stored_masked() {
    let t = TempStore::new();
    let suite = t.store().with_file_name("secret-suite.toml");
    std::fs::write(
        &suite,
        "name = \"tcp\"\n[[step]]\nbench = \"net.tcp\"\nname = \"tcp\"\nloopback = true\ntime = \"1s\"\n",
    )
    .unwrap();
    let db_url = format!("mysql://u:{SECRET}@h/x");
    let o = t.run(&[
        "-q",
        "--tag",
        &format!("db_url={db_url}"),
        "--tag",
        &format!("password={SECRET}"),
        "--tag",
        &format!("API_Key={SECRET}"),
        "--tag",
        "config=plain",
        "suite",
        "run",
        &suite.display().to_string(),
        "--set",
        &format!("tcp.token={SECRET}"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    clean("suite run with secret tags", &o);
    // The tags are kept, masked; the plain one as written.
    let shown = t.run(&["--json", "runs", "show", "latest"]);
    let run: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    assert_eq!(run["tags"]["db_url"], "mysql://u@h/x", "{}", stdout(&shown));
    assert_eq!(run["tags"]["password"], "***");
    assert_eq!(run["tags"]["API_Key"], "***");
    assert_eq!(run["tags"]["config"], "plain");
    exports_are_clean(&t, 1);
}

/// The URL of a test server for `var`, with the user `nbsecret` and its
/// password; None (saying why) without the servers outside CI.
fn server(var: &str) -> Option<String> {
    let Ok(url) = std::env::var(var) else {
        let need = if var.contains("POSTGRES") {
            nodebench_core::test_require::need::POSTGRES
        } else {
            nodebench_core::test_require::need::MYSQL
        };
        nodebench_core::test_require::missing(
            "secrets",
            need,
            &format!("{var} is not set"),
            "scripts/db-servers start",
        );
        return None;
    };
    let (scheme, rest) = url.split_once("://").unwrap();
    let host = rest.split_once('@').unwrap().1;
    Some(format!("{scheme}://nbsecret:{SECRET}@{host}"))
}

/// The quick AS3AP run of these tests on `db`.
fn as3ap(t: &TempStore, db: &str, env: &[(&str, &str)]) -> Output {
    let mut c = t.command();
    c.args([
        "-q",
        "db",
        "as3ap",
        "--db",
        db,
        "--size",
        "4000000",
        "--tests",
        "single",
        "--recreate",
    ]);
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().unwrap()
}

/// Drops, when dropped, what the user `nbsecret` created in the
/// PostgreSQL database `url` names: tables only it may drop, which the
/// AS3AP tests, connecting as `bench`, would otherwise find in their way.
struct DropOwned(Option<String>);

impl Drop for DropOwned {
    fn drop(&mut self) {
        if let Some(url) = &self.0
            && let Ok(mut c) = postgres::Client::connect(url, postgres::NoTls)
        {
            let _ = c.batch_execute("DROP OWNED BY CURRENT_USER");
        }
    }
}

#[test]
fn database_runs_with_the_password_in_the_url_or_the_environment_store_none() {
    let _pg = DropOwned(server("NODEBENCH_TEST_POSTGRES"));
    for (var, env) in [
        ("NODEBENCH_TEST_MYSQL", "MYSQL_PWD"),
        ("NODEBENCH_TEST_POSTGRES", "PGPASSWORD"),
    ] {
        let Some(url) = server(var) else { continue };
        let t = TempStore::new();
        let o = as3ap(&t, &url, &[]);
        assert!(o.status.success(), "{url}: {}", stderr(&o));
        clean(var, &o);
        // The same without the password in the URL: the driver's variable.
        let bare = url.replace(&format!(":{SECRET}@"), "@");
        let o = as3ap(&t, &bare, &[(env, SECRET)]);
        assert!(o.status.success(), "{env}: {}", stderr(&o));
        clean(env, &o);
        // A wrong one in the variable is refused by the server, and said.
        let o = as3ap(&t, &bare, &[(env, "wrong-password")]);
        assert!(!o.status.success());
        // A password file others may read is refused before connecting.
        let file = t.store().with_file_name("pw");
        std::fs::write(&file, SECRET).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        let o = as3ap(
            &t,
            &bare,
            &[("NODEBENCH_PASSWORD_FILE", file.to_str().unwrap())],
        );
        common::one_line_error(&o, 2, &["NODEBENCH_PASSWORD_FILE", "chmod 600"]);
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        let o = as3ap(
            &t,
            &bare,
            &[("NODEBENCH_PASSWORD_FILE", file.to_str().unwrap())],
        );
        assert!(o.status.success(), "password file: {}", stderr(&o));
        exports_are_clean(&t, 4);
    }
}

/// `db tpcc` with the password in the driver's variable, never on its
/// command line: the running process's command line, its output, the
/// store and every export hold no secret.
#[test]
fn tpcc_keeps_the_password_out_of_the_process_list_the_store_and_the_exports() {
    let _pg = DropOwned(server("NODEBENCH_TEST_POSTGRES"));
    for (var, env) in [
        ("NODEBENCH_TEST_MYSQL", "MYSQL_PWD"),
        ("NODEBENCH_TEST_POSTGRES", "PGPASSWORD"),
    ] {
        let Some(url) = server(var) else { continue };
        let bare = url.replace(&format!(":{SECRET}@"), "@");
        let t = TempStore::new();
        let mut c = t.command();
        c.args([
            "-q",
            "db",
            "tpcc",
            "--db",
            &bare,
            "--test-scale-down",
            "100",
            "--users",
            "2",
            "--warmup",
            "0",
            "--duration",
            "2s",
            "--recreate",
        ])
        .env(env, SECRET)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
        let child = c.spawn().unwrap();
        // Read once the exec has happened (before it the line is empty).
        let proc = format!("/proc/{}/cmdline", child.id());
        let mut cmdline = Vec::new();
        for _ in 0..100 {
            cmdline = std::fs::read(&proc).unwrap_or_default();
            if cmdline.windows(4).any(|w| w == b"tpcc") {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert!(cmdline.windows(4).any(|w| w == b"tpcc"), "{cmdline:?}");
        absent("the process's command line", &cmdline);
        let o = child.wait_with_output().unwrap();
        assert!(o.status.success(), "{env}: {}", stderr(&o));
        clean(env, &o);
        exports_are_clean(&t, 1);
    }
}

#[test]
fn the_postgresql_store_keeps_no_secret_in_its_rows() {
    let Some(url) = server("NODEBENCH_TEST_STORE_POSTGRES") else {
        return;
    };
    // The store's tables are bench's, made (or migrated) by bench, so
    // nbsecret only adds rows; whatever it made itself goes at the end.
    let bench = std::env::var("NODEBENCH_TEST_STORE_POSTGRES").unwrap();
    let o = bin()
        .args(["--store", &bench, "runs", "list"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let _owned = DropOwned(Some(url.clone()));
    // A key without "secret" in it: such a tag's value is stored masked.
    let tag = format!("case={}", std::process::id());
    let o = bin()
        .args(["-q", "--store", &url, "--tag", &tag])
        .args(["net", "tcp", "--loopback", "-t", "1", "--token", SECRET])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    clean("net tcp into PostgreSQL", &o);
    // The password from PGPASSWORD, the URL in NODEBENCH_STORE.
    let bare = url.replace(&format!(":{SECRET}@"), "@");
    let o = bin()
        .env("NODEBENCH_STORE", &bare)
        .env("PGPASSWORD", SECRET)
        .args(["runs", "export", &format!("tag:{tag}")])
        .args(["--format", "json"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    clean("runs export from PostgreSQL", &o);
    assert!(stdout(&o).contains("\"--token\""), "{}", stdout(&o));
    // Every row of every table, as text.
    let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let tables: Vec<String> = client
        .query(
            "SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema()",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(!tables.is_empty());
    for table in tables {
        let rows = client
            .query(&format!("SELECT t::text FROM \"{table}\" t"), &[])
            .unwrap();
        for r in rows {
            let text: String = r.get(0);
            absent(&format!("PostgreSQL table {table}"), text.as_bytes());
        }
    }
}
