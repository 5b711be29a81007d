//! `nodebench cpu ...`: the flags of `cpu ops`, `cpu linpack`, `cpu fft` and
//! `cpu dgemm`, and the
//! one conversion of each into its benchmark's config.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use clap::{Args, Subcommand};
use nodebench_core::config::{Choice, UnknownChoice};
use nodebench_cpu::config::{Kernel, OpsConfig, Scaling};
use nodebench_cpu::fft::{FftConfig, FftMode};
use nodebench_linpack::config::{BlasChoice, FULL_MEMORY_FRACTION, LinpackConfig, Sizes};
use nodebench_linpack::dgemm::{DgemmConfig, DgemmMode};

use super::parse::{
    ThreadList, duration_text, or_default, parse_count, parse_duration, parse_threads,
};

/// `nodebench cpu ...`
#[derive(Debug, Subcommand)]
pub enum CpuCommand {
    /// Integer and floating-point operation rates (GIOPS, GFLOPS single and
    /// double precision) per thread count, scalar and vectorised FMA kernels,
    /// strong and weak scaling, as % of the theoretical peak
    /// (cores x clock x FLOP/cycle of the ISA).
    Ops(OpsArgs),
    /// LINPACK as HPL runs it: solve Ax = b (A random, entries uniform in
    /// [-0.5, 0.5]) by LU with partial pivoting, per order and trial, with
    /// HPL's residual check (PASSED when the normalised residual
    /// ||Ax-b||/(eps (||A|| ||x|| + ||b||) n) is below 16). GFLOPS count
    /// 2/3 n^3 + 3/2 n^2 operations per solve, as HPL does, and are shown as
    /// % of the theoretical peak.
    Linpack(LinpackArgs),
    /// HPC Challenge's FFT: a 1-D complex double-precision transform
    /// (rustfft), single (one core) and star (every core its own), GFLOPS
    /// as HPCC counts them (5 N log2 N / t), checked by the inverse
    /// transform and HPCC's scaled residual (fails above 16).
    Fft(FftArgs),
    /// HPC Challenge's DGEMM through nodebench's own packed GEMM (LINPACK's
    /// kernel): C = C - A B of order n, single (one core) and star (every
    /// core its own), GFLOPS (2 n^3 per multiply) and HPCC's residual check
    /// (fails above 16).
    Dgemm(DgemmArgs),
}

/// Options of `cpu dgemm`.
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

/// Options of `cpu fft`.
#[derive(Debug, Args)]
pub struct FftArgs {
    /// The share of each core's memory (MemTotal over the cores) the four
    /// vectors of N complex doubles may take; N is the largest power of two
    /// within it.
    #[arg(long, value_name = "F", default_value_t = FftConfig::default().memory_fraction)]
    pub memory_fraction: f64,
    /// The transform's length instead (as HPCC prints FFT_N: 1048576 = 2^20); any
    /// length >= 2 (HPCC takes only 2^a 3^b 5^c).
    #[arg(long, value_name = "N", value_parser = parse_count)]
    pub size: Option<u64>,
    /// Modes, in order: single, star.
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = FftConfig::default().modes)]
    pub modes: Vec<FftMode>,
    /// Threads of star. Default: every allowed CPU.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Timed forward transforms; the best counts.
    #[arg(long, value_name = "N", default_value_t = FftConfig::default().ntimes as u64, value_parser = parse_count)]
    pub ntimes: u64,
}

impl From<&FftArgs> for FftConfig {
    fn from(a: &FftArgs) -> FftConfig {
        FftConfig {
            memory_fraction: a.memory_fraction,
            size: a.size.map(|n| n as usize),
            modes: a.modes.clone(),
            threads: a.threads,
            ntimes: a.ntimes as usize,
        }
    }
}

/// Options of `cpu ops`.
#[derive(Debug, Args)]
pub struct OpsArgs {
    /// Thread counts: 1,2,4,8 or 1..8 or 1..16:x2 or all. Default: 1,2,4,8 and the CPU count.
    #[arg(long, value_name = "LIST", value_parser = parse_threads)]
    pub threads: Option<ThreadList>,
    /// Target time of one single-thread measurement (500ms, 2s).
    #[arg(long, value_name = "DURATION", default_value = duration_text(OpsConfig::default().duration), value_parser = parse_duration, allow_hyphen_values = true)]
    pub duration: Duration,
    /// Reported repeats per cell; the figure is their median.
    #[arg(long, value_name = "N", default_value_t = OpsConfig::default().repeats as u64, value_parser = parse_count)]
    pub repeats: u64,
    /// Unreported warm-up runs per cell.
    #[arg(long, value_name = "N", default_value_t = OpsConfig::default().warmup as u64)]
    pub warmup: u64,
    /// Kernels to run, comma-separated: int.scalar,int.vector,f32.scalar,f32.vector,f64.scalar,f64.vector (default all).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub kernels: Vec<Kernel>,
    /// Strong (fixed total work), weak (fixed work per thread) or both.
    #[arg(long, value_name = "SCALING", default_value_t = ScalingModes(OpsConfig::default().scaling))]
    pub scaling: ScalingModes,
    /// Do not pin threads to CPUs.
    #[arg(long)]
    pub no_pin: bool,
}

/// A `--scaling` value: one [`Scaling`] by name, or `both` (strong first).
#[derive(Debug, Clone, PartialEq)]
pub struct ScalingModes(pub Vec<Scaling>);

/// The `--scaling` name of every mode at once.
const BOTH: &str = "both";

impl FromStr for ScalingModes {
    type Err = UnknownChoice;

    fn from_str(s: &str) -> Result<ScalingModes, UnknownChoice> {
        if s == BOTH {
            return Ok(ScalingModes(Scaling::ALL.to_vec()));
        }
        match s.parse::<Scaling>() {
            Ok(one) => Ok(ScalingModes(vec![one])),
            Err(e) => Err(UnknownChoice {
                accepted: format!("{}, {BOTH}", e.accepted),
                ..e
            }),
        }
    }
}

impl fmt::Display for ScalingModes {
    /// `both` for every mode, else the names, comma-separated.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == Scaling::ALL {
            return f.write_str(BOTH);
        }
        let names: Vec<&str> = self.0.iter().map(|s| s.as_str()).collect();
        f.write_str(&names.join(","))
    }
}

impl From<&OpsArgs> for OpsConfig {
    fn from(a: &OpsArgs) -> OpsConfig {
        let d = OpsConfig::default();
        OpsConfig {
            threads: a.threads.as_ref().map_or(d.threads, |t| t.0.clone()),
            duration: a.duration,
            repeats: a.repeats as usize,
            warmup: a.warmup as usize,
            kernels: or_default(&a.kernels, d.kernels),
            scaling: a.scaling.0.clone(),
            pin: !a.no_pin,
        }
    }
}

/// Options of `cpu linpack`.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaling_modes_read_both_or_one_name_and_print_back() {
        assert_eq!("both".parse(), Ok(ScalingModes(Scaling::ALL.to_vec())));
        assert_eq!("weak".parse(), Ok(ScalingModes(vec![Scaling::Weak])));
        assert_eq!(ScalingModes(Scaling::ALL.to_vec()).to_string(), "both");
        assert_eq!(ScalingModes(vec![Scaling::Strong]).to_string(), "strong");
        assert_eq!(
            "sideways".parse::<ScalingModes>().unwrap_err().to_string(),
            "unknown value 'sideways' (accepted: strong, weak, both)"
        );
    }
}
