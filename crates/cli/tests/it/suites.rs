//! Suites: `suite list|show|run`, errors before anything runs, one run per
//! suite with step names and repeats, suite thresholds, `--set`, and every
//! built-in run to completion at a size of seconds.

use crate::common;

use std::path::PathBuf;

use common::{TempStore, json, one_line_error, stderr, stdout};
use serde_json::Value;

/// The built-ins that run without a GPU, in `suite list` order.
const BUILTINS: [&str; 7] = [
    "quick",
    "compute-node",
    "node-pair",
    "resource-sweep",
    "amp-stack",
    "iozone-auto",
    "hpcc",
];
/// The one that needs an NVIDIA GPU, listed last (tests/it/gpu.rs: exit 3
/// without one).
const GPU_BUILTIN: &str = "gpu-node";

/// Writes `text` as a suite file in `t`'s directory.
fn suite_file(t: &TempStore, text: &str) -> PathBuf {
    let path = t.store().with_file_name("suite.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// `suite run SUITE --json -q --no-telemetry` with `--set` for each of `sets`.
fn run_suite(t: &TempStore, suite: &str, sets: &[&str]) -> std::process::Output {
    let mut args = vec!["suite", "run", suite, "--json", "-q", "--no-telemetry"];
    for s in sets {
        args.extend(["--set", s]);
    }
    t.run(&args)
}

/// Each result's (benchmark, step, repeats it merges).
fn steps(run: &Value) -> Vec<(String, String, u64)> {
    run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["benchmark"].as_str().unwrap().to_string(),
                r["parameters"]["step"].as_str().unwrap_or("").to_string(),
                r["parameters"]["repeat"]["repeats"].as_u64().unwrap_or(1),
            )
        })
        .collect()
}

#[test]
fn list_shows_the_eight_builtins_in_order_with_descriptions() {
    let out = common::run(&["suite", "list"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let names: Vec<&str> = text
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    let mut want = BUILTINS.to_vec();
    want.push(GPU_BUILTIN);
    assert_eq!(names, want);
    assert!(
        text.lines().all(|l| l.split_whitespace().count() > 2),
        "{text}"
    );
}

#[test]
fn show_prints_a_builtin_or_a_file_and_refuses_neither() {
    let out = common::run(&["suite", "show", "iozone-auto"]);
    assert!(
        stdout(&out).contains("name = \"iozone-auto\""),
        "{}",
        stdout(&out)
    );
    let t = TempStore::new();
    let f = suite_file(&t, "name = \"mine\"\n[[step]]\nbench = \"cpu.ops\"\n");
    let out = t.run(&["suite", "show", f.to_str().unwrap()]);
    assert_eq!(
        stdout(&out),
        "name = \"mine\"\n[[step]]\nbench = \"cpu.ops\"\n"
    );
    let out = t.run(&["suite", "show", "no-such-suite"]);
    one_line_error(
        &out,
        2,
        &["no-such-suite", "built-ins: quick, compute-node"],
    );
}

/// A suite file that is wrong in one place: exit 2, one line naming the
/// file, the line and the key, nothing run, nothing stored.
fn refused(text: &str, want: &[&str]) {
    let t = TempStore::new();
    let f = suite_file(&t, text);
    let out = run_suite(&t, f.to_str().unwrap(), &[]);
    let file = format!("{}:", f.display());
    let mut want = want.to_vec();
    want.push(&file);
    one_line_error(&out, 2, &want);
    assert!(!t.store().exists(), "nothing stored");
}

#[test]
fn a_bad_suite_file_exits_2_naming_the_line_and_the_key_and_stores_nothing() {
    refused(
        "name = \"x\"\n[[step]]\nbench = \"cpu.ops\"\nduration = \"10ms\"\n\n[[step]]\nbench = \"cpu.flops\"\n",
        &[
            ":7:",
            "key 'bench'",
            "unknown benchmark 'cpu.flops'",
            "accepted: cpu.ops",
        ],
    );
    refused(
        "name = \"x\"\n[[step]]\nbench = \"memory.stream\"\nntimes = 2\nwarp-speed = 9\n",
        &[
            ":5:",
            "step 'memory.stream'",
            "key 'warp-speed'",
            "unknown parameter",
            "ntimes",
        ],
    );
    refused(
        "name = \"x\"\n[[step]]\nbench = \"disk.iozone\"\nname = \"io\"\nfile-size = \"lots\"\n",
        &[
            ":5:",
            "step 'io'",
            "key 'file-size'",
            "invalid value 'lots'",
            "8KiB",
        ],
    );
    refused(
        "name = \"x\"\n[[step]\nbench = 1\n",
        &[":2:", "malformed TOML"],
    );
    refused(
        "name = \"x\"\n[[step]]\nbench = \"cpu.ops\"\nthresholds = [\"cpu.ops rate >= fast\"]\n",
        &[
            ":4:",
            "key 'thresholds'",
            "invalid threshold",
            "OP VALUE[UNIT]",
        ],
    );
    // The benchmark's own check, after the flags parsed: a zero duration.
    refused(
        "name = \"x\"\n[[step]]\nbench = \"memory.latency\"\nname = \"lat\"\nmin-size = \"1MiB\"\nmax-size = \"4KiB\"\n",
        &["step 'lat'", "max-size"],
    );
}

#[test]
fn a_suite_run_is_one_run_with_step_names_repeats_and_judged_thresholds() {
    let t = TempStore::new();
    let f = suite_file(
        &t,
        r#"
name = "mine"
description = "two ops steps"
thresholds = ["cpu.ops rate >= 1 op/s", "cpu.ops rate >= 1000 Top/s"]

[[step]]
bench = "cpu.ops"
name = "ops-a"
repeat = 2
threads = "1"
duration = "10ms"
repeats = 1
warmup = 0
kernels = ["int.scalar"]
thresholds = ["cpu.ops rate{threads=1} >= 1 op/s"]

[[step]]
bench = "cpu.ops"
threads = [1]
duration = "10ms"
repeats = 1
warmup = 0
kernels = "int.vector"
"#,
    );
    let out = run_suite(&t, f.to_str().unwrap(), &[]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("acceptance failed: 1 of 3"),
        "{}",
        stderr(&out)
    );
    let run: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(run["tags"]["suite"], "mine");
    let got = steps(&run);
    // The step's 2 repeats are one result's repeats.
    let want = [("ops-a", 2), ("cpu.ops", 1)];
    assert_eq!(got.len(), 2, "{got:?}");
    for ((bench, step, repeat), (wstep, wrepeat)) in got.iter().zip(want) {
        assert_eq!(
            (bench.as_str(), step.as_str(), *repeat),
            ("cpu.ops", wstep, wrepeat)
        );
    }
    // One run in the store, its verdicts with it.
    let id = run["id"].as_i64().unwrap().to_string();
    let listed = t.run(&["runs", "list", "--json"]);
    assert_eq!(json(&listed).as_array().unwrap().len(), 1);
    let shown = json(&t.run(&["runs", "show", &id, "--json"]));
    let verdicts: Vec<(String, bool)> = shown["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["threshold"].as_str().unwrap().to_string(),
                v["passed"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        verdicts,
        [
            ("cpu.ops rate >= 1 op/s".to_string(), true),
            ("cpu.ops rate >= 1000 Top/s".to_string(), false),
            (
                "cpu.ops rate{threads=1} >= 1 op/s [step=ops-a]".to_string(),
                true
            ),
        ]
    );
    // The step threshold matched ops-a's results only: fewer metrics than
    // the suite threshold, which matched both steps'.
    let matched = |i: usize| shown["verdicts"][i]["matched"].as_u64().unwrap();
    assert!(
        0 < matched(2) && matched(2) < matched(0),
        "{} {}",
        matched(2),
        matched(0)
    );
}

#[test]
fn set_on_an_unknown_key_or_step_exits_2_naming_it() {
    let t = TempStore::new();
    let out = run_suite(&t, "quick", &["warp-speed=9"]);
    one_line_error(
        &out,
        2,
        &[
            "--set warp-speed",
            "no step of suite 'quick' takes 'warp-speed'",
        ],
    );
    let out = run_suite(&t, "quick", &["nope.threads=1"]);
    one_line_error(
        &out,
        2,
        &["--set nope.threads", "no step 'nope'", "cpu.ops"],
    );
    let out = run_suite(&t, "quick", &["cpu.ops.threads=lots"]);
    one_line_error(
        &out,
        2,
        &[
            "--set",
            "step 'cpu.ops'",
            "key 'threads'",
            "invalid value 'lots'",
        ],
    );
    let out = run_suite(&t, "quick", &["threads"]);
    one_line_error(&out, 2, &["--set", "[STEP.]KEY=VALUE"]);
    assert!(!t.store().exists(), "nothing stored");
}

/// `--set`s that shrink each built-in to seconds.
fn shrunk(name: &str) -> &'static [&'static str] {
    match name {
        "quick" => &[
            "cpu.ops.duration=10ms",
            "cpu.ops.repeats=1",
            "cpu.ops.warmup=0",
            "cpu.ops.threads=1",
            "sizes=200",
            "trials=1",
            "ntimes=2",
            "array-size=1000000",
            "memory.latency.max-size=1MiB",
            "file-size=4MiB",
            "time=1s",
            "net.pingpong.duration=20ms",
            "net.pingpong.sizes=1",
            "http-closed.time-limit=300ms",
            "http-open.duration=300ms",
            "http-open.rate=200",
        ],
        "compute-node" => &[
            "ab.time-limit=300ms",
            "ab.concurrency=4",
            "httperf.conn-rate=200",
            "httperf.num-conns=40",
            "ntimes=2",
            "array-size=1000000",
            "file-size=2MiB",
        ],
        "node-pair" => &["time=1s", "block-size=1MiB", "count=2", "url=/4M"],
        "resource-sweep" => &[
            "cpu.ops.threads=1,2",
            "cpu.ops.duration=10ms",
            "cpu.ops.repeats=1",
            "cpu.ops.warmup=0",
            "cpu.ops.kernels=f64.vector",
            "sizes=200",
            "trials=1",
            "ntimes=2",
            "array-size=1000000",
            "block-sizes=8,8KiB",
            "memory.blocks.threads=1,2",
            "disk.blocks.threads=1,2",
            "total=1MiB",
            "net.pingpong.duration=20ms",
            "net.pingpong.sizes=1",
            "net.pingpong.threads=1",
            "time=1s",
        ],
        "amp-stack" => &[
            "static-html.users=1,2",
            "cpu-page.users=1,2",
            "iterations=20",
            "cpu-page.url=/cpu/1k",
            "as3ap.size=4MB",
            "as3ap.users=2",
            "as3ap.warmup=200ms",
            "as3ap.measure=300ms",
            "db-ir.time-limit=300ms",
        ],
        "iozone-auto" => &["max-file-size=256KiB"],
        "hpcc" => &[
            "cpu.linpack.sizes=200",
            "cpu.hpcc_dgemm.order=100",
            "array-size=200000",
            "ntimes=2",
            "memory.hpcc_ptrans.order=200",
            "memory.hpcc_random_access.table-size=16384",
            "cpu.hpcc_fft.size=4096",
        ],
        _ => unreachable!("{name}"),
    }
}

#[test]
fn every_builtin_runs_to_completion_when_shrunk_to_seconds() {
    for name in BUILTINS {
        let t = TempStore::new();
        let started = std::time::Instant::now();
        // amp-stack's database file in the test's directory, not /tmp.
        let db = format!("db=sqlite:{}", t.store().with_file_name("amp.db").display());
        let mut sets = shrunk(name).to_vec();
        if name == "amp-stack" {
            sets.push(&db);
        }
        let out = run_suite(&t, name, &sets);
        let run = json(&out);
        assert_eq!(run["status"], "complete", "{name}: {}", stderr(&out));
        assert_eq!(run["tags"]["suite"], name);
        let got = steps(&run);
        assert!(!got.is_empty(), "{name}");
        assert!(
            got.iter().all(|(_, step, _)| !step.is_empty()),
            "{name}: {got:?}"
        );
        eprintln!("{name}: {} results in {:.1?}", got.len(), started.elapsed());
    }
}
