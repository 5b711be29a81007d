//! The telemetry recorded beside a result (`core::telemetry`, series
//! labelled `source=telemetry`) summarised as mean and max per series: the
//! tables `runs show` prints under each result and the HTML report shows
//! beside its telemetry charts. Series are grouped as the sampler reads
//! them (per CPU, machine-wide, per block device, per NIC, per sensor);
//! devices and NICs that saw no traffic while the result ran are left out,
//! so a result's ~120 series fit in a few short tables.

use std::collections::BTreeMap;
use std::fmt::Write;

use comfy_table::presets;
use comfy_table::{CellAlignment, Table};
use nodebench_core::names::telemetry::{SOURCE, SOURCE_TELEMETRY, label, series};
use nodebench_core::{BenchResult, TimeSeries, Unit};

use crate::format::{display_unit, prefix_for, scaled};

/// One group of telemetry series: what its columns are (CPUs, devices,
/// NICs, sensors, or the machine as one column).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// Per-CPU utilisation and frequency, a column per CPU.
    Cpu,
    /// Machine-wide counters: context switches, interrupts, run queue,
    /// memory, swap, page faults; one column.
    Machine,
    /// Per block device, a column per device that did I/O.
    Disk,
    /// Per network interface, a column per NIC that moved packets.
    Nic,
    /// hwmon temperatures, a column per sensor.
    Temperature,
}

impl Group {
    /// Every group, in the order they are printed.
    pub const ALL: [Group; 5] = [
        Group::Cpu,
        Group::Machine,
        Group::Disk,
        Group::Nic,
        Group::Temperature,
    ];

    /// The heading of its table.
    pub fn title(self) -> &'static str {
        match self {
            Group::Cpu => "cpu",
            Group::Machine => "machine",
            Group::Disk => "disk",
            Group::Nic => "nic",
            Group::Temperature => "temperature",
        }
    }

    /// The label whose value names a column, `None` for the one column of
    /// machine-wide series.
    fn column_label(self) -> Option<&'static str> {
        match self {
            Group::Cpu => Some(label::CPU),
            Group::Machine => None,
            Group::Disk => Some(label::DEVICE),
            Group::Nic => Some(label::NIC),
            Group::Temperature => Some(label::SENSOR),
        }
    }

    /// The series of this group, in row order.
    fn rows(self) -> &'static [&'static str] {
        match self {
            Group::Cpu => &[
                series::CPU_USER,
                series::CPU_SYSTEM,
                series::CPU_IOWAIT,
                series::CPU_IRQ,
                series::CPU_SOFTIRQ,
                series::CPU_STEAL,
                series::CPU_FREQUENCY,
            ],
            Group::Machine => &[
                series::CONTEXT_SWITCHES,
                series::INTERRUPTS,
                series::PROCS_RUNNING,
                series::MEMORY_USED,
                series::MEMORY_CACHED,
                series::MEMORY_DIRTY,
                series::MEMORY_WRITEBACK,
                series::SWAP_IN,
                series::SWAP_OUT,
                series::MAJOR_FAULTS,
            ],
            Group::Disk => &[
                series::DISK_READ_IOPS,
                series::DISK_WRITE_IOPS,
                series::DISK_READ_BYTES,
                series::DISK_WRITE_BYTES,
                series::DISK_REQUEST_SIZE,
                series::DISK_QUEUE_DEPTH,
                series::DISK_UTILISATION,
            ],
            Group::Nic => &[
                series::NET_RX_BYTES,
                series::NET_TX_BYTES,
                series::NET_RX_PACKETS,
                series::NET_TX_PACKETS,
                series::NET_RX_DROPS,
                series::NET_TX_DROPS,
                series::NET_RX_ERRORS,
                series::NET_TX_ERRORS,
            ],
            Group::Temperature => &[series::TEMPERATURE],
        }
    }

    /// The series that show whether a column saw any activity: a device
    /// or NIC with none is left out.
    fn activity(self) -> &'static [&'static str] {
        match self {
            Group::Disk => &[series::DISK_READ_IOPS, series::DISK_WRITE_IOPS],
            Group::Nic => &[series::NET_RX_PACKETS, series::NET_TX_PACKETS],
            _ => &[],
        }
    }
}

/// Mean and max of one series over a result's span.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stat {
    /// Mean of the samples.
    pub mean: f64,
    /// Largest sample.
    pub max: f64,
}

/// One group's summary: its columns, and per row (series name, unit) the
/// stat of each column (absent where the column has no such series).
#[derive(Debug, Clone, PartialEq)]
pub struct GroupSummary {
    /// Which group.
    pub group: Group,
    /// Column names: CPU numbers as `cpu0`, device, NIC or sensor names.
    pub columns: Vec<String>,
    /// Rows in the group's order: series name, unit, a stat per column.
    pub rows: Vec<(&'static str, Unit, Vec<Option<Stat>>)>,
}

/// A result's telemetry series (those labelled `source=telemetry`).
pub fn telemetry_series(result: &BenchResult) -> impl Iterator<Item = &TimeSeries> {
    result
        .series
        .iter()
        .filter(|s| s.labels.get(SOURCE).map(String::as_str) == Some(SOURCE_TELEMETRY))
}

/// Mean and max of a series' samples, `None` when it has none.
pub fn stat(s: &TimeSeries) -> Option<Stat> {
    if s.points.is_empty() {
        return None;
    }
    let sum: f64 = s.points.iter().map(|p| p.1).sum();
    Some(Stat {
        mean: sum / s.points.len() as f64,
        max: s
            .points
            .iter()
            .map(|p| p.1)
            .fold(f64::NEG_INFINITY, f64::max),
    })
}

/// The column of `s` within `group`: the label's value (CPUs as `cpu3`).
fn column_of(group: Group, s: &TimeSeries) -> Option<String> {
    match group.column_label() {
        None => Some(group.title().to_string()),
        Some(key) => {
            let v = s.labels.get(key)?;
            Some(if key == label::CPU {
                format!("cpu{v}")
            } else {
                v.clone()
            })
        }
    }
}

/// The summary of `result`'s telemetry, one entry per group that has
/// series (idle devices and NICs left out); empty when the result has no
/// telemetry (`--no-telemetry`, or imported).
pub fn summarise(result: &BenchResult) -> Vec<GroupSummary> {
    let telemetry: Vec<&TimeSeries> = telemetry_series(result).collect();
    let mut out = Vec::new();
    for group in Group::ALL {
        // column -> series name -> series
        let mut by_column: BTreeMap<String, BTreeMap<&str, &TimeSeries>> = BTreeMap::new();
        for s in &telemetry {
            if !group.rows().contains(&s.name.as_str()) {
                continue;
            }
            if let Some(col) = column_of(group, s) {
                by_column.entry(col).or_default().insert(s.name.as_str(), s);
            }
        }
        by_column.retain(|_, named| {
            group.activity().is_empty()
                || group.activity().iter().any(|name| {
                    named
                        .get(name)
                        .and_then(|s| stat(s))
                        .is_some_and(|st| st.max > 0.0)
                })
        });
        if by_column.is_empty() {
            continue;
        }
        let mut columns: Vec<String> = by_column.keys().cloned().collect();
        if group == Group::Cpu {
            // cpu2 before cpu10.
            columns.sort_by_key(|c| c[3..].parse::<u64>().unwrap_or(u64::MAX));
        }
        let mut rows = Vec::new();
        for &name in group.rows() {
            let cells: Vec<Option<&TimeSeries>> = columns
                .iter()
                .map(|c| by_column[c].get(name).copied())
                .collect();
            let Some(unit) = cells.iter().flatten().map(|s| s.unit).next() else {
                continue;
            };
            rows.push((name, unit, cells.iter().map(|s| s.and_then(stat)).collect()));
        }
        out.push(GroupSummary {
            group,
            columns,
            rows,
        });
    }
    out
}

/// The row heading of series `name` in `unit`: the name without its unit
/// suffix, and the display unit (`disk_read_bytes_per_second` ->
/// `disk_read (MB/s)`).
pub fn row_heading(name: &str, unit: Unit, prefix: &str) -> String {
    let short = ["_bytes_per_second", "_per_second", "_bytes", "_celsius"]
        .iter()
        .find_map(|suffix| name.strip_suffix(suffix))
        .unwrap_or(name);
    let unit = match (unit, name) {
        (_, n) if n.ends_with("_celsius") => "°C".to_string(),
        (Unit::OpsPerSecond, _) => format!("{prefix}/s"),
        _ => display_unit(unit, prefix),
    };
    if unit.is_empty() {
        short.to_string()
    } else {
        format!("{short} ({unit})")
    }
}

/// How many samples `result`'s telemetry holds (its longest series).
pub fn sample_count(result: &BenchResult) -> usize {
    telemetry_series(result)
        .map(|s| s.points.len())
        .max()
        .unwrap_or(0)
}

/// One summary row as text: its heading with the unit, and a `mean / max`
/// cell per column (`-` where the column has no such series), all in the
/// prefix the row's largest value calls for.
pub fn row_text(name: &str, unit: Unit, cells: &[Option<Stat>]) -> (String, Vec<String>) {
    let max = cells.iter().flatten().map(|s| s.max).fold(0.0, f64::max);
    let (prefix, divisor) = prefix_for(unit, max);
    let texts = cells
        .iter()
        .map(|c| match c {
            Some(s) => format!(
                "{} / {}",
                scaled(s.mean, unit, divisor),
                scaled(s.max, unit, divisor)
            ),
            None => "-".into(),
        })
        .collect();
    (row_heading(name, unit, prefix), texts)
}

/// The terminal text of `result`'s telemetry summary: a line saying how
/// many samples, then a table per group with `mean / max` cells. Empty when
/// the result has no telemetry.
pub fn summary_text(result: &BenchResult) -> String {
    let groups = summarise(result);
    if groups.is_empty() {
        return String::new();
    }
    let samples = sample_count(result);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "telemetry while it ran ({samples} samples), mean / max:"
    );
    for g in &groups {
        let mut table = Table::new();
        table.load_style(presets::ASCII_BORDERS_ONLY_CONDENSED);
        let mut header = vec![g.group.title().to_string()];
        if g.group != Group::Machine {
            header.extend(g.columns.iter().cloned());
        } else {
            header.push("mean / max".into());
        }
        table.set_header(header);
        for (name, unit, cells) in &g.rows {
            let (heading, texts) = row_text(name, *unit, cells);
            let mut row = vec![heading];
            row.extend(texts);
            table.add_row(row);
        }
        for col in 1..=g.columns.len() {
            if let Some(c) = table.column_mut(col) {
                c.set_cell_alignment(CellAlignment::Right);
            }
        }
        let _ = writeln!(out, "{table}");
    }
    out
}

/// A telemetry series of `values` one second apart, for the tests here
/// and in `html::telemetry`.
#[cfg(test)]
pub(crate) fn test_series(
    name: &str,
    unit: Unit,
    labels: &[(&str, &str)],
    values: &[f64],
) -> TimeSeries {
    let mut l: BTreeMap<String, String> = labels
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    l.insert(SOURCE.into(), SOURCE_TELEMETRY.into());
    TimeSeries {
        name: name.into(),
        unit,
        labels: l,
        points: values
            .iter()
            .enumerate()
            .map(|(i, v)| (i as f64, *v))
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use test_series as ts;

    fn result(series: Vec<TimeSeries>) -> BenchResult {
        let mut r = BenchResult::new("cpu.ops");
        r.series = series;
        r
    }

    #[test]
    fn mean_and_max_per_cpu_and_idle_devices_left_out() {
        let r = result(vec![
            ts(
                series::CPU_USER,
                Unit::Percent,
                &[("cpu", "10")],
                &[100.0, 98.0],
            ),
            ts(
                series::CPU_USER,
                Unit::Percent,
                &[("cpu", "2")],
                &[2.0, 4.0],
            ),
            ts(
                series::DISK_WRITE_IOPS,
                Unit::OpsPerSecond,
                &[("device", "vda")],
                &[10.0, 30.0],
            ),
            ts(
                series::DISK_READ_IOPS,
                Unit::OpsPerSecond,
                &[("device", "vda")],
                &[0.0, 0.0],
            ),
            ts(
                series::DISK_WRITE_IOPS,
                Unit::OpsPerSecond,
                &[("device", "loop0")],
                &[0.0, 0.0],
            ),
            ts(
                series::DISK_QUEUE_DEPTH,
                Unit::Count,
                &[("device", "loop0")],
                &[0.0, 0.0],
            ),
            ts(series::MEMORY_USED, Unit::Bytes, &[], &[1e9, 3e9]),
        ]);
        let groups = summarise(&r);
        let kinds: Vec<Group> = groups.iter().map(|g| g.group).collect();
        assert_eq!(kinds, vec![Group::Cpu, Group::Machine, Group::Disk]);
        let cpu = &groups[0];
        assert_eq!(cpu.columns, vec!["cpu2", "cpu10"]);
        assert_eq!(cpu.rows.len(), 1);
        assert_eq!(
            cpu.rows[0].2[1],
            Some(Stat {
                mean: 99.0,
                max: 100.0
            })
        );
        let disk = &groups[2];
        assert_eq!(disk.columns, vec!["vda"]);
        assert_eq!(
            disk.rows[1].2[0],
            Some(Stat {
                mean: 20.0,
                max: 30.0
            })
        );
        let text = summary_text(&r);
        assert!(text.contains("2 samples"), "{text}");
        assert!(text.contains("99.0 / 100.0"), "{text}");
        assert!(text.contains("memory_used (GB)"), "{text}");
        assert!(text.contains("2.00 / 3.00"), "{text}");
        assert!(!text.contains("loop0"), "{text}");
    }

    #[test]
    fn no_telemetry_no_summary() {
        let mut own = ts("requests_per_second", Unit::OpsPerSecond, &[], &[1.0]);
        own.labels.clear();
        let r = result(vec![own]);
        assert!(summarise(&r).is_empty());
        assert_eq!(summary_text(&r), "");
    }

    #[test]
    fn row_headings_name_the_unit() {
        assert_eq!(
            row_heading(series::DISK_READ_BYTES, Unit::BytesPerSecond, "M"),
            "disk_read (MB/s)"
        );
        assert_eq!(
            row_heading(series::CONTEXT_SWITCHES, Unit::OpsPerSecond, "k"),
            "context_switches (k/s)"
        );
        assert_eq!(
            row_heading(series::TEMPERATURE, Unit::Count, ""),
            "temperature (°C)"
        );
        assert_eq!(
            row_heading(series::DISK_QUEUE_DEPTH, Unit::Count, ""),
            "disk_queue_depth"
        );
    }
}
