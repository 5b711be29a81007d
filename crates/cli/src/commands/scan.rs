//! `nodebench scan URL`: the hardening scan run as a benchmark, with
//! `--fail-on LEVEL` judged as thresholds on its finding counts.

use anyhow::Result;
use nodebench_core::config::Choice;
use nodebench_core::finding::Severity;
use nodebench_core::names::scan::{SCAN, label, metric};
use nodebench_core::threshold::Threshold;
use nodebench_scan::scan::Scan;

use super::runner::run_judged;
use crate::args::Cli;
use nodebench_scan::cli::ScanArgs;

/// The thresholds `--fail-on LEVEL` stands for: no finding of LEVEL or any
/// severity above it.
pub fn fail_on(level: Severity) -> Vec<Threshold> {
    Severity::ALL
        .iter()
        .filter(|s| s.rank() >= level.rank())
        .map(|s| {
            format!(
                "{SCAN} {}{{{}={}}} <= 0",
                metric::FINDINGS,
                label::SEVERITY,
                s.as_str()
            )
            .parse()
            .expect("the --fail-on thresholds are well-formed")
        })
        .collect()
}

/// Runs the scan; a non-loopback target gets the list of what will be sent
/// first (and is refused without --yes).
pub fn run(cli: &Cli, args: &ScanArgs) -> Result<()> {
    let scan = Scan {
        config: args.into(),
    };
    if let Ok(target) = scan.config.target()
        && !target.is_loopback()
        && let Ok(plan) = scan.plan_text()
    {
        eprint!("{plan}");
    }
    let thresholds = args.fail_on.map(fail_on).unwrap_or_default();
    run_judged(cli, vec![Box::new(scan)], false, &[], &thresholds)
}
