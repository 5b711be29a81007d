//! `--repeat N|auto` through the binary: a `--repeat 3` run stores one
//! result with 3 repeats that `compare` takes as 3 samples (a verdict
//! where single runs say "one sample"), `--repeat auto` prints how many
//! repeats it took and the interval reached, and bad values exit 2 with
//! one line naming the flag.

use crate::common;

use common::{TempStore, find_metric, json, one_line_error, stderr, stdout};
use serde_json::Value;

/// A short `cpu ops` of one kernel at one thread count.
const OPS: [&str; 12] = [
    "cpu",
    "ops",
    "--threads",
    "1",
    "--duration",
    "10ms",
    "--repeats",
    "1",
    "--warmup",
    "0",
    "--kernels",
    "int.scalar",
];

/// `nodebench --store S -q --no-telemetry --json cpu ops ... EXTRA`: the run.
fn ops(t: &TempStore, extra: &[&str]) -> Value {
    let mut args = vec!["-q", "--no-telemetry", "--json"];
    args.extend(OPS);
    args.extend(extra);
    json(&t.run(&args))
}

/// The verdict of the `rate{threads=1}` row of `compare A B --json`.
fn verdict(t: &TempStore, a: &Value, b: &Value) -> (String, u64) {
    let ids = [a, b].map(|r| r["id"].as_i64().unwrap().to_string());
    let c = json(&t.run(&["compare", &ids[0], &ids[1], "--json"]));
    let row = c["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["metric"] == "rate" && r["labels"]["threads"] == "1")
        .unwrap_or_else(|| panic!("no rate row: {c}"));
    let cell = &row["cells"][1];
    (
        cell["verdict"].as_str().unwrap().to_string(),
        cell["n"].as_u64().unwrap(),
    )
}

#[test]
fn three_repeats_are_one_result_that_compare_gives_a_verdict_on() {
    let _alone = crate::ALONE.lock().unwrap_or_else(|e| e.into_inner());
    let t = TempStore::new();
    let once = [ops(&t, &[]), ops(&t, &[])];
    assert_eq!(verdict(&t, &once[0], &once[1]), ("one sample".into(), 1));

    let runs = [ops(&t, &["--repeat", "3"]), ops(&t, &["--repeat", "3"])];
    for run in &runs {
        let results = run["results"].as_array().unwrap();
        assert_eq!(results.len(), 1, "one result: {run}");
        let r = &results[0];
        assert_eq!(r["parameters"]["repeat"]["repeats"], 3);
        assert_eq!(r["parameters"]["repeat"]["stop"], "count");
        let rate = find_metric(r, "rate", &[("threads", "1")]);
        let values: Vec<f64> = rate["stats"]["values"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_f64().unwrap())
            .collect();
        assert_eq!(values.len(), 3, "{rate}");
        let mut sorted = values.clone();
        sorted.sort_by(f64::total_cmp);
        assert_eq!(rate["value"].as_f64().unwrap(), sorted[1], "the median");
        assert_eq!(rate["stats"]["n"], 3);
    }
    let (v, n) = verdict(&t, &runs[0], &runs[1]);
    assert_eq!(n, 3);
    assert!(
        ["faster", "slower", "no significant difference"].contains(&v.as_str()),
        "{v}"
    );
    // The stored run shows the repeats too.
    let id = runs[0]["id"].as_i64().unwrap().to_string();
    let shown = t.run(&["runs", "show", &id]);
    assert!(
        stdout(&shown).contains("repeats: 3 repeats (CI "),
        "{}",
        stdout(&shown)
    );
}

#[test]
fn auto_says_how_many_repeats_it_took_and_the_interval_reached() {
    let _alone = crate::ALONE.lock().unwrap_or_else(|e| e.into_inner());
    let t = TempStore::new();
    let mut args = vec!["-q", "--no-telemetry"];
    args.extend(OPS);
    args.extend([
        "--repeat",
        "auto",
        "--max-repeats",
        "5",
        "--target-ci",
        "0.5%",
    ]);
    let out = t.run(&args);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let line = text
        .lines()
        .find(|l| l.starts_with("repeats: "))
        .unwrap_or_else(|| panic!("no repeats line: {text}"));
    // The headline names the best cell whole: its kernel, scaling and
    // threads (at one thread the strong and weak cells are alike, and
    // either may be the best).
    let converged = line.starts_with("repeats: converged after ")
        && ["weak", "strong"].iter().any(|s| {
            line.contains(&format!(
                "target 0.5 %; headline rate{{kernel=int.scalar,scaling={s},threads=1}})"
            ))
        });
    let not = line.starts_with("repeats: did not converge (CI ")
        && line.contains(" after 5 repeats; target 0.5 %, --max-repeats 5 reached");
    assert!(converged || not, "{line}");
    assert!(line.contains("outliers kept: "), "{line}");
}

#[test]
fn bad_repeat_flags_exit_2_with_one_line_naming_the_flag() {
    let _alone = crate::ALONE.lock().unwrap_or_else(|e| e.into_inner());
    for (args, flag) in [
        (&["--repeat", "0"][..], "--repeat"),
        (&["--repeat", "often"][..], "--repeat"),
        (&["--target-ci", "2"][..], "--target-ci"),
        (&["--target-ci", "0%"][..], "--target-ci"),
        (&["--min-repeats", "1"][..], "--min-repeats"),
        (&["--max-repeats", "2"][..], "--max-repeats"),
        (&["--max-time", "0s"][..], "--max-time"),
    ] {
        let mut all: Vec<&str> = OPS.to_vec();
        all.extend(args);
        one_line_error(&common::run(&all), 2, &[flag]);
    }
}
