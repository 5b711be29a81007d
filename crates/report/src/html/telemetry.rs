//! A result's telemetry in the HTML report: a collapsed `<details>` under
//! the result's tables with the mean / max tables of
//! [`crate::telemetry::summarise`] (folded past
//! [`crate::telemetry::MAX_COLUMNS`] columns, as on the terminal) and up to
//! three small charts over the result's time: CPU busy per CPU (past
//! [`crate::telemetry::MAX_COLUMNS`] CPUs, the lowest, median and highest
//! of them at each instant), disk throughput per device that did I/O, NIC
//! throughput per interface that moved packets.

use std::collections::HashMap;
use std::fmt::Write;

use nodebench_core::names::telemetry::{label, series};
use nodebench_core::{BenchResult, TimeSeries};

use super::chart::{Axis, Chart, Series, Style};
use super::escape;
use crate::format::prefix_for;
use crate::telemetry::{
    Group, GroupSummary, MAX_COLUMNS, SPREAD_COLUMNS, busiest_heading, fold, folded_heading,
    row_text, sample_count, spread_text, summarise, telemetry_series,
};

/// The `data-chart` kind of the telemetry charts.
pub const KIND: &str = "telemetry";

/// The CPU shares that make a CPU busy (idle and iowait are not).
const BUSY: [&str; 5] = [
    series::CPU_USER,
    series::CPU_SYSTEM,
    series::CPU_IRQ,
    series::CPU_SOFTIRQ,
    series::CPU_STEAL,
];

/// The `<details>` block of `result`'s telemetry; empty without telemetry.
pub fn section(result: &BenchResult) -> String {
    let groups = summarise(result);
    if groups.is_empty() {
        return String::new();
    }
    let samples = sample_count(result);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "<details class=\"telemetry\"><summary>telemetry while it ran ({samples} samples): mean / max</summary>"
    );
    for g in &groups {
        match fold(g) {
            Some(f) => {
                let _ = writeln!(out, "<p>{}</p>", escape(&folded_heading(g.group, &f)));
                out.push_str("<table class=\"telemetry\"><tr>");
                let _ = write!(out, "<th>{}</th>", escape(g.group.title()));
                for c in SPREAD_COLUMNS {
                    let _ = write!(out, "<th>{}</th>", escape(c));
                }
                out.push_str("</tr>\n");
                for s in &f.spreads {
                    let (heading, cells) = spread_text(s);
                    let _ = write!(out, "<tr><td>{}</td>", escape(&heading));
                    for text in cells {
                        let _ = write!(out, "<td class=\"num\">{}</td>", escape(&text));
                    }
                    out.push_str("</tr>\n");
                }
                out.push_str("</table>\n");
                let _ = writeln!(out, "<p>{}</p>", escape(&busiest_heading(g.group, &f)));
                group_table(&mut out, &f.busiest);
            }
            None => group_table(&mut out, g),
        }
    }
    let charts = charts(result);
    if !charts.is_empty() {
        out.push_str("<div class=\"charts\">\n");
        for c in &charts {
            out.push_str(&c.figure());
        }
        out.push_str("</div>\n");
    }
    out.push_str("</details>\n");
    out
}

/// A group's table: a `mean / max` cell per column and series.
fn group_table(out: &mut String, g: &GroupSummary) {
    out.push_str("<table class=\"telemetry\"><tr>");
    let _ = write!(out, "<th>{}</th>", escape(g.group.title()));
    if g.group == Group::Machine {
        out.push_str("<th>mean / max</th>");
    } else {
        for c in &g.columns {
            let _ = write!(out, "<th>{}</th>", escape(c));
        }
    }
    out.push_str("</tr>\n");
    for (name, unit, cells) in &g.rows {
        let (heading, texts) = row_text(name, *unit, cells);
        let _ = write!(out, "<tr><td>{}</td>", escape(&heading));
        for text in texts {
            let _ = write!(out, "<td class=\"num\">{}</td>", escape(&text));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table>\n");
}

/// The telemetry charts of `result`: CPU busy %, disk and NIC throughput,
/// GPU utilisation and power, each drawn when its series have two samples
/// or more (and, for disks and NICs, some activity).
pub fn charts(result: &BenchResult) -> Vec<Chart> {
    let groups = summarise(result);
    let telemetry: Vec<&TimeSeries> = telemetry_series(result).collect();
    let mut charts = Vec::new();
    let title = |what: &str| format!("{}: {what}", result.benchmark);

    if let Some(cpu) = groups.iter().find(|g| g.group == Group::Cpu) {
        let mut chart = Chart::new(
            KIND,
            title("CPU busy"),
            Axis::linear("time (s)"),
            Axis::linear("busy (%)"),
        );
        // Each CPU's busy shares, found once (not once per CPU: 512 CPUs
        // have 3584 series).
        let mut parts: HashMap<&str, Vec<&TimeSeries>> = HashMap::new();
        for s in &telemetry {
            if BUSY.contains(&s.name.as_str())
                && let Some(c) = s.labels.get(label::CPU)
            {
                parts.entry(c.as_str()).or_default().push(s);
            }
        }
        let mut lines = Vec::new();
        for column in &cpu.columns {
            let Some(parts) = column.strip_prefix("cpu").and_then(|c| parts.get(c)) else {
                continue;
            };
            let Some(first) = parts.first() else {
                continue;
            };
            let points: Vec<(f64, f64)> = first
                .points
                .iter()
                .enumerate()
                .map(|(i, &(t, _))| {
                    let busy: f64 = parts
                        .iter()
                        .filter_map(|s| s.points.get(i))
                        .map(|p| p.1)
                        .sum();
                    (t, busy.min(100.0))
                })
                .collect();
            if points.len() >= 2 {
                lines.push(Series {
                    name: column.clone(),
                    points,
                    style: Style::Measured,
                });
            }
        }
        if lines.len() > MAX_COLUMNS {
            chart.title = title(&format!(
                "CPU busy, lowest / median / highest of {} CPUs",
                lines.len()
            ));
            chart.series = spread_lines(&lines);
        } else {
            chart.series = lines;
        }
        if !chart.series.is_empty() {
            charts.push(chart);
        }
    }

    let throughput = |group: Group, what: &str, names: [(&str, &str); 2]| -> Option<Chart> {
        let g = groups.iter().find(|g| g.group == group)?;
        let key = match group {
            Group::Disk => label::DEVICE,
            _ => label::NIC,
        };
        let mut picked: Vec<(&TimeSeries, &str)> = telemetry
            .iter()
            .filter_map(|s| {
                let (_, dir) = names.iter().find(|(n, _)| *n == s.name)?;
                let col = s.labels.get(key)?;
                (g.columns.contains(col) && s.points.len() >= 2).then_some((*s, *dir))
            })
            .collect();
        // Per column, in the order of `names` (read before write).
        picked.sort_by_key(|(s, dir)| (&s.labels[key], names.iter().position(|n| n.1 == *dir)));
        let max = picked
            .iter()
            .flat_map(|(s, _)| s.points.iter().map(|p| p.1))
            .fold(0.0, f64::max);
        let first = picked.first()?;
        let (prefix, divisor) = prefix_for(first.0.unit, max);
        let mut chart = Chart::new(
            KIND,
            title(what),
            Axis::linear("time (s)"),
            Axis::linear(format!("throughput ({prefix}B/s)")),
        );
        for (s, dir) in picked {
            chart.series.push(Series {
                name: format!("{} {dir}", s.labels[key]),
                points: s.points.iter().map(|&(t, v)| (t, v / divisor)).collect(),
                style: Style::Measured,
            });
        }
        Some(chart)
    };
    charts.extend(throughput(
        Group::Disk,
        "disk throughput",
        [
            (series::DISK_READ_BYTES, "read"),
            (series::DISK_WRITE_BYTES, "write"),
        ],
    ));
    charts.extend(throughput(
        Group::Nic,
        "NIC throughput",
        [(series::NET_RX_BYTES, "rx"), (series::NET_TX_BYTES, "tx")],
    ));
    // A line per GPU of its utilisation and of its power.
    for (name, what, axis) in [
        (
            series::GPU_UTILISATION,
            "GPU utilisation",
            "utilisation (%)",
        ),
        (series::GPU_POWER, "GPU power", "power (W)"),
    ] {
        let mut chart = Chart::new(
            KIND,
            title(what),
            Axis::linear("time (s)"),
            Axis::linear(axis),
        );
        for s in &telemetry {
            if s.name == name
                && s.points.len() >= 2
                && let Some(g) = s.labels.get(label::GPU)
            {
                chart.series.push(Series {
                    name: format!("gpu{g}"),
                    points: s.points.clone(),
                    style: Style::Measured,
                });
            }
        }
        if !chart.series.is_empty() {
            charts.push(chart);
        }
    }
    charts
}

/// The lowest, median and highest of `lines` at each instant of the first
/// (points matched by their place).
fn spread_lines(lines: &[Series]) -> Vec<Series> {
    let Some(first) = lines.first() else {
        return Vec::new();
    };
    let mut out: [Vec<(f64, f64)>; 3] = Default::default();
    for (i, &(t, _)) in first.points.iter().enumerate() {
        let mut at: Vec<f64> = lines
            .iter()
            .filter_map(|l| l.points.get(i))
            .map(|p| p.1)
            .collect();
        at.sort_by(f64::total_cmp);
        let n = at.len();
        let median = if n % 2 == 1 {
            at[n / 2]
        } else {
            (at[n / 2 - 1] + at[n / 2]) / 2.0
        };
        for (line, v) in out.iter_mut().zip([at[0], median, at[n - 1]]) {
            line.push((t, v));
        }
    }
    ["lowest", "median", "highest"]
        .iter()
        .zip(out)
        .map(|(name, points)| Series {
            name: name.to_string(),
            points,
            style: Style::Measured,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use nodebench_core::Unit;

    use super::*;
    use crate::telemetry::test_series as ts;

    #[test]
    fn gpus_get_a_column_each_and_utilisation_and_power_charts() {
        let mut r = BenchResult::new("gpu.burn");
        let gpu = |g: &str, util: f64, watts: f64| {
            vec![
                ts(
                    series::GPU_UTILISATION,
                    Unit::Percent,
                    &[("gpu", g)],
                    &[util, util],
                ),
                ts(
                    series::GPU_POWER,
                    Unit::Watts,
                    &[("gpu", g)],
                    &[watts, watts + 10.0],
                ),
                ts(
                    series::GPU_SM_CLOCK,
                    Unit::Hertz,
                    &[("gpu", g)],
                    &[1.98e9, 1.98e9],
                ),
            ]
        };
        r.series = [gpu("0", 100.0, 690.0), gpu("1", 97.0, 650.0)].concat();
        let groups = crate::telemetry::summarise(&r);
        let g = groups.iter().find(|g| g.group == Group::Gpu).unwrap();
        assert_eq!(g.columns, ["gpu0", "gpu1"]);
        let rows: Vec<&str> = g.rows.iter().map(|r| r.0).collect();
        assert_eq!(
            rows,
            [
                series::GPU_UTILISATION,
                series::GPU_SM_CLOCK,
                series::GPU_POWER
            ]
        );
        let charts = charts(&r);
        let titles: Vec<&str> = charts.iter().map(|c| c.title.as_str()).collect();
        assert_eq!(titles, ["gpu.burn: GPU utilisation", "gpu.burn: GPU power"]);
        assert_eq!(charts[1].y.title, "power (W)");
        let lines: Vec<&str> = charts[1].series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(lines, ["gpu0", "gpu1"]);
        assert_eq!(charts[1].series[0].points, [(0.0, 690.0), (1.0, 700.0)]);
        let html = section(&r);
        assert!(html.contains("<th>gpu0</th>"), "{html}");
    }

    #[test]
    fn busy_cpus_and_active_devices_are_charted() {
        let mut r = BenchResult::new("disk.dd");
        r.series = vec![
            ts(
                series::CPU_USER,
                Unit::Percent,
                &[("cpu", "0")],
                &[60.0, 70.0, 80.0],
            ),
            ts(
                series::CPU_SYSTEM,
                Unit::Percent,
                &[("cpu", "0")],
                &[30.0, 40.0, 10.0],
            ),
            ts(
                series::CPU_IOWAIT,
                Unit::Percent,
                &[("cpu", "0")],
                &[10.0, 10.0, 10.0],
            ),
            ts(
                series::DISK_WRITE_IOPS,
                Unit::OpsPerSecond,
                &[("device", "vda")],
                &[5.0, 5.0, 5.0],
            ),
            ts(
                series::DISK_WRITE_BYTES,
                Unit::BytesPerSecond,
                &[("device", "vda")],
                &[1e8, 2e8, 3e8],
            ),
            ts(
                series::DISK_READ_BYTES,
                Unit::BytesPerSecond,
                &[("device", "vda")],
                &[0.0, 0.0, 0.0],
            ),
            ts(
                series::DISK_WRITE_IOPS,
                Unit::OpsPerSecond,
                &[("device", "sdb")],
                &[0.0, 0.0, 0.0],
            ),
            ts(
                series::DISK_WRITE_BYTES,
                Unit::BytesPerSecond,
                &[("device", "sdb")],
                &[0.0, 0.0, 0.0],
            ),
        ];
        let charts = charts(&r);
        assert_eq!(charts.len(), 2, "{charts:#?}");
        let cpu = &charts[0];
        assert_eq!(cpu.series.len(), 1);
        // Busy is user + system (+ irq, softirq, steal), capped at 100; iowait is idle.
        assert_eq!(
            cpu.series[0].points,
            vec![(0.0, 90.0), (1.0, 100.0), (2.0, 90.0)]
        );
        let disk = &charts[1];
        assert_eq!(disk.y.title, "throughput (MB/s)");
        let names: Vec<&str> = disk.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, vec!["vda read", "vda write"]);
        assert_eq!(disk.series[1].points[2], (2.0, 300.0));

        let html = section(&r);
        assert!(html.starts_with("<details class=\"telemetry\">"), "{html}");
        assert_eq!(
            html.matches("data-chart=\"telemetry\"").count(),
            2,
            "{html}"
        );
        assert!(
            html.contains("<th>vda</th>") && !html.contains("sdb"),
            "{html}"
        );
    }

    #[test]
    fn five_hundred_and_twelve_cpus_give_folded_tables_and_a_spread_chart() {
        let mut r = BenchResult::new("cpu.ops");
        for cpu in 0..512u32 {
            let c = cpu.to_string();
            let user = f64::from(cpu % 100);
            r.series.push(ts(
                series::CPU_USER,
                Unit::Percent,
                &[("cpu", &c)],
                &[user, user + 0.5, user],
            ));
        }
        let html = section(&r);
        assert!(html.contains("cpu: 512 CPUs, folded"), "{html}");
        assert!(html.contains("<th>peak sample</th>"), "{html}");
        assert!(!html.contains("<th>cpu200</th>"), "only the busiest");
        assert!(html.contains("<th>cpu99</th>"), "the busiest");
        let charts = charts(&r);
        let names: Vec<&str> = charts[0].series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["lowest", "median", "highest"]);
        assert_eq!(charts[0].series[2].points[1], (1.0, 99.5));
        assert_eq!(charts[0].series[0].points[0], (0.0, 0.0));
        assert!(
            charts[0].title.contains("of 512 CPUs"),
            "{}",
            charts[0].title
        );
    }

    #[test]
    fn one_sample_gives_tables_and_no_chart() {
        let mut r = BenchResult::new("cpu.ops");
        r.series = vec![ts(
            series::CPU_USER,
            Unit::Percent,
            &[("cpu", "0")],
            &[50.0],
        )];
        assert!(charts(&r).is_empty());
        let html = section(&r);
        assert!(
            html.contains("50.0 / 50.0") && !html.contains("<figure"),
            "{html}"
        );
        assert_eq!(section(&BenchResult::new("cpu.ops")), "");
    }
}
