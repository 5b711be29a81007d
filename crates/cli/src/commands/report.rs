//! `nodebench report RUN... -o FILE.html`: resolves each RUN in the store
//! as `compare` does and writes the HTML report of
//! `nodebench_report::html`.

use anyhow::Result;

use super::compare::load_sides;
use crate::CliError;
use crate::args::Cli;
use crate::args::report::ReportArgs;

/// Writes the report of the named runs; a RUN the store does not hold or a
/// file that cannot be written is one line on stderr and exit 2.
pub fn run(cli: &Cli, args: &ReportArgs) -> Result<()> {
    let sides = load_sides(cli, &args.runs, "report")?;
    let html = nodebench_report::html::report(&sides);
    if let Err(e) = std::fs::write(&args.output, html) {
        return Err(CliError::usage(format!(
            "--output {}: cannot write: {e} (expected a writable FILE.html path)",
            args.output.display()
        ))
        .into());
    }
    if !cli.quiet {
        outln!("wrote {}", args.output.display());
    }
    Ok(())
}
