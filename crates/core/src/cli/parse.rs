//! The value parsers the areas' flags share (sizes, durations, counts, bit
//! rates, thread lists), and the text a default is shown as in help. A
//! parser only turns text into a typed value; range checks belong to each
//! config's `validate`. A default shown in help is written from the
//! config's own `Default`, so it is written once.

use crate::bench::BenchError;
use std::time::Duration;

use crate::units::ParseError;
use crate::{affinity, units};

/// A parsed `--threads` list (a newtype so clap takes it as one value).
#[derive(Debug, Clone)]
pub struct ThreadList(pub Vec<usize>);

/// A thread list: `1,2,4,8`, `1..8`, `1..16:x2` or `all`.
pub fn parse_threads(s: &str) -> Result<ThreadList, ParseError> {
    units::parse_thread_list(s, affinity::allowed_cpus().len()).map(ThreadList)
}

/// CPUs to pin threads to (`--cpus 0,2-3`), each one this process may run on.
#[derive(Debug, Clone, PartialEq)]
pub struct CpuList(pub Vec<usize>);

/// A CPU list: `0`, `1,3`, `0-3`.
pub fn parse_cpus(s: &str) -> Result<CpuList, BenchError> {
    affinity::parse_cpus(s).map(CpuList)
}

/// A positive duration: `500ms`, `10s`, `5m`.
pub fn parse_duration(s: &str) -> Result<Duration, ParseError> {
    units::parse_duration(s)
}

/// A positive count: `100`, `10k`.
pub fn parse_count(s: &str) -> Result<u64, ParseError> {
    units::parse_count(s)
}

/// A positive size in bytes: `8`, `8KiB`, `8MiB`, `1.28GB`.
pub fn parse_size(s: &str) -> Result<u64, ParseError> {
    match units::parse_size(s)? {
        0 => Err(ParseError(format!(
            "invalid size '{s}': expected a positive size like 8, 8KiB, 8MiB, 1.28GB"
        ))),
        n => Ok(n),
    }
}

/// A bit rate in bits/s: `100M`, `1.5G`, `0` for unlimited.
pub fn parse_bitrate(s: &str) -> Result<u64, ParseError> {
    units::parse_bitrate(s)
}

/// The values a list flag was given, or `default` when it was not given.
pub fn or_default<T: Clone>(given: &[T], default: Vec<T>) -> Vec<T> {
    if given.is_empty() {
        default
    } else {
        given.to_vec()
    }
}

/// `bytes` as help shows a default size: the shorter of its forms in the
/// largest binary unit that divides it (`512MiB`, `4KiB`) and in the
/// largest decimal unit with at most two decimals (`1.28GB`), else plain
/// bytes. [`parse_size`] reads it back.
pub fn size_text(bytes: u64) -> String {
    const BINARY: [(u64, &str); 4] = [
        (1 << 40, "TiB"),
        (1 << 30, "GiB"),
        (1 << 20, "MiB"),
        (1 << 10, "KiB"),
    ];
    const DECIMAL: [(u64, &str); 4] = [
        (1_000_000_000_000, "TB"),
        (1_000_000_000, "GB"),
        (1_000_000, "MB"),
        (1_000, "kB"),
    ];
    let binary = BINARY
        .iter()
        .find(|(u, _)| bytes > 0 && bytes.is_multiple_of(*u))
        .map(|(unit, name)| format!("{}{name}", bytes / unit));
    let decimal = DECIMAL
        .iter()
        .find(|(u, _)| bytes >= *u && bytes.is_multiple_of(u / 100))
        .map(|(unit, name)| {
            let hundredths = format!(".{:02}", (bytes % unit) / (unit / 100));
            let fraction = hundredths.trim_end_matches('0').trim_end_matches('.');
            format!("{}{fraction}{name}", bytes / unit)
        });
    match (binary, decimal) {
        (Some(b), Some(d)) if d.len() < b.len() => d,
        (Some(b), _) => b,
        (None, Some(d)) => d,
        (None, None) => bytes.to_string(),
    }
}

/// `d` as help shows a default duration: a whole number of the largest unit
/// that divides it (`5m`, `30s`, `200ms`). [`parse_duration`] reads it back.
pub fn duration_text(d: Duration) -> String {
    const UNITS: [(u128, &str); 6] = [
        (3_600_000_000_000, "h"),
        (60_000_000_000, "m"),
        (1_000_000_000, "s"),
        (1_000_000, "ms"),
        (1_000, "us"),
        (1, "ns"),
    ];
    let ns = d.as_nanos();
    let (unit, name) = UNITS
        .iter()
        .find(|(u, _)| ns.is_multiple_of(*u))
        .unwrap_or(&UNITS[UNITS.len() - 1]);
    format!("{}{name}", ns / unit)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_sizes_read_back_exactly() {
        for (bytes, text) in [
            (512 << 20, "512MiB"),
            (4 << 10, "4KiB"),
            (256 << 20, "256MiB"),
            (100 << 20, "100MiB"),
            (1_280_000_000, "1.28GB"),
            (1_500_000, "1.5MB"),
            (2_000, "2kB"),
            (8, "8"),
            (1001, "1001"),
            (1_024_000, "1024kB"),
            (2_048_000_000, "2048MB"),
        ] {
            assert_eq!(size_text(bytes), text);
            assert_eq!(parse_size(text), Ok(bytes), "{text}");
        }
    }

    #[test]
    fn default_durations_read_back_exactly() {
        for (d, text) in [
            (Duration::from_millis(200), "200ms"),
            (Duration::from_secs(15), "15s"),
            (Duration::from_secs(300), "5m"),
            (Duration::from_secs(7200), "2h"),
            (Duration::from_micros(1500), "1500us"),
            (Duration::from_nanos(7), "7ns"),
        ] {
            assert_eq!(duration_text(d), text);
            assert_eq!(parse_duration(text), Ok(d), "{text}");
        }
    }
}
