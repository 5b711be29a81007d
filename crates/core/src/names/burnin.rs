//! Names of the burn-in (`nodebench burnin`): the checkpoint results it
//! commits every interval, their metrics, parameters and the workload
//! names of the default mixed load.

/// One checkpoint of one workload (or of the machine's own error sources,
/// workload [`SYSTEM`]): throughput over the interval, iterations, errors.
pub const CHECKPOINT: &str = "burnin.checkpoint";

/// The workload name of the checkpoint that carries the machine's own error
/// sources (machine checks, EDAC, kernel log, thermal throttling) and the
/// interval's telemetry.
pub const SYSTEM: &str = "system";

/// Workload names of the default mixed load.
pub mod workload {
    /// CPU FMA kernels (`cpu.ops`).
    pub const CPU: &str = "cpu";
    /// STREAM with validation (`memory.stream`).
    pub const MEMORY: &str = "memory";
    /// Disk writes read back and verified (`disk.iozone --verify`).
    pub const DISK: &str = "disk";
    /// Loopback TCP (`net.tcp`).
    pub const TCP: &str = "tcp";
    /// HTTP against the built-in server or `--http-url` (`http.load`).
    pub const HTTP: &str = "http";
    /// Sustained multiplies on every NVIDIA GPU, compared (`gpu.burn`);
    /// in the default mix only where there is a GPU.
    pub const GPU: &str = "gpu";
}

/// Metric names of a checkpoint result.
pub mod metric {
    /// Mean throughput of the interval's iterations (the workload's unit).
    pub const THROUGHPUT_MEAN: &str = "throughput_mean";
    /// Lowest throughput of one iteration in the interval.
    pub const THROUGHPUT_MIN: &str = "throughput_min";
    /// Highest throughput of one iteration in the interval.
    pub const THROUGHPUT_MAX: &str = "throughput_max";
    /// Median throughput of the interval's iterations judged against the
    /// first window's median, as a percentage of it.
    pub const PERCENT_OF_BASELINE: &str = "percent_of_baseline";
    /// Median throughput of the first window (the degradation baseline).
    pub const BASELINE_MEDIAN: &str = "baseline_median";
    /// Short runs of the workload's benchmark finished in the interval.
    pub const ITERATIONS: &str = "iterations";
    /// Errors detected in the interval (failed iterations; for
    /// [`super::SYSTEM`], new machine events).
    pub const ERRORS: &str = "errors";
    /// For [`super::SYSTEM`], per power source (labelled as the energy
    /// figures are): the median of the interval's watts, read each second.
    pub const POWER_MEDIAN: &str = "power_median";
    /// Per power source: the median watts of the first window (the
    /// baseline power is held against).
    pub const POWER_BASELINE_MEDIAN: &str = "power_baseline_median";
    /// Per power source: the interval's median watts as a percentage of
    /// the first window's; above 100 % + `--degrade` it is a warning.
    pub const POWER_PERCENT_OF_BASELINE: &str = "power_percent_of_baseline";
}

/// Parameter names of a checkpoint result.
pub mod param {
    /// Which workload ([`super::workload`], or [`super::SYSTEM`]).
    pub const WORKLOAD: &str = "workload";
    /// Checkpoint number, from 1.
    pub const CHECKPOINT: &str = "checkpoint";
    /// What the throughput is: `BENCHMARK METRIC{LABELS}` of the workload's
    /// short runs.
    pub const THROUGHPUT_OF: &str = "throughput_of";
    /// Seconds since the burn-in started at the interval's start.
    pub const OFFSET_S: &str = "offset_s";
    /// The run's `--checkpoint` interval, seconds.
    pub const INTERVAL_S: &str = "interval_s";
    /// The run's `--degrade` threshold, %.
    pub const DEGRADE_PERCENT: &str = "degrade_percent";
    /// The machine error sources that could not be read (kernel log not
    /// readable, no EDAC controllers), for [`super::SYSTEM`].
    pub const UNREADABLE: &str = "unreadable";
}
