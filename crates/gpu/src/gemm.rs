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
use crate::lt::{Fp8Gemm, e4m3_from_f64, e4m3_to_f64};
use crate::peak::peak_flops;
use crate::toolkit::{Cublas, compute, dtype};
use nodebench_nvidia::cuda::{DeviceBuffer, Stream};

/// How a precision is asked of cuBLAS: input data type, compute type,
/// bytes per input element, bytes per output element, whether the scalars
/// are doubles. FP8 goes through cuBLASLt ([`crate::lt`]) with BF16 output.
pub fn plan(p: &str) -> Option<(i32, i32, usize, usize, bool)> {
    Some(match p {
        precision::FP64 => (dtype::R_64F, compute::C_64F, 8, 8, true),
        precision::FP32 => (dtype::R_32F, compute::C_32F, 4, 4, false),
        precision::TF32 => (dtype::R_32F, compute::C_32F_FAST_TF32, 4, 4, false),
        precision::FP16 => (dtype::R_16F, compute::C_32F, 2, 2, false),
        precision::BF16 => (dtype::R_16BF, compute::C_32F, 2, 2, false),
        precision::FP8 => (dtype::R_8F_E4M3, compute::C_32F, 1, 2, false),
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
        // TF32 inputs keep 10 mantissa bits, BF16 output (BF16, FP8) 8.
        _ => 1e-2,
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
        precision::FP8 => {
            let v: Vec<u8> = values.iter().map(|x| e4m3_from_f64(*x)).collect();
            let seen = v.iter().map(|c| e4m3_to_f64(*c)).collect();
            (v, seen)
        }
        _ => {
            let v: Vec<bf16> = values.iter().map(|x| bf16::from_f64(*x)).collect();
            (bytes(&v), v.iter().map(|x| x.to_f64()).collect())
        }
    }
}

/// An element of C as read back (FP8's output is BF16).
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

/// Entry (i, j) of A B (of A^T B where `transpose_a`, as FP8 multiplies)
/// for column-major n x n `a`, `b`, and the sum of |a_ik b_kj| it is
/// judged against.
pub fn reference(
    a: &[f64],
    b: &[f64],
    n: usize,
    i: usize,
    j: usize,
    transpose_a: bool,
) -> (f64, f64) {
    let (mut s, mut bound) = (0.0, 0.0);
    for k in 0..n {
        let aik = if transpose_a {
            a[k + i * n]
        } else {
            a[i + k * n]
        };
        let x = aik * b[k + j * n];
        s += x;
        bound += x.abs();
    }
    (s, bound)
}

/// One precision's multiply C = A B of n x n matrices on the current
/// context: A and B uploaded, cuBLAS (or cuBLASLt for FP8) ready.
pub struct Multiply<'a> {
    pub precision: String,
    pub n: u32,
    a: DeviceBuffer,
    b: DeviceBuffer,
    /// C, where [`Multiply::run`] writes.
    pub c: DeviceBuffer,
    /// Bytes of one element of C.
    pub out_bytes: usize,
    a_ref: Vec<f64>,
    b_ref: Vec<f64>,
    blas: &'a Cublas,
    engine: Engine,
}

enum Engine {
    Ex { dt: i32, ct: i32, doubles: bool },
    Fp8(Box<Fp8Gemm>),
}

impl<'a> Multiply<'a> {
    /// Uploads `a_host`, `b_host` (n*n values in [-1, 1)) at precision `p`.
    pub fn new(
        gpu: &Gpu,
        blas: &'a Cublas,
        p: &str,
        n: u32,
        a_host: &[f64],
        b_host: &[f64],
    ) -> Result<Multiply<'a>, crate::Error> {
        let d = gpu.driver;
        let (dt, ct, size, out_bytes, doubles) =
            plan(p).ok_or_else(|| crate::Error::Failed(format!("unknown precision {p}")))?;
        let engine = if p == precision::FP8 {
            Engine::Fp8(Box::new(Fp8Gemm::plan(d, u64::from(n))?))
        } else {
            Engine::Ex { dt, ct, doubles }
        };
        let nn = n as usize * n as usize;
        let (a_dev, a_ref) = encode(p, a_host);
        let (b_dev, b_ref) = encode(p, b_host);
        let (a, b, c) = (
            d.alloc(nn * size)?,
            d.alloc(nn * size)?,
            d.alloc(nn * out_bytes)?,
        );
        a.upload(&a_dev)?;
        b.upload(&b_dev)?;
        Ok(Multiply {
            precision: p.to_string(),
            n,
            a,
            b,
            c,
            out_bytes,
            a_ref,
            b_ref,
            blas,
            engine,
        })
    }

    /// The library that multiplies, in words.
    pub fn describe(&self) -> String {
        match &self.engine {
            Engine::Ex { .. } => self.blas.describe(),
            Engine::Fp8(lt) => lt.describe(),
        }
    }

    /// C = A B into [`Multiply::c`].
    pub fn run(&self) -> Result<(), crate::Error> {
        self.run_into(self.c.ptr)
    }

    /// C = A B into `c`, a device buffer of n*n output elements.
    pub fn run_into(&self, c: u64) -> Result<(), crate::Error> {
        let (a, b) = (self.a.ptr, self.b.ptr);
        // SAFETY: a and b hold n*n inputs and c (per the callers) n*n
        // outputs of the precision, on the current context.
        unsafe {
            match &self.engine {
                Engine::Ex { dt, ct, doubles } => {
                    self.blas.gemm(self.n as i32, [a, b, c], *dt, *ct, *doubles)
                }
                Engine::Fp8(lt) => lt.run(a, b, c),
            }
        }
    }

    /// Checks 16 entries of C, drawn from `rng`, against the host
    /// reference; the error names the entry, both values and the limit.
    pub fn check(&self, rng: &mut XorShift64) -> Result<(), crate::Error> {
        let (p, n) = (self.precision.as_str(), self.n);
        let mut raw = vec![0u8; self.out_bytes];
        for _ in 0..16 {
            let (i, j) = (
                rng.below(u64::from(n)) as usize,
                rng.below(u64::from(n)) as usize,
            );
            self.c
                .download_at((i + j * n as usize) * self.out_bytes, &mut raw)?;
            let got = decode(p, &raw);
            let fp8 = matches!(self.engine, Engine::Fp8(_));
            let (want, bound) = reference(&self.a_ref, &self.b_ref, n as usize, i, j, fp8);
            let err = (got - want).abs() / bound.max(f64::MIN_POSITIVE);
            if err.is_nan() || err > tolerance(p) {
                return Err(crate::Error::Failed(format!(
                    "{p} n={n}: C[{i},{j}] is {got}, the host reference {want} (error {err:.2e} of sum |a b|, limit {:.0e})",
                    tolerance(p)
                )));
            }
        }
        Ok(())
    }
}

/// n*n values uniform in [-1, 1) from `rng`.
pub fn random_matrix(rng: &mut XorShift64, n: u32) -> Vec<f64> {
    (0..n as usize * n as usize).map(|_| unit(rng)).collect()
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
            measure(gpu, c, result, ctx)
        })
    }
}

fn measure(
    gpu: &Gpu,
    c: &GemmConfig,
    result: &mut BenchResult,
    ctx: &mut Context<'_>,
) -> Result<(), crate::Error> {
    let d = gpu.driver;
    result.set_param(param::GPU, gpu.label());
    result.set_param(
        param::COMPUTE_CAPABILITY,
        gpu.info.compute_capability.clone(),
    );
    result.set_param(
        param::METHOD,
        "cublasGemmEx with a 32 MiB workspace, C = A B, square column-major n x n, alpha 1, beta 0, default algorithm; FP16 and BF16 accumulate in FP32, TF32 is FP32 data on tensor cores; FP8 is cublasLtMatmul, D = A^T B with E4M3 inputs (scales 1), BF16 output, FP32 accumulation; back-to-back multiplies for at least --duration timed with events, 2 n^3 FLOP each; 16 sampled entries of C checked against a host reference",
    );
    let blas = Cublas::open(d)?;
    let mut libraries = vec![blas.describe()];
    let mut peaks = Vec::new();
    let mut rng = XorShift64::new(0x9e37_79b9_7f4a_7c15);
    for &n in &c.sizes {
        let a_host = random_matrix(&mut rng, n);
        let b_host = random_matrix(&mut rng, n);
        for p in &c.precisions {
            if ctx.cancel.is_cancelled() {
                return Ok(());
            }
            let m = match Multiply::new(gpu, &blas, p, n, &a_host, &b_host) {
                Ok(m) => m,
                // A GPU without FP8 (before Ada) runs the other precisions.
                Err(why) if p == precision::FP8 => {
                    let w = format!("fp8 not measured: {why}");
                    if !result.warnings.contains(&w) {
                        result.warnings.push(w);
                    }
                    continue;
                }
                Err(why) => return Err(why),
            };
            if !libraries.contains(&m.describe()) {
                libraries.push(m.describe());
            }
            // One to warm up (cuBLAS picks and loads its kernel), one to size
            // the timed run.
            m.run()?;
            d.synchronize()?;
            let t = Instant::now();
            m.run()?;
            d.synchronize()?;
            let once = t.elapsed().as_secs_f64().max(1e-6);
            let reps = (c.duration.as_secs_f64() / once)
                .ceil()
                .clamp(1.0, 10_000.0) as u32;
            let (start, end) = (d.event()?, d.event()?);
            // The timed multiplies are a phase of their own (the GPU idle
            // before it, done after it): their energy is the phase's.
            let phase = ctx.begin_phase();
            d.record(start, Stream::DEFAULT)?;
            for _ in 0..reps {
                m.run()?;
            }
            d.record(end, Stream::DEFAULT)?;
            let secs = d.elapsed(start, end)?;
            ctx.end_phase(
                result,
                phase,
                &[
                    (label::GPU, gpu.ordinal.to_string()),
                    (label::PRECISION, p.to_string()),
                    (label::N, n.to_string()),
                ],
            );
            let rate = 2.0 * f64::from(n).powi(3) * f64::from(reps) / secs;
            m.check(&mut rng)?;
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
    result.set_param(
        param::LIBRARIES,
        format!("{}; CUDA driver {}", libraries.join("; "), d.path),
    );
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
            if p == precision::FP8 {
                // E4M3 in, BF16 out: checked in lt's tests.
                assert_eq!(raw.len(), v.len());
                continue;
            }
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
        assert_eq!(reference(&a, &b, 2, 0, 0, false), (19.0, 19.0));
        assert_eq!(reference(&a, &b, 2, 1, 1, false), (50.0, 50.0));
        assert_eq!(reference(&a, &b, 2, 0, 1, false).0, 22.0);
        // A^T = [[1, 3], [2, 4]]: (A^T B)[0][1] = 1*6 + 3*8.
        assert_eq!(reference(&a, &b, 2, 0, 1, true).0, 30.0);
        assert_eq!(reference(&a, &b, 2, 1, 0, true).0, 2.0 * 5.0 + 4.0 * 7.0);
    }

    #[test]
    fn tolerances_fit_their_precisions() {
        assert!(tolerance(precision::FP64) < tolerance(precision::FP32));
        assert!(tolerance(precision::FP32) < tolerance(precision::FP16));
        assert!(tolerance(precision::FP16) < tolerance(precision::BF16));
    }
}
