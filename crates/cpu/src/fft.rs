//! `nodebench cpu fft`: HPC Challenge's FFT, a one-dimensional complex
//! double-precision transform.
//!
//! * The size: the largest power of two N whose four vectors of N complex
//!   doubles (HPCC's count: input, output, work and the check's copy) fit
//!   in `--memory-fraction` of each core's memory (MemTotal over the cores,
//!   as HPCC with a process per core), or `--size`. HPCC's FFTE takes only
//!   sizes 2^a 3^b 5^c; rustfft takes every size (mixed radix, Rader and
//!   Bluestein for large primes), so `--size` takes any N >= 2.
//! * Single (one core, the others idle) and star (every core its own
//!   transform at once, the figure the mean of each core's), one result per
//!   mode.
//! * GFLOPS as HPCC counts them: 5 N log2 N / t of the forward transform,
//!   the best of `--ntimes` (the plan is made before, untimed, as HPCC
//!   makes FFTE's twiddles before its timer starts).
//! * The check as HPCC's: the inverse transform of the output, scaled by
//!   1/N, against the input; the largest error over `eps ln N` is the
//!   scaled residual, which fails the result above 16.

use std::sync::Arc;
use std::time::Instant;

use nodebench_core::bench::{BenchError, Benchmark, Context};
use nodebench_core::config::{Choice, Config};
use nodebench_core::inventory::meminfo::{pow2_floor, total_memory_bytes};
use nodebench_core::names::cpu::HPCC_FFT;
use nodebench_core::names::hpcc::{THRESHOLD, label, metric, mode, param};
use nodebench_core::rng::XorShift64;
use nodebench_core::sizing;
use nodebench_core::team::{self, SpinBarrier};
use nodebench_core::{BenchResult, Better, Metric, Unit, affinity};
use rustfft::num_complex::Complex64;
use rustfft::{Fft, FftPlanner};

/// Bytes HPCC counts per element: four vectors of 16-byte complex numbers.
const BYTES_PER_ELEMENT: f64 = 64.0;

nodebench_core::choice! {
    /// How the FFT runs.
    pub enum FftMode {
        /// One core, the others idle (SingleFFT).
        Single => mode::SINGLE,
        /// Every core its own transform at once (StarFFT).
        Star => mode::STAR,
    }
}

/// Everything `cpu fft` runs with.
#[derive(Debug, Clone)]
pub struct FftConfig {
    /// The share of each core's memory the vectors may take.
    pub memory_fraction: f64,
    /// The transform's length instead; any N >= 2.
    pub size: Option<usize>,
    /// The modes, in order.
    pub modes: Vec<FftMode>,
    /// Threads of star; `None` for every allowed CPU.
    pub threads: Option<usize>,
    /// Timed forward transforms; the best counts.
    pub ntimes: usize,
}

impl Default for FftConfig {
    /// HPCC's single then star, half the memory, the best of 3.
    fn default() -> Self {
        FftConfig {
            memory_fraction: 0.5,
            size: None,
            modes: vec![FftMode::Single, FftMode::Star],
            threads: None,
            ntimes: 3,
        }
    }
}

impl Config for FftConfig {
    fn validate(&self) -> Result<(), BenchError> {
        sizing::check_memory_fraction(self.memory_fraction)?;
        if let Some(n) = self.size
            && n < 2
        {
            return Err(BenchError::Invalid(format!(
                "--size: expected a transform length of at least 2 (e.g. 1048576), got {n}"
            )));
        }
        sizing::check_modes(&self.modes, "single, star")?;
        sizing::check_threads(self.threads)?;
        sizing::check_ntimes(self.ntimes, "timed transform")?;
        Ok(())
    }
}

impl FftConfig {
    /// The length and where it came from, on a machine of `mem_total`
    /// bytes with `cores` star cores.
    pub fn length(
        &self,
        mem_total: Option<u64>,
        cores: usize,
    ) -> Result<(usize, String), BenchError> {
        if let Some(n) = self.size {
            return Ok((n, format!("--size {n}")));
        }
        let (share, sized_by) =
            sizing::memory_share(self.memory_fraction, mem_total, Some(cores), "--size")?;
        let per_core = share / cores.max(1) as f64;
        let n = pow2_floor(per_core / BYTES_PER_ELEMENT).max(2) as usize;
        Ok((n, sized_by))
    }
}

/// HPCC's flop count of one transform of length `n`.
pub fn flops(n: usize) -> f64 {
    5.0 * n as f64 * (n as f64).log2()
}

/// The forward and inverse plans of length `n` (rustfft picks its AVX
/// kernels where the CPU has them).
pub struct Plans {
    forward: Arc<dyn Fft<f64>>,
    inverse: Arc<dyn Fft<f64>>,
}

impl Plans {
    /// Plans both directions.
    pub fn new(n: usize) -> Plans {
        let mut planner = FftPlanner::new();
        Plans {
            forward: planner.plan_fft_forward(n),
            inverse: planner.plan_fft_inverse(n),
        }
    }
}

/// HPCC's input: independent real and imaginary parts uniform in
/// [-0.5, 0.5).
pub fn random_vector(n: usize, seed: u64) -> Vec<Complex64> {
    let mut rng = XorShift64::new(seed);
    let mut u = move || (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 - 0.5;
    (0..n).map(|_| Complex64::new(u(), u())).collect()
}

/// The scaled residual of `back` (the inverse transform of the forward
/// one, unscaled) against `input`: max |input - back / N| / (eps ln N).
pub fn scaled_residual(input: &[Complex64], back: &[Complex64]) -> f64 {
    let n = input.len() as f64;
    let max = input
        .iter()
        .zip(back)
        .map(|(x, y)| (x - y / n).norm())
        .fold(0.0, f64::max);
    max / (f64::EPSILON / 2.0 * n.ln().max(1.0))
}

/// One core's transforms: the best of `ntimes` forward transforms of a
/// random vector (seeded by `seed`), then the check. `barrier` lines the
/// cores of a star run up before each timed transform.
fn transforms(
    plans: &Plans,
    n: usize,
    ntimes: usize,
    seed: u64,
    barrier: &SpinBarrier,
) -> (f64, f64) {
    let input = random_vector(n, seed);
    let mut data = input.clone();
    let mut scratch = vec![Complex64::default(); plans.forward.get_inplace_scratch_len()];
    let mut best = f64::INFINITY;
    for _ in 0..ntimes {
        data.copy_from_slice(&input);
        barrier.wait();
        let t = Instant::now();
        plans.forward.process_with_scratch(&mut data, &mut scratch);
        best = best.min(t.elapsed().as_secs_f64());
    }
    let mut scratch = vec![Complex64::default(); plans.inverse.get_inplace_scratch_len()];
    plans.inverse.process_with_scratch(&mut data, &mut scratch);
    (best, scaled_residual(&input, &data))
}

/// The `cpu.hpcc_fft` benchmark.
#[derive(Debug, Clone, Default)]
pub struct HpccFft {
    /// Its configuration.
    pub config: FftConfig,
}

impl HpccFft {
    fn cores(&self) -> usize {
        self.config
            .threads
            .unwrap_or_else(|| affinity::allowed_cpus().len())
            .max(1)
    }
}

impl Benchmark for HpccFft {
    fn id(&self) -> &'static str {
        HPCC_FFT
    }

    /// The flags, then the star run's vectors against the memory available.
    fn validate(&self) -> Result<(), BenchError> {
        let c = &self.config;
        c.validate()?;
        let cores = self.cores();
        let (n, _) = c.length(total_memory_bytes(), cores)?;
        let threads = if c.modes.contains(&FftMode::Star) {
            cores
        } else {
            1
        };
        let flag = if c.size.is_some() {
            "--size"
        } else {
            "--memory-fraction"
        };
        nodebench_core::buffer::check_fits(
            (BYTES_PER_ELEMENT * n as f64 * threads as f64) as u64,
            flag,
        )
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        self.validate()?;
        let c = &self.config;
        let cores = self.cores();
        let (n, sized_by) = c.length(
            ctx.inventory.memory.total_bytes.or_else(total_memory_bytes),
            cores,
        )?;
        let plans = Plans::new(n);
        ctx.progress.start("cpu fft", c.modes.len() as u64);
        for &m in &c.modes {
            if ctx.cancel.is_cancelled() {
                break;
            }
            let threads = if m == FftMode::Star { cores } else { 1 };
            let barrier = SpinBarrier::new(threads);
            let per = team::run(threads, true, |t| {
                transforms(&plans, n, c.ntimes, 0x5eed + t as u64, &barrier)
            });
            let rate = per.iter().map(|(s, _)| flops(n) / s).sum::<f64>() / threads as f64;
            let residual = per.iter().map(|(_, r)| *r).fold(0.0, f64::max);
            let mut r = BenchResult::new(HPCC_FFT);
            r.set_param(param::N, n);
            r.set_param(param::THREADS, threads);
            r.set_param(param::SIZED_BY, &sized_by);
            r.metrics.push(
                Metric::new(metric::RATE, rate, Unit::FlopsPerSecond, Better::Higher)
                    .label(label::MODE, m.as_str()),
            );
            r.metrics.push(
                Metric::new(metric::RESIDUAL, residual, Unit::Count, Better::Lower)
                    .label(label::MODE, m.as_str()),
            );
            if residual.is_nan() || residual > THRESHOLD {
                r.mark_failed(format!(
                    "check failed: scaled residual {residual:.3} of the inverse transform is above HPCC's {THRESHOLD}"
                ));
            }
            ctx.progress.advance(1);
            if !ctx.record(r)? {
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

    fn forward(x: &[Complex64]) -> Vec<Complex64> {
        let mut d = x.to_vec();
        Plans::new(x.len()).forward.process(&mut d);
        d
    }

    /// The textbook DFT.
    fn naive(x: &[Complex64]) -> Vec<Complex64> {
        let n = x.len();
        (0..n)
            .map(|k| {
                x.iter()
                    .enumerate()
                    .map(|(j, v)| {
                        let a = -2.0 * std::f64::consts::PI * (j * k % n) as f64 / n as f64;
                        v * Complex64::new(a.cos(), a.sin())
                    })
                    .sum()
            })
            .collect()
    }

    #[test]
    fn impulse_and_single_tone() {
        let n = 1024;
        let mut impulse = vec![Complex64::default(); n];
        impulse[0] = Complex64::new(1.0, 0.0);
        assert!(forward(&impulse).iter().all(|v| (v - 1.0).norm() < 1e-12));
        let k0 = 37;
        let tone: Vec<Complex64> = (0..n)
            .map(|j| {
                Complex64::from_polar(1.0, 2.0 * std::f64::consts::PI * (k0 * j) as f64 / n as f64)
            })
            .collect();
        for (k, v) in forward(&tone).iter().enumerate() {
            let expected = if k == k0 { n as f64 } else { 0.0 };
            assert!((v - expected).norm() < 1e-9, "bin {k}: {v}");
        }
    }

    #[test]
    fn sizes_hpcc_refuses_are_transformed_right() {
        // 2^a 3^b 5^c (HPCC's FFTE sizes), then a prime and 2 x a prime,
        // which FFTE refuses and rustfft handles (Rader, Bluestein).
        for n in [2, 60, 1000, 1009, 2 * 1031] {
            let x = random_vector(n, n as u64);
            let (fast, slow) = (forward(&x), naive(&x));
            let err = fast
                .iter()
                .zip(&slow)
                .map(|(a, b)| (a - b).norm())
                .fold(0.0, f64::max);
            assert!(err < 1e-9 * n as f64, "n = {n}: error {err}");
        }
    }

    #[test]
    fn the_round_trip_residual_passes_and_a_planted_error_fails() {
        let n = 1 << 16;
        let plans = Plans::new(n);
        let (seconds, residual) = transforms(&plans, n, 2, 7, &SpinBarrier::new(1));
        assert!(seconds > 0.0);
        assert!(residual < THRESHOLD, "residual {residual}");
        let x = random_vector(n, 1);
        let mut back: Vec<Complex64> = x.iter().map(|v| v * n as f64).collect();
        assert!(scaled_residual(&x, &back) < 1.0);
        back[5] += Complex64::new(1e-9 * n as f64, 0.0);
        assert!(scaled_residual(&x, &back) > THRESHOLD);
    }

    #[test]
    fn hpccs_size_rule_and_flops() {
        // 128 MiB over 2 cores at 0.5: 32 MiB each, 64 B per element: 2^19.
        let c = FftConfig::default();
        assert_eq!(c.length(Some(128 << 20), 2).unwrap().0, 1 << 19);
        assert_eq!(c.length(Some(128_000_000), 2).unwrap().0, 1 << 18);
        assert_eq!(flops(1024), 5.0 * 1024.0 * 10.0);
        let bad = FftConfig {
            size: Some(1),
            ..FftConfig::default()
        };
        assert!(
            bad.validate()
                .unwrap_err()
                .to_string()
                .starts_with("--size:")
        );
    }
}
