//! The operation-rate kernels: tight loops with enough independent chains to
//! fill the execution pipes, a known operation count per iteration, and
//! inputs the compiler cannot fold away.
//!
//! * Scalar kernels do one element per instruction: on x86-64 they are inline
//!   assembly (`mulsd`+`addsd`, `mulss`+`addss`, `add`+`xor`), so the compiler
//!   cannot vectorise them behind our back; elsewhere plain Rust.
//! * Vector kernels use the widest ISA detected at run time: AVX-512F, then
//!   AVX2+FMA, then SSE2 (x86-64 baseline), with fused multiply-add where the
//!   ISA has it. Each FMA counts as 2 floating-point operations.
//!
//! Floating-point chains run `x = x * m + c` with `m` just under 1, which
//! converges to a normal number (no denormals, no overflow).

/// Which operation-rate kernel to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kernel {
    /// 64-bit integer add + xor, one element per instruction.
    IntScalar,
    /// 32-bit integer add + xor over SIMD lanes.
    IntVector,
    /// Single-precision multiply + add, one element per instruction.
    F32Scalar,
    /// Single-precision fused multiply-add over SIMD lanes.
    F32Vector,
    /// Double-precision multiply + add, one element per instruction.
    F64Scalar,
    /// Double-precision fused multiply-add over SIMD lanes.
    F64Vector,
}

impl Kernel {
    /// Every kernel, in display order.
    pub const ALL: [Kernel; 6] = [
        Kernel::IntScalar,
        Kernel::IntVector,
        Kernel::F32Scalar,
        Kernel::F32Vector,
        Kernel::F64Scalar,
        Kernel::F64Vector,
    ];

    /// The name used on the command line and in labels.
    pub fn name(self) -> &'static str {
        match self {
            Kernel::IntScalar => "int.scalar",
            Kernel::IntVector => "int.vector",
            Kernel::F32Scalar => "f32.scalar",
            Kernel::F32Vector => "f32.vector",
            Kernel::F64Scalar => "f64.scalar",
            Kernel::F64Vector => "f64.vector",
        }
    }

    /// Parses a name written by [`Kernel::name`].
    pub fn parse(s: &str) -> Option<Kernel> {
        Kernel::ALL.into_iter().find(|k| k.name() == s)
    }

    /// True for floating-point kernels (rates in flop/s, set against the peak).
    pub fn is_float(self) -> bool {
        !matches!(self, Kernel::IntScalar | Kernel::IntVector)
    }

    /// True for the double-precision kernels.
    pub fn is_double(self) -> bool {
        matches!(self, Kernel::F64Scalar | Kernel::F64Vector)
    }
}

/// A kernel bound to the instruction set chosen on this CPU.
#[derive(Debug, Clone, Copy)]
pub struct KernelImpl {
    /// Which kernel.
    pub kernel: Kernel,
    /// The instructions it runs, e.g. `AVX2+FMA 256-bit`.
    pub isa: &'static str,
    /// Operations (flop or integer ops) per loop iteration.
    pub ops_per_iter: u64,
    run: fn(u64) -> f64,
}

impl KernelImpl {
    /// Runs `iters` iterations; returns a value derived from every chain so
    /// the work cannot be discarded.
    pub fn run(&self, iters: u64) -> f64 {
        (self.run)(iters)
    }
}

/// Picks the implementation of `kernel` for this CPU (run-time detection).
pub fn select(kernel: Kernel) -> KernelImpl {
    let (isa, ops_per_iter, run): (&'static str, u64, fn(u64) -> f64) = match kernel {
        Kernel::IntScalar => ("scalar 64-bit add+xor", 16, scalar::int),
        Kernel::F32Scalar => ("scalar mul+add", 24, scalar::f32),
        Kernel::F64Scalar => ("scalar mul+add", 24, scalar::f64),
        Kernel::IntVector | Kernel::F32Vector | Kernel::F64Vector => vector::select(kernel),
    };
    KernelImpl {
        kernel,
        isa,
        ops_per_iter,
        run,
    }
}

mod scalar {
    #[cfg(target_arch = "x86_64")]
    use std::arch::asm;
    use std::hint::black_box;

    /// 8 chains of `x = (x + a) ^ b`: 16 integer ops per iteration.
    #[cfg(target_arch = "x86_64")]
    pub(super) fn int(iters: u64) -> f64 {
        let (a, b): (u64, u64) = (
            black_box(0x9E37_79B9_7F4A_7C15),
            black_box(0x2545_F491_4F6C_DD1D),
        );
        let mut x = [1u64, 2, 3, 4, 5, 6, 7, 8].map(black_box);
        let n = iters.max(1);
        // SAFETY: register-only arithmetic and a counted loop; no memory access.
        unsafe {
            asm!(
                "2:",
                "add {x0}, {a}", "add {x1}, {a}", "add {x2}, {a}", "add {x3}, {a}",
                "add {x4}, {a}", "add {x5}, {a}", "add {x6}, {a}", "add {x7}, {a}",
                "xor {x0}, {b}", "xor {x1}, {b}", "xor {x2}, {b}", "xor {x3}, {b}",
                "xor {x4}, {b}", "xor {x5}, {b}", "xor {x6}, {b}", "xor {x7}, {b}",
                "dec {n}",
                "jnz 2b",
                a = in(reg) a, b = in(reg) b, n = inout(reg) n => _,
                x0 = inout(reg) x[0], x1 = inout(reg) x[1], x2 = inout(reg) x[2], x3 = inout(reg) x[3],
                x4 = inout(reg) x[4], x5 = inout(reg) x[5], x6 = inout(reg) x[6], x7 = inout(reg) x[7],
                options(nomem, nostack),
            );
        }
        x.iter().fold(0u64, |s, v| s ^ v) as f64
    }

    /// 12 chains of `x = x * m + c` (mulsd + addsd): 24 flop per iteration.
    #[cfg(target_arch = "x86_64")]
    pub(super) fn f64(iters: u64) -> f64 {
        let (m, c): (f64, f64) = (black_box(0.999_999), black_box(1e-6));
        let mut x: [f64; 12] = std::array::from_fn(|i| black_box(1.0 + i as f64 * 1e-3));
        let n = iters.max(1);
        // SAFETY: register-only arithmetic and a counted loop; no memory access.
        unsafe {
            asm!(
                "2:",
                "mulsd {x0}, {m}", "mulsd {x1}, {m}", "mulsd {x2}, {m}", "mulsd {x3}, {m}",
                "mulsd {x4}, {m}", "mulsd {x5}, {m}", "mulsd {x6}, {m}", "mulsd {x7}, {m}",
                "mulsd {x8}, {m}", "mulsd {x9}, {m}", "mulsd {x10}, {m}", "mulsd {x11}, {m}",
                "addsd {x0}, {c}", "addsd {x1}, {c}", "addsd {x2}, {c}", "addsd {x3}, {c}",
                "addsd {x4}, {c}", "addsd {x5}, {c}", "addsd {x6}, {c}", "addsd {x7}, {c}",
                "addsd {x8}, {c}", "addsd {x9}, {c}", "addsd {x10}, {c}", "addsd {x11}, {c}",
                "dec {n}",
                "jnz 2b",
                m = in(xmm_reg) m, c = in(xmm_reg) c, n = inout(reg) n => _,
                x0 = inout(xmm_reg) x[0], x1 = inout(xmm_reg) x[1], x2 = inout(xmm_reg) x[2],
                x3 = inout(xmm_reg) x[3], x4 = inout(xmm_reg) x[4], x5 = inout(xmm_reg) x[5],
                x6 = inout(xmm_reg) x[6], x7 = inout(xmm_reg) x[7], x8 = inout(xmm_reg) x[8],
                x9 = inout(xmm_reg) x[9], x10 = inout(xmm_reg) x[10], x11 = inout(xmm_reg) x[11],
                options(nomem, nostack),
            );
        }
        x.iter().sum()
    }

    /// 12 chains of `x = x * m + c` (mulss + addss): 24 flop per iteration.
    #[cfg(target_arch = "x86_64")]
    pub(super) fn f32(iters: u64) -> f64 {
        let (m, c): (f32, f32) = (black_box(0.999_99), black_box(1e-5));
        let mut x: [f32; 12] = std::array::from_fn(|i| black_box(1.0 + i as f32 * 1e-3));
        let n = iters.max(1);
        // SAFETY: register-only arithmetic and a counted loop; no memory access.
        unsafe {
            asm!(
                "2:",
                "mulss {x0}, {m}", "mulss {x1}, {m}", "mulss {x2}, {m}", "mulss {x3}, {m}",
                "mulss {x4}, {m}", "mulss {x5}, {m}", "mulss {x6}, {m}", "mulss {x7}, {m}",
                "mulss {x8}, {m}", "mulss {x9}, {m}", "mulss {x10}, {m}", "mulss {x11}, {m}",
                "addss {x0}, {c}", "addss {x1}, {c}", "addss {x2}, {c}", "addss {x3}, {c}",
                "addss {x4}, {c}", "addss {x5}, {c}", "addss {x6}, {c}", "addss {x7}, {c}",
                "addss {x8}, {c}", "addss {x9}, {c}", "addss {x10}, {c}", "addss {x11}, {c}",
                "dec {n}",
                "jnz 2b",
                m = in(xmm_reg) m, c = in(xmm_reg) c, n = inout(reg) n => _,
                x0 = inout(xmm_reg) x[0], x1 = inout(xmm_reg) x[1], x2 = inout(xmm_reg) x[2],
                x3 = inout(xmm_reg) x[3], x4 = inout(xmm_reg) x[4], x5 = inout(xmm_reg) x[5],
                x6 = inout(xmm_reg) x[6], x7 = inout(xmm_reg) x[7], x8 = inout(xmm_reg) x[8],
                x9 = inout(xmm_reg) x[9], x10 = inout(xmm_reg) x[10], x11 = inout(xmm_reg) x[11],
                options(nomem, nostack),
            );
        }
        x.iter().map(|v| *v as f64).sum()
    }

    /// Portable integer kernel (same op count as the x86-64 one).
    #[cfg(not(target_arch = "x86_64"))]
    pub(super) fn int(iters: u64) -> f64 {
        let (a, b): (u64, u64) = (
            black_box(0x9E37_79B9_7F4A_7C15),
            black_box(0x2545_F491_4F6C_DD1D),
        );
        let mut x = [1u64, 2, 3, 4, 5, 6, 7, 8].map(black_box);
        for _ in 0..iters.max(1) {
            for v in x.iter_mut() {
                *v = v.wrapping_add(a) ^ b;
            }
        }
        x.iter().fold(0u64, |s, v| s ^ v) as f64
    }

    /// Portable double-precision kernel (same op count as the x86-64 one).
    #[cfg(not(target_arch = "x86_64"))]
    pub(super) fn f64(iters: u64) -> f64 {
        let (m, c): (f64, f64) = (black_box(0.999_999), black_box(1e-6));
        let mut x: [f64; 12] = std::array::from_fn(|i| black_box(1.0 + i as f64 * 1e-3));
        for _ in 0..iters.max(1) {
            for v in x.iter_mut() {
                *v = *v * m + c;
            }
        }
        x.iter().sum()
    }

    /// Portable single-precision kernel (same op count as the x86-64 one).
    #[cfg(not(target_arch = "x86_64"))]
    pub(super) fn f32(iters: u64) -> f64 {
        let (m, c): (f32, f32) = (black_box(0.999_99), black_box(1e-5));
        let mut x: [f32; 12] = std::array::from_fn(|i| black_box(1.0 + i as f32 * 1e-3));
        for _ in 0..iters.max(1) {
            for v in x.iter_mut() {
                *v = *v * m + c;
            }
        }
        x.iter().map(|v| *v as f64).sum()
    }
}

mod vector {
    use super::Kernel;

    /// Chooses the widest implementation this CPU runs.
    pub(super) fn select(kernel: Kernel) -> (&'static str, u64, fn(u64) -> f64) {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                return match kernel {
                    Kernel::IntVector => (
                        "AVX-512F 512-bit add+xor",
                        x86::AVX512_ACC * 16 * 2,
                        x86::int_avx512,
                    ),
                    Kernel::F32Vector => (
                        "AVX-512F 512-bit FMA",
                        x86::AVX512_ACC * 16 * 2,
                        x86::f32_avx512,
                    ),
                    _ => (
                        "AVX-512F 512-bit FMA",
                        x86::AVX512_ACC * 8 * 2,
                        x86::f64_avx512,
                    ),
                };
            }
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                return match kernel {
                    Kernel::IntVector => {
                        ("AVX2 256-bit add+xor", x86::AVX2_ACC * 8 * 2, x86::int_avx2)
                    }
                    Kernel::F32Vector => {
                        ("AVX2+FMA 256-bit FMA", x86::AVX2_ACC * 8 * 2, x86::f32_fma)
                    }
                    _ => ("AVX2+FMA 256-bit FMA", x86::AVX2_ACC * 4 * 2, x86::f64_fma),
                };
            }
            match kernel {
                Kernel::IntVector => ("SSE2 128-bit add+xor", x86::AVX2_ACC * 4 * 2, x86::int_sse2),
                Kernel::F32Vector => ("SSE2 128-bit mul+add", x86::AVX2_ACC * 4 * 2, x86::f32_sse2),
                _ => ("SSE2 128-bit mul+add", x86::AVX2_ACC * 2 * 2, x86::f64_sse2),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            match kernel {
                Kernel::IntVector => (
                    "portable (compiler-vectorised) add+xor",
                    64 * 2,
                    portable::int,
                ),
                Kernel::F32Vector => (
                    "portable (compiler-vectorised) mul+add",
                    64 * 2,
                    portable::f32,
                ),
                _ => (
                    "portable (compiler-vectorised) mul+add",
                    32 * 2,
                    portable::f64,
                ),
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    mod x86 {
        use std::arch::x86_64::*;
        use std::hint::black_box;

        /// Independent accumulators for 16-register ISAs: 12 covers a 4-cycle
        /// FMA latency on two pipes (8) with room to spare.
        pub(super) const AVX2_ACC: u64 = 12;
        /// Independent accumulators with 32 vector registers.
        pub(super) const AVX512_ACC: u64 = 24;

        macro_rules! fp_kernel {
            ($name:ident, $feat:literal, $acc:expr, $vec:ty, $set1:ident, $step:expr, $reduce:expr, $elem:ty, $m:expr, $c:expr) => {
                /// Floating-point chains `x = x * m + c`; see the module docs.
                pub(super) fn $name(iters: u64) -> f64 {
                    #[target_feature(enable = $feat)]
                    unsafe fn inner(iters: u64) -> f64 {
                        let m: $vec = $set1(black_box($m));
                        let c: $vec = $set1(black_box($c));
                        let mut acc: [$vec; $acc as usize] =
                            std::array::from_fn(|i| $set1(black_box(1.0 + i as $elem * 1e-3)));
                        for _ in 0..iters.max(1) {
                            for a in acc.iter_mut() {
                                *a = $step(*a, m, c);
                            }
                        }
                        let mut sum = 0.0;
                        for a in acc.iter() {
                            sum += $reduce(*a) as f64;
                        }
                        sum
                    }
                    // SAFETY: `select` returns this kernel only after detecting the feature.
                    unsafe { inner(iters) }
                }
            };
        }

        macro_rules! int_kernel {
            ($name:ident, $feat:literal, $acc:expr, $vec:ty, $set1:ident, $add:ident, $xor:ident, $store:expr) => {
                /// Integer chains `x = (x + a) ^ b` over 32-bit lanes.
                pub(super) fn $name(iters: u64) -> f64 {
                    #[target_feature(enable = $feat)]
                    unsafe fn inner(iters: u64) -> f64 {
                        let a: $vec = $set1(black_box(0x7F4A_7C15));
                        let b: $vec = $set1(black_box(0x4F6C_DD1D));
                        let mut acc: [$vec; $acc as usize] =
                            std::array::from_fn(|i| $set1(black_box(i as i32)));
                        for _ in 0..iters.max(1) {
                            for x in acc.iter_mut() {
                                *x = $xor($add(*x, a), b);
                            }
                        }
                        let mut sum = 0i64;
                        for x in acc.iter() {
                            sum = sum.wrapping_add($store(*x) as i64);
                        }
                        sum as f64
                    }
                    // SAFETY: `select` returns this kernel only after detecting the feature.
                    unsafe { inner(iters) }
                }
            };
        }

        fn hsum_pd256(v: __m256d) -> f64 {
            let mut out = [0.0f64; 4];
            // SAFETY: `out` holds 4 f64; unaligned store.
            unsafe { _mm256_storeu_pd(out.as_mut_ptr(), v) };
            out.iter().sum()
        }
        fn hsum_ps256(v: __m256) -> f32 {
            let mut out = [0.0f32; 8];
            // SAFETY: `out` holds 8 f32; unaligned store.
            unsafe { _mm256_storeu_ps(out.as_mut_ptr(), v) };
            out.iter().sum()
        }
        fn hsum_pd128(v: __m128d) -> f64 {
            let mut out = [0.0f64; 2];
            // SAFETY: `out` holds 2 f64; unaligned store.
            unsafe { _mm_storeu_pd(out.as_mut_ptr(), v) };
            out.iter().sum()
        }
        fn hsum_ps128(v: __m128) -> f32 {
            let mut out = [0.0f32; 4];
            // SAFETY: `out` holds 4 f32; unaligned store.
            unsafe { _mm_storeu_ps(out.as_mut_ptr(), v) };
            out.iter().sum()
        }
        #[target_feature(enable = "avx512f")]
        fn hsum_pd512(v: __m512d) -> f64 {
            _mm512_reduce_add_pd(v)
        }
        #[target_feature(enable = "avx512f")]
        fn hsum_ps512(v: __m512) -> f32 {
            _mm512_reduce_add_ps(v)
        }
        #[target_feature(enable = "avx512f")]
        fn first_epi32_512(v: __m512i) -> i32 {
            _mm512_reduce_add_epi32(v)
        }
        #[target_feature(enable = "avx2")]
        fn first_epi32_256(v: __m256i) -> i32 {
            _mm256_extract_epi32::<0>(v)
        }
        fn first_epi32_128(v: __m128i) -> i32 {
            // SAFETY: SSE2 is part of the x86-64 baseline.
            unsafe { _mm_cvtsi128_si32(v) }
        }

        fp_kernel!(
            f64_avx512,
            "avx512f",
            AVX512_ACC,
            __m512d,
            _mm512_set1_pd,
            _mm512_fmadd_pd,
            hsum_pd512,
            f64,
            0.999_999,
            1e-6
        );
        fp_kernel!(
            f32_avx512,
            "avx512f",
            AVX512_ACC,
            __m512,
            _mm512_set1_ps,
            _mm512_fmadd_ps,
            hsum_ps512,
            f32,
            0.999_99,
            1e-5
        );
        fp_kernel!(
            f64_fma,
            "avx2,fma",
            AVX2_ACC,
            __m256d,
            _mm256_set1_pd,
            _mm256_fmadd_pd,
            hsum_pd256,
            f64,
            0.999_999,
            1e-6
        );
        fp_kernel!(
            f32_fma,
            "avx2,fma",
            AVX2_ACC,
            __m256,
            _mm256_set1_ps,
            _mm256_fmadd_ps,
            hsum_ps256,
            f32,
            0.999_99,
            1e-5
        );
        fp_kernel!(
            f64_sse2,
            "sse2",
            AVX2_ACC,
            __m128d,
            _mm_set1_pd,
            |x, m, c| _mm_add_pd(_mm_mul_pd(x, m), c),
            hsum_pd128,
            f64,
            0.999_999,
            1e-6
        );
        fp_kernel!(
            f32_sse2,
            "sse2",
            AVX2_ACC,
            __m128,
            _mm_set1_ps,
            |x, m, c| _mm_add_ps(_mm_mul_ps(x, m), c),
            hsum_ps128,
            f32,
            0.999_99,
            1e-5
        );
        int_kernel!(
            int_avx512,
            "avx512f",
            AVX512_ACC,
            __m512i,
            _mm512_set1_epi32,
            _mm512_add_epi32,
            _mm512_xor_si512,
            first_epi32_512
        );
        int_kernel!(
            int_avx2,
            "avx2",
            AVX2_ACC,
            __m256i,
            _mm256_set1_epi32,
            _mm256_add_epi32,
            _mm256_xor_si256,
            first_epi32_256
        );
        int_kernel!(
            int_sse2,
            "sse2",
            AVX2_ACC,
            __m128i,
            _mm_set1_epi32,
            _mm_add_epi32,
            _mm_xor_si128,
            first_epi32_128
        );
    }

    #[cfg(not(target_arch = "x86_64"))]
    mod portable {
        use std::hint::black_box;

        /// 32 double chains, left to the compiler to vectorise.
        pub(super) fn f64(iters: u64) -> f64 {
            let (m, c): (f64, f64) = (black_box(0.999_999), black_box(1e-6));
            let mut x: [f64; 32] = std::array::from_fn(|i| black_box(1.0 + i as f64 * 1e-3));
            for _ in 0..iters.max(1) {
                for v in x.iter_mut() {
                    *v = v.mul_add(m, c);
                }
            }
            x.iter().sum()
        }

        /// 64 single chains, left to the compiler to vectorise.
        pub(super) fn f32(iters: u64) -> f64 {
            let (m, c): (f32, f32) = (black_box(0.999_99), black_box(1e-5));
            let mut x: [f32; 64] = std::array::from_fn(|i| black_box(1.0 + i as f32 * 1e-3));
            for _ in 0..iters.max(1) {
                for v in x.iter_mut() {
                    *v = v.mul_add(m, c);
                }
            }
            x.iter().map(|v| *v as f64).sum()
        }

        /// 64 integer chains, left to the compiler to vectorise.
        pub(super) fn int(iters: u64) -> f64 {
            let (a, b): (u32, u32) = (black_box(0x7F4A_7C15), black_box(0x4F6C_DD1D));
            let mut x: [u32; 64] = std::array::from_fn(|i| black_box(i as u32));
            for _ in 0..iters.max(1) {
                for v in x.iter_mut() {
                    *v = v.wrapping_add(a) ^ b;
                }
            }
            x.iter().fold(0u32, |s, v| s ^ v) as f64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kernel_runs_and_stays_finite() {
        for k in Kernel::ALL {
            let imp = select(k);
            let v = imp.run(1000);
            assert!(v.is_finite(), "{}: {v}", k.name());
            assert!(imp.ops_per_iter > 0);
            assert_eq!(Kernel::parse(k.name()), Some(k));
        }
    }

    #[test]
    fn float_chains_converge_without_overflow() {
        let v = select(Kernel::F64Vector).run(5_000_000);
        assert!(v.is_finite() && v > 0.0);
    }
}
