//! `nodebench import FILE...`: parses every file first; if one fails, says
//! which and why on one line and saves nothing (exit 2); else saves one
//! complete run per file, tagged with its source tool.

use std::collections::BTreeMap;

use anyhow::Result;
use nodebench_import::{Imported, import, to_run};

use super::runner::open_store;
use crate::args::Cli;
use crate::args::import::ImportArgs;

/// `nodebench import`: all files or none.
pub fn run(cli: &Cli, args: &ImportArgs) -> Result<()> {
    let mut parsed: Vec<(String, Imported)> = Vec::new();
    for path in &args.files {
        let shown = path.display().to_string();
        let text = match std::fs::read(path) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(e) => {
                return Err(crate::CliError::usage(format!("{shown}: cannot read: {e}")).into());
            }
        };
        match import(&text, args.format) {
            Ok(imported) => parsed.push((shown, imported)),
            Err(e) => {
                return Err(crate::CliError::usage(format!("{shown}: {e}")).into());
            }
        }
    }
    let tags: BTreeMap<String, String> = cli.tags.iter().cloned().collect();
    let mut store = if cli.no_save {
        None
    } else {
        Some(open_store(cli)?)
    };
    let mut runs = Vec::new();
    let mut lines = Vec::new();
    for (file, imported) in parsed {
        let format = imported.format;
        let mut run = to_run(imported, &file, &tags);
        let saved = match store.as_mut() {
            Some(s) => {
                let id = s.begin_run(&run)?;
                run.id = Some(id);
                format!("saved as run {id}")
            }
            None => "not saved (--no-save)".to_string(),
        };
        lines.push(format!(
            "{file}: {format}, {} results, {saved}",
            run.results.len()
        ));
        runs.push(run);
    }
    if cli.json {
        outln!("{}", serde_json::to_string_pretty(&runs)?);
    } else {
        for l in lines {
            outln!("{l}");
        }
    }
    Ok(())
}
