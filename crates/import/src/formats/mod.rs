//! The tools' output formats: one module each, with `detect` (does this text
//! look like the tool's output?) and `parse` (its results, or what was
//! expected and is missing). [`Format`] names them for `--format` and the
//! `source` tag.

mod dd;

use nodebench_core::choice;
use nodebench_core::config::Choice;
use nodebench_core::model::BenchResult;

choice! {
    /// A tool output format that can be imported.
    pub enum Format {
        /// dd's summary lines (`... bytes (...) copied, S s, R MB/s`).
        Dd => "dd",
    }
}

/// The formats in the order detection tries them: the most specific
/// markers first, so that a format whose marker another tool's output can
/// also contain is tried last.
const DETECT_ORDER: &[Format] = &[Format::Dd];

/// Every format's name, for error messages.
pub(crate) fn names() -> Vec<&'static str> {
    Format::ALL.iter().map(|f| f.as_str()).collect()
}

/// The first format in [`DETECT_ORDER`] that recognises `text`.
pub(crate) fn detect(text: &str) -> Option<Format> {
    DETECT_ORDER.iter().copied().find(|f| match f {
        Format::Dd => dd::detect(text),
    })
}

/// Parses `text` as `format`; the error says what was expected.
pub(crate) fn parse(format: Format, text: &str) -> Result<Vec<BenchResult>, String> {
    match format {
        Format::Dd => dd::parse(text),
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
}
