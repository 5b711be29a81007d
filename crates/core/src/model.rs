//! The result model every benchmark produces: a [`Run`] holds [`BenchResult`]s,
//! each holding [`Metric`]s, [`Histogram`]s and [`TimeSeries`].
//!
//! Storage, comparison, export and printing work on these types only, never on
//! a benchmark's private types. `--json` prints a [`Run`]; its JSON schema is
//! checked in at `schema/run.schema.json` and carries [`SCHEMA_VERSION`].

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::disturbance::Disturbance;
use crate::inventory::Inventory;
use crate::stats::Stats;

/// Version of the JSON result model. Bump it when a field changes meaning or
/// is removed; adding an optional field keeps the version. 2: a metric's
/// `better` may be `neither` (not a performance figure); version 1 runs read
/// the same, their metrics' orientation settled on reading. 3: a run with a
/// failed result is `failed` (not `complete`), a benchmark that failed
/// without a result of its own is one failed result naming it, a failed
/// result says in which phase it failed (`error_phase`), and the run carries
/// its `error`; version 2 runs read the same, their `error` settled on
/// reading from their first failed result.
pub const SCHEMA_VERSION: u32 = 3;

/// The phase of a result that failed before it measured anything: its
/// configuration was refused by the machine (no room in a directory).
pub const PHASE_SETUP: &str = "setup";
/// The phase of a benchmark that stopped with an error before it handed
/// over a result of its own (a database it could not reach, a site that
/// refused the connection): the runner's result names it.
pub const PHASE_RUN: &str = "run";
/// The phase of a result the benchmark handed over marked failed: a
/// measurement, or the validation of one, failed (a refused connection of
/// `net tcp`, a checksum, a residual).
pub const PHASE_MEASURE: &str = "measure";

/// Whether a whole run finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// Every benchmark of the run finished (passed or failed on its own).
    Complete,
    /// The run was interrupted (Ctrl-C, SIGTERM, SIGKILL, a crash): only the
    /// results that finished are in it.
    Incomplete,
    /// The run could not go on because of an error outside one benchmark.
    Failed,
}

impl RunStatus {
    /// The lower-case name used in the store and in tables.
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Complete => "complete",
            RunStatus::Incomplete => "incomplete",
            RunStatus::Failed => "failed",
        }
    }

    /// Parses the name written by [`RunStatus::as_str`].
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "complete" => Some(RunStatus::Complete),
            "incomplete" => Some(RunStatus::Incomplete),
            "failed" => Some(RunStatus::Failed),
            _ => None,
        }
    }
}

/// Outcome of one benchmark invocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ResultStatus {
    /// Measured and its own validation (if any) passed.
    Passed,
    /// Measured but validation failed (wrong checksum, residual too large...),
    /// or the benchmark hit an error; `error` says which.
    Failed,
    /// Stopped part-way by the user; the metrics that finished are kept.
    Cancelled,
}

impl ResultStatus {
    /// The lower-case name used in the store and in tables.
    pub fn as_str(self) -> &'static str {
        match self {
            ResultStatus::Passed => "passed",
            ResultStatus::Failed => "failed",
            ResultStatus::Cancelled => "cancelled",
        }
    }

    /// Parses the name written by [`ResultStatus::as_str`].
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "passed" => Some(ResultStatus::Passed),
            "failed" => Some(ResultStatus::Failed),
            "cancelled" => Some(ResultStatus::Cancelled),
            _ => None,
        }
    }
}

/// Canonical units a metric is stored in. Display may convert (GFLOPS, MB/s)
/// but always says which.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum Unit {
    /// Bytes.
    #[serde(rename = "B")]
    Bytes,
    /// Seconds.
    #[serde(rename = "s")]
    Seconds,
    /// Bytes per second.
    #[serde(rename = "B/s")]
    BytesPerSecond,
    /// Operations (integer ops, I/O ops, requests...) per second.
    #[serde(rename = "op/s")]
    OpsPerSecond,
    /// Floating-point operations per second.
    #[serde(rename = "flop/s")]
    FlopsPerSecond,
    /// Cycles per second.
    #[serde(rename = "Hz")]
    Hertz,
    /// Cycles (e.g. per load).
    #[serde(rename = "cycles")]
    Cycles,
    /// Percent (0-100).
    #[serde(rename = "%")]
    Percent,
    /// A plain count or ratio without unit.
    #[serde(rename = "1")]
    Count,
    /// Power, watts.
    #[serde(rename = "W")]
    Watts,
    /// Energy, joules.
    #[serde(rename = "J")]
    Joules,
}

impl Unit {
    /// The symbol stored and exported for this unit.
    pub fn symbol(self) -> &'static str {
        match self {
            Unit::Bytes => "B",
            Unit::Seconds => "s",
            Unit::BytesPerSecond => "B/s",
            Unit::OpsPerSecond => "op/s",
            Unit::FlopsPerSecond => "flop/s",
            Unit::Hertz => "Hz",
            Unit::Cycles => "cycles",
            Unit::Percent => "%",
            Unit::Count => "1",
            Unit::Watts => "W",
            Unit::Joules => "J",
        }
    }

    /// Parses a symbol written by [`Unit::symbol`].
    pub fn from_symbol(s: &str) -> Option<Self> {
        [
            Unit::Bytes,
            Unit::Seconds,
            Unit::BytesPerSecond,
            Unit::OpsPerSecond,
            Unit::FlopsPerSecond,
            Unit::Hertz,
            Unit::Cycles,
            Unit::Percent,
            Unit::Count,
            Unit::Watts,
            Unit::Joules,
        ]
        .into_iter()
        .find(|u| u.symbol() == s)
    }
}

/// Which direction of a metric is good.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Better {
    /// Throughput-like: more is better.
    Higher,
    /// Latency-like: less is better.
    Lower,
    /// Not a performance figure (a spread, a residual, an error count, a
    /// size): shown, never judged ([`crate::orientation`]).
    Neither,
}

impl Better {
    /// The lower-case name used in the store and exports.
    pub fn as_str(self) -> &'static str {
        match self {
            Better::Higher => "higher",
            Better::Lower => "lower",
            Better::Neither => "neither",
        }
    }

    /// Parses the name written by [`Better::as_str`].
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "higher" => Some(Better::Higher),
            "lower" => Some(Better::Lower),
            "neither" => Some(Better::Neither),
            _ => None,
        }
    }
}

/// A physical limit a metric is set against (theoretical peak FLOP/s, DRAM
/// bandwidth, line rate), in the metric's own unit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Reference {
    /// What the limit is, e.g. `theoretical peak (2 cores x 2.45 GHz x 16 DP flop/cycle)`.
    pub name: String,
    /// The limit, in the metric's unit.
    pub value: f64,
}

/// One measured figure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Metric {
    /// Name within its benchmark, e.g. `rate`, `triad`, `latency_p99`.
    pub name: String,
    /// The reported value (for repeated measurements: the summary the
    /// benchmark's field reports, stated in the benchmark's help).
    pub value: f64,
    /// Canonical unit of `value`.
    pub unit: Unit,
    /// Whether higher or lower is better.
    pub better: Better,
    /// Labels that tell this figure apart from its siblings: `threads=4`,
    /// `kernel=f64.vector`, `record=8KiB`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// Statistics of the repeats behind `value`, when there were repeats.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stats: Option<Stats>,
    /// The physical limit this figure is set against, where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference: Option<Reference>,
    /// `value` as a percentage of `reference.value`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percent_of_reference: Option<f64>,
    /// An imported figure as its source printed it (`3.05` `s` where
    /// `value` holds 3.05 seconds, `2.46` `MB` where it holds 2579496.96
    /// bytes): what every view of an imported run prints. `None` for a
    /// figure nodebench measured, or one an importer derived from the
    /// source's figures (printed marked "derived").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub printed: Option<Printed>,
}

/// A figure as an imported tool printed it: its text and unit, each
/// exactly as written (`824.79` `KB`, `1027` `Mbits/sec`, `23618` and no
/// unit).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Printed {
    /// The number as written (`3.05`, `0.012711`, `1.18`).
    pub text: String,
    /// Its unit as written (`s`, `MB/s`, `Gbits/sec`, wrk's `k`); empty
    /// for a count.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub unit: String,
}

impl Printed {
    /// `text` and `unit` as written.
    pub fn new(text: impl Into<String>, unit: impl Into<String>) -> Self {
        Printed {
            text: text.into(),
            unit: unit.into(),
        }
    }

    /// `TEXT UNIT`, or `TEXT` for a figure without a unit.
    pub fn with_unit(&self) -> String {
        if self.unit.is_empty() {
            self.text.clone()
        } else {
            format!("{} {}", self.text, self.unit)
        }
    }
}

impl Metric {
    /// A metric with no labels, stats or reference.
    pub fn new(name: impl Into<String>, value: f64, unit: Unit, better: Better) -> Self {
        Metric {
            name: name.into(),
            value,
            unit,
            better,
            labels: BTreeMap::new(),
            stats: None,
            reference: None,
            percent_of_reference: None,
            printed: None,
        }
    }

    /// Records the figure as the imported source printed it ([`Printed`]).
    pub fn printed(mut self, text: impl Into<String>, unit: impl Into<String>) -> Self {
        self.printed = Some(Printed::new(text, unit));
        self
    }

    /// Adds a label.
    pub fn label(mut self, key: impl Into<String>, value: impl ToString) -> Self {
        self.labels.insert(key.into(), value.to_string());
        self
    }

    /// Attaches repeat statistics.
    pub fn with_stats(mut self, stats: Stats) -> Self {
        self.stats = Some(stats);
        self
    }

    /// Attaches a reference limit and computes the percentage of it.
    pub fn with_reference(mut self, reference: Option<Reference>) -> Self {
        if let Some(r) = reference {
            if r.value > 0.0 && r.value.is_finite() {
                self.percent_of_reference = Some(100.0 * self.value / r.value);
            }
            self.reference = Some(r);
        }
        self
    }

    /// The value of label `key`, when present.
    pub fn label_value(&self, key: &str) -> Option<&str> {
        self.labels.get(key).map(String::as_str)
    }

    /// True when this metric's labels include every `(key, value)` of `labels`.
    pub fn has_labels(&self, labels: &[(&str, &str)]) -> bool {
        has_labels(&self.labels, labels)
    }

    /// `name{k=v,...}`: a one-line identity used in tables and exports.
    pub fn key(&self) -> String {
        if self.labels.is_empty() {
            return self.name.clone();
        }
        let labels: Vec<String> = self
            .labels
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        format!("{}{{{}}}", self.name, labels.join(","))
    }
}

/// A latency or size distribution, kept as a serialised HdrHistogram so that
/// histograms from threads, repeats and nodes can be merged later.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Histogram {
    /// Name within the benchmark, e.g. `latency`.
    pub name: String,
    /// Unit of the recorded values (after dividing by `scale`).
    pub unit: Unit,
    /// Recorded integers are `value * scale` (e.g. 1e9 for nanoseconds when
    /// `unit` is seconds).
    pub scale: f64,
    /// Labels as on [`Metric::labels`].
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// Number of recorded values.
    pub count: u64,
    /// HdrHistogram V2 (deflate) serialisation, base64.
    pub hdr_base64: String,
}

impl Histogram {
    /// Serialises `hdr` (values recorded as `value * scale` integers) as an
    /// HdrHistogram V2 deflate blob, base64-encoded.
    pub fn from_hdr(
        name: impl Into<String>,
        unit: Unit,
        scale: f64,
        labels: BTreeMap<String, String>,
        hdr: &hdrhistogram::Histogram<u64>,
    ) -> Histogram {
        use base64::Engine as _;
        use hdrhistogram::serialization::{Serializer as _, V2DeflateSerializer};
        let mut bytes = Vec::new();
        // Serialising into memory cannot fail for a valid histogram; an
        // empty blob is kept if it ever does, and `count` still says how many.
        let _ = V2DeflateSerializer::new().serialize(hdr, &mut bytes);
        Histogram {
            name: name.into(),
            unit,
            scale,
            labels,
            count: hdr.len(),
            hdr_base64: base64::engine::general_purpose::STANDARD.encode(bytes),
        }
    }

    /// Decodes the stored histogram (for merging and percentiles later).
    pub fn to_hdr(&self) -> Option<hdrhistogram::Histogram<u64>> {
        use base64::Engine as _;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(&self.hdr_base64)
            .ok()?;
        hdrhistogram::serialization::Deserializer::new()
            .deserialize(&mut bytes.as_slice())
            .ok()
    }
}

/// A value sampled over time (per-second rates, temperatures).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TimeSeries {
    /// Name within the benchmark, e.g. `requests_per_second`.
    pub name: String,
    /// Unit of the values.
    pub unit: Unit,
    /// Labels as on [`Metric::labels`].
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// `(seconds since the result started, value)` pairs.
    pub points: Vec<(f64, f64)>,
}

/// One benchmark invocation inside a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BenchResult {
    /// Benchmark id, `area.name`: `cpu.ops`, `memory.stream`.
    pub benchmark: String,
    /// The parameters it ran with, as given or defaulted.
    #[serde(default)]
    pub parameters: BTreeMap<String, serde_json::Value>,
    /// Outcome.
    pub status: ResultStatus,
    /// Why it failed or was cancelled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The phase a failed result failed in: [`PHASE_SETUP`] (refused before
    /// it ran), [`PHASE_RUN`] (stopped with an error, no result of its own)
    /// or [`PHASE_MEASURE`]; absent for results that did not fail and in
    /// runs stored before version 3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_phase: Option<String>,
    /// Warnings the user should see with the figures (noisy machine, coarse timer).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// When it started.
    pub started_at: DateTime<Utc>,
    /// When it ended.
    pub ended_at: DateTime<Utc>,
    /// The figures.
    #[serde(default)]
    pub metrics: Vec<Metric>,
    /// Distributions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub histograms: Vec<Histogram>,
    /// Time series.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub series: Vec<TimeSeries>,
    /// What limited a throughput or load result, one line
    /// ([`crate::bottleneck`]); absent for other benchmarks, without
    /// telemetry, and in runs stored before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bottleneck: Option<String>,
    /// The parts of the result that ran under one setting each (a thread
    /// count, an IOzone test, a LINPACK size), with their own spans and
    /// bottleneck lines; empty for a result measured as one piece.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub phases: Vec<Phase>,
    /// What disturbed it: other processes' CPU time on its CPUs, steal,
    /// throttle events, swap-ins ([`crate::disturbance`]); absent for runs
    /// stored before it existed and results recorded without the watch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disturbance: Option<Disturbance>,
}

/// One part of a result that ran under one setting: its labels are those of
/// the figures it produced, its span the seconds since the result started.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Phase {
    /// The labels that set it apart (`threads=2`, `test=write`), as on the
    /// metrics it produced.
    pub labels: BTreeMap<String, String>,
    /// Its start, seconds since the result started.
    pub start_s: f64,
    /// Its end, seconds since the result started.
    pub end_s: f64,
    /// What limited it ([`crate::bottleneck`]), one line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bottleneck: Option<String>,
    /// What disturbed it ([`crate::disturbance`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disturbance: Option<Disturbance>,
}

impl Phase {
    /// The labels as `key=value` words, in key order.
    pub fn describe(&self) -> String {
        self.labels
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Whether `m` carries every label of this phase.
    pub fn covers(&self, m: &Metric) -> bool {
        self.labels.iter().all(|(k, v)| m.labels.get(k) == Some(v))
    }
}

/// An imported result's parameter saying how its figures, none printed as
/// such, were derived (named for producers in `names`' `imported` module).
pub const DERIVED: &str = "derived";

impl BenchResult {
    /// True when the result was imported from a tool's output: some
    /// figure carries the form its source printed ([`Metric::printed`]);
    /// its figures without one are figures nodebench derived from them.
    /// A result whose every figure was derived says how ([`DERIVED`]).
    pub fn quotes_source(&self) -> bool {
        self.metrics.iter().any(|m| m.printed.is_some()) || self.parameters.contains_key(DERIVED)
    }

    /// An empty, passed result for `benchmark` starting now.
    pub fn new(benchmark: impl Into<String>) -> Self {
        let now = Utc::now();
        BenchResult {
            benchmark: benchmark.into(),
            parameters: BTreeMap::new(),
            status: ResultStatus::Passed,
            error: None,
            error_phase: None,
            warnings: Vec::new(),
            started_at: now,
            ended_at: now,
            metrics: Vec::new(),
            histograms: Vec::new(),
            series: Vec::new(),
            bottleneck: None,
            phases: Vec::new(),
            disturbance: None,
        }
    }

    /// Whether the result, or any of its phases, is disturbed.
    pub fn is_disturbed(&self) -> bool {
        self.disturbance.as_ref().is_some_and(|d| d.disturbed)
            || self
                .phases
                .iter()
                .any(|p| p.disturbance.as_ref().is_some_and(|d| d.disturbed))
    }

    /// Whether the figure `m` was measured while disturbed: in a disturbed
    /// phase that covers it, or, outside any phase, in a disturbed result.
    pub fn metric_disturbed(&self, m: &Metric) -> bool {
        let mut phases = self.phases.iter().filter(|p| p.covers(m)).peekable();
        if phases.peek().is_none() {
            return self.disturbance.as_ref().is_some_and(|d| d.disturbed);
        }
        phases.any(|p| p.disturbance.as_ref().is_some_and(|d| d.disturbed))
    }

    /// Its bottleneck lines, each as `bottleneck: LINE`, or
    /// `bottleneck [PHASE LABELS]: LINE` for a result that ran in phases.
    pub fn bottleneck_lines(&self) -> Vec<String> {
        let whole = self.bottleneck.iter().map(|b| format!("bottleneck: {b}"));
        let phases = self.phases.iter().filter_map(|p| {
            let b = p.bottleneck.as_deref()?;
            Some(format!("bottleneck [{}]: {b}", p.describe()))
        });
        whole.chain(phases).collect()
    }

    /// Hides every secret in the result's free text (its error, warnings
    /// and bottleneck lines): what a benchmark wrote there from a message
    /// that quoted a URL or a token. Called before a result is stored.
    pub fn redact_text(&mut self) {
        use crate::credentials::redact;
        if let Some(e) = &mut self.error {
            *e = redact(e);
        }
        for w in &mut self.warnings {
            *w = redact(w);
        }
        if let Some(b) = &mut self.bottleneck {
            *b = redact(b);
        }
    }

    /// Whether the benchmark failed without a result of its own (refused
    /// before it ran, or stopped with an error): this result only names it.
    pub fn never_produced(&self) -> bool {
        self.status == ResultStatus::Failed
            && matches!(self.error_phase.as_deref(), Some(PHASE_SETUP | PHASE_RUN))
    }

    /// Marks the result stopped part-way by the user; its metrics are kept.
    pub fn mark_cancelled(&mut self) {
        self.status = ResultStatus::Cancelled;
        self.error = Some("interrupted".into());
    }

    /// Marks the result failed with `error` (validation, I/O, refusal).
    pub fn mark_failed(&mut self, error: impl Into<String>) {
        self.status = ResultStatus::Failed;
        self.error = Some(crate::credentials::redact(&error.into()));
    }

    /// A result of `benchmark` that failed in `phase` with `error` and
    /// holds no figure: what a benchmark that stopped with an error leaves
    /// in its run.
    pub fn failure(benchmark: impl Into<String>, phase: &str, error: impl Into<String>) -> Self {
        let mut r = BenchResult::new(benchmark);
        r.mark_failed(error);
        r.error_phase = Some(phase.to_string());
        r
    }

    /// Records the parameter `key` (as given or defaulted; a text with its
    /// secrets hidden).
    pub fn set_param(&mut self, key: &str, value: impl Serialize) {
        // Text is kept with its secrets hidden (a URL's password, a
        // credential header), in lists and maps too.
        fn hide(v: serde_json::Value) -> serde_json::Value {
            use serde_json::Value;
            match v {
                Value::String(s) => Value::String(crate::credentials::redact_header(&s)),
                Value::Array(a) => Value::Array(a.into_iter().map(hide).collect()),
                Value::Object(o) => {
                    Value::Object(o.into_iter().map(|(k, v)| (k, hide(v))).collect())
                }
                v => v,
            }
        }
        let v = hide(serde_json::to_value(value).unwrap_or(serde_json::Value::Null));
        self.parameters.insert(key.to_string(), v);
    }

    /// The parameter `key`, when recorded.
    pub fn param(&self, key: &str) -> Option<&serde_json::Value> {
        self.parameters.get(key)
    }

    /// The first metric named `name` whose labels include every
    /// `(key, value)` pair of `labels` (other labels may be present).
    pub fn metric(&self, name: &str, labels: &[(&str, &str)]) -> Option<&Metric> {
        self.metrics
            .iter()
            .find(|m| m.name == name && m.has_labels(labels))
    }

    /// Every metric named `name`, in recorded order.
    pub fn metrics_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Metric> + 'a {
        self.metrics.iter().filter(move |m| m.name == name)
    }

    /// The first histogram named `name` whose labels include `labels`.
    pub fn histogram(&self, name: &str, labels: &[(&str, &str)]) -> Option<&Histogram> {
        self.histograms
            .iter()
            .find(|h| h.name == name && has_labels(&h.labels, labels))
    }

    /// The first time series named `name` whose labels include `labels`.
    pub fn series_named(&self, name: &str, labels: &[(&str, &str)]) -> Option<&TimeSeries> {
        self.series
            .iter()
            .find(|s| s.name == name && has_labels(&s.labels, labels))
    }
}

/// True when `have` holds every `(key, value)` of `want`.
fn has_labels(have: &BTreeMap<String, String>, want: &[(&str, &str)]) -> bool {
    want.iter()
        .all(|(k, v)| have.get(*k).is_some_and(|x| x == v))
}

/// The judgement of one acceptance threshold (`--assert`, a suite's
/// `thresholds`) against a run's results.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ThresholdVerdict {
    /// The threshold as written, e.g. `memory.stream bandwidth{kernel=triad} >= 20 GB/s`.
    pub threshold: String,
    /// Whether every metric it matched holds.
    pub passed: bool,
    /// The measured value set against the bound (of several matched, the
    /// one furthest on the wrong side), in `unit`; absent when none matched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured: Option<f64>,
    /// Unit of `measured`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<Unit>,
    /// How many metrics the threshold matched.
    pub matched: usize,
    /// Why it failed without a figure (nothing matched, another unit), or
    /// which metric of several was the worst.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// Why a run failed: its first failed result's benchmark, error and phase.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RunError {
    /// The benchmark that failed, e.g. `db.as3ap`.
    pub benchmark: String,
    /// What went wrong, with its secrets hidden.
    pub message: String,
    /// The phase it failed in ([`PHASE_SETUP`], [`PHASE_RUN`],
    /// [`PHASE_MEASURE`]); absent for results stored before version 3.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
}

/// One invocation of nodebench: what ran, where, and what came out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Run {
    /// Version of this model ([`SCHEMA_VERSION`]).
    pub schema_version: u32,
    /// Store id; absent when the run was not saved (`--no-save`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<i64>,
    /// When it started.
    pub started_at: DateTime<Utc>,
    /// When it ended; absent while running or when killed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<DateTime<Utc>>,
    /// Whether it finished.
    pub status: RunStatus,
    /// Version of the nodebench binary.
    pub nodebench_version: String,
    /// The build that made the run: commit, build date, target and glibc
    /// floor; absent in runs stored before nodebench recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<crate::build_info::BuildInfo>,
    /// The command line, argument by argument.
    pub command_line: Vec<String>,
    /// User tags (`--tag config=2cpu-4gb`).
    #[serde(default)]
    pub tags: BTreeMap<String, String>,
    /// The machine it ran on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inventory: Option<Inventory>,
    /// The benchmark results, in the order they finished.
    #[serde(default)]
    pub results: Vec<BenchResult>,
    /// Acceptance thresholds judged at the end of the run, in the order
    /// given; the run passes its acceptance when every one passed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verdicts: Vec<ThresholdVerdict>,
    /// Why the run failed: its first failed result's benchmark, error and
    /// phase; absent for a run without a failed result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<RunError>,
}

impl Run {
    /// A new, incomplete run starting now; `command_line` is kept with its
    /// secrets hidden ([`crate::credentials::redact_args`]), and so are the
    /// tags' values ([`crate::credentials::redact_tag`]).
    pub fn start(command_line: Vec<String>, tags: BTreeMap<String, String>) -> Self {
        let command_line = crate::credentials::redact_args(&command_line);
        let tags = tags
            .into_iter()
            .map(|(k, v)| {
                let v = crate::credentials::redact_tag(&k, &v);
                (k, v)
            })
            .collect();
        Run {
            schema_version: SCHEMA_VERSION,
            id: None,
            started_at: Utc::now(),
            ended_at: None,
            status: RunStatus::Incomplete,
            nodebench_version: env!("CARGO_PKG_VERSION").to_string(),
            build: crate::build_info::current(),
            command_line,
            tags,
            inventory: None,
            results: Vec::new(),
            verdicts: Vec::new(),
            error: None,
        }
    }

    /// Its first failed result's benchmark, error and phase, if any (what
    /// [`Run::error`] holds once the run is finished or read back).
    pub fn first_failure(&self) -> Option<RunError> {
        let r = self
            .results
            .iter()
            .find(|r| r.status == ResultStatus::Failed)?;
        Some(RunError {
            benchmark: r.benchmark.clone(),
            message: r.error.clone().unwrap_or_else(|| "failed".into()),
            phase: r.error_phase.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_and_errors_are_stored_without_secrets() {
        let mut r = BenchResult::new("x.y");
        r.set_param("db", "mysql://u:pw1@h/d");
        r.set_param(
            "headers",
            vec!["Authorization: Bearer pw2", "X-Trace: 1", "/p?token=pw3"],
        );
        r.mark_failed("cannot connect to postgres://u:pw4@h/d");
        let text = serde_json::to_string(&r).unwrap();
        for secret in ["pw1", "pw2", "pw3", "pw4"] {
            assert!(!text.contains(secret), "{secret}: {text}");
        }
        assert!(text.contains("X-Trace: 1"), "{text}");
        let run = Run::start(
            vec!["nodebench".into(), "--token".into(), "pw5".into()],
            BTreeMap::from([
                ("password".to_string(), "pw6".to_string()),
                ("db".to_string(), "mysql://u:pw7@h/x".to_string()),
            ]),
        );
        assert_eq!(run.command_line, ["nodebench", "--token", "***"]);
        assert_eq!(run.tags["password"], "***");
        assert_eq!(run.tags["db"], "mysql://u@h/x");
        let mut r = BenchResult::new("x.y");
        r.warnings
            .push("slow reply from http://h/p?token=pw8".into());
        r.redact_text();
        assert_eq!(r.warnings, ["slow reply from http://h/p?token=***"]);
    }

    #[test]
    fn percent_of_reference_is_computed() {
        let m = Metric::new("rate", 50.0, Unit::FlopsPerSecond, Better::Higher).with_reference(
            Some(Reference {
                name: "peak".into(),
                value: 200.0,
            }),
        );
        assert_eq!(m.percent_of_reference, Some(25.0));
    }

    #[test]
    fn metric_key_lists_labels_in_order() {
        let m = Metric::new("rate", 1.0, Unit::OpsPerSecond, Better::Higher)
            .label("threads", 4)
            .label("kernel", "f64.vector");
        assert_eq!(m.key(), "rate{kernel=f64.vector,threads=4}");
    }

    #[test]
    fn histograms_round_trip_through_base64() {
        let mut h = hdrhistogram::Histogram::<u64>::new(3).unwrap();
        for v in 1..=1000u64 {
            h.record(v * 1000).unwrap();
        }
        let m = Histogram::from_hdr("latency", Unit::Seconds, 1e9, BTreeMap::new(), &h);
        assert_eq!(m.count, 1000);
        let back = m.to_hdr().unwrap();
        assert_eq!(back.len(), 1000);
        assert_eq!(back.value_at_quantile(0.5), h.value_at_quantile(0.5));
    }

    #[test]
    fn unit_symbols_round_trip() {
        for u in [
            Unit::Bytes,
            Unit::FlopsPerSecond,
            Unit::Percent,
            Unit::Count,
        ] {
            assert_eq!(Unit::from_symbol(u.symbol()), Some(u));
            let json = serde_json::to_string(&u).unwrap();
            assert_eq!(json, format!("\"{}\"", u.symbol()));
        }
    }
}
