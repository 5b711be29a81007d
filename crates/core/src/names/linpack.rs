//! Names of the LINPACK benchmark's results (one result per order).

/// Benchmark id of LINPACK.
pub const LINPACK: &str = "cpu.linpack";

/// Metric: seconds of one trial's solve (factorisation and triangular solves).
pub const TIME: &str = "time";
/// Metric: flop per second of one trial, HPL's count over its time.
pub const RATE: &str = "rate";
/// Metric: ||Ax - b||_inf of one trial's solution.
pub const RESIDUAL: &str = "residual";
/// Metric: HPL's normalised residual of one trial's solution (passes below 16).
pub const RESIDUAL_NORM: &str = "residual_norm";
/// Metric: the mean rate over the trials, as Intel's Performance Summary.
pub const RATE_AVERAGE: &str = "rate_average";
/// Metric: the best rate over the trials, as Intel's Performance Summary.
pub const RATE_MAXIMAL: &str = "rate_maximal";

/// Label keys of the LINPACK figures.
pub mod label {
    /// The trial a figure belongs to, from 1.
    pub const TRIAL: &str = "trial";
}

/// Parameter names of a LINPACK result.
pub mod param {
    /// Order of the system (Intel's `Size`).
    pub const N: &str = "n";
    /// Leading dimension of A (Intel's `LDA`).
    pub const LDA: &str = "lda";
    /// Alignment of A's first element, in KiB (Intel's `Align.`).
    pub const ALIGN_KIB: &str = "align_kib";
    /// Trials run per order.
    pub const TRIALS: &str = "trials";
    /// Solver threads.
    pub const THREADS: &str = "threads";
    /// Short name of the solver: rust, openblas, mkl, flame or lapack.
    pub const BACKEND: &str = "backend";
    /// The solver's version and origin.
    pub const BACKEND_VERSION: &str = "backend_version";
    /// How `--blas auto` picked the solver, one line per candidate.
    pub const BACKEND_SELECTION: &str = "backend_selection";
    /// How the flop of a solve are counted.
    pub const FLOPS_COUNTED: &str = "flops_counted";
    /// Seed of the random matrix.
    pub const SEED: &str = "seed";
    /// The theoretical peak the rates are set against, in words (`unknown:
    /// why` when it could not be computed).
    pub const PEAK: &str = "peak";
}

/// Parameters that define a LINPACK workload: results differing in one of
/// them are not compared.
pub const WORKLOAD_PARAMS: &[&str] = &[param::N, param::LDA, param::THREADS];
