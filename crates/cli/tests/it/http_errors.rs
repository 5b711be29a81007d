//! Error replies fail, through the binary: a path the built-in server does
//! not serve is refused before the run (exit 2, the served forms listed,
//! nothing stored); a load or a sweep step where more than
//! `--max-error-rate` of the requests got an error status fails (exit 1,
//! the status classes in the error); `--expect-status` loads an error page
//! on purpose; `http download` of an error status prints no "saved".

use crate::common;

use nodebench_http::server::{Server, ServerConfig, ServerHandle};

use common::{TempStore, json, one_line_error, stderr, stdout};

fn server() -> (ServerHandle, String) {
    let s = Server::bind(ServerConfig {
        threads: 1,
        ..ServerConfig::default()
    })
    .unwrap()
    .spawn();
    let url = format!("http://{}", s.local_addr());
    (s, url)
}

/// The only result of the stored run `id`.
fn result(t: &TempStore, id: &str) -> serde_json::Value {
    let run = json(&t.run(&["runs", "show", id, "--json"]));
    run["results"][0].clone()
}

#[test]
fn paths_the_built_in_server_does_not_serve_are_refused_before_the_run() {
    let t = TempStore::new();
    for (path, status) in [("/nonexistent", "404"), ("/bytes/1XB", "400")] {
        let out = t.run(&["http", "load", path, "-n", "50", "-c", "2", "-q"]);
        one_line_error(
            &out,
            2,
            &[
                &format!("URL {path}: the built-in server answers GET {path} with {status}"),
                "/bytes/<size>, /<size>, /cpu/<n>, /delay/<duration>",
                &format!("--expect-status {status}"),
            ],
        );
        let out = t.run(&["http", "download", path, "-q"]);
        one_line_error(&out, 2, &[&format!("URL {path}: "), "/bytes/<size>"]);
        let out = t.run(&["http", "sweep", path, "--users", "1", "-n", "5", "-q"]);
        one_line_error(&out, 2, &[&format!("URL {path}: "), "/bytes/<size>"]);
    }
    let out = t.run(&[
        "http",
        "load",
        "/bytes/100",
        "-n",
        "5",
        "--expect-status",
        "404",
        "-q",
    ]);
    one_line_error(
        &out,
        2,
        &["--expect-status 404: the built-in server answers GET /bytes/100 with 200"],
    );
    assert!(!t.store().exists(), "nothing stored");
}

#[test]
fn an_error_page_loaded_on_purpose_passes() {
    let t = TempStore::new();
    let out = t.run(&[
        "http",
        "load",
        "/nonexistent",
        "-n",
        "50",
        "-c",
        "2",
        "--expect-status",
        "404",
        "-q",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let r = result(&t, "1");
    assert_eq!(r["status"], "passed", "{r}");
    assert_eq!(r["parameters"]["expect_status"], 404);
    let replies_4xx = common::metric(&r, "replies", &[("class", "4xx")]);
    assert_eq!(replies_4xx, 50.0);
}

#[test]
fn error_replies_over_the_rate_fail_the_load_with_their_classes() {
    let (_server, url) = server();
    let t = TempStore::new();
    let target = format!("{url}/nonexistent");
    let out = t.run(&["http", "load", &target, "-n", "50", "-c", "2", "-q"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let r = result(&t, "1");
    assert_eq!(r["status"], "failed", "{r}");
    assert_eq!(
        r["error"],
        "50 of 50 requests (100.0 %) failed or got an error status, over --max-error-rate 1 %: replies 4xx=50; errors none"
    );
    assert!(
        stdout(&out).contains("50 of 50 requests (100.0 %)")
            || stderr(&out).contains("50 of 50 requests (100.0 %)"),
        "the error is printed"
    );
    // A user may allow every request to fail.
    let out = t.run(&[
        "http",
        "load",
        &target,
        "-n",
        "20",
        "--max-error-rate",
        "100%",
        "-q",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(result(&t, "2")["status"], "passed");
    // A page served 200 passes at the default rate.
    let out = t.run(&[
        "http",
        "load",
        &format!("{url}/bytes/100"),
        "-n",
        "20",
        "-q",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = t.run(&["http", "load", "/bytes/100", "--max-error-rate", "2x", "-q"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("--max-error-rate"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_sweep_names_the_step_that_crossed_the_error_rate() {
    let (_server, url) = server();
    let t = TempStore::new();
    let out = t.run(&[
        "http",
        "sweep",
        &format!("{url}/nonexistent"),
        "--users",
        "1,2",
        "-n",
        "10",
        "-q",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let r = result(&t, "1");
    assert_eq!(r["status"], "failed", "{r}");
    assert_eq!(
        r["error"],
        "step with 1 users: 10 of 10 requests (100.0 %) failed or got an error status, over --max-error-rate 1 %: replies 4xx=10; errors none"
    );
}

#[test]
fn a_download_of_an_error_status_is_not_saved() {
    let (_server, url) = server();
    let t = TempStore::new();
    let out = t.run(&["http", "download", &format!("{url}/nonexistent"), "-q"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(!text.contains("saved ["), "{text}");
    assert!(text.contains("ERROR 404: "), "{text}");
    assert!(text.contains("/nonexistent' not saved"), "{text}");
    // A 200 is saved as before.
    let out = t.run(&["http", "download", &format!("{url}/bytes/1000"), "-q"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("/bytes/1000' saved [1000"),
        "{}",
        stdout(&out)
    );
}
