//! The tools' output formats: one module each, with `detect` (does this text
//! look like the tool's output?) and `parse` (its results, or what was
//! expected and is missing). [`Format`] names them for `--format` and the
//! `source` tag.

mod ab;
mod dd;
mod fio;
mod hpcc;
mod hpl;
mod httperf;
mod iozone;
mod iperf;
mod iperf3;
mod linpack;
mod stream;
mod sysbench;
mod transfer;
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
        /// iperf3's text or `-J` JSON output (client or server).
        Iperf3 => "iperf3",
        /// iperf 2's text output (client or server, TCP or UDP).
        Iperf => "iperf",
        /// sysbench 1.0's report (cpu, memory, fileio or an OLTP script).
        Sysbench => "sysbench",
        /// fio's `--output-format=json` or `json+`.
        Fio => "fio",
        /// HPC Challenge's `hpccoutf.txt`.
        Hpcc => "hpcc",
        /// HPL's (xhpl's) output.
        Hpl => "hpl",
        /// Intel's optimized LINPACK (`xlinpack_xeon64`) output.
        Linpack => "linpack",
        /// dd's summary lines (`... bytes (...) copied, S s, R MB/s`).
        Dd => "dd",
    }
}

/// The formats in the order detection tries them: the most specific
/// markers first, so that a format whose marker another tool's output can
/// also contain is tried last (HPCC's output holds HPL's and STREAM-like
/// figures, so hpcc comes before hpl and stream).
#[rustfmt::skip]
const DETECT_ORDER: &[Format] = &[
    Format::Fio,
    Format::Hpcc,
    Format::Hpl,
    Format::Linpack,
    Format::Iperf3,
    Format::Iperf,
    Format::Sysbench,
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
    DETECT_ORDER.iter().copied().find(|f| detect_one(*f, text))
}

/// Whether `format`'s own detector recognises `text`.
fn detect_one(format: Format, text: &str) -> bool {
    match format {
        Format::Ab => ab::detect(text),
        Format::Httperf => httperf::detect(text),
        Format::Wrk => wrk::detect(text),
        Format::Stream => stream::detect(text),
        Format::Iozone => iozone::detect(text),
        Format::Iperf3 => iperf3::detect(text),
        Format::Iperf => iperf::detect(text),
        Format::Sysbench => sysbench::detect(text),
        Format::Fio => fio::detect(text),
        Format::Hpcc => hpcc::detect(text),
        Format::Hpl => hpl::detect(text),
        Format::Linpack => linpack::detect(text),
        Format::Dd => dd::detect(text),
    }
}
/// True when `text` is HPC Challenge's output, which holds HPL's: the hpl
/// format leaves such files to the hpcc one (here, so that hpl and hpcc,
/// which reads HPL's rows with hpl's parser, do not use each other).
fn is_hpcc(text: &str) -> bool {
    hpcc::detect(text)
}

/// Parses `text` as `format`; the error says what was expected.
pub(crate) fn parse(format: Format, text: &str) -> Result<Vec<BenchResult>, String> {
    match format {
        Format::Ab => ab::parse(text),
        Format::Httperf => httperf::parse(text),
        Format::Wrk => wrk::parse(text),
        Format::Stream => stream::parse(text),
        Format::Iozone => iozone::parse(text),
        Format::Iperf3 => iperf3::parse(text),
        Format::Iperf => iperf::parse(text),
        Format::Sysbench => sysbench::parse(text),
        Format::Fio => fio::parse(text),
        Format::Hpcc => hpcc::parse(text),
        Format::Hpl => hpl::parse(text),
        Format::Linpack => linpack::parse(text),
        Format::Dd => dd::parse(text),
    }
}

/// Where the source's own figures disagree (`more`, printed as
/// `more_label`, above `fewer`, printed as `fewer_label`, which cannot
/// hold), a warning on `r` saying so: both figures are kept as printed.
pub(crate) fn warn_if_above(
    r: &mut BenchResult,
    (more_label, more): (&str, Option<f64>),
    (fewer_label, fewer): (&str, Option<f64>),
) {
    if let (Some(more), Some(fewer)) = (more, fewer)
        && more > fewer
    {
        r.warnings.push(format!(
            "the source disagrees with itself: {more_label} ({more}) exceed {fewer_label} ({fewer}); both imported as printed"
        ));
    }
}

/// The value of a result's metric `name` with `labels`, for the format
/// tests; panics naming what is missing.
#[cfg(test)]
pub(crate) fn value(r: &BenchResult, name: &str, labels: &[(&str, &str)]) -> f64 {
    r.metric(name, labels)
        .unwrap_or_else(|| panic!("no {name} {labels:?} in {:?}", r.metrics))
        .value
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
                .filter(|f| detect_one(*f, text))
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

    /// A file cut in half is refused, unless it is a transcript of several
    /// tests (dd's, iperf's) cut between two of them: then it is a whole
    /// transcript of the tests before the cut, and must read exactly as
    /// those.
    #[test]
    fn every_fixture_cut_in_half_is_refused() {
        let same = |a: &BenchResult, b: &BenchResult| {
            (&a.benchmark, &a.parameters, &a.metrics) == (&b.benchmark, &b.parameters, &b.metrics)
        };
        for (name, format, text) in fixtures() {
            let whole = parse(format, &text).unwrap();
            let mut half = text.len() / 2;
            while !text.is_char_boundary(half) {
                half -= 1;
            }
            if let Ok(cut) = crate::import(&text[..half], Some(format)) {
                assert!(
                    cut.results.len() < whole.len()
                        && cut.results.iter().zip(&whole).all(|(a, b)| same(a, b)),
                    "{name} cut at byte {half} imported: {cut:?}"
                );
            }
        }
    }

    #[test]
    fn no_prefix_of_a_fixture_makes_a_parser_panic() {
        for (name, _, text) in fixtures() {
            let cuts = (0..text.len())
                .step_by(17)
                .filter(|&i| text.is_char_boundary(i));
            for cut in cuts {
                for f in Format::ALL {
                    let prefix = &text[..cut];
                    let r =
                        std::panic::catch_unwind(|| (detect_one(*f, prefix), parse(*f, prefix)));
                    assert!(r.is_ok(), "{f} panicked on {name} cut at {cut}");
                }
            }
        }
    }
}
