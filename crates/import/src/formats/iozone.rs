//! IOzone's reports as `disk.iozone` results, one per file size, under the
//! names `nodebench disk iozone` gives the same figures (IOzone's kB is
//! 1024 bytes):
//!
//! - the table of a normal or `-a` auto-mode run: a `kB reclen write
//!   rewrite read ...` header, then one row per file size and record
//!   size. Each figure is a `bandwidth` metric labelled with its test,
//!   file size, record size and one worker. Columns of tests that did not
//!   run are blank: such a row is matched to the header by where its
//!   numbers end; a row as long as the header (or longer, when a report
//!   re-typed the header and lost words, as the CS 553 benchmarking report's did) is read in
//!   IOzone's fixed column order.
//! - the blocks of a `-t` throughput-mode run: `Children see throughput
//!   for N initial writers = R kB/sec`, `Parent sees ...`, `Min/Max/Avg
//!   throughput per process`, `Min xfer`, each figure under its
//!   throughput metric name, and the children's figure as `bandwidth`.
//!
//! Every row and block must be complete; `iozone test complete.` is not
//! required, because reports often stop before it (the compute-node proposal report does).

use nodebench_core::model::{BenchResult, Better, Metric, Unit};
use nodebench_core::names::disk::{self as names, label, metric, param, test};

use crate::param::{TOOL_COMMAND, TOOL_VERSION};
use crate::text::{Words, number};

/// IOzone's banner.
const BANNER: &str = "Iozone: Performance Test of File I/O";
/// The first line of a throughput-mode block.
const CHILDREN: &str = "Children see throughput for";

/// The table's test columns in IOzone's order: the header's word and the test.
const COLUMNS: [(&str, &str); 13] = [
    ("write", test::WRITE),
    ("rewrite", test::REWRITE),
    ("read", test::READ),
    ("reread", test::REREAD),
    ("read", test::RANDOM_READ),
    ("write", test::RANDOM_WRITE),
    ("read", test::BACKWARD_READ),
    ("rewrite", test::RECORD_REWRITE),
    ("read", test::STRIDE_READ),
    ("fwrite", test::FWRITE),
    ("frewrite", test::FREWRITE),
    ("fread", test::FREAD),
    ("freread", test::FREREAD),
];

/// Throughput-mode block names and their tests.
const BLOCKS: [(&str, &str); 13] = [
    ("initial writers", test::WRITE),
    ("rewriters", test::REWRITE),
    ("readers", test::READ),
    ("re-readers", test::REREAD),
    ("reverse readers", test::BACKWARD_READ),
    ("stride readers", test::STRIDE_READ),
    ("random readers", test::RANDOM_READ),
    ("mixed workload", test::MIXED),
    ("random writers", test::RANDOM_WRITE),
    ("pwrite writers", test::PWRITE),
    ("pread readers", test::PREAD),
    ("fwriters", test::FWRITE),
    ("freaders", test::FREAD),
];

/// True when `text` holds an IOzone report.
pub(crate) fn detect(text: &str) -> bool {
    let w = Words::new(text);
    w.contains(BANNER) || w.contains(CHILDREN) || header(text).is_some()
}

/// The `disk.iozone` results of the report in `text`.
pub(crate) fn parse(text: &str) -> Result<Vec<BenchResult>, String> {
    let w = Words::new(text);
    if w.contains("Output is in operations per second") || w.contains("ops/sec") {
        return Err(
            "figures in operations per second (-O) are not supported; expected kB/sec".into(),
        );
    }
    let settings = Settings::read(&w);
    if w.contains(CHILDREN) {
        throughput(&w, &settings)
    } else {
        table(text, &settings)
    }
}

/// What the report's preamble says about the run.
struct Settings {
    /// `Version $Revision: 3.508 $`.
    version: Option<String>,
    /// `Command line used: ...`.
    command: Option<String>,
    /// `Auto Mode`.
    auto: bool,
    /// `Include fsync in write timing` (-e).
    fsync: bool,
    /// `SYNC Mode` (-o).
    o_sync: bool,
    /// `O_DIRECT feature enabled` (-I).
    direct: bool,
    /// `Purge Mode On` (-p).
    purge: bool,
}

impl Settings {
    fn read(w: &Words) -> Settings {
        let command = w.find("Command line used:", 0).map(|start| {
            (start..)
                .map_while(|i| w.get(i))
                .take_while(|s| *s != "Output")
                .collect::<Vec<_>>()
                .join(" ")
        });
        Settings {
            version: w
                .find("Version $Revision:", 0)
                .and_then(|i| w.get(i))
                .map(String::from),
            command,
            auto: w.contains("Auto Mode"),
            fsync: w.contains("Include fsync in write timing"),
            o_sync: w.contains("SYNC Mode."),
            direct: w.contains("O_DIRECT feature enabled"),
            purge: w.contains("Purge Mode On"),
        }
    }

    /// A result for one file size with the run's parameters.
    fn result(&self, file_size: u64, workers: u64, throughput: bool) -> BenchResult {
        let mut r = BenchResult::new(names::IOZONE);
        if let Some(v) = &self.version {
            r.set_param(TOOL_VERSION, v);
        }
        if let Some(c) = &self.command {
            r.set_param(TOOL_COMMAND, c);
        }
        r.set_param(param::FILE_SIZE, file_size);
        r.set_param(param::WORKERS, workers);
        r.set_param(param::THROUGHPUT_MODE, throughput);
        r.set_param(param::AUTO, self.auto);
        r.set_param(param::FSYNC_IN_TIMING, self.fsync);
        r.set_param(param::O_SYNC, self.o_sync);
        r.set_param(param::DIRECT, self.direct);
        r.set_param(param::PURGE, self.purge);
        r
    }
}

/// A metric of one test of one cell.
fn cell(
    name: &str,
    value: f64,
    unit: Unit,
    t: &str,
    file: u64,
    record: u64,
    workers: u64,
) -> Metric {
    Metric::new(name, value, unit, Better::Higher)
        .label(label::TEST, t)
        .label(label::FILE_SIZE, file)
        .label(label::RECORD, record)
        .label(label::WORKERS, workers)
}

/// The table header: its line index and the byte offset where each test
/// column's word ends.
fn header(text: &str) -> Option<(usize, Vec<usize>)> {
    text.lines().enumerate().find_map(|(i, line)| {
        let mut words = line.split_whitespace();
        let first = words.next()?;
        if !(first.eq_ignore_ascii_case("kB") && words.next() == Some("reclen")) {
            return None;
        }
        let base = line.as_ptr() as usize;
        let ends = line
            .split_whitespace()
            .skip(2)
            .map(|word| word.as_ptr() as usize - base + word.len())
            .collect();
        Some((i, ends))
    })
}

/// The rows of a normal or auto-mode table.
fn table(text: &str, s: &Settings) -> Result<Vec<BenchResult>, String> {
    let (at, ends) = header(text).ok_or("expected the `kB reclen write rewrite read ...` table")?;
    let lines: Vec<&str> = text.lines().collect();
    let mut results: Vec<BenchResult> = Vec::new();
    let mut records: Vec<u64> = Vec::new();
    for (i, line) in lines.iter().enumerate().skip(at + 1) {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(values) = words
            .iter()
            .map(|w| number(w))
            .collect::<Option<Vec<f64>>>()
        else {
            break;
        };
        if values.is_empty() {
            break;
        }
        let bad = |what: &str| format!("line {}: {what}", i + 1);
        if i + 1 == lines.len() && !text.ends_with('\n') {
            return Err(bad("the row stops before its line ends"));
        }
        if values.len() < 3 {
            return Err(bad("expected `kB reclen` and at least one figure"));
        }
        let (file_kb, record_kb) = (values[0] as u64, values[1] as u64);
        let figures = &values[2..];
        let columns: Vec<usize> = if figures.len() >= ends.len() {
            if figures.len() > COLUMNS.len() {
                return Err(bad("more figures than IOzone has tests"));
            }
            (0..figures.len()).collect()
        } else {
            aligned(line, &ends).ok_or_else(|| bad("figures do not line up with the header"))?
        };
        let (file, record) = (file_kb * 1024, record_kb * 1024);
        if results.last().and_then(|r| r.param(param::FILE_SIZE)) != Some(&file.into()) {
            finish(results.last_mut(), &mut records, s.auto);
            results.push(s.result(file, 1, false));
        }
        records.push(record);
        let r = results.last_mut().expect("pushed above");
        let mut tests = Vec::new();
        for (&c, &v) in columns.iter().zip(figures) {
            let t = COLUMNS[c].1;
            tests.push(t);
            r.metrics.push(cell(
                metric::BANDWIDTH,
                v * 1024.0,
                Unit::BytesPerSecond,
                t,
                file,
                record,
                1,
            ));
        }
        r.set_param(param::TESTS, tests);
    }
    finish(results.last_mut(), &mut records, s.auto);
    if results.is_empty() {
        return Err(format!(
            "line {}: expected rows of figures under the header",
            at + 2
        ));
    }
    Ok(results)
}

/// Records the record sizes of a finished file size.
fn finish(r: Option<&mut BenchResult>, records: &mut Vec<u64>, auto: bool) {
    if let Some(r) = r {
        if auto {
            r.set_param(param::RECORD_SIZES, &*records);
        } else if let Some(&one) = records.first() {
            r.set_param(param::RECORD_SIZE, one);
        }
    }
    records.clear();
}

/// The column of each figure of a row with blank columns: the header
/// column whose word ends nearest where the figure ends, in increasing
/// order.
fn aligned(line: &str, ends: &[usize]) -> Option<Vec<usize>> {
    let base = line.as_ptr() as usize;
    let mut columns = Vec::new();
    for word in line.split_whitespace().skip(2) {
        let end = word.as_ptr() as usize - base + word.len();
        let c = (0..ends.len()).min_by_key(|&c| ends[c].abs_diff(end))?;
        if columns.last().is_some_and(|&last| c <= last) || c >= COLUMNS.len() {
            return None;
        }
        columns.push(c);
    }
    Some(columns)
}

/// The blocks of a throughput-mode run.
fn throughput(w: &Words, s: &Settings) -> Result<Vec<BenchResult>, String> {
    let workers = w
        .find("Throughput test with", 0)
        .and_then(|i| w.number(i))
        .ok_or("expected `Throughput test with N processes`")? as u64;
    let each = w
        .find("Each process writes a", 0)
        .ok_or("expected `Each process writes a N kByte file in M kByte records`")?;
    let file_kb = w.number(each);
    let record_kb = w
        .find("file in", each)
        .filter(|&i| i == each + 4)
        .and_then(|i| w.number(i));
    let (Some(file_kb), Some(record_kb)) = (file_kb, record_kb) else {
        return Err(format!(
            "line {}: expected `Each process writes a N kByte file in M kByte records`",
            w.line(each)
        ));
    };
    let (file, record) = (file_kb as u64 * 1024, record_kb as u64 * 1024);
    let mut r = s.result(file, workers, true);
    r.set_param(param::RECORD_SIZE, record);
    let mut tests = Vec::new();
    let mut at = 0;
    while let Some(start) = w.find(CHILDREN, at) {
        // `N <name words> = V kB/sec`
        let eq = (start + 1..)
            .take(4)
            .find(|&i| w.get(i) == Some("="))
            .ok_or_else(|| {
                format!(
                    "line {}: expected `{CHILDREN} N <test> = R kB/sec`",
                    w.line(start)
                )
            })?;
        let name: Vec<&str> = (start + 1..eq).filter_map(|i| w.get(i)).collect();
        let name = name.join(" ");
        let t = BLOCKS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| *t)
            .ok_or_else(|| format!("line {}: unknown throughput test `{name}`", w.line(start)))?;
        tests.push(t);
        let mut figures = Vec::new();
        let lines = [
            ("Parent sees throughput for", metric::PARENT_SEES),
            ("Min throughput per process", metric::MIN_PER_WORKER),
            ("Max throughput per process", metric::MAX_PER_WORKER),
            ("Avg throughput per process", metric::AVG_PER_WORKER),
            ("Min xfer", metric::MIN_XFER),
        ];
        figures.push((metric::CHILDREN_SEE, rate(w, eq + 1, "kB/sec")?));
        let mut i = eq + 3;
        for (phrase, name) in lines {
            let found = w
                .find(phrase, i)
                .filter(|&f| f - phrase.split_whitespace().count() == i);
            let f =
                found.ok_or_else(|| format!("line {}: expected `{phrase} ... = N`", w.line(i)))?;
            let eq = (f..)
                .take(4)
                .find(|&k| w.get(k) == Some("="))
                .ok_or_else(|| format!("line {}: expected `{phrase} ... = N`", w.line(f)))?;
            let unit = if name == metric::MIN_XFER {
                "kB"
            } else {
                "kB/sec"
            };
            figures.push((name, rate(w, eq + 1, unit)?));
            i = eq + 3;
        }
        let children = figures[0].1;
        r.metrics.push(cell(
            metric::BANDWIDTH,
            children,
            Unit::BytesPerSecond,
            t,
            file,
            record,
            workers,
        ));
        for (name, v) in figures {
            let unit = if name == metric::MIN_XFER {
                Unit::Bytes
            } else {
                Unit::BytesPerSecond
            };
            r.metrics
                .push(cell(name, v, unit, t, file, record, workers));
        }
        at = i;
    }
    r.set_param(param::TESTS, tests);
    Ok(vec![r])
}

/// The figure at word `i` followed by `unit` (`kB/sec`, or the older
/// `KB/sec`), in bytes (per second).
fn rate(w: &Words, i: usize, unit: &str) -> Result<f64, String> {
    w.number(i)
        .filter(|_| w.get(i + 1).is_some_and(|u| u.eq_ignore_ascii_case(unit)))
        .map(|v| v * 1024.0)
        .ok_or_else(|| format!("line {}: expected `N {unit}`", w.line(i)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEED_000: &str = include_str!("../../tests/fixtures/iozone-seed000.txt");
    const SEED_002: &str = include_str!("../../tests/fixtures/iozone-seed002.txt");
    const AUTO: &str = include_str!("../../tests/fixtures/iozone-auto-local.txt");
    const NORMAL: &str = include_str!("../../tests/fixtures/iozone-normal-local.txt");
    const THROUGHPUT: &str = include_str!("../../tests/fixtures/iozone-throughput-local.txt");

    fn at(r: &BenchResult, name: &str, t: &str, record_kb: u64) -> f64 {
        let record = (record_kb * 1024).to_string();
        r.metric(name, &[(label::TEST, t), (label::RECORD, &record)])
            .unwrap_or_else(|| panic!("{name} {t} {record_kb}"))
            .value
    }

    #[test]
    fn auto_mode_matrix_one_result_per_file_size() {
        assert!(detect(AUTO));
        let results = parse(AUTO).unwrap();
        assert_eq!(results.len(), 3);
        let sizes: Vec<_> = results
            .iter()
            .map(|r| r.param(param::FILE_SIZE).cloned())
            .collect();
        assert_eq!(sizes, [64u64, 128, 256].map(|k| Some((k * 1024).into())));
        let r = &results[0];
        assert_eq!(r.metrics.len(), 5 * 13);
        assert_eq!(at(r, metric::BANDWIDTH, test::WRITE, 4), 426219.0 * 1024.0);
        assert_eq!(
            at(r, metric::BANDWIDTH, test::FREREAD, 4),
            3057153.0 * 1024.0
        );
        assert_eq!(
            at(r, metric::BANDWIDTH, test::STRIDE_READ, 8),
            12310336.0 * 1024.0
        );
        let last = &results[2];
        assert_eq!(
            at(last, metric::BANDWIDTH, test::RANDOM_READ, 64),
            15835569.0 * 1024.0
        );
        assert_eq!(
            at(last, metric::BANDWIDTH, test::BACKWARD_READ, 64),
            2672291.0 * 1024.0
        );
        assert_eq!(
            last.param(param::RECORD_SIZES),
            Some(&serde_json::json!([4096, 8192, 16384, 32768, 65536]))
        );
        assert_eq!(last.param(param::AUTO), Some(&true.into()));
        assert_eq!(last.param(TOOL_VERSION), Some(&"3.508".into()));
        let m = last.metrics.last().unwrap();
        assert_eq!(m.label_value(label::WORKERS), Some("1"));
        assert_eq!(m.label_value(label::FILE_SIZE), Some("262144"));
    }

    #[test]
    fn normal_run_with_blank_columns() {
        assert!(detect(NORMAL));
        let r = &parse(NORMAL).unwrap()[0];
        let tests: Vec<&str> = r
            .metrics
            .iter()
            .map(|m| m.label_value(label::TEST).unwrap())
            .collect();
        assert_eq!(
            tests,
            [
                test::WRITE,
                test::REWRITE,
                test::READ,
                test::REREAD,
                test::RANDOM_READ,
                test::RANDOM_WRITE
            ]
        );
        assert_eq!(
            at(r, metric::BANDWIDTH, test::RANDOM_WRITE, 64),
            8262639.0 * 1024.0
        );
        assert_eq!(r.param(param::RECORD_SIZE), Some(&65536u64.into()));
        assert_eq!(r.param(param::AUTO), Some(&false.into()));
        // -i 0 -i 2 -i 5: the stride read column after two blank ones.
        let line = "            1024      64   3778101   9320560                     9569770  10531896                      26380939\n";
        let row = NORMAL.lines().find(|l| l.contains("4300102")).unwrap();
        let text = NORMAL.replace(row, line.trim_end());
        let r = &parse(&text).unwrap()[0];
        assert_eq!(
            r.param(param::TESTS),
            Some(&serde_json::json!([
                test::WRITE,
                test::REWRITE,
                test::RANDOM_READ,
                test::RANDOM_WRITE,
                test::STRIDE_READ
            ]))
        );
        assert_eq!(
            at(r, metric::BANDWIDTH, test::STRIDE_READ, 64),
            26380939.0 * 1024.0
        );
    }

    #[test]
    fn throughput_mode_blocks() {
        assert!(detect(THROUGHPUT));
        let r = &parse(THROUGHPUT).unwrap()[0];
        assert_eq!(r.param(param::WORKERS), Some(&2u64.into()));
        assert_eq!(r.param(param::FILE_SIZE), Some(&(1024u64 * 1024).into()));
        assert_eq!(
            at(r, metric::CHILDREN_SEE, test::WRITE, 64),
            4715569.00 * 1024.0
        );
        assert_eq!(
            at(r, metric::BANDWIDTH, test::WRITE, 64),
            4715569.00 * 1024.0
        );
        assert_eq!(
            at(r, metric::PARENT_SEES, test::REREAD, 64),
            1213109.83 * 1024.0
        );
        assert_eq!(
            at(r, metric::AVG_PER_WORKER, test::REWRITE, 64),
            4067359.00 * 1024.0
        );
        assert_eq!(at(r, metric::MIN_XFER, test::REWRITE, 64), 960.0 * 1024.0);
        assert_eq!(
            r.param(param::TESTS),
            Some(&serde_json::json!([
                test::WRITE,
                test::REWRITE,
                test::READ,
                test::REREAD
            ]))
        );
    }

    #[test]
    fn seed_000_throughput_wrapped() {
        assert!(detect(SEED_000));
        let r = &parse(SEED_000).unwrap()[0];
        assert_eq!(r.metrics_named(metric::CHILDREN_SEE).count(), 11);
        assert_eq!(at(r, metric::CHILDREN_SEE, test::WRITE, 4), 369.74 * 1024.0);
        assert_eq!(
            at(r, metric::PARENT_SEES, test::REWRITE, 4),
            10548.93 * 1024.0
        );
        assert_eq!(at(r, metric::MIN_XFER, test::PREAD, 4), 2084200.00 * 1024.0);
        assert_eq!(
            at(r, metric::MAX_PER_WORKER, test::PREAD, 4),
            9608.34 * 1024.0
        );
        assert_eq!(r.param(param::FILE_SIZE), Some(&(2097152u64 * 1024).into()));
        assert_eq!(r.param(param::PURGE), Some(&true.into()));
        assert_eq!(r.param(param::FSYNC_IN_TIMING), Some(&true.into()));
        assert_eq!(r.param(param::O_SYNC), Some(&true.into()));
        assert_eq!(
            r.param(TOOL_COMMAND),
            Some(&"./iozone -s 2g -r 4k -peo -t 2".into())
        );
        assert_eq!(r.param(TOOL_VERSION), Some(&"3.283".into()));
    }

    #[test]
    fn seed_002_retyped_header_in_column_order() {
        assert!(detect(SEED_002));
        let r = &parse(SEED_002).unwrap()[0];
        assert_eq!(r.metrics.len(), 12);
        assert_eq!(at(r, metric::BANDWIDTH, test::READ, 8), 395315.0 * 1024.0);
        assert_eq!(
            at(r, metric::BANDWIDTH, test::RANDOM_READ, 8),
            17583.0 * 1024.0
        );
        assert_eq!(at(r, metric::BANDWIDTH, test::FREAD, 8), 428717.0 * 1024.0);
        assert_eq!(
            r.param(param::FILE_SIZE),
            Some(&(10485760u64 * 1024).into())
        );
    }

    #[test]
    fn cut_rows_and_blocks_are_refused() {
        let cut = &NORMAL[..NORMAL.find(" 8262639").unwrap()];
        let e = parse(cut).unwrap_err();
        assert!(e.contains("stops before its line ends"), "{e}");
        let cut = &THROUGHPUT[..THROUGHPUT.find("Min xfer").unwrap()];
        let e = parse(cut).unwrap_err();
        assert!(e.contains("`Min xfer ... = N`"), "{e}");
        let ops = THROUGHPUT.replace("kB/sec", "ops/sec");
        assert!(parse(&ops).unwrap_err().contains("-O"));
    }
}
