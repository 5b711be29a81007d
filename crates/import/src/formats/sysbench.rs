//! sysbench 1.0's report of one test run (`sysbench cpu|memory|fileio run`,
//! the OLTP Lua scripts), recognised from its content: the cpu test's
//! events per second, the memory test's operations and MiB/sec, fileio's
//! reads/writes/fsyncs per second and MiB/s, OLTP's transactions and
//! queries; each with the general statistics, the latency summary and the
//! options the report prints. A report ends with its threads-fairness lines:
//! one without them is cut off.

use nodebench_core::model::{BenchResult, Better, Metric, Unit};
use nodebench_core::names::labels::PERCENTILE;
use nodebench_core::names::latency::{LATENCY_MAX, LATENCY_MEAN, LATENCY_MIN, LATENCY_PERCENTILE};
use nodebench_core::names::sysbench::{metric, param};
use nodebench_core::names::{cpu, db, disk, memory};

use crate::text::{binary_prefix, number};

/// The first line of a report (`sysbench 1.0.20 (using bundled LuaJIT ...)`).
const BANNER: &str = "sysbench ";
/// The line every report has.
const GENERAL: &str = "General statistics:";
/// The last line of a report.
const LAST: &str = "execution time (avg/stddev):";
/// Mebibytes, as sysbench counts them.
const MIB: f64 = 1024.0 * 1024.0;

/// True when `text` holds a sysbench report.
pub(crate) fn detect(text: &str) -> bool {
    text.lines().any(is_banner) && text.lines().any(|l| l.trim() == GENERAL)
}

/// `sysbench 1.0.20 (using ...)`.
fn is_banner(line: &str) -> bool {
    line.starts_with(BANNER) && line.contains(" (using ")
}

/// One result per report in `text`.
pub(crate) fn parse(text: &str) -> Result<Vec<BenchResult>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let starts: Vec<usize> = (0..lines.len()).filter(|&i| is_banner(lines[i])).collect();
    if starts.is_empty() {
        return Err("expected the `sysbench 1.x (using ...)` line a report starts with".into());
    }
    let mut results = Vec::new();
    for (k, &from) in starts.iter().enumerate() {
        let to = starts.get(k + 1).copied().unwrap_or(lines.len());
        results.push(report(&lines[from..to], from)?);
    }
    Ok(results)
}

/// The value after `key` on the first line (trimmed) that starts with it.
fn after<'a>(lines: &[&'a str], key: &str) -> Option<&'a str> {
    lines
        .iter()
        .find_map(|l| l.trim().strip_prefix(key))
        .map(str::trim)
}

/// A number after `key` and its text as printed, or what was expected.
fn figure<'a>(lines: &[&'a str], key: &str, at: usize) -> Result<(f64, &'a str), String> {
    after(lines, key)
        .and_then(|v| {
            let text = v.split_whitespace().next()?;
            Some((number(text)?, text))
        })
        .ok_or_else(|| format!("report at line {}: expected `{key} N`", at + 1))
}

/// A sysbench size (`1KiB`, `102400MiB`, `16KiB`) in bytes.
fn size(v: &str) -> Option<u64> {
    let v = v.trim();
    let split = v
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(v.len());
    let (n, unit) = v.split_at(split);
    Some((number(n)? * binary_prefix(unit.strip_suffix('B').unwrap_or(unit))?) as u64)
}

/// A metric pushed without labels, with its `(text, unit)` as sysbench
/// printed it.
fn push(
    r: &mut BenchResult,
    name: &str,
    v: f64,
    (unit, better): (Unit, Better),
    (text, printed_unit): (&str, &str),
) {
    r.metrics
        .push(Metric::new(name, v, unit, better).printed(text.trim(), printed_unit));
}

/// One report.
fn report(lines: &[&str], at: usize) -> Result<BenchResult, String> {
    if !lines.iter().any(|l| l.trim().starts_with(LAST)) {
        return Err(format!(
            "report at line {}: expected its last line, `{LAST} ...` (cut off?)",
            at + 1
        ));
    }
    let mut r = if lines.iter().any(|l| l.trim() == "CPU speed:") {
        cpu_test(lines, at)?
    } else if lines
        .iter()
        .any(|l| l.contains("Running memory speed test"))
    {
        memory_test(lines, at)?
    } else if lines.iter().any(|l| l.trim() == "File operations:") {
        fileio_test(lines, at)?
    } else if lines.iter().any(|l| l.trim() == "SQL statistics:") {
        oltp_test(lines, at)?
    } else {
        return Err(format!(
            "report at line {}: expected the figures of the cpu, memory, fileio or an OLTP test",
            at + 1
        ));
    };
    r.set_param(
        crate::param::TOOL_VERSION,
        lines[0].split(" (").next().unwrap_or(lines[0]),
    );
    if let Some(t) = after(lines, "Number of threads:").and_then(|v| v.parse::<u32>().ok()) {
        r.set_param(param::THREADS, t);
    }
    let total_text = after(lines, "total time:")
        .and_then(|v| v.strip_suffix('s'))
        .ok_or_else(|| format!("report at line {}: expected `total time: Ns`", at + 1))?;
    let total = number(total_text)
        .ok_or_else(|| format!("report at line {}: expected `total time: Ns`", at + 1))?;
    push(
        &mut r,
        metric::TOTAL_TIME,
        total,
        (Unit::Seconds, Better::Lower),
        (total_text, "s"),
    );
    let (events, text) = figure(lines, "total number of events:", at)?;
    push(
        &mut r,
        metric::EVENTS,
        events,
        (Unit::Count, Better::Higher),
        (text, ""),
    );
    latency(&mut r, lines, at)?;
    Ok(r)
}

/// `Latency (ms):` min, avg, max, the percentile, sum.
fn latency(r: &mut BenchResult, lines: &[&str], at: usize) -> Result<(), String> {
    let from = lines
        .iter()
        .position(|l| l.trim() == "Latency (ms):")
        .ok_or_else(|| format!("report at line {}: expected `Latency (ms):`", at + 1))?;
    let block = &lines[from + 1..];
    // Milliseconds, as printed under `Latency (ms):`.
    let lower = (Unit::Seconds, Better::Lower);
    for (key, name) in [
        ("min:", LATENCY_MIN),
        ("avg:", LATENCY_MEAN),
        ("max:", LATENCY_MAX),
    ] {
        let (v, text) = figure(block, key, at)?;
        push(r, name, v / 1e3, lower, (text, "ms"));
    }
    // `95th percentile:   3.68`
    let (pct, v, text) = block
        .iter()
        .find_map(|l| {
            let (p, rest) = l.trim().split_once("th percentile:")?;
            Some((p.to_string(), number(rest)?, rest.trim()))
        })
        .ok_or_else(|| format!("report at line {}: expected `NNth percentile: V`", at + 1))?;
    r.metrics.push(
        Metric::new(LATENCY_PERCENTILE, v / 1e3, Unit::Seconds, Better::Lower)
            .label(PERCENTILE, &pct)
            .printed(text, "ms"),
    );
    r.set_param(param::PERCENTILE, pct);
    let (v, text) = figure(block, "sum:", at)?;
    push(r, metric::LATENCY_SUM, v / 1e3, lower, (text, "ms"));
    Ok(())
}

/// The cpu test: `events per second:` and the prime limit.
fn cpu_test(lines: &[&str], at: usize) -> Result<BenchResult, String> {
    let mut r = BenchResult::new(cpu::SYSBENCH);
    r.set_param(param::TEST, "cpu");
    if let Some(p) = after(lines, "Prime numbers limit:").and_then(|v| v.parse::<u64>().ok()) {
        r.set_param(param::CPU_MAX_PRIME, p);
    }
    let (eps, text) = figure(lines, "events per second:", at)?;
    push(
        &mut r,
        metric::EVENTS_PER_SECOND,
        eps,
        (Unit::OpsPerSecond, Better::Higher),
        (text, ""),
    );
    Ok(r)
}

/// The memory test: `Total operations: N (R per second)` and `M MiB
/// transferred (R MiB/sec)`, with its options.
fn memory_test(lines: &[&str], at: usize) -> Result<BenchResult, String> {
    let mut r = BenchResult::new(memory::SYSBENCH);
    r.set_param(param::TEST, "memory");
    for (key, name) in [
        ("block size:", param::BLOCK_SIZE),
        ("total size:", param::TOTAL_SIZE),
    ] {
        if let Some(b) = after(lines, key).and_then(size) {
            r.set_param(name, b);
        }
    }
    for (key, name) in [("operation:", param::OPERATION), ("scope:", param::SCOPE)] {
        if let Some(v) = after(lines, key) {
            r.set_param(name, v);
        }
    }
    let expected = || {
        format!(
            "report at line {}: expected `Total operations: N (R per second)`",
            at + 1
        )
    };
    let ops = after(lines, "Total operations:").ok_or_else(expected)?;
    let (n, rate) = ops.split_once(" (").ok_or_else(expected)?;
    let rate_text = rate.strip_suffix(" per second)").ok_or_else(expected)?;
    let rate = number(rate_text).ok_or_else(expected)?;
    push(
        &mut r,
        metric::OPERATIONS,
        number(n).ok_or_else(expected)?,
        (Unit::Count, Better::Higher),
        (n, ""),
    );
    push(
        &mut r,
        metric::OPERATIONS_PER_SECOND,
        rate,
        (Unit::OpsPerSecond, Better::Higher),
        (rate_text, "per second"),
    );
    let expected = || {
        format!(
            "report at line {}: expected `M MiB transferred (R MiB/sec)`",
            at + 1
        )
    };
    let line = lines
        .iter()
        .find(|l| l.contains(" MiB transferred ("))
        .ok_or_else(expected)?;
    let (mib, rate) = line.split_once(" MiB transferred (").ok_or_else(expected)?;
    let rate_text = rate.trim().strip_suffix(" MiB/sec)").ok_or_else(expected)?;
    let rate = number(rate_text).ok_or_else(expected)?;
    push(
        &mut r,
        metric::TRANSFERRED,
        number(mib).ok_or_else(expected)? * MIB,
        (Unit::Bytes, Better::Higher),
        (mib, "MiB"),
    );
    push(
        &mut r,
        metric::BANDWIDTH,
        rate * MIB,
        (Unit::BytesPerSecond, Better::Higher),
        (rate_text, "MiB/sec"),
    );
    Ok(r)
}

/// The fileio test: operations per second and throughput, with the file
/// set and mode it prints.
fn fileio_test(lines: &[&str], at: usize) -> Result<BenchResult, String> {
    let mut r = BenchResult::new(disk::SYSBENCH_FILEIO);
    r.set_param(param::TEST, "fileio");
    for l in lines.iter().map(|l| l.trim()) {
        if let Some((n, _)) = l.split_once(" files, ") {
            if let Ok(n) = n.parse::<u64>() {
                r.set_param(param::FILES, n);
            }
        } else if let Some(t) = l.strip_suffix(" total file size").and_then(size) {
            r.set_param(param::TOTAL_SIZE, t);
        } else if let Some(b) = l.strip_prefix("Block size ").and_then(size) {
            r.set_param(param::BLOCK_SIZE, b);
        } else if let Some(v) = l
            .strip_prefix("Read/Write ratio for combined random IO test:")
            .and_then(number)
        {
            r.set_param(param::RW_RATIO, v);
        } else if let Some(v) = l
            .strip_prefix("Periodic FSYNC enabled, calling fsync() each ")
            .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        {
            r.set_param(param::FSYNC_FREQ, v);
        } else if let Some(mode) = l
            .strip_prefix("Doing ")
            .and_then(|m| m.strip_suffix(" test"))
        {
            r.set_param(param::MODE, mode);
        }
    }
    for (key, name) in [
        ("reads/s:", metric::READS_PER_SECOND),
        ("writes/s:", metric::WRITES_PER_SECOND),
        ("fsyncs/s:", metric::FSYNCS_PER_SECOND),
    ] {
        let (v, text) = figure(lines, key, at)?;
        push(
            &mut r,
            name,
            v,
            (Unit::OpsPerSecond, Better::Higher),
            (text, ""),
        );
    }
    for (key, name) in [
        ("read, MiB/s:", metric::READ_BANDWIDTH),
        ("written, MiB/s:", metric::WRITE_BANDWIDTH),
    ] {
        let (v, text) = figure(lines, key, at)?;
        push(
            &mut r,
            name,
            v * MIB,
            (Unit::BytesPerSecond, Better::Higher),
            (text, "MiB/s"),
        );
    }
    Ok(r)
}

/// An OLTP script's `SQL statistics:`.
fn oltp_test(lines: &[&str], at: usize) -> Result<BenchResult, String> {
    let mut r = BenchResult::new(db::SYSBENCH_OLTP);
    r.set_param(param::TEST, "oltp");
    for (key, name) in [
        ("read:", metric::QUERIES_READ),
        ("write:", metric::QUERIES_WRITE),
        ("other:", metric::QUERIES_OTHER),
    ] {
        let (v, text) = figure(lines, key, at)?;
        push(&mut r, name, v, (Unit::Count, Better::Higher), (text, ""));
    }
    // `transactions:   5085   (1016.32 per sec.)`
    for (key, count, rate, better) in [
        (
            "transactions:",
            metric::TRANSACTIONS,
            Some(metric::TRANSACTIONS_PER_SECOND),
            Better::Higher,
        ),
        (
            "queries:",
            metric::QUERIES,
            Some(metric::QUERIES_PER_SECOND),
            Better::Higher,
        ),
        (
            "ignored errors:",
            metric::IGNORED_ERRORS,
            None,
            Better::Lower,
        ),
        ("reconnects:", metric::RECONNECTS, None, Better::Lower),
    ] {
        let expected = || format!("report at line {}: expected `{key} N (R per sec.)`", at + 1);
        let v = after(lines, key).ok_or_else(expected)?;
        let (n, per) = v.split_once('(').ok_or_else(expected)?;
        push(
            &mut r,
            count,
            number(n).ok_or_else(expected)?,
            (Unit::Count, better),
            (n, ""),
        );
        if let Some(rate) = rate {
            let per_text = per.strip_suffix(" per sec.)").ok_or_else(expected)?;
            let per = number(per_text).ok_or_else(expected)?;
            push(
                &mut r,
                rate,
                per,
                (Unit::OpsPerSecond, Better::Higher),
                (per_text, "per sec."),
            );
        }
    }
    Ok(r)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CPU: &str = include_str!("../../tests/fixtures/sysbench-cpu.txt");
    const MEMORY: &str = include_str!("../../tests/fixtures/sysbench-memory.txt");
    const FILEIO: &str = include_str!("../../tests/fixtures/sysbench-fileio.txt");
    const OLTP: &str = include_str!("../../tests/fixtures/sysbench-oltp.txt");

    fn one(text: &str) -> BenchResult {
        assert!(detect(text));
        let mut r = parse(text).unwrap();
        assert_eq!(r.len(), 1);
        r.remove(0)
    }

    fn value(r: &BenchResult, name: &str) -> f64 {
        r.metric(name, &[])
            .unwrap_or_else(|| panic!("no {name}"))
            .value
    }

    #[test]
    fn cpu_events_per_second_and_latency() {
        let r = one(CPU);
        assert_eq!(r.benchmark, cpu::SYSBENCH);
        assert_eq!(value(&r, metric::EVENTS_PER_SECOND), 2645.43);
        assert_eq!(value(&r, metric::EVENTS), 7940.0);
        assert_eq!(value(&r, metric::TOTAL_TIME), 3.0002);
        assert_eq!(value(&r, LATENCY_MEAN), 0.38 / 1e3);
        assert_eq!(value(&r, LATENCY_MAX), 8.40 / 1e3);
        assert_eq!(
            r.metric(LATENCY_PERCENTILE, &[(PERCENTILE, "95")])
                .unwrap()
                .value,
            0.34 / 1e3
        );
        assert_eq!(r.param(param::CPU_MAX_PRIME), Some(&10000.into()));
        assert_eq!(r.param(param::THREADS), Some(&1.into()));
        assert_eq!(
            r.param(crate::param::TOOL_VERSION),
            Some(&"sysbench 1.0.20".into())
        );
    }

    #[test]
    fn memory_operations_and_mib_per_second() {
        let r = one(MEMORY);
        assert_eq!(r.benchmark, memory::SYSBENCH);
        assert_eq!(value(&r, metric::OPERATIONS), 22277055.0);
        assert_eq!(value(&r, metric::OPERATIONS_PER_SECOND), 7422185.58);
        assert_eq!(value(&r, metric::TRANSFERRED), 21754.94 * MIB);
        assert_eq!(value(&r, metric::BANDWIDTH), 7248.23 * MIB);
        assert_eq!(r.param(param::BLOCK_SIZE), Some(&1024.into()));
        assert_eq!(r.param(param::TOTAL_SIZE), Some(&(102400u64 << 20).into()));
        assert_eq!(r.param(param::OPERATION), Some(&"write".into()));
    }

    #[test]
    fn fileio_rates_and_throughput() {
        let r = one(FILEIO);
        assert_eq!(r.benchmark, disk::SYSBENCH_FILEIO);
        assert_eq!(value(&r, metric::READS_PER_SECOND), 4738.65);
        assert_eq!(value(&r, metric::WRITES_PER_SECOND), 3159.10);
        assert_eq!(value(&r, metric::FSYNCS_PER_SECOND), 317.19);
        assert_eq!(value(&r, metric::READ_BANDWIDTH), 74.04 * MIB);
        assert_eq!(value(&r, metric::WRITE_BANDWIDTH), 49.36 * MIB);
        assert_eq!(r.param(param::FILES), Some(&4.into()));
        assert_eq!(r.param(param::BLOCK_SIZE), Some(&16384.into()));
        assert_eq!(r.param(param::FSYNC_FREQ), Some(&100.into()));
        assert_eq!(r.param(param::MODE), Some(&"random r/w".into()));
    }

    #[test]
    fn oltp_transactions_queries_and_latency() {
        let r = one(OLTP);
        assert_eq!(r.benchmark, db::SYSBENCH_OLTP);
        assert_eq!(value(&r, metric::TRANSACTIONS), 5085.0);
        assert_eq!(value(&r, metric::TRANSACTIONS_PER_SECOND), 1016.32);
        assert_eq!(value(&r, metric::QUERIES_PER_SECOND), 20336.03);
        assert_eq!(value(&r, metric::QUERIES_READ), 71232.0);
        assert_eq!(value(&r, metric::IGNORED_ERRORS), 3.0);
        assert_eq!(
            r.metric(LATENCY_PERCENTILE, &[(PERCENTILE, "95")])
                .unwrap()
                .value,
            3.68 / 1e3
        );
        assert_eq!(value(&r, metric::LATENCY_SUM), 9992.49 / 1e3);
        assert_eq!(r.param(param::THREADS), Some(&2.into()));
    }

    #[test]
    fn halves_and_foreign_text_are_refused() {
        for text in [CPU, MEMORY, FILEIO, OLTP] {
            let e = parse(&text[..text.len() / 2]).unwrap_err();
            assert!(e.contains("expected"), "{e}");
        }
        let iperf = include_str!("../../tests/fixtures/iperf3-tcp.txt");
        assert!(!detect(iperf));
        assert!(parse(iperf).is_err());
    }
}
