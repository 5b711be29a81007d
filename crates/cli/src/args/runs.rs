//! `nodebench runs ...`: the stored runs' commands.

use std::path::PathBuf;

use clap::Subcommand;
use nodebench_report::export::Format;

use super::runid::{OneRun, RunSpec};

/// `nodebench runs ...`
#[derive(Debug, Subcommand)]
pub enum RunsCommand {
    /// List stored runs, newest first.
    List,
    /// Show one run's tables (or its JSON with --json), or every run with
    /// a tag (oldest first; a JSON array with --json).
    Show {
        /// Run id (as `runs list` shows it), `latest`, `latest~N`, or
        /// `tag:KEY=VALUE` (every run with that tag).
        #[arg(value_name = "RUN")]
        id: RunSpec,
    },
    /// Export one run (or every run with a tag) with every metric.
    Export {
        /// Run id, `latest`, `latest~N`, or `tag:KEY=VALUE` (every run
        /// with that tag: a JSON array, one CSV, one JUnit document).
        #[arg(value_name = "RUN")]
        id: RunSpec,
        /// json, csv, md or junit (JUnit XML: a test case per result).
        #[arg(long, value_name = "FORMAT")]
        format: Format,
        /// Write to this file instead of stdout.
        #[arg(long, short, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Delete one run and all its results.
    Delete {
        /// Run id, `latest` or `latest~N`.
        #[arg(value_name = "RUN")]
        id: OneRun,
    },
}
