//! The tools' output formats: one module each, with `detect` (does this text
//! look like the tool's output?) and `parse` (its results, or what was
//! expected and is missing). [`Format`] names them for `--format` and the
//! `source` tag.

mod dd;
mod fio;
mod hpcc;
mod hpl;
mod iperf;
mod iperf3;
mod linpack;
mod sysbench;
mod transfer;

use nodebench_core::choice;
use nodebench_core::config::Choice;
use nodebench_core::model::BenchResult;

choice! {
    /// A tool output format that can be imported.
    pub enum Format {
        /// dd's summary lines (`... bytes (...) copied, S s, R MB/s`).
        Dd => "dd",
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
    }
}

/// The formats in the order detection tries them: the most specific
/// markers first, so that a format whose marker another tool's output can
/// also contain is tried last.
#[rustfmt::skip]
const DETECT_ORDER: &[Format] = &[
    Format::Fio,
    Format::Hpcc,
    Format::Hpl,
    Format::Linpack,
    Format::Iperf3,
    Format::Iperf,
    Format::Sysbench,
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
        Format::Dd => dd::detect(text),
        Format::Iperf3 => iperf3::detect(text),
        Format::Iperf => iperf::detect(text),
        Format::Sysbench => sysbench::detect(text),
        Format::Fio => fio::detect(text),
        Format::Hpcc => hpcc::detect(text),
        Format::Hpl => hpl::detect(text),
        Format::Linpack => linpack::detect(text),
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
        Format::Dd => dd::parse(text),
        Format::Iperf3 => iperf3::parse(text),
        Format::Iperf => iperf::parse(text),
        Format::Sysbench => sysbench::parse(text),
        Format::Fio => fio::parse(text),
        Format::Hpcc => hpcc::parse(text),
        Format::Hpl => hpl::parse(text),
        Format::Linpack => linpack::parse(text),
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

    #[test]
    fn no_prefix_of_a_fixture_makes_a_parser_panic() {
        for (_, name, text) in FIXTURES {
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

    /// Every fixture with the format it was made by.
    #[rustfmt::skip]
    const FIXTURES: &[(Format, &str, &str)] = &[
        (Format::Dd, "dd-seed001.txt", include_str!("../../tests/fixtures/dd-seed001.txt")),
        (Format::Iperf3, "iperf3-tcp.txt", include_str!("../../tests/fixtures/iperf3-tcp.txt")),
        (Format::Iperf3, "iperf3-udp-p2.txt", include_str!("../../tests/fixtures/iperf3-udp-p2.txt")),
        (Format::Iperf3, "iperf3-reverse-verbose.txt", include_str!("../../tests/fixtures/iperf3-reverse-verbose.txt")),
        (Format::Iperf3, "iperf3-server-reverse.txt", include_str!("../../tests/fixtures/iperf3-server-reverse.txt")),
        (Format::Iperf3, "iperf3-tcp.json", include_str!("../../tests/fixtures/iperf3-tcp.json")),
        (Format::Iperf3, "iperf3-udp.json", include_str!("../../tests/fixtures/iperf3-udp.json")),
        (Format::Iperf, "iperf-seed001.txt", include_str!("../../tests/fixtures/iperf-seed001.txt")),
        (Format::Iperf, "iperf-tcp.txt", include_str!("../../tests/fixtures/iperf-tcp.txt")),
        (Format::Iperf, "iperf-tcp-p2.txt", include_str!("../../tests/fixtures/iperf-tcp-p2.txt")),
        (Format::Iperf, "iperf-server.txt", include_str!("../../tests/fixtures/iperf-server.txt")),
        (Format::Iperf, "iperf-udp.txt", include_str!("../../tests/fixtures/iperf-udp.txt")),
        (Format::Iperf, "iperf-udp-server.txt", include_str!("../../tests/fixtures/iperf-udp-server.txt")),
        (Format::Sysbench, "sysbench-cpu.txt", include_str!("../../tests/fixtures/sysbench-cpu.txt")),
        (Format::Sysbench, "sysbench-memory.txt", include_str!("../../tests/fixtures/sysbench-memory.txt")),
        (Format::Sysbench, "sysbench-fileio.txt", include_str!("../../tests/fixtures/sysbench-fileio.txt")),
        (Format::Sysbench, "sysbench-oltp.txt", include_str!("../../tests/fixtures/sysbench-oltp.txt")),
        (Format::Fio, "fio-randrw.json", include_str!("../../tests/fixtures/fio-randrw.json")),
        (Format::Fio, "fio-read-jsonplus.json", include_str!("../../tests/fixtures/fio-read-jsonplus.json")),
        (Format::Hpcc, "hpcc-np1.txt", include_str!("../../tests/fixtures/hpcc-np1.txt")),
        (Format::Hpcc, "hpcc-np2.txt", include_str!("../../tests/fixtures/hpcc-np2.txt")),
        (Format::Hpl, "hpl-hpcc-np1.txt", include_str!("../../tests/fixtures/hpl-hpcc-np1.txt")),
        (Format::Linpack, "linpack-seed002-relaid.txt", include_str!("../../tests/fixtures/linpack-seed002-relaid.txt")),
        (Format::Iperf3, "iperf3-bidir.json", include_str!("../../tests/fixtures/iperf3-bidir.json")),
        (Format::Iperf3, "iperf3-verbose.txt", include_str!("../../tests/fixtures/iperf3-verbose.txt")),
    ];

    #[test]
    fn every_fixture_is_detected_as_exactly_its_own_format() {
        for (format, name, text) in FIXTURES {
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
    fn every_fixture_is_refused_by_the_other_formats() {
        for (format, name, text) in FIXTURES {
            for other in Format::ALL.iter().filter(|f| *f != format) {
                let parsed = parse(*other, text);
                assert!(
                    parsed.as_ref().map_or(true, |r| r.is_empty()),
                    "{name} imported as {other}"
                );
            }
        }
    }
}
