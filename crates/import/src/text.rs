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

/// A text's whitespace-separated words, each with its line number: the
/// outputs are matched word by word, so a report that re-wrapped a tool's
/// lines (as the seeds' PDF copies did) reads the same as the original.
pub(crate) struct Words<'a> {
    words: Vec<(&'a str, usize)>,
}

impl<'a> Words<'a> {
    /// The words of `text`.
    pub(crate) fn new(text: &'a str) -> Self {
        let words = text
            .lines()
            .enumerate()
            .flat_map(|(i, l)| l.split_whitespace().map(move |w| (w, i + 1)))
            .collect();
        Words { words }
    }

    /// The word at `i`.
    pub(crate) fn get(&self, i: usize) -> Option<&'a str> {
        self.words.get(i).map(|w| w.0)
    }

    /// The word at `i` as a number ([`number`]).
    pub(crate) fn number(&self, i: usize) -> Option<f64> {
        number(self.get(i)?)
    }

    /// The line (from 1) of the word at `i`, or the last line past the end.
    pub(crate) fn line(&self, i: usize) -> usize {
        self.words.get(i).or(self.words.last()).map_or(1, |w| w.1)
    }

    /// The index just after the first occurrence of `phrase`'s words at or
    /// after word `from`.
    pub(crate) fn find(&self, phrase: &str, from: usize) -> Option<usize> {
        let want: Vec<&str> = phrase.split_whitespace().collect();
        let last = self.words.len().checked_sub(want.len())?;
        if want.is_empty() || from > last {
            return None;
        }
        (from..=last)
            .find(|&i| {
                want.iter()
                    .enumerate()
                    .all(|(k, w)| self.words[i + k].0 == *w)
            })
            .map(|i| i + want.len())
    }

    /// True when `phrase` occurs.
    pub(crate) fn contains(&self, phrase: &str) -> bool {
        self.find(phrase, 0).is_some()
    }

    /// The number right after `phrase`: `Err` names the phrase, and the
    /// line when the phrase is there but its number is not.
    pub(crate) fn number_after(&self, phrase: &str) -> Result<f64, String> {
        let i = self
            .find(phrase, 0)
            .ok_or_else(|| format!("expected `{phrase}`"))?;
        self.number(i)
            .ok_or_else(|| format!("line {}: expected a number after `{phrase}`", self.line(i)))
    }

    /// The `n` numbers right after word `i`, or `None` if any is missing.
    pub(crate) fn numbers(&self, i: usize, n: usize) -> Option<Vec<f64>> {
        (i..i + n).map(|k| self.number(k)).collect()
    }
}

/// Splits `12.5ms` into the number and its unit (`12.5`, `ms`).
pub(crate) fn number_unit(s: &str) -> Option<(f64, &str)> {
    let (n, unit) = split_figure(s);
    Some((number(n)?, unit))
}

/// `12.5ms` as written, split into its number's text and its unit
/// (`12.5`, `ms`): the form an imported figure is printed in.
pub(crate) fn split_figure(s: &str) -> (&str, &str) {
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == '-' || c == '+'))
        .unwrap_or(s.len());
    s.split_at(split)
}

/// Seconds in a duration written with its unit: `us`, `ms`, `s`, `m`,
/// `h`. Sub-second units shift the decimal exponent (`12.5ms` is read as
/// `12.5e-3`), so the value is the double nearest the printed figure.
pub(crate) fn seconds(s: &str) -> Option<f64> {
    let (_, unit) = number_unit(s)?;
    let digits = &s[..s.len() - unit.len()];
    let (exponent, scale) = match unit {
        "us" => ("e-6", 1.0),
        "ms" => ("e-3", 1.0),
        "s" => ("", 1.0),
        "m" => ("", 60.0),
        "h" => ("", 3600.0),
        _ => return None,
    };
    Some(number(&format!("{digits}{exponent}"))? * scale)
}

/// Milliseconds to seconds, for the tools that print milliseconds: the
/// decimal exponent is shifted (`1.6` is read back as `1.6e-3`), so the
/// value is the double nearest the printed figure in seconds.
pub(crate) fn ms(v: f64) -> f64 {
    format!("{v}e-3").parse().unwrap_or(v / 1e3)
}

/// The value of `--name=value` or `--name value` in `args`.
pub(crate) fn option<'a>(args: &[&'a str], name: &str) -> Option<&'a str> {
    args.iter().enumerate().find_map(|(i, a)| {
        let rest = a.strip_prefix(name)?;
        match rest.strip_prefix('=') {
            Some(v) => Some(v),
            None if rest.is_empty() => args.get(i + 1).copied(),
            None => None,
        }
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
pub(crate) fn flag_value<'a>(command: &'a str, flag: &str) -> Option<&'a str> {
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
    fn words_across_wrapped_lines() {
        let w = Words::new(
            "Time per request:   0.505 [ms] (mean, across all \n\nconcurrent requests)\n",
        );
        assert_eq!(w.find("(mean, across all concurrent", 0), Some(9));
        assert_eq!(w.number_after("Time per request:"), Ok(0.505));
        assert_eq!(w.line(8), 3);
        let e = w.number_after("Requests per second:").unwrap_err();
        assert_eq!(e, "expected `Requests per second:`");
        // A phrase longer than the text (found by fuzz_import).
        assert_eq!(Words::new("a b c").find("a b c d", 0), None);
        assert_eq!(Words::new("a b c").find("b c", 1), Some(3));
        assert_eq!(Words::new("a b c").find("b c", 2), None);
        let e = Words::new("Rate: x\n").number_after("Rate:").unwrap_err();
        assert_eq!(e, "line 1: expected a number after `Rate:`");
    }

    #[test]
    fn durations_and_options() {
        assert_eq!(seconds("12.5ms"), Some(0.0125));
        assert_eq!(seconds("478.22us"), Some(478.22e-6));
        assert_eq!(seconds("3s"), Some(3.0));
        assert_eq!(seconds("3x"), None);
        assert_eq!(ms(1.6), 0.0016);
        assert_eq!(ms(596.7), 0.5967);
        let args = ["--rate=200", "--server", "h", "--uri=/"];
        assert_eq!(option(&args, "--rate"), Some("200"));
        assert_eq!(option(&args, "--server"), Some("h"));
        assert_eq!(option(&args, "--port"), None);
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
        assert_eq!(flag_value(c, "-t"), Some("30"));
        assert_eq!(flag_value(c, "-w"), Some("32M"));
        assert_eq!(flag_value(c, "-P"), None);
        assert!(has_flag(c, "-u"));
        assert!(!has_flag(c, "-R"));
    }
}
