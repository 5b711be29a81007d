//! `nodebench import`: the seeds' tool outputs import as runs tagged with
//! their source, `runs show` prints their figures, and a truncated,
//! foreign or unreadable file is refused with one line naming it, exit 2
//! and nothing saved, even next to good files.

use crate::common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use common::{TempStore, json, metric, one_line_error, stdout};

/// A fixture of the import crate's tests.
fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../import/tests/fixtures")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// The runs in the store, as `runs list --json` gives them.
fn listed(s: &TempStore) -> Vec<serde_json::Value> {
    json(&s.run(&["runs", "list", "--json"]))
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn the_seeds_outputs_import_as_runs_tagged_with_their_source() {
    let s = TempStore::new();
    let files = [
        ("ab-seed000.txt", "ab", 1),
        ("httperf-seed000.txt", "httperf", 1),
        ("stream-seed000.txt", "stream", 1),
        ("iozone-seed000.txt", "iozone", 1),
        ("iozone-seed002.txt", "iozone", 1),
        ("dd-seed001.txt", "dd", 3),
    ];
    let paths: Vec<String> = files.iter().map(|f| fixture(f.0)).collect();
    let mut args = vec!["import", "--tag", "host=old"];
    args.extend(paths.iter().map(String::as_str));
    let o = s.run(&args);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), files.len(), "{out}");
    for (k, ((_, format, n), path)) in files.iter().zip(&paths).enumerate() {
        assert_eq!(
            lines[k],
            format!("{path}: {format}, {n} results, saved as run {}", k + 1)
        );
    }
    let runs = listed(&s);
    assert_eq!(runs.len(), files.len());
    // Newest first.
    for (run, (_, format, n)) in runs.iter().rev().zip(files) {
        assert_eq!(run["tags"]["source"], format);
        assert_eq!(run["tags"]["host"], "old");
        assert_eq!(run["status"], "complete");
        assert_eq!(run["results"], n);
    }
}

#[test]
fn an_imported_run_is_stored_exactly_and_shown_with_its_figures() {
    let s = TempStore::new();
    let o = s.run(&["import", &fixture("ab-seed000.txt")]);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let shown = stdout(&s.run(&["runs", "show", "1"]));
    assert!(shown.contains("Requests per second:    1980.20"), "{shown}");
    assert!(shown.contains("Transfer rate:          8091.80"), "{shown}");
    assert!(shown.contains("source=ab"), "{shown}");
    let run = json(&s.run(&["runs", "show", "1", "--json"]));
    let result = &run["results"][0];
    assert_eq!(result["benchmark"], "http.load");
    assert_eq!(metric(result, "requests_per_second", &[]), 1980.20);
    assert_eq!(metric(result, "served_within", &[("percent", "99")]), 3.663);
    assert_eq!(run["command_line"][0], "import");
    // --json prints the runs as saved, ids set.
    let o = s.run(&["import", "--json", &fixture("stream-ref-local.txt")]);
    let runs = json(&o);
    assert_eq!(runs[0]["id"], 2);
    let stream = &runs[0]["results"][0];
    assert_eq!(
        metric(stream, "bandwidth", &[("kernel", "triad")]),
        2720.6e6
    );
    let stored = json(&s.run(&["runs", "show", "2", "--json"]));
    assert_eq!(stored["results"], runs[0]["results"]);
}

#[test]
fn a_truncated_file_is_refused_and_nothing_saved() {
    let s = TempStore::new();
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(fixture("ab-local.txt")).unwrap();
    let cut = dir.path().join("ab-cut.txt");
    std::fs::write(&cut, &text[..text.find(" 100%").unwrap()]).unwrap();
    let cut = cut.to_string_lossy().into_owned();
    let o = s.run(&["import", &fixture("stream-seed000.txt"), &cut]);
    one_line_error(
        &o,
        2,
        &[&format!("{cut}: not a complete ab output"), "`100%`"],
    );
    assert!(stdout(&o).is_empty());
    assert!(listed(&s).is_empty());
}

#[test]
fn a_foreign_or_unreadable_file_is_refused_and_nothing_saved() {
    let s = TempStore::new();
    let ab = fixture("ab-local.txt");
    let o = s.run(&["import", "--format", "iozone", &ab]);
    one_line_error(&o, 2, &[&format!("{ab}: not a complete iozone output")]);
    let readme = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("Cargo.toml")
        .to_string_lossy()
        .into_owned();
    let o = s.run(&["import", &ab, &readme]);
    one_line_error(
        &o,
        2,
        &[
            &format!("{readme}: not a recognised tool output"),
            "--format",
        ],
    );
    let o = s.run(&["import", "/nonexistent/ab.txt"]);
    one_line_error(&o, 2, &["/nonexistent/ab.txt: cannot read"]);
    assert!(listed(&s).is_empty());
}

#[test]
fn an_unknown_format_name_lists_the_accepted_ones() {
    let s = TempStore::new();
    let o = s.run(&["import", "--format", "jmeter", &fixture("ab-local.txt")]);
    one_line_error(&o, 2, &["--format", "jmeter", "ab", "httperf", "iozone"]);
    assert!(listed(&s).is_empty());
}

/// The numbers of `text` as written (`0.5`, `20000`, `123.215.230.161`).
fn numbers(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .map(|t| t.trim_matches('.'))
        .filter(|t| t.starts_with(|c: char| c.is_ascii_digit()))
        .map(str::to_string)
        .collect()
}

/// The figures a report prints: its numbers ([`numbers`]) but the digits
/// of a name (`p99.9`, `f64`, `SingleDGEMM_Gflops`, `net.tcp`'s words): a
/// number glued after a letter or `_` is part of a word.
fn figures(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut named = false;
    let mut before = ' ';
    for c in text.chars().chain([' ']) {
        if c.is_ascii_digit() || c == '.' {
            if word.is_empty() {
                named = before.is_alphabetic() || before == '_';
            }
            word.push(c);
        } else {
            let t = word.trim_matches('.');
            if !named && t.starts_with(|c: char| c.is_ascii_digit()) {
                out.push(t.to_string());
            }
            word.clear();
        }
        before = c;
    }
    out
}

/// Imports fixture `name` into a fresh store and walks every figure that
/// `runs show` prints for it (after the run's own header line: its id and
/// date) back to the source: each number is one the source wrote, as it
/// wrote it, unless its line says the figure is derived; no line is left
/// without its figure. Returns the printed report.
fn every_printed_figure_is_the_sources(name: &str) -> String {
    let (s, path) = imported(name);
    let shown = stdout(&s.run(&["runs", "show", "1"]));
    let report = shown
        .split_once('\n')
        .map_or(String::new(), |(_, rest)| rest.to_string());
    if let Err(e) = walk(&path, &report) {
        panic!("{e}");
    }
    report
}

/// A fresh store holding fixture `name` imported as run 1, and its path.
fn imported(name: &str) -> (TempStore, String) {
    let s = TempStore::new();
    let path = fixture(name);
    let out = s.run(&["import", &path]);
    assert!(out.status.success(), "{}", common::stderr(&out));
    (s, path)
}

/// Every number of `report` is one the source at `path` wrote, as it wrote
/// it, unless its line says the figure is derived; no line ends blank
/// after its colon; some figure is printed at all.
fn walk(path: &str, report: &str) -> Result<(), String> {
    let source = std::fs::read_to_string(path).unwrap();
    if !report.lines().any(|l| !figures(l).is_empty()) {
        return Err(format!("no figure printed for {path}:\n{report}"));
    }
    let mut written: std::collections::BTreeSet<String> = numbers(&source).into_iter().collect();
    // A number with the source's trailing zeros dropped names the same
    // figure (fio's percentile `99.950000` labels its row `99.95`, wrk2's
    // `99.990%` row is the 99.99th percentile); a form the source did not
    // write (`3.050` for `3.05`, `897.0` for `897`) is not.
    let trimmed: Vec<String> = written
        .iter()
        .filter(|n| n.contains('.'))
        .map(|n| n.trim_end_matches('0').trim_end_matches('.').to_string())
        .collect();
    written.extend(trimmed);
    for line in report.lines() {
        if line.contains("derived") {
            continue;
        }
        if let Some(n) = figures(line).into_iter().find(|n| !written.contains(n)) {
            return Err(format!(
                "{n} in {line:?} is not a figure of {path}:\n{report}"
            ));
        }
        if line.trim_end().ends_with(':') {
            return Err(format!("blank {line:?} in\n{report}"));
        }
    }
    Ok(())
}

/// The fixtures of the import crate (every tool output it holds, the
/// refused ones aside), by name.
fn all_fixtures() -> Vec<String> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../import/tests/fixtures");
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .filter(|n| n != "README.md")
        .collect();
    names.sort();
    names
}

/// Every fixture of every format, imported and shown: each figure `runs
/// show` prints is the source's as written, or on a line saying it is
/// derived. One failure list names every fixture that prints another
/// figure.
#[test]
fn every_format_prints_only_figures_its_source_printed() {
    let names = all_fixtures();
    let formats: std::collections::BTreeSet<&str> = names
        .iter()
        .map(|n| n.split(['-', '.']).next().unwrap())
        .collect();
    assert_eq!(
        formats.into_iter().collect::<Vec<_>>(),
        [
            "ab", "dd", "fio", "hpcc", "hpl", "httperf", "iozone", "iperf", "iperf3", "linpack",
            "stream", "sysbench", "wrk"
        ]
    );
    let failed: Vec<String> = names
        .iter()
        .filter_map(|name| {
            let (s, path) = imported(name);
            let shown = stdout(&s.run(&["runs", "show", "1"]));
            let report = shown.split_once('\n').map_or("", |(_, rest)| rest);
            walk(&path, report).err()
        })
        .collect();
    assert!(failed.is_empty(), "{}", failed.join("\n\n"));
}

/// The CSV export of an imported run: every metric's row carries the
/// figure as the source printed it (`printed`, `printed_unit`), each a
/// figure and a unit of the source's text; `value` stays in nodebench's
/// canonical unit, the one compare matches on.
fn csv_rows_carry_the_sources_figures(name: &str) -> Vec<BTreeMap<String, String>> {
    let (s, path) = imported(name);
    let source = std::fs::read_to_string(&path).unwrap();
    let written: std::collections::BTreeSet<String> = numbers(&source).into_iter().collect();
    let csv = stdout(&s.run(&["runs", "export", "1", "--format", "csv"]));
    let mut r = csv::Reader::from_reader(csv.as_bytes());
    let header = r.headers().unwrap().clone();
    let rows: Vec<BTreeMap<String, String>> = r
        .records()
        .map(|x| {
            let x = x.unwrap();
            header
                .iter()
                .zip(x.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect();
    assert!(!rows.is_empty(), "{csv}");
    for row in &rows {
        let text = &row["printed"];
        assert!(
            numbers(text) == [text.to_string()] && written.contains(text),
            "{text:?} is not a figure of {path}: {row:?}"
        );
        assert!(source.contains(&row["printed_unit"]), "{row:?}");
    }
    rows
}

#[test]
fn an_imported_runs_csv_carries_each_figure_as_printed() {
    let rows = csv_rows_carry_the_sources_figures("wrk-local.txt");
    let row = |rows: &[BTreeMap<String, String>], metric: &str, label: &str| {
        rows.iter()
            .find(|r| r["metric"] == metric && r["labels"].contains(label))
            .unwrap_or_else(|| panic!("no {metric} {label} in {rows:?}"))
            .clone()
    };
    let time = row(&rows, "time_taken", "");
    assert_eq!(
        [
            &time["value"],
            &time["unit"],
            &time["printed"],
            &time["printed_unit"]
        ],
        ["3.05", "s", "3.05", "s"]
    );
    // Stored in bytes (compare's unit), printed as wrk wrote it.
    let read = row(&rows, "total_transferred", "");
    assert_eq!(read["unit"], "B");
    let bytes: f64 = read["value"].parse().unwrap();
    assert!((bytes - 2.46 * 1048576.0).abs() < 1e-3, "{read:?}");
    assert_eq!([&read["printed"], &read["printed_unit"]], ["2.46", "MB"]);
    let stream = csv_rows_carry_the_sources_figures("stream-ref-local.txt");
    assert_eq!(stream.len(), 16);
    let triad = row(&stream, "bandwidth", "kernel=triad");
    assert_eq!(
        [
            &triad["value"],
            &triad["unit"],
            &triad["printed"],
            &triad["printed_unit"]
        ],
        ["2720600000", "B/s", "2720.6", "MB/s"]
    );
    let rate = row(
        &csv_rows_carry_the_sources_figures("iperf3-tcp.txt"),
        "throughput",
        "side=receiver",
    );
    assert_eq!(rate["unit"], "B/s");
    assert_eq!(rate["printed_unit"], "Gbits/sec");
}

/// The text of the HTML report's result tables and tool-format blocks
/// (`<table>`, `<pre>`), tags stripped, entities read back; the table of
/// the runs themselves (ids, dates, nodebench's version, the command) is
/// nodebench's record of the import, not a figure of the source.
fn html_text(html: &str) -> String {
    let mut out = String::new();
    for (open, close) in [("<table", "</table>"), ("<pre", "</pre>")] {
        let mut rest = html;
        while let Some(i) = rest.find(open) {
            let block = &rest[i..];
            let end = block.find(close).unwrap();
            if block[..end].contains("started (UTC)") {
                rest = &block[end..];
                continue;
            }
            let mut inside = false;
            for c in block[..end].chars() {
                match c {
                    '<' => inside = true,
                    '>' => {
                        inside = false;
                        out.push(' ');
                    }
                    c if !inside => out.push(c),
                    _ => {}
                }
            }
            out.push('\n');
            rest = &block[end..];
        }
    }
    out.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

#[test]
fn an_imported_runs_html_report_prints_only_the_sources_figures() {
    for name in ["stream-ref-local.txt", "wrk-local.txt", "sysbench-oltp.txt"] {
        let (s, path) = imported(name);
        let dir = tempfile::tempdir().unwrap();
        let page = dir.path().join("r.html");
        let o = s.run(&["report", "1", "-o", page.to_str().unwrap()]);
        assert!(o.status.success(), "{}", common::stderr(&o));
        let text = html_text(&std::fs::read_to_string(&page).unwrap());
        if let Err(e) = walk(&path, &text) {
            panic!("{e}");
        }
    }
}

#[test]
fn an_imported_httperf_run_prints_only_figures_httperf_printed() {
    let report = every_printed_figure_is_the_sources("httperf-seed000.txt");
    for absent in [
        "Total transferred",
        "HTML transferred",
        "Sent late",
        "Server Software",
        "Document Length",
        "Concurrency Level",
        "Percentage of the requests served",
        "http=",
        "keepalive=",
    ] {
        assert!(!report.contains(absent), "{absent} in\n{report}");
    }
    // httperf's connection times as it printed them: the 0.5 ms median is not 0.
    assert!(
        report.contains("Total:        0.8   1.4   2.4    0.5    25.1"),
        "{report}"
    );
    for line in [
        "Complete requests:      20000",
        "Reply rate [replies/s]: min 999.9 avg 1000.0 max 1000.3 stddev 0.2 (3 samples)",
        "Reply status: 1xx=0 2xx=0 3xx=0 4xx=20000 5xx=0",
        "CPU time [s]: user 2.11 system 17.89 (total 100.0%)",
        "Net I/O: 4151.6 KB/s (34.0*10^6 bps)",
    ] {
        assert!(report.contains(line), "{line:?} missing in\n{report}");
    }
}

#[test]
fn an_imported_hpl_run_prints_hpl_rows_as_hpl_printed_them() {
    let report = every_printed_figure_is_the_sources("hpl-hpcc-np1.txt");
    let rows: Vec<Vec<&str>> = report
        .lines()
        .filter(|l| l.starts_with("WR"))
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        rows,
        [
            ["WR11C2R4", "1000", "80", "1", "1", "0.18", "3.797e+00"],
            ["WR11C2R4", "1200", "80", "1", "1", "0.45", "2.549e+00"]
        ],
        "{report}"
    );
    let checks: Vec<&str> = report
        .lines()
        .filter(|l| l.starts_with("||Ax-b||"))
        .collect();
    assert_eq!(checks.len(), 2, "{report}");
    assert!(checks[0].ends_with("0.0071960 ...... PASSED"), "{report}");
    // No column HPL does not print (LDA, alignment, absolute residual).
    for absent in ["LDA", "Align.", "Performance Summary"] {
        assert!(!report.contains(absent), "{absent} in\n{report}");
    }
}

#[test]
fn an_imported_ab_run_prints_only_figures_ab_printed() {
    let report = every_printed_figure_is_the_sources("ab-local.txt");
    // ab's served-within times as ab wrote them: whole ms.
    for line in ["  50%      3", " 100%   1030 (longest request)"] {
        assert!(report.contains(line), "{line:?} missing in\n{report}");
    }
}

#[test]
fn an_imported_iozone_run_prints_only_figures_iozone_printed() {
    every_printed_figure_is_the_sources("iozone-seed000.txt");
}

#[test]
fn an_imported_intel_linpack_run_prints_only_figures_linpack_printed() {
    let report = every_printed_figure_is_the_sources("linpack-seed002-relaid.txt");
    // nodebench's note on how it counts flop is not Intel's.
    assert!(!report.contains("GFlops count"), "{report}");
    assert!(report.contains("Performance Summary (GFlops)"), "{report}");
}
