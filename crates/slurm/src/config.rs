//! What `nodebench slurm submit` submits, and its checks.

use std::path::PathBuf;
use std::time::Duration;

use crate::SlurmError;

/// Where jobs write their runs unless `--dir` says (relative to the
/// submitting directory, which Slurm clusters usually share).
pub const DEFAULT_DIR: &str = "nodebench-slurm";

/// A suite to run on `nodes` nodes of a Slurm cluster.
#[derive(Debug, Clone, PartialEq)]
pub struct SubmitConfig {
    /// The suite: a built-in's name or an absolute suite file path, as
    /// `nodebench suite run` takes it on the nodes.
    pub suite: String,
    /// The suite's name, for the job name.
    pub suite_name: String,
    /// How many nodes (one task on each).
    pub nodes: u32,
    /// The partition; `None`: the cluster's default.
    pub partition: Option<String>,
    /// Whole nodes, shared with no other job (the default: a benchmark
    /// must not share its node).
    pub exclusive: bool,
    /// The job's time limit; `None`: the partition's.
    pub time: Option<Duration>,
    /// The absolute directory, on a file system every node and the
    /// submitting host see, where each job gets a directory `JOBID/`.
    pub dir: PathBuf,
    /// The nodebench binaries the nodes run, by architecture (`uname -m`:
    /// `x86_64`, `aarch64`), each at a path every node sees; a node whose
    /// architecture has none fails on its own with one line.
    pub binaries: Vec<(String, PathBuf)>,
}

impl SubmitConfig {
    /// Checks every field: one line naming the flag and the accepted form.
    pub fn validate(&self) -> Result<(), SlurmError> {
        let invalid = |m: String| Err(SlurmError::Invalid(m));
        if self.nodes == 0 {
            return invalid("--nodes: expected a node count of at least 1".into());
        }
        if let Some(p) = &self.partition
            && (p.is_empty()
                || !p
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ',')))
        {
            return invalid(format!(
                "--partition: '{p}' is not a partition name (letters, digits, _ - . and , between several)"
            ));
        }
        if let Some(t) = self.time
            && t < Duration::from_secs(60)
        {
            return invalid(
                "--time: expected at least 1 minute (Slurm counts time limits in minutes), e.g. 30m or 2h"
                    .into(),
            );
        }
        let dir = self.dir.to_string_lossy();
        if !self.dir.is_absolute()
            || dir
                .chars()
                .any(|c| c.is_whitespace() || c.is_control() || c == '%')
        {
            return invalid(format!(
                "--dir: '{dir}' cannot hold the job's output: expected an absolute path without spaces or '%' on a file system the nodes share"
            ));
        }
        if self.suite.is_empty() || self.suite.chars().any(char::is_control) {
            return invalid("SUITE: expected a built-in suite's name or a suite file".into());
        }
        if self.binaries.is_empty()
            || self.binaries.iter().any(|(arch, _)| {
                arch.is_empty() || !arch.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            })
        {
            return invalid(
                "--binary-dir: expected nodebench binaries of named architectures (x86_64, aarch64)"
                    .into(),
            );
        }
        Ok(())
    }
}

/// `d` as a Slurm time limit, `D-HH:MM:SS` (whole seconds, rounded up).
pub fn slurm_time(d: Duration) -> String {
    let secs = d.as_secs() + u64::from(d.subsec_nanos() > 0);
    format!(
        "{}-{:02}:{:02}:{:02}",
        secs / 86_400,
        secs / 3600 % 24,
        secs / 60 % 60,
        secs % 60
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config() -> SubmitConfig {
        SubmitConfig {
            suite: "quick".into(),
            suite_name: "quick".into(),
            nodes: 2,
            partition: Some("batch".into()),
            exclusive: true,
            time: Some(Duration::from_secs(1800)),
            dir: PathBuf::from("/shared/nodebench-slurm"),
            binaries: vec![(
                "x86_64".into(),
                PathBuf::from("/opt/nodebench/bin/nodebench"),
            )],
        }
    }

    #[test]
    fn a_valid_config_passes_and_each_bad_field_names_its_flag() {
        assert!(config().validate().is_ok());
        let refusal = |c: SubmitConfig| c.validate().unwrap_err().to_string();
        assert!(
            refusal(SubmitConfig {
                nodes: 0,
                ..config()
            })
            .starts_with("--nodes: ")
        );
        assert!(
            refusal(SubmitConfig {
                partition: Some("a b".into()),
                ..config()
            })
            .starts_with("--partition: 'a b' is not a partition name")
        );
        assert!(
            refusal(SubmitConfig {
                time: Some(Duration::from_secs(59)),
                ..config()
            })
            .starts_with("--time: expected at least 1 minute")
        );
        for dir in ["relative/dir", "/with space", "/per%cent"] {
            assert!(
                refusal(SubmitConfig {
                    dir: dir.into(),
                    ..config()
                })
                .starts_with(&format!("--dir: '{dir}'")),
                "{dir}"
            );
        }
    }

    #[test]
    fn time_limits_are_days_hours_minutes_seconds() {
        assert_eq!(slurm_time(Duration::from_secs(1800)), "0-00:30:00");
        assert_eq!(slurm_time(Duration::from_secs(90_061)), "1-01:01:01");
        assert_eq!(slurm_time(Duration::from_millis(60_001)), "0-00:01:01");
    }
}
