//! `disk blocks --steady-state` through the binary: the SNIA PTS rounds are
//! stored (one `round_iops` per cell and round), the verdict agrees with
//! the stored rounds, the page-cache warning is printed, and no file is
//! left in the directory.

use crate::common;

use std::path::Path;

use nodebench_core::names::disk::{label, metric, param};
use nodebench_disk::steady;
use serde_json::Value;

use common::{TempStore, json, one_line_error, stderr, stdout};

fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

/// The `round_iops` of one cell, by round, from a stored result.
fn rounds_of(result: &Value, op: &str) -> Vec<(u64, f64)> {
    let mut v: Vec<(u64, f64)> = result["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["name"] == metric::ROUND_IOPS && m["labels"][label::OP] == op)
        .map(|m| {
            let round = m["labels"][label::ROUND].as_str().unwrap().parse().unwrap();
            (round, m["value"].as_f64().unwrap())
        })
        .collect();
    v.sort_by_key(|(r, _)| *r);
    v
}

#[test]
fn blocks_steady_state_stores_its_rounds_and_verdict_and_leaves_no_file() {
    let t = TempStore::new();
    let d = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let dir = d.path().to_str().unwrap();
    let max_rounds = 8;
    let out = t.run(&[
        "disk",
        "blocks",
        "--dir",
        dir,
        "--block-sizes",
        "4k",
        "--threads",
        "1",
        "--ops",
        "rand_read,read_write",
        "--total",
        "256KiB",
        "--cell-time",
        "50ms",
        "--steady-state",
        "--max-rounds",
        &max_rounds.to_string(),
        "--quiet",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("page cache: the test files (256 KiB) are smaller than twice the RAM"),
        "{text}"
    );
    assert!(leftovers(d.path()).is_empty(), "{:?}", leftovers(d.path()));

    let run = json(&t.run(&["runs", "show", "1", "--json"]));
    let r = &run["results"][0];
    assert_eq!(r["status"], "passed", "{r}");
    assert_eq!(r["parameters"][param::STEADY_STATE], true);
    assert_eq!(r["parameters"][param::MAX_ROUNDS], max_rounds);
    let rounds = r["parameters"][param::ROUNDS].as_u64().unwrap();
    assert!(
        (steady::WINDOW as u64..=max_rounds).contains(&rounds),
        "{rounds}"
    );
    let reached = r["parameters"][param::STEADY_STATE_REACHED]
        .as_bool()
        .unwrap();
    // Every round of every cell is stored, numbered 1..rounds.
    let mut steady_by_round = vec![true; rounds as usize + 1];
    for op in ["rand_read", "read_write"] {
        let series = rounds_of(r, op);
        assert_eq!(
            series.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
            (1..=rounds).collect::<Vec<_>>(),
            "{op}"
        );
        assert!(series.iter().all(|(_, v)| *v > 0.0), "{op}: {series:?}");
        let values: Vec<f64> = series.iter().map(|(_, v)| *v).collect();
        for n in 1..=rounds as usize {
            steady_by_round[n] &= steady::check_window(&values[..n]).is_some_and(|c| c.steady());
        }
    }
    // The verdict is the stored rounds': steady at the last round and at no
    // earlier one, or not steady after --max-rounds with a warning.
    assert_eq!(reached, steady_by_round[rounds as usize]);
    assert!(!steady_by_round[1..rounds as usize].contains(&true));
    let warned = r["warnings"].as_array().is_some_and(|w| {
        w.iter().any(|w| {
            w.as_str()
                .unwrap()
                .starts_with("steady state not reached in 8 rounds")
        })
    });
    if reached {
        assert_eq!(r["parameters"][param::STEADY_STATE_ROUND], rounds);
        assert!(!warned);
    } else {
        assert_eq!(rounds, max_rounds);
        assert!(warned, "{r}");
    }
}

#[test]
fn steady_state_flags_are_checked_before_anything_runs() {
    let d = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let dir = d.path().to_str().unwrap();
    let t = TempStore::new();
    let out = t.run(&[
        "disk",
        "blocks",
        "--dir",
        dir,
        "--steady-state",
        "--max-rounds",
        "4",
    ]);
    one_line_error(
        &out,
        2,
        &["--max-rounds: expected at least 5 (the steady-state window), got 4"],
    );
    let out = t.run(&["disk", "iozone", "--dir", dir, "-a", "--steady-state"]);
    one_line_error(
        &out,
        2,
        &["--steady-state: runs one --file-size and --record-size, not --auto"],
    );
    let out = t.run(&["disk", "blocks", "--dir", dir, "--max-rounds", "9"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("--steady-state"), "{}", stderr(&out));
    assert!(!t.store().exists(), "nothing stored");
    assert!(leftovers(d.path()).is_empty());
}
