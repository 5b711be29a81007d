//! What an error means to whoever runs nodebench. Every crate's error enum
//! says which [`ErrorKind`] each of its variants is ([`Kind`]); the CLI
//! maps the kind, never the message, to its exit code
//! (`crates/cli/src/error.rs`). The core's own error enum is
//! [`BenchError`], what a benchmark and the core's helpers return.

/// Why a benchmark could not run or could not go on: the core's error
/// enum, with its kinds (below).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BenchError {
    /// The configuration is unusable; the message names the flag and the accepted form.
    #[error("{0}")]
    Invalid(String),
    /// The machine refused something the benchmark needs.
    #[error("{0}")]
    System(String),
    /// The sink (the results store) could not take a result.
    #[error("cannot save result: {0}")]
    Sink(String),
    /// Stopped by Ctrl-C or SIGTERM before the end: the text says what
    /// finished and was kept (`kept 3 finished result(s) in run 7`).
    #[error("interrupted: {0}")]
    Interrupted(String),
}

/// The kinds of error the CLI tells apart, one exit code each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// Bad input refused before anything ran: a flag, a file, a value, a
    /// run id (exit 2).
    Usage,
    /// A benchmark, check, host or node failed (exit 1).
    Failed,
    /// What this machine lacks: no NVIDIA GPU, no driver (exit 3).
    Unavailable,
    /// Stopped by Ctrl-C or SIGTERM (exit 130).
    Interrupted,
}

/// An error that knows its [`ErrorKind`]: each crate's error enum.
pub trait Kind: std::error::Error + Send + Sync + 'static {
    /// What this error means to the CLI.
    fn kind(&self) -> ErrorKind;
}

impl Kind for BenchError {
    fn kind(&self) -> ErrorKind {
        match self {
            BenchError::Invalid(_) => ErrorKind::Usage,
            BenchError::System(_) | BenchError::Sink(_) => ErrorKind::Failed,
            BenchError::Interrupted(_) => ErrorKind::Interrupted,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_config_refused_is_usage_the_machine_or_store_refusing_failed_a_signal_interrupted() {
        assert_eq!(BenchError::Invalid("x".into()).kind(), ErrorKind::Usage);
        assert_eq!(BenchError::System("x".into()).kind(), ErrorKind::Failed);
        assert_eq!(BenchError::Sink("x".into()).kind(), ErrorKind::Failed);
        assert_eq!(
            BenchError::Sink("disk full".into()).to_string(),
            "cannot save result: disk full"
        );
        let stopped = BenchError::Interrupted("kept 2 finished result(s)".into());
        assert_eq!(stopped.kind(), ErrorKind::Interrupted);
        assert_eq!(
            stopped.to_string(),
            "interrupted: kept 2 finished result(s)"
        );
    }
}
