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
}
