//! The GPU crate's error: NVIDIA's libraries missing or refusing
//! ([`Error::Nvidia`]), a toolkit library (NVRTC, cuBLAS, cuBLASLt) this
//! machine lacks ([`Error::Missing`]), the machine's readings
//! ([`Error::Machine`]), or a GPU step that failed ([`Error::Failed`]).
//! The text is the one line a user sees.

use nodebench_core::bench::BenchError;
use nodebench_core::error::{ErrorKind, Kind};

/// Why a GPU benchmark could not run or go on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The CUDA driver or NVML is missing or refused a call.
    #[error(transparent)]
    Nvidia(#[from] nodebench_nvidia::Error),
    /// What the machine's readers said (the GPU's health watch).
    #[error(transparent)]
    Machine(#[from] nodebench_machine::Error),
    /// A library or GPU this machine lacks: NVRTC, cuBLAS, cuBLASLt, a
    /// driver that lists no GPU.
    #[error("{0}")]
    Missing(String),
    /// A kernel, a library call or a check of the results failed.
    #[error("{0}")]
    Failed(String),
}

impl Kind for Error {
    fn kind(&self) -> ErrorKind {
        match self {
            Error::Nvidia(nodebench_nvidia::Error::Missing(_)) | Error::Missing(_) => {
                ErrorKind::Unavailable
            }
            Error::Machine(e) => e.kind(),
            Error::Nvidia(_) | Error::Failed(_) => ErrorKind::Failed,
        }
    }
}

impl From<Error> for BenchError {
    /// A benchmark's failure: the machine refused it (exit 1 once the
    /// other benchmarks ran).
    fn from(e: Error) -> BenchError {
        BenchError::System(e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_library_is_unavailable_a_failed_kernel_failed() {
        let e = Error::from(nodebench_nvidia::Error::Missing(
            "no NVIDIA GPU: libcuda.so.1 not found".into(),
        ));
        assert_eq!(e.kind(), ErrorKind::Unavailable);
        assert_eq!(e.to_string(), "no NVIDIA GPU: libcuda.so.1 not found");
        assert_eq!(
            Error::Missing("no NVRTC".into()).kind(),
            ErrorKind::Unavailable
        );
        assert_eq!(Error::Failed("x".into()).kind(), ErrorKind::Failed);
        assert_eq!(
            BenchError::from(Error::Failed("stream: wrong".into())),
            BenchError::System("stream: wrong".into())
        );
    }
}
