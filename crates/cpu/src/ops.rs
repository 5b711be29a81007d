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

use nodebench_core::bench::{BenchError, Benchmark, Context};
use nodebench_core::config::{Choice, Config};
use nodebench_core::names::cpu::{self as names, label, param};
use nodebench_core::names::labels::{KERNEL, THREADS};
use nodebench_core::stats::{
    MIN_TIMER_STEPS, Stats, noisy_warning, timer_resolution, timer_too_coarse,
};
use nodebench_core::{BenchResult, Better, Metric, Unit, team};
use nodebench_machine::peak::{self, Peak};

use crate::config::{Kernel, OpsConfig, Scaling};
use crate::kernels::{self, KernelImpl};

/// The `cpu.ops` benchmark; records one result per kernel.
#[derive(Debug, Clone)]
pub struct CpuOps {
    /// Its configuration.
    pub config: OpsConfig,
}

/// Runs `imp` on a team of `threads` workers, each doing `iters`
/// iterations, all released together; returns the wall time from the first
/// worker's start to the last worker's end. The workers take the timestamps
/// themselves: with more threads than cores a coordinating thread would
/// wait for a time slice and start its clock late.
fn timed_parallel(imp: &KernelImpl, threads: usize, iters: u64, pin: bool) -> Duration {
    let barrier = Barrier::new(threads);
    let spans: Vec<(Instant, Instant)> = team::run(threads, pin, |_| {
        barrier.wait();
        let start = Instant::now();
        black_box(imp.run(iters));
        (start, Instant::now())
    });
    let first = spans.iter().map(|s| s.0).min();
    let last = spans.iter().map(|s| s.1).max();
    match (first, last) {
        (Some(a), Some(b)) => b - a,
        _ => Duration::ZERO,
    }
}

/// Iterations one thread runs in about `target`.
fn calibrate(imp: &KernelImpl, target: Duration, pin: bool) -> u64 {
    let mut iters: u64 = 1024;
    loop {
        let el = timed_parallel(imp, 1, iters, pin);
        if el >= target / 8 || iters >= 1 << 40 {
            let per_sec = iters as f64 / el.as_secs_f64().max(1e-9);
            return ((per_sec * target.as_secs_f64()) as u64).max(1);
        }
        iters *= 4;
    }
}

/// The peak `kernel` is set against: one lane per FMA port for a scalar
/// kernel, every lane for a vector one.
fn kernel_peak(
    kernel: Kernel,
    peak: &Result<Peak, nodebench_machine::Error>,
) -> Result<Peak, nodebench_machine::Error> {
    match peak {
        Ok(p) if kernel.is_scalar() => Ok(p.scalar()),
        other => other.clone(),
    }
}

impl Benchmark for CpuOps {
    fn id(&self) -> &'static str {
        names::OPS
    }

    fn validate(&self) -> Result<(), BenchError> {
        self.config.validate()
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        self.validate()?;
        let c = &self.config;
        let resolution = timer_resolution();
        let peak = peak::theoretical_peak(ctx.inventory, peak::all_core_clock);
        let cells = c.kernels.len() * c.scaling.len() * c.threads.len() * (c.warmup + c.repeats);
        ctx.progress.start("cpu ops", cells as u64);

        for &kernel in &c.kernels {
            if ctx.cancel.is_cancelled() {
                break;
            }
            let imp = kernels::select(kernel);
            let peak = kernel_peak(kernel, &peak);
            let mut result = BenchResult::new(self.id());
            result.set_param(param::KERNEL, kernel.as_str());
            result.set_param(param::ISA, imp.isa);
            result.set_param(param::THREADS, &c.threads);
            result.set_param(param::DURATION_S, c.duration.as_secs_f64());
            result.set_param(param::REPEATS, c.repeats);
            result.set_param(param::WARMUP, c.warmup);
            result.set_param(
                param::SCALING,
                c.scaling.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
            );
            result.set_param(param::PINNED, c.pin);
            result.set_param(param::OPS_PER_ITERATION, imp.ops_per_iter);
            let unit = if kernel.is_float() {
                Unit::FlopsPerSecond
            } else {
                Unit::OpsPerSecond
            };
            let work = calibrate(&imp, c.duration, c.pin);
            result.set_param(param::ITERATIONS_PER_UNIT, work);

            let mut noisy: Vec<String> = Vec::new();
            // Each cell: (what, threads, median rate).
            let mut cells: Vec<(String, usize, f64)> = Vec::new();
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
                    let phase = ctx.begin_phase();
                    for i in 0..c.warmup + c.repeats {
                        if ctx.cancel.is_cancelled() {
                            result.mark_cancelled();
                            break 'modes;
                        }
                        let el = timed_parallel(&imp, t, per_thread, c.pin);
                        if i >= c.warmup {
                            samples.push(ops / el.as_secs_f64());
                            shortest = shortest.min(el);
                        }
                        ctx.progress.advance(1);
                    }
                    ctx.end_phase(
                        &mut result,
                        phase,
                        &[
                            (KERNEL, kernel.as_str().to_string()),
                            (label::SCALING, scaling.as_str().to_string()),
                            (THREADS, t.to_string()),
                        ],
                    );
                    let Some(stats) = Stats::from_samples(&samples) else {
                        continue;
                    };
                    if stats.is_noisy() {
                        noisy.push(format!(
                            "{} threads={t} ({:.1} %)",
                            scaling.as_str(),
                            stats.cv * 100.0
                        ));
                    }
                    if timer_too_coarse(shortest, resolution) {
                        result.warnings.push(format!(
                            "{} threads={t}: {shortest:?} per measurement is under {MIN_TIMER_STEPS} timer steps of {resolution:?}; use a longer --duration",
                            scaling.as_str()
                        ));
                    }
                    rates.insert(t, stats.median);
                    cells.push((
                        format!("{} {} threads={t}", kernel.as_str(), scaling.as_str()),
                        t,
                        stats.median,
                    ));
                    result.metrics.push(
                        Metric::new(names::RATE, stats.median, unit, Better::Higher)
                            .label(KERNEL, kernel.as_str())
                            .label(label::SCALING, scaling.as_str())
                            .label(THREADS, t)
                            .with_stats(stats),
                    );
                }
                if let Some(&base) = rates.get(&1) {
                    // At one thread both are 1 by definition: no figure.
                    for (&t, &rate) in rates.range(2..) {
                        let speedup = rate / base;
                        result.metrics.push(
                            Metric::new(names::SPEEDUP, speedup, Unit::Count, Better::Higher)
                                .label(KERNEL, kernel.as_str())
                                .label(label::SCALING, scaling.as_str())
                                .label(THREADS, t),
                        );
                        result.metrics.push(
                            Metric::new(
                                names::EFFICIENCY,
                                100.0 * speedup / t as f64,
                                Unit::Percent,
                                Better::Higher,
                            )
                            .label(KERNEL, kernel.as_str())
                            .label(label::SCALING, scaling.as_str())
                            .label(THREADS, t),
                        );
                    }
                }
            }
            if kernel.is_float() {
                peak::set_result_against(
                    &mut result,
                    &peak,
                    param::PEAK,
                    &cells,
                    &[names::RATE],
                    None,
                    kernel.is_double(),
                );
            }
            result.warnings.extend(noisy_warning(&noisy));
            if !ctx.record(result)? {
                break;
            }
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
    use nodebench_core::names::peak::PEAK_CORES;

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
        let rates: Vec<&Metric> = out[0].metrics_named(names::RATE).collect();
        assert_eq!(rates.len(), 4);
        assert!(
            rates
                .iter()
                .all(|m| m.value > 0.0 && m.unit == Unit::FlopsPerSecond)
        );
        assert_eq!(rates[0].stats.as_ref().unwrap().n, 2);
        let cells: Vec<(&str, &str, &str)> = rates
            .iter()
            .map(|m| {
                (
                    m.label_value(KERNEL).unwrap(),
                    m.label_value(label::SCALING).unwrap(),
                    m.label_value(THREADS).unwrap(),
                )
            })
            .collect();
        assert_eq!(
            cells,
            [
                ("f64.vector", "strong", "1"),
                ("f64.vector", "strong", "2"),
                ("f64.vector", "weak", "1"),
                ("f64.vector", "weak", "2"),
            ]
        );
        assert_eq!(out[1].metrics_named(names::RATE).count(), 4);
        assert_eq!(out[1].metrics[0].unit, Unit::OpsPerSecond);
        // Two thread counts, two modes: speedup and efficiency at 2 threads
        // only (at one they are 1 and 100 % by definition).
        assert_eq!(out[0].metrics_named(names::SPEEDUP).count(), 2);
        assert_eq!(out[0].metrics_named(names::EFFICIENCY).count(), 2);
        assert!(
            out[0]
                .metrics_named(names::SPEEDUP)
                .all(|m| m.label_value(THREADS) == Some("2"))
        );
        for (r, kernel) in out.iter().zip([Kernel::F64Vector, Kernel::IntScalar]) {
            assert_eq!(r.param(param::KERNEL).unwrap(), kernel.as_str());
            assert_eq!(
                r.param(param::OPS_PER_ITERATION).unwrap(),
                kernels::select(kernel).ops_per_iter
            );
        }
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
        assert_eq!(
            err.to_string(),
            "--threads: expected a list of positive thread counts like 1,2,4,8"
        );
    }

    #[test]
    fn a_scalar_kernel_is_set_against_one_lane_per_fma_port() {
        use nodebench_machine::peak::CoreFlops;
        let p = Peak {
            cores: 4,
            cores_source: "effective",
            clock_hz: 3.0e9,
            clock_source: "measured all-core".into(),
            core: CoreFlops {
                dp_per_cycle: 32,
                basis: "Sapphire Rapids: AVX-512, 2 x 512-bit FMA".into(),
                scalar_fma_ports: 2,
                one_lane: false,
            },
            uncertain: None,
            floating_cpus: None,
        };
        let peak = Ok(p);
        // Vector: 1 core x 3 GHz x 32 = 96 GFLOPS; scalar: x 4 = 12 GFLOPS.
        let vector = set(Kernel::F64Vector, &peak, &[(1, 48.0e9)]);
        assert_eq!(vector.metrics[0].reference.as_ref().unwrap().value, 96.0e9);
        assert_eq!(vector.metrics[0].percent_of_reference, Some(50.0));
        for k in [Kernel::F64Scalar, Kernel::F32Scalar] {
            let r = set(k, &peak, &[(1, 6.0e9), (8, 24.0e9)]);
            let one = r.metrics[0].reference.as_ref().unwrap();
            assert_eq!(one.value, 12.0e9, "{k:?}");
            assert!(one.name.contains("x 4 "), "{}", one.name);
            // Eight threads on four cores: the four cores' 48 GFLOPS.
            assert_eq!(r.metrics[1].reference.as_ref().unwrap().value, 48.0e9);
            assert_eq!(r.metrics[1].percent_of_reference, Some(50.0));
        }
    }

    /// A result of `kernel` with a rate per (threads, FLOP/s), set against `peak`.
    fn set(
        kernel: Kernel,
        peak: &Result<Peak, nodebench_machine::Error>,
        cells: &[(usize, f64)],
    ) -> BenchResult {
        let mut r = BenchResult::new(names::OPS);
        let mut what = Vec::new();
        for &(t, rate) in cells {
            r.metrics.push(
                Metric::new(names::RATE, rate, Unit::FlopsPerSecond, Better::Higher)
                    .label(KERNEL, kernel.as_str())
                    .label(THREADS, t),
            );
            what.push((format!("{} threads={t}", kernel.as_str()), t, rate));
        }
        peak::set_result_against(
            &mut r,
            &kernel_peak(kernel, peak),
            param::PEAK,
            &what,
            &[names::RATE],
            None,
            kernel.is_double(),
        );
        r
    }

    #[test]
    fn a_cell_past_a_floating_count_is_set_against_every_usable_cpu_in_every_view() {
        use nodebench_machine::peak::CoreFlops;
        // The 16-vCPU guest: 8 floating cores at 2.555 GHz; f32.vector ran
        // 2000.37 GFLOPS on 16 threads, 152.9 % of 8 cores' peak.
        let peak = Ok(Peak {
            cores: 8,
            cores_source: "effective",
            clock_hz: 2.555e9,
            clock_source: "measured all-core under 512-bit FMA".into(),
            core: CoreFlops {
                dp_per_cycle: 32,
                basis: "Emerald Rapids: AVX-512, 2 x 512-bit FMA".into(),
                scalar_fma_ports: 2,
                one_lane: false,
            },
            uncertain: None,
            floating_cpus: Some(16),
        });
        let r = set(Kernel::F32Vector, &peak, &[(1, 160.9e9), (16, 2000.37e9)]);
        assert_eq!(r.param(PEAK_CORES).and_then(|c| c.as_u64()), Some(16));
        let share = r.metrics[1].percent_of_reference.unwrap();
        assert!((share - 76.5).abs() < 0.05, "{share}");
        assert!(
            r.metrics
                .iter()
                .all(|m| m.percent_of_reference.unwrap() <= 100.0)
        );
        assert_eq!(r.warnings.len(), 1, "{:?}", r.warnings);
        assert!(
            r.warnings[0].starts_with(
                "peak uncertain (not lowered): effective cores: the probe's 8 of 16 CPUs"
            ),
            "{}",
            r.warnings[0]
        );
        assert!(
            r.param(param::PEAK)
                .and_then(|p| p.as_str())
                .unwrap()
                .starts_with("theoretical peak: 16 usable cores")
        );
        // f64.vector at 102.3 %: the count stays, the clock warning speaks.
        let r = set(Kernel::F64Vector, &peak, &[(16, 669.29e9)]);
        assert_eq!(r.param(PEAK_CORES).and_then(|c| c.as_u64()), Some(8));
        assert_eq!(r.warnings.len(), 1);
        assert!(
            r.warnings[0].contains("102.3 % of the peak of the 8 cores"),
            "{}",
            r.warnings[0]
        );
    }
}
