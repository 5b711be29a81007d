//! What the release archives carry beside the binary, written from the
//! command-line definition itself so they never drift from it: the shell
//! completions (`nodebench completions SHELL`) and the man pages
//! (`nodebench manpages DIR`).

use std::path::Path;

use anyhow::{Context, Result};
use clap_complete::Shell;

use crate::args::CompletionShell;
use crate::error::CliError;

/// The command-line definition, with the version line `--version` prints.
fn command() -> clap::Command {
    crate::args::command()
}

/// `nodebench completions SHELL`: the completion script on standard output.
pub fn completions(shell: CompletionShell) -> Result<()> {
    let shell = match shell {
        CompletionShell::Bash => Shell::Bash,
        CompletionShell::Zsh => Shell::Zsh,
        CompletionShell::Fish => Shell::Fish,
    };
    let mut text = Vec::new();
    clap_complete::generate(shell, &mut command(), "nodebench", &mut text);
    out!("{}", String::from_utf8_lossy(&text));
    Ok(())
}

/// `nodebench manpages DIR`: `nodebench.1` and one page per subcommand.
pub fn manpages(dir: &Path) -> Result<()> {
    if !dir.is_dir() {
        return Err(CliError::usage(format!(
            "DIR: {} is not a directory (give an existing directory to write the man pages into)",
            dir.display()
        ))
        .into());
    }
    clap_mangen::generate_to(command(), dir)
        .with_context(|| format!("cannot write the man pages into {}", dir.display()))?;
    let pages = std::fs::read_dir(dir)?
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".1"))
        .count();
    outln!("{pages} man pages written to {}", dir.display());
    Ok(())
}
