//! Two nodebench processes saving to one SQLite store at the same time:
//! both must succeed (busy timeout, immediate write transactions), and the
//! store must hold every run and result of both. The test re-executes its
//! own binary as the two writer processes, so the locking is real
//! process-to-process locking, as between two `nodebench` commands.

use std::path::Path;
use std::process::{Command, Stdio};

use nodebench_core::{BenchResult, Better, Metric, Run, RunStatus, Unit};
use nodebench_store::{SqliteStore, Store};

/// Set in a child process: the store path it writes to.
const STORE_VAR: &str = "NODEBENCH_TEST_WRITER_STORE";
/// Set in a child process: its writer number, used in the runs' tags.
const WRITER_VAR: &str = "NODEBENCH_TEST_WRITER_ID";

/// Runs each writer saves.
const RUNS: usize = 40;
/// Results per run, each committed on its own as `nodebench` does.
const RESULTS: usize = 5;

/// The body of one writer process: opens the store (migrating a fresh one
/// if it gets there first) and saves `RUNS` runs the way the recorder does:
/// begin, one commit per result, finish.
fn write_runs(path: &Path, writer: &str) {
    let mut store = SqliteStore::open(path).expect("open the shared store");
    for i in 0..RUNS {
        let run = Run::start(
            vec!["nodebench".into(), "run".into()],
            [("writer".to_string(), writer.to_string())].into(),
        );
        let id = store.begin_run(&run).expect("begin a run");
        for k in 0..RESULTS {
            let mut r = BenchResult::new("cpu.ops");
            r.set_param("run", i);
            r.metrics.push(
                Metric::new(
                    "rate",
                    (i * RESULTS + k) as f64,
                    Unit::OpsPerSecond,
                    Better::Higher,
                )
                .label("threads", k),
            );
            store.add_result(id, &r).expect("add a result");
        }
        store
            .finish_run(id, RunStatus::Complete, chrono::Utc::now())
            .expect("finish a run");
    }
}

/// Not a test of its own: the entry point of a child writer. It does
/// nothing when run by `cargo test` directly.
#[test]
fn writer_process() {
    if let (Ok(path), Ok(writer)) = (std::env::var(STORE_VAR), std::env::var(WRITER_VAR)) {
        write_runs(Path::new(&path), &writer);
    }
}

fn spawn_writer(path: &Path, writer: &str) -> std::process::Child {
    Command::new(std::env::current_exe().expect("test binary path"))
        .args([
            "--exact",
            "writer_process",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(STORE_VAR, path)
        .env(WRITER_VAR, writer)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start a writer process")
}

/// Starts both writers, waits, and checks both exited 0 and every run and
/// result of both is in the store.
fn two_writers_on(path: &Path) {
    let children = [spawn_writer(path, "a"), spawn_writer(path, "b")];
    for (child, name) in children.into_iter().zip(["a", "b"]) {
        let out = child.wait_with_output().expect("wait for a writer");
        assert!(
            out.status.success(),
            "writer {name} failed: {}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr)
        );
    }
    let store = SqliteStore::open(path).unwrap();
    let runs = store.list_runs().unwrap();
    assert_eq!(runs.len(), 2 * RUNS, "runs in the store");
    for writer in ["a", "b"] {
        let mine: Vec<_> = runs
            .iter()
            .filter(|r| r.tags.get("writer").map(String::as_str) == Some(writer))
            .collect();
        assert_eq!(mine.len(), RUNS, "runs of writer {writer}");
        for summary in mine {
            assert_eq!(summary.status, RunStatus::Complete);
            let run = store.load_run(summary.id).unwrap();
            assert_eq!(run.results.len(), RESULTS, "results of run {}", summary.id);
        }
    }
}

#[test]
fn two_processes_save_to_one_existing_store_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("results.db");
    // The store exists (as after a first nodebench run).
    drop(SqliteStore::open(&path).unwrap());
    two_writers_on(&path);
}

#[test]
fn two_processes_create_and_save_to_a_fresh_store_at_once() {
    let dir = tempfile::tempdir().unwrap();
    two_writers_on(&dir.path().join("sub").join("results.db"));
}
