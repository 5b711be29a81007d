//! hwmon power sensors (`/sys/class/hwmon/hwmonN/power*_input` or
//! `power*_average`, microwatts): ACPI power meters (`power_meter`, the
//! whole node as the BMC or firmware measures it), CPU and GPU drivers,
//! BMC-backed sensors. They give watts only: the watch samples them and
//! integrates.

use std::path::PathBuf;
use std::time::Duration;

use nodebench_core::names::energy::{scope, source};

use super::{Found, Reader, Source};
use crate::sysroot::Roots;

/// Where the sensors are, under the sysfs root.
pub const HWMON: &str = "class/hwmon";

/// A sensor's scope by its driver's `name`: an ACPI power meter is the
/// whole node, `amdgpu`/`nouveau`/`xe`/`i915` a GPU, `fam15h_power` and
/// `zenpower` a CPU package; anything else is not said.
pub fn scope_of(driver: &str) -> &'static str {
    match driver {
        "power_meter" | "acpi_power_meter" => scope::NODE,
        "amdgpu" | "nouveau" | "xe" | "i915" => scope::GPU,
        "fam15h_power" | "zenpower" => scope::PACKAGE,
        _ => scope::OTHER,
    }
}

/// Reads microwatts from `path` as watts.
fn read_w(path: &PathBuf) -> Option<f64> {
    let uw: u64 = std::fs::read_to_string(path).ok()?.trim().parse().ok()?;
    Some(uw as f64 / 1e6)
}

/// Adds a source per readable power sensor under `roots`.
pub fn discover(roots: &Roots, found: &mut Found) {
    let Ok(entries) = std::fs::read_dir(roots.sys(HWMON)) else {
        return;
    };
    let mut chips: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("hwmon"))
        .collect();
    chips.sort_by_key(|c| {
        c.trim_start_matches("hwmon")
            .parse::<u32>()
            .unwrap_or(u32::MAX)
    });
    for chip in chips {
        let dir = roots.sys(&format!("{HWMON}/{chip}"));
        let driver = std::fs::read_to_string(dir.join("name"))
            .map(|n| n.trim().to_string())
            .unwrap_or_default();
        let Ok(files) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut inputs: Vec<u32> = files
            .flatten()
            .filter_map(|f| {
                let name = f.file_name().to_string_lossy().into_owned();
                let rest = name.strip_prefix("power")?;
                let n = rest
                    .strip_suffix("_input")
                    .or_else(|| rest.strip_suffix("_average"))?;
                n.parse().ok()
            })
            .collect();
        inputs.sort_unstable();
        inputs.dedup();
        for n in inputs {
            // The instantaneous figure where there is one, else the meter's
            // average over its own interval.
            let Some((path, kind)) = ["input", "average"].into_iter().find_map(|kind| {
                let p = dir.join(format!("power{n}_{kind}"));
                read_w(&p).map(|_| (p, kind))
            }) else {
                continue;
            };
            let label = std::fs::read_to_string(dir.join(format!("power{n}_label")))
                .map(|l| format!(" \"{}\"", l.trim()))
                .unwrap_or_default();
            found.sources.push(Source {
                source: source::HWMON,
                scope: scope_of(&driver),
                sensor: format!("{chip}/power{n}"),
                how: format!(
                    "hwmon {chip}/power{n}_{kind} ({driver}{label}), watts sampled and integrated"
                ),
                bus_id: None,
                nested: false,
                shortest: Duration::ZERO,
                reader: Reader::Watts {
                    read: Box::new(move || read_w(&path)),
                    every: Duration::ZERO,
                },
            });
        }
    }
}
