//! `gpu stream`: BabelStream's five kernels (copy, mul, add, triad, dot)
//! in double precision on each GPU, arrays sized from its memory, the
//! results validated as BabelStream does, GB/s at the fastest repetition
//! and as a percentage of the memory's theoretical peak.

use std::ffi::c_void;

use nodebench_core::bench::{BenchError, Benchmark, Context};
use nodebench_core::config::Config;
use nodebench_core::names::gpu::{self as names, kernel, label, metric, param};
use nodebench_core::names::labels::KERNEL;
use nodebench_core::{BenchResult, Better, Metric, Unit};

use crate::config::StreamConfig;
use crate::device::{self, Gpu};
use crate::kernels::{BLOCK, STREAM_BLOCK, stream_grid};
use nodebench_nvidia::cuda::Stream;

/// BabelStream's starting values and scalar.
pub const START_A: f64 = 0.1;
pub const START_B: f64 = 0.2;
pub const START_C: f64 = 0.0;
pub const SCALAR: f64 = 0.4;

/// The values every element holds after `ntimes` rounds of copy, mul, add
/// and triad, and the dot product of the last round over `n` elements.
pub fn expected(ntimes: u32, n: u64) -> (f64, f64, f64, f64) {
    let (mut a, mut b, mut c) = (START_A, START_B, START_C);
    for _ in 0..ntimes {
        c = a;
        b = SCALAR * c;
        c = a + b;
        a = b + SCALAR * c;
    }
    (a, b, c, a * b * n as f64)
}

/// Bytes each kernel moves per element (BabelStream's counts).
pub fn bytes_per_element(k: &str) -> u64 {
    match k {
        kernel::ADD | kernel::TRIAD => 3 * 8,
        _ => 2 * 8,
    }
}

/// The default array length: the largest power of two up to 2^28 whose
/// three arrays take at most a quarter of the GPU's memory, at least 2^20.
pub fn default_elements(memory_bytes: u64) -> u64 {
    let mut n: u64 = 1 << 28;
    while n > 1 << 20 && 3 * 8 * n > memory_bytes / 4 {
        n /= 2;
    }
    n
}

/// Whether the arrays after the run hold what they should: BabelStream's
/// test (mean absolute error under 100 machine epsilons, the dot product
/// within 1e-8 relative); the error names the array.
pub fn check(ntimes: u32, n: u64, mean_errors: [f64; 3], dot: f64) -> Result<(), crate::Error> {
    let (_, _, _, gold_sum) = expected(ntimes, n);
    let epsi = f64::EPSILON * 100.0;
    for (name, e) in ["a", "b", "c"].iter().zip(mean_errors) {
        if e.is_nan() || e > epsi {
            return Err(crate::Error::Failed(format!(
                "validation failed: array {name} is off by {e:.3e} on average (limit {epsi:.1e})"
            )));
        }
    }
    let rel = ((dot - gold_sum) / gold_sum).abs();
    if rel.is_nan() || rel > 1e-8 {
        return Err(crate::Error::Failed(format!(
            "validation failed: dot is {dot:.12e}, expected {gold_sum:.12e} (relative error {rel:.2e})"
        )));
    }
    Ok(())
}

/// The benchmark.
pub struct GpuStream {
    pub config: StreamConfig,
}

impl Benchmark for GpuStream {
    fn id(&self) -> &'static str {
        names::STREAM
    }

    fn validate(&self) -> Result<(), BenchError> {
        self.config.validate()
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        self.config.validate()?;
        let c = &self.config;
        device::run_each(self.id(), c.gpus.as_deref(), ctx, |gpu, _, result| {
            measure(gpu, c, result)
        })
    }
}

/// Runs the kernels on `gpu` into `result`.
fn measure(gpu: &Gpu, c: &StreamConfig, result: &mut BenchResult) -> Result<(), crate::Error> {
    let d = gpu.driver;
    let n = c
        .array_elements
        .unwrap_or_else(|| default_elements(gpu.info.memory_bytes.unwrap_or(16 << 30)));
    result.set_param(param::GPU, gpu.label());
    result.set_param(
        param::COMPUTE_CAPABILITY,
        gpu.info.compute_capability.clone(),
    );
    result.set_param(param::ARRAY_ELEMENTS, n);
    result.set_param(param::NTIMES, c.ntimes);
    let peak = gpu.info.memory_peak_bytes_per_s();
    result.set_param(
        param::PEAK,
        peak.map(|p| {
            format!(
                "{:.0} GB/s: memory clock {} MHz x 2 x {}-bit bus",
                p / 1e9,
                gpu.info.max_memory_clock_mhz.unwrap_or(0),
                gpu.info.memory_bus_bits.unwrap_or(0)
            )
        }),
    );
    result.set_param(
        param::METHOD,
        "BabelStream's kernels in double precision (copy, mul, add, triad: 16-byte double2 accesses, four elements a thread in two coalesced passes, 256 threads a block; dot: a grid-stride loop over 4 blocks of 1024 threads per SM); each repetition timed on the GPU with events; the figure is the fastest repetition after the first, in BabelStream's byte counts (copy, mul, dot 16 B per element, add, triad 24 B)",
    );
    let (k, nvrtc) = gpu.kernels()?;
    result.set_param(
        param::LIBRARIES,
        format!("{}; CUDA driver {}", nvrtc, d.path),
    );
    let bytes = (n * 8) as usize;
    let (a, b, cc) = (d.alloc(bytes)?, d.alloc(bytes)?, d.alloc(bytes)?);
    let dot_blocks = 4 * gpu.info.sms.unwrap_or(108).max(1);
    let sums = d.alloc(dot_blocks as usize * 8)?;
    let grid = stream_grid(n);
    let (mut pa, mut pb, mut pc, mut ps, mut nn) = (a.ptr, b.ptr, cc.ptr, sums.ptr, n);
    let (mut ia, mut ib, mut ic, mut s) = (START_A, START_B, START_C, SCALAR);
    // SAFETY: every launch below passes the kernel's parameters in order
    // (kernels::SOURCE), as pointers to locals that outlive the call.
    let launch = |f, grid, args: &mut [*mut c_void]| unsafe { d.launch(f, grid, BLOCK, 0, args) };
    let launch_stream =
        // SAFETY: the kernel's parameters in order (kernels::SOURCE), as pointers to locals that outlive the call.
        |f, args: &mut [*mut c_void]| unsafe { d.launch(f, grid, STREAM_BLOCK, 0, args) };
    let arg = |x: &mut u64| x as *mut u64 as *mut c_void;
    let argf = |x: &mut f64| x as *mut f64 as *mut c_void;
    launch(
        k[0],
        dot_blocks,
        &mut [
            arg(&mut pa),
            arg(&mut pb),
            arg(&mut pc),
            argf(&mut ia),
            argf(&mut ib),
            argf(&mut ic),
            arg(&mut nn),
        ],
    )?;
    d.synchronize()?;
    let (start, end) = (d.event()?, d.event()?);
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); 5];
    let mut dot = 0.0;
    let mut partial = vec![0f64; dot_blocks as usize];
    for _ in 0..c.ntimes {
        for (i, times) in times.iter_mut().enumerate() {
            d.record(start, Stream::DEFAULT)?;
            match i {
                0 => launch_stream(k[1], &mut [arg(&mut pa), arg(&mut pc), arg(&mut nn)])?,
                1 => launch_stream(
                    k[2],
                    &mut [arg(&mut pb), arg(&mut pc), argf(&mut s), arg(&mut nn)],
                )?,
                2 => launch_stream(
                    k[3],
                    &mut [arg(&mut pa), arg(&mut pb), arg(&mut pc), arg(&mut nn)],
                )?,
                3 => launch_stream(
                    k[4],
                    &mut [
                        arg(&mut pa),
                        arg(&mut pb),
                        arg(&mut pc),
                        argf(&mut s),
                        arg(&mut nn),
                    ],
                )?,
                _ => launch(
                    k[5],
                    dot_blocks,
                    &mut [arg(&mut pa), arg(&mut pb), arg(&mut ps), arg(&mut nn)],
                )?,
            }
            d.record(end, Stream::DEFAULT)?;
            times.push(d.elapsed(start, end)?);
            if i == 4 {
                sums.download(&mut partial)?;
                dot = partial.iter().sum();
            }
        }
    }
    // Validation on the GPU: the mean |x - expected| of each array.
    let (ga, gb, gc, _) = expected(c.ntimes, n);
    let mut errors = [0.0; 3];
    for (i, (mut p, mut gold)) in [(pa, ga), (pb, gb), (pc, gc)].into_iter().enumerate() {
        launch(
            k[6],
            dot_blocks,
            &mut [arg(&mut p), argf(&mut gold), arg(&mut ps), arg(&mut nn)],
        )?;
        sums.download(&mut partial)?;
        errors[i] = partial.iter().sum::<f64>() / n as f64;
    }
    check(c.ntimes, n, errors, dot)?;
    for (name, t) in kernel::ALL.iter().zip(&times) {
        let best = t.iter().skip(1).cloned().fold(f64::INFINITY, f64::min);
        let bw = (bytes_per_element(name) * n) as f64 / best;
        let labelled = |m: Metric| m.label(label::GPU, gpu.ordinal).label(KERNEL, name);
        result.metrics.push(labelled(Metric::new(
            metric::BANDWIDTH,
            bw,
            Unit::BytesPerSecond,
            Better::Higher,
        )));
        if let Some(p) = peak {
            result.metrics.push(labelled(Metric::new(
                metric::PEAK_PERCENT,
                100.0 * bw / p,
                Unit::Percent,
                Better::Higher,
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_values_follow_babelstream() {
        // One round: c = 0.1, b = 0.04, c = 0.14, a = 0.04 + 0.4 * 0.14.
        let (a, b, c, sum) = expected(1, 1000);
        assert!((c - 0.14).abs() < 1e-15 && (b - 0.04).abs() < 1e-15);
        assert!((a - 0.096).abs() < 1e-15);
        assert!((sum - 0.096 * 0.04 * 1000.0).abs() < 1e-12);
        // The values stay finite and positive over BabelStream's 100 rounds.
        let (a, b, c, _) = expected(100, 1 << 25);
        assert!(a > 0.0 && b > 0.0 && c > 0.0 && a.is_finite());
    }

    #[test]
    fn byte_counts_and_sizing() {
        assert_eq!(bytes_per_element(kernel::COPY), 16);
        assert_eq!(bytes_per_element(kernel::TRIAD), 24);
        assert_eq!(bytes_per_element(kernel::DOT), 16);
        // 141 GiB (H200): 2^28 doubles, 2 GiB an array.
        assert_eq!(default_elements(143_771 << 20), 1 << 28);
        // 16 GiB: 3 x 8 x n <= 4 GiB -> 2^27.
        assert_eq!(default_elements(16 << 30), 1 << 27);
        // Tiny memory still leaves 2^20.
        assert_eq!(default_elements(1 << 20), 1 << 20);
    }

    #[test]
    fn stream_kernels_cover_every_element() {
        // Four elements a thread, 256 threads a block.
        assert_eq!(stream_grid(1 << 28), (1 << 28) / 1024);
        assert_eq!(stream_grid(1024), 1);
        assert_eq!(stream_grid(1 << 20 | 1024), 1025);
        for n in [1u64 << 20, (1 << 20) + 1024, 3 << 20] {
            assert!(u64::from(stream_grid(n)) * u64::from(STREAM_BLOCK) * 4 >= n);
        }
    }

    #[test]
    fn validation_catches_a_wrong_array_or_dot() {
        let (_, _, _, sum) = expected(10, 4096);
        check(10, 4096, [0.0; 3], sum).unwrap();
        let e = check(10, 4096, [0.0, 1e-6, 0.0], sum).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("validation failed: array b is off by"),
            "{e}"
        );
        let e = check(10, 4096, [0.0; 3], sum * 1.001).unwrap_err();
        assert!(
            e.to_string().starts_with("validation failed: dot is"),
            "{e}"
        );
        assert!(check(10, 4096, [f64::NAN, 0.0, 0.0], sum).is_err());
    }
}
