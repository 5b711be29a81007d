//! RAPL through powercap (`/sys/class/powercap/intel-rapl:*`, which the
//! kernel's driver also serves for AMD): one counter per zone and subzone,
//! `energy_uj` in microjoules, wrapping after `max_energy_range_uj`. The
//! zones are `package-N` (a socket), `psys` (the platform) and, nested in a
//! package, `core`, `uncore` and `dram`. A package's core and uncore are
//! parts of it (recorded, never summed with it); its DRAM is not.
//!
//! `energy_uj` is readable by root only on kernels since 5.10 (after
//! PLATYPUS): a non-root run gets the note "RAPL needs root" and no RAPL
//! figure.

use std::io::ErrorKind;
use std::path::PathBuf;
use std::time::Duration;

use nodebench_core::names::energy::{scope, source};

use super::{Found, Reader, Source};
use crate::sysroot::Roots;

/// Where the zones are, under the sysfs root.
pub const POWERCAP: &str = "class/powercap";

/// The note of a machine whose zones only root can read.
pub const NEEDS_ROOT: &str = "RAPL needs root";

/// A zone's scope by its `name`.
pub fn scope_of(name: &str) -> &'static str {
    match name {
        n if n.starts_with("package") => scope::PACKAGE,
        "core" => scope::CORE,
        "uncore" => scope::UNCORE,
        "dram" => scope::DRAM,
        "psys" => scope::PLATFORM,
        _ => scope::OTHER,
    }
}

/// Reads a zone's counter in joules.
fn read_j(path: &PathBuf) -> std::io::Result<f64> {
    let text = std::fs::read_to_string(path)?;
    text.trim()
        .parse::<u64>()
        .map(|uj| uj as f64 / 1e6)
        .map_err(|e| std::io::Error::new(ErrorKind::InvalidData, e))
}

/// Adds a source per readable RAPL zone under `roots`, or the note saying
/// why the zones that are there cannot be read.
pub fn discover(roots: &Roots, found: &mut Found) {
    discover_with(roots, found, &read_j);
}

/// [`discover`] with `probe` reading each zone's counter first (a test
/// hands in the refusal a non-root run meets).
pub fn discover_with(
    roots: &Roots,
    found: &mut Found,
    probe: &dyn Fn(&PathBuf) -> std::io::Result<f64>,
) {
    let Ok(entries) = std::fs::read_dir(roots.sys(POWERCAP)) else {
        return;
    };
    let mut zones: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("intel-rapl:"))
        .collect();
    zones.sort_by_key(|z| {
        z.trim_start_matches("intel-rapl:")
            .split(':')
            .map(|p| p.parse::<u32>().unwrap_or(u32::MAX))
            .collect::<Vec<_>>()
    });
    let mut denied = false;
    for zone in zones {
        let dir = roots.sys(&format!("{POWERCAP}/{zone}"));
        let text = |f: &str| std::fs::read_to_string(dir.join(f)).ok();
        let Some(name) = text("name").map(|n| n.trim().to_string()) else {
            continue;
        };
        let energy = dir.join("energy_uj");
        match probe(&energy) {
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::PermissionDenied => {
                denied = true;
                continue;
            }
            Err(_) => continue,
        }
        let range = text("max_energy_range_uj")
            .and_then(|t| t.trim().parse::<u64>().ok())
            .filter(|r| *r > 0)
            .map(|uj| uj as f64 / 1e6);
        let scope = scope_of(&name);
        let subzone = zone.matches(':').count() > 1;
        found.sources.push(Source {
            source: source::RAPL,
            scope,
            sensor: zone.clone(),
            how: format!(
                "powercap {zone}/energy_uj ({name}), wraps at {}",
                range.map_or("an unknown range".to_string(), |r| format!("{r:.0} J"))
            ),
            bus_id: None,
            // A package's core and uncore are inside its figure; DRAM is not.
            nested: subzone && scope != scope::DRAM,
            shortest: Duration::ZERO,
            reader: Reader::Counter {
                read: Box::new(move || read_j(&energy).ok()),
                range,
            },
        });
    }
    if denied && !found.sources.iter().any(|s| s.source == source::RAPL) {
        found.notes.push(NEEDS_ROOT.into());
    }
}
