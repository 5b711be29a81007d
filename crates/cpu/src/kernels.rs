//! The operation-rate kernels: tight loops with enough independent chains to
//! fill the execution pipes, a known operation count per iteration, and
//! inputs the compiler cannot fold away.
//!
//! * Scalar kernels do one element per instruction: on x86-64 and aarch64
//!   they are inline assembly (`mulsd`+`addsd`, `fmul`+`fadd`, `add`+`xor`
//!   or `eor`), so the compiler cannot vectorise them behind our back;
//!   elsewhere plain Rust.
//! * Vector kernels use the widest ISA detected at run time: on x86-64
//!   AVX-512F, then AVX2+FMA, then SSE2 (the baseline); on aarch64 NEON
//!   (`kernels/arm.rs`); elsewhere a portable loop the compiler vectorises,
//!   and the result's ISA says so. Fused multiply-add where the ISA has it;
//!   each FMA counts as 2 floating-point operations.
//!
//! Floating-point chains run `x = x * m + c` with `m` just under 1, which
//! converges to a normal number (no denormals, no overflow). Chain `i`
//! starts at `2 + i/1000`, far enough from the fixed point 1 that every
//! iteration changes every chain for the first hundred thousand iterations:
//! each kernel returns its chains, and the tests replay them bit for bit
//! against a scalar model that counts its operations.

use crate::config::Kernel;

#[cfg(target_arch = "aarch64")]
mod arm;

/// The final state of a kernel's chains, lane by lane (accumulator 0's
/// lanes first): every chain's value depends on every iteration, so the
/// work cannot be discarded, and a test can replay the recurrence.
#[derive(Debug, Clone, PartialEq)]
pub enum Chains {
    /// 64-bit integer chains.
    U64(Vec<u64>),
    /// 32-bit integer lanes.
    U32(Vec<u32>),
    /// Single-precision chains.
    F32(Vec<f32>),
    /// Double-precision chains.
    F64(Vec<f64>),
}

impl From<Vec<f64>> for Chains {
    fn from(v: Vec<f64>) -> Chains {
        Chains::F64(v)
    }
}

impl From<Vec<f32>> for Chains {
    fn from(v: Vec<f32>) -> Chains {
        Chains::F32(v)
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
    run: fn(u64) -> Chains,
}

impl KernelImpl {
    /// Runs `iters` iterations (at least one); returns the chains' final
    /// state.
    pub fn run(&self, iters: u64) -> Chains {
        (self.run)(iters)
    }
}

/// An implementation: its ISA text, operations per iteration and entry point.
type Implementation = (&'static str, u64, fn(u64) -> Chains);

/// Every implementation of `kernel` this CPU runs (run-time detection), the
/// widest first.
pub fn available(kernel: Kernel) -> Vec<KernelImpl> {
    let found: Vec<Implementation> = match kernel {
        #[cfg(target_arch = "aarch64")]
        Kernel::IntScalar => vec![("scalar 64-bit add+eor", 16, arm::int)],
        #[cfg(target_arch = "aarch64")]
        Kernel::F32Scalar => vec![("scalar mul+add", 24, arm::f32)],
        #[cfg(target_arch = "aarch64")]
        Kernel::F64Scalar => vec![("scalar mul+add", 24, arm::f64)],
        #[cfg(not(target_arch = "aarch64"))]
        Kernel::IntScalar => vec![("scalar 64-bit add+xor", 16, scalar::int)],
        #[cfg(not(target_arch = "aarch64"))]
        Kernel::F32Scalar => vec![("scalar mul+add", 24, scalar::f32)],
        #[cfg(not(target_arch = "aarch64"))]
        Kernel::F64Scalar => vec![("scalar mul+add", 24, scalar::f64)],
        Kernel::IntVector | Kernel::F32Vector | Kernel::F64Vector => vector::available(kernel),
    };
    found
        .into_iter()
        .map(|(isa, ops_per_iter, run)| KernelImpl {
            kernel,
            isa,
            ops_per_iter,
            run,
        })
        .collect()
}

/// Picks the widest implementation of `kernel` this CPU runs.
pub fn select(kernel: Kernel) -> KernelImpl {
    available(kernel)
        .into_iter()
        .next()
        .expect("every kernel has a baseline implementation")
}

#[cfg(not(target_arch = "aarch64"))]
mod scalar {
    #[cfg(target_arch = "x86_64")]
    use std::arch::asm;
    use std::hint::black_box;

    use super::Chains;

    /// 8 chains of `x = (x + a) ^ b`: 16 integer ops per iteration.
    #[cfg(target_arch = "x86_64")]
    pub(super) fn int(iters: u64) -> Chains {
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
        Chains::U64(x.to_vec())
    }

    /// 12 chains of `x = x * m + c` (mulsd + addsd): 24 flop per iteration.
    #[cfg(target_arch = "x86_64")]
    pub(super) fn f64(iters: u64) -> Chains {
        let (m, c): (f64, f64) = (black_box(0.999_999), black_box(1e-6));
        let mut x: [f64; 12] = std::array::from_fn(|i| black_box(2.0 + i as f64 * 1e-3));
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
        Chains::F64(x.to_vec())
    }

    /// 12 chains of `x = x * m + c` (mulss + addss): 24 flop per iteration.
    #[cfg(target_arch = "x86_64")]
    pub(super) fn f32(iters: u64) -> Chains {
        let (m, c): (f32, f32) = (black_box(0.999_99), black_box(1e-5));
        let mut x: [f32; 12] = std::array::from_fn(|i| black_box(2.0 + i as f32 * 1e-3));
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
        Chains::F32(x.to_vec())
    }

    /// Portable integer kernel (same op count as the x86-64 one).
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    pub(super) fn int(iters: u64) -> Chains {
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
        Chains::U64(x.to_vec())
    }

    /// Portable double-precision kernel (same op count as the x86-64 one).
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    pub(super) fn f64(iters: u64) -> Chains {
        let (m, c): (f64, f64) = (black_box(0.999_999), black_box(1e-6));
        let mut x: [f64; 12] = std::array::from_fn(|i| black_box(2.0 + i as f64 * 1e-3));
        for _ in 0..iters.max(1) {
            for v in x.iter_mut() {
                *v = *v * m + c;
            }
        }
        Chains::F64(x.to_vec())
    }

    /// Portable single-precision kernel (same op count as the x86-64 one).
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    pub(super) fn f32(iters: u64) -> Chains {
        let (m, c): (f32, f32) = (black_box(0.999_99), black_box(1e-5));
        let mut x: [f32; 12] = std::array::from_fn(|i| black_box(2.0 + i as f32 * 1e-3));
        for _ in 0..iters.max(1) {
            for v in x.iter_mut() {
                *v = *v * m + c;
            }
        }
        Chains::F32(x.to_vec())
    }
}

mod vector {
    #[cfg(target_arch = "x86_64")]
    use super::Chains;
    use crate::config::Kernel;

    /// Every implementation this CPU runs, the widest first.
    pub(super) fn available(kernel: Kernel) -> Vec<super::Implementation> {
        let mut found: Vec<super::Implementation> = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                found.push(match kernel {
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
                });
            }
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                found.push(match kernel {
                    Kernel::IntVector => {
                        ("AVX2 256-bit add+xor", x86::AVX2_ACC * 8 * 2, x86::int_avx2)
                    }
                    Kernel::F32Vector => {
                        ("AVX2+FMA 256-bit FMA", x86::AVX2_ACC * 8 * 2, x86::f32_fma)
                    }
                    _ => ("AVX2+FMA 256-bit FMA", x86::AVX2_ACC * 4 * 2, x86::f64_fma),
                });
            }
            found.push(match kernel {
                Kernel::IntVector => ("SSE2 128-bit add+xor", x86::AVX2_ACC * 4 * 2, x86::int_sse2),
                Kernel::F32Vector => ("SSE2 128-bit mul+add", x86::AVX2_ACC * 4 * 2, x86::f32_sse2),
                _ => ("SSE2 128-bit mul+add", x86::AVX2_ACC * 2 * 2, x86::f64_sse2),
            });
        }
        #[cfg(target_arch = "aarch64")]
        {
            use super::arm;
            let sve = arm::sve_bits();
            if sve > 0 {
                found.push(match kernel {
                    Kernel::IntVector => (arm::sve_isa("int"), 24 * (sve / 32) * 2, arm::int_sve),
                    Kernel::F32Vector => (arm::sve_isa("fp"), 24 * (sve / 32) * 2, arm::f32_sve),
                    _ => (arm::sve_isa("fp"), 24 * (sve / 64) * 2, arm::f64_sve),
                });
            }
            found.push(match kernel {
                Kernel::IntVector => ("NEON 128-bit add+eor", arm::NEON_ACC * 4 * 2, arm::int_neon),
                Kernel::F32Vector => ("NEON 128-bit FMA", arm::NEON_ACC * 4 * 2, arm::f32_neon),
                _ => ("NEON 128-bit FMA", arm::NEON_ACC * 2 * 2, arm::f64_neon),
            });
        }
        #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
        {
            found.push(match kernel {
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
            });
        }
        found
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

        use super::Chains;

        /// Every lane of `acc`, accumulator by accumulator.
        ///
        /// # Safety
        /// `V` must be a SIMD vector type made of lanes of type `E`.
        unsafe fn lanes<V, E: Copy>(acc: &[V]) -> Vec<E> {
            let n = std::mem::size_of_val(acc) / std::mem::size_of::<E>();
            // SAFETY: per the caller, `acc` is `n` lanes of `E` with no
            // padding, aligned at least as `E` is.
            unsafe { std::slice::from_raw_parts(acc.as_ptr().cast::<E>(), n) }.to_vec()
        }

        macro_rules! fp_kernel {
            ($name:ident, $feat:literal, $acc:expr, $vec:ty, $set1:ident, $step:expr, $elem:ty, $m:expr, $c:expr) => {
                /// Floating-point chains `x = x * m + c`; see the module docs.
                pub(super) fn $name(iters: u64) -> Chains {
                    #[target_feature(enable = $feat)]
                    unsafe fn inner(iters: u64) -> Chains {
                        let m: $vec = $set1(black_box($m));
                        let c: $vec = $set1(black_box($c));
                        let mut acc: [$vec; $acc as usize] =
                            std::array::from_fn(|i| $set1(black_box(2.0 + i as $elem * 1e-3)));
                        for _ in 0..iters.max(1) {
                            for a in acc.iter_mut() {
                                *a = $step(*a, m, c);
                            }
                        }
                        // SAFETY: the vectors are made of `$elem` lanes.
                        Chains::from(unsafe { lanes::<$vec, $elem>(&acc) })
                    }
                    // SAFETY: `select` returns this kernel only after detecting the feature.
                    unsafe { inner(iters) }
                }
            };
        }

        macro_rules! int_kernel {
            ($name:ident, $feat:literal, $acc:expr, $vec:ty, $set1:ident, $add:ident, $xor:ident) => {
                /// Integer chains `x = (x + a) ^ b` over 32-bit lanes.
                pub(super) fn $name(iters: u64) -> Chains {
                    #[target_feature(enable = $feat)]
                    unsafe fn inner(iters: u64) -> Chains {
                        let a: $vec = $set1(black_box(0x7F4A_7C15));
                        let b: $vec = $set1(black_box(0x4F6C_DD1D));
                        let mut acc: [$vec; $acc as usize] =
                            std::array::from_fn(|i| $set1(black_box(i as i32)));
                        for _ in 0..iters.max(1) {
                            for x in acc.iter_mut() {
                                *x = $xor($add(*x, a), b);
                            }
                        }
                        // SAFETY: the vectors are made of 32-bit integer lanes.
                        Chains::U32(unsafe { lanes::<$vec, u32>(&acc) })
                    }
                    // SAFETY: `select` returns this kernel only after detecting the feature.
                    unsafe { inner(iters) }
                }
            };
        }

        fp_kernel!(
            f64_avx512,
            "avx512f",
            AVX512_ACC,
            __m512d,
            _mm512_set1_pd,
            _mm512_fmadd_pd,
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
            _mm512_xor_si512
        );
        int_kernel!(
            int_avx2,
            "avx2",
            AVX2_ACC,
            __m256i,
            _mm256_set1_epi32,
            _mm256_add_epi32,
            _mm256_xor_si256
        );
        int_kernel!(
            int_sse2,
            "sse2",
            AVX2_ACC,
            __m128i,
            _mm_set1_epi32,
            _mm_add_epi32,
            _mm_xor_si128
        );
    }

    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    mod portable {
        use std::hint::black_box;

        use super::super::Chains;

        /// 32 double chains, left to the compiler to vectorise.
        pub(super) fn f64(iters: u64) -> Chains {
            let (m, c): (f64, f64) = (black_box(0.999_999), black_box(1e-6));
            let mut x: [f64; 32] = std::array::from_fn(|i| black_box(2.0 + i as f64 * 1e-3));
            for _ in 0..iters.max(1) {
                for v in x.iter_mut() {
                    *v = v.mul_add(m, c);
                }
            }
            Chains::F64(x.to_vec())
        }

        /// 64 single chains, left to the compiler to vectorise.
        pub(super) fn f32(iters: u64) -> Chains {
            let (m, c): (f32, f32) = (black_box(0.999_99), black_box(1e-5));
            let mut x: [f32; 64] = std::array::from_fn(|i| black_box(2.0 + i as f32 * 1e-3));
            for _ in 0..iters.max(1) {
                for v in x.iter_mut() {
                    *v = v.mul_add(m, c);
                }
            }
            Chains::F32(x.to_vec())
        }

        /// 64 integer chains, left to the compiler to vectorise.
        pub(super) fn int(iters: u64) -> Chains {
            let (a, b): (u32, u32) = (black_box(0x7F4A_7C15), black_box(0x4F6C_DD1D));
            let mut x: [u32; 64] = std::array::from_fn(|i| black_box(i as u32));
            for _ in 0..iters.max(1) {
                for v in x.iter_mut() {
                    *v = v.wrapping_add(a) ^ b;
                }
            }
            Chains::U32(x.to_vec())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::config::Choice;

    /// One operation of a recurrence, with the operations it counts for
    /// (a fused multiply-add counts 2).
    type Step<'a, T> = (u64, &'a dyn Fn(T) -> T);

    /// A plain scalar replay of a kernel: `accumulators` registers of
    /// `lanes` lanes each, accumulator `i` starting at `init(i)` in every
    /// lane, each lane stepped `iters` times through `steps`. Returns the
    /// lanes and the operations it performed.
    fn replay<T: Copy>(
        accumulators: usize,
        lanes: usize,
        init: impl Fn(usize) -> T,
        iters: u64,
        steps: &[Step<'_, T>],
    ) -> (Vec<T>, u64) {
        let mut x: Vec<T> = (0..accumulators)
            .flat_map(|i| std::iter::repeat_n(init(i), lanes))
            .collect();
        let mut ops = 0;
        for _ in 0..iters {
            for v in x.iter_mut() {
                for (count, step) in steps {
                    *v = step(*v);
                    ops += count;
                }
            }
        }
        (x, ops)
    }

    /// The register layout of an implementation, known from its ISA alone:
    /// (accumulators, lanes per accumulator, fused multiply-add).
    fn layout(kernel: Kernel, isa: &str) -> (usize, usize, bool) {
        let lane_bits = match kernel {
            Kernel::IntScalar | Kernel::F64Scalar | Kernel::F64Vector => 64,
            Kernel::IntVector | Kernel::F32Scalar | Kernel::F32Vector => 32,
        };
        if isa.starts_with("scalar") {
            // 8 integer registers, 12 xmm registers, one element each.
            let accumulators = if kernel.is_float() { 12 } else { 8 };
            return (accumulators, 1, false);
        }
        if isa.starts_with("portable") {
            let chains = if kernel == Kernel::F64Vector { 32 } else { 64 };
            return (chains, 1, kernel.is_float());
        }
        // 24 accumulators with the 32 registers of AVX-512 and of aarch64
        // (NEON), 12 with 16.
        let (bits, accumulators) = if isa.starts_with("NEON") {
            (128, 24)
        } else if let Some(rest) = isa.strip_prefix("SVE ") {
            // SVE at the hardware's vector length: "SVE 256-bit FMA".
            let bits: usize = rest.split('-').next().unwrap().parse().unwrap();
            (bits, 24)
        } else if isa.contains("512-bit") {
            (512, 24)
        } else if isa.contains("256-bit") {
            (256, 12)
        } else {
            assert!(isa.contains("128-bit"), "unknown ISA {isa}");
            (128, 12)
        };
        (accumulators, bits / lane_bits, isa.ends_with("FMA"))
    }

    /// The replay of `kernel` as implemented by `isa`, and its operation count.
    fn reference(kernel: Kernel, isa: &str, iters: u64) -> (Chains, u64) {
        let (acc, lanes, fused) = layout(kernel, isa);
        // Chains `x = x * m + c` of type $t from 2 + i/1000: one fused
        // step (2 operations) or a multiply and an add (1 each).
        macro_rules! float_replay {
            ($t:ty, $m:expr, $c:expr, $chains:ident) => {{
                let (m, c): ($t, $t) = ($m, $c);
                let init = |i: usize| 2.0 + i as $t * 1e-3;
                let (x, ops) = if fused {
                    replay(acc, lanes, init, iters, &[(2, &|v: $t| v.mul_add(m, c))])
                } else {
                    let steps: [Step<'_, $t>; 2] = [(1, &|v| v * m), (1, &|v| v + c)];
                    replay(acc, lanes, init, iters, &steps)
                };
                (Chains::$chains(x), ops)
            }};
        }
        match kernel {
            Kernel::IntScalar => {
                let (a, b) = (0x9E37_79B9_7F4A_7C15u64, 0x2545_F491_4F6C_DD1Du64);
                let (x, ops) = replay(
                    acc,
                    lanes,
                    |i| i as u64 + 1,
                    iters,
                    &[(1, &|v: u64| v.wrapping_add(a)), (1, &|v| v ^ b)],
                );
                (Chains::U64(x), ops)
            }
            Kernel::IntVector => {
                let (a, b) = (0x7F4A_7C15u32, 0x4F6C_DD1Du32);
                let (x, ops) = replay(
                    acc,
                    lanes,
                    |i| i as u32,
                    iters,
                    &[(1, &|v: u32| v.wrapping_add(a)), (1, &|v| v ^ b)],
                );
                (Chains::U32(x), ops)
            }
            Kernel::F32Scalar | Kernel::F32Vector => float_replay!(f32, 0.999_99, 1e-5, F32),
            Kernel::F64Scalar | Kernel::F64Vector => float_replay!(f64, 0.999_999, 1e-6, F64),
        }
    }

    /// The bit patterns of every lane, tagged with the lane type.
    fn bits(c: &Chains) -> (&'static str, Vec<u64>) {
        match c {
            Chains::U64(v) => ("u64", v.clone()),
            Chains::U32(v) => ("u32", v.iter().map(|&x| x as u64).collect()),
            Chains::F32(v) => ("f32", v.iter().map(|x| x.to_bits() as u64).collect()),
            Chains::F64(v) => ("f64", v.iter().map(|x| x.to_bits()).collect()),
        }
    }

    #[test]
    fn every_kernel_does_exactly_the_operations_it_claims() {
        let mut checked = 0;
        for imp in Kernel::ALL.iter().flat_map(|&k| available(k)) {
            let kernel = imp.kernel;
            checked += 1;
            for iters in [1u64, 2, 777] {
                let (want, ops) = reference(kernel, imp.isa, iters);
                let got = imp.run(iters);
                assert_eq!(
                    bits(&got),
                    bits(&want),
                    "{kernel} ({}): chains after {iters} iterations",
                    imp.isa
                );
                assert_eq!(
                    ops,
                    iters * imp.ops_per_iter,
                    "{kernel} ({}): operations of {iters} iterations",
                    imp.isa
                );
                // One iteration fewer gives other chains: a kernel that
                // skipped one could not pass.
                if iters > 1 {
                    let (short, _) = reference(kernel, imp.isa, iters - 1);
                    assert_ne!(bits(&got), bits(&short), "{kernel}: {iters} iterations");
                }
            }
        }
        // Three scalar kernels and at least the baseline of each vector one.
        assert!(checked >= 6, "{checked} implementations");
    }

    #[test]
    fn float_chains_converge_without_overflow() {
        // 200,000 steps of x = 0.999999 x + 1e-6 take each chain from its
        // start (2 + i/1000, i an accumulator) a fifth of the way to the
        // fixed point 1: x - 1 = (x0 - 1) 0.999999^200000 = (x0 - 1) 0.8187.
        // (5,000,000 steps took 54 s under qemu's SVE emulation.)
        let Chains::F64(x) = select(Kernel::F64Vector).run(200_000) else {
            panic!("f64.vector runs f64 chains");
        };
        let shrink = 0.999_999f64.powi(200_000);
        assert!(
            x.iter()
                .all(|v| ((1.0 - 1e-6)..1.0 + 0.03).contains(&((v - 1.0) / shrink))),
            "{x:?}"
        );
    }
}
