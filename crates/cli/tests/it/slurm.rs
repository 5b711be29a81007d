//! `nodebench slurm`: the sbatch script of `submit --dry-run`, refusals of
//! bad flags, and on a real single-node cluster (scripts/slurm-cluster
//! start; scripts/test starts it) a short suite submitted with --nodes 1,
//! waited for, collected and found in the store with its node and job
//! tags. Without a cluster the cluster test says it is skipped, and fails
//! under CI.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::{TempStore, bin, json, one_line_error, stderr, stdout};

/// A suite of one short step, for a job that ends in seconds.
const SHORT_SUITE: &str = r#"name = "slurm-short"
description = "one short cpu.ops step"

[[step]]
bench = "cpu.ops"
duration = "20ms"
repeats = 2
warmup = 0
"#;

/// Whether a Slurm cluster answers here; `false` (after saying so) outside
/// CI when it does not.
fn cluster_ready(test: &str) -> bool {
    let up = Command::new("sinfo")
        .args(["--noheader", "--format=%T"])
        .output()
        .is_ok_and(|o| {
            o.status.success()
                && String::from_utf8_lossy(&o.stdout)
                    .lines()
                    // Up: idle, or busy with the other test's job (this
                    // file's tests run side by side on the one node).
                    .any(|l| {
                        ["idle", "mixed", "alloc", "comp"]
                            .iter()
                            .any(|s| l.starts_with(s))
                    })
        });
    if !up {
        nodebench_core::test_require::missing(
            test,
            nodebench_core::test_require::need::SLURM,
            "no Slurm cluster with a node up",
            "scripts/slurm-cluster start",
        );
    }
    up
}

#[test]
fn dry_run_prints_the_sbatch_script_and_submits_nothing() {
    let o = bin()
        .args([
            "slurm",
            "submit",
            "quick",
            "--nodes",
            "2",
            "--partition",
            "batch",
        ])
        .args(["--time", "30m", "--dir", "/shared/nb", "--dry-run"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    let script = stdout(&o);
    for line in [
        "#SBATCH --job-name=nodebench-quick",
        "#SBATCH --nodes=2",
        "#SBATCH --ntasks-per-node=1",
        "#SBATCH --exclusive",
        "#SBATCH --partition=batch",
        "#SBATCH --time=0-00:30:00",
        "#SBATCH --output=/shared/nb/slurm-%j.out",
        "out='/shared/nb'/\"$SLURM_JOB_ID\"",
    ] {
        assert!(
            script.lines().any(|l| l == line),
            "{line:?} missing:\n{script}"
        );
    }
    let exe = env!("CARGO_BIN_EXE_nodebench");
    let arch = std::env::consts::ARCH;
    assert!(
        script.contains(&format!("sh 'quick' \"$out\" '{arch}' '{exe}'")),
        "{script}"
    );
    assert!(!Path::new("/shared/nb").exists());

    let o = bin()
        .args([
            "slurm",
            "submit",
            "quick",
            "--nodes",
            "1",
            "--exclusive=false",
        ])
        .arg("--dry-run")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stdout(&o).contains("--exclusive"), "{}", stdout(&o));
    assert!(!stdout(&o).contains("--partition"), "{}", stdout(&o));

    // A bare --exclusive before the suite leaves the suite as the suite.
    let o = bin()
        .args(["slurm", "submit", "--nodes", "1", "--exclusive", "quick"])
        .arg("--dry-run")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).lines().any(|l| l == "#SBATCH --exclusive"),
        "{}",
        stdout(&o)
    );
    assert!(stdout(&o).contains("'quick'"), "{}", stdout(&o));
}

#[test]
fn bad_submissions_are_one_line_and_exit_2() {
    let submit = |args: &[&str]| {
        bin()
            .args(["slurm", "submit"])
            .args(args)
            .arg("--dry-run")
            .output()
            .unwrap()
    };
    one_line_error(&submit(&["quick", "--nodes", "0"]), 2, &["--nodes"]);
    one_line_error(
        &submit(&["quick", "--nodes", "1", "--partition", "a b"]),
        2,
        &["--partition: 'a b' is not a partition name"],
    );
    one_line_error(
        &submit(&["quick", "--nodes", "1", "--time", "10s"]),
        2,
        &["--time: expected at least 1 minute"],
    );
    one_line_error(
        &submit(&["no-such-suite", "--nodes", "1"]),
        2,
        &["no built-in suite or readable file 'no-such-suite'"],
    );
}

#[test]
fn collecting_a_job_without_its_directory_is_one_line() {
    if !cluster_ready("collecting_a_job_without_its_directory_is_one_line") {
        return;
    }
    let s = TempStore::new();
    let dir = tempfile::tempdir().unwrap();
    // A job id Slurm does not know: ended as far as collecting goes.
    let o = s.run(&[
        "slurm",
        "collect",
        "987654321",
        "--dir",
        dir.path().to_str().unwrap(),
    ]);
    one_line_error(&o, 1, &["987654321", "No such file or directory"]);
}

#[test]
fn a_suite_submitted_to_one_node_is_collected_into_the_store() {
    if !cluster_ready("a_suite_submitted_to_one_node_is_collected_into_the_store") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let suite = tmp.path().join("short.toml");
    std::fs::write(&suite, SHORT_SUITE).unwrap();
    let jobs = tmp.path().join("jobs");
    let jobs = jobs.to_str().unwrap();
    let submitted = json(
        &bin()
            .args(["--json", "slurm", "submit", suite.to_str().unwrap()])
            .args(["--nodes", "1", "--time", "5m", "--dir", jobs])
            .output()
            .unwrap(),
    );
    let job = submitted["job"].as_u64().unwrap().to_string();
    assert!(Path::new(jobs).join(&job).join("job.sbatch").exists());

    let s = TempStore::new();
    let o = s.run(&["slurm", "collect", &job, "--dir", jobs, "--wait", "180s"]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
    assert!(stdout(&o).contains("saved as run 1"), "{}", stdout(&o));

    let node = String::from_utf8(Command::new("hostname").arg("-s").output().unwrap().stdout)
        .unwrap()
        .trim()
        .to_string();
    let list = json(&s.run(&["runs", "list", "--json"]));
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 1, "{list:?}");
    let run = &list[0];
    assert_eq!(run["tags"]["node"], node.as_str());
    assert_eq!(run["tags"]["slurm_job"], job.as_str());
    assert_eq!(run["tags"]["suite"], "slurm-short");
    assert_eq!(run["status"], "complete");
    assert!(run["results"].as_u64().unwrap() >= 1, "{run}");
    assert_eq!(run["benchmarks"][0], "cpu.ops");

    // Collecting again saves nothing twice.
    let o = s.run(&["slurm", "collect", &job, "--dir", jobs]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("already collected as run 1"),
        "{}",
        stdout(&o)
    );
    assert_eq!(
        json(&s.run(&["runs", "list", "--json"]))
            .as_array()
            .unwrap()
            .len(),
        1
    );
}
