//! LINPACK as HPL and Intel's optimized LINPACK run it: solve Ax = b for a
//! seeded random A by LU factorisation with partial pivoting, multithreaded,
//! over a size sweep with several trials each; every solution is checked by
//! HPL's normalised residual, and GFLOPS are set against the theoretical
//! peak. The solver is the pure-Rust LU (faer) or the node's BLAS loaded at
//! run time (`--blas`).
//!
//! Modules, bottom up (each uses only those above it in this list):
//! - error.rs: why a solve failed. config.rs: `--blas`, the orders, the
//!   defaults and their check.
//! - matrix.rs: the seeded system, leading dimension, memory sizing, HPL's
//!   flop count and the residual check.
//! - rust.rs: the faer backend. blas.rs: dlopen'd dgesv (OpenBLAS, MKL,
//!   libFLAME, any LAPACK).
//! - backend.rs: the solver `--blas` names, and `auto`'s calibration.
//! - dgemm.rs: HPCC's DGEMM (`cpu.hpcc_dgemm`) on gemm.rs's kernel.
//! - this file: the `cpu.linpack` benchmark.

pub mod backend;
pub mod blas;
#[cfg(feature = "cli")]
pub mod cli;
pub mod config;
pub mod dgemm;
pub mod error;
pub mod gemm;
pub mod matrix;
pub mod rust;

use nodebench_core::bench::{BenchError, Benchmark, Context};
use nodebench_core::buffer::FIT_FRACTION;
use nodebench_core::config::Config;
use nodebench_core::inventory::available_memory_bytes;
use nodebench_core::names::linpack::{self as names, label::TRIAL, param};
use nodebench_core::units::format_bytes;
use nodebench_core::{BenchResult, Better, Metric, Unit};
use nodebench_machine::peak;

use crate::backend::{Selection, select};
use crate::config::{LinpackConfig, Sizes};
use crate::matrix::{System, THRESHOLD, bytes_needed, flops, largest_order};

/// The `cpu.linpack` benchmark: one result per order.
pub struct Linpack {
    /// What to run.
    pub config: LinpackConfig,
}

impl Linpack {
    /// The orders to solve (of a valid config), each checked against the
    /// memory available now, before anything is allocated.
    fn orders(&self) -> Result<Vec<usize>, BenchError> {
        let available = available_memory_bytes();
        match &self.config.sizes {
            Sizes::MemoryFraction(f) => {
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
        names::LINPACK
    }

    /// The flags' check, then orders given with `--sizes` against the
    /// memory available now: one that cannot fit is the user's input,
    /// refused before anything runs.
    fn validate(&self) -> Result<(), BenchError> {
        self.config.validate()?;
        if let Sizes::List(_) = &self.config.sizes {
            self.orders()?;
        }
        Ok(())
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        self.validate()?;
        let c = &self.config;
        let orders = self.orders()?;
        let threads = c
            .threads
            .unwrap_or_else(|| nodebench_core::affinity::allowed_cpus().len().max(1));
        let largest = orders.iter().copied().max().unwrap_or(0);
        let Selection { solver, notes } = select(&c.blas, threads, largest)?;
        // Each order's rates are set against the peak of the cores the
        // solver's threads can use once measured (`set_result_against`):
        // the one "% of peak" every view prints.
        let peak = peak::theoretical_peak(ctx.inventory, peak::all_core_clock);

        for &n in &orders {
            if ctx.cancel.is_cancelled() {
                break;
            }
            let mut system = System::new(n, c.seed, c.matrix, c.hugepages, "--sizes")?;
            let mut result = BenchResult::new(self.id());
            result.set_param(param::N, n);
            result.set_param(param::LDA, system.lda);
            result.set_param(param::ALIGN_KIB, system.alignment() / 1024);
            result.set_param(param::TRIALS, c.trials);
            result.set_param(param::THREADS, threads);
            result.set_param(param::BACKEND, solver.name());
            result.set_param(param::BACKEND_VERSION, solver.version());
            if !notes.is_empty() {
                result.set_param(param::BACKEND_SELECTION, &notes);
            }
            result.set_param(param::FLOPS_COUNTED, "2/3 n^3 + 3/2 n^2 per solve, as HPL");
            result.set_param(param::SEED, c.seed);

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
                // The solve is the phase: the matrix generation before it
                // and the residual check after are not timed.
                let phase = ctx.begin_phase();
                let solved = solver.solve(system.equations(&mut x));
                ctx.end_phase(&mut result, phase, &[(TRIAL, trial.to_string())]);
                let secs = match solved {
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
                    Metric::new(names::TIME, secs, Unit::Seconds, Better::Lower)
                        .label(TRIAL, trial),
                );
                result.metrics.push(
                    Metric::new(names::RATE, rate, Unit::FlopsPerSecond, Better::Higher)
                        .label(TRIAL, trial),
                );
                result.metrics.push(
                    Metric::new(
                        names::RESIDUAL,
                        residual.residual,
                        Unit::Count,
                        Better::Lower,
                    )
                    .label(TRIAL, trial),
                );
                result.metrics.push(
                    Metric::new(
                        names::RESIDUAL_NORM,
                        residual.normalised,
                        Unit::Count,
                        Better::Lower,
                    )
                    .label(TRIAL, trial),
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
                for (name, v) in [(names::RATE_AVERAGE, avg), (names::RATE_MAXIMAL, max)] {
                    result
                        .metrics
                        .push(Metric::new(name, v, Unit::FlopsPerSecond, Better::Higher));
                }
            }
            let best = rates.iter().cloned().fold(0.0, f64::max);
            let cells: Vec<(String, usize, f64)> = (best > 0.0)
                .then(|| (format!("linpack n={n} (best trial)"), threads, best))
                .into_iter()
                .collect();
            peak::set_result_against(
                &mut result,
                &peak,
                param::PEAK,
                &cells,
                &[names::RATE, names::RATE_AVERAGE, names::RATE_MAXIMAL],
                Some(threads),
                true,
            );
            if !failures.is_empty() {
                result.mark_failed(failures.join("; "));
            } else if ctx.cancel.is_cancelled() {
                result.mark_cancelled();
            }
            // A failed order does not stop the next one, as Intel's LINPACK.
            ctx.record(result)?;
        }
        Ok(())
    }
}
