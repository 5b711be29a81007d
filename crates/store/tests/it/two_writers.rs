//! Several nodebench processes saving runs to one results store at the
//! same time, on SQLite and on PostgreSQL: all succeed and the store holds
//! every run of each, with all its results. The writers are real processes:
//! the test re-executes its own binary, running only [`writer_process`],
//! with the role in the environment.

use crate::common;

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use chrono::{TimeZone, Utc};
use common::Backend;
use nodebench_core::bench::ResultSink;
use nodebench_core::{BenchResult, Better, Histogram, Metric, Run, RunStatus, TimeSeries, Unit};
use nodebench_store::{Location, Recorder};
use tempfile::TempDir;

/// Store (path or URL) a child writer saves to; its presence makes
/// [`writer_process`] a child writer.
const STORE_VAR: &str = "NODEBENCH_TEST_WRITER_STORE";
/// Number of the child writer (tagged on each of its runs).
const WRITER_VAR: &str = "NODEBENCH_TEST_WRITER_ID";
/// How many runs the child writer saves.
const RUNS_VAR: &str = "NODEBENCH_TEST_WRITER_RUNS";
/// Directory where the child says it is ready, before it waits for the go
/// on its standard input.
const GATE_VAR: &str = "NODEBENCH_TEST_WRITER_GATE";

/// Results per run, each with [`METRICS`] metrics, a histogram and a series.
const RESULTS: usize = 4;
/// Metrics per result.
const METRICS: usize = 3;
/// How long a process waits for the others before failing.
const GATE_TIMEOUT: Duration = Duration::from_secs(120);

/// Tag naming the writer of a run.
const WRITER_TAG: &str = "writer";
/// Tag numbering a run within its writer.
const RUN_TAG: &str = "run";

/// Run `run` of writer `writer`, as `nodebench run` begins it.
fn new_run(writer: usize, run: usize) -> Run {
    let mut r = Run::start(
        vec!["nodebench".into(), "run".into(), "cpu".into()],
        BTreeMap::from([
            (WRITER_TAG.to_string(), writer.to_string()),
            (RUN_TAG.to_string(), run.to_string()),
        ]),
    );
    r.started_at = Utc.with_ymd_and_hms(2025, 3, 14, 15, 9, 26).unwrap();
    r
}

/// Result `seq` of run `run` of writer `writer`: every figure differs, so a
/// result saved under the wrong run or twice does not compare equal.
fn result(writer: usize, run: usize, seq: usize) -> BenchResult {
    let mut r = BenchResult::new("cpu.ops");
    r.started_at = Utc.with_ymd_and_hms(2025, 3, 14, 15, 9, 26).unwrap();
    r.ended_at = r.started_at + chrono::Duration::nanoseconds(1_000_000_007);
    r.set_param("writer", writer);
    r.set_param("run", run);
    r.set_param("seq", seq);
    let base = ((writer * 1000 + run) * 100 + seq) as f64;
    for m in 0..METRICS {
        r.metrics.push(
            Metric::new(
                "rate",
                base + m as f64 / 8.0,
                Unit::FlopsPerSecond,
                Better::Higher,
            )
            .label("threads", m + 1),
        );
    }
    r.histograms.push(Histogram {
        name: "latency".into(),
        unit: Unit::Seconds,
        scale: 1e9,
        labels: BTreeMap::new(),
        count: (seq + 1) as u64,
        hdr_base64: "HISTFAAAABx4nJNpmSzMwMDAxAABzFAaAQBHFQLn".into(),
    });
    r.series.push(TimeSeries {
        name: "requests_per_second".into(),
        unit: Unit::OpsPerSecond,
        labels: BTreeMap::new(),
        points: vec![(0.0, base), (1.0, base + 0.5)],
    });
    r
}

/// Saves `runs` runs of writer `writer` to the store at `location` the way
/// `nodebench run` does, each in its own session: open the store, begin the
/// run, commit each result as it arrives, record the ending.
fn write_runs(location: &Location, writer: usize, runs: usize) {
    for run in 0..runs {
        let store = location
            .open()
            .unwrap_or_else(|e| panic!("writer {writer} run {run}: open: {e}"));
        let mut recorder = Recorder::begin(Some(store), new_run(writer, run))
            .unwrap_or_else(|e| panic!("writer {writer} run {run}: begin: {e}"));
        for seq in 0..RESULTS {
            recorder
                .record(result(writer, run, seq))
                .unwrap_or_else(|e| panic!("writer {writer} run {run} result {seq}: {e}"));
        }
        recorder
            .finish(RunStatus::Complete)
            .unwrap_or_else(|e| panic!("writer {writer} run {run}: finish: {e}"));
    }
}

/// Checks that the store of `backend` holds exactly `runs` complete runs of
/// each of `writers` writers, each with all its results, figure for figure.
fn check_store(backend: &Backend, writers: usize, runs: usize) {
    let store = backend.open();
    let summaries = store.list_runs().unwrap();
    assert_eq!(summaries.len(), writers * runs, "runs in the store");
    let mut seen = BTreeMap::new();
    for s in &summaries {
        let tag = |k: &str| -> usize { s.tags[k].parse().unwrap() };
        let (writer, run) = (tag(WRITER_TAG), tag(RUN_TAG));
        assert!(
            seen.insert((writer, run), s.id).is_none(),
            "run {run} of writer {writer} saved twice"
        );
        assert_eq!(s.status, RunStatus::Complete, "status of run {}", s.id);
        assert_eq!(
            (s.result_count, s.metric_count),
            (RESULTS, RESULTS * METRICS),
            "results and metrics of run {}",
            s.id
        );
        let loaded = store.load_run(s.id).unwrap();
        let expected: Vec<BenchResult> = (0..RESULTS).map(|q| result(writer, run, q)).collect();
        assert_eq!(loaded.results, expected, "results of run {}", s.id);
    }
    let expected_keys: Vec<(usize, usize)> = (0..writers)
        .flat_map(|w| (0..runs).map(move |r| (w, r)))
        .collect();
    assert_eq!(seen.keys().copied().collect::<Vec<_>>(), expected_keys);

    let count = |table: &str| backend.count(table);
    let total = (writers * runs * RESULTS) as i64;
    assert_eq!(count("results"), total);
    assert_eq!(count("metrics"), total * METRICS as i64);
    assert_eq!(count("histograms"), total);
    assert_eq!(count("series"), total);
    assert_eq!(count("schema_version"), 1);
}

/// Polls until `done` holds, failing after [`GATE_TIMEOUT`].
fn wait_for(what: &str, done: impl Fn() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < GATE_TIMEOUT,
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// One child writer: this test binary, running only [`writer_process`].
fn spawn_writer(location: &OsStr, gate: &Path, writer: usize, runs: usize) -> Child {
    let exe = std::env::current_exe().unwrap();
    Command::new(exe)
        .args([
            "--exact",
            "two_writers::writer_process",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(STORE_VAR, location)
        .env(WRITER_VAR, writer.to_string())
        .env(RUNS_VAR, runs.to_string())
        .env(GATE_VAR, gate)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The writers started by [`start_writers`], with the directory they
/// signal readiness in.
struct Writers {
    children: Vec<Child>,
    _gate: TempDir,
}

/// Starts `writers` child writers of `runs` runs each on the store of
/// `backend`, and once all are ready lets them go at the same moment.
fn start_writers(backend: &Backend, writers: usize, runs: usize) -> Writers {
    let gate = TempDir::new().unwrap();
    let location = match backend.location() {
        Location::Sqlite(path) => path.into_os_string(),
        Location::Postgres(url) => url.into(),
    };
    let mut children: Vec<Child> = (0..writers)
        .map(|w| spawn_writer(&location, gate.path(), w, runs))
        .collect();
    wait_for("the writers to be ready", || {
        (0..writers).all(|w| gate.path().join(format!("ready-{w}")).exists())
    });
    for child in &mut children {
        std::io::Write::write_all(child.stdin.as_mut().unwrap(), b"g").unwrap();
    }
    Writers {
        children,
        _gate: gate,
    }
}

/// Waits for every writer and asserts that each exited successfully.
fn wait_writers(writers: Writers) {
    for (w, child) in writers.children.into_iter().enumerate() {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "writer {w} failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Child writer when [`STORE_VAR`] is set: says it is ready, waits for the
/// go on its standard input, and saves its runs. Run directly, it saves
/// three runs to a new SQLite store of its own and checks them.
#[test]
fn writer_process() {
    let Some(location) = std::env::var_os(STORE_VAR) else {
        let backend = Backend::sqlite();
        write_runs(&backend.location(), 0, 3);
        check_store(&backend, 1, 3);
        return;
    };
    let location = Location::parse(&location, STORE_VAR).unwrap();
    let var = |name: &str| std::env::var(name).unwrap_or_else(|_| panic!("{name} not set"));
    let writer: usize = var(WRITER_VAR).parse().unwrap();
    let runs: usize = var(RUNS_VAR).parse().unwrap();
    let gate = PathBuf::from(var(GATE_VAR));
    std::fs::write(gate.join(format!("ready-{writer}")), b"").unwrap();
    let mut go = [0u8; 1];
    std::io::Read::read_exact(&mut std::io::stdin(), &mut go).unwrap();
    write_runs(&location, writer, runs);
}

#[test]
fn two_processes_save_runs_to_one_store_at_once() {
    let backend = Backend::sqlite();
    wait_writers(start_writers(&backend, 2, 50));
    check_store(&backend, 2, 50);
}

#[test]
fn processes_creating_a_store_at_once_all_open_it() {
    for _round in 0..10 {
        let backend = Backend::sqlite();
        wait_writers(start_writers(&backend, 8, 1));
        check_store(&backend, 8, 1);
    }
}

/// Switching a new database to WAL takes a write lock while holding a read
/// lock, and SQLite does not call the busy handler for that upgrade: a
/// process opening the new store while another is switching it (here: holds
/// its write lock) must wait for it, not fail with "database is locked".
#[test]
fn opening_a_new_store_waits_for_a_process_switching_it_to_wal() {
    let backend = Backend::sqlite();
    let Location::Sqlite(path) = backend.location() else {
        unreachable!("a SQLite backend");
    };
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let holder = rusqlite::Connection::open(&path).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let writers = start_writers(&backend, 2, 1);
    std::thread::sleep(Duration::from_millis(300));
    holder.execute_batch("COMMIT").unwrap();
    drop(holder);
    wait_writers(writers);
    check_store(&backend, 2, 1);
}

/// Eight processes create the schema of a new PostgreSQL store together
/// (the migration lock), then each saves 10 runs at once: all 80 are there.
#[test]
fn eight_processes_save_runs_to_one_postgres_store_at_once() {
    let Some(backend) = Backend::postgres() else {
        return;
    };
    wait_writers(start_writers(&backend, 8, 10));
    check_store(&backend, 8, 10);
}
