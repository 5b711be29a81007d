//! `nodebench compare A B [C ...]`: what each side names, and the output
//! format.

use clap::Args;
use nodebench_report::compare::CompareFormat;

pub use super::runid::RunSpec as SideSpec;

/// `nodebench compare` arguments.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The runs to compare, the first being the baseline: each a run id,
    /// `latest`, `latest~N` (the Nth before the newest), or `tag:KEY=VALUE`
    /// (every run with that tag, pooled as repeats).
    #[arg(value_name = "RUN")]
    pub sides: Vec<SideSpec>,
    /// table, md or csv (`--json` prints the comparison model).
    #[arg(long, value_name = "FORMAT", default_value_t = CompareFormat::Table)]
    pub format: CompareFormat,
    /// Match only results of identical workloads. Without it, results that
    /// differ only in their scale (array size, file and record size, bytes
    /// moved) are compared, the difference shown on the row and warned.
    #[arg(long)]
    pub strict: bool,
}
