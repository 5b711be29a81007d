//! `nodebench slurm ...`: run a suite on the nodes of a Slurm cluster and
//! collect their runs.

use std::path::PathBuf;
use std::time::Duration;

use clap::{ArgAction, Args, Subcommand};
use nodebench_slurm::config::DEFAULT_DIR;

use super::parse;

/// `nodebench slurm ...`
#[derive(Debug, Subcommand)]
pub enum SlurmCommand {
    /// Write the sbatch script that runs SUITE once on each of N nodes
    /// (each writing its run as JSON into DIR/JOBID/) and submit it with
    /// sbatch; --dry-run prints the script instead.
    Submit(SubmitArgs),
    /// Save the runs of job JOBID's nodes (DIR/JOBID/NODE.json) in the
    /// store, tagged node=NODE and slurm_job=JOBID; --wait waits for the
    /// job to end first.
    Collect(CollectArgs),
}

/// Options of `slurm submit`.
#[derive(Debug, Args)]
pub struct SubmitArgs {
    /// A built-in suite's name or the path of a suite file.
    #[arg(value_name = "NAME|FILE")]
    pub suite: String,
    /// How many nodes: the suite runs once on each (one task per node).
    #[arg(long, value_name = "N")]
    pub nodes: u32,
    /// The partition (default: the cluster's default partition).
    #[arg(long, value_name = "NAME")]
    pub partition: Option<String>,
    /// Whole nodes, shared with no other job (the default; --exclusive=false
    /// lets other jobs share them). The value needs `=`, so a bare
    /// `--exclusive` never takes the next argument as its value.
    #[arg(long, value_name = "BOOL", action = ArgAction::Set, num_args = 0..=1,
          require_equals = true, default_value_t = true, default_missing_value = "true")]
    pub exclusive: bool,
    /// The job's time limit, e.g. 30m or 2h (default: the partition's).
    #[arg(long, value_name = "DURATION", value_parser = parse::parse_duration)]
    pub time: Option<Duration>,
    /// Directory, on a file system the nodes share, where each job writes
    /// DIR/JOBID/NODE.json.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_DIR)]
    pub dir: PathBuf,
    /// Where the nodebench binaries of other architectures are: release
    /// archives (nodebench-VERSION-ARCH-linux-gnu.tar.gz), their unpacked
    /// folders or files named nodebench. They are copied to DIR/bin/ID/ and
    /// each node runs the one of its architecture; this binary serves its
    /// own architecture where the folder has none.
    #[arg(long, value_name = "DIR")]
    pub binary_dir: Option<PathBuf>,
    /// Print the sbatch script and submit nothing.
    #[arg(long)]
    pub dry_run: bool,
}

/// Options of `slurm collect`.
#[derive(Debug, Args)]
pub struct CollectArgs {
    /// The job id `slurm submit` printed.
    #[arg(value_name = "JOBID")]
    pub job: u64,
    /// The directory the job was submitted with.
    #[arg(long, value_name = "DIR", default_value = DEFAULT_DIR)]
    pub dir: PathBuf,
    /// Wait up to this long for the job to end (polling squeue), e.g. 10m;
    /// without it a job still pending or running is refused.
    #[arg(long, value_name = "DURATION", value_parser = parse::parse_duration)]
    pub wait: Option<Duration>,
}
