//! The telemetry recorded beside a result (`machine::telemetry`, series
//! labelled `source=telemetry`) summarised as mean and max per series: the
//! tables `runs show` prints under each result and the HTML report shows
//! beside its telemetry charts. Series are grouped as the sampler reads
//! them (per CPU, machine-wide, per block device, per NIC, per sensor);
//! devices and NICs that saw no traffic while the result ran are left out,
//! so a result's ~120 series fit in a few short tables. A group of more
//! than [`MAX_COLUMNS`] columns (a 512-CPU machine's 3584 CPU series) is
//! folded ([`fold`]): per series the lowest, median and highest of the
//! columns' means, each extreme naming its column, and the highest sample
//! anywhere; then the [`BUSIEST`] busiest columns in full.

use std::collections::BTreeMap;
use std::fmt::Write;

use comfy_table::presets;
use comfy_table::{CellAlignment, Table};
use nodebench_core::names::telemetry::{SOURCE, SOURCE_TELEMETRY, label, series};
use nodebench_core::{BenchResult, TimeSeries, Unit};

use crate::format::{display_unit, prefix_for, scaled};

/// The most columns a group's table shows; more are folded ([`fold`]).
pub const MAX_COLUMNS: usize = 16;

/// The busiest columns shown in full under a folded group.
pub const BUSIEST: usize = 6;

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
    /// NVIDIA GPUs (NVML): utilisation, clocks, power, temperature, a
    /// column per GPU.
    Gpu,
}

impl Group {
    /// Every group, in the order they are printed.
    pub const ALL: [Group; 6] = [
        Group::Cpu,
        Group::Machine,
        Group::Disk,
        Group::Nic,
        Group::Temperature,
        Group::Gpu,
    ];

    /// The heading of its table.
    pub fn title(self) -> &'static str {
        match self {
            Group::Cpu => "cpu",
            Group::Machine => "machine",
            Group::Disk => "disk",
            Group::Nic => "nic",
            Group::Temperature => "temperature",
            Group::Gpu => "gpu",
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
            Group::Gpu => Some(label::GPU),
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
            Group::Gpu => &[
                series::GPU_UTILISATION,
                series::GPU_MEMORY_UTILISATION,
                series::GPU_SM_CLOCK,
                series::GPU_POWER,
                series::GPU_TEMPERATURE,
                series::GPU_MEMORY_USED,
            ],
        }
    }

    /// The series whose means, summed, rank a column as busy: a CPU's
    /// busy share (user + system + irq + softirq + steal), a device's
    /// utilisation, a NIC's bytes, a sensor's temperature.
    fn busy(self) -> &'static [&'static str] {
        match self {
            Group::Cpu => &[
                series::CPU_USER,
                series::CPU_SYSTEM,
                series::CPU_IRQ,
                series::CPU_SOFTIRQ,
                series::CPU_STEAL,
            ],
            Group::Machine => &[],
            Group::Disk => &[series::DISK_UTILISATION],
            Group::Nic => &[series::NET_RX_BYTES, series::NET_TX_BYTES],
            Group::Temperature => &[series::TEMPERATURE],
            Group::Gpu => &[series::GPU_UTILISATION],
        }
    }

    /// What [`Group::busy`] ranks by, for the heading of the busiest.
    fn busy_words(self) -> &'static str {
        match self {
            Group::Cpu => "user + system + irq + softirq + steal",
            Group::Machine => "",
            Group::Disk => "utilisation",
            Group::Nic => "bytes",
            Group::Temperature => "temperature",
            Group::Gpu => "utilisation",
        }
    }

    /// What a column is, counted (`512 CPUs`).
    fn count(self, n: usize) -> String {
        let what = match self {
            Group::Cpu => "CPU",
            Group::Machine => "machine",
            Group::Disk => "device",
            Group::Nic => "NIC",
            Group::Temperature => "sensor",
            Group::Gpu => "GPU",
        };
        format!("{n} {what}{}", if n == 1 { "" } else { "s" })
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
            } else if key == label::GPU {
                format!("gpu{v}")
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

/// A value and the column it was found in.
#[derive(Debug, Clone, PartialEq)]
pub struct Where {
    /// The value.
    pub value: f64,
    /// Its column (`cpu17`).
    pub column: String,
}

/// One series of a folded group: how its columns' means spread.
#[derive(Debug, Clone, PartialEq)]
pub struct Spread {
    /// Series name.
    pub name: &'static str,
    /// Its unit.
    pub unit: Unit,
    /// Columns that have it.
    pub columns: usize,
    /// The lowest column mean.
    pub lowest: Where,
    /// The median of the column means.
    pub median: f64,
    /// The highest column mean.
    pub highest: Where,
    /// The highest sample of any column.
    pub peak: Where,
}

/// A group of more than [`MAX_COLUMNS`] columns, folded.
#[derive(Debug, Clone, PartialEq)]
pub struct Folded {
    /// Per series, the spread over the columns.
    pub spreads: Vec<Spread>,
    /// The group restricted to its [`BUSIEST`] busiest columns (by
    /// [`Group::busy`]), busiest first.
    pub busiest: GroupSummary,
    /// Columns in the group.
    pub columns: usize,
}

/// `g` folded, when it has more than [`MAX_COLUMNS`] columns.
pub fn fold(g: &GroupSummary) -> Option<Folded> {
    if g.columns.len() <= MAX_COLUMNS {
        return None;
    }
    let spreads = g
        .rows
        .iter()
        .filter_map(|(name, unit, cells)| {
            let mut present: Vec<(f64, f64, &String)> = cells
                .iter()
                .zip(&g.columns)
                .filter_map(|(c, col)| c.map(|s| (s.mean, s.max, col)))
                .collect();
            let peak = present
                .iter()
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .map(|p| Where {
                    value: p.1,
                    column: p.2.clone(),
                })?;
            present.sort_by(|a, b| a.0.total_cmp(&b.0));
            let n = present.len();
            let median = if n % 2 == 1 {
                present[n / 2].0
            } else {
                (present[n / 2 - 1].0 + present[n / 2].0) / 2.0
            };
            let at = |p: &(f64, f64, &String)| Where {
                value: p.0,
                column: p.2.clone(),
            };
            Some(Spread {
                name,
                unit: *unit,
                columns: n,
                lowest: at(&present[0]),
                median,
                highest: at(&present[n - 1]),
                peak,
            })
        })
        .collect();
    let busy: Vec<f64> = (0..g.columns.len())
        .map(|c| {
            g.rows
                .iter()
                .filter(|(name, _, _)| g.group.busy().contains(name))
                .filter_map(|(_, _, cells)| cells[c].map(|s| s.mean))
                .sum()
        })
        .collect();
    let mut order: Vec<usize> = (0..g.columns.len()).collect();
    // Busiest first; among equals, in column order.
    order.sort_by(|&a, &b| busy[b].total_cmp(&busy[a]).then(a.cmp(&b)));
    order.truncate(BUSIEST);
    let busiest = GroupSummary {
        group: g.group,
        columns: order.iter().map(|&c| g.columns[c].clone()).collect(),
        rows: g
            .rows
            .iter()
            .map(|(name, unit, cells)| (*name, *unit, order.iter().map(|&c| cells[c]).collect()))
            .collect(),
    };
    Some(Folded {
        spreads,
        busiest,
        columns: g.columns.len(),
    })
}

/// One folded row as text: its heading with the unit, then the lowest,
/// median and highest mean and the peak, extremes with their column, in
/// the prefix the row's peak calls for.
pub fn spread_text(s: &Spread) -> (String, [String; 4]) {
    let (prefix, divisor) = prefix_for(s.unit, s.peak.value.max(s.highest.value));
    let v = |x: f64| scaled(x, s.unit, divisor);
    let at = |w: &Where| format!("{} {}", v(w.value), w.column);
    (
        row_heading(s.name, s.unit, prefix),
        [at(&s.lowest), v(s.median), at(&s.highest), at(&s.peak)],
    )
}

/// The column titles of a folded group's spread table, after its heading.
pub const SPREAD_COLUMNS: [&str; 4] = ["lowest mean", "median mean", "highest mean", "peak sample"];

/// The line above a folded group's tables.
pub fn folded_heading(g: Group, f: &Folded) -> String {
    format!(
        "{}: {}, folded: each one's mean, lowest / median / highest over them, and the highest sample",
        g.title(),
        g.count(f.columns)
    )
}

/// The line above a folded group's busiest columns.
pub fn busiest_heading(g: Group, f: &Folded) -> String {
    format!(
        "{}: the {} busiest of {} ({}), mean / max:",
        g.title(),
        f.busiest.columns.len(),
        g.count(f.columns),
        g.busy_words()
    )
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
/// many samples, then a table per group with `mean / max` cells, a group
/// of more than [`MAX_COLUMNS`] columns folded ([`fold`]). Empty when the
/// result has no telemetry.
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
        match fold(g) {
            Some(f) => {
                let _ = writeln!(out, "{}", folded_heading(g.group, &f));
                let mut table = Table::new();
                table.load_style(presets::ASCII_BORDERS_ONLY_CONDENSED);
                let mut header = vec![g.group.title().to_string()];
                header.extend(SPREAD_COLUMNS.iter().map(|c| c.to_string()));
                table.set_header(header);
                for s in &f.spreads {
                    let (heading, cells) = spread_text(s);
                    let mut row = vec![heading];
                    row.extend(cells);
                    table.add_row(row);
                }
                right_align(&mut table, SPREAD_COLUMNS.len());
                let _ = writeln!(out, "{table}");
                let _ = writeln!(out, "{}", busiest_heading(g.group, &f));
                let _ = writeln!(out, "{}", group_table(&f.busiest));
            }
            None => {
                let _ = writeln!(out, "{}", group_table(g));
            }
        }
    }
    out
}

fn right_align(table: &mut Table, columns: usize) {
    for col in 1..=columns {
        if let Some(c) = table.column_mut(col) {
            c.set_cell_alignment(CellAlignment::Right);
        }
    }
}

/// A group's table: a `mean / max` cell per column and series.
fn group_table(g: &GroupSummary) -> Table {
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
    right_align(&mut table, g.columns.len());
    table
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

    /// A result's CPU telemetry on a 512-CPU machine: user `cpu % 97` %
    /// (CPU 300 at 100 %), system 1 %, frequency 3 GHz + `cpu` MHz.
    fn cpus_512() -> BenchResult {
        let mut series = Vec::new();
        for cpu in 0..512u32 {
            let c = cpu.to_string();
            let user = if cpu == 300 {
                100.0
            } else {
                f64::from(cpu % 97)
            };
            series.push(ts(
                series::CPU_USER,
                Unit::Percent,
                &[("cpu", &c)],
                &[user, user],
            ));
            series.push(ts(
                series::CPU_SYSTEM,
                Unit::Percent,
                &[("cpu", &c)],
                &[1.0, 1.0],
            ));
            let hz = 3e9 + f64::from(cpu) * 1e6;
            series.push(ts(
                series::CPU_FREQUENCY,
                Unit::Hertz,
                &[("cpu", &c)],
                &[hz, hz + 1e6],
            ));
        }
        series.push(ts(series::MEMORY_USED, Unit::Bytes, &[], &[1e9, 3e9]));
        result(series)
    }

    #[test]
    fn five_hundred_and_twelve_cpus_fold_into_a_spread_and_the_busiest() {
        let r = cpus_512();
        let groups = summarise(&r);
        let f = fold(&groups[0]).unwrap();
        assert_eq!(f.columns, 512);
        let user = &f.spreads[0];
        assert_eq!((user.name, user.columns), (series::CPU_USER, 512));
        assert_eq!(
            user.lowest,
            Where {
                value: 0.0,
                column: "cpu0".into()
            }
        );
        assert_eq!(user.highest.column, "cpu300");
        assert_eq!(user.peak.column, "cpu300");
        assert_eq!(f.busiest.columns[0], "cpu300");
        assert_eq!(f.busiest.columns.len(), BUSIEST);
        let freq = f
            .spreads
            .iter()
            .find(|s| s.name == series::CPU_FREQUENCY)
            .unwrap();
        assert_eq!(freq.peak.column, "cpu511");
        assert_eq!(freq.peak.value, 3.512e9);

        let text = summary_text(&r);
        let widest = text.lines().map(|l| l.chars().count()).max().unwrap();
        assert!(widest < 160, "{widest} wide:\n{text}");
        assert!(text.lines().count() < 40, "{text}");
        assert!(text.contains("cpu: 512 CPUs, folded"), "{text}");
        assert!(text.contains("the 6 busiest of 512 CPUs"), "{text}");
        let user_row = text.lines().find(|l| l.starts_with("| cpu_user")).unwrap();
        assert!(
            user_row.contains("0.0 cpu0") && user_row.contains("100.0 cpu300"),
            "{user_row}"
        );
        assert!(text.contains("3.51 cpu511"), "{text}");
        // The machine-wide table is as before.
        assert!(text.contains("memory_used (GB)"), "{text}");
        // Sixteen CPUs still get a column each.
        let mut small = r.clone();
        small.series.retain(|s| {
            s.labels
                .get("cpu")
                .is_none_or(|c| c.parse::<u32>().unwrap() < 16)
        });
        assert!(fold(&summarise(&small)[0]).is_none());
        assert!(summary_text(&small).contains(" cpu15 "));
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
