//! `nodebench suite ...`: list, show and run suites (TOML files of
//! benchmark steps; see `crate::commands::suites`).

use clap::{Args, Subcommand};

/// `nodebench suite ...`
#[derive(Debug, Subcommand)]
pub enum SuiteCommand {
    /// List the built-in suites: name and description.
    List,
    /// Print a suite's TOML text (a built-in's name, or a file): copy a
    /// built-in to start a study of your own.
    Show {
        /// A built-in suite's name or the path of a suite file.
        #[arg(value_name = "NAME|FILE")]
        suite: String,
    },
    /// Run a suite's steps in order as one run (tagged suite=NAME, each
    /// result with its step name), judging its thresholds and --assert at
    /// the end.
    Run(SuiteRunArgs),
}

/// Options of `suite run`.
#[derive(Debug, Args)]
pub struct SuiteRunArgs {
    /// A built-in suite's name or the path of a suite file.
    #[arg(value_name = "NAME|FILE")]
    pub suite: String,
    /// Set a parameter (repeatable): KEY=VALUE on every step that takes the
    /// flag --KEY, STEP.KEY=VALUE on the step named STEP only, e.g.
    /// --set file-size=64M --set cpu.ops.threads=1,2.
    #[arg(long = "set", value_name = "[STEP.]KEY=VALUE", value_parser = parse_setting)]
    pub sets: Vec<Setting>,
}

/// One `--set`: a parameter for one step or every step that takes it.
#[derive(Debug, Clone, PartialEq)]
pub struct Setting {
    /// The step it is for; `None`: every step that takes [`Setting::key`].
    pub step: Option<String>,
    /// The parameter, a long flag name of the step's subcommand.
    pub key: String,
    /// Its value, as the flag would take it.
    pub value: String,
}

/// A `--set` value: `KEY=VALUE` or `STEP.KEY=VALUE` (a step name may
/// itself contain dots, the key never does).
fn parse_setting(s: &str) -> Result<Setting, String> {
    let bad = || {
        format!(
            "invalid setting '{s}': expected [STEP.]KEY=VALUE, e.g. file-size=64M or cpu.ops.threads=1,2"
        )
    };
    let (target, value) = s.split_once('=').ok_or_else(bad)?;
    let (step, key) = match target.rsplit_once('.') {
        Some((step, key)) => (Some(step.trim().to_string()), key.trim()),
        None => (None, target.trim()),
    };
    if key.is_empty() || step.as_deref() == Some("") {
        return Err(bad());
    }
    Ok(Setting {
        step,
        key: key.to_string(),
        value: value.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_split_the_step_at_the_last_dot() {
        let s = parse_setting("cpu.ops.threads=1,2").unwrap();
        assert_eq!(s.step.as_deref(), Some("cpu.ops"));
        assert_eq!((s.key.as_str(), s.value.as_str()), ("threads", "1,2"));
        let s = parse_setting("url=/bytes/10?a=b").unwrap();
        assert_eq!((s.step, s.key.as_str()), (None, "url"));
        assert_eq!(s.value, "/bytes/10?a=b");
        for bad in ["threads", "=1", ".x=1", "a.=1"] {
            assert!(
                parse_setting(bad).unwrap_err().contains("[STEP.]KEY=VALUE"),
                "{bad}"
            );
        }
    }
}
