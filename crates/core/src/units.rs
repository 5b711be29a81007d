//! Parsing of the command line's sizes, durations, counts and thread lists,
//! and human formatting of canonical values.
//!
//! Sizes: a plain number is bytes; then
//!
//! * `KiB`, `MiB`, `GiB`, `TiB` and the bare letters `k`, `m`, `g`, `t`
//!   (`K`, `M`, `G`, `T`) as powers of **1024** (as dd, fio and IOzone do:
//!   `bs=4k` is 4096 bytes);
//! * `kB`/`KB`, `MB`, `GB`, `TB` (letter followed by a plain `B`) as powers
//!   of **1000** (SI, as disk vendors and STREAM's MB do).
//!
//! Durations: a number with `ns`, `us`, `ms`, `s`, `m`, `h` or `d`
//! (`500ms`, `10s`, `5m`, `72h`); a plain number is seconds.
//! Counts: a number with optional `k` (10^3), `m` (10^6) or `g` (10^9):
//! `10k` is 10 000.
//! Thread lists: `1,2,4,8`, a range `1..8` (every count from 1 to 8),
//! a doubling range `1..8:x2`, `all` (the logical CPU count), or a mix
//! separated by commas.
//!
//! Numbers are read exactly, in integer arithmetic (`1.5MiB` is 1 572 864
//! bytes, `9007199254740993` stays odd); a value that does not fit its type
//! is an error, never a wrapped or saturated number.

use std::fmt;
use std::time::Duration;

/// A value on the command line that does not parse; the message names the
/// accepted forms so the CLI can print `error: --flag: MESSAGE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError(pub String);

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseError {}

/// The accepted forms of a size, for error messages and help.
pub const SIZE_FORMS: &str = "a byte count like 4096, 4k, 8KiB, 2g (k/m/g/t and KiB/MiB/GiB/TiB = 1024^n) or 10GB (kB/MB/GB/TB = 1000^n)";
/// The accepted forms of a duration.
pub const DURATION_FORMS: &str =
    "a positive duration like 500ms, 10s, 5m, 72h (units ns, us, ms, s, m, h, d)";
/// The accepted forms of a count.
pub const COUNT_FORMS: &str = "a positive whole number like 100, 10k (x1000), 2m (x10^6)";
/// The accepted forms of a thread list.
pub const THREADS_FORMS: &str = "a list of positive thread counts like 1,2,4,8, a range 1..8, a doubling range 1..16:x2, or 'all'";

/// Splits `s` at the end of its leading run of digits and dots.
fn split_number(s: &str) -> (&str, &str) {
    let end = s
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.'))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    (&s[..end], &s[end..])
}

/// Most digits after the dot a number may have (trailing zeros aside), so
/// that the power of ten under them fits in 128 bits.
const MAX_FRACTION_DIGITS: usize = 38;

/// A number on the command line, read exactly: `int + frac / 10^scale`.
/// Computing with it instead of `f64` keeps every value exact (no rounding
/// above 2^53) and turns overflow into an error, never a wrapped or
/// saturated value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Decimal {
    /// The digits before the dot.
    int: u128,
    /// The digits after the dot, trailing zeros dropped.
    frac: u128,
    /// How many digits `frac` has.
    scale: u32,
}

/// A [`Decimal`] times a whole unit: the whole part, and what is left over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Product {
    /// The whole part.
    whole: u128,
    /// No fraction left over.
    exact: bool,
    /// The fraction left over is a half or more.
    half_or_more: bool,
}

/// The greatest common divisor of `a` and `b`.
fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Reads `digits` as a whole number; `None` if one is not a digit or the
/// number does not fit in 128 bits.
fn whole_number(digits: &str) -> Option<u128> {
    digits.bytes().try_fold(0u128, |n, c| {
        c.is_ascii_digit().then_some(())?;
        n.checked_mul(10)?.checked_add(u128::from(c - b'0'))
    })
}

impl Decimal {
    /// Reads digits with at most one dot (`12`, `1.5`, `1.`, `.5`); `None`
    /// for anything else, or a number too long to hold exactly.
    fn parse(num: &str) -> Option<Decimal> {
        let (int, frac) = num.split_once('.').unwrap_or((num, ""));
        if int.is_empty() && frac.is_empty() {
            return None;
        }
        let frac = frac.trim_end_matches('0');
        if frac.len() > MAX_FRACTION_DIGITS {
            return None;
        }
        Some(Decimal {
            int: whole_number(int)?,
            frac: whole_number(frac)?,
            scale: frac.len() as u32,
        })
    }

    /// `self × unit`, exactly; `None` when it does not fit in 128 bits.
    fn times(self, unit: u64) -> Option<Product> {
        let unit = u128::from(unit);
        // frac × unit / 10^scale, reduced first so that it cannot overflow
        // for units made of 2, 3 and 5 (bytes, nanoseconds, powers of 1000).
        let den = 10u128.pow(self.scale);
        let g = gcd(unit, den);
        let (unit_r, den_r) = (unit / g, den / g);
        let rest = (self.frac % den_r).checked_mul(unit_r)?;
        let whole = self
            .int
            .checked_mul(unit)?
            .checked_add(self.frac / den_r * unit_r)?
            .checked_add(rest / den_r)?;
        let left = rest % den_r;
        Some(Product {
            whole,
            exact: left == 0,
            half_or_more: left >= den_r - left,
        })
    }
}

/// A whole quantity: `num` times `unit`, exactly, if it fits in 64 bits.
fn exact_u64(num: &str, unit: u64) -> Option<u64> {
    let p = Decimal::parse(num)?.times(unit)?;
    if !p.exact {
        return None;
    }
    u64::try_from(p.whole).ok()
}

/// Parses a size in bytes (see the module docs for which suffixes are 1000 or 1024).
pub fn parse_size(s: &str) -> Result<u64, ParseError> {
    let err = || ParseError(format!("invalid size '{s}': expected {SIZE_FORMS}"));
    let (num, suffix) = split_number(s.trim());
    let unit: u64 = match suffix.trim() {
        "" | "b" | "B" => 1,
        "k" | "K" | "KiB" | "kiB" | "Ki" => 1 << 10,
        "m" | "M" | "MiB" | "Mi" => 1 << 20,
        "g" | "G" | "GiB" | "Gi" => 1 << 30,
        "t" | "T" | "TiB" | "Ti" => 1 << 40,
        "kB" | "KB" => 1_000,
        "MB" => 1_000_000,
        "GB" => 1_000_000_000,
        "TB" => 1_000_000_000_000,
        _ => return Err(err()),
    };
    exact_u64(num, unit).ok_or_else(err)
}

/// The longest duration accepted: 10^9 seconds (about 31 years).
const MAX_DURATION_NS: u128 = 1_000_000_000 * 1_000_000_000;

/// Parses a duration (see the module docs); zero and negative durations
/// are refused. Parts of a nanosecond round to the nearest nanosecond, and
/// a duration that rounds to zero is refused too.
pub fn parse_duration(s: &str) -> Result<Duration, ParseError> {
    let err = || ParseError(format!("invalid duration '{s}': expected {DURATION_FORMS}"));
    let (num, suffix) = split_number(s.trim());
    let unit_ns: u64 = match suffix {
        "ns" => 1,
        "us" | "µs" => 1_000,
        "ms" => 1_000_000,
        "" | "s" => 1_000_000_000,
        "m" | "min" => 60 * 1_000_000_000,
        "h" => 3_600 * 1_000_000_000,
        "d" => 86_400 * 1_000_000_000,
        _ => return Err(err()),
    };
    let p = Decimal::parse(num)
        .and_then(|d| d.times(unit_ns))
        .ok_or_else(err)?;
    let ns = p.whole + u128::from(p.half_or_more && !p.exact);
    if ns == 0 || ns > MAX_DURATION_NS {
        return Err(err());
    }
    // At most 10^18 ns: fits in 64 bits.
    Ok(Duration::from_nanos(ns as u64))
}

/// The accepted forms of a bit rate.
pub const BITRATE_FORMS: &str =
    "a rate in bits/s like 100M, 1.5G, 500k (k/M/G/T = 1000^n, as iperf3), or 0 for unlimited";

/// Parses a bit rate in bits/s (k, M, G, T = powers of 1000, as iperf3's
/// `-b`); `0` means unlimited.
pub fn parse_bitrate(s: &str) -> Result<u64, ParseError> {
    decimal_with_suffix(s, true)
        .ok_or_else(|| ParseError(format!("invalid bit rate '{s}': expected {BITRATE_FORMS}")))
}

/// A whole non-negative number with an optional k/m/g (and, when
/// `allow_t`, t) suffix meaning powers of 1000; `None` when it is not one
/// or does not fit in 64 bits.
fn decimal_with_suffix(s: &str, allow_t: bool) -> Option<u64> {
    let (num, suffix) = split_number(s.trim());
    let unit: u64 = match suffix {
        "" => 1,
        "k" | "K" => 1_000,
        "m" | "M" => 1_000_000,
        "g" | "G" => 1_000_000_000,
        "t" | "T" if allow_t => 1_000_000_000_000,
        _ => return None,
    };
    exact_u64(num, unit)
}

/// Parses a positive count with an optional k/m/g (powers of 1000) suffix.
pub fn parse_count(s: &str) -> Result<u64, ParseError> {
    decimal_with_suffix(s, false)
        .filter(|v| *v >= 1)
        .ok_or_else(|| ParseError(format!("invalid count '{s}': expected {COUNT_FORMS}")))
}

/// The most threads one entry of a thread list may name.
pub const MAX_THREADS: usize = 4096;

/// Parses a thread list; `all` expands to `logical_cpus`. The result keeps
/// the given order with duplicates removed, and is never empty; it holds
/// at most [`MAX_THREADS`] counts besides `all`'s.
pub fn parse_thread_list(s: &str, logical_cpus: usize) -> Result<Vec<usize>, ParseError> {
    let err = |what: &str| {
        ParseError(format!(
            "invalid thread list '{s}'{what}: expected {THREADS_FORMS}"
        ))
    };
    let parse_one = |p: &str| -> Result<usize, ParseError> {
        match p.trim().parse::<usize>() {
            Ok(0) => Err(err(" (0 threads)")),
            Ok(n) if n > MAX_THREADS => Err(err(&format!(" (more than {MAX_THREADS} threads)"))),
            Ok(n) => Ok(n),
            Err(_) => Err(err("")),
        }
    };
    if s.trim().is_empty() {
        return Err(err(" (empty)"));
    }
    // Duplicates are dropped as they come, so repeated ranges cannot grow
    // the list past MAX_THREADS + 1 entries.
    let mut out: Vec<usize> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut push = |n: usize| {
        if seen.insert(n) {
            out.push(n);
        }
    };
    for part in s.split(',') {
        let part = part.trim();
        if part.eq_ignore_ascii_case("all") {
            push(logical_cpus.max(1));
        } else if let Some((a, b)) = part.split_once("..") {
            let (b, doubling) = match b.split_once(':') {
                Some((b, "x2")) => (b, true),
                Some(_) => return Err(err("")),
                None => (b, false),
            };
            let (a, b) = (parse_one(a)?, parse_one(b)?);
            if a > b {
                return Err(err(" (range start after its end)"));
            }
            let mut n = a;
            while n <= b {
                push(n);
                n = if doubling { n * 2 } else { n + 1 };
            }
        } else {
            push(parse_one(part)?);
        }
    }
    Ok(out)
}

/// Formats a byte count with binary units and about three significant
/// digits: "512 B", "32 KiB", "1.50 GiB", "11.8 GiB".
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit < UNITS.len() - 1 {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        return format!("{bytes} B");
    }
    let name = UNITS[unit];
    if value.fract() == 0.0 {
        format!("{value:.0} {name}")
    } else if value < 10.0 {
        format!("{value:.2} {name}")
    } else if value < 100.0 {
        format!("{value:.1} {name}")
    } else {
        format!("{value:.0} {name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_binary_and_decimal() {
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert_eq!(parse_size("4k").unwrap(), 4096);
        assert_eq!(parse_size("8KiB").unwrap(), 8192);
        assert_eq!(parse_size("2g").unwrap(), 2 << 30);
        assert_eq!(parse_size("10GB").unwrap(), 10_000_000_000);
        assert_eq!(parse_size("1.5MiB").unwrap(), 1_572_864);
        assert_eq!(parse_size("80MB").unwrap(), 80_000_000);
        for bad in ["", "abc", "-1k", "4x", "0.5", "k"] {
            let e = parse_size(bad).unwrap_err();
            assert!(e.0.contains("KiB"), "{bad}: {e}");
        }
    }

    #[test]
    fn durations() {
        assert_eq!(parse_duration("500ms").unwrap(), Duration::from_millis(500));
        assert_eq!(parse_duration("10s").unwrap(), Duration::from_secs(10));
        assert_eq!(parse_duration("5m").unwrap(), Duration::from_secs(300));
        assert_eq!(
            parse_duration("72h").unwrap(),
            Duration::from_secs(72 * 3600)
        );
        assert_eq!(parse_duration("2").unwrap(), Duration::from_secs(2));
        for bad in ["-1s", "0s", "abc", "10x", ""] {
            let e = parse_duration(bad).unwrap_err();
            assert!(e.0.contains("10s"), "{bad}: {e}");
        }
    }

    #[test]
    fn counts() {
        assert_eq!(parse_count("10k").unwrap(), 10_000);
        assert_eq!(parse_count("2m").unwrap(), 2_000_000);
        assert_eq!(parse_count("7").unwrap(), 7);
        for bad in ["0", "-3", "1.5", "x"] {
            assert!(parse_count(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn bitrates() {
        assert_eq!(parse_bitrate("100M").unwrap(), 100_000_000);
        assert_eq!(parse_bitrate("1.5G").unwrap(), 1_500_000_000);
        assert_eq!(parse_bitrate("0").unwrap(), 0);
        for bad in ["-1M", "fast", "10X"] {
            assert!(parse_bitrate(bad).unwrap_err().0.contains("100M"), "{bad}");
        }
    }

    #[test]
    fn thread_lists() {
        assert_eq!(parse_thread_list("1,2,4,8", 2).unwrap(), vec![1, 2, 4, 8]);
        assert_eq!(parse_thread_list("1..4", 2).unwrap(), vec![1, 2, 3, 4]);
        assert_eq!(
            parse_thread_list("1..16:x2", 2).unwrap(),
            vec![1, 2, 4, 8, 16]
        );
        assert_eq!(parse_thread_list("all", 6).unwrap(), vec![6]);
        assert_eq!(parse_thread_list("1,2,all", 2).unwrap(), vec![1, 2]);
        for bad in ["0", "abc", "", "4..2", "1,,2", "1..4:x3"] {
            let e = parse_thread_list(bad, 2).unwrap_err();
            assert!(e.0.contains("1,2,4,8"), "{bad}: {e}");
        }
    }

    #[test]
    fn formatting() {
        assert_eq!(format_bytes(32 << 20), "32 MiB");
        assert_eq!(format_bytes(1536), "1.50 KiB");
        assert_eq!(format_bytes(100), "100 B");
    }
}
