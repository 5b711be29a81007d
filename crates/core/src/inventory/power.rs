//! The power sources of the machine (read by `nodebench_machine::energy`):
//! each with what it covers and how it is read, or why none is readable.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The power sources, and why others (or all) are not readable.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct PowerSources {
    /// Why no power figure can be given ("no power sensor readable (RAPL
    /// needs root)"); `None` when a source is readable.
    pub unavailable: Option<String>,
    /// Every readable source.
    pub sources: Vec<PowerSource>,
    /// Sources present but not readable, one line each ("RAPL needs root").
    pub notes: Vec<String>,
}

/// One power source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, Default)]
#[serde(default)]
pub struct PowerSource {
    /// How it is read: `rapl`, `hwmon`, `ipmi` or `nvml`.
    pub source: String,
    /// What it covers: `package`, `core`, `uncore`, `dram`, `platform`,
    /// `node`, `gpu` or `other`.
    pub scope: String,
    /// The sensor: a powercap zone, an hwmon input, `bmc`, `gpu0`.
    pub sensor: String,
    /// How it is read ("powercap intel-rapl:0/energy_uj (package-0), wraps
    /// at 262143 J").
    pub how: String,
}
