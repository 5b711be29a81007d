//! The `nodebench` binary: parses the command line, wires the benchmark
//! crates to the store and prints. No measurement logic lives here.

mod args;
mod commands;
mod progress;
mod suite;

use std::process::ExitCode;

use clap::Parser;
use clap::error::ErrorKind;

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
                    ExitCode::from(2)
                }
                _ => {
                    // One line: clap's first line names the flag and our
                    // parsers' messages name the accepted forms.
                    let text = e.to_string();
                    eprintln!(
                        "{}",
                        text.lines().next().unwrap_or("error: invalid arguments")
                    );
                    ExitCode::from(2)
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
