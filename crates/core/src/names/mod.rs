//! Benchmark ids, metric names, label keys and parameter names, written
//! once and used by the benchmark that produces a result, the reporters that
//! print it and the CLI: one module per area, and the label keys several
//! areas share here. They live in core, not in the area crates, so the
//! report layer (and importers of the classic tools' outputs) can name a
//! result without linking the engine that measures it.

pub mod burnin;
pub mod cpu;
pub mod db;
pub mod disk;
pub mod energy;
pub mod fleet;
pub mod gpu;
pub mod hpcc;
pub mod http;
pub mod linpack;
pub mod memory;
pub mod net;
pub mod scan;
pub mod slurm;
pub mod suite;
pub mod sysbench;
pub mod telemetry;

/// Label keys used by more than one area.
pub mod labels {
    /// Worker thread count of a cell.
    pub const THREADS: &str = "threads";
    /// Block, record or message size of a cell, in bytes.
    pub const SIZE: &str = "size";
    /// Which kernel or operation a metric belongs to.
    pub const KERNEL: &str = "kernel";
    /// Percentile of a latency figure (`50`, `99.9`).
    pub const PERCENTILE: &str = "percentile";
}

/// Parameters of imported results.
pub mod imported {
    /// The label keys whose values nodebench derived rather than read from
    /// the source, comma-separated (`threads` of a STREAM that printed no
    /// thread count: it ran one): shown marked derived.
    pub const DERIVED_LABELS: &str = "derived_labels";
    /// How an imported result's figures were derived from the source's, in
    /// words, where none is one the source printed (HPCC's StarSTREAM times
    /// the processes).
    pub const DERIVED: &str = crate::model::DERIVED;
}

/// Parameters of results set against the theoretical peak
/// (`cpu.ops`, `cpu.linpack`).
pub mod peak {
    /// The cores the peak counts (effective cores where measured, else
    /// physical): one core's share of the peak is the peak over this.
    pub const PEAK_CORES: &str = "peak_cores";
}

/// Latency summary metrics several areas record (disk operations, network
/// round trips, HTTP sweep steps), in seconds.
pub mod latency {
    /// Median latency.
    pub const LATENCY_P50: &str = "latency_p50";
    /// 90th percentile latency.
    pub const LATENCY_P90: &str = "latency_p90";
    /// 99th percentile latency.
    pub const LATENCY_P99: &str = "latency_p99";
    /// 99.9th percentile latency.
    pub const LATENCY_P999: &str = "latency_p999";
    /// Longest latency.
    pub const LATENCY_MAX: &str = "latency_max";
    /// Shortest latency.
    pub const LATENCY_MIN: &str = "latency_min";
    /// Mean latency.
    pub const LATENCY_MEAN: &str = "latency_mean";
    /// Latency at the percentile the [`super::labels::PERCENTILE`] label
    /// holds: the tools' own percentile tables (fio's clat percentiles,
    /// sysbench's `--percentile`).
    pub const LATENCY_PERCENTILE: &str = "latency_percentile";
}
