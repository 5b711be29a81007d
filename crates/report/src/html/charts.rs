//! The charts of a set of runs: each benchmark's descriptor lists its
//! charts (`nodebench_core::registry::Chart`), and [`draw`] has one arm per
//! kind, built from what the benchmark stores (its names in
//! `nodebench_core::names`): thread scaling against the
//! theoretical peak, LINPACK by order with % of peak, the memory latency
//! staircase with the cache sizes, the loaded-latency curve with its knee, IOzone's auto-mode heat maps, latency
//! percentiles on a nines axis from the stored HdrHistograms, per-second
//! and interval series, the HTTP user sweep with its saturation point, and
//! the GPU benchmarks' bandwidths and GEMM rates, and each result's power
//! by source beside them.
//! With several runs every line chart gets one series per run, named by
//! the run's label.

use std::collections::{BTreeMap, BTreeSet};

use nodebench_core::names::labels::{PERCENTILE, THREADS};
use nodebench_core::names::{disk, http, linpack, memory};
use nodebench_core::registry::{self, Chart as Drawn, Descriptor};
use nodebench_core::units::format_bytes;
use nodebench_core::{BenchResult, Histogram, Metric, Reference, Unit};

mod gpu;
mod loaded;
pub mod power;

use super::Labelled;
use super::chart::{Axis, BarChart, Chart, HeatMap, Marker, Scale, Series, Style};
use crate::format;

/// The `data-chart` kinds, one per chart family.
pub mod kind {
    /// Rate or bandwidth by thread count with the theoretical peak.
    pub const SCALING: &str = "scaling";
    /// LINPACK's rate by order with % of peak.
    pub const LINPACK: &str = "linpack";
    /// Load-to-use latency by working set, caches marked.
    pub const LATENCY_STAIRCASE: &str = "latency-staircase";
    /// IOzone's auto-mode matrix of one test.
    pub const IOZONE_HEATMAP: &str = "iozone-heatmap";
    /// Latency by percentile on a nines axis.
    pub const PERCENTILES: &str = "percentiles";
    /// A value per second or per interval.
    pub const TIME_SERIES: &str = "time-series";
    /// Throughput by users with the saturation point.
    pub const SWEEP: &str = "sweep";
    /// Latency against bandwidth under injected traffic, the knee marked.
    pub const LOADED_LATENCY: &str = "loaded-latency";
}

/// A chart of the report: lines or a heat map.
#[derive(Debug, Clone, PartialEq)]
pub enum Figure {
    /// A line chart.
    Line(Chart),
    /// A heat map.
    Heat(HeatMap),
    /// Bars: figures at a single thread count, or without one (imports).
    Bar(BarChart),
}

impl Figure {
    /// The `<figure>` HTML.
    pub fn html(&self) -> String {
        match self {
            Figure::Line(c) => c.figure(),
            Figure::Heat(h) => h.figure(),
            Figure::Bar(b) => b.figure(),
        }
    }
}

/// Every chart of `runs`: each benchmark's charts as its descriptor lists
/// them ([`Drawn`]), the kinds in their [`Drawn::rank`] order and a kind's
/// charts in the registry's, then each result's power by source beside
/// its benchmark's charts.
pub fn figures(runs: &[Labelled]) -> Vec<Figure> {
    let mut wanted: Vec<(&Descriptor, &Drawn)> = registry::ALL
        .iter()
        .flat_map(|d| d.charts.iter().map(move |c| (d, c)))
        .collect();
    wanted.sort_by_key(|(_, c)| c.rank());
    let mut out: Vec<Figure> = Vec::new();
    for (d, c) in wanted {
        out.extend(draw(runs, d, c));
    }
    power::insert(runs, &mut out);
    out
}

/// The figures of benchmark `d`'s chart `c` in `runs`: one arm per kind.
fn draw(runs: &[Labelled], d: &Descriptor, c: &Drawn) -> Vec<Figure> {
    let lines = |charts: Vec<Chart>| charts.into_iter().map(Figure::Line).collect();
    match *c {
        Drawn::Scaling {
            metric,
            chart_by,
            series_by,
        } => scaling(runs, d.id, metric, chart_by, series_by),
        Drawn::ByOrder => lines(linpack_by_order(runs, d.id)),
        Drawn::LatencyStaircase => lines(latency_staircase(runs, d.id)),
        Drawn::LoadedLatency => lines(loaded::loaded_latency(runs, d.id)),
        Drawn::HeatMap => iozone_heat_maps(runs, d.id)
            .into_iter()
            .map(Figure::Heat)
            .collect(),
        Drawn::Percentiles { histogram } => lines(percentiles(runs, d, histogram)),
        Drawn::TimeSeries { series } => lines(time_series(runs, d, series)),
        Drawn::Sweep => lines(sweep(runs, d.id)),
        Drawn::GpuBars { by } => gpu::bars(runs, d.id, by),
        Drawn::GpuByOrder => lines(gpu::gemm_by_order(runs, d.id)),
    }
}

/// `what`, prefixed by the run's label when several runs share the chart.
pub(super) fn series_name(runs: &[Labelled], run: &Labelled, what: &str) -> String {
    match (runs.len() > 1, what.is_empty()) {
        (false, _) => what.to_string(),
        (true, true) => run.label.clone(),
        (true, false) => format!("{}: {what}", run.label),
    }
}

/// The divisor and axis title of `unit` for values up to `max`:
/// `rate (GFLOPS)`.
pub(super) fn y_axis(name: &str, unit: Unit, max: f64) -> (f64, Axis) {
    let (prefix, divisor) = format::prefix_for(unit, max);
    let shown = format::display_unit(unit, prefix);
    let title = if shown.is_empty() {
        name.to_string()
    } else {
        format!("{name} ({shown})")
    };
    (divisor, Axis::linear(title))
}

/// The label values of `m` under `keys`, space-separated.
fn label_values(m: &Metric, keys: &[&str]) -> String {
    keys.iter()
        .filter_map(|k| m.label_value(k))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A numeric label or parameter value.
fn number(s: Option<&str>) -> Option<f64> {
    s.and_then(|s| s.parse().ok())
}

/// The dashed line of `reference` across `xs`.
fn limit(name: String, reference: &Reference, divisor: f64, xs: &[f64]) -> Series {
    let (lo, hi) = xs
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &x| {
            (a.min(x), b.max(x))
        });
    Series {
        name,
        points: vec![
            (lo, reference.value / divisor),
            (hi, reference.value / divisor),
        ],
        style: Style::Limit,
    }
}

/// The peak every one of `metrics` that has a reference shares; None where
/// none has one or they differ (runs with their own peaks).
fn one_peak<'a>(metrics: impl Iterator<Item = &'a Metric>) -> Option<f64> {
    let peaks: BTreeSet<u64> = metrics
        .filter_map(|m| m.reference.as_ref().map(|r| r.value.to_bits()))
        .collect();
    match peaks.iter().collect::<Vec<_>>()[..] {
        [one] => Some(f64::from_bits(*one)),
        _ => None,
    }
}

/// The results of benchmark `id` in `run`.
pub(super) fn results<'a>(
    run: &'a Labelled,
    id: &'a str,
) -> impl Iterator<Item = &'a BenchResult> + 'a {
    run.run.results.iter().filter(move |r| r.benchmark == id)
}

/// Thread scaling of metric `name` of benchmark `id`: one chart per value
/// of the `chart_by` labels, one series per value of the `series_by`
/// labels (and run), x the `threads` label, the metrics' reference (the
/// theoretical peak) as a dashed line. Where every figure of a chart is
/// at one thread count, or states none (an imported result), the chart is
/// bars instead: a group per series, a bar per run.
fn scaling(
    runs: &[Labelled],
    id: &str,
    name: &str,
    chart_by: &[&str],
    series_by: &[&str],
) -> Vec<Figure> {
    let metrics: Vec<(usize, &Metric)> = runs
        .iter()
        .enumerate()
        .flat_map(|(i, run)| {
            results(run, id)
                .flat_map(|r| r.metrics_named(name))
                .map(move |m| (i, m))
        })
        .collect();
    let groups: BTreeSet<String> = metrics
        .iter()
        .map(|(_, m)| label_values(m, chart_by))
        .collect();
    let mut charts = Vec::new();
    for group in groups {
        let cell: Vec<&(usize, &Metric)> = metrics
            .iter()
            .filter(|(_, m)| label_values(m, chart_by) == group)
            .collect();
        let Some((_, first)) = cell.first() else {
            continue;
        };
        let max = cell.iter().map(|(_, m)| m.value).fold(0.0, f64::max);
        let (divisor, y) = y_axis(name, first.unit, max);
        let title = if group.is_empty() {
            format!("{id}: {name} by threads")
        } else {
            format!("{id} {group}: {name} by threads")
        };
        let threads: BTreeSet<Option<u64>> = cell
            .iter()
            .map(|(_, m)| number(m.label_value(THREADS)).map(f64::to_bits))
            .collect();
        if threads.len() == 1 {
            let at = threads.first().copied().flatten().map(f64::from_bits);
            charts.push(Figure::Bar(bars(
                runs, id, name, &group, &cell, series_by, at, divisor, y,
            )));
            continue;
        }
        let mut chart = Chart::new(kind::SCALING, title, Axis::count("threads"), y);
        for (i, run) in runs.iter().enumerate() {
            let mine: Vec<&Metric> = cell.iter().filter(|c| c.0 == i).map(|c| c.1).collect();
            let names: BTreeSet<String> = mine.iter().map(|m| label_values(m, series_by)).collect();
            for what in names {
                let mut points: Vec<(f64, f64)> = mine
                    .iter()
                    .filter(|m| label_values(m, series_by) == what)
                    .filter_map(|m| Some((number(m.label_value(THREADS))?, m.value / divisor)))
                    .collect();
                points.sort_by(|a, b| a.0.total_cmp(&b.0));
                chart.series.push(Series {
                    name: series_name(runs, run, &what),
                    points,
                    style: Style::Measured,
                });
            }
            if let Some(r) = mine.iter().find_map(|m| m.reference.as_ref()) {
                let xs: Vec<f64> = mine
                    .iter()
                    .filter_map(|m| number(m.label_value(THREADS)))
                    .collect();
                let name = series_name(runs, run, "theoretical peak");
                chart.series.push(limit(name, r, divisor, &xs));
            }
        }
        charts.push(Figure::Line(chart));
    }
    charts
}

/// A bar chart's series: a legend entry and a value per group.
pub(super) type BarSeries = Vec<(String, Vec<Option<f64>>)>;

/// The groups of `cell` (the values of its `by` labels, in order) and a bar
/// series per run: each group's value over `divisor`, none where the run
/// has no figure for it.
pub(super) fn bar_series(
    runs: &[Labelled],
    cell: &[&(usize, &Metric)],
    by: &[&str],
    divisor: f64,
) -> (Vec<String>, BarSeries) {
    let groups: Vec<String> = cell
        .iter()
        .map(|(_, m)| label_values(m, by))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let series = runs
        .iter()
        .enumerate()
        .map(|(i, run)| {
            let values = groups
                .iter()
                .map(|w| {
                    cell.iter()
                        .find(|(r, m)| *r == i && label_values(m, by) == *w)
                        .map(|(_, m)| m.value / divisor)
                })
                .collect();
            (run.label.clone(), values)
        })
        .collect();
    (groups, series)
}

/// The bars of a scaling chart whose figures share one thread count `at`
/// (None: not stated): a group per `series_by` value, a bar per run, the
/// theoretical peak as the reference line where every run has the same.
#[allow(clippy::too_many_arguments)]
fn bars(
    runs: &[Labelled],
    id: &str,
    name: &str,
    group: &str,
    cell: &[&(usize, &Metric)],
    series_by: &[&str],
    at: Option<f64>,
    divisor: f64,
    y: Axis,
) -> BarChart {
    let (what, series) = bar_series(runs, cell, series_by, divisor);
    let threads = at.map_or_else(
        || "thread count not stated".to_string(),
        |t| format!("{t} threads"),
    );
    let title = if group.is_empty() {
        format!("{id}: {name} at {threads}")
    } else {
        format!("{id} {group}: {name} at {threads}")
    };
    let reference = one_peak(cell.iter().map(|(_, m)| *m))
        .map(|p| (p / divisor, "theoretical peak".to_string()));
    BarChart {
        kind: kind::SCALING,
        title,
        groups: (
            if series_by.is_empty() {
                name.to_string()
            } else {
                series_by.join(" ")
            },
            what,
        ),
        y: y.title,
        series,
        reference,
        neutral: None,
    }
}

/// LINPACK's maximal and average rate by order, the peak as a dashed line
/// and, where every run has the same peak, % of peak on the right axis.
fn linpack_by_order(runs: &[Labelled], id: &str) -> Vec<Chart> {
    let per_run: Vec<Vec<(f64, &BenchResult)>> = runs
        .iter()
        .map(|run| {
            let mut v: Vec<(f64, &BenchResult)> = results(run, id)
                .filter_map(|r| Some((r.param(linpack::param::N)?.as_f64()?, r)))
                .collect();
            v.sort_by(|a, b| a.0.total_cmp(&b.0));
            v
        })
        .collect();
    let rates = [
        (linpack::RATE_MAXIMAL, "maximal"),
        (linpack::RATE_AVERAGE, "average"),
    ];
    let all: Vec<&Metric> = per_run
        .iter()
        .flatten()
        .flat_map(|(_, r)| rates.iter().filter_map(|(n, _)| r.metric(n, &[])))
        .collect();
    if all.is_empty() {
        return Vec::new();
    }
    let max = all.iter().map(|m| m.value).fold(0.0, f64::max);
    let (divisor, y) = y_axis("rate", Unit::FlopsPerSecond, max);
    let mut chart = Chart::new(
        kind::LINPACK,
        format!("{id}: rate by order"),
        Axis::count("order N"),
        y,
    );
    if let Some(peak) = one_peak(all.iter().copied()) {
        chart.y2 = Some(("% of theoretical peak".into(), 100.0 * divisor / peak));
    }
    for (run, orders) in runs.iter().zip(&per_run) {
        for (name, what) in rates {
            let points: Vec<(f64, f64)> = orders
                .iter()
                .filter_map(|(n, r)| Some((*n, r.metric(name, &[])?.value / divisor)))
                .collect();
            if !points.is_empty() {
                chart.series.push(Series {
                    name: series_name(runs, run, what),
                    points,
                    style: Style::Measured,
                });
            }
        }
        let reference = orders
            .iter()
            .find_map(|(_, r)| r.metric(linpack::RATE_MAXIMAL, &[])?.reference.as_ref());
        if let Some(r) = reference {
            let xs: Vec<f64> = orders.iter().map(|(n, _)| *n).collect();
            let name = series_name(runs, run, "theoretical peak");
            chart.series.push(limit(name, r, divisor, &xs));
        }
    }
    vec![chart]
}

/// `memory.latency`: latency by working set on a log axis, one series per
/// run, each run's data and unified cache sizes marked.
fn latency_staircase(runs: &[Labelled], id: &str) -> Vec<Chart> {
    let per_run: Vec<Vec<&Metric>> = runs
        .iter()
        .map(|run| {
            results(run, id)
                .flat_map(|r| r.metrics_named(memory::metric::LATENCY))
                .collect()
        })
        .collect();
    let max = per_run
        .iter()
        .flatten()
        .map(|m| m.value)
        .fold(0.0, f64::max);
    if max <= 0.0 {
        return Vec::new();
    }
    let (divisor, y) = y_axis("latency", Unit::Seconds, max);
    let mut chart = Chart::new(
        kind::LATENCY_STAIRCASE,
        format!("{id}: load-to-use latency by working set"),
        Axis::new("working set (bytes, log scale)", Scale::Bytes),
        y,
    );
    let mut caches: BTreeSet<(u64, String)> = BTreeSet::new();
    for (run, metrics) in runs.iter().zip(&per_run) {
        let mut points: Vec<(f64, f64)> = metrics
            .iter()
            .filter_map(|m| {
                Some((
                    number(m.label_value(memory::label::WORKING_SET))?,
                    m.value / divisor,
                ))
            })
            .collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        if points.is_empty() {
            continue;
        }
        chart.series.push(Series {
            name: series_name(runs, run, "latency"),
            points,
            style: Style::Measured,
        });
        let inventory = run.run.inventory.as_ref();
        for c in inventory.iter().flat_map(|i| &i.cpu.caches) {
            let suffix = match c.kind.as_str() {
                "Data" => "d",
                "Unified" => "",
                _ => continue,
            };
            let name = format!("L{}{suffix} {}", c.level, format_bytes(c.size_bytes));
            caches.insert((c.size_bytes, name));
        }
    }
    chart.markers = caches
        .into_iter()
        .map(|(size, label)| Marker {
            x: size as f64,
            label,
        })
        .collect();
    if chart.series.is_empty() {
        return Vec::new();
    }
    vec![chart]
}

/// IOzone auto-mode results: per run and test, the bandwidth matrix of
/// file size (rows) by record size (columns).
fn iozone_heat_maps(runs: &[Labelled], id: &str) -> Vec<HeatMap> {
    let mut maps = Vec::new();
    for run in runs {
        let metrics: Vec<&Metric> = results(run, id)
            .filter(|r| r.param(disk::param::AUTO) == Some(&serde_json::Value::Bool(true)))
            .flat_map(|r| r.metrics_named(disk::metric::BANDWIDTH))
            .collect();
        let size = |m: &Metric, key: &str| m.label_value(key).and_then(|v| v.parse::<u64>().ok());
        let mut tests: Vec<&str> = Vec::new();
        for m in &metrics {
            if let Some(t) = m.label_value(disk::label::TEST)
                && !tests.contains(&t)
            {
                tests.push(t);
            }
        }
        for test in tests {
            let cells: Vec<(u64, u64, f64)> = metrics
                .iter()
                .filter(|m| m.label_value(disk::label::TEST) == Some(test))
                .filter_map(|m| {
                    Some((
                        size(m, disk::label::RECORD)?,
                        size(m, disk::label::FILE_SIZE)?,
                        m.value,
                    ))
                })
                .collect();
            let records: Vec<u64> = cells
                .iter()
                .map(|c| c.0)
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            let files: Vec<u64> = cells
                .iter()
                .map(|c| c.1)
                .collect::<BTreeSet<_>>()
                .into_iter()
                .collect();
            let (prefix, divisor) = format::prefix_for(Unit::BytesPerSecond, 0.0);
            let index = |v: &[u64], x: u64| v.iter().position(|&y| y == x).unwrap_or(0);
            let title = if runs.len() > 1 {
                format!(
                    "{} {test} ({}): bandwidth by file and record size",
                    disk::IOZONE,
                    run.label
                )
            } else {
                format!("{id} {test}: bandwidth by file and record size")
            };
            maps.push(HeatMap {
                kind: kind::IOZONE_HEATMAP,
                title,
                x: (
                    "record size".into(),
                    records.iter().map(|&r| format_bytes(r)).collect(),
                ),
                y: (
                    "file size".into(),
                    files.iter().map(|&f| format_bytes(f)).collect(),
                ),
                cells: cells
                    .iter()
                    .map(|&(r, f, v)| (index(&records, r), index(&files, f), v / divisor))
                    .collect(),
                unit: format::display_unit(Unit::BytesPerSecond, prefix),
            });
        }
    }
    maps
}

/// The k-th result of benchmark `id` of each run, for k = 0, 1...: the
/// results one overlaid chart compares.
fn matched<'a>(runs: &'a [Labelled], id: &str) -> Vec<Vec<(&'a Labelled<'a>, &'a BenchResult)>> {
    let mut out: Vec<Vec<(&Labelled, &BenchResult)>> = Vec::new();
    for run in runs {
        for (k, r) in run
            .run
            .results
            .iter()
            .filter(|r| r.benchmark == id)
            .enumerate()
        {
            if out.len() <= k {
                out.push(Vec::new());
            }
            out[k].push((run, r));
        }
    }
    out
}

/// `id`, with the parameters of `r` that its descriptor names for a
/// chart's title ([`Descriptor::chart_title`]): `http.load model=open
/// rate=2000`.
fn titled(id: &str, r: &BenchResult) -> String {
    let keys = registry::get(id).map_or(&[][..], |d| d.chart_title);
    let mut title = id.to_string();
    for key in keys {
        match r.param(key) {
            Some(serde_json::Value::String(v)) => title.push_str(&format!(" {key}={v}")),
            Some(v @ (serde_json::Value::Number(_) | serde_json::Value::Bool(_))) => {
                title.push_str(&format!(" {key}={v}"))
            }
            _ => {}
        }
    }
    title
}

/// The legend names of the histograms or series of one chart by their
/// `labels`: the labels whose values differ between them (`key=value`
/// pairs; a word alone when one label differs), else `fallback`.
fn labels_names(labels: &[&BTreeMap<String, String>], fallback: &str) -> Vec<String> {
    let keys: BTreeSet<&String> = labels.iter().flat_map(|l| l.keys()).collect();
    let varying: Vec<&String> = keys
        .into_iter()
        .filter(|k| labels.iter().any(|l| l.get(*k) != labels[0].get(*k)))
        .collect();
    labels
        .iter()
        .map(|l| match &varying[..] {
            [] => fallback.to_string(),
            // A word names itself (`corrected`, `write`); a number says what it counts.
            [one] => match l.get(*one) {
                Some(v) if v.parse::<f64>().is_err() => v.clone(),
                Some(v) => format!("{one}={v}"),
                None => String::new(),
            },
            many => many
                .iter()
                .filter_map(|k| Some(format!("{k}={}", l.get(*k)?)))
                .collect::<Vec<_>>()
                .join(", "),
        })
        .collect()
}

/// The benchmarks whose latency histograms are charted, with the
/// histograms' name.
/// Percentile points of `h` on the nines axis: 0 to 99.999 % (as far as
/// its count reaches), in the divisor's unit.
fn percentile_points(h: &Histogram, divisor: f64) -> Vec<(f64, f64)> {
    let Some(hdr) = h.to_hdr() else {
        return Vec::new();
    };
    if hdr.is_empty() {
        return Vec::new();
    }
    let deepest = 1.0 - 1.0 / hdr.len() as f64;
    (0..=50)
        .map(|i| 1.0 - 10f64.powf(-f64::from(i) / 10.0))
        .take_while(|&q| q <= deepest.max(0.0) || q == 0.0)
        .map(|q| {
            let v = hdr.value_at_quantile(q) as f64 / h.scale;
            (100.0 * q, v / divisor)
        })
        .collect()
}

/// Latency by percentile from the stored HdrHistograms (http.load's
/// corrected and uncorrected together, ping-pong cells, IOzone tests of a
/// single run), one chart per result, overlaid across runs.
fn percentiles(runs: &[Labelled], d: &Descriptor, name: &str) -> Vec<Chart> {
    let mut charts = Vec::new();
    for group in matched(runs, d.id) {
        let hists: Vec<(&Labelled, &Histogram)> = group
            .iter()
            .filter(|(_, r)| r.param(disk::param::AUTO) != Some(&serde_json::Value::Bool(true)))
            .flat_map(|&(run, r)| {
                r.histograms
                    .iter()
                    .filter(|h| h.name == name && h.count > 0)
                    .map(move |h| (run, h))
            })
            .collect();
        let Some((_, first)) = hists.first() else {
            // Imported load results keep their tool's percentiles as
            // figures, not histograms.
            charts.extend(reported_percentiles(runs, d, &group));
            continue;
        };
        let max = hists
            .iter()
            .filter_map(|(_, h)| Some(h.to_hdr()?.max() as f64 / h.scale))
            .fold(0.0, f64::max);
        let (divisor, y) = y_axis("latency", first.unit, max);
        let mut chart = Chart::new(
            kind::PERCENTILES,
            format!("{}: latency by percentile", titled(d.id, group[0].1)),
            Axis::new("percentile (log scale of nines)", Scale::Nines),
            y,
        );
        let labels: Vec<_> = hists.iter().map(|(_, h)| &h.labels).collect();
        for ((run, h), what) in hists.iter().zip(labels_names(&labels, name)) {
            chart.series.push(Series {
                name: series_name(runs, run, &what),
                points: percentile_points(h, divisor),
                style: Style::Measured,
            });
        }
        charts.push(chart);
    }
    charts
}

/// Latency by percentile from the figures an imported tool printed (ab's
/// "served within" table, wrk's and wrk2's latency percentiles) where a
/// result has no histogram: one chart per result, overlaid across runs.
/// ab's 100 % (its longest request) has no place on a nines axis.
fn reported_percentiles(
    runs: &[Labelled],
    d: &Descriptor,
    group: &[(&Labelled, &BenchResult)],
) -> Option<Chart> {
    let points_of = |r: &BenchResult| -> Vec<(f64, f64)> {
        let served = r
            .metrics_named(http::load::SERVED_WITHIN)
            .filter_map(|m| Some((number(m.label_value(http::load::label::PERCENT))?, m.value)));
        // wrk2's corrected latency where it has one, else wrk's own.
        let uncorrected =
            |m: &Metric| m.label_value(http::load::label::LATENCY) == Some(http::load::UNCORRECTED);
        let latencies: Vec<&Metric> = r.metrics_named(http::load::LATENCY).collect();
        let corrected = latencies.iter().any(|m| !uncorrected(m));
        let latency = latencies
            .into_iter()
            .filter(move |m| !corrected || !uncorrected(m))
            .filter_map(|m| Some((number(m.label_value(PERCENTILE))?, m.value)));
        let mut points: Vec<(f64, f64)> = served.chain(latency).filter(|p| p.0 < 100.0).collect();
        points.sort_by(|a, b| a.0.total_cmp(&b.0));
        points.dedup_by(|a, b| a.0 == b.0);
        points
    };
    let per_run: Vec<(&Labelled, Vec<(f64, f64)>)> = group
        .iter()
        .map(|&(run, r)| (run, points_of(r)))
        .filter(|(_, p)| p.len() >= 2)
        .collect();
    let max = per_run
        .iter()
        .flat_map(|(_, p)| p.iter().map(|q| q.1))
        .fold(0.0, f64::max);
    let (divisor, y) = y_axis("latency", Unit::Seconds, max);
    let mut chart = Chart::new(
        kind::PERCENTILES,
        format!(
            "{}: latency by percentile (as the tool reported)",
            titled(d.id, group.first()?.1)
        ),
        Axis::new("percentile (log scale of nines)", Scale::Nines),
        y,
    );
    for (run, points) in per_run {
        chart.series.push(Series {
            name: series_name(runs, run, "latency"),
            points: points.into_iter().map(|(p, v)| (p, v / divisor)).collect(),
            style: Style::Measured,
        });
    }
    (!chart.series.is_empty()).then_some(chart)
}

/// Per-second and per-interval series: one chart per result, overlaid
/// across runs.
fn time_series(runs: &[Labelled], d: &Descriptor, name: &str) -> Vec<Chart> {
    let mut charts = Vec::new();
    for group in matched(runs, d.id) {
        let series: Vec<_> = group
            .iter()
            .flat_map(|&(run, r)| {
                r.series
                    .iter()
                    .filter(|s| s.name == name && !s.points.is_empty())
                    .map(move |s| (run, s))
            })
            .collect();
        let Some((_, first)) = series.first() else {
            continue;
        };
        let max = series
            .iter()
            .flat_map(|(_, s)| s.points.iter().map(|p| p.1))
            .fold(0.0, f64::max);
        let (divisor, y) = y_axis(name, first.unit, max);
        let mut chart = Chart::new(
            kind::TIME_SERIES,
            format!("{}: {name} over time", titled(d.id, group[0].1)),
            Axis::linear("time (s)"),
            y,
        );
        let labels: Vec<_> = series.iter().map(|(_, s)| &s.labels).collect();
        for ((run, s), what) in series.iter().zip(labels_names(&labels, name)) {
            chart.series.push(Series {
                name: series_name(runs, run, &what),
                points: s.points.iter().map(|&(t, v)| (t, v / divisor)).collect(),
                style: Style::Measured,
            });
        }
        charts.push(chart);
    }
    charts
}

/// `http.sweep`: the request rate by users, one series per run, each
/// run's saturation point marked.
fn sweep(runs: &[Labelled], id: &str) -> Vec<Chart> {
    let mut charts = Vec::new();
    for group in matched(runs, id) {
        let mut chart = Chart::new(
            kind::SWEEP,
            format!("{id}: throughput by users"),
            Axis::count("users"),
            Axis::linear("rate (requests/s)"),
        );
        for (run, r) in group {
            let mut points: Vec<(f64, f64)> = r
                .metrics_named(http::sweep::RATE)
                .filter_map(|m| Some((number(m.label_value(http::sweep::USERS))?, m.value)))
                .collect();
            points.sort_by(|a, b| a.0.total_cmp(&b.0));
            if points.is_empty() {
                continue;
            }
            chart.series.push(Series {
                name: series_name(runs, run, "rate"),
                points,
                style: Style::Measured,
            });
            if let Some(users) = r
                .param(http::sweep::SATURATION_USERS)
                .and_then(serde_json::Value::as_f64)
            {
                chart.markers.push(Marker {
                    x: users,
                    label: series_name(runs, run, &format!("saturation at {users} users")),
                });
            }
        }
        if !chart.series.is_empty() {
            charts.push(chart);
        }
    }
    charts
}
