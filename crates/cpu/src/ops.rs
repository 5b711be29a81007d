//! `nodebench cpu ops`: integer and floating-point operation rates for a list
//! of thread counts, with strong scaling (a fixed total amount of work split
//! across the threads) and weak scaling (a fixed amount of work per thread),
//! threads pinned, set against the theoretical peak.
//!
//! The work unit is calibrated once per kernel so that one thread runs for
//! about `duration`; each cell then runs `warmup` unreported times and
//! `repeats` reported times. The reported rate is the median of the repeats
//! (the stats carry min/mean/max/stddev); the rate of one repeat is the total
//! operations of all threads over the wall time from the common start to the
//! last thread's end.

use std::collections::BTreeMap;
use std::hint::black_box;
use std::sync::Barrier;
use std::time::{Duration, Instant};

use chrono::Utc;
use nodebench_core::bench::{BenchError, Benchmark, Context};
use nodebench_core::stats::{MIN_TIMER_STEPS, NOISY_CV, Stats, timer_resolution, timer_too_coarse};
use nodebench_core::{BenchResult, Better, Metric, Reference, Unit, affinity};

use crate::kernels::{self, Kernel, KernelImpl};
use nodebench_core::peak::{self, Peak};

/// How the work grows with the thread count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scaling {
    /// Fixed total work, split across the threads (speedup = time ratio).
    Strong,
    /// Fixed work per thread (scaled speedup = rate ratio).
    Weak,
}

impl Scaling {
    /// The label value: `strong` or `weak`.
    pub fn name(self) -> &'static str {
        match self {
            Scaling::Strong => "strong",
            Scaling::Weak => "weak",
        }
    }
}

/// Everything `cpu ops` runs with, validated by the CLI.
#[derive(Debug, Clone)]
pub struct OpsConfig {
    /// Thread counts to measure, in order.
    pub threads: Vec<usize>,
    /// Target time of one single-thread measurement.
    pub duration: Duration,
    /// Reported repeats per cell.
    pub repeats: usize,
    /// Unreported warm-up runs per cell.
    pub warmup: usize,
    /// Kernels to run.
    pub kernels: Vec<Kernel>,
    /// Scaling modes to run.
    pub scaling: Vec<Scaling>,
    /// Pin worker `i` to allowed CPU `i mod n`.
    pub pin: bool,
}

impl OpsConfig {
    /// The default thread list: 1, 2, 4, 8 and the logical CPU count.
    pub fn default_threads(logical_cpus: usize) -> Vec<usize> {
        let mut t = vec![1, 2, 4, 8, logical_cpus.max(1)];
        t.sort_unstable();
        t.dedup();
        t
    }
}

impl Default for OpsConfig {
    fn default() -> Self {
        OpsConfig {
            threads: OpsConfig::default_threads(affinity::allowed_cpus().len()),
            duration: Duration::from_millis(200),
            repeats: 3,
            warmup: 1,
            kernels: Kernel::ALL.to_vec(),
            scaling: vec![Scaling::Strong, Scaling::Weak],
            pin: true,
        }
    }
}

/// The `cpu.ops` benchmark; records one result per kernel.
#[derive(Debug, Clone)]
pub struct CpuOps {
    /// Its configuration.
    pub config: OpsConfig,
}

impl CpuOps {
    fn validate(&self) -> Result<(), BenchError> {
        let c = &self.config;
        if c.threads.is_empty() || c.threads.contains(&0) {
            return Err(BenchError::Invalid(
                "--threads: expected a list of positive thread counts like 1,2,4,8".into(),
            ));
        }
        if c.repeats == 0 {
            return Err(BenchError::Invalid(
                "--repeats: expected a whole number of at least 1".into(),
            ));
        }
        if c.kernels.is_empty() || c.scaling.is_empty() {
            return Err(BenchError::Invalid(
                "--kernels/--scaling: nothing to run".into(),
            ));
        }
        Ok(())
    }
}

/// Runs `imp` on `threads` workers, each doing `iters` iterations, all
/// released together; returns the wall time from the first worker's start to
/// the last worker's end. The workers take the timestamps themselves: with
/// more threads than cores a coordinating thread would wait for a time slice
/// and start its clock late.
fn timed_parallel(
    imp: &KernelImpl,
    threads: usize,
    iters: u64,
    cpus: &[usize],
    pin: bool,
) -> Duration {
    let barrier = Barrier::new(threads);
    let spans: Vec<(Instant, Instant)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|i| {
                let barrier = &barrier;
                let cpu = cpus[i % cpus.len()];
                s.spawn(move || {
                    if pin {
                        affinity::pin_current_thread(cpu);
                    }
                    barrier.wait();
                    let start = Instant::now();
                    black_box(imp.run(iters));
                    (start, Instant::now())
                })
            })
            .collect();
        // A kernel cannot panic; a worker that did simply has no span.
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    let first = spans.iter().map(|s| s.0).min();
    let last = spans.iter().map(|s| s.1).max();
    match (first, last) {
        (Some(a), Some(b)) => b - a,
        _ => Duration::ZERO,
    }
}

/// Iterations one thread runs in about `target`.
fn calibrate(imp: &KernelImpl, target: Duration, cpus: &[usize], pin: bool) -> u64 {
    let mut iters: u64 = 1024;
    loop {
        let el = timed_parallel(imp, 1, iters, cpus, pin);
        if el >= target / 8 || iters >= 1 << 40 {
            let per_sec = iters as f64 / el.as_secs_f64().max(1e-9);
            return ((per_sec * target.as_secs_f64()) as u64).max(1);
        }
        iters *= 4;
    }
}

fn reference_for(kernel: Kernel, peak: &Result<Peak, String>) -> Option<Reference> {
    let p = peak.as_ref().ok()?;
    if !kernel.is_float() {
        return None;
    }
    let double = kernel.is_double();
    Some(Reference {
        name: p.describe(double),
        value: if double { p.dp_flops() } else { p.sp_flops() },
    })
}

impl Benchmark for CpuOps {
    fn id(&self) -> &'static str {
        "cpu.ops"
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        self.validate()?;
        let c = &self.config;
        let cpus = affinity::allowed_cpus();
        let resolution = timer_resolution();
        let peak = peak::theoretical_peak(ctx.inventory, peak::all_core_clock);
        let cells = c.kernels.len() * c.scaling.len() * c.threads.len() * (c.warmup + c.repeats);
        ctx.progress.start("cpu ops", cells as u64);

        for &kernel in &c.kernels {
            if ctx.cancel.is_cancelled() {
                break;
            }
            let imp = kernels::select(kernel);
            let mut result = BenchResult::new(self.id());
            result.set_param("kernel", kernel.name());
            result.set_param("isa", imp.isa);
            result.set_param("threads", &c.threads);
            result.set_param("duration_s", c.duration.as_secs_f64());
            result.set_param("repeats", c.repeats);
            result.set_param("warmup", c.warmup);
            result.set_param(
                "scaling",
                c.scaling.iter().map(|s| s.name()).collect::<Vec<_>>(),
            );
            result.set_param("pinned", c.pin);
            result.set_param("ops_per_iteration", imp.ops_per_iter);
            if kernel.is_float() {
                match &peak {
                    Ok(p) => result.set_param("peak", p.describe(kernel.is_double())),
                    Err(why) => result.set_param("peak", format!("unknown: {why}")),
                }
            }
            let unit = if kernel.is_float() {
                Unit::FlopsPerSecond
            } else {
                Unit::OpsPerSecond
            };
            let reference = reference_for(kernel, &peak);
            let work = calibrate(&imp, c.duration, &cpus, c.pin);
            result.set_param("iterations_per_unit", work);

            let mut noisy: Vec<String> = Vec::new();
            'modes: for &scaling in &c.scaling {
                let mut rates: BTreeMap<usize, f64> = BTreeMap::new();
                for &t in &c.threads {
                    let per_thread = match scaling {
                        Scaling::Strong => work.div_ceil(t as u64),
                        Scaling::Weak => work,
                    };
                    let ops = (per_thread * t as u64 * imp.ops_per_iter) as f64;
                    let mut samples = Vec::with_capacity(c.repeats);
                    let mut shortest = Duration::MAX;
                    for i in 0..c.warmup + c.repeats {
                        if ctx.cancel.is_cancelled() {
                            result.mark_cancelled();
                            break 'modes;
                        }
                        let el = timed_parallel(&imp, t, per_thread, &cpus, c.pin);
                        if i >= c.warmup {
                            samples.push(ops / el.as_secs_f64());
                            shortest = shortest.min(el);
                        }
                        ctx.progress.advance(1);
                    }
                    let Some(stats) = Stats::from_samples(&samples) else {
                        continue;
                    };
                    if stats.is_noisy() {
                        noisy.push(format!(
                            "{} threads={t} ({:.1} %)",
                            scaling.name(),
                            stats.cv * 100.0
                        ));
                    }
                    if timer_too_coarse(shortest, resolution) {
                        result.warnings.push(format!(
                            "{} threads={t}: {shortest:?} per measurement is under {MIN_TIMER_STEPS} timer steps of {resolution:?}; use a longer --duration",
                            scaling.name()
                        ));
                    }
                    rates.insert(t, stats.median);
                    result.metrics.push(
                        Metric::new("rate", stats.median, unit, Better::Higher)
                            .label("kernel", kernel.name())
                            .label("scaling", scaling.name())
                            .label("threads", t)
                            .with_stats(stats)
                            .with_reference(reference.clone()),
                    );
                }
                if let Some(&base) = rates.get(&1) {
                    for (&t, &rate) in &rates {
                        let speedup = rate / base;
                        result.metrics.push(
                            Metric::new("speedup", speedup, Unit::Count, Better::Higher)
                                .label("kernel", kernel.name())
                                .label("scaling", scaling.name())
                                .label("threads", t),
                        );
                        result.metrics.push(
                            Metric::new(
                                "efficiency",
                                100.0 * speedup / t as f64,
                                Unit::Percent,
                                Better::Higher,
                            )
                            .label("kernel", kernel.name())
                            .label("scaling", scaling.name())
                            .label("threads", t),
                        );
                    }
                }
            }
            if !noisy.is_empty() {
                result.warnings.push(format!(
                    "coefficient of variation over {:.0} % (noisy machine?): {}",
                    NOISY_CV * 100.0,
                    noisy.join(", ")
                ));
            }
            result.ended_at = Utc::now();
            ctx.sink.record(result)?;
        }
        ctx.progress.finish();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::bench::{Cancel, collect};
    use nodebench_core::inventory::Inventory;

    fn quick(kernels: Vec<Kernel>, threads: Vec<usize>) -> CpuOps {
        CpuOps {
            config: OpsConfig {
                threads,
                duration: Duration::from_millis(5),
                repeats: 2,
                warmup: 0,
                kernels,
                scaling: vec![Scaling::Strong, Scaling::Weak],
                pin: true,
            },
        }
    }

    #[test]
    fn one_result_per_kernel_with_a_rate_per_thread_and_mode() {
        let inv = Inventory::default();
        let out = collect(
            &quick(vec![Kernel::F64Vector, Kernel::IntScalar], vec![1, 2]),
            &inv,
            Cancel::new(),
        )
        .unwrap();
        assert_eq!(out.len(), 2);
        let rates: Vec<&Metric> = out[0].metrics.iter().filter(|m| m.name == "rate").collect();
        assert_eq!(rates.len(), 4);
        assert!(
            rates
                .iter()
                .all(|m| m.value > 0.0 && m.unit == Unit::FlopsPerSecond)
        );
        assert_eq!(rates[0].stats.as_ref().unwrap().n, 2);
        assert_eq!(
            out[1].metrics.iter().filter(|m| m.name == "rate").count(),
            4
        );
        assert_eq!(out[1].metrics[0].unit, Unit::OpsPerSecond);
        let speedups = out[0]
            .metrics
            .iter()
            .filter(|m| m.name == "speedup")
            .count();
        assert_eq!(speedups, 4);
    }

    #[test]
    fn cancelled_before_start_records_nothing() {
        let inv = Inventory::default();
        let cancel = Cancel::new();
        cancel.cancel();
        let out = collect(&quick(vec![Kernel::F64Scalar], vec![1]), &inv, cancel).unwrap();
        assert!(out.is_empty());
    }

    #[test]
    fn zero_threads_is_refused() {
        let inv = Inventory::default();
        let err = collect(
            &quick(vec![Kernel::F64Scalar], vec![0]),
            &inv,
            Cancel::new(),
        )
        .unwrap_err();
        assert!(err.to_string().contains("--threads"));
    }

    #[test]
    fn default_threads_add_the_core_count() {
        assert_eq!(OpsConfig::default_threads(2), vec![1, 2, 4, 8]);
        assert_eq!(OpsConfig::default_threads(12), vec![1, 2, 4, 8, 12]);
    }
}
