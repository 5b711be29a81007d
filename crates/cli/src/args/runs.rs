//! `nodebench runs ...`: the stored runs' commands.

use std::path::PathBuf;

use clap::Subcommand;
use nodebench_report::export::Format;

/// `nodebench runs ...`
#[derive(Debug, Subcommand)]
pub enum RunsCommand {
    /// List stored runs, newest first.
    List,
    /// Show one run's tables (or its JSON with --json).
    Show {
        /// Run id, as `runs list` shows it.
        id: i64,
    },
    /// Export one run with every metric.
    Export {
        /// Run id.
        id: i64,
        /// json, csv, md or junit (JUnit XML: a test case per result).
        #[arg(long, value_name = "FORMAT")]
        format: Format,
        /// Write to this file instead of stdout.
        #[arg(long, short, value_name = "FILE")]
        output: Option<PathBuf>,
    },
    /// Delete one run and all its results.
    Delete {
        /// Run id.
        id: i64,
    },
}
