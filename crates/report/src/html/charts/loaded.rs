//! The loaded-latency curve of `memory loaded-latency`: latency (y) against
//! the bandwidth the traffic threads moved (x), one series per run, the
//! idle latency and the knee marked, as MLC's loaded-latency plots are read.

use nodebench_core::names::memory::{self, IDLE};
use nodebench_core::{Metric, Unit};

use super::super::Labelled;
use super::super::chart::{Axis, Chart, Marker, Scale, Series, Style};
use super::{kind, results, series_name, y_axis};

/// Latency against bandwidth for each run's loaded-latency results.
pub(super) fn loaded_latency(runs: &[Labelled], id: &str) -> Vec<Chart> {
    let per_run: Vec<Vec<(f64, f64)>> = runs
        .iter()
        .map(|run| {
            let mut points: Vec<(f64, f64)> = results(run, id)
                .flat_map(|r| {
                    r.metrics_named(memory::metric::LATENCY)
                        .filter(|m| m.label_value(memory::label::DELAY) != Some(IDLE))
                        .filter_map(|m: &Metric| {
                            let delay = m.label_value(memory::label::DELAY)?;
                            let bw = r
                                .metrics_named(memory::metric::BANDWIDTH)
                                .find(|b| b.label_value(memory::label::DELAY) == Some(delay))?;
                            Some((bw.value, m.value))
                        })
                        .collect::<Vec<_>>()
                })
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            points
        })
        .collect();
    let max_lat = per_run.iter().flatten().map(|p| p.1).fold(0.0, f64::max);
    let max_bw = per_run.iter().flatten().map(|p| p.0).fold(0.0, f64::max);
    if max_lat <= 0.0 {
        return Vec::new();
    }
    let (y_div, y) = y_axis("latency", Unit::Seconds, max_lat);
    let (x_div, x) = y_axis("bandwidth", Unit::BytesPerSecond, max_bw.max(1.0));
    let mut chart = Chart::new(
        kind::LOADED_LATENCY,
        format!("{id}: latency under load against bandwidth"),
        Axis::new(x.title.clone(), Scale::Linear),
        y,
    );
    for (run, points) in runs.iter().zip(&per_run) {
        if points.is_empty() {
            continue;
        }
        chart.series.push(Series {
            name: series_name(runs, run, "loaded latency"),
            points: points
                .iter()
                .map(|(bw, lat)| (bw / x_div, lat / y_div))
                .collect(),
            style: Style::Measured,
        });
        let knee = results(run, id).find_map(|r| r.metric(memory::metric::KNEE_BANDWIDTH, &[]));
        if let Some(k) = knee {
            chart.markers.push(Marker {
                x: k.value / x_div,
                label: series_name(runs, run, "knee (2x idle latency)"),
            });
        }
    }
    if chart.series.is_empty() {
        return Vec::new();
    }
    vec![chart]
}
