//! Small text helpers the format parsers share: numbers as the tools print
//! them and their unit prefixes.

/// Parses a number as the tools print it: `1234`, `1,234.5`, `1.2e+03`,
/// with surrounding spaces. `None` for anything else (and for NaN or
/// infinity).
pub(crate) fn number(s: &str) -> Option<f64> {
    let s = s.trim();
    let v: f64 = if s.contains(',') {
        s.replace(',', "").parse().ok()?
    } else {
        s.parse().ok()?
    };
    v.is_finite().then_some(v)
}

/// The multiplier of a decimal (SI) prefix letter: `k`/`K` 1e3, `M` 1e6,
/// `G` 1e9, `T` 1e12, empty 1.
pub(crate) fn decimal_prefix(p: &str) -> Option<f64> {
    Some(match p {
        "" => 1.0,
        "k" | "K" => 1e3,
        "M" => 1e6,
        "G" => 1e9,
        "T" => 1e12,
        _ => return None,
    })
}

/// The multiplier of a binary prefix: `K`/`Ki` 2^10, `M`/`Mi` 2^20,
/// `G`/`Gi` 2^30, `T`/`Ti` 2^40, empty 1 (tools that print `KB` for
/// kibibytes, as iperf and IOzone do, pass the letter alone).
pub(crate) fn binary_prefix(p: &str) -> Option<f64> {
    Some(match p.trim_end_matches('i') {
        "" => 1.0,
        "k" | "K" => 1024.0,
        "M" => 1024.0 * 1024.0,
        "G" => 1024.0 * 1024.0 * 1024.0,
        "T" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    })
}

/// Bytes of an iperf transfer figure, `6.44` `GBytes`: iperf (2 and 3)
/// counts bytes in powers of 1024 (`KBytes`, `MBytes`, `GBytes`, `TBytes`).
pub(crate) fn iperf_bytes(value: &str, unit: &str) -> Option<f64> {
    Some(number(value)? * binary_prefix(unit.strip_suffix("Bytes")?)?)
}

/// Bits per second of an iperf rate figure, `18.4` `Gbits/sec`: iperf
/// counts bits in powers of 1000 (`Kbits/sec`, `Mbits/sec`, `Gbits/sec`).
pub(crate) fn iperf_bits(value: &str, unit: &str) -> Option<f64> {
    Some(number(value)? * decimal_prefix(unit.strip_suffix("bits/sec")?)?)
}

/// The value of command-line option `flag` (`-t` in `iperf -c h -t 30`):
/// the next word, or the rest of the same word (`-t30`).
pub(crate) fn option<'a>(command: &'a str, flag: &str) -> Option<&'a str> {
    let mut words = command.split_whitespace();
    while let Some(w) = words.next() {
        if w == flag {
            return words.next();
        }
        if let Some(v) = w
            .strip_prefix(flag)
            .filter(|v| !v.is_empty() && !flag.starts_with("--"))
        {
            return Some(v);
        }
    }
    None
}

/// True when `command` holds the word `flag`.
pub(crate) fn has_flag(command: &str, flag: &str) -> bool {
    command.split_whitespace().any(|w| w == flag)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_as_printed() {
        assert_eq!(number(" 1,234.5 "), Some(1234.5));
        assert_eq!(number("1.2e+03"), Some(1200.0));
        assert_eq!(number("12x"), None);
        assert_eq!(number("nan"), None);
        assert_eq!(number(""), None);
    }

    #[test]
    fn prefixes() {
        assert_eq!(decimal_prefix("M"), Some(1e6));
        assert_eq!(binary_prefix("Mi"), Some(1048576.0));
        assert_eq!(binary_prefix("K"), Some(1024.0));
        assert_eq!(decimal_prefix("X"), None);
    }

    #[test]
    fn iperf_units() {
        assert_eq!(iperf_bytes("6.44", "GBytes"), Some(6.44 * 1073741824.0));
        assert_eq!(iperf_bytes("185", "MBytes"), Some(185.0 * 1048576.0));
        assert_eq!(iperf_bytes("0.00", "Bytes"), Some(0.0));
        assert_eq!(iperf_bits("18.4", "Gbits/sec"), Some(18.4e9));
        assert_eq!(iperf_bits("0.00", "bits/sec"), Some(0.0));
        assert_eq!(iperf_bits("1", "GBytes"), None);
    }

    #[test]
    fn options_of_a_command_line() {
        let c = "iperf -c 10.0.0.1 -i 1 -t30 -w 32M -u";
        assert_eq!(option(c, "-t"), Some("30"));
        assert_eq!(option(c, "-w"), Some("32M"));
        assert_eq!(option(c, "-P"), None);
        assert!(has_flag(c, "-u"));
        assert!(!has_flag(c, "-R"));
    }
}
