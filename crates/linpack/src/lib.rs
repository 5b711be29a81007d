//! LINPACK as HPL and Intel's optimized LINPACK run it: solve Ax = b for a
//! seeded random A by LU factorisation with partial pivoting, multithreaded,
//! over a size sweep with several trials each; every solution is checked by
//! HPL's normalised residual, and GFLOPS are set against the theoretical
//! peak. The solver is the pure-Rust LU (faer) or the node's BLAS loaded at
//! run time (`--blas`).
//!
//! - matrix.rs: the seeded system, leading dimension, memory sizing, and the
//!   residual check.
//! - rust.rs: the faer backend. blas.rs: dlopen'd dgesv (OpenBLAS, MKL,
//!   libFLAME, any LAPACK). backend.rs: `--blas` and `auto`'s calibration.

pub mod backend;
pub mod blas;
pub mod matrix;
pub mod rust;

use nodebench_core::bench::{BenchError, Benchmark, Context};
use nodebench_core::buffer::FIT_FRACTION;
use nodebench_core::inventory::available_memory_bytes;
use nodebench_core::peak;
use nodebench_core::units::format_bytes;
use nodebench_core::{BenchResult, Better, Metric, Reference, Unit};

use crate::backend::{BlasChoice, Selection, select};
use crate::matrix::{Kind, System, THRESHOLD, bytes_needed, largest_order};

/// Floating-point operations HPL counts for a system of order `n`:
/// 2/3 n^3 + 3/2 n^2.
pub fn flops(n: usize) -> f64 {
    let n = n as f64;
    2.0 / 3.0 * n * n * n + 1.5 * n * n
}

/// The orders Intel's sample run uses, and ours by default.
pub const DEFAULT_SIZES: [usize; 4] = [1000, 2000, 5000, 10000];

/// The memory fraction `--full` uses when `--memory-fraction` is not given.
pub const FULL_MEMORY_FRACTION: f64 = 0.8;

/// Which orders to solve.
#[derive(Debug, Clone, PartialEq)]
pub enum Sizes {
    /// These orders, in this order.
    List(Vec<usize>),
    /// The largest order whose system fits in this fraction of the memory
    /// available when the run starts.
    MemoryFraction(f64),
}

/// Options of `cpu linpack`.
#[derive(Debug, Clone)]
pub struct LinpackConfig {
    /// Orders to solve.
    pub sizes: Sizes,
    /// Trials per order.
    pub trials: usize,
    /// The backend.
    pub blas: BlasChoice,
    /// Solver threads (default: every CPU this process may run on).
    pub threads: Option<usize>,
    /// Ask for transparent huge pages for A.
    pub hugepages: bool,
    /// Seed of the random matrix.
    pub seed: u64,
    /// The matrix to build: random, or (for tests) exactly singular.
    pub matrix: Kind,
}

impl Default for LinpackConfig {
    fn default() -> Self {
        LinpackConfig {
            sizes: Sizes::List(DEFAULT_SIZES.to_vec()),
            trials: 4,
            blas: BlasChoice::Auto,
            threads: None,
            hugepages: true,
            seed: 42,
            matrix: Kind::Random,
        }
    }
}

/// The `cpu.linpack` benchmark: one result per order.
pub struct Linpack {
    /// What to run.
    pub config: LinpackConfig,
}

impl Linpack {
    /// The orders to solve, each checked against the memory available now,
    /// before anything is allocated.
    fn orders(&self) -> Result<Vec<usize>, BenchError> {
        let available = available_memory_bytes();
        match &self.config.sizes {
            Sizes::MemoryFraction(f) => {
                if !(*f > 0.0 && *f <= 1.0) {
                    return Err(BenchError::Invalid(format!(
                        "--memory-fraction: expected a fraction in (0, 1], got {f}"
                    )));
                }
                let avail = available.ok_or_else(|| {
                    BenchError::System(
                        "--memory-fraction: available memory is unknown (no MemAvailable in /proc/meminfo); give --sizes".into(),
                    )
                })?;
                let n = largest_order((avail as f64 * f) as u64);
                if n < 8 {
                    return Err(BenchError::System(format!(
                        "--memory-fraction {f}: {} of {} available is too little for any system",
                        format_bytes((avail as f64 * f) as u64),
                        format_bytes(avail)
                    )));
                }
                Ok(vec![n])
            }
            Sizes::List(sizes) => {
                if sizes.is_empty() || sizes.contains(&0) {
                    return Err(BenchError::Invalid(
                        "--sizes: expected positive orders, e.g. 1000,2000,5000".into(),
                    ));
                }
                if let Some(avail) = available {
                    let budget = (avail as f64 * FIT_FRACTION) as u64;
                    if let Some(&n) = sizes.iter().find(|&&n| bytes_needed(n) > budget) {
                        return Err(BenchError::Invalid(format!(
                            "--sizes: n = {n} needs {} but only {} is available; the largest that fits is n = {} (or use --full)",
                            format_bytes(bytes_needed(n)),
                            format_bytes(avail),
                            largest_order(budget)
                        )));
                    }
                }
                Ok(sizes.clone())
            }
        }
    }
}

impl Benchmark for Linpack {
    fn id(&self) -> &'static str {
        "cpu.linpack"
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        let c = &self.config;
        if c.trials == 0 {
            return Err(BenchError::Invalid(
                "--trials: expected a positive count".into(),
            ));
        }
        let orders = self.orders()?;
        let threads = c
            .threads
            .unwrap_or_else(|| nodebench_core::affinity::allowed_cpus().len().max(1));
        let Selection { solver, notes } = select(&c.blas, threads).map_err(BenchError::System)?;
        let peak = peak::theoretical_peak(ctx.inventory, peak::all_core_clock);
        let reference = peak.as_ref().ok().map(|p| Reference {
            name: p.describe(true),
            value: p.dp_flops(),
        });

        for &n in &orders {
            if ctx.cancel.is_cancelled() {
                break;
            }
            let mut system = System::new(n, c.seed, c.matrix, c.hugepages, "--sizes")
                .map_err(BenchError::System)?;
            let lda = system.lda;
            let mut result = BenchResult::new(self.id());
            result.set_param("n", n);
            result.set_param("lda", lda);
            result.set_param("align_kib", system.alignment() / 1024);
            result.set_param("trials", c.trials);
            result.set_param("threads", threads);
            result.set_param("backend", solver.name());
            result.set_param("backend_version", solver.version());
            if !notes.is_empty() {
                result.set_param("backend_selection", &notes);
            }
            result.set_param("flops_counted", "2/3 n^3 + 3/2 n^2 per solve, as HPL");
            result.set_param("seed", c.seed);
            match &peak {
                Ok(p) => result.set_param("peak", p.describe(true)),
                Err(why) => result.set_param("peak", format!("unknown: {why}")),
            }

            ctx.progress
                .start(&format!("linpack n={n}"), c.trials as u64);
            let mut rates = Vec::new();
            let mut failures = Vec::new();
            for trial in 1..=c.trials {
                if ctx.cancel.is_cancelled() {
                    break;
                }
                system.fill(threads);
                let mut x = system.rhs();
                let secs = match solver.solve(n, system.matrix_mut(), lda, &mut x) {
                    Ok(time) => time.as_secs_f64(),
                    Err(e) => {
                        failures.push(format!("trial {trial}: {e}"));
                        break;
                    }
                };
                let residual = system.check(&x, threads);
                let rate = flops(n) / secs;
                rates.push(rate);
                result.metrics.push(
                    Metric::new("time", secs, Unit::Seconds, Better::Lower).label("trial", trial),
                );
                result.metrics.push(
                    Metric::new("rate", rate, Unit::FlopsPerSecond, Better::Higher)
                        .label("trial", trial)
                        .with_reference(reference.clone()),
                );
                result.metrics.push(
                    Metric::new("residual", residual.residual, Unit::Count, Better::Lower)
                        .label("trial", trial),
                );
                result.metrics.push(
                    Metric::new(
                        "residual_norm",
                        residual.normalised,
                        Unit::Count,
                        Better::Lower,
                    )
                    .label("trial", trial),
                );
                if !residual.passed() {
                    failures.push(format!(
                        "trial {trial}: normalised residual {:.6e} is not below {THRESHOLD} (FAILED)",
                        residual.normalised
                    ));
                }
                ctx.progress.advance(1);
            }
            ctx.progress.finish();
            if !rates.is_empty() {
                let avg = rates.iter().sum::<f64>() / rates.len() as f64;
                let max = rates.iter().cloned().fold(0.0, f64::max);
                for (name, v) in [("rate_average", avg), ("rate_maximal", max)] {
                    result.metrics.push(
                        Metric::new(name, v, Unit::FlopsPerSecond, Better::Higher)
                            .with_reference(reference.clone()),
                    );
                }
            }
            if !failures.is_empty() {
                result.mark_failed(failures.join("; "));
            } else if ctx.cancel.is_cancelled() {
                result.mark_cancelled();
            }
            ctx.sink.record(result)?;
        }
        Ok(())
    }
}
