//! `nodebench fleet` over real ssh: the hosts are network namespaces each
//! running Debian's sshd (scripts/ssh-hosts, started by scripts/test, which
//! exports NODEBENCH_TEST_HOSTS). Each test gets its own copy of the hosts
//! file with its own directory per host, so tests running at once never
//! share a copied binary. Without the hosts the tests fail under CI and are
//! skipped, saying so, elsewhere. The hosts-file refusals need no hosts.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::time::{Duration, Instant};

use common::{TempStore, interrupt, one_line_error, stderr, stdout};
use serde_json::Value;

/// A table row's cells as text, without the table's `| ` border.
pub(crate) fn cells(line: &str) -> &str {
    line.strip_prefix("| ").unwrap_or(line)
}

/// A test's hosts file; its hosts' directories (each holding a copied
/// binary) are removed when dropped. It holds the hosts shared with the
/// other tests, or alone for a test that measures them
/// ([`hosts_file_alone`]).
pub(crate) struct TestHosts {
    pub(crate) file: PathBuf,
    dirs: Vec<String>,
    _hold: Hold,
}

/// The fleet tests share the hosts; the two that slow a host or a link
/// and judge the figures (`fleet_quota`, `link_matrix`) have them to
/// themselves.
static HOSTS_IN_USE: RwLock<()> = RwLock::new(());

/// A hold on [`HOSTS_IN_USE`].
enum Hold {
    Shared(#[allow(dead_code)] RwLockReadGuard<'static, ()>),
    Alone(#[allow(dead_code)] RwLockWriteGuard<'static, ()>),
}

impl Drop for TestHosts {
    fn drop(&mut self) {
        for d in &self.dirs {
            let _ = std::fs::remove_dir_all(d);
        }
    }
}

/// The hosts file of the test hosts with only `names`, each host's `dir`
/// made `DIR/test`, written in `into`; None (after saying why) when there
/// are no test hosts and this is not CI.
fn hosts_file(test: &str, names: &[&str], into: &Path) -> Option<TestHosts> {
    // A test that panicked with the hosts in hand leaves them as usable.
    let hold = Hold::Shared(HOSTS_IN_USE.read().unwrap_or_else(|e| e.into_inner()));
    hosts_file_held(test, names, into, hold)
}

/// [`hosts_file`] for a test that no other test of this file may share
/// the hosts with while it runs (it measures them).
pub(crate) fn hosts_file_alone(test: &str, names: &[&str], into: &Path) -> Option<TestHosts> {
    let hold = Hold::Alone(HOSTS_IN_USE.write().unwrap_or_else(|e| e.into_inner()));
    hosts_file_held(test, names, into, hold)
}

fn hosts_file_held(test: &str, names: &[&str], into: &Path, hold: Hold) -> Option<TestHosts> {
    let Ok(file) = std::env::var("NODEBENCH_TEST_HOSTS") else {
        nodebench_core::test_require::missing(
            test,
            nodebench_core::test_require::need::SSH_HOSTS,
            "NODEBENCH_TEST_HOSTS is not set (no ssh test hosts)",
            "scripts/ssh-hosts start, as root",
        );
        return None;
    };
    let text = std::fs::read_to_string(&file).expect("the test hosts file");
    let mut table: toml::Table = text.parse().unwrap();
    let hosts = table["host"].as_array_mut().unwrap();
    hosts.retain(|h| names.contains(&h["name"].as_str().unwrap()));
    assert_eq!(hosts.len(), names.len(), "test hosts {names:?} in {file}");
    let mut dirs = Vec::new();
    for h in hosts.iter_mut() {
        let dir = format!("{}/{test}", h["dir"].as_str().unwrap());
        let _ = std::fs::remove_dir_all(&dir);
        h.as_table_mut().unwrap()["dir"] = toml::Value::String(dir.clone());
        dirs.push(dir);
    }
    let file = into.join("hosts.toml");
    std::fs::write(&file, toml::to_string(&table).unwrap()).unwrap();
    Some(TestHosts {
        file,
        dirs,
        _hold: hold,
    })
}

/// The `dir` of host `name` in hosts file `file`.
fn host_dir(file: &Path, name: &str) -> PathBuf {
    let table: toml::Table = std::fs::read_to_string(file).unwrap().parse().unwrap();
    let h = table["host"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["name"].as_str() == Some(name))
        .unwrap();
    PathBuf::from(h["dir"].as_str().unwrap())
}

/// A two-step suite short enough for tests.
const SHORT_SUITE: &str = r#"
name = "fleet-short"
description = "two short steps"

[[step]]
bench = "cpu.ops"
threads = "1"
duration = "20ms"
repeats = 1
warmup = 0
kernels = ["int.scalar"]

[[step]]
bench = "memory.latency"
duration = "5ms"
min-size = "16KiB"
max-size = "64KiB"
"#;

pub(crate) fn runs_list(store: &TempStore) -> Vec<Value> {
    let o = store.run(&["--json", "runs", "list"]);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

#[test]
fn bad_hosts_files_are_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    };
    let dup = write(
        "dup.toml",
        "[[host]]\nname = \"a\"\ndestination = \"x\"\n[[host]]\nname = \"a\"\ndestination = \"y\"\n",
    );
    let o = common::run(&["fleet", "check", &dup]);
    one_line_error(&o, 2, &["host 'a' is defined twice", "dup.toml"]);

    let nodest = write("nodest.toml", "[[host]]\nname = \"a\"\n");
    let o = common::run(&["fleet", "run", &nodest, "quick"]);
    one_line_error(&o, 2, &["host 'a' has no destination", "destination = "]);

    let ok = write("ok.toml", "[[host]]\nname = \"a\"\ndestination = \"x\"\n");
    let o = common::run(&["fleet", "check", &ok, "--only", "a,zz"]);
    one_line_error(&o, 2, &["--only: no host 'zz'", "(hosts: a)"]);

    let o = common::run(&["fleet", "check", &ok, "--parallel", "0"]);
    one_line_error(&o, 2, &["--parallel", "a whole number from 1"]);

    let o = common::run(&[
        "fleet",
        "check",
        &dir.path().join("none.toml").display().to_string(),
    ]);
    one_line_error(&o, 2, &["none.toml: cannot read"]);

    let o = common::run(&["fleet", "run", &ok, "fleet", "check"]);
    one_line_error(&o, 2, &["fleet cannot run fleet"]);

    // Secrets that have no variable to travel in are refused before the
    // host (destination "x", which ssh cannot reach) is touched, and the
    // refusal does not show them.
    for (args, flag) in [
        (
            &[
                "fleet",
                "run",
                &ok,
                "http",
                "load",
                "http://u:Pw9secret@127.0.0.1:1/",
            ][..],
            "SUITE|COMMAND",
        ),
        (
            &[
                "fleet",
                "run",
                &ok,
                "db",
                "as3ap",
                "--db=postgres://h/d?password=Pw9secret",
            ],
            "SUITE|COMMAND",
        ),
        (
            &[
                "fleet",
                "http",
                &ok,
                "http://127.0.0.1:1/",
                "-H",
                "Authorization: Bearer Pw9secret",
            ],
            "LOAD FLAGS",
        ),
        (
            &[
                "fleet",
                "http",
                &ok,
                "http://127.0.0.1:1/",
                "-HCookie: sid=Pw9secret",
            ],
            "LOAD FLAGS",
        ),
    ] {
        let o = common::run(args);
        one_line_error(&o, 2, &[flag, "cannot be handed to a remote host"]);
        assert!(!stderr(&o).contains("Pw9secret"), "{}", stderr(&o));
        assert!(!stdout(&o).contains("Pw9secret"), "{}", stdout(&o));
    }
}

#[test]
fn check_shows_every_host_and_the_one_that_is_down() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(test_hosts) = hosts_file("check", &["h1", "h2", "h3", "h4"], tmp.path()) else {
        return;
    };
    let hosts = test_hosts.file.display().to_string();
    let o = common::run(&["fleet", "check", &hosts, "--only", "h1,h2,h3"]);
    let out = stdout(&o);
    assert!(o.status.success(), "{out}\n{}", stderr(&o));
    let arch = std::env::consts::ARCH;
    for h in ["h1", "h2", "h3"] {
        let line = out.lines().find(|l| cells(l).starts_with(h)).unwrap();
        assert!(line.contains(" yes ") && line.contains(arch), "{line}");
        assert!(line.contains("absent (copied on run)"), "{line}");
    }

    // h4's namespace is up but its sshd is not running.
    let o = common::run(&["fleet", "check", &hosts, "--connect-timeout", "3s"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let out = stdout(&o);
    let down = out.lines().find(|l| cells(l).starts_with("h4")).unwrap();
    assert!(
        down.contains("no: unreachable") && down.contains("Connection refused"),
        "{down}"
    );
    assert!(
        out.lines()
            .find(|l| cells(l).starts_with("h2"))
            .unwrap()
            .contains(" yes ")
    );
    assert!(stderr(&o).contains("1 of 4 host(s) cannot run this nodebench"));
}

#[test]
fn run_stores_each_hosts_run_tagged_and_reports_a_down_host() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(hosts) = hosts_file("run", &["h1", "h2", "h4"], tmp.path()) else {
        return;
    };
    let suite = tmp.path().join("short.toml");
    std::fs::write(&suite, SHORT_SUITE).unwrap();
    let store = TempStore::new();
    let o = store.run(&[
        "fleet",
        "run",
        &hosts.file.display().to_string(),
        "--connect-timeout",
        "3s",
        "--tag",
        "study=fleet",
        &suite.display().to_string(),
    ]);
    let (out, err) = (stdout(&o), stderr(&o));
    // h4 is down: reported, the others finish; exit 1 for the failure.
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    let row = |h: &str| {
        out.lines()
            .find(|l| cells(l).starts_with(h))
            .unwrap()
            .to_string()
    };
    assert!(row("h1").contains(" ok "), "{out}");
    assert!(row("h2").contains(" ok "), "{out}");
    assert!(
        row("h4").contains("FAILED") && row("h4").contains("Connection refused"),
        "{out}"
    );
    assert!(err.contains("1 of 3 host(s) failed"), "{err}");
    // The progress of each host came back prefixed with its name.
    assert!(err.contains("[h4] stderr: ssh: connect to host"), "{err}");
    // The comparison across hosts follows the table.
    assert!(out.contains("host=h1") && out.contains("host=h2"), "{out}");

    let runs = runs_list(&store);
    assert_eq!(runs.len(), 2, "{runs:?}");
    let fleet_ids: Vec<&str> = runs
        .iter()
        .map(|r| r["tags"]["fleet"].as_str().unwrap())
        .collect();
    assert_eq!(fleet_ids[0], fleet_ids[1]);
    let mut names: Vec<&str> = runs
        .iter()
        .map(|r| r["tags"]["host"].as_str().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["h1", "h2"]);
    for r in &runs {
        assert_eq!(r["tags"]["suite"], "fleet-short");
        assert_eq!(r["tags"]["study"], "fleet");
        assert_eq!(r["tags"]["fleet_mode"], "run");
        // cpu.ops: one kernel x one thread count; memory.latency: one result.
        assert_eq!(r["results"], 2, "{r}");
    }
    // The binary stays for the next run, the suite file does not.
    for h in ["h1", "h2"] {
        let dir = host_dir(&hosts.file, h);
        assert!(dir.join("nodebench").is_file());
        // scripts/test builds the portable binary (glibc 2.17 floor) and
        // says so: the hosts got that one.
        if let Ok(floor) = std::env::var("NODEBENCH_TEST_GLIBC_FLOOR") {
            let v = std::process::Command::new(dir.join("nodebench"))
                .arg("--version")
                .output()
                .unwrap();
            let v = String::from_utf8_lossy(&v.stdout).into_owned();
            assert!(v.contains(&format!("glibc >= {floor})")), "{h}: {v}");
        }
        assert!(
            !std::fs::read_dir(&dir)
                .unwrap()
                .any(|e| { e.unwrap().file_name().to_string_lossy().ends_with(".toml") })
        );
    }

    // Again: the binary is there and the same, so nothing is copied.
    let o = store.run(&[
        "fleet",
        "run",
        &hosts.file.display().to_string(),
        "--only",
        "h1",
        "cpu",
        "ops",
        "--threads",
        "1",
        "--duration",
        "20ms",
        "--repeats",
        "1",
        "--warmup",
        "0",
        "--kernels",
        "int.scalar",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let line = stdout(&o)
        .lines()
        .find(|l| cells(l).starts_with("h1"))
        .unwrap()
        .to_string();
    // host, status, run, results, time, copied
    let words: Vec<&str> = cells(&line).split_whitespace().collect();
    assert_eq!((words[1], words[5]), ("ok", "no"), "{line}");
    assert_eq!(runs_list(&store).len(), 3);
}

/// Pids of processes running `exe`.
fn running(exe: &Path) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|p| p == exe))
        .collect()
}

#[test]
fn ctrl_c_stops_every_remote_process_and_removes_the_copy() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(hosts) = hosts_file("interrupt", &["h1", "h2"], tmp.path()) else {
        return;
    };
    let store = TempStore::new();
    let mut child = store
        .command()
        .args([
            "fleet",
            "run",
            &hosts.file.display().to_string(),
            "cpu",
            "ops",
            "--threads",
            "1",
        ])
        .args([
            "--duration",
            "1s",
            "--repeats",
            "30",
            "--kernels",
            "int.scalar",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let bins: Vec<PathBuf> = ["h1", "h2"]
        .iter()
        .map(|h| host_dir(&hosts.file, h).join("nodebench"))
        .collect();
    // Wait (bounded) until nodebench runs on both hosts.
    let deadline = Instant::now() + Duration::from_secs(60);
    while bins.iter().any(|b| running(b).is_empty()) {
        assert!(Instant::now() < deadline, "the remote runs did not start");
        std::thread::sleep(Duration::from_millis(100));
    }
    interrupt(child.id());
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "fleet run did not stop");
        std::thread::sleep(Duration::from_millis(100));
    }
    let o: Output = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    assert!(stderr(&o).contains("interrupted"), "{}", stderr(&o));
    for b in &bins {
        assert!(running(b).is_empty(), "{} still runs", b.display());
        assert!(!b.exists(), "{} left behind", b.display());
    }
}

/// The MTU of eth0 in test host `name`'s namespace.
fn eth0_mtu(name: &str) -> u32 {
    let o = std::process::Command::new("ip")
        .args([
            "netns",
            "exec",
            &format!("nbf-{name}"),
            "cat",
            "/sys/class/net/eth0/mtu",
        ])
        .output()
        .unwrap();
    String::from_utf8_lossy(&o.stdout).trim().parse().unwrap()
}

#[test]
fn pair_tcp_at_mtu_1500_and_9000_receives_every_byte_sent() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(hosts) = hosts_file("pair", &["h1", "h3"], tmp.path()) else {
        return;
    };
    let before = (eth0_mtu("h1"), eth0_mtu("h3"));
    let store = TempStore::new();
    let o = store.run(&[
        "--json",
        "fleet",
        "pair",
        &hosts.file.display().to_string(),
        "--tests",
        "tcp",
        "--mtu",
        "1500,9000",
        "-t",
        "1s",
        "--port",
        "15301",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let runs: Vec<Value> = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(runs.len(), 2);
    for (run, mtu) in runs.iter().zip(["1500", "9000"]) {
        let tags = &run["tags"];
        assert_eq!(tags["host"], "h3");
        assert_eq!(tags["server_host"], "h1");
        assert_eq!(tags["mtu"], mtu);
        assert_eq!(tags["server_mtu"], mtu);
        assert_eq!(tags["server_interface"], "eth0");
        assert_eq!(tags["fleet_mode"], "pair");
        assert!(
            tags["client_route"].as_str().unwrap().contains("dev eth0"),
            "{tags}"
        );
        assert!(
            tags["server_route"]
                .as_str()
                .unwrap()
                .contains("169.254.232.13"),
            "{tags}"
        );
        let r = &run["results"][0];
        assert_eq!(r["benchmark"], "net.tcp");
        // The client side's interface and MTU as the benchmark saw them.
        assert_eq!(r["parameters"]["interface"], "eth0");
        assert_eq!(r["parameters"]["mtu"].to_string().trim_matches('"'), mtu);
        let bytes = |side: &str| common::metric(r, "bytes", &[("side", side)]);
        assert!(bytes("sender") > 0.0);
        assert_eq!(bytes("sender"), bytes("receiver"));
    }
    let stored = runs_list(&store);
    assert_eq!(stored.len(), 2);
    assert!(
        stored
            .iter()
            .all(|r| r["tags"]["fleet"] == runs[0]["tags"]["fleet"])
    );
    // The MTUs are put back.
    assert_eq!((eth0_mtu("h1"), eth0_mtu("h3")), before);

    // The large single-stream download from the server host's built-in
    // HTTP server, cut at the test's duration.
    let o = store.run(&[
        "--json",
        "fleet",
        "pair",
        &hosts.file.display().to_string(),
        "--tests",
        "download",
        "-t",
        "1s",
        "--port",
        "15302",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let runs: Vec<Value> = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0]["tags"]["pair_test"], "download");
    let r = &runs[0]["results"][0];
    assert_eq!(r["benchmark"], "http.download");
    assert_eq!(r["status"], "passed");
    assert!(common::metric(r, "bytes", &[]) > 1e6, "{r}");
    assert!(common::metric(r, "throughput", &[]) > 0.0, "{r}");

    // A pair naming a host the file does not have.
    let o = common::run(&[
        "fleet",
        "pair",
        &hosts.file.display().to_string(),
        "--pairs",
        "h1:h9",
    ]);
    one_line_error(&o, 2, &["--pairs: no host 'h9'", "(hosts: h1, h3)"]);
    let o = common::run(&[
        "fleet",
        "pair",
        &hosts.file.display().to_string(),
        "--mtu",
        "20",
    ]);
    one_line_error(&o, 2, &["--mtu", "68 to 65535"]);
}

#[test]
fn http_from_two_generators_merges_every_request_exactly() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(hosts) = hosts_file("http", &["h1", "h2"], tmp.path()) else {
        return;
    };
    // The target: nodebench's own server in the third namespace.
    let server = std::process::Command::new("ip")
        .args([
            "netns",
            "exec",
            "nbf-h3",
            env!("CARGO_BIN_EXE_nodebench"),
            "http",
            "serve",
        ])
        .args(["--bind", "169.254.232.13", "--port", "15380"])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let store = TempStore::new();
    let o = store.run(&[
        "--json",
        "fleet",
        "http",
        &hosts.file.display().to_string(),
        "http://169.254.232.13:15380/1150",
        "--",
        "-n",
        "400",
        "-c",
        "2",
        "-k",
    ]);
    interrupt(server.id());
    let served = server.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let out: Value = serde_json::from_slice(&o.stdout).unwrap();
    let served_text = String::from_utf8_lossy(&served.stdout);
    let served: u64 = served_text
        .lines()
        .find_map(|l| {
            l.strip_prefix("served ")?
                .split_whitespace()
                .next()?
                .parse()
                .ok()
        })
        .unwrap_or_else(|| panic!("no served line in {served_text}"));

    let corrected = |h: &Value| h["name"] == "latency" && h["labels"]["latency"] == "corrected";
    let histogram =
        |v: &Value| -> nodebench_core::Histogram { serde_json::from_value(v.clone()).unwrap() };
    let gens = out["generators"].as_array().unwrap();
    assert_eq!(gens.len(), 2);
    let mut union = nodebench_core::latency::histogram();
    let mut sum = 0;
    let mut p99s = Vec::new();
    for g in gens {
        assert!(g["error"].is_null(), "{g}");
        assert!(
            g["clock_offset_ns"].is_i64() && g["start_skew_ns"].is_i64(),
            "{g}"
        );
        let h = g["run"]["results"][0]["histograms"]
            .as_array()
            .unwrap()
            .iter()
            .find(|h| corrected(h))
            .map(histogram)
            .unwrap();
        assert_eq!(h.count, 400);
        sum += h.count;
        let hdr = h.to_hdr().unwrap();
        p99s.push(hdr.value_at_quantile(0.99));
        union.add(hdr).unwrap();
    }
    let merged = out["merged"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| corrected(h))
        .map(histogram)
        .unwrap();
    // Every request counted once: the merge, the generators and the server agree.
    assert_eq!(merged.count, sum);
    assert_eq!(merged.count, served);
    let m = merged.to_hdr().unwrap();
    assert_eq!(m.value_at_quantile(0.99), union.value_at_quantile(0.99));
    assert_eq!(m.max(), union.max());
    assert_eq!(m.len(), union.len());
    eprintln!("p99s {p99s:?}, merged p99 {}", m.value_at_quantile(0.99));

    let runs = runs_list(&store);
    assert_eq!(runs.len(), 2);
    assert!(runs.iter().all(|r| r["tags"]["fleet_mode"] == "http"));

    let o = common::run(&["fleet", "http", &hosts.file.display().to_string(), "/1150"]);
    one_line_error(&o, 2, &["URL: '/1150'", "http://HOST:PORT/PATH"]);
    let o = common::run(&[
        "fleet",
        "http",
        &hosts.file.display().to_string(),
        "http://x/",
        "--",
        "--bogus",
    ]);
    one_line_error(&o, 2, &["LOAD FLAGS", "--bogus"]);
}

#[test]
fn a_token_reaches_the_remote_nodebench_on_stdin_never_in_argv() {
    const SECRET: &str = "Fl33t-T0ken-8x2w";
    let tmp = tempfile::tempdir().unwrap();
    let Some(hosts) = hosts_file("secret", &["h1"], tmp.path()) else {
        return;
    };
    let store = TempStore::new();
    let mut child = store
        .command()
        .args(["fleet", "run", &hosts.file.display().to_string()])
        .args(["net", "tcp", "--loopback", "-t", "2", "--token", SECRET])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // While it runs, no process's argv (the local ssh, the remote shell,
    // the remote nodebench) may hold the token; our own test's does not
    // count, nor does the local nodebench's, whose argv the user typed.
    let local = child.id();
    let mut looks = 0;
    while child.try_wait().unwrap().is_none() {
        // A fork of the local nodebench that has not yet exec'd ssh holds
        // the local argv, the one the user typed: it does not count either.
        let typed = std::fs::read(format!("/proc/{local}/cmdline")).unwrap_or_default();
        for entry in std::fs::read_dir("/proc").unwrap().flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == local.to_string() || name == std::process::id().to_string() {
                continue;
            }
            if let Ok(bytes) = std::fs::read(entry.path().join("cmdline")) {
                if !typed.is_empty() && bytes == typed {
                    continue;
                }
                let text = String::from_utf8_lossy(&bytes).replace('\0', " ");
                assert!(
                    !text.contains(SECRET),
                    "the token is in the argv of {name}: {text}"
                );
            }
        }
        looks += 1;
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(looks > 10, "the run ended before it was watched");
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    for (what, bytes) in [("stdout", &o.stdout), ("stderr", &o.stderr)] {
        assert!(!String::from_utf8_lossy(bytes).contains(SECRET), "{what}");
    }
    let run = runs_list(&store);
    assert_eq!(run.len(), 1);
    let shown = store.run(&["--json", "runs", "show", "latest"]);
    let text = stdout(&shown);
    assert!(!text.contains(SECRET), "{text}");
    assert!(text.contains("\"tcp\""), "{text}");
    let db = std::fs::read(store.store()).unwrap();
    assert!(!db.windows(SECRET.len()).any(|w| w == SECRET.as_bytes()));
}

#[test]
fn pair_matrix_flags_are_refused_in_one_line_before_any_host() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("three.toml");
    let mut text = String::new();
    for (i, h) in ["a", "b", "c"].iter().enumerate() {
        text += &format!(
            "[[host]]\nname = \"{h}\"\ndestination = \"x\"\naddress = \"192.0.2.{}\"\n",
            i + 1
        );
    }
    std::fs::write(&file, text).unwrap();
    let hosts = file.display().to_string();
    let pair = |extra: &[&str]| {
        let mut args = vec!["fleet", "pair", &hosts];
        args.extend(extra);
        common::run(&args)
    };
    for (extra, want) in [
        (
            &["--matrix", "--tolerance", "0"][..],
            &["--tolerance", "above 0 and below 100"][..],
        ),
        (&["--matrix", "--tolerance", "x"], &["--tolerance"]),
        (&["--tolerance", "10"], &["--tolerance", "--matrix"]),
        (
            &["--max-pairs", "0"],
            &["--max-pairs", "a whole number from 1"],
        ),
        (
            &["--max-pairs", "2"],
            &[
                "--max-pairs: 2 cannot cover the 3 hosts",
                "(accepted: 3 to 3)",
            ],
        ),
        (
            &["--max-pairs", "5", "--pairs", "a:b"],
            &["--max-pairs", "--pairs"],
        ),
        (&["--seed", "5"], &["--seed", "--max-pairs"]),
        (
            &["--max-pairs", "3", "--seed", "x"],
            &["--seed", "a whole number"],
        ),
        (
            &["--matrix", "--tests", "udp,download"],
            &["--tests: --matrix reads the tcp and pingpong tests"],
        ),
        (
            &["--matrix", "--mtu", "1500,9000"],
            &["--mtu: --matrix compares the links at one MTU"],
        ),
    ] {
        one_line_error(&pair(extra), 2, want);
    }
}
