//! How many times a benchmark runs as a whole (`--repeat N|auto`): the
//! [`Mode`] a benchmark or a suite step may ask for. Apart from
//! [`crate::repeat`], which runs the repeats, so that the `Benchmark`
//! contract can name it without depending on the runner of repeats.

use std::fmt;
use std::str::FromStr;

/// Most repeats `--repeat N` and `--max-repeats` take.
pub const MAX_REPEATS: u32 = 10_000;

/// How many times a benchmark runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Exactly this many times (1: once, no merging).
    Times(u32),
    /// Until the headline's interval is within the target.
    Auto,
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mode::Times(n) => write!(f, "{n}"),
            Mode::Auto => f.write_str("auto"),
        }
    }
}

impl FromStr for Mode {
    type Err = String;

    /// `auto`, or a whole number 1..=[`MAX_REPEATS`].
    fn from_str(s: &str) -> Result<Mode, String> {
        let s = s.trim();
        if s.eq_ignore_ascii_case("auto") {
            return Ok(Mode::Auto);
        }
        match s.parse::<u32>() {
            Ok(n) if (1..=MAX_REPEATS).contains(&n) => Ok(Mode::Times(n)),
            _ => Err(format!(
                "invalid repeat '{s}': expected a whole number 1..={MAX_REPEATS} or auto"
            )),
        }
    }
}
