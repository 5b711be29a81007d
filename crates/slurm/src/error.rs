//! Errors of the Slurm commands: one line each.

use std::path::PathBuf;

/// What can go wrong submitting or collecting a job.
#[derive(Debug, thiserror::Error)]
pub enum SlurmError {
    /// A value the flags gave cannot be used (names the flag and the
    /// accepted form).
    #[error("{0}")]
    Invalid(String),
    /// A Slurm command could not be started (not installed, not on PATH).
    #[error("cannot run {command}: {source} (is this a Slurm submit host with {command} on PATH?)")]
    Spawn {
        /// The command, e.g. `sbatch`.
        command: &'static str,
        /// Why it could not start.
        source: std::io::Error,
    },
    /// A Slurm command ran and refused (its stderr, on one line).
    #[error("{command} failed: {message}")]
    Command {
        /// The command, e.g. `sbatch`.
        command: &'static str,
        /// What it said.
        message: String,
    },
    /// A file or directory of the job could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        /// The path.
        path: PathBuf,
        /// What happened.
        source: std::io::Error,
    },
    /// The job has not ended yet.
    #[error(
        "job {job} is {state}: collect it when it has ended, or wait for it with --wait DURATION"
    )]
    NotEnded {
        /// The job id.
        job: u64,
        /// Its state, as squeue says it.
        state: String,
    },
    /// The job did not end within the time given.
    #[error("job {job} is still {state} after {waited_s} s (--wait)")]
    Timeout {
        /// The job id.
        job: u64,
        /// Its state at the end of the wait.
        state: String,
        /// How long it was waited for, in seconds.
        waited_s: u64,
    },
}

impl nodebench_core::error::Kind for SlurmError {
    /// A value the flags gave is input (exit 2); a Slurm command, a file
    /// or a job that did not end failed (exit 1).
    fn kind(&self) -> nodebench_core::error::ErrorKind {
        use nodebench_core::error::ErrorKind;
        match self {
            SlurmError::Invalid(_) => ErrorKind::Usage,
            _ => ErrorKind::Failed,
        }
    }
}
