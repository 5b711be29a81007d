//! How a stored run is named on the command line, one way for every
//! command: a run id, `latest`, `latest~N` (the Nth run before the newest),
//! and for commands that take several runs (`report`, `compare`, `runs
//! export`) `tag:KEY=VALUE` (every run with that tag).

use std::fmt;
use std::str::FromStr;

/// The word that names the newest stored run.
pub const LATEST: &str = "latest";
/// The prefix of a side made of every run with a tag.
pub const TAG_PREFIX: &str = "tag:";
/// The accepted forms of one run, as errors state them.
pub const RUN_FORMS: &str = "a run id (as `runs list` shows it), `latest` or `latest~N`";
/// The accepted forms of a set of runs, as errors state them.
pub const SIDE_FORMS: &str =
    "a run id (as `runs list` shows it), `latest`, `latest~N` or `tag:KEY=VALUE`";

/// What a run argument names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunSpec {
    /// One stored run.
    Id(i64),
    /// The newest stored run but `.0` (`latest` is `Latest(0)`).
    Latest(usize),
    /// Every stored run whose tag `key` is `value`.
    Tag {
        /// Tag key.
        key: String,
        /// Tag value.
        value: String,
    },
}

impl FromStr for RunSpec {
    type Err = String;

    /// A run id, `latest`, `latest~N` or `tag:KEY=VALUE`.
    fn from_str(s: &str) -> Result<RunSpec, String> {
        if let Some(rest) = s.strip_prefix(LATEST) {
            if rest.is_empty() {
                return Ok(RunSpec::Latest(0));
            }
            return match rest.strip_prefix('~').map(str::parse::<usize>) {
                Some(Ok(n)) => Ok(RunSpec::Latest(n)),
                _ => Err(format!("expected {SIDE_FORMS}")),
            };
        }
        if let Some(tag) = s.strip_prefix(TAG_PREFIX) {
            return match tag.split_once('=') {
                Some((k, v)) if !k.trim().is_empty() => Ok(RunSpec::Tag {
                    key: k.trim().to_string(),
                    value: v.to_string(),
                }),
                _ => Err(format!("expected {SIDE_FORMS}")),
            };
        }
        match s.parse::<i64>() {
            Ok(id) if id > 0 => Ok(RunSpec::Id(id)),
            _ => Err(format!("expected {SIDE_FORMS}")),
        }
    }
}

impl fmt::Display for RunSpec {
    /// As written on the command line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunSpec::Id(id) => write!(f, "{id}"),
            RunSpec::Latest(0) => f.write_str(LATEST),
            RunSpec::Latest(n) => write!(f, "{LATEST}~{n}"),
            RunSpec::Tag { key, value } => write!(f, "{TAG_PREFIX}{key}={value}"),
        }
    }
}

/// One run: a [`RunSpec`] that is not a tag (`runs show`, `runs delete`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OneRun(pub RunSpec);

impl FromStr for OneRun {
    type Err = String;

    fn from_str(s: &str) -> Result<OneRun, String> {
        match s.parse::<RunSpec>() {
            Ok(RunSpec::Tag { .. }) | Err(_) => Err(format!("expected {RUN_FORMS}")),
            Ok(spec) => Ok(OneRun(spec)),
        }
    }
}

impl fmt::Display for OneRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_parse_in_their_four_forms_only() {
        assert_eq!("12".parse(), Ok(RunSpec::Id(12)));
        assert_eq!("latest".parse(), Ok(RunSpec::Latest(0)));
        assert_eq!("latest~2".parse(), Ok(RunSpec::Latest(2)));
        assert_eq!(RunSpec::Latest(2).to_string(), "latest~2");
        let tag: RunSpec = "tag:config=a=b".parse().unwrap();
        assert_eq!(
            tag,
            RunSpec::Tag {
                key: "config".into(),
                value: "a=b".into()
            }
        );
        assert_eq!(tag.to_string(), "tag:config=a=b");
        for bad in [
            "0",
            "-3",
            "twelve",
            "tag:",
            "tag:=x",
            "tag:novalue",
            "config=a",
            "latest~",
            "latest~x",
            "latest-1",
            "latests",
        ] {
            let err = bad.parse::<RunSpec>().unwrap_err();
            assert!(err.contains("`latest~N`"), "{bad}: {err}");
        }
        assert!(
            "tag:a=b"
                .parse::<OneRun>()
                .unwrap_err()
                .contains("latest~N")
        );
        assert_eq!("latest~1".parse(), Ok(OneRun(RunSpec::Latest(1))));
    }
}
