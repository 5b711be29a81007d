//! `nodebench import FILE...`: the classic tools' outputs into the store.

use std::path::PathBuf;

use clap::Args;
use nodebench_import::Format;

/// `nodebench import FILE... [--format F]`
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// Tool output files (ab, httperf, wrk/wrk2, STREAM, IOzone, dd...);
    /// one run is saved per file, tagged source=<format>.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Read every file as this format instead of recognising it from its content.
    #[arg(long, value_name = "FORMAT")]
    pub format: Option<Format>,
}
