//! The fleet crate's error: input refused before any host is touched (a
//! hosts file, `--only`, `--pairs`, `--binary-dir`), or this machine
//! failing to set up what the hosts get (its own executable, the ssh
//! sockets, the hosts' results). The text is the one line a user sees.

use nodebench_core::bench::BenchError;
use nodebench_core::error::{ErrorKind, Kind};

/// Why a fleet command could not start or combine what the hosts sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The hosts file, `--only`, `--pairs` or a host missing what the
    /// test needs: one line naming the file or flag and the accepted form.
    #[error("{0}")]
    Usage(String),
    /// `--binary-dir` refused ([`nodebench_core::portable::find`]).
    #[error(transparent)]
    BinaryDir(BenchError),
    /// This machine: its executable, a file to hash, the ssh sockets'
    /// folder.
    #[error("{0}")]
    Local(String),
    /// What the hosts sent does not combine (a histogram that does not
    /// decode or add).
    #[error("{0}")]
    Results(String),
}

impl Kind for Error {
    fn kind(&self) -> ErrorKind {
        match self {
            Error::Usage(_) => ErrorKind::Usage,
            Error::BinaryDir(e) => e.kind(),
            Error::Local(_) | Error::Results(_) => ErrorKind::Failed,
        }
    }
}
