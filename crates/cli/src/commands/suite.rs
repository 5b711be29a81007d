//! `nodebench suite ...` (and `nodebench run`, the quick suite): list,
//! show and run suites through [`runner`](super::runner).

use anyhow::Result;
use nodebench_core::names;

use super::runner::run_judged;
use super::suites::{self, BUILTINS, SuiteError};
use crate::args::Cli;
use crate::args::suite::{Setting, SuiteCommand};

/// Runs `cmd`.
pub fn run(cli: &Cli, cmd: &SuiteCommand) -> Result<()> {
    match cmd {
        SuiteCommand::List => {
            let width = BUILTINS.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
            for (name, text) in BUILTINS {
                let suite = suites::parse(text, name).map_err(anyhow::Error::msg)?;
                outln!("{name:<width$}  {}", suite.description);
            }
            Ok(())
        }
        SuiteCommand::Show { suite } => match suites::source(suite) {
            Ok((text, _)) => {
                out!("{}", nodebench_core::credentials::redact(&text));
                Ok(())
            }
            Err(e) => Err(usage_error(&e)),
        },
        SuiteCommand::Run(a) => run_suite(cli, &a.suite, &a.sets),
    }
}

/// Runs the suite `name_or_file` with `sets` applied, as one run tagged
/// with its name. Any error in the suite or the settings stops everything
/// before the store is opened: one line, exit 2.
pub fn run_suite(cli: &Cli, name_or_file: &str, sets: &[Setting]) -> Result<()> {
    let prepared = suites::source(name_or_file).and_then(|(text, origin)| {
        let mut suite = suites::parse(&text, &origin)?;
        suites::apply(&mut suite, sets)?;
        let benches = suites::benchmarks(&suite)?;
        Ok((suite, benches))
    });
    let (suite, benches) = match prepared {
        Ok(p) => p,
        Err(e) => return Err(usage_error(&e)),
    };
    // GPU steps need a GPU: without one, exit 3 before anything runs.
    if let Some(step) = suite.steps.iter().find(|s| s.bench.starts_with("gpu."))
        && let Some(why) = nodebench_gpu::unavailable()
    {
        return Err(crate::CliError::unavailable(format!(
            "suite {}: step {} needs an NVIDIA GPU: {why}",
            suite.name, step.name
        ))
        .into());
    }
    let tags = [(names::suite::TAG.to_string(), suite.name.clone())];
    run_judged(cli, benches, true, &tags, &suites::thresholds(&suite))
}

/// Prints `e` and gives the usage-error exit code.
fn usage_error(e: &SuiteError) -> anyhow::Error {
    crate::CliError::usage(e).into()
}
