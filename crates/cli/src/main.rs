//! The `nodebench` binary: parses the command line, wires the benchmark
//! crates to the store and prints. No measurement logic lives here.

#[macro_use]
mod out;
mod args;
mod commands;
mod error;
mod progress;
mod runnable;

use std::process::ExitCode;

use clap::FromArgMatches;
use clap::error::ErrorKind;

pub use error::{CliError, EXIT_USAGE};

fn main() -> ExitCode {
    nodebench_core::build_info::set(
        env!("CARGO_PKG_VERSION"),
        option_env!("NODEBENCH_COMMIT"),
        option_env!("NODEBENCH_BUILD_DATE"),
        env!("NODEBENCH_TARGET"),
    );
    runnable::provide();
    let parsed = args::command()
        .try_get_matches()
        .and_then(|m| args::Cli::from_arg_matches(&m));
    let cli = match parsed {
        Ok(cli) => cli,
        Err(e) => {
            return match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => {
                    let _ = e.print();
                    ExitCode::SUCCESS
                }
                ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                    let _ = e.print();
                    ExitCode::from(EXIT_USAGE)
                }
                _ => {
                    let line = nodebench_core::credentials::redact(&args::one_line(&e));
                    eprintln!("error: {line}");
                    ExitCode::from(EXIT_USAGE)
                }
            };
        }
    };
    // A --store value nodebench cannot use is refused whatever the command
    // (NODEBENCH_STORE is checked when the store is opened).
    let result = match cli.store {
        Some(_) => commands::runner::store_location(&cli).and_then(|_| commands::dispatch(cli)),
        None => commands::dispatch(cli),
    };
    match result {
        Ok(()) => match out::failure() {
            Some(why) => {
                eprintln!("error: cannot write to standard output: {why}");
                ExitCode::from(error::EXIT_FAILED)
            }
            None => ExitCode::SUCCESS,
        },
        Err(e) => {
            let (code, line) = error::exit_of(&e);
            if !line.is_empty() {
                eprintln!("{line}");
            }
            ExitCode::from(code)
        }
    }
}
