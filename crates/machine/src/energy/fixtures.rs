//! Power sources as `/sys` trees, in the kernel's layout
//! (Documentation/power/powercap/powercap.rst, Documentation/hwmon/sysfs-interface.rst,
//! Documentation/hwmon/acpi_power_meter.rst), with the ranges real parts
//! report, for the readers' tests:
//!
//! - `intel-2s`: two Xeon sockets, `package-N` zones with a `dram` subzone
//!   each (max_energy_range_uj 262143328850 and 65712999613);
//! - `amd-2s`: two EPYC sockets through the same driver, `package-N` with a
//!   `core` subzone (65532610987);
//! - `acpi-meter`: an ACPI power meter (hwmon `power_meter`, whole node,
//!   `power1_average` 312 W) beside a `coretemp` chip without power;
//! - `none`: a powercap class with no zone and hwmon chips without power.

use std::path::Path;

/// The trees [`write`] knows.
pub const NAMES: [&str; 4] = ["intel-2s", "amd-2s", "acpi-meter", "none"];

/// A RAPL zone: its directory name, `name`, `energy_uj` and range.
fn zone(dir: &str, name: &str, uj: u64, range: u64) -> Vec<(String, String)> {
    let at = |f: &str| format!("sys/class/powercap/{dir}/{f}");
    vec![
        (at("name"), format!("{name}\n")),
        (at("energy_uj"), format!("{uj}\n")),
        (at("max_energy_range_uj"), format!("{range}\n")),
        (at("enabled"), "1\n".into()),
    ]
}

/// The files of tree `name`, as (path under the root, text).
pub fn files(name: &str) -> Option<Vec<(String, String)>> {
    const INTEL_PKG: u64 = 262_143_328_850;
    const INTEL_DRAM: u64 = 65_712_999_613;
    const AMD: u64 = 65_532_610_987;
    let control = (
        "sys/class/powercap/intel-rapl/enabled".to_string(),
        "1\n".to_string(),
    );
    let coretemp = vec![
        (
            "sys/class/hwmon/hwmon1/name".to_string(),
            "coretemp\n".to_string(),
        ),
        (
            "sys/class/hwmon/hwmon1/temp1_input".to_string(),
            "45000\n".to_string(),
        ),
    ];
    Some(match name {
        "intel-2s" => [
            vec![control],
            zone("intel-rapl:0", "package-0", 81_234_567_890, INTEL_PKG),
            zone("intel-rapl:0:0", "dram", 12_345_678_901, INTEL_DRAM),
            zone("intel-rapl:1", "package-1", 79_876_543_210, INTEL_PKG),
            zone("intel-rapl:1:0", "dram", 11_111_111_111, INTEL_DRAM),
        ]
        .concat(),
        "amd-2s" => [
            vec![control],
            zone("intel-rapl:0", "package-0", 40_000_000_000, AMD),
            zone("intel-rapl:0:0", "core", 20_000_000_000, AMD),
            zone("intel-rapl:1", "package-1", 41_000_000_000, AMD),
            zone("intel-rapl:1:0", "core", 21_000_000_000, AMD),
        ]
        .concat(),
        "acpi-meter" => [
            vec![
                ("sys/class/hwmon/hwmon0/name".into(), "power_meter\n".into()),
                (
                    "sys/class/hwmon/hwmon0/power1_average".into(),
                    "312000000\n".into(),
                ),
                (
                    "sys/class/hwmon/hwmon0/power1_average_interval".into(),
                    "1000\n".into(),
                ),
                (
                    "sys/class/hwmon/hwmon0/power1_is_battery".into(),
                    "0\n".into(),
                ),
            ],
            coretemp,
        ]
        .concat(),
        "none" => [vec![control], coretemp].concat(),
        _ => return None,
    })
}

/// Writes tree `name` under `root` (as `root/sys/...`).
pub fn write(name: &str, root: &Path) -> Result<(), crate::Error> {
    let files =
        files(name).ok_or_else(|| crate::Error::Io(format!("no power tree named {name}")))?;
    for (rel, text) in files {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().expect("a path under the root"))
            .and_then(|_| std::fs::write(&p, text))
            .map_err(|e| crate::Error::Io(format!("{}: {e}", p.display())))?;
    }
    Ok(())
}
