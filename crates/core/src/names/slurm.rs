//! Names `nodebench slurm collect` gives the runs a Slurm job's nodes made.

/// Run tag: the Slurm node (`SLURMD_NODENAME`) the run ran on.
pub const NODE_TAG: &str = "node";
/// Run tag: the Slurm job id the run belongs to.
pub const JOB_TAG: &str = "slurm_job";
