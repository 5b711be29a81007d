//! `nodebench compare A B [C ...]`: what each side names, and the output
//! format.

use std::fmt;
use std::str::FromStr;

use clap::Args;
use nodebench_report::compare::CompareFormat;

/// The word that names the newest stored run.
pub const LATEST: &str = "latest";
/// The prefix of a side made of every run with a tag.
pub const TAG_PREFIX: &str = "tag:";
/// The accepted forms of a side, as errors state them.
pub const SIDE_FORMS: &str = "a run id (as `runs list` shows it), `latest`, or `tag:KEY=VALUE`";

/// `nodebench compare` arguments.
#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The runs to compare, the first being the baseline: each a run id,
    /// `latest`, or `tag:KEY=VALUE` (every run with that tag, pooled as
    /// repeats).
    #[arg(value_name = "RUN")]
    pub sides: Vec<SideSpec>,
    /// table, md or csv (`--json` prints the comparison model).
    #[arg(long, value_name = "FORMAT", default_value_t = CompareFormat::Table)]
    pub format: CompareFormat,
}

/// What one side of a comparison names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SideSpec {
    /// One stored run.
    Id(i64),
    /// The newest stored run.
    Latest,
    /// Every stored run whose tag `key` is `value`.
    Tag {
        /// Tag key.
        key: String,
        /// Tag value.
        value: String,
    },
}

impl FromStr for SideSpec {
    type Err = String;

    /// A run id, `latest` or `tag:KEY=VALUE`.
    fn from_str(s: &str) -> Result<SideSpec, String> {
        if s == LATEST {
            return Ok(SideSpec::Latest);
        }
        if let Some(tag) = s.strip_prefix(TAG_PREFIX) {
            return match tag.split_once('=') {
                Some((k, v)) if !k.trim().is_empty() => Ok(SideSpec::Tag {
                    key: k.trim().to_string(),
                    value: v.to_string(),
                }),
                _ => Err(format!("expected {SIDE_FORMS}")),
            };
        }
        match s.parse::<i64>() {
            Ok(id) if id > 0 => Ok(SideSpec::Id(id)),
            _ => Err(format!("expected {SIDE_FORMS}")),
        }
    }
}

impl fmt::Display for SideSpec {
    /// As written on the command line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SideSpec::Id(id) => write!(f, "{id}"),
            SideSpec::Latest => f.write_str(LATEST),
            SideSpec::Tag { key, value } => write!(f, "{TAG_PREFIX}{key}={value}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sides_parse_in_their_three_forms_only() {
        assert_eq!("12".parse(), Ok(SideSpec::Id(12)));
        assert_eq!("latest".parse(), Ok(SideSpec::Latest));
        let tag: SideSpec = "tag:config=a=b".parse().unwrap();
        assert_eq!(
            tag,
            SideSpec::Tag {
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
        ] {
            let err = bad.parse::<SideSpec>().unwrap_err();
            assert!(err.contains("`latest`"), "{bad}: {err}");
        }
    }
}
