//! Why a solve did not give a solution: the one error every backend
//! returns, at the bottom of the crate so the backends and their selection
//! both depend on it and not on each other.

use std::fmt;

/// Why a solve did not give a solution.
#[derive(Debug, Clone, PartialEq)]
pub enum SolveError {
    /// U(column, column) is exactly zero (1-based, as LAPACK's info).
    Singular {
        /// The 1-based column of the zero pivot.
        column: usize,
    },
    /// The library refused the call.
    Library(String),
}

impl fmt::Display for SolveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SolveError::Singular { column } => write!(
                f,
                "the matrix is singular: U({column},{column}) is exactly zero"
            ),
            SolveError::Library(why) => f.write_str(why),
        }
    }
}

impl std::error::Error for SolveError {}
