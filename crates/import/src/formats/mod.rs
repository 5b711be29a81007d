//! The tools' output formats: one module each, with `detect` (does this text
//! look like the tool's output?) and `parse` (its results, or what was
//! expected and is missing). [`Format`] names them for `--format` and the
//! `source` tag.

mod ab;
mod dd;
mod httperf;
mod iozone;
mod stream;
mod wrk;

use nodebench_core::choice;
use nodebench_core::config::Choice;
use nodebench_core::model::BenchResult;

choice! {
    /// A tool output format that can be imported.
    pub enum Format {
        /// ApacheBench's report (`This is ApacheBench`, `Requests per second:`).
        Ab => "ab",
        /// httperf's report (`Reply rate [replies/s]:`, `Reply status:`).
        Httperf => "httperf",
        /// wrk's and wrk2's report (`Thread Stats`, `Requests/sec:`), with `--latency`'s distribution.
        Wrk => "wrk",
        /// STREAM's report (stream.c: `Best Rate MB/s` table, `Copy:` ... `Triad:`).
        Stream => "stream",
        /// IOzone's report: a normal or `-a` auto-mode table, or `-t` throughput-mode blocks.
        Iozone => "iozone",
        /// dd's summary lines (`... bytes (...) copied, S s, R MB/s`).
        Dd => "dd",
    }
}

/// The formats in the order detection tries them: the most specific
/// markers first, so that a format whose marker another tool's output can
/// also contain is tried last.
const DETECT_ORDER: &[Format] = &[
    Format::Ab,
    Format::Httperf,
    Format::Wrk,
    Format::Stream,
    Format::Iozone,
    Format::Dd,
];

/// Every format's name, for error messages.
pub(crate) fn names() -> Vec<&'static str> {
    Format::ALL.iter().map(|f| f.as_str()).collect()
}

/// The first format in [`DETECT_ORDER`] that recognises `text`.
pub(crate) fn detect(text: &str) -> Option<Format> {
    DETECT_ORDER.iter().copied().find(|f| match f {
        Format::Dd => dd::detect(text),
        Format::Iozone => iozone::detect(text),
        Format::Stream => stream::detect(text),
        Format::Wrk => wrk::detect(text),
        Format::Httperf => httperf::detect(text),
        Format::Ab => ab::detect(text),
    })
}

/// Parses `text` as `format`; the error says what was expected.
pub(crate) fn parse(format: Format, text: &str) -> Result<Vec<BenchResult>, String> {
    match format {
        Format::Dd => dd::parse(text),
        Format::Iozone => iozone::parse(text),
        Format::Stream => stream::parse(text),
        Format::Wrk => wrk::parse(text),
        Format::Httperf => httperf::parse(text),
        Format::Ab => ab::parse(text),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detection_tries_every_format() {
        for f in Format::ALL {
            assert!(DETECT_ORDER.contains(f), "{f} is not in DETECT_ORDER");
        }
        assert_eq!(DETECT_ORDER.len(), Format::ALL.len());
    }

    /// Every fixture in tests/fixtures with the format its name starts
    /// with (`ab-local.txt` is ab's): the directory is read at test time,
    /// so fixtures added later are covered.
    fn fixtures() -> Vec<(String, Format, String)> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
        let mut out = Vec::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if !path.is_file() || name == "README.md" {
                continue;
            }
            let prefix = name.split(['-', '.']).next().unwrap();
            let format: Format = prefix
                .parse()
                .unwrap_or_else(|_| panic!("{name}: no format named {prefix}"));
            out.push((name, format, std::fs::read_to_string(&path).unwrap()));
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    #[test]
    fn every_fixture_is_detected_as_exactly_its_own_format() {
        let all = fixtures();
        assert!(all.len() >= Format::ALL.len(), "a fixture per format");
        for (name, format, text) in &all {
            let claimed: Vec<Format> = Format::ALL
                .iter()
                .copied()
                .filter(|f| match f {
                    Format::Dd => dd::detect(text),
                    Format::Iozone => iozone::detect(text),
                    Format::Stream => stream::detect(text),
                    Format::Wrk => wrk::detect(text),
                    Format::Httperf => httperf::detect(text),
                    Format::Ab => ab::detect(text),
                })
                .collect();
            assert_eq!(claimed, vec![*format], "{name}");
            assert_eq!(detect(text), Some(*format), "{name}");
        }
    }

    #[test]
    fn every_fixture_parses_and_is_refused_by_the_other_formats() {
        for (name, format, text) in fixtures() {
            let results = parse(format, &text).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(!results.is_empty(), "{name}");
            for other in Format::ALL.iter().filter(|f| **f != format) {
                let got = crate::import(&text, Some(*other));
                assert!(got.is_err(), "{name} read as {other}: {got:?}");
            }
        }
    }

    /// A dd transcript cut between two commands is a whole transcript of
    /// fewer commands (dd's own test refuses a summary cut off); every
    /// other format is one report that a cut leaves incomplete.
    #[test]
    fn every_fixture_cut_in_half_is_refused() {
        for (name, format, text) in fixtures() {
            if format == Format::Dd {
                continue;
            }
            let mut half = text.len() / 2;
            while !text.is_char_boundary(half) {
                half -= 1;
            }
            let got = crate::import(&text[..half], Some(format));
            assert!(got.is_err(), "{name} cut at byte {half} imported: {got:?}");
        }
    }
}
