//! nodebench on a Slurm cluster: `nodebench slurm submit` writes an sbatch
//! script that runs a suite on N nodes, one task per node, each writing its
//! run as JSON into the job's directory on a shared file system, and hands
//! it to `sbatch`; `nodebench slurm collect` waits for the job (through
//! `squeue`) and reads every node's run back, tagged with its node and job,
//! for the CLI to save. Slurm does the scheduling; nothing here measures.
//!
//! [`config`] holds what to submit and its checks, [`script`] the sbatch
//! script, [`scheduler`] the `sbatch`/`squeue` calls, [`collect`] the
//! reading of a finished job's directory.

#![warn(missing_docs)]

pub mod collect;
pub mod config;
pub mod error;
pub mod scheduler;
pub mod script;

pub use collect::{NodeRun, collect};
pub use config::SubmitConfig;
pub use error::SlurmError;
pub use scheduler::{JobState, job_state, submit, wait_for_end};
pub use script::sbatch_script;
