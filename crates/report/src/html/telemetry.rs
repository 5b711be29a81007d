//! A result's telemetry in the HTML report: a collapsed `<details>` under
//! the result's tables with the mean / max tables of
//! [`crate::telemetry::summarise`] and up to three small charts over the
//! result's time: CPU busy per CPU, disk throughput per device that did
//! I/O, NIC throughput per interface that moved packets.

use std::fmt::Write;

use nodebench_core::names::telemetry::{label, series};
use nodebench_core::{BenchResult, TimeSeries};

use super::chart::{Axis, Chart, Series, Style};
use super::escape;
use crate::format::prefix_for;
use crate::telemetry::{Group, row_text, sample_count, summarise, telemetry_series};

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

/// The telemetry charts of `result`: CPU busy %, disk and NIC throughput,
/// each drawn when its series have two samples or more (and, for disks and
/// NICs, some activity).
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
        for column in &cpu.columns {
            let parts: Vec<&&TimeSeries> = telemetry
                .iter()
                .filter(|s| {
                    BUSY.contains(&s.name.as_str())
                        && s.labels.get(label::CPU).map(|c| format!("cpu{c}"))
                            == Some(column.clone())
                })
                .collect();
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
                chart.series.push(Series {
                    name: column.clone(),
                    points,
                    style: Style::Measured,
                });
            }
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
    charts
}

#[cfg(test)]
mod tests {
    use nodebench_core::Unit;

    use super::*;
    use crate::telemetry::test_series as ts;

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
