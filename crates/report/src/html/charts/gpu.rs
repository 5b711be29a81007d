//! The GPU benchmarks' charts: `gpu stream`'s bandwidth per kernel and
//! `gpu bandwidth`'s copies as bars (a group per kernel or copy, a bar per
//! run), and `gpu gemm`'s rate by matrix order, a line per precision (and
//! run); one chart per GPU. `gpu burn`'s rate each second is a time series
//! ([`super::time_series`]).

use std::collections::BTreeSet;

use nodebench_core::Metric;
use nodebench_core::names::gpu;

use super::super::Labelled;
use super::super::chart::{Axis, BarChart, Chart, Series, Style};
use super::{Figure, bar_series, kind, label_values, number, results, series_name, y_axis};

/// The metrics named `name` of benchmark `id` in every run, with the
/// run's index.
fn metrics<'a>(runs: &'a [Labelled], id: &'a str, name: &'a str) -> Vec<(usize, &'a Metric)> {
    runs.iter()
        .enumerate()
        .flat_map(|(i, run)| {
            results(run, id)
                .flat_map(move |r| r.metrics_named(name))
                .map(move |m| (i, m))
        })
        .collect()
}

/// `all` split by GPU, in the GPUs' order.
fn per_gpu<'a>(all: &'a [(usize, &'a Metric)]) -> Vec<(String, Vec<&'a (usize, &'a Metric)>)> {
    let gpus: BTreeSet<String> = all
        .iter()
        .map(|(_, m)| label_values(m, &[gpu::label::GPU]))
        .collect();
    gpus.into_iter()
        .map(|g| {
            let cell = all
                .iter()
                .filter(|(_, m)| label_values(m, &[gpu::label::GPU]) == g)
                .collect();
            (g, cell)
        })
        .collect()
}

/// A bar chart per GPU of benchmark `id`'s bandwidth: a group per value of
/// the `by` labels, a bar per run.
pub(super) fn bars(runs: &[Labelled], id: &str, by: &[&str]) -> Vec<Figure> {
    let all = metrics(runs, id, gpu::metric::BANDWIDTH);
    let mut out = Vec::new();
    for (g, cell) in per_gpu(&all) {
        // GB/s, as nvbandwidth and BabelStream's users read GPU figures
        // (the host's STREAM stays in MB/s).
        let (groups, series) = bar_series(runs, &cell, by, 1e9);
        out.push(Figure::Bar(BarChart {
            kind: kind::SCALING,
            title: format!("{id} gpu {g}: bandwidth"),
            groups: (by.join(" "), groups),
            y: format!("{} (GB/s)", gpu::metric::BANDWIDTH),
            series,
            reference: None,
            neutral: None,
        }));
    }
    out
}

/// `gpu gemm`'s rate by order n per GPU, a line per precision and run.
pub(super) fn gemm_by_order(runs: &[Labelled], id: &str) -> Vec<Chart> {
    let all = metrics(runs, id, gpu::metric::RATE);
    let mut out = Vec::new();
    for (g, cell) in per_gpu(&all) {
        let Some((_, first)) = cell.first() else {
            continue;
        };
        let max = cell.iter().map(|(_, m)| m.value).fold(0.0, f64::max);
        let (divisor, y) = y_axis(gpu::metric::RATE, first.unit, max);
        let mut chart = Chart::new(
            kind::SCALING,
            format!("{id} gpu {g}: rate by matrix order"),
            Axis::count("n"),
            y,
        );
        for (i, run) in runs.iter().enumerate() {
            let precisions: BTreeSet<&str> = cell
                .iter()
                .filter(|(r, _)| *r == i)
                .filter_map(|(_, m)| m.label_value(gpu::label::PRECISION))
                .collect();
            for p in precisions {
                let mut points: Vec<(f64, f64)> = cell
                    .iter()
                    .filter(|(r, m)| *r == i && m.label_value(gpu::label::PRECISION) == Some(p))
                    .filter_map(|(_, m)| {
                        Some((number(m.label_value(gpu::label::N))?, m.value / divisor))
                    })
                    .collect();
                points.sort_by(|a, b| a.0.total_cmp(&b.0));
                chart.series.push(Series {
                    name: series_name(runs, run, p),
                    points,
                    style: Style::Measured,
                });
            }
        }
        out.push(chart);
    }
    out
}
