//! `memory numa` and `memory loaded-latency` as Intel MLC prints them: the
//! latency and bandwidth matrices (CPU node rows, memory node columns, each
//! cell also as % of its row's local figure), and the loaded-latency table
//! (inject delay, latency, bandwidth) under the peak injection bandwidth of
//! each traffic mix.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use nodebench_core::BenchResult;
use nodebench_core::names::memory::{IDLE, label, metric, param};

/// A metric's value where its labels match.
fn value(r: &BenchResult, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    r.metrics
        .iter()
        .find(|m| m.name == name && labels.iter().all(|(k, v)| m.label_value(k) == Some(*v)))
        .map(|m| m.value)
}

fn heading(r: &BenchResult, out: &mut String) {
    let _ = writeln!(out, "{} [{}]", r.benchmark, r.status.as_str());
}

fn tail(r: &BenchResult, out: &mut String, params: &[&str]) {
    for p in params {
        if let Some(v) = r.parameters.get(*p).and_then(|v| v.as_str()) {
            let _ = writeln!(out, "{p}: {v}");
        }
    }
    if let Some(e) = &r.error {
        let _ = writeln!(out, "error: {e}");
    }
    for w in &r.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
}

/// The NUMA matrices.
pub fn numa(r: &BenchResult) -> String {
    let mut out = String::new();
    heading(r, &mut out);
    let nodes = |key: &str| -> Vec<String> {
        let set: BTreeSet<u32> = r
            .metrics
            .iter()
            .filter_map(|m| m.label_value(key)?.parse().ok())
            .collect();
        set.into_iter().map(|n| n.to_string()).collect()
    };
    let (rows, cols) = (nodes(label::CPU_NODE), nodes(label::MEMORY_NODE));
    for (name, title, scale, digits) in [
        (
            metric::LATENCY,
            "Idle latency (ns): CPUs of node (rows) to memory of node (columns)",
            1e9,
            1,
        ),
        (
            metric::BANDWIDTH,
            "Read bandwidth (MB/s): all usable CPUs of node (rows) reading memory of node (columns)",
            1e-6,
            0,
        ),
    ] {
        let _ = writeln!(out, "{title}");
        let mut head = format!("{:>6}", "node");
        for c in &cols {
            let _ = write!(head, " {c:>16}");
        }
        let _ = writeln!(out, "{head}");
        for row in &rows {
            let local = value(
                r,
                name,
                &[(label::CPU_NODE, row), (label::MEMORY_NODE, row)],
            );
            let mut line = format!("{row:>6}");
            for col in &cols {
                let cell = value(
                    r,
                    name,
                    &[(label::CPU_NODE, row), (label::MEMORY_NODE, col)],
                );
                let text = match (cell, local) {
                    (Some(v), Some(l)) if row != col && l > 0.0 => {
                        format!("{:.digits$} ({:.0} %)", v * scale, 100.0 * v / l)
                    }
                    (Some(v), _) => format!("{:.digits$}", v * scale),
                    (None, _) => "-".into(),
                };
                let _ = write!(line, " {text:>16}");
            }
            let _ = writeln!(out, "{line}");
        }
    }
    tail(
        r,
        &mut out,
        &[param::NOTE, param::CHASE_CPUS, param::PLACEMENT],
    );
    out
}

/// The peak injection bandwidths and the loaded-latency curve.
pub fn loaded(r: &BenchResult) -> String {
    let mut out = String::new();
    heading(r, &mut out);
    let peaks: Vec<(&str, f64)> = r
        .metrics
        .iter()
        .filter(|m| m.name == metric::INJECTION_BANDWIDTH)
        .filter_map(|m| Some((m.label_value(label::MIX)?, m.value)))
        .collect();
    if !peaks.is_empty() {
        let _ = writeln!(
            out,
            "Peak injection bandwidth (MB/s), every usable CPU, delay 0:"
        );
        for (mix, bw) in &peaks {
            let _ = writeln!(out, "  {mix:<10} {:>12.1}", bw * 1e-6);
        }
    }
    let mix = r
        .metrics
        .iter()
        .find(|m| m.name == metric::LATENCY)
        .and_then(|m| m.label_value(label::MIX));
    if let Some(mix) = mix {
        let _ = writeln!(out, "Loaded latency, traffic {mix}:");
        let _ = writeln!(out, "{:>8} {:>10} {:>12}", "Inject", "Latency", "Bandwidth");
        let _ = writeln!(out, "{:>8} {:>10} {:>12}", "Delay", "(ns)", "MB/s");
        let _ = writeln!(out, "{}", "=".repeat(32));
        for m in r.metrics.iter().filter(|m| m.name == metric::LATENCY) {
            let Some(delay) = m.label_value(label::DELAY) else {
                continue;
            };
            let bw = value(r, metric::BANDWIDTH, &[(label::DELAY, delay)]).unwrap_or(0.0);
            let shown = if delay == IDLE {
                "idle".to_string()
            } else {
                format!("{delay:0>5}")
            };
            let _ = writeln!(
                out,
                "{shown:>8} {:>10.2} {:>12.1}",
                m.value * 1e9,
                bw * 1e-6
            );
        }
        if let (Some(bw), Some(lat)) = (
            value(r, metric::KNEE_BANDWIDTH, &[]),
            value(r, metric::KNEE_LATENCY, &[]),
        ) {
            let _ = writeln!(
                out,
                "knee: {:.1} MB/s at {:.2} ns (the first point at twice the idle latency)",
                bw * 1e-6,
                lat * 1e9
            );
        }
    }
    tail(
        r,
        &mut out,
        &[param::NOTE, param::CHASE_CPU, param::TRAFFIC_CPUS],
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::names::memory::{LOADED_LATENCY, NUMA};
    use nodebench_core::{Better, Metric, Unit};

    #[test]
    fn numa_matrices_show_each_far_cell_as_percent_of_local() {
        let mut r = BenchResult::new(NUMA);
        for (row, col, lat, bw) in [
            (0, 0, 80e-9, 40e9),
            (0, 1, 140e-9, 20e9),
            (1, 0, 142e-9, 19e9),
            (1, 1, 81e-9, 41e9),
        ] {
            let l = |m: Metric| m.label(label::CPU_NODE, row).label(label::MEMORY_NODE, col);
            r.metrics.push(l(Metric::new(
                metric::LATENCY,
                lat,
                Unit::Seconds,
                Better::Lower,
            )));
            r.metrics.push(l(Metric::new(
                metric::BANDWIDTH,
                bw,
                Unit::BytesPerSecond,
                Better::Higher,
            )));
        }
        let text = numa(&r);
        assert!(
            text.contains("     0             80.0    140.0 (175 %)\n"),
            "{text}"
        );
        assert!(
            text.contains("     1     19000 (46 %)            41000\n"),
            "{text}"
        );
    }

    #[test]
    fn loaded_latency_prints_peaks_curve_and_knee() {
        let mut r = BenchResult::new(LOADED_LATENCY);
        r.metrics.push(
            Metric::new(
                metric::INJECTION_BANDWIDTH,
                12.5e9,
                Unit::BytesPerSecond,
                Better::Higher,
            )
            .label(label::MIX, "reads"),
        );
        for (delay, lat, bw) in [
            (IDLE.to_string(), 90e-9, 0.0),
            ("100".into(), 95e-9, 5e9),
            ("0".into(), 200e-9, 11e9),
        ] {
            let l = |m: Metric| m.label(label::MIX, "reads").label(label::DELAY, &delay);
            r.metrics.push(l(Metric::new(
                metric::LATENCY,
                lat,
                Unit::Seconds,
                Better::Lower,
            )));
            r.metrics.push(l(Metric::new(
                metric::BANDWIDTH,
                bw,
                Unit::BytesPerSecond,
                Better::Higher,
            )));
        }
        r.metrics.push(Metric::new(
            metric::KNEE_BANDWIDTH,
            11e9,
            Unit::BytesPerSecond,
            Better::Higher,
        ));
        r.metrics.push(Metric::new(
            metric::KNEE_LATENCY,
            200e-9,
            Unit::Seconds,
            Better::Lower,
        ));
        let text = loaded(&r);
        assert!(text.contains("  reads           12500.0\n"), "{text}");
        assert!(
            text.contains("    idle      90.00          0.0\n"),
            "{text}"
        );
        assert!(
            text.contains("   00100      95.00       5000.0\n"),
            "{text}"
        );
        assert!(text.contains("knee: 11000.0 MB/s at 200.00 ns"), "{text}");
    }
}
