//! The report crate's error: a run or a comparison that could not be
//! written out (JSON, CSV). The text is the encoder's one line.

use nodebench_core::error::{ErrorKind, Kind};

/// Why a report could not be written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The JSON or CSV encoder refused a value.
    #[error("{0}")]
    Encode(String),
}

impl Error {
    /// The encoder's error `e`, in its words.
    pub fn encode(e: impl std::fmt::Display) -> Error {
        Error::Encode(e.to_string())
    }
}

impl Kind for Error {
    fn kind(&self) -> ErrorKind {
        ErrorKind::Failed
    }
}
