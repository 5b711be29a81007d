//! `nodebench report RUN... -o FILE.html`: the stored runs to put in one
//! HTML report, and the file to write.

use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

use clap::Args;

/// `nodebench report` arguments.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The runs, each a run id (as `runs list` shows it) or `latest`; the
    /// first is the baseline.
    #[arg(required = true, value_name = "RUN")]
    pub runs: Vec<RunSelector>,
    /// The HTML file to write (self-contained: styles and charts inline).
    #[arg(short, long, value_name = "FILE.html", required = true)]
    pub output: PathBuf,
}

/// A stored run named on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunSelector {
    /// The run with this id.
    Id(i64),
    /// The newest run in the store.
    Latest,
}

/// The word that names the newest run.
const LATEST: &str = "latest";

impl FromStr for RunSelector {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        if s == LATEST {
            return Ok(RunSelector::Latest);
        }
        s.parse::<i64>()
            .ok()
            .filter(|&id| id > 0)
            .map(RunSelector::Id)
            .ok_or_else(|| {
                format!(
                    "invalid run '{s}': expected a run id (as `runs list` shows it) or `{LATEST}`"
                )
            })
    }
}

impl fmt::Display for RunSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunSelector::Id(id) => write!(f, "{id}"),
            RunSelector::Latest => f.write_str(LATEST),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_is_an_id_or_latest() {
        assert_eq!("12".parse(), Ok(RunSelector::Id(12)));
        assert_eq!("latest".parse(), Ok(RunSelector::Latest));
        for bad in ["0", "-3", "last", ""] {
            let e = bad.parse::<RunSelector>().unwrap_err();
            assert!(e.contains("expected a run id"), "{e}");
        }
    }
}
