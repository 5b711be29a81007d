//! dd's summary: `N+M records in`, `N+M records out`, then `B bytes (...)
//! copied, S s, R MB/s`. Each summary becomes one `disk.dd` result with the
//! bytes, the seconds and the rate dd printed; the `dd ...` command line
//! above it, when the file has one, gives the block size, count, O_DIRECT
//! and the final sync (`conv=fdatasync`/`fsync`).

use nodebench_core::model::{BenchResult, Better, Metric, Unit};
use nodebench_core::names::disk::{self as names, label, metric, param, sync};

use crate::text::{binary_prefix, decimal_prefix, number};

/// The line dd prints after the records it wrote.
const RECORDS_OUT: &str = "records out";
/// The word of the summary line.
const COPIED: &str = "copied,";

/// True when `text` holds a dd summary.
pub(crate) fn detect(text: &str) -> bool {
    text.lines().any(|l| l.contains(RECORDS_OUT))
        && text
            .lines()
            .any(|l| l.contains(" bytes") && l.contains(COPIED))
}

/// One `disk.dd` result per summary in `text`.
pub(crate) fn parse(text: &str) -> Result<Vec<BenchResult>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut results = Vec::new();
    let mut command: Option<&str> = None;
    for (i, line) in lines.iter().enumerate() {
        if is_command(line) {
            command = Some(line);
            continue;
        }
        if !line.contains(RECORDS_OUT) {
            continue;
        }
        let summary = lines
            .get(i + 1)
            .filter(|l| l.contains(COPIED))
            .ok_or_else(|| {
                format!(
                    "line {}: expected `B bytes (...) copied, S s, R MB/s` after `{}`",
                    i + 2,
                    line.trim()
                )
            })?;
        let figures = summary_figures(summary).ok_or_else(|| {
            format!(
                "line {}: expected `B bytes (...) copied, S s, R MB/s`, found `{}`",
                i + 2,
                summary.trim()
            )
        })?;
        let mut r = result(&figures, command.take());
        if let Some(w) = disagreement(&figures, i + 2) {
            r.warnings.push(w);
        }
        results.push(r);
    }
    Ok(results)
}

/// A shell line running dd (`# dd if=... of=...`, `$ dd ...`, `dd ...`).
fn is_command(line: &str) -> bool {
    let l = line.trim_start_matches(['#', '$', ' ', '\t']);
    l.starts_with("dd ") && l.contains('=')
}

/// What one summary line says: bytes, seconds, bytes per second, and the
/// text of each as dd printed it (the rate with its unit, `897` `MB/s`).
struct Figures<'a> {
    bytes: f64,
    seconds: f64,
    rate: f64,
    printed: [(&'a str, &'a str); 3],
}

/// Reads `B bytes (...) copied, S s, R U/s`.
fn summary_figures(line: &str) -> Option<Figures<'_>> {
    let bytes_text = line.split_whitespace().next()?;
    let bytes = number(bytes_text)?;
    let (_, after) = line.split_once(COPIED)?;
    let mut parts = after.split(',');
    let seconds_text = parts.next()?.trim().strip_suffix(" s")?;
    let seconds = number(seconds_text)?;
    let rate_text = parts.next()?.trim();
    let (value, unit) = rate_text.split_once(' ')?;
    let prefix = unit.strip_suffix("B/s")?;
    let multiplier = if prefix.ends_with('i') {
        binary_prefix(prefix)?
    } else {
        decimal_prefix(prefix)?
    };
    Some(Figures {
        bytes,
        seconds,
        rate: number(value)? * multiplier,
        printed: [(bytes_text, "bytes"), (seconds_text, "s"), (value, unit)],
    })
}

/// The `disk.dd` result of one summary and the command line above it.
fn result(f: &Figures, command: Option<&str>) -> BenchResult {
    let mut r = BenchResult::new(names::DD);
    let mut end_sync = sync::NONE;
    if let Some(cmd) = command {
        for operand in cmd.split_whitespace() {
            match operand.split_once('=') {
                Some(("bs" | "obs", v)) => {
                    if let Some(b) = dd_size(v) {
                        r.set_param(param::BLOCK_SIZE, b);
                    }
                }
                Some(("count", v)) => {
                    if let Ok(n) = v.parse::<u64>() {
                        r.set_param(param::COUNT, n);
                    }
                }
                Some(("oflag", v)) => {
                    r.set_param(param::DIRECT, v.split(',').any(|f| f == "direct"));
                }
                Some(("conv", v)) => {
                    for c in v.split(',') {
                        match c {
                            "fdatasync" => end_sync = sync::FDATASYNC,
                            "fsync" => end_sync = sync::FSYNC,
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
    }
    let figures = [
        (metric::BYTES, f.bytes, Unit::Bytes, Better::Higher),
        (metric::SECONDS, f.seconds, Unit::Seconds, Better::Lower),
        (
            metric::BANDWIDTH,
            f.rate,
            Unit::BytesPerSecond,
            Better::Higher,
        ),
    ];
    for ((name, v, u, b), (text, unit)) in figures.into_iter().zip(f.printed) {
        r.metrics.push(
            Metric::new(name, v, u, b)
                .label(label::SYNC, end_sync)
                .printed(text, unit),
        );
    }
    r
}

/// How far a summary's printed rate may stray from its bytes over its
/// seconds (dd rounds the rate to 2 or 3 digits).
const RATE_TOLERANCE: f64 = 0.02;

/// A warning when the summary on line `line` contradicts itself: its bytes
/// over its seconds differ from its printed rate by more than
/// [`RATE_TOLERANCE`] (an edited or pasted-together report).
fn disagreement(f: &Figures, line: usize) -> Option<String> {
    if f.seconds <= 0.0 || f.rate <= 0.0 {
        return None;
    }
    let implied = f.bytes / f.seconds;
    let off = f.rate / implied - 1.0;
    (off.abs() > RATE_TOLERANCE).then(|| {
        format!(
            "line {line}: the source disagrees with itself: {} bytes in {} s is {:.1} MB/s (derived), but the printed rate is {} {} ({:+.1} %, derived); both imported as printed",
            f.printed[0].0,
            f.printed[1].0,
            implied / 1e6,
            f.printed[2].0,
            f.printed[2].1,
            off * 100.0
        )
    })
}

/// A dd size operand: a number with dd's suffixes (`c` 1, `w` 2, `b` 512,
/// `kB` 1000, `K` 1024, `MB` 10^6, `M` 2^20, `GB`, `G`...).
fn dd_size(s: &str) -> Option<u64> {
    let split = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
    let (n, suffix) = s.split_at(split);
    let n: u64 = n.parse().ok()?;
    let multiplier = match suffix {
        "" | "c" => 1.0,
        "w" => 2.0,
        "b" => 512.0,
        s if s.ends_with("iB") => binary_prefix(s.strip_suffix('B')?)?,
        s if s.ends_with('B') => decimal_prefix(s.strip_suffix('B')?)?,
        s => binary_prefix(s)?,
    };
    n.checked_mul(multiplier as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// the E3-1220 node-pair report: three dd runs of 10 GB, the commands above each.
    const SEED_001: &str = include_str!("../../tests/fixtures/dd-seed001.txt");

    #[test]
    fn seed_001_imports_three_results_with_the_printed_figures() {
        assert!(detect(SEED_001));
        let results = parse(SEED_001).unwrap();
        assert_eq!(results.len(), 3);
        let rates: Vec<f64> = results
            .iter()
            .map(|r| r.metric(metric::BANDWIDTH, &[]).unwrap().value)
            .collect();
        assert_eq!(rates, vec![897e6, 548e6, 499e6]);
        let printed: Vec<String> = results[2]
            .metrics
            .iter()
            .map(|m| m.printed.as_ref().unwrap().with_unit())
            .collect();
        assert_eq!(printed, ["10485760000 bytes", "21.0164 s", "499 MB/s"]);
        // The second block prints 548 MB/s for the first one's bytes and
        // seconds (897 MB/s): imported as printed, with a warning.
        assert!(results[0].warnings.is_empty(), "{:?}", results[0].warnings);
        assert!(results[2].warnings.is_empty(), "{:?}", results[2].warnings);
        assert_eq!(
            results[1].warnings,
            vec![
                "line 19: the source disagrees with itself: 10485760000 bytes in 11.6923 s is 896.8 MB/s (derived), but the printed rate is 548 MB/s (-38.9 %, derived); both imported as printed"
            ]
        );
        let r = &results[2];
        assert_eq!(r.benchmark, names::DD);
        assert_eq!(r.metric(metric::BYTES, &[]).unwrap().value, 10485760000.0);
        assert_eq!(r.metric(metric::SECONDS, &[]).unwrap().value, 21.0164);
        assert_eq!(r.param(param::BLOCK_SIZE), Some(&(100u64 << 20).into()));
        assert_eq!(r.param(param::COUNT), Some(&100u64.into()));
        assert!(
            r.metrics
                .iter()
                .all(|m| m.label_value(label::SYNC) == Some(sync::NONE))
        );
    }

    #[test]
    fn modern_coreutils_summary_with_fdatasync() {
        let text = "$ dd if=/dev/zero of=t bs=1M count=1024 conv=fdatasync oflag=direct\n\
                    1024+0 records in\n1024+0 records out\n\
                    1073741824 bytes (1.1 GB, 1.0 GiB) copied, 2.34567 s, 458 MB/s\n";
        let r = &parse(text).unwrap()[0];
        let bw = r.metric(metric::BANDWIDTH, &[]).unwrap();
        assert_eq!(bw.value, 458e6);
        assert_eq!(bw.label_value(label::SYNC), Some(sync::FDATASYNC));
        assert_eq!(r.param(param::DIRECT), Some(&true.into()));
        assert_eq!(r.param(param::BLOCK_SIZE), Some(&(1u64 << 20).into()));
    }

    #[test]
    fn binary_rate_units_and_sizes() {
        assert_eq!(
            summary_figures("512 bytes copied, 0.5 s, 1.0 KiB/s").map(|f| f.rate),
            Some(1024.0)
        );
        assert_eq!(dd_size("4kB"), Some(4000));
        assert_eq!(dd_size("4K"), Some(4096));
        assert_eq!(dd_size("2b"), Some(1024));
        assert_eq!(dd_size("1GB"), Some(1_000_000_000));
        assert_eq!(dd_size("x"), None);
    }

    #[test]
    fn a_summary_cut_off_is_refused_with_the_line() {
        let text = "100+0 records in\n100+0 records out\n10485760000 bytes (10 GB) copied, 11.69";
        let e = parse(text).unwrap_err();
        assert!(e.starts_with("line 3: expected"), "{e}");
        let e = parse("100+0 records in\n100+0 records out\n").unwrap_err();
        assert!(e.contains("after `100+0 records out`"), "{e}");
    }
}
