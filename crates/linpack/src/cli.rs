//! The flags of `cpu linpack` and `cpu dgemm` (HPC Challenge's DGEMM), and
//! the one conversion of each into its benchmark's config.

use clap::Args;
use nodebench_core::bench::{BenchError, Benchmark};
use nodebench_core::cli::parse::parse_count;
use nodebench_core::cli::{BenchArgs, Runnable};
use nodebench_core::names::{cpu, linpack};

use crate::config::{BlasChoice, FULL_MEMORY_FRACTION, LinpackConfig, Sizes};
use crate::dgemm::{DgemmConfig, DgemmMode};

/// HPC Challenge's DGEMM through nodebench's own packed GEMM (LINPACK's
/// kernel): C = C - A B of order n, single (one core) and star (every
/// core its own), GFLOPS (2 n^3 per multiply) and HPCC's residual check
/// (fails above 16).
#[derive(Debug, Args)]
pub struct DgemmArgs {
    /// The share of each core's memory (MemTotal over the cores) the three
    /// matrices (24 n^2 bytes) may take; the order is the largest that fits.
    #[arg(long, value_name = "F", default_value_t = DgemmConfig::default().memory_fraction)]
    pub memory_fraction: f64,
    /// The matrix order instead (HPCC's DGEMM_N).
    #[arg(long, value_name = "N", value_parser = parse_count)]
    pub order: Option<u64>,
    /// Modes, in order: single, star.
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = DgemmConfig::default().modes)]
    pub modes: Vec<DgemmMode>,
    /// Threads of star. Default: every allowed CPU.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Timed multiplies; the best counts.
    #[arg(long, value_name = "N", default_value_t = DgemmConfig::default().ntimes as u64, value_parser = parse_count)]
    pub ntimes: u64,
    /// Whose multiply: rust (nodebench's own packed GEMM, the default),
    /// openblas, mkl, flame, auto (the first of those found, else rust) or
    /// a library path; a BLAS is set to one thread, as HPCC runs one
    /// single-threaded multiply per core.
    #[arg(long, value_name = "BACKEND", default_value_t = DgemmConfig::default().blas)]
    pub blas: BlasChoice,
}

impl From<&DgemmArgs> for DgemmConfig {
    fn from(a: &DgemmArgs) -> DgemmConfig {
        DgemmConfig {
            memory_fraction: a.memory_fraction,
            order: a.order.map(|n| n as usize),
            modes: a.modes.clone(),
            threads: a.threads,
            ntimes: a.ntimes as usize,
            blas: a.blas.clone(),
        }
    }
}

/// LINPACK as HPL runs it: solve Ax = b (A random, entries uniform in
/// [-0.5, 0.5]) by LU with partial pivoting, per order and trial, with
/// HPL's residual check (PASSED when the normalised residual
/// ||Ax-b||/(eps (||A|| ||x|| + ||b||) n) is below 16). GFLOPS count
/// 2/3 n^3 + 3/2 n^2 operations per solve, as HPL does, and are shown as
/// % of the theoretical peak.
#[derive(Debug, Args)]
pub struct LinpackArgs {
    /// Orders of the systems (problem sizes), e.g. 1000,2000,5000,10000 (the default).
    #[arg(long, value_name = "LIST", value_delimiter = ',', value_parser = parse_order, conflicts_with_all = ["full", "memory_fraction"])]
    pub sizes: Vec<usize>,
    /// Trials per order.
    #[arg(long, value_name = "N", default_value_t = LinpackConfig::default().trials as u64, value_parser = parse_count)]
    pub trials: u64,
    /// Solver: auto (the fastest found, after a short calibration), rust
    /// (pure Rust, always there), openblas, mkl, flame (libFLAME), or the
    /// path of a library exporting LAPACK's dgesv_. Libraries are loaded at
    /// run time; $NODEBENCH_BLAS_DIRS (colon-separated) overrides where they
    /// are looked for.
    #[arg(long, value_name = "BACKEND", default_value_t = LinpackConfig::default().blas)]
    pub blas: BlasChoice,
    /// Solver threads (default: every CPU this process may use).
    #[arg(long, value_name = "N", value_parser = parse_count)]
    pub threads: Option<u64>,
    /// Solve the largest system that fits in this fraction of the memory
    /// available now (0 < F <= 1).
    #[arg(long, value_name = "F", value_parser = parse_fraction)]
    pub memory_fraction: Option<f64>,
    /// Solve the largest system that fits in 80 % of available memory (or --memory-fraction).
    #[arg(long)]
    pub full: bool,
    /// Do not ask for transparent huge pages for the matrix.
    #[arg(long)]
    pub no_hugepages: bool,
    /// Seed of the random matrix.
    #[arg(long, value_name = "N", default_value_t = LinpackConfig::default().seed)]
    pub seed: u64,
}

/// An order (matrix size); whether it is positive is the config's check.
fn parse_order(s: &str) -> Result<usize, String> {
    s.trim().parse().map_err(|_| {
        format!("expected positive orders (matrix sizes) such as 1000,2000,5000, got '{s}'")
    })
}

/// A memory fraction; whether it is in (0, 1] is the config's check.
fn parse_fraction(s: &str) -> Result<f64, String> {
    s.trim().parse().map_err(|_| {
        format!("expected a fraction of available memory in (0, 1], such as 0.8, got '{s}'")
    })
}

impl From<&LinpackArgs> for LinpackConfig {
    fn from(a: &LinpackArgs) -> LinpackConfig {
        let d = LinpackConfig::default();
        let sizes = if let Some(f) = a.memory_fraction {
            Sizes::MemoryFraction(f)
        } else if a.full {
            Sizes::MemoryFraction(FULL_MEMORY_FRACTION)
        } else if a.sizes.is_empty() {
            d.sizes
        } else {
            Sizes::List(a.sizes.clone())
        };
        LinpackConfig {
            sizes,
            trials: a.trials as usize,
            blas: a.blas.clone(),
            threads: a.threads.map(|t| t as usize).or(d.threads),
            hugepages: !a.no_hugepages,
            seed: a.seed,
            ..d
        }
    }
}

impl BenchArgs for LinpackArgs {
    const ID: &'static str = linpack::LINPACK;

    fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        Ok(Box::new(crate::Linpack {
            config: self.into(),
        }))
    }
}

impl BenchArgs for DgemmArgs {
    const ID: &'static str = cpu::HPCC_DGEMM;

    fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        Ok(Box::new(crate::dgemm::HpccDgemm {
            config: self.into(),
        }))
    }
}

/// The benchmarks of this crate, as the CLI and the suites run them.
pub const RUNNABLE: &[Runnable] = &[Runnable::of::<LinpackArgs>(), Runnable::of::<DgemmArgs>()];
