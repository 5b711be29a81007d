//! The bindings' error: a library, symbol or device this machine lacks
//! ([`Error::Missing`]), or a call that failed ([`Error::Call`]). The text
//! is the one line a user sees ("no NVIDIA GPU: libcuda.so.1 not found",
//! "cuMemAlloc_v2: CUDA_ERROR_OUT_OF_MEMORY"); the crates above map
//! `Missing` to their "unavailable" kind.

/// What went wrong with NVIDIA's libraries.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The library, one of its symbols, the driver or a GPU is not there.
    #[error("{0}")]
    Missing(String),
    /// A call into the driver, NVML or a toolkit library returned an error.
    #[error("{0}")]
    Call(String),
}

impl Error {
    /// The same kind of error with `f` applied to its text (a prefix
    /// naming what was being done).
    pub fn map(self, f: impl FnOnce(String) -> String) -> Error {
        match self {
            Error::Missing(m) => Error::Missing(f(m)),
            Error::Call(m) => Error::Call(f(m)),
        }
    }
}
