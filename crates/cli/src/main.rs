//! The `nodebench` binary: parses the command line, wires the benchmark
//! crates to the store and prints. No measurement logic lives here.

mod args;
mod commands;
mod progress;
mod suite;

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
                    // One line: clap's message up to its usage hint (the flag
                    // and, from our parsers, the accepted forms).
                    let text = e.render().to_string();
                    let line: Vec<&str> = text
                        .lines()
                        .map(str::trim)
                        .take_while(|l| {
                            !l.starts_with("Usage:") && !l.starts_with("For more information")
                        })
                        .filter(|l| !l.is_empty())
                        .collect();
                    eprintln!("{}", line.join(" "));
                    ExitCode::from(EXIT_USAGE)
                }
            };
        }
    };
    match commands::dispatch(cli) {
        Ok(code) => code,
        Err(e) => {
            // Our errors carry their cause in their own message.
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
