//! Benchmark ids, metric names, label keys and parameter names, written
//! once and used by the benchmark that produces a result, the reporters that
//! print it and the CLI: one module per area, and the label keys several
//! areas share here. They live in core, not in the area crates, so the
//! report layer (and importers of the classic tools' outputs) can name a
//! result without linking the engine that measures it.

pub mod burnin;
pub mod catalog;
pub mod cpu;
pub mod db;
pub mod disk;
pub mod energy;
pub mod fleet;
pub mod gpu;
pub mod headline;
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

/// The workload parameters of benchmark `id` that set only how much work
/// it does (array size, file and record size, bytes moved): results that
/// differ in these alone are compared unless `compare --strict`, with the
/// difference shown.
pub fn scale_params(id: &str) -> &'static [&'static str] {
    match id {
        memory::STREAM => &[memory::param::ARRAY_SIZE],
        linpack::LINPACK => &[linpack::param::N, linpack::param::LDA],
        memory::BLOCKS => &[memory::param::TOTAL_BYTES],
        disk::IOZONE => &[disk::param::FILE_SIZE, disk::param::RECORD_SIZE],
        disk::DD => &[disk::param::BLOCK_SIZE, disk::param::COUNT],
        disk::BLOCKS => &[disk::param::TOTAL_BYTES],
        _ => &[],
    }
}

/// The parameters that define the workload of benchmark `id` (its area's
/// `*WORKLOAD_PARAMS`): two results of `id` are compared only where these
/// agree. Empty for a benchmark whose labels say it all.
pub fn workload_params(id: &str) -> &'static [&'static str] {
    match id {
        cpu::OPS => cpu::WORKLOAD_PARAMS,
        linpack::LINPACK => linpack::WORKLOAD_PARAMS,
        memory::STREAM => memory::STREAM_WORKLOAD_PARAMS,
        memory::BLOCKS => memory::BLOCKS_WORKLOAD_PARAMS,
        memory::LATENCY => memory::LATENCY_WORKLOAD_PARAMS,
        disk::IOZONE => disk::IOZONE_WORKLOAD_PARAMS,
        disk::DD => disk::DD_WORKLOAD_PARAMS,
        disk::BLOCKS => disk::BLOCKS_WORKLOAD_PARAMS,
        net::TCP | net::UDP => net::THROUGHPUT_WORKLOAD_PARAMS,
        net::PINGPONG => net::PINGPONG_WORKLOAD_PARAMS,
        http::LOAD => http::LOAD_WORKLOAD_PARAMS,
        http::SWEEP => http::SWEEP_WORKLOAD_PARAMS,
        db::AS3AP => db::AS3AP_WORKLOAD_PARAMS,
        _ => &[],
    }
}
