//! `gpu gemm`: C = A B through cuBLAS (`cublasGemmEx`) at each precision
//! and size, FLOP/s (2 n^3 a multiply) over at least `--duration` of
//! back-to-back multiplies timed with events, the percentage of the
//! precision's theoretical peak ([`crate::peak`]), and sampled entries of C
//! checked against a host reference.

use std::time::Instant;

use half::{bf16, f16};
use nodebench_core::bench::{BenchError, Benchmark, Context};
use nodebench_core::config::Config;
use nodebench_core::names::gpu::{self as names, label, metric, param, precision};
use nodebench_core::rng::XorShift64;
use nodebench_core::{BenchResult, Better, Metric, Unit};

use crate::config::GemmConfig;
use crate::device::{self, Gpu};
use crate::peak::peak_flops;
use crate::toolkit::{Cublas, compute, dtype};
use nodebench_machine::gpu::cuda::Stream;

/// How a precision is asked of cuBLAS: data type, compute type, bytes per
/// element, and whether the scalars are doubles.
pub fn plan(p: &str) -> Option<(i32, i32, usize, bool)> {
    Some(match p {
        precision::FP64 => (dtype::R_64F, compute::C_64F, 8, true),
        precision::FP32 => (dtype::R_32F, compute::C_32F, 4, false),
        precision::TF32 => (dtype::R_32F, compute::C_32F_FAST_TF32, 4, false),
        precision::FP16 => (dtype::R_16F, compute::C_32F, 2, false),
        precision::BF16 => (dtype::R_16BF, compute::C_32F, 2, false),
        _ => return None,
    })
}

/// The largest error an entry of C may have, as a fraction of
/// sum_k |a_ik b_kj|: the inputs' and output's rounding at the precision.
pub fn tolerance(p: &str) -> f64 {
    match p {
        precision::FP64 => 1e-11,
        precision::FP32 => 1e-4,
        precision::FP16 => 5e-3,
        _ => 1e-2, // TF32 inputs keep 10 mantissa bits, BF16 output 8.
    }
}

/// The matrix as the device gets it, and its values as the host reference
/// sees them (after rounding to the precision).
pub fn encode(p: &str, values: &[f64]) -> (Vec<u8>, Vec<f64>) {
    match p {
        precision::FP64 => (bytes(values), values.to_vec()),
        precision::FP32 | precision::TF32 => {
            let v: Vec<f32> = values.iter().map(|x| *x as f32).collect();
            (bytes(&v), v.iter().map(|x| f64::from(*x)).collect())
        }
        precision::FP16 => {
            let v: Vec<f16> = values.iter().map(|x| f16::from_f64(*x)).collect();
            (bytes(&v), v.iter().map(|x| x.to_f64()).collect())
        }
        _ => {
            let v: Vec<bf16> = values.iter().map(|x| bf16::from_f64(*x)).collect();
            (bytes(&v), v.iter().map(|x| x.to_f64()).collect())
        }
    }
}

/// An element of C as read back.
pub fn decode(p: &str, raw: &[u8]) -> f64 {
    match p {
        precision::FP64 => f64::from_le_bytes(raw[..8].try_into().unwrap()),
        precision::FP32 | precision::TF32 => {
            f64::from(f32::from_le_bytes(raw[..4].try_into().unwrap()))
        }
        precision::FP16 => f16::from_le_bytes(raw[..2].try_into().unwrap()).to_f64(),
        _ => bf16::from_le_bytes(raw[..2].try_into().unwrap()).to_f64(),
    }
}

/// A value uniform in [-1, 1).
fn unit(rng: &mut XorShift64) -> f64 {
    (rng.next_u64() >> 11) as f64 / (1u64 << 52) as f64 - 1.0
}

fn bytes<T: Copy>(v: &[T]) -> Vec<u8> {
    // SAFETY: plain numbers viewed as their bytes.
    unsafe { std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v)) }
        .to_vec()
}

/// Entry (i, j) of A B for column-major n x n `a`, `b`, and the sum of
/// |a_ik b_kj| it is judged against.
pub fn reference(a: &[f64], b: &[f64], n: usize, i: usize, j: usize) -> (f64, f64) {
    let (mut s, mut bound) = (0.0, 0.0);
    for k in 0..n {
        let x = a[i + k * n] * b[k + j * n];
        s += x;
        bound += x.abs();
    }
    (s, bound)
}

/// The benchmark.
pub struct GpuGemm {
    pub config: GemmConfig,
}

impl Benchmark for GpuGemm {
    fn id(&self) -> &'static str {
        names::GEMM
    }

    fn validate(&self) -> Result<(), BenchError> {
        self.config.validate()
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        self.config.validate()?;
        let c = &self.config;
        device::run_each(self.id(), c.gpus.as_deref(), ctx, |gpu, ctx, result| {
            measure(gpu, c, result, &|| ctx.cancel.is_cancelled())
        })
    }
}

fn measure(
    gpu: &Gpu,
    c: &GemmConfig,
    result: &mut BenchResult,
    cancelled: &dyn Fn() -> bool,
) -> Result<(), String> {
    let d = gpu.driver;
    result.set_param(param::GPU, gpu.label());
    result.set_param(
        param::COMPUTE_CAPABILITY,
        gpu.info.compute_capability.clone(),
    );
    result.set_param(
        param::METHOD,
        "cublasGemmEx with a 32 MiB workspace, C = A B, square column-major n x n, alpha 1, beta 0, default algorithm; FP16 and BF16 accumulate in FP32, TF32 is FP32 data on tensor cores; back-to-back multiplies for at least --duration timed with events, 2 n^3 FLOP each; 16 sampled entries of C checked against a host reference",
    );
    let blas = Cublas::open(d)?;
    result.set_param(
        param::LIBRARIES,
        format!("{}; CUDA driver {}", blas.describe(), d.path),
    );
    let mut peaks = Vec::new();
    let mut rng = XorShift64::new(0x9e37_79b9_7f4a_7c15);
    for &n in &c.sizes {
        let nn = n as usize * n as usize;
        let a_host: Vec<f64> = (0..nn).map(|_| unit(&mut rng)).collect();
        let b_host: Vec<f64> = (0..nn).map(|_| unit(&mut rng)).collect();
        for p in &c.precisions {
            if cancelled() {
                return Ok(());
            }
            let (dt, ct, size, doubles) =
                plan(p).ok_or_else(|| format!("unknown precision {p}"))?;
            let (a_dev, a_ref) = encode(p, &a_host);
            let (b_dev, b_ref) = encode(p, &b_host);
            let (a, b, cm) = (
                d.alloc(nn * size)?,
                d.alloc(nn * size)?,
                d.alloc(nn * size)?,
            );
            a.upload(&a_dev)?;
            b.upload(&b_dev)?;
            let doubles_scalars = doubles;
            // SAFETY: a, b and cm hold n*n elements of the precision.
            let gemm =
                || unsafe { blas.gemm(n as i32, [a.ptr, b.ptr, cm.ptr], dt, ct, doubles_scalars) };
            // One to warm up (cuBLAS picks and loads its kernel), one to size
            // the timed run.
            gemm()?;
            d.synchronize()?;
            let t = Instant::now();
            gemm()?;
            d.synchronize()?;
            let once = t.elapsed().as_secs_f64().max(1e-6);
            let reps = (c.duration.as_secs_f64() / once)
                .ceil()
                .clamp(1.0, 10_000.0) as u32;
            let (start, end) = (d.event()?, d.event()?);
            d.record(start, Stream::DEFAULT)?;
            for _ in 0..reps {
                gemm()?;
            }
            d.record(end, Stream::DEFAULT)?;
            let secs = d.elapsed(start, end)?;
            let rate = 2.0 * f64::from(n).powi(3) * f64::from(reps) / secs;
            // Sampled entries against the host.
            let mut raw = vec![0u8; size];
            for _ in 0..16 {
                let (i, j) = (
                    rng.below(u64::from(n)) as usize,
                    rng.below(u64::from(n)) as usize,
                );
                cm.download_at((i + j * n as usize) * size, &mut raw)?;
                let got = decode(p, &raw);
                let (want, bound) = reference(&a_ref, &b_ref, n as usize, i, j);
                let err = (got - want).abs() / bound.max(f64::MIN_POSITIVE);
                if err.is_nan() || err > tolerance(p) {
                    return Err(format!(
                        "{p} n={n}: C[{i},{j}] is {got}, the host reference {want} (error {err:.2e} of sum |a b|, limit {:.0e})",
                        tolerance(p)
                    ));
                }
            }
            let labelled = |m: Metric| {
                m.label(label::GPU, gpu.ordinal)
                    .label(label::PRECISION, p)
                    .label(label::N, n)
            };
            result.metrics.push(labelled(Metric::new(
                metric::RATE,
                rate,
                Unit::FlopsPerSecond,
                Better::Higher,
            )));
            match peak_flops(&gpu.info, gpu.major, gpu.minor, p) {
                Ok((peak, how)) => {
                    result.metrics.push(labelled(Metric::new(
                        metric::PEAK_PERCENT,
                        100.0 * rate / peak,
                        Unit::Percent,
                        Better::Higher,
                    )));
                    if !peaks
                        .iter()
                        .any(|x: &String| x.starts_with(&format!("{p} ")))
                    {
                        peaks.push(format!("{p} {how}"));
                    }
                    if rate > peak * 1.02 {
                        result.warnings.push(format!(
                            "{p} n={n}: {:.1} TFLOPS is above the table's peak of {:.1}: the clock or the table is wrong for this GPU",
                            rate / 1e12,
                            peak / 1e12
                        ));
                    }
                }
                Err(why) => {
                    if !peaks
                        .iter()
                        .any(|x: &String| x.starts_with(&format!("{p} ")))
                    {
                        peaks.push(format!("{p} unknown ({why})"));
                    }
                }
            }
        }
    }
    result.set_param(param::PEAK, peaks.join("; "));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precisions_round_trip_through_their_encodings() {
        let v = [0.1, -0.5, 0.999_7];
        for p in precision::ALL {
            let (raw, seen) = encode(p, &v);
            let size = plan(p).unwrap().2;
            assert_eq!(raw.len(), v.len() * size, "{p}");
            for (k, s) in seen.iter().enumerate() {
                assert_eq!(decode(p, &raw[k * size..(k + 1) * size]), *s, "{p}");
                assert!(
                    (s - v[k]).abs() <= v[k].abs() * 1e-2,
                    "{p}: {s} for {}",
                    v[k]
                );
            }
        }
        // BF16 keeps 8 bits: 0.1 becomes 0.10009765625.
        assert_eq!(encode(precision::BF16, &[0.1]).1[0], 0.10009765625);
    }

    #[test]
    fn the_reference_is_column_major_a_times_b() {
        // A = [[1, 2], [3, 4]], B = [[5, 6], [7, 8]] column-major.
        let a = [1.0, 3.0, 2.0, 4.0];
        let b = [5.0, 7.0, 6.0, 8.0];
        assert_eq!(reference(&a, &b, 2, 0, 0), (19.0, 19.0));
        assert_eq!(reference(&a, &b, 2, 1, 1), (50.0, 50.0));
        assert_eq!(reference(&a, &b, 2, 0, 1).0, 22.0);
    }

    #[test]
    fn tolerances_fit_their_precisions() {
        assert!(tolerance(precision::FP64) < tolerance(precision::FP32));
        assert!(tolerance(precision::FP32) < tolerance(precision::FP16));
        assert!(tolerance(precision::FP16) < tolerance(precision::BF16));
    }
}
