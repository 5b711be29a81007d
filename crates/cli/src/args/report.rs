//! `nodebench report RUN... -o FILE.html`: the stored runs to put in one
//! HTML report (named as `compare` names its sides), and the file to write.

use std::path::PathBuf;

use clap::Args;

use super::compare::SideSpec;

/// `nodebench report` arguments.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The runs, each a run id (as `runs list` shows it), `latest`,
    /// `latest~N` (the Nth before the newest), or
    /// `tag:KEY=VALUE` (every run with that tag); with two or more, the
    /// first is the baseline of the comparison.
    #[arg(required = true, value_name = "RUN")]
    pub runs: Vec<SideSpec>,
    /// The HTML file to write (self-contained: styles and charts inline).
    #[arg(short, long, value_name = "FILE.html", required = true)]
    pub output: PathBuf,
}
