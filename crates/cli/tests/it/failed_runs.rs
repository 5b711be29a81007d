//! One failure convention: a benchmark that fails after its flags were
//! accepted (nothing listens on port 1) exits 1 and stores a `failed` run
//! whose result names the benchmark and carries the error and the phase it
//! failed in; `runs list` shows the benchmark, `runs show` and the HTML
//! report the error, `--json` the run's `error`; its JUnit export, checked
//! against `schema/junit.xsd` with libxml2's `xmllint`, is a `<failure>`
//! (the benchmark's own failed result) or an `<error>` (no result of its
//! own), never an empty green suite.

use crate::common;

use std::io::Write as _;
use std::path::Path;
use std::process::Command;

use common::{TempStore, json, stderr, stdout};

/// Validates `xml` against the checked-in JUnit schema with xmllint;
/// skipped (said on stderr) where xmllint is not installed.
fn validate_junit(xml: &str) {
    let schema = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schema/junit.xsd");
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(xml.as_bytes()).unwrap();
    let Ok(out) = Command::new("xmllint")
        .arg("--noout")
        .arg("--schema")
        .arg(&schema)
        .arg(file.path())
        .output()
    else {
        nodebench_core::test_require::missing(
            "failed_runs (JUnit schema)",
            nodebench_core::test_require::need::XMLLINT,
            "xmllint not found",
            "apt-get install libxml2-utils",
        );
        return;
    };
    assert!(
        out.status.success(),
        "JUnit export does not validate:\n{}\n{xml}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs `args` (which fail against port 1), then reads the stored run back
/// every way a user would; `outcome` is the JUnit element its result is.
fn fails_and_says_why(args: &[&str], benchmark: &str, phase: &str, error: &str, outcome: &str) {
    let t = TempStore::new();
    let mut all = vec!["-q", "--no-telemetry"];
    all.extend_from_slice(args);
    let o = t.run(&all);
    assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stderr(&o));
    assert!(stderr(&o).contains(error), "{args:?}: {}", stderr(&o));

    let list = stdout(&t.run(&["runs", "list"]));
    let row = list.lines().nth(1).unwrap_or_default();
    assert!(
        row.contains("failed") && row.contains(benchmark),
        "{args:?}: {list}"
    );

    let show = stdout(&t.run(&["runs", "show", "1"]));
    assert!(show.contains("run 1: failed"), "{show}");
    assert!(show.contains(&format!("{benchmark} [failed]")), "{show}");
    assert!(
        show.contains(&format!("error ({phase}): ")) && show.contains(error),
        "{show}"
    );

    let run = json(&t.run(&["runs", "show", "1", "--json"]));
    assert_eq!(run["schema_version"], 3);
    assert_eq!(run["status"], "failed");
    assert_eq!(run["error"]["benchmark"], benchmark, "{run}");
    assert_eq!(run["error"]["phase"], phase, "{run}");
    let message = run["error"]["message"].as_str().unwrap();
    assert!(message.contains(error), "{run}");
    assert_eq!(run["results"][0]["benchmark"], benchmark);
    assert_eq!(run["results"][0]["status"], "failed");
    assert_eq!(run["results"][0]["error_phase"], phase);

    let html_path = t.store().with_extension("html");
    let html = t.run(&["report", "1", "-o", html_path.to_str().unwrap()]);
    assert!(html.status.success(), "{}", stderr(&html));
    let html = std::fs::read_to_string(&html_path).unwrap();
    assert!(
        html.contains(&format!("<p class=\"error\">error ({phase}): ")),
        "{html}"
    );

    let junit = t.run(&["runs", "export", "1", "--format", "junit"]);
    assert!(junit.status.success(), "{}", stderr(&junit));
    let junit = stdout(&junit);
    let (failures, errors) = if outcome == "failure" { (1, 0) } else { (0, 1) };
    assert!(
        junit.contains(&format!(
            "tests=\"1\" failures=\"{failures}\" errors=\"{errors}\""
        )),
        "{junit}"
    );
    assert_eq!(junit.matches("<testcase ").count(), 1, "{junit}");
    assert!(junit.contains(&format!("name=\"{benchmark}\"")), "{junit}");
    let element = junit
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("<{outcome} ")))
        .unwrap_or_else(|| panic!("no <{outcome}>: {junit}"));
    assert!(
        element.contains(&format!("message=\"{}", &message[..10])),
        "{junit}"
    );
    validate_junit(&junit);
}

#[test]
fn a_database_nobody_serves_is_a_failed_run_naming_db_as3ap() {
    fails_and_says_why(
        &["db", "as3ap", "--db", "mysql://u:x@127.0.0.1:1/x"],
        "db.as3ap",
        "run",
        "Connection refused",
        "error",
    );
}

#[test]
fn a_site_nobody_serves_is_a_failed_run_naming_the_scan() {
    fails_and_says_why(
        &["scan", "http://127.0.0.1:1/"],
        "http.scan",
        "run",
        "cannot connect to 127.0.0.1:1",
        "error",
    );
}

#[test]
fn a_load_nobody_answers_is_a_failed_run_naming_http_load() {
    fails_and_says_why(
        &["http", "load", "http://127.0.0.1:1/", "-n", "10", "-c", "1"],
        "http.load",
        "run",
        "cannot connect to 127.0.0.1:1",
        "error",
    );
}

#[test]
fn a_refused_tcp_connection_is_a_failed_run_not_a_complete_one() {
    fails_and_says_why(
        &["net", "tcp", "127.0.0.1", "--port", "1"],
        "net.tcp",
        "measure",
        "cannot connect to 127.0.0.1:1",
        "failure",
    );
}
