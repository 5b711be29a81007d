//! `nodebench compare`: runs (or groups of runs) set side by side against a
//! baseline, as the "% of Baseline" tables of the classic reports.
//!
//! [`compare`] matches metrics by benchmark id, metric name, labels and the
//! parameters that define the workload
//! ([`names::workload_params`](nodebench_core::registry::workload_params)),
//! gives each side's value, ratio and percentage of the baseline, a 95 %
//! confidence interval of the ratio and a verdict where both sides have at
//! least 3 samples ([`METHOD`]), geometric means per area, the metrics found
//! on some sides only, and the inventory differences that change results.
//! The [`Comparison`] is versioned ([`COMPARISON_SCHEMA_VERSION`]) and its
//! schema is checked in at `schema/compare.schema.json`.

pub(crate) mod render;
mod stats;
mod warnings;

pub use render::{
    CSV_COLUMNS, CompareFormat, GEOMEAN, GEOMEAN_NOTE, PERCENT_OF_BASELINE, render, to_csv,
    to_markdown, to_table,
};

use std::collections::{BTreeMap, BTreeSet};

use nodebench_core::stats::Stats;
use nodebench_core::{Better, Metric, ResultStatus, Run, Unit};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use self::stats::{Sample, ratio_interval};

/// Version of the JSON comparison model. Bump it when a field changes
/// meaning or is removed; adding an optional field keeps the version.
pub const COMPARISON_SCHEMA_VERSION: u32 = 2;

/// Confidence level of the intervals of the ratio.
pub const CONFIDENCE: f64 = 0.95;

/// Fewest samples on both sides for an interval and a verdict.
pub const MIN_SAMPLES: usize = 3;

/// How intervals and verdicts are computed, as stated in the model and the
/// printed output.
pub const METHOD: &str = "medians compared (the figure runs show prints); \
95 % log-ratio interval of the ratio of medians (ln of the ratio +- t x its standard error: \
each side's CV x sqrt(pi/2) / sqrt(n), Welch-Satterthwaite degrees of freedom, t quantile from statrs), \
never below 0; a verdict where the interval excludes 1 and both sides have n >= 3; \
figures that are not performance (spreads, residuals, error counts, sizes) get no ratio, colour or verdict";

/// The `area` of the overall geometric mean.
pub const OVERALL: &str = "overall";

/// The units whose metrics enter the geometric means: rates and times.
/// Counts, sizes and percentages are compared but not summarised.
pub const SUMMARISED_UNITS: [Unit; 6] = [
    Unit::BytesPerSecond,
    Unit::OpsPerSecond,
    Unit::FlopsPerSecond,
    Unit::Hertz,
    Unit::Seconds,
    Unit::Cycles,
];

/// One side of a comparison: what the user named and the runs it stands for
/// (one run for an id or `latest`, every run with the tag for `tag:K=V`;
/// their results are pooled as repeats).
#[derive(Debug, Clone)]
pub struct Side {
    /// How the side is named in the output: `run 12`, `tag:config=a`.
    pub label: String,
    /// The runs of the side.
    pub runs: Vec<Run>,
}

/// The comparison of several sides against the first (the baseline).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Comparison {
    /// Version of this model ([`COMPARISON_SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// How intervals and verdicts are computed ([`METHOD`]).
    pub method: String,
    /// Confidence level of the intervals (0.95).
    pub confidence: f64,
    /// The sides, baseline first.
    pub sides: Vec<SideInfo>,
    /// Metrics present on every side, in the order first seen.
    pub rows: Vec<MetricRow>,
    /// Metrics present on some sides only (or whose workload differs).
    pub unmatched: Vec<Unmatched>,
    /// Geometric means of the better-oriented ratios per area, then overall.
    pub summary: Vec<AreaSummary>,
    /// Inventory differences that change results.
    pub warnings: Vec<InventoryWarning>,
}

/// What a side is made of.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SideInfo {
    /// The side's label ([`Side::label`]).
    pub label: String,
    /// Store ids of its runs (runs not saved have none).
    pub run_ids: Vec<i64>,
    /// Results left out because they did not pass (failed or cancelled).
    pub skipped_results: usize,
}

/// Where a side's summary comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SampleSource {
    /// One value from one run.
    Single,
    /// The values of several runs (or results) pooled as repeats.
    Runs,
    /// The repeat statistics (mean, stddev, n) of the one run's metric.
    RepeatStats,
}

/// The verdict on a side against the baseline.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum Verdict {
    /// This is the baseline.
    #[serde(rename = "baseline")]
    Baseline,
    /// Better than the baseline (higher for higher-is-better, lower for
    /// lower-is-better), the interval excluding 1.
    #[serde(rename = "faster")]
    Faster,
    /// Worse than the baseline, the interval excluding 1.
    #[serde(rename = "slower")]
    Slower,
    /// The interval includes 1, or both sides hold the very same samples
    /// (a run set against itself), whatever their number.
    #[serde(rename = "no significant difference")]
    NoSignificantDifference,
    /// A side has one sample: no interval.
    #[serde(rename = "one sample")]
    OneSample,
    /// A side has two samples: no interval.
    #[serde(rename = "too few samples")]
    TooFewSamples,
    /// The baseline's value is 0: no ratio.
    #[serde(rename = "no ratio")]
    NoRatio,
    /// Not a performance figure (a spread, a residual, an error count, a
    /// size): shown, not judged.
    #[serde(rename = "not a performance figure")]
    NotPerformance,
}

impl Verdict {
    /// The words printed and stored for the verdict.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Baseline => "baseline",
            Verdict::Faster => "faster",
            Verdict::Slower => "slower",
            Verdict::NoSignificantDifference => "no significant difference",
            Verdict::OneSample => "one sample",
            Verdict::TooFewSamples => "too few samples",
            Verdict::NoRatio => "no ratio",
            Verdict::NotPerformance => "not a performance figure",
        }
    }
}

/// A confidence interval of a ratio.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Interval {
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
    /// Welch-Satterthwaite degrees of freedom (absent when both sides have
    /// no spread and the interval is the ratio itself).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub degrees_of_freedom: Option<f64>,
}

/// One metric matched on every side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MetricRow {
    /// Benchmark id (`cpu.ops`).
    pub benchmark: String,
    /// Metric name (`rate`).
    pub metric: String,
    /// Labels of the metric.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// The workload-defining parameters the sides share (the baseline's
    /// where they differ), as JSON text.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub workload: BTreeMap<String, String>,
    /// Where the sides ran different workloads (matched without
    /// `--strict`): each differing parameter, `KEY: A (side) vs B (side)`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub workload_differs: Vec<String>,
    /// Canonical unit of the values.
    pub unit: Unit,
    /// Which direction is better.
    pub better: Better,
    /// One cell per side, baseline first.
    pub cells: Vec<Cell>,
}

impl MetricRow {
    /// The area of the benchmark: its id up to the first `.`.
    pub fn area(&self) -> &str {
        area(&self.benchmark)
    }
}

/// One side's figures for a metric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Cell {
    /// The median of the side's samples (the metric's value for one
    /// sample; for one run's repeats, the median its value reports).
    pub value: f64,
    /// Number of samples.
    pub n: usize,
    /// Sample standard deviation (0 for one sample).
    pub stddev: f64,
    /// Where the samples come from.
    pub source: SampleSource,
    /// `value` over the baseline's value (absent when the baseline is 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio: Option<f64>,
    /// `ratio` in percent ("% of baseline").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percent_of_baseline: Option<f64>,
    /// Confidence interval of `ratio` (both sides n >= 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval: Option<Interval>,
    /// The verdict against the baseline.
    pub verdict: Verdict,
    /// Whether a sample of this side was measured while disturbed (another
    /// process's CPU time, steal, throttling or swap-ins over the
    /// threshold: the result's `disturbed` warning).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub disturbed: bool,
}

/// A metric found on some sides only.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Unmatched {
    /// Benchmark id.
    pub benchmark: String,
    /// Metric name.
    pub metric: String,
    /// Labels of the metric.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// Its workload-defining parameters, as JSON text.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub workload: BTreeMap<String, String>,
    /// Labels of the sides that have it.
    pub present_in: Vec<String>,
    /// Why it was not matched where another side has the same metric in
    /// another workload: `threads=2 in run 2` each.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub elsewhere: Vec<String>,
}

/// The geometric mean of one area for each side.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AreaSummary {
    /// Area (`cpu`, `memory`, `disk`, `net`, `http`) or [`OVERALL`].
    pub area: String,
    /// One entry per side, baseline first.
    pub sides: Vec<Geomean>,
}

/// A geometric mean of better-oriented ratios (value/base for
/// higher-is-better, base/value for lower-is-better): over 100 % is better.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Geomean {
    /// The geometric mean in percent of the baseline (absent without metrics).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percent: Option<f64>,
    /// Metrics it covers.
    pub metrics: usize,
}

/// An inventory field whose value differs between (or within) the sides.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct InventoryWarning {
    /// What differs (`CPU model`, `kernel`, `MTU`...).
    pub field: String,
    /// Each side's distinct values.
    pub sides: Vec<SideValues>,
}

impl InventoryWarning {
    /// One line: `kernel differs: run 1 = 6.1.0; run 2 = 6.12.0`.
    pub fn message(&self) -> String {
        let parts: Vec<String> = self
            .sides
            .iter()
            .map(|s| format!("{} = {}", s.side, s.values.join(", ")))
            .collect();
        format!("{} differs: {}", self.field, parts.join("; "))
    }
}

/// One side's distinct values of an inventory field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SideValues {
    /// The side's label.
    pub side: String,
    /// Its distinct values, in the order seen.
    pub values: Vec<String>,
}

/// The area of benchmark `id`: the id up to the first `.`.
pub fn area(id: &str) -> &str {
    id.split('.').next().unwrap_or(id)
}

/// What identifies a metric across runs.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Key {
    benchmark: String,
    metric: String,
    labels: BTreeMap<String, String>,
    workload: BTreeMap<String, String>,
}

/// A side's occurrences of one metric.
#[derive(Debug, Clone)]
struct Found {
    unit: Unit,
    better: Better,
    values: Vec<f64>,
    first: Metric,
    /// Whether any of the values was measured while disturbed.
    disturbed: bool,
}

/// How metrics are matched across sides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Matching {
    /// A metric whose workload parameters (array size, file size,
    /// duration...) differ is still matched when each side has it with one
    /// workload only; the difference is on the row and in a warning.
    Workloads,
    /// Only metrics with identical workload parameters are matched
    /// (`--strict`).
    Strict,
}

/// Compares `sides` against the first, matching across workloads
/// ([`Matching::Workloads`]). Fewer than two sides give a comparison of
/// the baseline alone.
pub fn compare(sides: &[Side]) -> Comparison {
    compare_with(sides, Matching::Workloads)
}

/// Compares `sides` against the first, matching as `matching` says.
pub fn compare_with(sides: &[Side], matching: Matching) -> Comparison {
    let mut order: Vec<Key> = Vec::new();
    let mut seen: BTreeSet<Key> = BTreeSet::new();
    let mut found: Vec<BTreeMap<Key, Found>> = Vec::new();
    let mut infos = Vec::new();
    for side in sides {
        let mut map: BTreeMap<Key, Found> = BTreeMap::new();
        let mut skipped = 0;
        for run in &side.runs {
            for result in &run.results {
                if result.status != ResultStatus::Passed {
                    skipped += 1;
                    continue;
                }
                let workload: BTreeMap<String, String> =
                    nodebench_core::registry::workload_params(&result.benchmark)
                        .iter()
                        .filter_map(|p| result.param(p).map(|v| (p.to_string(), v.to_string())))
                        .collect();
                for m in &result.metrics {
                    let key = Key {
                        benchmark: result.benchmark.clone(),
                        metric: m.name.clone(),
                        labels: m.labels.clone(),
                        workload: workload.clone(),
                    };
                    if seen.insert(key.clone()) {
                        order.push(key.clone());
                    }
                    let f = map.entry(key).or_insert_with(|| Found {
                        unit: m.unit,
                        better: nodebench_core::orientation::of(m),
                        values: Vec::new(),
                        first: m.clone(),
                        disturbed: false,
                    });
                    f.values.push(m.value);
                    f.disturbed |= result.metric_disturbed(m);
                }
            }
        }
        found.push(map);
        infos.push(SideInfo {
            label: side.label.clone(),
            run_ids: side.runs.iter().filter_map(|r| r.id).collect(),
            skipped_results: skipped,
        });
    }

    let mut rows = Vec::new();
    let mut unmatched = Vec::new();
    let (mut across, taken) = if matching == Matching::Workloads {
        across_workloads(&order, &found)
    } else {
        (BTreeMap::new(), BTreeSet::new())
    };
    let mut workload_warnings = Vec::new();
    for key in order {
        if let Some(keys) = across.remove(&key) {
            let present: Vec<&Found> = found.iter().zip(&keys).map(|(m, k)| &m[k]).collect();
            let samples: Vec<Sample> = present
                .iter()
                .zip(sides)
                .map(|(f, s)| sample(f, s.runs.len()))
                .collect();
            let differs = workload_differences(&keys, sides);
            let mut r = row(keys[0].clone(), &present, &samples);
            if let Some(w) = workload_warning(&r.benchmark, &keys, sides)
                && !workload_warnings.contains(&w)
            {
                workload_warnings.push(w);
            }
            r.workload_differs = differs;
            rows.push(r);
            continue;
        }
        if taken.contains(&key) {
            // In a row matched across workloads already.
            continue;
        }
        let present: Vec<Option<&Found>> = found.iter().map(|m| m.get(&key)).collect();
        if present.iter().all(Option::is_some) {
            let present: Vec<&Found> = present.into_iter().flatten().collect();
            let samples: Vec<Sample> = present
                .iter()
                .zip(sides)
                .map(|(f, s)| sample(f, s.runs.len()))
                .collect();
            rows.push(row(key, &present, &samples));
        } else {
            let elsewhere = other_workloads(&key, &found, sides);
            unmatched.push(Unmatched {
                present_in: present
                    .iter()
                    .zip(sides)
                    .filter(|(f, _)| f.is_some())
                    .map(|(_, s)| s.label.clone())
                    .collect(),
                elsewhere,
                benchmark: key.benchmark,
                metric: key.metric,
                labels: key.labels,
                workload: key.workload,
            });
        }
    }

    Comparison {
        schema_version: COMPARISON_SCHEMA_VERSION,
        method: METHOD.to_string(),
        confidence: CONFIDENCE,
        summary: summary(&rows, sides.len()),
        warnings: {
            let mut w = warnings::inventory_warnings(sides);
            w.extend(workload_warnings);
            w
        },
        sides: infos,
        rows,
        unmatched,
    }
}

/// Whether `a` and `b` differ at most in their benchmark's scale
/// parameters ([`scale_params`](nodebench_core::registry::scale_params)) or in
/// a parameter one of them does not state (an imported result may not).
fn same_but_scale(a: &Key, b: &Key) -> bool {
    let scale = nodebench_core::registry::scale_params(&a.benchmark);
    a.workload
        .iter()
        .all(|(k, v)| scale.contains(&k.as_str()) || b.workload.get(k).is_none_or(|w| w == v))
}

/// The rates found on some sides only that differ in their workload's
/// scale alone ([`same_but_scale`]), where every side has one of them:
/// keyed by the first of them in `order`, each side's key (baseline
/// first); and every key so matched.
fn across_workloads(
    order: &[Key],
    found: &[BTreeMap<Key, Found>],
) -> (BTreeMap<Key, Vec<Key>>, BTreeSet<Key>) {
    let mut groups: Vec<(Key, Vec<&Key>)> = Vec::new();
    // Only rates compare across scales: a time, a byte count or a count
    // grows with the work.
    let rate = |k: &Key| {
        found.iter().find_map(|m| m.get(k)).is_some_and(|f| {
            matches!(
                f.unit,
                Unit::BytesPerSecond | Unit::OpsPerSecond | Unit::FlopsPerSecond
            )
        })
    };
    for key in order
        .iter()
        .filter(|k| !found.iter().all(|m| m.contains_key(*k)) && rate(k))
    {
        let same = |g: &Key| {
            g.benchmark == key.benchmark && g.metric == key.metric && g.labels == key.labels
        };
        match groups.iter_mut().find(|(g, _)| same(g)) {
            Some((_, keys)) => keys.push(key),
            None => groups.push((key.clone(), vec![key])),
        }
    }
    let mut matched = BTreeMap::new();
    let mut taken = BTreeSet::new();
    for (first, keys) in groups {
        let per_side: Vec<Vec<&Key>> = found
            .iter()
            .map(|m| {
                keys.iter()
                    .copied()
                    .filter(|k| m.contains_key(*k))
                    .collect()
            })
            .collect();
        if per_side.iter().all(|k| k.len() == 1)
            && per_side.iter().all(|k| {
                same_but_scale(per_side[0][0], k[0]) && same_but_scale(k[0], per_side[0][0])
            })
        {
            taken.extend(keys.iter().map(|k| (*k).clone()));
            matched.insert(first, per_side.into_iter().map(|k| k[0].clone()).collect());
        }
    }
    (matched, taken)
}

/// The same metric of the sides that lack `key`, in their other
/// workloads: what differs, `threads=2 in run 2` each.
fn other_workloads(key: &Key, found: &[BTreeMap<Key, Found>], sides: &[Side]) -> Vec<String> {
    let mut out = Vec::new();
    for (map, side) in found.iter().zip(sides) {
        if map.contains_key(key) {
            continue;
        }
        // Labels that repeat a workload parameter (STREAM's threads) may
        // differ with it.
        let params = nodebench_core::registry::workload_params(&key.benchmark);
        let same_labels = |a: &BTreeMap<String, String>, b: &BTreeMap<String, String>| {
            a.iter()
                .chain(b.iter())
                .all(|(k, _)| params.contains(&k.as_str()) || a.get(k) == b.get(k))
        };
        for other in map.keys().filter(|k| {
            k.benchmark == key.benchmark
                && k.metric == key.metric
                && same_labels(&k.labels, &key.labels)
        }) {
            let differs: Vec<String> = differing(&[&key.workload, &other.workload])
                .into_iter()
                .map(|n| param_text(&other.workload, n))
                .collect();
            let line = format!("{} in {}", differs.join(" "), side.label);
            if !out.contains(&line) {
                out.push(line);
            }
        }
    }
    out
}

/// The parameters whose values differ between `workloads` (one missing
/// from some counts as differing), in name order.
fn differing<'a>(workloads: &[&'a BTreeMap<String, String>]) -> Vec<&'a String> {
    let names: BTreeSet<&String> = workloads.iter().flat_map(|w| w.keys()).collect();
    names
        .into_iter()
        .filter(|n| workloads.iter().any(|w| w.get(*n) != workloads[0].get(*n)))
        .collect()
}

/// `name`'s value in `workload` as written back (`-` where absent).
fn value_text<'a>(workload: &'a BTreeMap<String, String>, name: &str) -> &'a str {
    workload.get(name).map_or("-", |v| v.trim_matches('"'))
}

/// `name=value` of `workload`.
fn param_text(workload: &BTreeMap<String, String>, name: &str) -> String {
    format!("{name}={}", value_text(workload, name))
}

/// The workload parameters that differ between the sides' `keys`:
/// `KEY: A (side) vs B (side)`, a side without the parameter as `-`.
fn workload_differences(keys: &[Key], sides: &[Side]) -> Vec<String> {
    let workloads: Vec<&BTreeMap<String, String>> = keys.iter().map(|k| &k.workload).collect();
    differing(&workloads)
        .into_iter()
        .map(|name| {
            let each: Vec<String> = workloads
                .iter()
                .zip(sides)
                .map(|(w, s)| format!("{} ({})", value_text(w, name), s.label))
                .collect();
            format!("{name}: {}", each.join(" vs "))
        })
        .collect()
}

/// The warning of a benchmark matched across workloads: each side's
/// differing parameters.
fn workload_warning(benchmark: &str, keys: &[Key], sides: &[Side]) -> Option<InventoryWarning> {
    let workloads: Vec<&BTreeMap<String, String>> = keys.iter().map(|k| &k.workload).collect();
    let names = differing(&workloads);
    if names.is_empty() {
        return None;
    }
    Some(InventoryWarning {
        field: format!(
            "{benchmark} workload (compared anyway; --strict compares identical workloads only)"
        ),
        sides: workloads
            .iter()
            .zip(sides)
            .map(|(w, s)| SideValues {
                side: s.label.clone(),
                values: vec![
                    names
                        .iter()
                        .map(|n| param_text(w, n))
                        .collect::<Vec<_>>()
                        .join(" "),
                ],
            })
            .collect(),
    })
}

/// The sample summary of one side's occurrences of a metric: its one run's
/// repeat statistics where there is one occurrence with n >= 3 on a
/// one-run side, else each occurrence one sample.
fn sample(f: &Found, runs: usize) -> Sample {
    let of = |st: &Stats, source| Sample {
        median: st.median,
        mean: st.mean,
        stddev: st.stddev,
        n: st.n,
        source,
    };
    if let (1, 1, Some(st)) = (f.values.len(), runs, &f.first.stats)
        && st.n >= MIN_SAMPLES
    {
        return of(st, SampleSource::RepeatStats);
    }
    // Each occurrence one sample: their median, mean and spread as a
    // benchmark summarises its repeats.
    let source = if f.values.len() == 1 {
        SampleSource::Single
    } else {
        SampleSource::Runs
    };
    match Stats::from_samples(&f.values) {
        Some(st) => of(&st, source),
        None => Sample {
            median: 0.0,
            mean: 0.0,
            stddev: 0.0,
            n: 0,
            source,
        },
    }
}

/// The row of a matched metric: cells against the baseline `samples[0]`.
fn row(key: Key, present: &[&Found], samples: &[Sample]) -> MetricRow {
    let base = present[0];
    let b = &samples[0];
    let cells = samples
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let performance = base.better != Better::Neither;
            let ratio = (performance && b.median != 0.0).then(|| s.median / b.median);
            let (interval, verdict) = if i == 0 {
                (None, Verdict::Baseline)
            } else if !performance {
                (None, Verdict::NotPerformance)
            } else if s == b && s.n < 3 {
                // Identical figures: no difference at all, so none to test.
                (None, Verdict::NoSignificantDifference)
            } else {
                match b.n.min(s.n) {
                    1 => (None, Verdict::OneSample),
                    2 => (None, Verdict::TooFewSamples),
                    _ => match ratio_interval(b, s, CONFIDENCE) {
                        Some(iv) => (Some(iv), verdict(&iv, base.better)),
                        None => (None, Verdict::NoRatio),
                    },
                }
            };
            Cell {
                value: s.median,
                n: s.n,
                stddev: s.stddev,
                source: s.source,
                ratio,
                percent_of_baseline: ratio.map(|r| 100.0 * r),
                interval,
                verdict,
                disturbed: present.get(i).is_some_and(|f| f.disturbed),
            }
        })
        .collect();
    MetricRow {
        benchmark: key.benchmark,
        metric: key.metric,
        labels: key.labels,
        workload: key.workload,
        workload_differs: Vec::new(),
        unit: base.unit,
        better: base.better,
        cells,
    }
}

/// Faster or slower where the interval excludes 1, by the better direction.
fn verdict(iv: &Interval, better: Better) -> Verdict {
    let above = iv.low > 1.0;
    let below = iv.high < 1.0;
    match (above, below, better) {
        (true, _, Better::Higher) | (_, true, Better::Lower) => Verdict::Faster,
        (true, _, Better::Lower) | (_, true, Better::Higher) => Verdict::Slower,
        (_, _, Better::Neither) => Verdict::NotPerformance,
        _ => Verdict::NoSignificantDifference,
    }
}

/// The better-oriented ratio of a cell: over 1 is better.
fn oriented(ratio: f64, better: Better) -> f64 {
    match better {
        Better::Higher | Better::Neither => ratio,
        Better::Lower => 1.0 / ratio,
    }
}

/// Rate units: a measurement's headline figure where it has one.
const RATE_UNITS: [Unit; 4] = [
    Unit::BytesPerSecond,
    Unit::OpsPerSecond,
    Unit::FlopsPerSecond,
    Unit::Hertz,
];

/// The rows that enter the geometric means: one headline figure per
/// benchmark and label set, so one measurement counts once. Of a set's
/// summarised rows, its first rate (STREAM's bandwidth, not also its
/// average, minimum and maximum times); a set without a rate, its first
/// time.
pub(crate) fn headline_rows(rows: &[MetricRow]) -> Vec<&MetricRow> {
    let mut chosen: BTreeMap<(String, BTreeMap<String, String>), &MetricRow> = BTreeMap::new();
    let mut order: Vec<(String, BTreeMap<String, String>)> = Vec::new();
    for r in rows.iter().filter(|r| SUMMARISED_UNITS.contains(&r.unit)) {
        let key = (r.benchmark.clone(), r.labels.clone());
        match chosen.get(&key) {
            None => {
                order.push(key.clone());
                chosen.insert(key, r);
            }
            Some(prev) if !RATE_UNITS.contains(&prev.unit) && RATE_UNITS.contains(&r.unit) => {
                chosen.insert(key, r);
            }
            Some(_) => {}
        }
    }
    order
        .iter()
        .filter_map(|k| chosen.get(k).copied())
        .collect()
}

/// Geometric means per area (in first-seen order) and overall, per side.
fn summary(rows: &[MetricRow], sides: usize) -> Vec<AreaSummary> {
    let rows = headline_rows(rows);
    let mut areas: Vec<String> = Vec::new();
    for r in &rows {
        if !areas.iter().any(|a| a == r.area()) {
            areas.push(r.area().to_string());
        }
    }
    let geomeans = |area: Option<&str>| -> Vec<Geomean> {
        (0..sides)
            .map(|i| {
                let logs: Vec<f64> = rows
                    .iter()
                    .filter(|r| area.is_none_or(|a| r.area() == a))
                    .filter_map(|r| r.cells[i].ratio.map(|x| oriented(x, r.better)))
                    .filter(|x| x.is_finite() && *x > 0.0)
                    .map(f64::ln)
                    .collect();
                Geomean {
                    percent: (!logs.is_empty())
                        .then(|| 100.0 * (logs.iter().sum::<f64>() / logs.len() as f64).exp()),
                    metrics: logs.len(),
                }
            })
            .collect()
    };
    let mut out: Vec<AreaSummary> = areas
        .iter()
        .map(|a| AreaSummary {
            area: a.clone(),
            sides: geomeans(Some(a)),
        })
        .collect();
    if !rows.is_empty() {
        out.push(AreaSummary {
            area: OVERALL.to_string(),
            sides: geomeans(None),
        });
    }
    out
}

#[cfg(test)]
mod tests;
