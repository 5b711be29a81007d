//! `nodebench check`: the host's state for benchmarking, read and judged by
//! `nodebench_machine::host`, and the PCIe links of the NICs, NVMe drives
//! and GPUs (`nodebench_core::inventory::pcie`: a downtrained link warns),
//! printed by `nodebench_report::host`.

use std::time::Duration;

use anyhow::Result;
use nodebench_core::inventory::{CpuInfo, Inventory};
use nodebench_core::units::parse_size;
use nodebench_machine::host;
use nodebench_machine::sysroot::{PROCFS_ROOT_ENV, Roots, SYSFS_ROOT_ENV};

use super::suites::{BUILTINS, QUICK};
use crate::CliError;
use crate::args::{CheckArgs, Cli};

/// How long steal time and the other processes are sampled.
const WINDOW: Duration = Duration::from_secs(1);

/// The memory the quick suite's largest step needs, bytes: STREAM's three
/// arrays at their default size (4x the last-level cache) or the
/// `max-size` of its `memory.latency` step, whichever is larger (they run
/// one after the other). `None` when the suite has no such steps.
pub fn quick_suite_memory(llc_bytes: Option<u64>) -> Option<u64> {
    let text = BUILTINS.iter().find(|(n, _)| *n == QUICK)?.1;
    let suite: toml::Table = toml::from_str(text).ok()?;
    let steps = suite.get("step")?.as_array()?;
    let bench = |s: &&toml::Value| s.get("bench").and_then(|b| b.as_str()).map(String::from);
    let mut need = None;
    for step in steps {
        match bench(&step).as_deref() {
            Some(b) if b == nodebench_core::names::memory::STREAM => {
                let elements = nodebench_memory::stream::default_array_size(llc_bytes) as u64;
                need = need.max(Some(3 * 8 * elements));
            }
            Some(b) if b == nodebench_core::names::memory::LATENCY => {
                let size = step
                    .get("max-size")
                    .and_then(|v| v.as_str())
                    .and_then(|v| parse_size(v).ok());
                need = need.max(size);
            }
            _ => {}
        }
    }
    need
}

/// `nodebench check [--strict]`.
pub fn run(cli: &Cli, args: &CheckArgs) -> Result<()> {
    let roots = Roots::from_env();
    for (var, dir) in [
        (SYSFS_ROOT_ENV, roots.sys("")),
        (PROCFS_ROOT_ENV, roots.proc("")),
    ] {
        if !dir.is_dir() {
            return Err(CliError::usage(format!(
                "{var}={}: not a directory (the recorded tree's sys/ or proc/)",
                dir.display()
            ))
            .into());
        }
    }
    let (state, sample) = host::check(&roots, WINDOW);
    let llc = Inventory {
        cpu: CpuInfo {
            caches: nodebench_machine::inventory::caches(&roots),
            ..Default::default()
        },
        ..Default::default()
    }
    .last_level_cache_bytes();
    let mut lines = host::judge(&state, Some(&sample), quick_suite_memory(llc));
    let links = nodebench_machine::inventory::pcie_links(&roots);
    lines.extend(nodebench_core::inventory::pcie::check_lines(&links));
    let warned = lines
        .iter()
        .filter(|l| l.verdict == nodebench_core::inventory::host::Verdict::Warn)
        .count();
    if cli.json {
        let doc = serde_json::json!({
            "verdict": if warned == 0 { "ok" } else { "warn" },
            "lines": lines,
            "state": state,
            "sample": sample,
            "pcie_links": links,
        });
        outln!("{}", serde_json::to_string_pretty(&doc)?);
    } else {
        out!("{}", nodebench_report::host::check_report(&lines));
    }
    if args.strict && warned > 0 {
        return Err(CliError::failed(format!(
            "--strict: {warned} of {} settings warn",
            lines.len()
        ))
        .into());
    }
    Ok(())
}
