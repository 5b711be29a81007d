//! The `nodebench` binary: parses the command line, wires the benchmark
//! crates to the store and prints. No measurement logic lives here.

mod args;
mod commands;
mod progress;

use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;

/// Exit code of a command line or configuration refused before anything
/// ran: clap's usage errors and a benchmark's refused configuration.
const EXIT_USAGE: u8 = 2;

fn main() -> ExitCode {
    let cli = match args::Cli::try_parse() {
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
                    eprintln!("error: {}", args::one_line(&e));
                    ExitCode::from(EXIT_USAGE)
                }
            };
        }
    };
    // A --store value nodebench cannot use is a usage error, whatever the
    // command (NODEBENCH_STORE is checked when the store is opened).
    if cli.store.is_some()
        && let Err(e) = commands::runner::store_location(&cli)
    {
        eprintln!("error: {e}");
        return ExitCode::from(EXIT_USAGE);
    }
    match commands::dispatch(cli) {
        Ok(code) => code,
        Err(e) => {
            // Our errors carry their cause in their own message.
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
