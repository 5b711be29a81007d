//! `fleet report`: which hosts are not like the others. Every host's runs
//! (a fleet id's, a tag's, `slurm collect`'s) are read once; for every
//! performance figure the fleet's distribution (median, MAD, min, max and
//! the hosts at each end) and each host's deviation from the median, in %
//! and in robust z (deviation / (1.4826 x MAD)); a host is an outlier on a
//! figure when it is worse than the median by more than the tolerance and,
//! with at least `min_hosts` hosts, beyond the robust z limit too. Figures
//! that are not performance (spreads, counts: `core::orientation`) are left
//! out, as `compare` leaves them out of its ratios.
//!
//! The work is one pass over the runs' metrics (hosts x figures), a sort
//! of the (figure, host) cells, and one median per figure.

pub mod consistency;
mod figures;
pub mod links;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use nodebench_core::bench::BenchError;
use nodebench_core::config::Config;
use nodebench_core::model::{Better, Run, Unit};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use consistency::{Inconsistency, ValueGroup};
pub use figures::{host_name, is_link_matrix};

/// Version of the `fleet report --json` model ([`FleetReport`]); bumped
/// when a field changes meaning.
pub const FLEET_REPORT_SCHEMA_VERSION: u32 = 1;

/// How hosts are judged.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReportConfig {
    /// A host is an outlier on a figure only when it is worse than the
    /// fleet's median by more than this many percent (`--tolerance`).
    pub tolerance_percent: f64,
    /// ... and beyond this robust z (`--z`).
    pub z: f64,
    /// Below this many hosts the robust z is not used: the tolerance alone
    /// judges (`--min-hosts`).
    pub min_hosts: usize,
}

impl Default for ReportConfig {
    fn default() -> Self {
        ReportConfig {
            tolerance_percent: 5.0,
            z: 3.5,
            min_hosts: 8,
        }
    }
}

impl Config for ReportConfig {
    fn validate(&self) -> Result<(), BenchError> {
        check_tolerance(self.tolerance_percent)?;
        if !(self.z.is_finite() && self.z > 0.0) {
            return Err(BenchError::Invalid(format!(
                "--z: expected a robust z above 0 (such as 3.5), got {}",
                self.z
            )));
        }
        if self.min_hosts < 3 {
            return Err(BenchError::Invalid(format!(
                "--min-hosts: expected 3 or more (a median and a MAD need 3 hosts), got {}",
                self.min_hosts
            )));
        }
        Ok(())
    }
}

/// Checks `--tolerance` (`fleet report`'s, and `fleet pair --matrix`'s of
/// the links): a percentage above 0 and below 100.
pub fn check_tolerance(t: f64) -> Result<(), BenchError> {
    if !(t.is_finite() && t > 0.0 && t < 100.0) {
        return Err(BenchError::Invalid(format!(
            "--tolerance: expected a percentage above 0 and below 100 (such as 5), got {t}"
        )));
    }
    Ok(())
}

/// What `fleet report` found (`--json`; schema: `nodebench schema fleet`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FleetReport {
    /// [`FLEET_REPORT_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The stored runs read, in the order given.
    pub runs: Vec<i64>,
    /// The tolerance in percent.
    pub tolerance_percent: f64,
    /// The robust z limit.
    pub z: f64,
    /// The fewest hosts with which the robust z is used.
    pub min_hosts: usize,
    /// Whether the robust z judged (at least `min_hosts` hosts); otherwise
    /// the tolerance alone did.
    pub robust_z_used: bool,
    /// Said when the robust z was not used, and why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Figures that are not performance (spreads, counts, sizes), left out.
    pub left_out_figures: usize,
    /// Every performance figure found on two hosts or more, in the order
    /// first seen.
    pub figures: Vec<FigureSummary>,
    /// One verdict per host, the worst first (most outlying figures, then
    /// the most fields unlike the others', then the largest shortfall).
    pub hosts: Vec<HostVerdict>,
    /// Inventory fields and host-state readings not alike on every host:
    /// the majority value and the hosts that differ (each host's latest
    /// run with an inventory).
    pub consistency: Vec<Inconsistency>,
    /// Fields with no value held by more than half of the hosts, left out
    /// of [`FleetReport::consistency`].
    pub fields_without_majority: usize,
}

impl FleetReport {
    /// The hosts that are outliers on at least one figure.
    pub fn outlier_hosts(&self) -> impl Iterator<Item = &HostVerdict> {
        self.hosts.iter().filter(|h| !h.outliers.is_empty())
    }

    /// The hosts that are outliers or differ from the majority in a field.
    pub fn flagged_hosts(&self) -> impl Iterator<Item = &HostVerdict> {
        self.hosts
            .iter()
            .filter(|h| !h.outliers.is_empty() || !h.differs.is_empty())
    }
}

/// One figure over the fleet.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FigureSummary {
    /// `BENCHMARK METRIC{LABELS}`, with the workload in brackets where two
    /// figures would otherwise read the same.
    pub id: String,
    /// Benchmark id.
    pub benchmark: String,
    /// Metric name.
    pub metric: String,
    /// The metric's labels.
    pub labels: BTreeMap<String, String>,
    /// The benchmark's workload-defining parameters (as `compare` matches).
    pub workload: BTreeMap<String, String>,
    /// Canonical unit.
    pub unit: Unit,
    /// Whether higher or lower is better.
    pub better: Better,
    /// Hosts with this figure.
    pub host_count: usize,
    /// The fleet median (each host's own figure is the median of its runs).
    pub median: f64,
    /// Median absolute deviation from the median (unscaled).
    pub mad: f64,
    /// The lowest host figure.
    pub min: f64,
    /// The hosts at the lowest figure.
    pub min_hosts: Vec<String>,
    /// The highest host figure.
    pub max: f64,
    /// The hosts at the highest figure.
    pub max_hosts: Vec<String>,
    /// Whether hosts were judged on it (a median of 0 or below has no %).
    pub judged: bool,
    /// Hosts that are outliers on it.
    pub outliers: Vec<String>,
    /// Each host's figure and deviation, in host-name order.
    pub deviations: Vec<HostDeviation>,
}

/// One host's figure against the fleet's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HostDeviation {
    /// The host.
    pub host: String,
    /// Its figure (the median of its runs' values).
    pub value: f64,
    /// (value - median) / median in %; absent where the median is 0 or below.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deviation_percent: Option<f64>,
    /// (value - median) / (1.4826 x MAD); absent where the MAD is 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub z: Option<f64>,
    /// Whether it is an outlier on this figure.
    pub outlier: bool,
}

/// A figure a host is an outlier on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Outlying {
    /// The figure's id ([`FigureSummary::id`]).
    pub figure: String,
    /// The host's figure.
    pub value: f64,
    /// The fleet median.
    pub median: f64,
    /// Unit of both.
    pub unit: Unit,
    /// How much worse than the median, in % (positive: worse).
    pub worse_percent: f64,
    /// The robust z (signed as the value's deviation); absent where the MAD is 0.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub z: Option<f64>,
}

/// One host's verdict.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HostVerdict {
    /// The host (its `host` tag, else Slurm's `node` tag, else the
    /// inventory's host name, else `run ID`).
    pub host: String,
    /// Its stored runs.
    pub runs: Vec<i64>,
    /// `ok`, or `outlier on N figure(s), worst: FIGURE -X.X %`.
    pub verdict: String,
    /// The figures it is an outlier on, the worst first.
    pub outliers: Vec<Outlying>,
    /// Its largest shortfall against the median over every judged figure,
    /// in % (0 when it is nowhere worse).
    pub worst_percent: f64,
    /// The figure of that shortfall.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub worst_figure: Option<String>,
    /// Figures most hosts have that this host lacks (a failed or skipped
    /// benchmark).
    pub missing_figures: Vec<String>,
    /// Inventory fields and host-state readings where it is not with the
    /// majority ([`FleetReport::consistency`]), as `FIELD=VALUE`.
    pub differs: Vec<String>,
}

/// Judges `runs` (one or more per host) as `cfg` says.
pub fn analyse(runs: &[Run], cfg: &ReportConfig) -> FleetReport {
    let grid = figures::Grid::of(runs);
    let host_count = grid.hosts.len();
    let robust = host_count >= cfg.min_hosts;
    let note = (!robust).then(|| {
        format!(
            "{host_count} host(s), below --min-hosts {}: the robust z means little with so few, so the tolerance alone judged",
            cfg.min_hosts
        )
    });
    let mut verdicts: Vec<HostVerdict> = grid
        .hosts
        .iter()
        .map(|h| HostVerdict {
            host: h.name.clone(),
            runs: h.runs.clone(),
            verdict: String::new(),
            outliers: Vec::new(),
            worst_percent: 0.0,
            worst_figure: None,
            missing_figures: Vec::new(),
            differs: Vec::new(),
        })
        .collect();
    let mut summaries = Vec::new();
    for (fig, cells) in grid.figures.iter().zip(grid.cells_by_figure()) {
        if cells.len() < 2 {
            continue;
        }
        let mut values: Vec<f64> = cells.iter().map(|c| c.1).collect();
        let Some((median, mad)) = nodebench_core::stats::median_mad(&mut values) else {
            continue;
        };
        let (min, max) = (values[0], values[values.len() - 1]);
        let at = |v: f64| -> Vec<String> {
            cells
                .iter()
                .filter(|c| c.1 == v)
                .map(|c| grid.hosts[c.0].name.clone())
                .collect()
        };
        let judged = median > 0.0 && median.is_finite();
        let scale = nodebench_core::stats::MAD_SCALE * mad;
        let mut deviations = Vec::with_capacity(cells.len());
        let mut outliers = Vec::new();
        for &(host, value) in &cells {
            let deviation_percent = judged.then(|| (value - median) / median * 100.0);
            let z = (scale > 0.0).then(|| (value - median) / scale);
            // Worse is lower for higher-is-better figures and vice versa.
            let sign = if fig.better == Better::Lower {
                1.0
            } else {
                -1.0
            };
            let worse = deviation_percent.map_or(0.0, |d| sign * d);
            let beyond_z = !robust || z.is_none_or(|z| sign * z > cfg.z);
            let outlier = judged && worse > cfg.tolerance_percent && beyond_z;
            let v = &mut verdicts[host];
            if worse > v.worst_percent {
                v.worst_percent = worse;
                v.worst_figure = Some(fig.id.clone());
            }
            if outlier {
                outliers.push(grid.hosts[host].name.clone());
                v.outliers.push(Outlying {
                    figure: fig.id.clone(),
                    value,
                    median,
                    unit: fig.unit,
                    worse_percent: worse,
                    z,
                });
            }
            deviations.push(HostDeviation {
                host: grid.hosts[host].name.clone(),
                value,
                deviation_percent,
                z,
                outlier,
            });
        }
        // A figure more than half the hosts have, missing on the others.
        if cells.len() * 2 > host_count && cells.len() < host_count {
            let mut has = vec![false; host_count];
            for c in &cells {
                has[c.0] = true;
            }
            for (h, present) in has.iter().enumerate() {
                if !present {
                    verdicts[h].missing_figures.push(fig.id.clone());
                }
            }
        }
        summaries.push(FigureSummary {
            id: fig.id.clone(),
            benchmark: fig.key.benchmark.clone(),
            metric: fig.key.metric.clone(),
            labels: fig.key.labels.clone(),
            workload: fig.key.workload.clone(),
            unit: fig.unit,
            better: fig.better,
            host_count: cells.len(),
            median,
            mad,
            min,
            min_hosts: at(min),
            max,
            max_hosts: at(max),
            judged,
            outliers,
            deviations,
        });
    }
    let (consistency, fields_without_majority) = compare_inventories(runs);
    for c in &consistency {
        for g in &c.others {
            for h in &g.hosts {
                if let Some(v) = verdicts.iter_mut().find(|v| &v.host == h) {
                    v.differs.push(format!("{}={}", c.field, g.value));
                }
            }
        }
    }
    for v in &mut verdicts {
        v.outliers
            .sort_by(|a, b| b.worse_percent.total_cmp(&a.worse_percent));
        let mut verdict = match v.outliers.first() {
            None => "ok".to_string(),
            Some(w) => format!(
                "outlier on {} figure(s), worst: {} {:+.1} %",
                v.outliers.len(),
                w.figure,
                (w.value - w.median) / w.median * 100.0
            ),
        };
        if !v.differs.is_empty() {
            if verdict == "ok" {
                verdict.clear();
            } else {
                verdict.push_str("; ");
            }
            verdict.push_str(&format!("differs: {}", v.differs.join(", ")));
        }
        v.verdict = verdict;
    }
    verdicts.sort_by(|a, b| {
        b.outliers
            .len()
            .cmp(&a.outliers.len())
            .then(b.differs.len().cmp(&a.differs.len()))
            .then(b.worst_percent.total_cmp(&a.worst_percent))
            .then(a.host.cmp(&b.host))
    });
    FleetReport {
        schema_version: FLEET_REPORT_SCHEMA_VERSION,
        runs: runs.iter().filter_map(|r| r.id).collect(),
        tolerance_percent: cfg.tolerance_percent,
        z: cfg.z,
        min_hosts: cfg.min_hosts,
        robust_z_used: robust,
        note,
        left_out_figures: grid.left_out,
        figures: summaries,
        hosts: verdicts,
        consistency,
        fields_without_majority,
    }
}

/// [`consistency::compare`] over each host's latest run with an inventory.
fn compare_inventories(runs: &[Run]) -> (Vec<Inconsistency>, usize) {
    let mut latest: BTreeMap<String, &Run> = BTreeMap::new();
    for run in runs.iter().filter(|r| r.inventory.is_some()) {
        let e = latest.entry(host_name(run)).or_insert(run);
        if run.started_at >= e.started_at {
            *e = run;
        }
    }
    let hosts: Vec<(&str, &nodebench_core::inventory::Inventory)> = latest
        .iter()
        .filter_map(|(h, r)| r.inventory.as_ref().map(|i| (h.as_str(), i)))
        .collect();
    consistency::compare(&hosts)
}
