//! The benchmark registry: one [`Descriptor`] per runnable benchmark, and
//! [`ALL`], the one list every layer walks.
//!
//! A descriptor says what a benchmark is to every layer above the area
//! crate that measures it: its id, the subcommand that runs it, whether a
//! suite step (and so a burn-in workload) may name it, its metric catalog
//! (metrics with their units, label keys with their values), its headline
//! figure (what `--repeat auto` converges on), the rate a burn-in watches,
//! which of its parameters define its workload or only its scale (what
//! `compare` matches results on), whether the bottleneck rules give its
//! results a line, and how its results print.
//!
//! Ids, metric names and label keys stay written once, in
//! [`crate::names`]; a descriptor only refers to them. The layers that
//! hold code of their own per benchmark key it by the descriptor's id, and
//! the architecture test (`crates/cli/tests/it/architecture.rs`) checks
//! them against this list: the CLI's subcommands (each benchmark
//! subcommand has exactly one descriptor, each descriptor's command
//! exists), the reporters and charts of `nodebench-report`, and the
//! bottleneck rules of `nodebench-machine`.
//!
//! Adding a benchmark: DESIGN.md, "How to add a benchmark".

pub mod catalog;
mod cpu;
mod db;
mod disk;
mod gpu;
pub mod headline;
mod http;
mod memory;
mod net;
mod other;

use catalog::{LabelSpec, MetricSpec};

/// A metric and the labels that pick one figure of it: a headline, or the
/// rate a burn-in watches.
#[derive(Debug, Clone, Copy)]
pub struct Figure {
    /// The metric's name.
    pub metric: &'static str,
    /// The labels the metric must carry; when no metric of a result
    /// carries them (IOzone run without its write test), any metric of
    /// that name is taken.
    pub labels: &'static [(&'static str, &'static str)],
}

impl Figure {
    /// `rate` or `bandwidth{kernel=triad}`, for the printed line.
    pub fn describe(&self) -> String {
        if self.labels.is_empty() {
            return self.metric.to_string();
        }
        let labels: Vec<String> = self
            .labels
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        format!("{}{{{}}}", self.metric, labels.join(","))
    }
}

/// A [`Figure`], in the descriptors' tables.
pub(crate) const fn fig(
    metric: &'static str,
    labels: &'static [(&'static str, &'static str)],
) -> Figure {
    Figure { metric, labels }
}

/// An HPC Challenge test (`id`, run by `command`): its `metrics`, its
/// `labels` (the modes HPCC runs it in), the `headline` metric; printed
/// with HPCC's summary names, no burn-in rate, no workload parameters and
/// no bottleneck line (HPCC's figures are the whole node's).
pub(crate) const fn hpcc_test(
    id: &'static str,
    command: &'static [&'static str],
    metrics: &'static [MetricSpec],
    labels: &'static [LabelSpec],
    headline: &'static str,
) -> Descriptor {
    Descriptor {
        id,
        command,
        suite_step: true,
        metrics,
        labels,
        headline: fig(headline, &[]),
        watched: None,
        scale_params: &[],
        workload_params: &[],
        bottleneck: Bottleneck::None,
        report: Report::Hpcc,
        charts: &[],
        chart_title: &[],
    }
}

/// One runnable benchmark, as every layer sees it.
#[derive(Debug)]
pub struct Descriptor {
    /// The benchmark id results carry (`disk.dd`).
    pub id: &'static str,
    /// The subcommand words that run it (`["disk", "dd"]`; `["memory",
    /// "gups"]` for HPCC's RandomAccess, whose id the import fixed).
    pub command: &'static [&'static str],
    /// Whether a suite step may name it (`bench = "disk.dd"`, its
    /// parameters the subcommand's long flags); a burn-in runs suite steps
    /// whose descriptor has a [`Descriptor::watched`] rate.
    pub suite_step: bool,
    /// Every metric its results may hold.
    pub metrics: &'static [MetricSpec],
    /// Every label key its metrics may carry.
    pub labels: &'static [LabelSpec],
    /// Its headline figure: among the result's metrics matching it, the
    /// best by orientation ([`crate::registry::headline::of`]).
    pub headline: Figure,
    /// The rate a burn-in watches in its results, where it may be a
    /// burn-in workload.
    pub watched: Option<Figure>,
    /// The workload parameters that set only how much work it does (array
    /// size, file and record size, bytes moved): results that differ in
    /// these alone are compared unless `compare --strict`.
    pub scale_params: &'static [&'static str],
    /// The parameters that define its workload: two results are compared
    /// only where these agree. Empty where its labels say it all.
    pub workload_params: &'static [&'static str],
    /// How the bottleneck rules treat its results.
    pub bottleneck: Bottleneck,
    /// How its results print in the terminal.
    pub report: Report,
    /// The charts the HTML report draws from its results.
    pub charts: &'static [Chart],
    /// The parameters that name a workload in a chart's title
    /// (`http.load model=open rate=2000`), for benchmarks whose runs
    /// record several results each (the quick suite's closed and open
    /// loads, TCP and UDP ping-pong).
    pub chart_title: &'static [&'static str],
}

/// A chart the HTML report draws from a benchmark's results. Each kind's
/// drawing is in `nodebench-report` (`html::charts::draw`, one arm per
/// kind), the way [`Report`] names a terminal style; kinds appear in the
/// report in this enum's order, a kind's charts in [`ALL`]'s order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chart {
    /// `metric` by the `threads` label, the theoretical peak dashed: a
    /// chart per value of the `chart_by` labels, a series per value of the
    /// `series_by` labels (and run); bars where a chart's figures share one
    /// thread count or state none (imports).
    Scaling {
        /// The metric charted.
        metric: &'static str,
        /// The labels whose values split the charts.
        chart_by: &'static [&'static str],
        /// The labels whose values split the series.
        series_by: &'static [&'static str],
    },
    /// LINPACK's rate and residual by matrix order, one series per run.
    ByOrder,
    /// Load-to-use latency by working-set size, the caches' staircase.
    LatencyStaircase,
    /// Latency against the traffic threads' bandwidth: MLC's
    /// loaded-latency curve, the idle latency and the knee marked.
    LoadedLatency,
    /// Bandwidth by file and record size, a heat map per test and run
    /// (IOzone's automatic mode).
    HeatMap,
    /// Latency by percentile from the results' histograms named
    /// `histogram` (an import's printed percentiles where it has none), a
    /// chart per result, overlaid across runs.
    Percentiles {
        /// The histograms' (and the latency metric's) name.
        histogram: &'static str,
    },
    /// The per-second (or per-interval) series named `series`, a chart per
    /// result, overlaid across runs.
    TimeSeries {
        /// The series' name.
        series: &'static str,
    },
    /// The request rate by users, each run's saturation point marked.
    Sweep,
    /// Bandwidth bars per GPU: a group per value of the `by` labels, a bar
    /// per run.
    GpuBars {
        /// The labels whose values make the groups.
        by: &'static [&'static str],
    },
    /// The rate by matrix order per GPU, a line per precision and run.
    GpuByOrder,
}

impl Chart {
    /// Where the kind's charts stand in the report: this enum's order, the
    /// GPU charts together (a GPU's bars and its GEMM line in [`ALL`]'s
    /// order).
    pub fn rank(&self) -> usize {
        match self {
            Chart::Scaling { .. } => 0,
            Chart::ByOrder => 1,
            Chart::LatencyStaircase => 2,
            Chart::LoadedLatency => 3,
            Chart::HeatMap => 4,
            Chart::Percentiles { .. } => 5,
            Chart::TimeSeries { .. } => 6,
            Chart::Sweep => 7,
            Chart::GpuBars { .. } | Chart::GpuByOrder => 8,
        }
    }
}

/// How a benchmark's results print in the terminal: the generic table, or
/// the way its classic tool prints them. `nodebench-report` holds each
/// style's code (`reporters::reporter`, one arm per style).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Report {
    /// The generic table: a column per thread count (or a row per count).
    Table,
    /// Intel's LINPACK: every order in one table, one performance summary.
    Linpack,
    /// Intel MLC's latency and bandwidth matrices.
    MlcMatrices,
    /// Intel MLC's loaded-latency table.
    MlcLoadedLatency,
    /// IOzone's report.
    Iozone,
    /// The generic table, then dd's closing lines.
    Dd,
    /// ab's and httperf's figures.
    HttpLoad,
    /// JMeter's Summary Report per step.
    HttpSweep,
    /// The generic table with the per-second series, then wget's line.
    Wget,
    /// The hardening scan's findings.
    Scan,
    /// AS3AP's load, query and multi-user tables, a run's results together.
    As3ap,
    /// The TPC-C-derived workload's tables, a run's results together.
    Tpcc,
    /// A burn-in's checkpoints, together.
    Burnin,
    /// gpu-burn's per-GPU lines.
    GpuBurn,
    /// HPCC's summary names, a run's HPCC results together.
    Hpcc,
    /// The link matrix as server x client tables.
    FleetLinks,
}

/// How the bottleneck rules (`nodebench-machine`'s `bottleneck`) treat a
/// benchmark's results.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bottleneck {
    /// No line: it measures no throughput or rate under load.
    None,
    /// A line per result (or phase): it measures a throughput or a rate
    /// under load.
    Attributed,
    /// [`Bottleneck::Attributed`], and its `threads` are every thread doing
    /// the work (the rule of threads busy on their CPUs).
    AllThreadsWork,
}

/// Every runnable benchmark, one line each. The suite steps are listed in
/// the order `suite` names them in its messages.
pub static ALL: &[Descriptor] = &[
    cpu::OPS,
    cpu::SWITCH,
    cpu::LINPACK,
    memory::STREAM,
    memory::BLOCKS,
    memory::LATENCY,
    memory::NUMA,
    memory::LOADED_LATENCY,
    disk::IOZONE,
    disk::DD,
    disk::BLOCKS,
    disk::FSYNC,
    net::TCP,
    net::UDP,
    net::PINGPONG,
    http::LOAD,
    http::SWEEP,
    http::DOWNLOAD,
    db::AS3AP,
    db::TPCC,
    gpu::STREAM,
    gpu::GEMM,
    gpu::BANDWIDTH,
    gpu::BURN,
    cpu::HPCC_DGEMM,
    cpu::HPCC_FFT,
    memory::HPCC_PTRANS,
    memory::HPCC_RANDOM_ACCESS,
    other::SCAN,
    other::IDLE,
    other::LINKS,
    other::CHECKPOINT,
];

/// The descriptor of benchmark `id`, if it is a runnable benchmark.
pub fn get(id: &str) -> Option<&'static Descriptor> {
    ALL.iter().find(|d| d.id == id)
}

/// The benchmarks a suite step may name, in [`ALL`]'s order.
pub fn suite_steps() -> impl Iterator<Item = &'static Descriptor> {
    ALL.iter().filter(|d| d.suite_step)
}

/// The descriptor whose subcommand is `words` (`["disk", "dd"]`).
pub fn by_command(words: &[&str]) -> Option<&'static Descriptor> {
    ALL.iter().find(|d| d.command == words)
}

/// The workload parameters of benchmark `id` that set only how much work
/// it does (its descriptor's
/// [`scale_params`](Descriptor::scale_params)): results
/// that differ in these alone are compared unless `compare --strict`, with
/// the difference shown.
pub fn scale_params(id: &str) -> &'static [&'static str] {
    get(id).map_or(&[], |d| d.scale_params)
}

/// The parameters that define the workload of benchmark `id` (its
/// descriptor's
/// [`workload_params`](Descriptor::workload_params)): two
/// results of `id` are compared only where these agree. Empty for a
/// benchmark whose labels say it all, and for one not in the registry.
pub fn workload_params(id: &str) -> &'static [&'static str] {
    get(id).map_or(&[], |d| d.workload_params)
}

#[cfg(test)]
mod tests;
