//! The CLI's one error type, which carries its exit code, and the exit codes
//! themselves: every command returns `anyhow::Result<()>`, and `main` turns
//! an error into its line on stderr and its code ([`exit_of`]), so the
//! README's table of exit codes holds by construction. The crates' errors
//! say their [`ErrorKind`]; the code is the kind's ([`code_of`]), never
//! read from the message.
//!
//! | code | meaning |
//! |---|---|
//! | 0 | done |
//! | 1 | a benchmark failed, a threshold or check was not met, a host or node failed |
//! | 2 | usage or input: a flag, a file, a run id, a store path refused before anything ran |
//! | 3 | not available on this machine: no NVIDIA GPU |
//! | 130 | interrupted (Ctrl-C, SIGTERM): what finished is kept |

use std::fmt;

use nodebench_core::bench::BenchError;
use nodebench_core::credentials::redact;
use nodebench_core::error::{ErrorKind, Kind};
use nodebench_store::StoreError;

/// Exit code of a failed benchmark, an unmet threshold or check.
pub const EXIT_FAILED: u8 = 1;
/// Exit code of a command line, file or value refused before anything ran.
pub const EXIT_USAGE: u8 = 2;
/// Exit code of a command this machine cannot run (no NVIDIA GPU).
pub const EXIT_UNAVAILABLE: u8 = 3;
/// Exit code of a run stopped by Ctrl-C or SIGTERM (128 + SIGINT).
pub const EXIT_INTERRUPTED: u8 = 130;

/// An error with its exit code and the line stderr shows for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CliError {
    /// The process's exit code.
    pub code: u8,
    /// What stderr shows (with its `error: ` prefix where it has one);
    /// empty when everything was said already.
    pub line: String,
}

impl CliError {
    /// A flag, file or value refused: `error: MESSAGE`, exit 2.
    pub fn usage(message: impl fmt::Display) -> CliError {
        CliError {
            code: EXIT_USAGE,
            line: format!("error: {message}"),
        }
    }

    /// A benchmark, threshold or check failed: `error: MESSAGE`, exit 1.
    pub fn failed(message: impl fmt::Display) -> CliError {
        CliError {
            code: EXIT_FAILED,
            line: format!("error: {message}"),
        }
    }

    /// Not available on this machine: `error: MESSAGE`, exit 3.
    pub fn unavailable(message: impl fmt::Display) -> CliError {
        CliError {
            code: EXIT_UNAVAILABLE,
            line: format!("error: {message}"),
        }
    }

    /// `e` with the exit code of its kind ([`code_of`]): `error: MESSAGE`
    /// (an interruption's line as it is).
    pub fn of(e: &dyn Kind) -> CliError {
        let kind = e.kind();
        CliError {
            code: code_of(kind),
            line: line_of(kind, e),
        }
    }

    /// Exit `code` with nothing more to say (the errors were printed as
    /// they came).
    pub fn silent(code: u8) -> CliError {
        CliError {
            code,
            line: String::new(),
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.line)
    }
}

impl std::error::Error for CliError {}

/// The exit code of an error of `kind`.
pub const fn code_of(kind: ErrorKind) -> u8 {
    match kind {
        ErrorKind::Usage => EXIT_USAGE,
        ErrorKind::Failed => EXIT_FAILED,
        ErrorKind::Unavailable => EXIT_UNAVAILABLE,
        ErrorKind::Interrupted => EXIT_INTERRUPTED,
    }
}

/// The kind of `e` where it is one of the crates' errors (each says its
/// [`ErrorKind`]); `None` for any other error.
fn kind_of(e: &anyhow::Error) -> Option<ErrorKind> {
    macro_rules! first_kind {
        ($($t:ty),+ $(,)?) => {
            $(
                if let Some(k) = e.downcast_ref::<$t>() {
                    return Some(k.kind());
                }
            )+
        };
    }
    first_kind!(
        BenchError,
        StoreError,
        nodebench_machine::Error,
        nodebench_gpu::Error,
        nodebench_fleet::Error,
        nodebench_slurm::SlurmError,
        nodebench_import::ImportError,
    );
    None
}

/// The exit code of `e` and the line stderr shows for it (secrets hidden):
/// a [`CliError`]'s own; a crate's error by its kind ([`code_of`]);
/// anything else failed (1).
pub fn exit_of(e: &anyhow::Error) -> (u8, String) {
    if let Some(c) = e.downcast_ref::<CliError>() {
        return (c.code, redact(&c.line));
    }
    match kind_of(e) {
        Some(kind) => (code_of(kind), redact(&line_of(kind, e))),
        None => (EXIT_FAILED, redact(&format!("error: {e}"))),
    }
}

/// The line stderr shows for an error of `kind`: `error: MESSAGE`, or an
/// interruption's own line (`interrupted: kept ...`) as it is.
fn line_of(kind: ErrorKind, e: &dyn fmt::Display) -> String {
    match kind {
        ErrorKind::Interrupted => e.to_string(),
        _ => format!("error: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crate_errors_kind_gives_its_code_and_an_interruption_its_own_line() {
        let stopped = anyhow::Error::from(BenchError::Interrupted(
            "kept 2 finished result(s) in run 4 (incomplete)".into(),
        ));
        assert_eq!(
            exit_of(&stopped),
            (
                EXIT_INTERRUPTED,
                "interrupted: kept 2 finished result(s) in run 4 (incomplete)".into()
            )
        );
        let refused = anyhow::Error::from(BenchError::Invalid("--count: a whole number".into()));
        assert_eq!(
            exit_of(&refused),
            (EXIT_USAGE, "error: --count: a whole number".into())
        );
        let other = anyhow::anyhow!("something else");
        assert_eq!(
            exit_of(&other),
            (EXIT_FAILED, "error: something else".into())
        );
        let cli = CliError::of(&BenchError::Interrupted("kept 0 host run(s)".into()));
        assert_eq!(cli.code, EXIT_INTERRUPTED);
        assert_eq!(cli.line, "interrupted: kept 0 host run(s)");
    }
}
