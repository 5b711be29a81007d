//! `nodebench report RUN... -o FILE.html`: the page of a real quick-suite
//! run and of two runs side by side, loaded by a real headless Chromium
//! (DevTools protocol): no console errors, no requests, and the charts the
//! runs' results call for, with their series and axis titles. The refused
//! command lines exit 2 with one line.

use crate::common;
use crate::devtools;

use std::collections::BTreeSet;
use std::path::Path;

use common::{TempStore, json, one_line_error, stdout};
use serde_json::Value;

/// Every chart of the loaded page: kind, series count, caption, the text
/// drawn in its SVG and its drawn width.
const CHARTS: &str = "JSON.stringify(Array.from(document.querySelectorAll('figure.chart')).map(f => ({\
    kind: f.dataset.chart, series: Number(f.dataset.series),\
    caption: f.querySelector('figcaption').textContent,\
    texts: Array.from(f.querySelectorAll('svg text')).map(t => t.textContent.trim()),\
    width: f.querySelector('svg').getBoundingClientRect().width})))";

/// One chart as the page shows it.
#[derive(Debug)]
struct Shown {
    kind: String,
    series: u64,
    caption: String,
    texts: Vec<String>,
    width: f64,
}

impl Shown {
    fn has(&self, text: &str) -> bool {
        self.texts.iter().any(|t| t == text)
    }
}

/// The charts of `file`, loaded in Chromium, after checking it logged no
/// error and fetched nothing; None (said on stderr) without Chromium.
fn load(file: &Path) -> Option<Vec<Shown>> {
    let Some(chromium) = devtools::find_chromium() else {
        nodebench_core::test_require::missing(
            "report_html",
            nodebench_core::test_require::need::CHROMIUM,
            "chromium not found",
            "apt-get install chromium, or set NODEBENCH_CHROMIUM",
        );
        return None;
    };
    let mut browser = devtools::Browser::start(&chromium);
    let page = browser.load(file, CHARTS);
    assert!(page.console.is_empty(), "console: {:?}", page.console);
    assert!(page.requests.is_empty(), "requests: {:?}", page.requests);
    let charts: Value = serde_json::from_str(page.value.as_str().expect("a JSON string")).unwrap();
    let shown = charts
        .as_array()
        .unwrap()
        .iter()
        .map(|c| Shown {
            kind: c["kind"].as_str().unwrap().to_string(),
            series: c["series"].as_u64().unwrap(),
            caption: c["caption"].as_str().unwrap().to_string(),
            texts: c["texts"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t.as_str().unwrap().to_string())
                .collect(),
            width: c["width"].as_f64().unwrap(),
        })
        .collect();
    Some(shown)
}

/// The results of benchmark `id` in a `--json` run.
fn results<'a>(run: &'a Value, id: &'a str) -> impl Iterator<Item = &'a Value> + 'a {
    run["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(move |r| r["benchmark"] == id)
}

/// The distinct values of label `key` over metric `name` of benchmark `id`.
fn label_values(run: &Value, id: &str, name: &str, keys: &[&str]) -> BTreeSet<String> {
    results(run, id)
        .flat_map(|r| r["metrics"].as_array().unwrap().iter())
        .filter(|m| m["name"] == name)
        .map(|m| keys.iter().map(|k| m["labels"][*k].to_string()).collect())
        .collect()
}

/// The count of charts of each kind a quick-suite run calls for, from what
/// its results hold.
fn expected_kinds(run: &Value) -> Vec<(&'static str, usize)> {
    // Telemetry series (labelled source=telemetry) are not charted.
    let own = |x: &Value| x["labels"]["source"] != "telemetry";
    let with = |id: &str, field: &str| {
        results(run, id)
            .filter(|r| r[field].as_array().is_some_and(|a| a.iter().any(own)))
            .count()
    };
    let kernels = label_values(run, "cpu.ops", "rate", &["kernel"]).len();
    let stream =
        usize::from(!label_values(run, "memory.stream", "bandwidth", &["kernel"]).is_empty());
    vec![
        ("scaling", kernels + stream),
        ("linpack", usize::from(with("cpu.linpack", "metrics") > 0)),
        (
            "latency-staircase",
            usize::from(with("memory.latency", "metrics") > 0),
        ),
        (
            "percentiles",
            with("http.load", "histograms")
                + with("net.pingpong", "histograms")
                + with("disk.iozone", "histograms"),
        ),
        (
            "time-series",
            with("http.load", "series") + with("net.tcp", "series"),
        ),
    ]
}

fn of_kind<'a>(charts: &'a [Shown], kind: &str) -> Vec<&'a Shown> {
    charts.iter().filter(|c| c.kind == kind).collect()
}

/// The charts of one quick-suite run (`runs` = 1) or of two overlaid:
/// counts by kind, series per chart, axis titles and legends.
fn check_charts(charts: &[Shown], run: &Value, runs: u64) {
    for (kind, count) in expected_kinds(run) {
        assert_eq!(of_kind(charts, kind).len(), count, "{kind}: {charts:#?}");
    }
    for c in charts {
        assert!(c.width > 100.0, "{} not drawn", c.caption);
        assert!(c.has(&c.caption), "{}: no title in the SVG", c.caption);
        // Telemetry charts are one run's, under its result.
        assert!(c.series >= runs || c.kind == "telemetry", "{c:?}");
    }
    // Every result sampled twice or more has its CPU busy chart, a line per CPU.
    let sampled = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| {
            r["series"].as_array().is_some_and(|a| {
                a.iter().any(|s| {
                    s["name"] == "cpu_user" && s["points"].as_array().is_some_and(|p| p.len() >= 2)
                })
            })
        })
        .count();
    let busy: Vec<&Shown> = of_kind(charts, "telemetry")
        .into_iter()
        .filter(|c| c.caption.ends_with(": CPU busy"))
        .collect();
    assert!(sampled > 0, "no result with two telemetry samples");
    // (With two runs, the second's results were sampled on their own.)
    if runs == 1 {
        assert_eq!(busy.len(), sampled, "{busy:#?}");
    } else {
        assert!(busy.len() > sampled, "{busy:#?}");
    }
    for c in busy {
        assert!(
            c.has("busy (%)") && c.has("time (s)") && c.has("cpu0"),
            "{c:?}"
        );
    }
    // Thread scaling over a threads axis; figures at a single thread count
    // (the quick suite's STREAM) are bars, titled with that count.
    for c in of_kind(charts, "scaling") {
        assert!(c.has("threads") || c.caption.contains(" threads"), "{c:?}");
    }
    let ops = of_kind(charts, "scaling")
        .into_iter()
        .find(|c| c.caption.starts_with("cpu.ops"))
        .unwrap();
    assert_eq!(
        ops.series, runs,
        "one strong-scaling series per run: {ops:?}"
    );
    assert!(
        ops.texts
            .iter()
            .any(|t| t.starts_with("rate (G") || t.starts_with("rate (M"))
    );
    let stream = of_kind(charts, "scaling")
        .into_iter()
        .find(|c| c.caption.starts_with("memory.stream"))
        .unwrap();
    // One thread count: a group per kernel and stores, a bar per run.
    assert!(stream.caption.ends_with("at 2 threads"), "{stream:?}");
    assert_eq!(stream.series, runs, "{stream:?}");
    let passes: BTreeSet<String> = results(run, "memory.stream")
        .flat_map(|r| r["metrics"].as_array().unwrap().iter())
        .filter(|m| m["name"] == "bandwidth")
        .map(|m| {
            let l = |k: &str| m["labels"][k].as_str().unwrap_or_default().to_string();
            format!("{} {}", l("kernel"), l("stores"))
        })
        .collect();
    assert!(passes.len() >= 4, "{passes:?}");
    for pass in &passes {
        assert!(stream.has(pass), "{pass}: {stream:?}");
    }
    assert!(stream.has("bandwidth (MB/s)"), "{stream:?}");

    let linpack = of_kind(charts, "linpack")[0];
    assert_eq!(linpack.series, 2 * runs, "maximal and average per run");
    assert!(
        linpack.has("order N") && linpack.has("rate (GFLOPS)"),
        "{linpack:?}"
    );
    assert!(linpack.has("maximal") || linpack.texts.iter().any(|t| t.ends_with(": maximal")));

    let staircase = of_kind(charts, "latency-staircase")[0];
    assert!(
        staircase.has("working set (bytes, log scale)"),
        "{staircase:?}"
    );
    assert!(staircase.texts.iter().any(|t| t.starts_with("latency (")));
    let caches = run["inventory"]["cpu"]["caches"]
        .as_array()
        .map_or(0, Vec::len);
    if caches > 0 {
        assert!(
            staircase.texts.iter().any(|t| t.starts_with("L1d ")),
            "{staircase:?}"
        );
    }

    let loads: Vec<&Shown> = of_kind(charts, "percentiles")
        .into_iter()
        .filter(|c| c.caption.starts_with("http.load"))
        .collect();
    assert!(!loads.is_empty());
    for c in loads {
        assert_eq!(
            c.series,
            2 * runs,
            "corrected and uncorrected per run: {c:?}"
        );
        assert!(
            c.has("percentile (log scale of nines)") && c.has("99%"),
            "{c:?}"
        );
        let legend = |w: &str| {
            c.texts
                .iter()
                .any(|t| t == w || t.ends_with(&format!(": {w}")))
        };
        assert!(legend("corrected") && legend("uncorrected"), "{c:?}");
    }
    for c in of_kind(charts, "time-series") {
        assert!(c.has("time (s)"), "{c:?}");
    }
}

#[test]
fn the_report_of_quick_suite_runs_loads_in_chromium_with_every_chart() {
    let store = common::two_quick_runs();
    let run = json(&store.run(&["--json", "runs", "show", "1"]));
    let dir = tempfile::tempdir().unwrap();

    let single = dir.path().join("single.html");
    let out = store.run(&["report", "1", "-o", single.to_str().unwrap()]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert_eq!(stdout(&out).trim(), format!("wrote {}", single.display()));
    let html = std::fs::read_to_string(&single).unwrap();
    let total: usize = expected_kinds(&run).iter().map(|k| k.1).sum();
    // Each result's telemetry charts (CPU busy, disk, NIC) sit in its section.
    let telemetry = html.matches("data-chart=\"telemetry\"").count();
    let results_of_run = run["results"].as_array().unwrap().len();
    assert!(
        telemetry <= 3 * results_of_run,
        "{telemetry} telemetry charts"
    );
    assert_eq!(
        html.matches("<figure class=\"chart\"").count(),
        total + telemetry
    );
    assert_eq!(
        html.matches("<details class=\"telemetry\">").count(),
        results_of_run
    );
    assert!(html.contains("<h2 id=\"run-1\">run 1: config=a, suite=quick</h2>"));

    let pair = dir.path().join("pair.html");
    let out = store.run(&["-q", "report", "1", "latest", "-o", pair.to_str().unwrap()]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    assert!(stdout(&out).is_empty(), "-q prints nothing");

    let Some(charts) = load(&single) else {
        return;
    };
    check_charts(&charts, &run, 1);
    let charts = load(&pair).unwrap();
    check_charts(&charts, &run, 2);
    // The comparison's geometric means as grouped bars, a bar per run.
    let bars = of_kind(&charts, "comparison");
    assert_eq!(bars.len(), 1, "{charts:#?}");
    assert_eq!(bars[0].series, 2, "{:?}", bars[0]);
    for text in [
        "% of baseline",
        "area",
        "overall",
        "run 1: config=a",
        "latest (run 2): config=b",
    ] {
        assert!(bars[0].has(text), "{text}: {:?}", bars[0]);
    }
    assert_eq!(of_kind(&load(&single).unwrap(), "comparison").len(), 0);
    let ops = charts
        .iter()
        .find(|c| c.caption.starts_with("cpu.ops"))
        .unwrap();
    assert!(
        ops.has("config=a: strong") && ops.has("config=b: strong"),
        "{ops:?}"
    );

    // A path that cannot be written: one line naming it, exit 2.
    let bad = dir.path().join("missing-dir").join("r.html");
    let out = store.run(&["report", "1", "-o", bad.to_str().unwrap()]);
    one_line_error(&out, 2, &["--output", "missing-dir/r.html", "cannot write"]);
}

#[test]
fn refused_report_command_lines_exit_2_with_one_line() {
    let store = TempStore::new();
    let out = store.run(&["report", "1"]);
    one_line_error(&out, 2, &["--output"]);
    let out = store.run(&["report", "first", "-o", "r.html"]);
    one_line_error(
        &out,
        2,
        &["'first'", "expected a run id", "`latest`", "tag:KEY=VALUE"],
    );
    let out = store.run(&["report", "-o", "r.html"]);
    one_line_error(&out, 2, &["RUN"]);
    let file = store.store().with_file_name("r.html");
    let out = store.run(&["report", "latest", "-o", file.to_str().unwrap()]);
    one_line_error(&out, 2, &["report: latest", "the store holds no run"]);
    let out = store.run(&["report", "7", "-o", file.to_str().unwrap()]);
    one_line_error(&out, 2, &["report: 7", "no run with id 7", "runs list"]);
    let out = store.run(&["report", "tag:config=x", "-o", file.to_str().unwrap()]);
    one_line_error(
        &out,
        2,
        &["report: tag:config=x", "no stored run has the tag config=x"],
    );
    assert!(!file.exists(), "nothing written");
}
