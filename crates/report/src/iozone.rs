//! `disk.iozone` results printed the way IOzone prints them: its header lines,
//! the six-line blocks of throughput mode (`-t`), the `kB reclen write ...`
//! table of a single run and the matrix of auto mode (`-a`).
//!
//! Figures are taken from the result's metrics only (never recomputed) and
//! shown in IOzone's units: kB = 1024 bytes, rates in kB/sec. A missing
//! metric prints as a blank field.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use nodebench_core::names::disk::{label, metric, param, test};
use nodebench_core::{BenchResult, Metric};

use crate::format;

/// IOzone's kilobyte.
const KB: f64 = 1024.0;

/// Width IOzone pads a throughput label to (after its leading tab), so that
/// every `=` lands in column 56 of a terminal with 8-column tabs.
const LABEL_WIDTH: usize = 47;

/// What IOzone calls one test and where it puts it in its table.
struct TestInfo {
    /// nodebench test id (`random_read`).
    id: &'static str,
    /// Throughput-mode name (`random readers`).
    name: &'static str,
    /// Whether IOzone prints the worker count with `%2d` (else `%d`).
    pad_count: bool,
    /// Upper line of the table heading (`random`), may be empty.
    top: &'static str,
    /// Lower line of the table heading (`read`).
    bottom: &'static str,
    /// Column width of the table (IOzone's value width).
    width: usize,
}

const fn t(
    id: &'static str,
    name: &'static str,
    pad_count: bool,
    top: &'static str,
    bottom: &'static str,
    width: usize,
) -> TestInfo {
    TestInfo {
        id,
        name,
        pad_count,
        top,
        bottom,
        width,
    }
}

/// Every test, in IOzone's table column order.
const TESTS: [TestInfo; 16] = [
    t(test::WRITE, "initial writers", true, "", "write", 9),
    t(test::REWRITE, "rewriters", true, "", "rewrite", 9),
    t(test::READ, "readers", true, "", "read", 9),
    t(test::REREAD, "re-readers", false, "", "reread", 9),
    t(
        test::RANDOM_READ,
        "random readers",
        false,
        "random",
        "read",
        9,
    ),
    t(
        test::RANDOM_WRITE,
        "random writers",
        false,
        "random",
        "write",
        9,
    ),
    t(
        test::BACKWARD_READ,
        "reverse readers",
        false,
        "bkwd",
        "read",
        9,
    ),
    t(
        test::RECORD_REWRITE,
        "record rewriters",
        false,
        "record",
        "rewrite",
        10,
    ),
    t(
        test::STRIDE_READ,
        "stride readers",
        false,
        "stride",
        "read",
        10,
    ),
    t(test::FWRITE, "fwriters", true, "", "fwrite", 9),
    t(test::FREWRITE, "re-fwriters", false, "", "frewrite", 9),
    t(test::FREAD, "freaders", true, "", "fread", 9),
    t(test::FREREAD, "re-freaders", false, "", "freread", 9),
    t(test::PWRITE, "pwrite writers", false, "", "pwrite", 9),
    t(test::PREAD, "pread readers", false, "", "pread", 9),
    t(
        test::MIXED,
        "mixed workload",
        false,
        "mixed",
        "workload",
        10,
    ),
];

/// The latency metrics of the nodebench latency table, with their headings.
const LATENCIES: [(&str, &str); 5] = [
    (metric::LATENCY_P50, "p50"),
    (metric::LATENCY_P90, "p90"),
    (metric::LATENCY_P99, "p99"),
    (metric::LATENCY_P999, "p99.9"),
    (metric::LATENCY_MAX, "max"),
];

fn info(test: &str) -> Option<&'static TestInfo> {
    TESTS.iter().find(|i| i.id == test)
}

fn param_u64(result: &BenchResult, key: &str) -> Option<u64> {
    let v = result.param(key)?;
    v.as_u64()
        .or_else(|| v.as_f64().filter(|f| *f >= 0.0).map(|f| f.round() as u64))
}

fn param_bool(result: &BenchResult, key: &str) -> bool {
    result
        .param(key)
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false)
}

fn param_str<'a>(result: &'a BenchResult, key: &str) -> Option<&'a str> {
    result.param(key)?.as_str()
}

/// The test ids of `parameters.tests`, in run order.
fn param_tests(result: &BenchResult) -> Vec<&str> {
    result
        .param(param::TESTS)
        .and_then(serde_json::Value::as_array)
        .map(|a| a.iter().filter_map(serde_json::Value::as_str).collect())
        .unwrap_or_default()
}

/// A numeric label (bytes or a count written as a string).
fn label_u64(m: &Metric, key: &str) -> Option<u64> {
    let s = m.label_value(key)?;
    s.parse().ok().or_else(|| {
        s.parse::<f64>()
            .ok()
            .filter(|f| *f >= 0.0 && f.is_finite())
            .map(|f| f.round() as u64)
    })
}

/// One line of IOzone's table: a file size and a record size, in bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Row {
    file_size: u64,
    record: u64,
}

/// The value of metric `name` for `test` (and, when given, the row's file
/// size and record; a metric without such a label matches any). Non-finite
/// values count as missing.
fn value(result: &BenchResult, name: &str, test: &str, row: Option<Row>) -> Option<f64> {
    result
        .metrics_named(name)
        .find(|m| {
            m.has_labels(&[(label::TEST, test)])
                && row.is_none_or(|r| {
                    label_u64(m, label::FILE_SIZE).is_none_or(|f| f == r.file_size)
                        && label_u64(m, label::RECORD).is_none_or(|x| x == r.record)
                })
        })
        .map(|m| m.value)
        .filter(|v| v.is_finite())
}

/// The worker count of `test`: its metric label, else the parameter, else 1.
fn workers(result: &BenchResult, test: &str) -> u64 {
    result
        .metrics
        .iter()
        .filter(|m| m.has_labels(&[(label::TEST, test)]))
        .find_map(|m| label_u64(m, label::WORKERS))
        .or_else(|| param_u64(result, param::WORKERS))
        .unwrap_or(1)
}

/// IOzone-like header lines (each starting with a tab, ending with a newline)
/// for the options the result ran with, plus nodebench's engine line.
pub fn header(result: &BenchResult) -> String {
    let mut out = String::new();
    let auto = param_bool(result, param::AUTO);
    let throughput = param_bool(result, param::THROUGHPUT_MODE);
    let file_kb = param_u64(result, param::FILE_SIZE).map(|b| b / 1024);
    let record_kb = param_u64(result, param::RECORD_SIZE).map(|b| b / 1024);
    let mut line = |s: String| {
        out.push('\t');
        out.push_str(&s);
        out.push('\n');
    };
    if auto {
        line("Auto Mode".into());
    } else {
        if let Some(kb) = file_kb {
            line(format!("File size set to {kb} kB"));
        }
        if let Some(kb) = record_kb {
            line(format!("Record Size {kb} kB"));
        }
    }
    for (key, text) in [
        (param::PURGE, "Purge Mode On"),
        (param::FSYNC_IN_TIMING, "Include fsync in write timing"),
        (param::O_SYNC, "SYNC Mode."),
        (param::DIRECT, "O_DIRECT feature enabled"),
    ] {
        if param_bool(result, key) {
            line(text.into());
        }
    }
    if let Some(engine) = param_str(result, param::ENGINE) {
        match param_u64(result, param::IODEPTH) {
            Some(d) => line(format!("I/O engine {engine}, queue depth {d}")),
            None => line(format!("I/O engine {engine}")),
        }
    }
    line("Output is in kBytes/sec".into());
    if let Some(s) = param_u64(result, param::STRIDE_RECORDS) {
        line(format!("File stride size set to {s} * record size."));
    }
    if throughput {
        let n = param_u64(result, param::WORKERS).unwrap_or(1);
        let port = if n == 1 { "process" } else { "processes" };
        line(format!("Throughput test with {n} {port}"));
        if let (Some(f), Some(r)) = (file_kb, record_kb) {
            line(format!(
                "Each process writes a {f} kByte file in {r} kByte records"
            ));
        }
    }
    out
}

/// Tests in `parameters.tests` order, then any other test a metric names.
fn tests_in_run_order(result: &BenchResult) -> Vec<&str> {
    let mut tests = param_tests(result);
    for m in &result.metrics {
        if let Some(t) = m.label_value(label::TEST)
            && !tests.contains(&t)
        {
            tests.push(t);
        }
    }
    tests
}

/// One `label = value` line of a throughput block, `=` aligned as IOzone's.
fn throughput_line(out: &mut String, label: &str, value: Option<String>) {
    let line = format!("\t{label:<LABEL_WIDTH$} = {}", value.unwrap_or_default());
    let _ = writeln!(out, "{}", line.trim_end());
}

/// IOzone's throughput-mode (`-t`) blocks: for each test of
/// `parameters.tests` with a `children_see` metric, the six lines
/// `Children see` .. `Min xfer` in kB/sec (kB for `Min xfer`), then a blank
/// line.
pub fn throughput_report(result: &BenchResult) -> String {
    let mut out = String::new();
    for test in tests_in_run_order(result) {
        if value(result, metric::CHILDREN_SEE, test, None).is_none() {
            continue;
        }
        let info = info(test);
        let name = info.map_or(test, |i| i.name);
        let n = workers(result, test);
        let count = if info.is_some_and(|i| i.pad_count) {
            format!("{n:>2}")
        } else {
            n.to_string()
        };
        let labels = [
            format!("Children see throughput for {count} {name}"),
            format!("Parent sees throughput for {count} {name}"),
            "Min throughput per process".into(),
            "Max throughput per process".into(),
            "Avg throughput per process".into(),
            "Min xfer".into(),
        ];
        for (text, name) in labels.iter().zip(metric::THROUGHPUT) {
            // kB/sec for the rates, kB for the bytes of Min xfer.
            let unit = if name == metric::MIN_XFER {
                "kB"
            } else {
                "kB/sec"
            };
            let v = value(result, name, test, None).map(|v| format!("{:>10.2} {unit}", v / KB));
            throughput_line(&mut out, text, v);
        }
        out.push('\n');
    }
    out
}

/// `s` right-aligned in `width`, with at least one space before it.
fn field(out: &mut String, s: &str, width: usize) {
    if s.len() >= width {
        out.push(' ');
    }
    let _ = write!(out, "{s:>width$}");
}

/// The known tests the results ran or measured, in IOzone's column order.
fn columns(results: &[&BenchResult]) -> Vec<&'static TestInfo> {
    let mut present: BTreeSet<&str> = BTreeSet::new();
    for r in results {
        present.extend(param_tests(r));
        present.extend(r.metrics.iter().filter_map(|m| m.label_value(label::TEST)));
    }
    TESTS.iter().filter(|i| present.contains(i.id)).collect()
}

/// The two heading lines of IOzone's table for `cols`.
fn table_heading(out: &mut String, cols: &[&TestInfo]) {
    let mut top = String::new();
    let mut bottom = String::new();
    field(&mut top, "", 16);
    field(&mut top, "", 8);
    field(&mut bottom, "kB", 16);
    field(&mut bottom, "reclen", 8);
    for c in cols {
        field(&mut top, c.top, c.width);
        field(&mut bottom, c.bottom, c.width);
    }
    if !top.trim().is_empty() {
        let _ = writeln!(out, "{}", top.trim_end());
    }
    let _ = writeln!(out, "{}", bottom.trim_end());
}

/// One row of IOzone's table: kB, reclen and each column's kB/s as an integer.
fn table_row(out: &mut String, result: &BenchResult, row: Row, cols: &[&TestInfo]) {
    let mut line = String::new();
    field(&mut line, &(row.file_size / 1024).to_string(), 16);
    field(&mut line, &(row.record / 1024).to_string(), 8);
    for c in cols {
        let v = value(result, metric::BANDWIDTH, c.id, Some(row))
            .map(|v| format!("{}", (v / KB).trunc() as i64))
            .unwrap_or_default();
        field(&mut line, &v, c.width);
    }
    let _ = writeln!(out, "{}", line.trim_end());
}

/// The (file size, record) rows the metrics of `result` hold; when none
/// carries them, the one row its parameters describe.
fn rows(result: &BenchResult) -> Vec<Row> {
    let file_size = param_u64(result, param::FILE_SIZE);
    let record = param_u64(result, param::RECORD_SIZE);
    let mut rows: BTreeSet<Row> = result
        .metrics
        .iter()
        .filter(|m| m.label_value(label::TEST).is_some())
        .filter_map(|m| {
            Some(Row {
                file_size: label_u64(m, label::FILE_SIZE).or(file_size)?,
                record: label_u64(m, label::RECORD).or(record)?,
            })
        })
        .collect();
    if rows.is_empty()
        && let Some(f) = file_size
    {
        rows.insert(Row {
            file_size: f,
            record: record.unwrap_or(0),
        });
    }
    rows.into_iter().collect()
}

/// Operations per second: whole numbers from 100 up, two decimals below.
fn iops(v: f64) -> String {
    if v.abs() >= 100.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// The test's name in the latency table: `write`, `random read`.
fn short_name(c: &TestInfo) -> String {
    if c.id == test::MIXED {
        c.name.to_string()
    } else if c.top.is_empty() {
        c.bottom.to_string()
    } else {
        format!("{} {}", c.top, c.bottom)
    }
}

/// nodebench's latency table: per test, IOPS and latency percentiles.
fn latency_table(out: &mut String, result: &BenchResult, cols: &[&TestInfo]) {
    let mut head = format!("  {:<16}", "test");
    field(&mut head, "iops", 12);
    for (_, h) in LATENCIES {
        field(&mut head, h, 11);
    }
    let _ = writeln!(out, "{}", head.trim_end());
    for c in cols {
        let name = short_name(c);
        let mut line = format!("  {name:<16}");
        let v = value(result, metric::IOPS, c.id, None).map(iops);
        field(&mut line, &v.unwrap_or_default(), 12);
        for (metric, _) in LATENCIES {
            let v = value(result, metric, c.id, None).map(format::seconds);
            field(&mut line, &v.unwrap_or_default(), 11);
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
}

/// IOzone's table for a single run (one file size, one record size): the
/// `kB reclen write rewrite ...` heading over the columns of the tests
/// present, one row of kB/s integers, then nodebench's latency table (IOPS,
/// p50, p90, p99, p99.9, max per test).
pub fn single_report(result: &BenchResult) -> String {
    let mut out = String::new();
    let cols = columns(&[result]);
    table_heading(&mut out, &cols);
    for row in rows(result) {
        table_row(&mut out, result, row, &cols);
    }
    out.push('\n');
    latency_table(&mut out, result, &cols);
    out
}

/// IOzone's auto-mode (`-a`) matrix: one row per (file size, record size)
/// across `results` (each one file size, many records), sorted by file size
/// then record, under the same heading as [`single_report`].
pub fn auto_report(results: &[&BenchResult]) -> String {
    let mut out = String::new();
    let cols = columns(results);
    table_heading(&mut out, &cols);
    let mut rows: Vec<(Row, &BenchResult)> = results
        .iter()
        .flat_map(|r| rows(r).into_iter().map(move |row| (row, *r)))
        .collect();
    rows.sort_by_key(|(row, _)| *row);
    for (row, result) in rows {
        table_row(&mut out, result, row, &cols);
    }
    out
}

/// The whole IOzone-style report of one result: [`header`], a blank line,
/// then [`throughput_report`] (throughput mode), [`auto_report`] (auto mode)
/// or [`single_report`]; the result's error and warnings last.
pub fn report(result: &BenchResult) -> String {
    let mut out = header(result);
    out.push('\n');
    if param_bool(result, param::THROUGHPUT_MODE) {
        out.push_str(&throughput_report(result));
    } else if param_bool(result, param::AUTO) {
        out.push_str(&auto_report(&[result]));
    } else {
        out.push_str(&single_report(result));
    }
    if let Some(e) = &result.error {
        let _ = writeln!(out, "error: {e}");
    }
    for w in &result.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::names::disk as names;
    use nodebench_core::{Better, Unit};

    const MIB: u64 = 1024 * 1024;

    fn cell_metric(
        name: &str,
        value: f64,
        unit: Unit,
        test: &str,
        file: u64,
        rec: u64,
        w: u64,
    ) -> Metric {
        let better = if unit == Unit::Seconds {
            Better::Lower
        } else {
            Better::Higher
        };
        Metric::new(name, value, unit, better)
            .label("test", test)
            .label("file_size", file)
            .label("record", rec)
            .label("workers", w)
    }

    /// A `disk.iozone` result with the common parameters.
    fn result(tests: &[&str], file: u64, record: Option<u64>, workers: u64) -> BenchResult {
        let mut r = BenchResult::new(names::IOZONE);
        r.set_param("file_size", file);
        if let Some(rec) = record {
            r.set_param("record_size", rec);
        }
        r.set_param("workers", workers);
        r.set_param("throughput_mode", false);
        r.set_param("auto", false);
        r.set_param("fsync_in_timing", false);
        r.set_param("o_sync", false);
        r.set_param("direct", false);
        r.set_param("purge", false);
        r.set_param("engine", "psync");
        r.set_param("iodepth", 1);
        r.set_param("stride_records", 17);
        r.set_param("dir", "/tmp");
        r.set_param("tests", tests);
        r
    }

    /// Bandwidth, IOPS and latencies of one test at one (file, record).
    fn push_single(r: &mut BenchResult, test: &str, file: u64, rec: u64, kbps: f64) {
        let bw = kbps * KB;
        r.metrics.push(cell_metric(
            "bandwidth",
            bw,
            Unit::BytesPerSecond,
            test,
            file,
            rec,
            1,
        ));
        r.metrics.push(cell_metric(
            "iops",
            bw / rec as f64,
            Unit::OpsPerSecond,
            test,
            file,
            rec,
            1,
        ));
        for (i, (name, _)) in LATENCIES.iter().enumerate() {
            let v = 10e-6 * (i + 1) as f64;
            r.metrics
                .push(cell_metric(name, v, Unit::Seconds, test, file, rec, 1));
        }
    }

    /// The throughput-mode metrics of one test from kB/s figures.
    fn push_throughput(r: &mut BenchResult, test: &str, kb: [f64; 6]) {
        let (file, rec) = (2048 * MIB, 4096);
        for (name, v) in metric::THROUGHPUT.into_iter().zip(kb) {
            let unit = if name == metric::MIN_XFER {
                Unit::Bytes
            } else {
                Unit::BytesPerSecond
            };
            r.metrics
                .push(cell_metric(name, v * KB, unit, test, file, rec, 2));
        }
        r.metrics.push(cell_metric(
            metric::BANDWIDTH,
            kb[0] * KB,
            Unit::BytesPerSecond,
            test,
            file,
            rec,
            2,
        ));
    }

    fn throughput_result() -> BenchResult {
        let mut r = result(&["write", "read"], 2048 * MIB, Some(4096), 2);
        r.set_param("throughput_mode", true);
        r.set_param("purge", true);
        r.set_param("fsync_in_timing", true);
        r.set_param("o_sync", true);
        push_throughput(
            &mut r,
            "write",
            [369.74, 369.73, 184.87, 184.87, 184.87, 2097144.0],
        );
        push_throughput(
            &mut r,
            "read",
            [19369.47, 19368.78, 9663.02, 9706.45, 9684.73, 2087912.0],
        );
        r
    }

    #[test]
    fn throughput_blocks_match_iozone() {
        let text = throughput_report(&throughput_result());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "\tChildren see throughput for  2 initial writers  =     369.74 kB/sec"
        );
        assert_eq!(
            lines[1],
            "\tParent sees throughput for  2 initial writers   =     369.73 kB/sec"
        );
        assert_eq!(
            lines[2],
            "\tMin throughput per process                      =     184.87 kB/sec"
        );
        assert_eq!(
            lines[5],
            "\tMin xfer                                        = 2097144.00 kB"
        );
        assert_eq!(lines[6], "");
        assert_eq!(
            lines[7],
            "\tChildren see throughput for  2 readers          =   19369.47 kB/sec"
        );
        assert_eq!(
            lines[12],
            "\tMin xfer                                        = 2087912.00 kB"
        );
        for field in [
            "Children see throughput for",
            "Parent sees throughput for",
            "Min throughput per process",
            "Max throughput per process",
            "Avg throughput per process",
            "Min xfer",
        ] {
            assert_eq!(text.matches(field).count(), 2, "{field}\n{text}");
        }
        // Every `=` in the same column.
        for l in lines.iter().filter(|l| !l.is_empty()) {
            assert_eq!(l.find('='), Some(49), "{l}");
        }
        assert!(text.ends_with("kB\n\n"), "{text}");
    }

    #[test]
    fn throughput_count_is_unpadded_where_iozone_does_not_pad() {
        let mut r = result(&["reread"], 2048 * MIB, Some(4096), 2);
        r.set_param("throughput_mode", true);
        push_throughput(&mut r, "reread", [19626.49, 19624.24, 1.0, 2.0, 3.0, 4.0]);
        let text = throughput_report(&r);
        assert!(
            text.starts_with(
                "\tChildren see throughput for 2 re-readers        =   19626.49 kB/sec\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn throughput_report_follows_parameter_order() {
        let mut r = throughput_result();
        r.set_param("tests", ["read", "write"]);
        let text = throughput_report(&r);
        let read = text.find("readers").unwrap();
        let write = text.find("initial writers").unwrap();
        assert!(read < write, "{text}");
    }

    #[test]
    fn header_names_flags_and_throughput_setup() {
        let mut r = throughput_result();
        r.set_param("direct", true);
        let h = header(&r);
        for line in [
            "\tFile size set to 2097152 kB\n",
            "\tRecord Size 4 kB\n",
            "\tPurge Mode On\n",
            "\tInclude fsync in write timing\n",
            "\tSYNC Mode.\n",
            "\tO_DIRECT feature enabled\n",
            "\tI/O engine psync, queue depth 1\n",
            "\tOutput is in kBytes/sec\n",
            "\tFile stride size set to 17 * record size.\n",
            "\tThroughput test with 2 processes\n",
            "\tEach process writes a 2097152 kByte file in 4 kByte records\n",
        ] {
            assert!(h.contains(line), "missing {line:?} in\n{h}");
        }
    }

    #[test]
    fn header_leaves_out_what_does_not_apply() {
        let h = header(&result(&["write"], 64 * MIB, Some(65536), 1));
        assert!(h.contains("\tFile size set to 65536 kB\n"), "{h}");
        assert!(h.contains("\tRecord Size 64 kB\n"), "{h}");
        for absent in [
            "Purge",
            "fsync",
            "SYNC",
            "O_DIRECT",
            "Throughput",
            "Each",
            "Auto",
        ] {
            assert!(!h.contains(absent), "{absent} in\n{h}");
        }
    }

    #[test]
    fn single_report_has_kb_reclen_and_integer_rates() {
        let mut r = result(&["write", "read"], 1024 * MIB, Some(4096), 1);
        push_single(&mut r, "write", 1024 * MIB, 4096, 102400.7);
        push_single(&mut r, "read", 1024 * MIB, 4096, 204800.2);
        let text = single_report(&r);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "              kB  reclen    write     read");
        assert_eq!(lines[1], "         1048576       4   102400   204800");
        assert_eq!(lines[2], "");
        assert!(lines[3].starts_with("  test"), "{text}");
        assert!(
            lines[3].ends_with("iops        p50        p90        p99      p99.9        max"),
            "{text}"
        );
        assert!(lines[4].starts_with("  write"), "{text}");
        assert!(
            lines[4].contains("10.00 us") && lines[4].contains("50.00 us"),
            "{text}"
        );
        assert!(lines[4].contains("25600"), "{text}");
        assert!(lines[5].starts_with("  read"), "{text}");
    }

    #[test]
    fn single_report_puts_columns_in_iozone_order() {
        let file = 16 * MIB;
        let tests = ["random_read", "stride_read", "write", "backward_read"];
        let mut r = result(&tests, file, Some(4096), 1);
        for (i, test) in tests.iter().enumerate() {
            push_single(&mut r, test, file, 4096, 1000.0 * (i + 1) as f64);
        }
        let text = single_report(&r);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "                                    random     bkwd    stride"
        );
        assert_eq!(
            lines[1],
            "              kB  reclen    write     read     read      read"
        );
        assert_eq!(
            lines[2],
            "           16384       4     3000     1000     4000      2000"
        );
        assert!(text.contains("  random read"), "{text}");
        assert!(text.contains("  bkwd read"), "{text}");
    }

    #[test]
    fn auto_report_sorts_rows_by_file_then_record() {
        let (small, big) = (64 * MIB, 128 * MIB);
        let mut a = result(&["write", "rewrite"], big, None, 1);
        a.set_param("auto", true);
        for (rec, kb) in [(16384, 3000.0), (4096, 1000.0)] {
            push_single(&mut a, "write", big, rec, kb);
            push_single(&mut a, "rewrite", big, rec, kb + 1.0);
        }
        let mut b = result(&["write", "rewrite"], small, None, 1);
        b.set_param("auto", true);
        push_single(&mut b, "write", small, 4096, 500.0);
        let text = auto_report(&[&a, &b]);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "              kB  reclen    write  rewrite");
        assert_eq!(lines[1], "           65536       4      500");
        assert_eq!(lines[2], "          131072       4     1000     1001");
        assert_eq!(lines[3], "          131072      16     3000     3001");
        assert_eq!(lines.len(), 4, "{text}");

        let whole = report(&a);
        assert!(whole.starts_with("\tAuto Mode\n"), "{whole}");
        assert!(!whole.contains("File size set to"), "{whole}");
        assert!(
            whole.contains("131072       4     1000     1001"),
            "{whole}"
        );
    }

    #[test]
    fn missing_metrics_print_blank() {
        // Throughput mode: parent and min xfer missing; a test without metrics.
        let mut r = result(&["write", "read"], 2048 * MIB, Some(4096), 2);
        r.set_param("throughput_mode", true);
        r.metrics.push(cell_metric(
            "children_see",
            369.74 * KB,
            Unit::BytesPerSecond,
            "write",
            1,
            1,
            2,
        ));
        let text = report(&r);
        assert!(
            text.contains("\tParent sees throughput for  2 initial writers   =\n"),
            "{text}"
        );
        assert!(
            text.contains("\tMin xfer                                        =\n"),
            "{text}"
        );
        assert!(!text.contains("readers"), "{text}");

        // Single mode with no metrics at all: the row keeps kB and reclen.
        let r = result(&["write", "read"], 1024 * MIB, Some(4096), 1);
        let text = report(&r);
        assert!(text.contains("\n         1048576       4\n"), "{text}");
        assert!(text.contains("\n  write\n"), "{text}");

        // No parameters and no metrics at all.
        let empty = BenchResult::new(names::IOZONE);
        let text = report(&empty);
        assert!(text.contains("Output is in kBytes/sec"), "{text}");
        assert!(auto_report(&[]).contains("kB  reclen"));
    }
}
