//! The Slurm commands: `sbatch` to submit, `squeue` for a job's state.

use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::SlurmError;

/// Where a job is, as far as collecting it goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobState {
    /// Pending, running, completing...: its nodes may still write.
    Active(String),
    /// Completed, failed, cancelled, timed out...: its files are final.
    Ended(String),
    /// Slurm no longer knows it (its record was purged after it ended).
    Unknown,
}

/// States in which a job's nodes may still write (squeue's long names).
const ACTIVE: &[&str] = &[
    "PENDING",
    "CONFIGURING",
    "RUNNING",
    "COMPLETING",
    "SUSPENDED",
    "REQUEUED",
    "REQUEUE_HOLD",
    "REQUEUE_FED",
    "RESIZING",
    "SIGNALING",
    "STAGE_OUT",
    "STOPPED",
];

/// The first line of a command's stderr (or stdout), trimmed: the one line
/// a refusal is reported with.
fn first_line(out: &Output) -> String {
    let text = if out.stderr.is_empty() {
        &out.stdout
    } else {
        &out.stderr
    };
    String::from_utf8_lossy(text)
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("no message")
        .to_string()
}

/// Submits `script` (on sbatch's standard input) and returns the job id.
pub fn submit(script: &str) -> Result<u64, SlurmError> {
    let spawn = |source| SlurmError::Spawn {
        command: "sbatch",
        source,
    };
    let mut child = Command::new("sbatch")
        .arg("--parsable")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(spawn)?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(script.as_bytes()).map_err(spawn)?;
    }
    let out = child.wait_with_output().map_err(spawn)?;
    if !out.status.success() {
        return Err(SlurmError::Command {
            command: "sbatch",
            message: first_line(&out),
        });
    }
    parse_job_id(&String::from_utf8_lossy(&out.stdout)).ok_or_else(|| SlurmError::Command {
        command: "sbatch",
        message: format!("no job id in its output {:?}", first_line(&out)),
    })
}

/// The job id of `sbatch --parsable`'s output: `ID` or `ID;CLUSTER`.
fn parse_job_id(out: &str) -> Option<u64> {
    let line = out.lines().map(str::trim).find(|l| !l.is_empty())?;
    line.split(';').next()?.parse().ok()
}

/// The state of job `job`, from `squeue` (which keeps ended jobs for
/// the cluster's MinJobAge).
pub fn job_state(job: u64) -> Result<JobState, SlurmError> {
    let out = Command::new("squeue")
        .args(["--noheader", "--states=all", "--format=%T", "--jobs"])
        .arg(job.to_string())
        .output()
        .map_err(|source| SlurmError::Spawn {
            command: "squeue",
            source,
        })?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        let message = first_line(&out);
        if message.contains("Invalid job id") {
            return Ok(JobState::Unknown);
        }
        return Err(SlurmError::Command {
            command: "squeue",
            message,
        });
    }
    Ok(classify(
        stdout.lines().map(str::trim).find(|l| !l.is_empty()),
    ))
}

/// A state line of squeue (`None`: no line, the job is not known).
fn classify(state: Option<&str>) -> JobState {
    match state {
        None => JobState::Unknown,
        Some(s) if ACTIVE.contains(&s) => JobState::Active(s.to_string()),
        Some(s) => JobState::Ended(s.to_string()),
    }
}

/// Polls job `job` every `poll` until it is no longer active or `timeout`
/// has passed ([`SlurmError::Timeout`]); returns its final state.
pub fn wait_for_end(job: u64, timeout: Duration, poll: Duration) -> Result<JobState, SlurmError> {
    let start = Instant::now();
    loop {
        match job_state(job)? {
            JobState::Active(state) => {
                if start.elapsed() >= timeout {
                    return Err(SlurmError::Timeout {
                        job,
                        state,
                        waited_s: timeout.as_secs(),
                    });
                }
                std::thread::sleep(poll.min(timeout.saturating_sub(start.elapsed())));
            }
            other => return Ok(other),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sbatch_parsable_output_gives_the_job_id() {
        assert_eq!(parse_job_id("1234\n"), Some(1234));
        assert_eq!(parse_job_id("77;cluster-a\n"), Some(77));
        assert_eq!(parse_job_id("Submitted batch job 5\n"), None);
        assert_eq!(parse_job_id(""), None);
    }

    #[test]
    fn squeue_states_are_active_or_ended() {
        assert_eq!(
            classify(Some("RUNNING")),
            JobState::Active("RUNNING".into())
        );
        assert_eq!(
            classify(Some("PENDING")),
            JobState::Active("PENDING".into())
        );
        assert_eq!(
            classify(Some("COMPLETED")),
            JobState::Ended("COMPLETED".into())
        );
        assert_eq!(classify(Some("FAILED")), JobState::Ended("FAILED".into()));
        assert_eq!(classify(Some("TIMEOUT")), JobState::Ended("TIMEOUT".into()));
        assert_eq!(classify(None), JobState::Unknown);
    }
}
