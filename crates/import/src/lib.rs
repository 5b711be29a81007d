//! Import of the classic tools' outputs (ab, httperf, wrk, STREAM, IOzone,
//! iperf, fio, LINPACK, HPCC, sysbench, dd) into the result model, so a
//! user's old measurements can be stored and compared with nodebench's.
//!
//! Each format lives in its own module under [`formats`]: a `detect` that
//! recognises the tool's output from its content and a `parse` that turns
//! it into [`BenchResult`]s named with nodebench's own benchmark ids, metric
//! names and labels (core's `names`) wherever the tool measures what a
//! nodebench benchmark measures, in canonical units. Parsing is all or
//! nothing: a file that stops part-way is refused, never half-imported.

pub mod formats;
mod text;

use std::collections::BTreeMap;
use std::fmt;

use nodebench_core::model::{BenchResult, Run, RunStatus};

pub use formats::Format;

/// The tag every imported run carries, naming the tool (`source=ab`).
pub const SOURCE_TAG: &str = "source";

/// The first word of an imported run's command line; the file's path follows.
pub const COMMAND: &str = "import";

/// Parameters every format records where the tool's output prints them.
pub mod param {
    /// The tool's version as its output prints it (`2.3`, `3.508`).
    pub const TOOL_VERSION: &str = "tool_version";
    /// The tool's command line as its output prints it.
    pub const TOOL_COMMAND: &str = "tool_command";
}

/// One file's figures, parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct Imported {
    /// The format it was read as.
    pub format: Format,
    /// Its results, in the order the file prints them.
    pub results: Vec<BenchResult>,
}

/// Why a file could not be imported.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportError {
    /// No format recognised the content.
    Unrecognised,
    /// The content looks like `format` but is truncated or malformed: `what`
    /// says what was expected and missing.
    Malformed {
        /// The format it was read as.
        format: Format,
        /// What was expected.
        what: String,
    },
}

impl fmt::Display for ImportError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ImportError::Unrecognised => write!(
                f,
                "not a recognised tool output (expected the output of one of: {}; or name it with --format)",
                formats::names().join(", ")
            ),
            ImportError::Malformed { format, what } => {
                write!(f, "not a complete {format} output: {what}")
            }
        }
    }
}

impl std::error::Error for ImportError {}

impl nodebench_core::error::Kind for ImportError {
    /// A file that is not a tool's output is input (exit 2).
    fn kind(&self) -> nodebench_core::error::ErrorKind {
        nodebench_core::error::ErrorKind::Usage
    }
}

/// Parses `text` as `format`, or as the format its content is recognised
/// as when `format` is `None`.
pub fn import(text: &str, format: Option<Format>) -> Result<Imported, ImportError> {
    let format = match format {
        Some(f) => f,
        None => formats::detect(text).ok_or(ImportError::Unrecognised)?,
    };
    let results =
        formats::parse(format, text).map_err(|what| ImportError::Malformed { format, what })?;
    if results.is_empty() {
        return Err(ImportError::Malformed {
            format,
            what: "no results in it".into(),
        });
    }
    let overflow = results
        .iter()
        .flat_map(|r| &r.metrics)
        .find(|m| !m.value.is_finite());
    if let Some(m) = overflow {
        return Err(ImportError::Malformed {
            format,
            what: format!("a figure out of range ({} is {})", m.name, m.value),
        });
    }
    Ok(Imported { format, results })
}

/// The run that stores `imported`, read from `file`: its command line is
/// `import FILE`, its tags are `tags` plus [`SOURCE_TAG`]`=<format>`, it has
/// no inventory (the machine that ran the tool is not this one), and it is
/// complete.
pub fn to_run(imported: Imported, file: &str, tags: &BTreeMap<String, String>) -> Run {
    let mut tags = tags.clone();
    tags.insert(SOURCE_TAG.into(), imported.format.to_string());
    let mut run = Run::start(vec![COMMAND.into(), file.into()], tags);
    run.results = imported.results;
    run.ended_at = Some(run.started_at);
    run.status = RunStatus::Complete;
    run
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn foreign_text_is_unrecognised_and_names_the_formats() {
        let e = import("hello world\n", None).unwrap_err();
        assert_eq!(e, ImportError::Unrecognised);
        let line = e.to_string();
        assert!(line.contains("dd"), "{line}");
        assert!(!line.contains('\n'), "{line}");
    }

    #[test]
    fn a_figure_out_of_range_is_refused() {
        // 1e308 kB/s is finite as printed and infinite in bytes per second.
        let text = "File size set to 1024 kB\n\
                    kB  reclen    write\n\
                    1024      64   1e308\n";
        let e = import(text, Some(Format::Iozone)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "not a complete iozone output: a figure out of range (bandwidth is inf)"
        );
    }

    #[test]
    fn a_run_is_tagged_with_its_source() {
        let imported = import(
            "1+0 records in\n1+0 records out\n1048576 bytes (1.0 MB, 1.0 MiB) copied, 0.5 s, 2.1 MB/s\n",
            None,
        )
        .unwrap();
        let run = to_run(imported, "dd.txt", &BTreeMap::new());
        assert_eq!(run.tags.get(SOURCE_TAG).map(String::as_str), Some("dd"));
        assert_eq!(run.command_line, vec!["import", "dd.txt"]);
        assert_eq!(run.status, RunStatus::Complete);
        assert!(run.inventory.is_none());
    }
}
