//! The columns of the store's tables as plain values, and their encoding
//! from and decoding into the result model: written once for every backend,
//! which only moves these values in and out of its database.

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, SecondsFormat, Utc};
use nodebench_core::inventory::Inventory;
use nodebench_core::stats::Stats;
use nodebench_core::{
    BenchResult, Better, Histogram, Metric, Printed, Reference, ResultStatus, Run, RunStatus,
    TimeSeries, Unit,
};
use serde::de::DeserializeOwned;

use crate::{RunSummary, StoreError};

/// RFC 3339 UTC with nanoseconds: fixed width, so text order is time order,
/// and it reads back exactly.
pub(crate) fn ts(t: &DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Nanos, true)
}

/// `value` as the JSON text a column holds.
pub(crate) fn json<T: serde::Serialize + ?Sized>(value: &T) -> Result<String, StoreError> {
    Ok(serde_json::to_string(value)?)
}

/// `value` as a 64-bit column integer, or [`StoreError::Invalid`] naming `what`.
pub(crate) fn to_i64<T: TryInto<i64> + Copy + std::fmt::Display>(
    value: T,
    what: &str,
) -> Result<i64, StoreError> {
    value.try_into().map_err(|_| StoreError::Invalid {
        what: what.to_string(),
        reason: format!("{value} does not fit in a 64-bit signed integer"),
    })
}

fn invalid(what: impl FnOnce() -> String, reason: impl std::fmt::Display) -> StoreError {
    StoreError::Invalid {
        what: what(),
        reason: reason.to_string(),
    }
}

fn parse_ts(s: &str, what: impl FnOnce() -> String) -> Result<DateTime<Utc>, StoreError> {
    DateTime::parse_from_rfc3339(s)
        .map(|t| t.with_timezone(&Utc))
        .map_err(|e| invalid(what, format!("timestamp {s:?}: {e}")))
}

fn parse_json<T: DeserializeOwned>(
    s: &str,
    what: impl FnOnce() -> String,
) -> Result<T, StoreError> {
    serde_json::from_str(s).map_err(|e| invalid(what, format!("JSON {s:?}: {e}")))
}

fn parse_with<T>(
    s: &str,
    parse: fn(&str) -> Option<T>,
    what: impl FnOnce() -> String,
) -> Result<T, StoreError> {
    parse(s).ok_or_else(|| invalid(what, format!("unknown value {s:?}")))
}

fn parse_unit(s: &str, what: impl FnOnce() -> String) -> Result<Unit, StoreError> {
    parse_with(s, Unit::from_symbol, what)
}

/// A real column that may be NULL: SQLite stores NaN as NULL; read it back
/// as NaN.
fn real(v: Option<f64>) -> f64 {
    v.unwrap_or(f64::NAN)
}

/// The `hostname` key of an inventory's JSON, if it has one.
fn hostname_of(inventory: Option<&str>) -> Option<String> {
    let value: serde_json::Value = serde_json::from_str(inventory?).ok()?;
    value.get("hostname")?.as_str().map(str::to_string)
}

/// The columns of a `runs` row but its id.
pub(crate) struct RunRow {
    pub started_at: String,
    pub ended_at: Option<String>,
    pub status: String,
    pub nodebench_version: String,
    pub command_line: String,
    pub tags: String,
    pub inventory: Option<String>,
    pub schema_version: i64,
    pub verdicts: String,
    pub build: Option<String>,
}

impl RunRow {
    /// The row `run` is saved as.
    pub fn encode(run: &Run) -> Result<RunRow, StoreError> {
        Ok(RunRow {
            started_at: ts(&run.started_at),
            ended_at: run.ended_at.as_ref().map(ts),
            status: run.status.as_str().to_string(),
            nodebench_version: run.nodebench_version.clone(),
            command_line: json(&run.command_line)?,
            tags: json(&run.tags)?,
            inventory: run.inventory.as_ref().map(json).transpose()?,
            schema_version: i64::from(run.schema_version),
            verdicts: json(&run.verdicts)?,
            build: run.build.as_ref().map(json).transpose()?,
        })
    }

    /// Run `id` as this row says, without its results.
    pub fn decode(self, id: i64) -> Result<Run, StoreError> {
        let what = |field: &'static str| move || format!("{field} of run {id}");
        let schema_version = self.schema_version;
        Ok(Run {
            schema_version: u32::try_from(schema_version)
                .map_err(|e| invalid(what("schema version"), format!("{schema_version}: {e}")))?,
            id: Some(id),
            started_at: parse_ts(&self.started_at, what("start time"))?,
            ended_at: self
                .ended_at
                .map(|s| parse_ts(&s, what("end time")))
                .transpose()?,
            status: parse_with(&self.status, RunStatus::parse, what("status"))?,
            nodebench_version: self.nodebench_version,
            build: self
                .build
                .map(|s| parse_json(&s, what("build")))
                .transpose()?,
            command_line: parse_json(&self.command_line, what("command line"))?,
            tags: parse_json(&self.tags, what("tags"))?,
            inventory: self
                .inventory
                .map(|s| parse_json::<Inventory>(&s, what("inventory")))
                .transpose()?,
            results: Vec::new(),
            error: None,
            verdicts: parse_json(&self.verdicts, what("verdicts"))?,
        })
    }
}

/// Settles a run read back from a store as this version reads it: the
/// orientation of runs stored before it existed, the model's version, and
/// the run's error from its first failed result.
pub(crate) fn settle(run: &mut Run) {
    for r in &mut run.results {
        nodebench_core::orientation::settle(r);
    }
    run.schema_version = nodebench_core::model::SCHEMA_VERSION;
    run.error = run.first_failure();
}

/// The runs `ids` in that order, each settled; [`StoreError::NotFound`]
/// for the first id `runs` lacks.
pub(crate) fn in_order(ids: &[i64], mut runs: HashMap<i64, Run>) -> Result<Vec<Run>, StoreError> {
    let mut out = Vec::with_capacity(ids.len());
    for id in ids {
        let mut run = match runs.remove(id) {
            Some(r) => r,
            // The same id twice: a copy of the first.
            None => out
                .iter()
                .find(|r: &&Run| r.id == Some(*id))
                .cloned()
                .ok_or(StoreError::NotFound(*id))?,
        };
        settle(&mut run);
        out.push(run);
    }
    Ok(out)
}

/// The columns `runs list` reads of a `runs` row.
pub(crate) struct SummaryRow {
    pub id: i64,
    pub started_at: String,
    pub ended_at: Option<String>,
    pub status: String,
    pub command_line: String,
    pub tags: String,
    pub inventory: Option<String>,
}

/// Per run: distinct benchmarks in order, result count, metric count.
pub(crate) type Counts = (Vec<String>, usize, usize);

/// Adds one result row (its benchmark and metric count) to `counts`.
pub(crate) fn count_result(counts: &mut Counts, benchmark: String, metrics: i64) {
    if !counts.0.contains(&benchmark) {
        counts.0.push(benchmark);
    }
    counts.1 += 1;
    counts.2 += usize::try_from(metrics).unwrap_or(0);
}

impl SummaryRow {
    /// The summary of this run, with its result `counts`.
    pub fn decode(self, counts: Counts) -> Result<RunSummary, StoreError> {
        let id = self.id;
        let what = |field: &'static str| move || format!("{field} of run {id}");
        let (benchmarks, result_count, metric_count) = counts;
        Ok(RunSummary {
            id,
            started_at: parse_ts(&self.started_at, what("start time"))?,
            ended_at: self
                .ended_at
                .map(|s| parse_ts(&s, what("end time")))
                .transpose()?,
            status: parse_with(&self.status, RunStatus::parse, what("status"))?,
            command_line: parse_json(&self.command_line, what("command line"))?,
            tags: parse_json(&self.tags, what("tags"))?,
            benchmarks,
            result_count,
            metric_count,
            hostname: hostname_of(self.inventory.as_deref()),
        })
    }
}

/// The columns of a `results` row but its ids and sequence number.
pub(crate) struct ResultRow {
    pub benchmark: String,
    pub parameters: String,
    pub status: String,
    pub error: Option<String>,
    /// The phase a failed result failed in (NULL before migration 8).
    pub error_phase: Option<String>,
    pub warnings: String,
    pub started_at: String,
    pub ended_at: String,
    pub bottleneck: Option<String>,
    /// The phases, as JSON.
    pub phases: String,
    /// What disturbed it, as JSON (NULL when not watched).
    pub disturbance: Option<String>,
}

impl ResultRow {
    /// The row `result` is saved as (its figures go to their own tables).
    pub fn encode(result: &BenchResult) -> Result<ResultRow, StoreError> {
        Ok(ResultRow {
            benchmark: result.benchmark.clone(),
            parameters: json(&result.parameters)?,
            status: result.status.as_str().to_string(),
            error: result.error.clone(),
            error_phase: result.error_phase.clone(),
            warnings: json(&result.warnings)?,
            started_at: ts(&result.started_at),
            ended_at: ts(&result.ended_at),
            bottleneck: result.bottleneck.clone(),
            phases: json(&result.phases)?,
            disturbance: result.disturbance.as_ref().map(json).transpose()?,
        })
    }

    /// Result `result_id` of run `run_id` as this row says, without figures.
    pub fn decode(self, run_id: i64, result_id: i64) -> Result<BenchResult, StoreError> {
        let what =
            |field: &'static str| move || format!("{field} of result {result_id} of run {run_id}");
        let parameters: BTreeMap<String, serde_json::Value> =
            parse_json(&self.parameters, what("parameters"))?;
        Ok(BenchResult {
            benchmark: self.benchmark,
            parameters,
            status: parse_with(&self.status, ResultStatus::parse, what("status"))?,
            error: self.error,
            error_phase: self.error_phase,
            warnings: parse_json(&self.warnings, what("warnings"))?,
            started_at: parse_ts(&self.started_at, what("start time"))?,
            ended_at: parse_ts(&self.ended_at, what("end time"))?,
            metrics: Vec::new(),
            histograms: Vec::new(),
            series: Vec::new(),
            bottleneck: self.bottleneck,
            phases: parse_json(&self.phases, what("phases"))?,
            disturbance: self
                .disturbance
                .as_deref()
                .map(|d| parse_json(d, what("disturbance")))
                .transpose()?,
        })
    }
}

/// The columns of a `metrics` row but its ids.
pub(crate) struct MetricRow {
    pub name: String,
    pub value: Option<f64>,
    pub unit: String,
    pub better: String,
    pub labels: String,
    pub stats: Option<String>,
    pub reference_name: Option<String>,
    pub reference_value: Option<f64>,
    pub percent_of_reference: Option<f64>,
    /// The figure as an imported source printed it ([`Printed`]), as JSON.
    pub printed: Option<String>,
}

impl MetricRow {
    /// The row `m` is saved as.
    pub fn encode(m: &Metric) -> Result<MetricRow, StoreError> {
        Ok(MetricRow {
            name: m.name.clone(),
            value: Some(m.value),
            unit: m.unit.symbol().to_string(),
            better: nodebench_core::orientation::of(m).as_str().to_string(),
            labels: json(&m.labels)?,
            stats: m.stats.as_ref().map(json).transpose()?,
            reference_name: m.reference.as_ref().map(|r| r.name.clone()),
            reference_value: m.reference.as_ref().map(|r| r.value),
            percent_of_reference: m.percent_of_reference,
            printed: m.printed.as_ref().map(json).transpose()?,
        })
    }

    /// The metric of result `result_id` this row holds.
    pub fn decode(self, result_id: i64) -> Result<Metric, StoreError> {
        let name = self.name;
        let what = |field: &'static str| {
            let name = name.clone();
            move || format!("{field} of metric {name:?} of result {result_id}")
        };
        let stats = match self.stats {
            Some(s) => Some(parse_json::<Stats>(&s, what("stats"))?),
            None => None,
        };
        let reference_value = self.reference_value;
        let printed = match self.printed {
            Some(p) => Some(parse_json::<Printed>(&p, what("printed"))?),
            None => None,
        };
        Ok(Metric {
            value: real(self.value),
            unit: parse_unit(&self.unit, what("unit"))?,
            better: parse_with(&self.better, Better::parse, what("direction"))?,
            labels: parse_json(&self.labels, what("labels"))?,
            stats,
            reference: self.reference_name.map(|rname| Reference {
                name: rname,
                value: real(reference_value),
            }),
            percent_of_reference: self.percent_of_reference,
            printed,
            name,
        })
    }
}

/// The columns of a `histograms` row but its ids.
pub(crate) struct HistogramRow {
    pub name: String,
    pub unit: String,
    pub scale: Option<f64>,
    pub labels: String,
    pub count: i64,
    pub hdr_base64: String,
}

impl HistogramRow {
    /// The row `h` is saved as.
    pub fn encode(h: &Histogram) -> Result<HistogramRow, StoreError> {
        Ok(HistogramRow {
            name: h.name.clone(),
            unit: h.unit.symbol().to_string(),
            scale: Some(h.scale),
            labels: json(&h.labels)?,
            count: to_i64(h.count, "histogram count")?,
            hdr_base64: h.hdr_base64.clone(),
        })
    }

    /// The histogram of result `result_id` this row holds.
    pub fn decode(self, result_id: i64) -> Result<Histogram, StoreError> {
        let name = self.name;
        let what = |field: &'static str| {
            let name = name.clone();
            move || format!("{field} of histogram {name:?} of result {result_id}")
        };
        let count = self.count;
        Ok(Histogram {
            unit: parse_unit(&self.unit, what("unit"))?,
            scale: real(self.scale),
            labels: parse_json(&self.labels, what("labels"))?,
            count: u64::try_from(count)
                .map_err(|e| invalid(what("count"), format!("{count}: {e}")))?,
            hdr_base64: self.hdr_base64,
            name,
        })
    }
}

/// The columns of a `series` row but its ids.
pub(crate) struct SeriesRow {
    pub name: String,
    pub unit: String,
    pub labels: String,
    /// The points as JSON, as rows written before migration 6 hold them
    /// (empty in packed rows).
    pub points: String,
    /// The points packed ([`crate::points`]), in rows written since.
    pub points_packed: Option<Vec<u8>>,
}

impl SeriesRow {
    /// The row `s` is saved as; `before` is the series saved just before
    /// it in the same result (it may share its times).
    pub fn encode(s: &TimeSeries, before: Option<&TimeSeries>) -> Result<SeriesRow, StoreError> {
        Ok(SeriesRow {
            name: s.name.clone(),
            unit: s.unit.symbol().to_string(),
            labels: json(&s.labels)?,
            points: String::new(),
            points_packed: Some(crate::points::pack(
                &s.points,
                before.map(|b| b.points.as_slice()),
            )),
        })
    }

    /// The series of result `result_id` this row holds; `before` is the
    /// one read just before it of the same result.
    pub fn decode(
        self,
        result_id: i64,
        before: Option<&TimeSeries>,
    ) -> Result<TimeSeries, StoreError> {
        let name = self.name;
        let what = |field: &'static str| {
            let name = name.clone();
            move || format!("{field} of series {name:?} of result {result_id}")
        };
        let points = match &self.points_packed {
            Some(bytes) => crate::points::unpack(bytes, before.map(|b| b.points.as_slice()))
                .map_err(|e| invalid(what("points"), e))?,
            None => parse_json(&self.points, what("points"))?,
        };
        Ok(TimeSeries {
            unit: parse_unit(&self.unit, what("unit"))?,
            labels: parse_json(&self.labels, what("labels"))?,
            points,
            name,
        })
    }
}
