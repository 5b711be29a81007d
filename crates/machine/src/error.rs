//! The machine crate's error: NVIDIA's libraries refusing
//! ([`Error::Nvidia`]), something the machine does not say or nodebench
//! does not know ([`Error::Unknown`]), a read or write of its files that
//! failed ([`Error::Io`]). The text is the one line a user sees.

use nodebench_core::error::{ErrorKind, Kind};

/// Why reading (or tuning) the machine did not work.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The NVIDIA driver or NVML is missing or refused a call.
    #[error(transparent)]
    Nvidia(#[from] nodebench_nvidia::Error),
    /// The machine does not say, or nodebench does not know: no SMBIOS
    /// table, a CPU whose peak is not in the table, a BMC without a power
    /// reading.
    #[error("{0}")]
    Unknown(String),
    /// A file of the machine (or of a recorded tree) could not be read or
    /// written.
    #[error("{0}")]
    Io(String),
}

impl Kind for Error {
    fn kind(&self) -> ErrorKind {
        match self {
            Error::Nvidia(nodebench_nvidia::Error::Missing(_)) => ErrorKind::Unavailable,
            Error::Nvidia(_) | Error::Unknown(_) | Error::Io(_) => ErrorKind::Failed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_driver_is_unavailable_a_failed_call_failed() {
        let missing = Error::from(nodebench_nvidia::Error::Missing("no NVIDIA driver".into()));
        assert_eq!(missing.kind(), ErrorKind::Unavailable);
        assert_eq!(missing.to_string(), "no NVIDIA driver");
        let call = Error::from(nodebench_nvidia::Error::Call("nvmlX: 3".into()));
        assert_eq!(call.kind(), ErrorKind::Failed);
        assert_eq!(Error::Io("x".into()).kind(), ErrorKind::Failed);
    }
}
