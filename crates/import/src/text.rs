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
}
