//! What every command does with bad input, closed pipes, run ids and store
//! paths: one line on stderr naming what is wrong, no backtrace, and the
//! exit code of the README's table (2 for usage and input).

use crate::common;

use std::process::Stdio;

use common::{QUICK_OPS, TempStore, bin, one_line_error, stderr, stdout};

/// Bad input across the commands: the arguments after `--no-save -q`, and
/// words the one error line must hold.
const BAD: &[(&[&str], &[&str])] = &[
    (&["cpu", "ops", "--threads", "0"], &["--threads", "1,2,4,8"]),
    (&["cpu", "ops", "--threads", "abc"], &["--threads", "'abc'"]),
    (
        &["cpu", "ops", "--duration", "5parsecs"],
        &["--duration", "500ms"],
    ),
    (
        &["cpu", "ops", "--kernels", "f64.bogus"],
        &["--kernels", "f64.vector"],
    ),
    (
        &["cpu", "linpack", "--sizes", "0"],
        &["--sizes", "positive orders"],
    ),
    (
        &["cpu", "linpack", "--blas", "nosuchblas"],
        &["--blas", "openblas"],
    ),
    (
        &["cpu", "linpack", "--memory-fraction", "1.5"],
        &["--memory-fraction", "(0, 1]"],
    ),
    (
        &["memory", "stream", "--array-size", "10x"],
        &["--array-size", "10k"],
    ),
    (
        &["memory", "latency", "--min-size", "1"],
        &["--min-size", "128 B", "got 1 B"],
    ),
    (
        &["memory", "blocks", "--ops", "bogus"],
        &["--ops", "seq_write"],
    ),
    (
        &["disk", "iozone", "--dir", "/tmp", "--iodepth", "0"],
        &["--iodepth", "positive"],
    ),
    (
        &["disk", "blocks", "--dir", "/tmp", "--threads", "x"],
        &["--threads", "'x'"],
    ),
    (&["net", "tcp"], &["<HOST>"]),
    (
        &["net", "tcp", "127.0.0.1", "-P", "0"],
        &["--parallel", "1 to 128"],
    ),
    (
        &["net", "udp", "127.0.0.1", "-b", "fast"],
        &["--bitrate", "100M"],
    ),
    (
        &["net", "pingpong", "--loopback", "--sizes", "0"],
        &["--sizes", "8KiB"],
    ),
    (&["net", "serve", "--port", "70000"], &["--port", "65535"]),
    (&["http", "load"], &["<URL>"]),
    (
        &["http", "load", "/bytes/10", "-c", "0"],
        &["--concurrency", "1 to 100000"],
    ),
    (&["http", "load", "ftp://x/"], &["ftp://x/", "http://HOST"]),
    (
        &["http", "load", "/bytes/10", "-m", "G T"],
        &["--method", "GET"],
    ),
    (
        &["http", "sweep", "/bytes/10", "--users", "0"],
        &["--users", "1..128:x2"],
    ),
    (
        &["http", "serve", "--threads", "0"],
        &["--threads", "1..=1024"],
    ),
    (
        &["db", "as3ap", "--db", "oracle://x/y"],
        &["--db", "'oracle:'", "mysql://"],
    ),
    (&["db", "as3ap", "--users", "0"], &["--users", "1..=1024"]),
    (&["db", "as3ap", "--size", "1"], &["--size", "40MiB"]),
    (&["scan", "ftp://127.0.0.1/"], &["http[s]://HOST"]),
    (
        &["scan", "http://127.0.0.1:1/", "--fail-on", "extreme"],
        &["--fail-on", "medium"],
    ),
    (
        &["import", "/nonexistent/nodebench-input.txt"],
        &["cannot read"],
    ),
    (&["runs", "show", "abc"], &["<RUN>", "latest~N"]),
    (&["runs", "show", "0"], &["<RUN>", "latest~N"]),
    (&["runs", "show", "latest~x"], &["<RUN>", "latest~N"]),
    (&["runs", "delete", "tag:a=b"], &["<RUN>", "latest~N"]),
    (
        &["runs", "export", "1", "--format", "yaml"],
        &["--format", "junit"],
    ),
    (&["compare", "1"], &["at least 2", "tag:KEY=VALUE"]),
    (&["report", "1"], &["--output"]),
    (&["suite", "run", "nosuchsuite"], &["nosuchsuite", "quick"]),
    (&["suite", "show", "nosuchsuite"], &["nosuchsuite", "quick"]),
    (
        &["suite", "run", "quick", "--set", "nokey"],
        &["--set", "KEY=VALUE"],
    ),
    (&["burnin", "--duration", "0s"], &["--duration", "72h"]),
    (&["burnin", "--checkpoint", "10x"], &["--checkpoint", "10s"]),
    (
        &["--assert", "cpu.ops rate >>= 5", "cpu", "ops"],
        &["--assert", "OP one of"],
    ),
    (
        &["--assert", "bogus", "cpu", "ops"],
        &["--assert", "no comparison operator"],
    ),
    (
        &["--assert", "cpu.ops rate >= 5", "inventory"],
        &["--assert", "run benchmarks"],
    ),
    (
        &["fleet", "run", "/nonexistent/hosts.toml", "quick"],
        &["hosts file", "cannot read"],
    ),
    (
        &["slurm", "submit", "quick", "--nodes", "0"],
        &["--nodes", "at least 1"],
    ),
    (&["slurm", "collect", "abc"], &["<JOBID>"]),
    (&["schema", "bogus"], &["compare"]),
    (
        &["--telemetry-interval", "0s", "cpu", "ops"],
        &["--telemetry-interval"],
    ),
    (&["--tag", "novalue", "cpu", "ops"], &["--tag", "KEY=VALUE"]),
    (&["nosuchcommand"], &["nosuchcommand"]),
];

#[test]
fn bad_input_is_one_line_and_exit_2_for_every_command() {
    assert!(BAD.len() >= 40, "{} cases", BAD.len());
    for (args, want) in BAD {
        let o = common::run(args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            !err.contains("panicked") && !err.contains("RUST_BACKTRACE"),
            "{args:?}: {err}"
        );
        assert_eq!(
            err.trim_end().lines().count(),
            1,
            "{args:?}: one line: {err:?}"
        );
        assert!(err.starts_with("error: "), "{args:?}: {err}");
        for w in *want {
            assert!(err.contains(w), "{args:?}: {w:?} missing from {err:?}");
        }
    }
}

/// A short run saved in `t`, tagged `cfg=TAG`.
fn short_run(t: &TempStore, tag: &str) {
    let tag = format!("cfg={tag}");
    let mut args = QUICK_OPS.to_vec();
    args.extend(["--tag", &tag]);
    let o = t.run(&args);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn run_ids_are_one_way_everywhere() {
    let t = TempStore::new();
    // An empty store: no latest, anywhere, exit 2.
    for args in [
        &["runs", "show", "latest"][..],
        &["runs", "delete", "latest"],
        &["runs", "export", "latest", "--format", "csv"],
        &["compare", "latest", "latest~1"],
    ] {
        one_line_error(&t.run(args), 2, &["latest", "the store holds"]);
    }
    short_run(&t, "a");
    short_run(&t, "a");
    short_run(&t, "b");
    // latest and latest~N name runs 3, 2, 1.
    for (spec, id) in [("latest", 3), ("latest~1", 2), ("latest~2", 1), ("2", 2)] {
        let o = t.run(&["--json", "runs", "show", spec]);
        let run: serde_json::Value = serde_json::from_slice(&o.stdout).expect(spec);
        assert_eq!(run["id"], id, "{spec}");
    }
    one_line_error(
        &t.run(&["runs", "show", "latest~3"]),
        2,
        &["latest~3", "holds 3 run(s)", "latest~N"],
    );
    // "No such run" exits 2 from every command.
    for args in [
        &["runs", "show", "9999"][..],
        &["runs", "delete", "9999"],
        &["runs", "export", "9999", "--format", "json"],
        &["report", "9999", "-o", "/tmp/nodebench-never.html"],
        &["compare", "9999", "1"],
        &["compare", "1", "tag:cfg=zzz"],
    ] {
        one_line_error(&t.run(args), 2, &["no "]);
    }
    // The same run on both sides of a comparison is said, once.
    one_line_error(
        &t.run(&["compare", "3", "latest"]),
        0,
        &["note:", "the same run"],
    );
    one_line_error(&t.run(&["compare", "tag:cfg=a", "2"]), 0, &["the same run"]);
    let o = t.run(&["compare", "tag:cfg=a", "latest"]);
    assert!(
        o.status.success() && stderr(&o).is_empty(),
        "{}",
        stderr(&o)
    );
    // runs show takes a tag as the others do: every run with it.
    let o = t.run(&["--json", "runs", "show", "tag:cfg=a"]);
    let shown: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let ids: Vec<i64> = shown
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [1, 2]);
    let o = t.run(&["runs", "show", "tag:cfg=b"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("cpu.ops"), "{}", stdout(&o));
    one_line_error(&t.run(&["runs", "show", "tag:cfg=zzz"]), 2, &["no "]);
    // A tag's runs export as one document.
    let o = t.run(&["runs", "export", "tag:cfg=a", "--format", "json"]);
    let runs: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let ids: Vec<i64> = runs
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [1, 2]);
    let csv = stdout(&t.run(&["runs", "export", "tag:cfg=a", "--format", "csv"]));
    assert_eq!(csv.matches("run_id,").count(), 1, "{csv}");
    assert!(csv.lines().any(|l| l.starts_with("1,")) && csv.lines().any(|l| l.starts_with("2,")));
    let junit = stdout(&t.run(&["runs", "export", "tag:cfg=a", "--format", "junit"]));
    assert_eq!(junit.matches("<testsuites").count(), 1, "{junit}");
    assert_eq!(junit.matches("<testsuite ").count(), 2, "{junit}");
    // Deleting the latest deletes run 3.
    assert!(t.run(&["runs", "delete", "latest"]).status.success());
    let o = t.run(&["--json", "runs", "show", "latest"]);
    let run: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(run["id"], 2);
}

/// `nodebench ARGS` on `t` with its standard output a pipe whose reader
/// is gone before it writes: exit code and stderr.
fn into_closed_pipe(t: &TempStore, args: &[&str]) -> (Option<i32>, String) {
    let mut child = t
        .command()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    (o.status.code(), stderr(&o))
}

#[test]
fn a_closed_pipe_ends_output_quietly_and_a_benchmark_still_saves_its_run() {
    let t = TempStore::new();
    // A benchmark whose reader is gone runs to the end and saves its run.
    let mut bench = QUICK_OPS.to_vec();
    bench.retain(|a| *a != "--quiet");
    let (code, err) = into_closed_pipe(&t, &bench);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(err, "", "stderr");
    short_run(&t, "x");
    let list = t.run(&["--json", "runs", "list"]);
    let listed: serde_json::Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 2, "{}", stdout(&list));
    for args in [
        &["runs", "list"][..],
        &["--json", "runs", "list"],
        &["runs", "show", "latest"],
        &["--json", "runs", "show", "1"],
        &["runs", "export", "1", "--format", "csv"],
        &["runs", "export", "1", "--format", "md"],
        &["compare", "1", "2"],
        &["schema"],
        &["suite", "show", "quick"],
        &["suite", "list"],
        &["inventory"],
        &["--help"],
    ] {
        let (code, err) = into_closed_pipe(&t, args);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        assert_eq!(err, "", "{args:?}: stderr");
    }
    // Through a real shell pipe too, with a long list.
    for _ in 0..3 {
        short_run(&t, "y");
    }
    let o = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "'{}' --store '{}' runs list | head -1; echo \"rc=${{PIPESTATUS[0]}}\"",
            env!("CARGO_BIN_EXE_nodebench"),
            t.store().display()
        ))
        .env_remove("NODEBENCH_STORE")
        .output()
        .unwrap();
    assert_eq!(stderr(&o), "", "{}", stdout(&o));
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 2, "{out}");
    assert_eq!(out.lines().last(), Some("rc=0"), "{out}");
}

#[test]
fn an_explicit_store_path_in_a_missing_directory_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("typo").join("results.db");
    let o = bin()
        .arg("--store")
        .arg(&missing)
        .args(["runs", "list"])
        .output()
        .unwrap();
    one_line_error(&o, 2, &["--store", "typo", "does not exist"]);
    let o = bin()
        .env("NODEBENCH_STORE", &missing)
        .args(QUICK_OPS)
        .output()
        .unwrap();
    one_line_error(&o, 2, &["NODEBENCH_STORE", "typo", "does not exist"]);
    assert!(!dir.path().join("typo").exists(), "created the typo");
    // The default location creates its directories.
    let home = dir.path().join("home");
    std::fs::create_dir(&home).unwrap();
    let o = bin()
        .env("HOME", &home)
        .env_remove("XDG_DATA_HOME")
        .args(["runs", "list"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(home.join(".local/share/nodebench/results.db").exists());
}

/// Paths, nodes, sizes, ports and URLs that cannot be right are refused
/// before anything runs: exit 2, one line naming the flag and the
/// accepted form, no debug text, and nothing stored (the store file is
/// never created).
#[test]
fn bad_paths_nodes_sizes_ports_and_urls_are_usage_errors_that_store_nothing() {
    let cases: &[(&[&str], &[&str])] = &[
        (
            &["disk", "dd", "--dir", "/nonexistent-nodebench"],
            &[
                "--dir /nonexistent-nodebench",
                "expected an existing directory",
            ],
        ),
        (
            &["disk", "iozone", "--dir", "/etc/hostname", "-s", "1m"],
            &["--dir /etc/hostname: not a directory"],
        ),
        (
            &["disk", "blocks", "--dir", "/nonexistent-nodebench"],
            &["--dir /nonexistent-nodebench"],
        ),
        (
            &["db", "as3ap", "--db", "sqlite:/nonexistent-nodebench/x.db"],
            &[
                "--db sqlite:",
                "directory /nonexistent-nodebench does not exist",
            ],
        ),
        (
            &["db", "as3ap", "--scratch-dir", "/nonexistent-nodebench"],
            &["--scratch-dir", "expected an existing directory"],
        ),
        (
            &["memory", "stream", "--numa", "node:99"],
            &["--numa node:99", "expected a node"],
        ),
        (
            &["cpu", "linpack", "--sizes", "99999999"],
            &["--sizes: n = 99999999 needs", "the largest that fits"],
        ),
        (
            &["db", "as3ap", "--db", "mysql://u:pw9@127.0.0.1:70000/x"],
            &[
                "--db: port '70000' is not a port (1..65535)",
                "mysql://USER",
            ],
        ),
        (
            &["net", "tcp", "127.0.0.1", "--port", "0"],
            &["--port", "0"],
        ),
        (
            &["net", "pingpong", "127.0.0.1", "--port", "0"],
            &["--port", "0"],
        ),
    ];
    for (args, needles) in cases {
        let t = TempStore::new();
        let o = t.run(args);
        one_line_error(&o, 2, needles);
        let err = stderr(&o);
        assert!(
            !err.contains("pw9") && !err.contains(" {"),
            "{args:?}: {err}"
        );
        assert!(!t.store().exists(), "{args:?}: the store was opened");
    }
}

/// A store path that is a directory or a file that is not a database is
/// a usage error naming the flag and the accepted forms.
#[test]
fn a_store_that_is_a_directory_or_not_a_database_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let not_db = dir.path().join("notes.txt");
    std::fs::write(&not_db, "not a database, plain text\n").unwrap();
    for (store, words) in [
        (dir.path().to_path_buf(), "is a directory"),
        (not_db.clone(), "is not a SQLite database"),
    ] {
        for args in [&["runs", "list"][..], QUICK_OPS] {
            let o = bin()
                .arg("--store")
                .arg(&store)
                .args(args)
                .output()
                .unwrap();
            one_line_error(&o, 2, &["--store", words, "expected a SQLite file"]);
        }
    }
    assert_eq!(
        std::fs::read_to_string(&not_db).unwrap(),
        "not a database, plain text\n"
    );
}

/// A global flag a command does not honour is left out of its help and
/// refused when given; a negative number is refused by its own flag.
#[test]
fn flags_act_where_they_are_listed() {
    for (cmd, hidden) in [
        (
            &["compare", "--help"][..],
            &["--assert", "--tag", "--no-save"][..],
        ),
        (&["report", "--help"], &["--assert", "--tag", "--json"]),
        (&["runs", "export", "--help"], &["--assert", "--tag"]),
        (&["import", "--help"], &["--assert"]),
        (&["inventory", "--help"], &["--assert", "--tag"]),
        (&["schema", "--help"], &["--assert", "--tag", "--json"]),
        (
            &["http", "serve", "--help"],
            &["--assert", "--tag", "--json"],
        ),
    ] {
        let help = stdout(&bin().args(cmd).output().unwrap());
        for flag in hidden {
            assert!(
                !help.contains(&format!("  {flag} ")) && !help.contains(&format!("  {flag}\n")),
                "{cmd:?} lists {flag}: {help}"
            );
        }
    }
    // Commands that run benchmarks still list them.
    let help = stdout(&bin().args(["cpu", "ops", "--help"]).output().unwrap());
    assert!(
        help.contains("--assert") && help.contains("--tag"),
        "{help}"
    );
    let t = TempStore::new();
    for (args, flag, command) in [
        (
            &["compare", "1", "2", "--tag", "a=b"][..],
            "--tag",
            "compare",
        ),
        (
            &["--json", "report", "1", "-o", "/tmp/x.html"],
            "--json",
            "report",
        ),
        (&["--tag", "a=b", "runs", "list"], "--tag", "runs"),
        (&["schema", "--tag", "a=b"], "--tag", "schema"),
        (&["http", "serve", "--json"], "--json", "http serve"),
        (&["inventory", "--tag", "a=b"], "--tag", "inventory"),
    ] {
        one_line_error(
            &t.run(args),
            2,
            &[&format!("{flag} does not apply to {command}")],
        );
    }
    assert!(!t.store().exists(), "a refused command opened the store");
    one_line_error(
        &t.run(&["cpu", "ops", "--threads", "-1"]),
        2,
        &["'-1' for '--threads <LIST>'", "1,2,4,8"],
    );
}

/// The codes of the README's "Exit codes" table, in its order.
fn readme_exit_codes() -> Vec<i32> {
    let readme = include_str!("../../../../README.md");
    let section = readme
        .split("### Exit codes")
        .nth(1)
        .expect("the README has an Exit codes section");
    section
        .lines()
        .skip_while(|l| !l.starts_with("| code"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cell = l.trim_start_matches('|').split('|').next().unwrap().trim();
            cell.parse().unwrap_or_else(|_| panic!("not a code: {l}"))
        })
        .collect()
}

/// The `EXIT_*` constants of `src/error.rs`, and 0.
fn error_rs_exit_codes() -> Vec<i32> {
    let source = include_str!("../../src/error.rs");
    let mut codes: Vec<i32> = source
        .lines()
        .filter(|l| l.starts_with("pub const EXIT_"))
        .map(|l| {
            let value = l.rsplit('=').next().unwrap().trim().trim_end_matches(';');
            value.parse().unwrap_or_else(|_| panic!("not a code: {l}"))
        })
        .collect();
    codes.push(0);
    codes
}

/// The README's table of exit codes is `src/error.rs`'s, code for code, and
/// a real command exits with each: 0 done, 1 a threshold not met, 2 a flag
/// refused, 3 no NVIDIA GPU (none found where the library search is
/// pointed at an empty folder), 130 Ctrl-C.
#[test]
fn every_exit_code_of_the_readme_table_is_error_rs_and_a_command_exits_with_it() {
    let listed = readme_exit_codes();
    let (mut sorted, mut constants) = (listed.clone(), error_rs_exit_codes());
    sorted.sort_unstable();
    constants.sort_unstable();
    assert_eq!(sorted, constants, "README table vs src/error.rs");
    assert_eq!(listed, vec![0, 1, 2, 3, 130]);
    let no_cuda = tempfile::tempdir().unwrap();
    let quick = |extra: &[&str]| {
        bin()
            .args(["--no-save", "-q"])
            .args(QUICK_OPS)
            .args(extra)
            .output()
            .unwrap()
    };
    for code in listed {
        let out = match code {
            0 => quick(&[]),
            1 => quick(&[
                "--assert",
                "cpu.ops rate{kernel=int.scalar,threads=1} >= 1000 Top/s",
            ]),
            2 => quick(&["--threads", "0"]),
            3 => bin()
                .args(["--no-save", "-q", "gpu", "stream"])
                .env("NODEBENCH_CUDA_LIB_DIRS", no_cuda.path())
                .output()
                .unwrap(),
            130 => {
                let child = bin()
                    .args(["--no-save", "-q", "cpu", "ops", "--threads", "1"])
                    .args(["--duration", "300ms", "--repeats", "5", "--quiet"])
                    .stdout(Stdio::piped())
                    .stderr(Stdio::piped())
                    .spawn()
                    .unwrap();
                std::thread::sleep(std::time::Duration::from_millis(1500));
                common::interrupt(child.id());
                child.wait_with_output().unwrap()
            }
            other => panic!("no command for exit code {other}"),
        };
        assert_eq!(out.status.code(), Some(code), "{}", stderr(&out));
        match code {
            1 => assert!(
                stderr(&out).contains("error: acceptance failed: 1 of 1 threshold(s) not met"),
                "{}",
                stderr(&out)
            ),
            2 => one_line_error(&out, 2, &["error: ", "--threads"]),
            3 => one_line_error(&out, 3, &["error: no NVIDIA GPU: "]),
            _ => {}
        }
    }
}
