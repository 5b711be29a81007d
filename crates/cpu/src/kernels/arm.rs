//! The aarch64 kernels: scalar ones in inline assembly (`fmul`+`fadd`,
//! `add`+`eor` on single registers, so the compiler cannot vectorise them)
//! and NEON ones (128-bit `fmla`, `add`+`eor`), which every aarch64 core
//! has. 24 accumulators of the 32 vector registers cover a 4-cycle FMA
//! latency on four pipes (Neoverse V1/V2) with room to spare.

use std::arch::aarch64::*;
use std::arch::asm;
use std::hint::black_box;

use super::Chains;

/// Independent NEON accumulators.
pub(super) const NEON_ACC: u64 = 24;

/// 8 chains of `x = (x + a) ^ b`: 16 integer ops per iteration.
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
            "add {x0}, {x0}, {a}", "add {x1}, {x1}, {a}", "add {x2}, {x2}, {a}", "add {x3}, {x3}, {a}",
            "add {x4}, {x4}, {a}", "add {x5}, {x5}, {a}", "add {x6}, {x6}, {a}", "add {x7}, {x7}, {a}",
            "eor {x0}, {x0}, {b}", "eor {x1}, {x1}, {b}", "eor {x2}, {x2}, {b}", "eor {x3}, {x3}, {b}",
            "eor {x4}, {x4}, {b}", "eor {x5}, {x5}, {b}", "eor {x6}, {x6}, {b}", "eor {x7}, {x7}, {b}",
            "subs {n}, {n}, #1",
            "b.ne 2b",
            a = in(reg) a, b = in(reg) b, n = inout(reg) n => _,
            x0 = inout(reg) x[0], x1 = inout(reg) x[1], x2 = inout(reg) x[2], x3 = inout(reg) x[3],
            x4 = inout(reg) x[4], x5 = inout(reg) x[5], x6 = inout(reg) x[6], x7 = inout(reg) x[7],
            options(nomem, nostack),
        );
    }
    Chains::U64(x.to_vec())
}

/// Scalar floating-point chains: 12 chains of `x = x * m + c` as a
/// separate multiply and add on one lane (`$w` is `d` or `s`).
macro_rules! scalar_fp {
    ($name:ident, $t:ty, $w:literal, $m:expr, $c:expr) => {
        /// 12 chains of `x = x * m + c` (fmul + fadd): 24 flop per iteration.
        pub(super) fn $name(iters: u64) -> Chains {
            let (m, c): ($t, $t) = (black_box($m), black_box($c));
            let mut x: [$t; 12] = std::array::from_fn(|i| black_box(2.0 + i as $t * 1e-3));
            let n = iters.max(1);
            // SAFETY: register-only arithmetic and a counted loop; no memory access.
            unsafe {
                asm!(
                    "2:",
                    concat!("fmul {x0:", $w, "}, {x0:", $w, "}, {m:", $w, "}"),
                    concat!("fmul {x1:", $w, "}, {x1:", $w, "}, {m:", $w, "}"),
                    concat!("fmul {x2:", $w, "}, {x2:", $w, "}, {m:", $w, "}"),
                    concat!("fmul {x3:", $w, "}, {x3:", $w, "}, {m:", $w, "}"),
                    concat!("fmul {x4:", $w, "}, {x4:", $w, "}, {m:", $w, "}"),
                    concat!("fmul {x5:", $w, "}, {x5:", $w, "}, {m:", $w, "}"),
                    concat!("fmul {x6:", $w, "}, {x6:", $w, "}, {m:", $w, "}"),
                    concat!("fmul {x7:", $w, "}, {x7:", $w, "}, {m:", $w, "}"),
                    concat!("fmul {x8:", $w, "}, {x8:", $w, "}, {m:", $w, "}"),
                    concat!("fmul {x9:", $w, "}, {x9:", $w, "}, {m:", $w, "}"),
                    concat!("fmul {x10:", $w, "}, {x10:", $w, "}, {m:", $w, "}"),
                    concat!("fmul {x11:", $w, "}, {x11:", $w, "}, {m:", $w, "}"),
                    concat!("fadd {x0:", $w, "}, {x0:", $w, "}, {c:", $w, "}"),
                    concat!("fadd {x1:", $w, "}, {x1:", $w, "}, {c:", $w, "}"),
                    concat!("fadd {x2:", $w, "}, {x2:", $w, "}, {c:", $w, "}"),
                    concat!("fadd {x3:", $w, "}, {x3:", $w, "}, {c:", $w, "}"),
                    concat!("fadd {x4:", $w, "}, {x4:", $w, "}, {c:", $w, "}"),
                    concat!("fadd {x5:", $w, "}, {x5:", $w, "}, {c:", $w, "}"),
                    concat!("fadd {x6:", $w, "}, {x6:", $w, "}, {c:", $w, "}"),
                    concat!("fadd {x7:", $w, "}, {x7:", $w, "}, {c:", $w, "}"),
                    concat!("fadd {x8:", $w, "}, {x8:", $w, "}, {c:", $w, "}"),
                    concat!("fadd {x9:", $w, "}, {x9:", $w, "}, {c:", $w, "}"),
                    concat!("fadd {x10:", $w, "}, {x10:", $w, "}, {c:", $w, "}"),
                    concat!("fadd {x11:", $w, "}, {x11:", $w, "}, {c:", $w, "}"),
                    "subs {n}, {n}, #1",
                    "b.ne 2b",
                    m = in(vreg) m, c = in(vreg) c, n = inout(reg) n => _,
                    x0 = inout(vreg) x[0], x1 = inout(vreg) x[1], x2 = inout(vreg) x[2],
                    x3 = inout(vreg) x[3], x4 = inout(vreg) x[4], x5 = inout(vreg) x[5],
                    x6 = inout(vreg) x[6], x7 = inout(vreg) x[7], x8 = inout(vreg) x[8],
                    x9 = inout(vreg) x[9], x10 = inout(vreg) x[10], x11 = inout(vreg) x[11],
                    options(nomem, nostack),
                );
            }
            Chains::from(x.to_vec())
        }
    };
}

scalar_fp!(f64, f64, "d", 0.999_999, 1e-6);
scalar_fp!(f32, f32, "s", 0.999_99, 1e-5);

/// Every lane of `acc`, accumulator by accumulator.
///
/// # Safety
/// `V` must be a SIMD vector type made of lanes of type `E`.
unsafe fn lanes<V, E: Copy>(acc: &[V]) -> Vec<E> {
    let n = std::mem::size_of_val(acc) / std::mem::size_of::<E>();
    // SAFETY: per the caller, `acc` is `n` lanes of `E` with no padding,
    // aligned at least as `E` is.
    unsafe { std::slice::from_raw_parts(acc.as_ptr().cast::<E>(), n) }.to_vec()
}

/// NEON floating-point chains `x = x * m + c` as one fused `fmla`.
macro_rules! neon_fp {
    ($name:ident, $vec:ty, $dup:ident, $fma:ident, $t:ty, $m:expr, $c:expr) => {
        /// 24 NEON accumulators of `x = x * m + c`, fused: see the module docs.
        pub(super) fn $name(iters: u64) -> Chains {
            // SAFETY: NEON is part of the aarch64 baseline.
            unsafe {
                let m: $vec = $dup(black_box($m));
                let c: $vec = $dup(black_box($c));
                let mut acc: [$vec; NEON_ACC as usize] =
                    std::array::from_fn(|i| $dup(black_box(2.0 + i as $t * 1e-3)));
                for _ in 0..iters.max(1) {
                    for a in acc.iter_mut() {
                        // fmla: c + a * m, rounded once.
                        *a = $fma(c, *a, m);
                    }
                }
                Chains::from(lanes::<$vec, $t>(&acc))
            }
        }
    };
}

neon_fp!(
    f64_neon,
    float64x2_t,
    vdupq_n_f64,
    vfmaq_f64,
    f64,
    0.999_999,
    1e-6
);
neon_fp!(
    f32_neon,
    float32x4_t,
    vdupq_n_f32,
    vfmaq_f32,
    f32,
    0.999_99,
    1e-5
);

/// 24 NEON accumulators of `x = (x + a) ^ b` over 32-bit lanes.
pub(super) fn int_neon(iters: u64) -> Chains {
    // SAFETY: NEON is part of the aarch64 baseline.
    unsafe {
        let a = vdupq_n_u32(black_box(0x7F4A_7C15));
        let b = vdupq_n_u32(black_box(0x4F6C_DD1D));
        let mut acc: [uint32x4_t; NEON_ACC as usize] =
            std::array::from_fn(|i| vdupq_n_u32(black_box(i as u32)));
        for _ in 0..iters.max(1) {
            for x in acc.iter_mut() {
                *x = veorq_u32(vaddq_u32(*x, a), b);
            }
        }
        Chains::U32(lanes::<uint32x4_t, u32>(&acc))
    }
}

/// The SVE vector length in bits (0 without SVE).
pub(super) fn sve_bits() -> u64 {
    if !std::arch::is_aarch64_feature_detected!("sve") {
        return 0;
    }
    // SAFETY: SVE was detected just above.
    unsafe { sve_bytes() * 8 }
}

/// `rdvl`: the vector length in bytes.
///
/// # Safety
/// The CPU has SVE.
#[target_feature(enable = "sve")]
unsafe fn sve_bytes() -> u64 {
    let bytes: u64;
    // SAFETY: reads the vector length; no memory access.
    unsafe { asm!("rdvl {0}, #1", out(reg) bytes, options(nomem, nostack, pure)) };
    bytes
}

/// The ISA text of the SVE kernels at this vector length, e.g.
/// `SVE 256-bit FMA` (made once).
pub(super) fn sve_isa(what: &'static str) -> &'static str {
    static NAMES: std::sync::OnceLock<[&'static str; 2]> = std::sync::OnceLock::new();
    let names = NAMES.get_or_init(|| {
        let bits = sve_bits();
        [
            Box::leak(format!("SVE {bits}-bit FMA").into_boxed_str()),
            Box::leak(format!("SVE {bits}-bit add+eor").into_boxed_str()),
        ]
    });
    if what == "int" { names[1] } else { names[0] }
}

/// An SVE kernel over 24 accumulators z0-z23 of lanes of suffix `$s`
/// (`d` or `s`) at the hardware's vector length: loads them from `buf`
/// (`$ld`), `m` and `c` broadcast into z24 and z25 (`$ldr`), runs the body
/// lines `iters` times, stores them back (`$st`).
macro_rules! sve_kernel {
    (
        $(#[$doc:meta])* $name:ident, $t:ty, $s:literal, $ld:literal, $st:literal, $ldr:literal,
        [$($body:literal),* $(,)?]
    ) => {
        $(#[$doc])*
        ///
        /// # Safety
        /// The CPU has SVE; `buf` holds 24 vectors' worth of lanes.
        #[target_feature(enable = "sve")]
        unsafe fn $name(iters: u64, buf: *mut $t, m: *const $t, c: *const $t) {
            let n = iters.max(1);
            // SAFETY: as the caller promises: loads and stores stay inside
            // `buf` (24 vectors), `m` and `c`; the vector and predicate
            // registers used are declared clobbered.
            unsafe {
                asm!(
                concat!("ptrue p0.", $s),
                concat!($ldr, " {{z24.", $s, "}}, p0/z, [{m}]"),
                concat!($ldr, " {{z25.", $s, "}}, p0/z, [{c}]"),
                concat!($ld, " {{z0.", $s, "}}, p0/z, [{buf}, #0, mul vl]"),
                concat!($ld, " {{z1.", $s, "}}, p0/z, [{buf}, #1, mul vl]"),
                concat!($ld, " {{z2.", $s, "}}, p0/z, [{buf}, #2, mul vl]"),
                concat!($ld, " {{z3.", $s, "}}, p0/z, [{buf}, #3, mul vl]"),
                concat!($ld, " {{z4.", $s, "}}, p0/z, [{buf}, #4, mul vl]"),
                concat!($ld, " {{z5.", $s, "}}, p0/z, [{buf}, #5, mul vl]"),
                concat!($ld, " {{z6.", $s, "}}, p0/z, [{buf}, #6, mul vl]"),
                concat!($ld, " {{z7.", $s, "}}, p0/z, [{buf}, #7, mul vl]"),
                "addvl {tmp}, {buf}, #8",
                concat!($ld, " {{z8.", $s, "}}, p0/z, [{tmp}, #0, mul vl]"),
                concat!($ld, " {{z9.", $s, "}}, p0/z, [{tmp}, #1, mul vl]"),
                concat!($ld, " {{z10.", $s, "}}, p0/z, [{tmp}, #2, mul vl]"),
                concat!($ld, " {{z11.", $s, "}}, p0/z, [{tmp}, #3, mul vl]"),
                concat!($ld, " {{z12.", $s, "}}, p0/z, [{tmp}, #4, mul vl]"),
                concat!($ld, " {{z13.", $s, "}}, p0/z, [{tmp}, #5, mul vl]"),
                concat!($ld, " {{z14.", $s, "}}, p0/z, [{tmp}, #6, mul vl]"),
                concat!($ld, " {{z15.", $s, "}}, p0/z, [{tmp}, #7, mul vl]"),
                "addvl {tmp}, {buf}, #16",
                concat!($ld, " {{z16.", $s, "}}, p0/z, [{tmp}, #0, mul vl]"),
                concat!($ld, " {{z17.", $s, "}}, p0/z, [{tmp}, #1, mul vl]"),
                concat!($ld, " {{z18.", $s, "}}, p0/z, [{tmp}, #2, mul vl]"),
                concat!($ld, " {{z19.", $s, "}}, p0/z, [{tmp}, #3, mul vl]"),
                concat!($ld, " {{z20.", $s, "}}, p0/z, [{tmp}, #4, mul vl]"),
                concat!($ld, " {{z21.", $s, "}}, p0/z, [{tmp}, #5, mul vl]"),
                concat!($ld, " {{z22.", $s, "}}, p0/z, [{tmp}, #6, mul vl]"),
                concat!($ld, " {{z23.", $s, "}}, p0/z, [{tmp}, #7, mul vl]"),
                "2:",
                $($body,)*
                "subs {n}, {n}, #1",
                "b.ne 2b",
                concat!($st, " {{z0.", $s, "}}, p0, [{buf}, #0, mul vl]"),
                concat!($st, " {{z1.", $s, "}}, p0, [{buf}, #1, mul vl]"),
                concat!($st, " {{z2.", $s, "}}, p0, [{buf}, #2, mul vl]"),
                concat!($st, " {{z3.", $s, "}}, p0, [{buf}, #3, mul vl]"),
                concat!($st, " {{z4.", $s, "}}, p0, [{buf}, #4, mul vl]"),
                concat!($st, " {{z5.", $s, "}}, p0, [{buf}, #5, mul vl]"),
                concat!($st, " {{z6.", $s, "}}, p0, [{buf}, #6, mul vl]"),
                concat!($st, " {{z7.", $s, "}}, p0, [{buf}, #7, mul vl]"),
                "addvl {tmp}, {buf}, #8",
                concat!($st, " {{z8.", $s, "}}, p0, [{tmp}, #0, mul vl]"),
                concat!($st, " {{z9.", $s, "}}, p0, [{tmp}, #1, mul vl]"),
                concat!($st, " {{z10.", $s, "}}, p0, [{tmp}, #2, mul vl]"),
                concat!($st, " {{z11.", $s, "}}, p0, [{tmp}, #3, mul vl]"),
                concat!($st, " {{z12.", $s, "}}, p0, [{tmp}, #4, mul vl]"),
                concat!($st, " {{z13.", $s, "}}, p0, [{tmp}, #5, mul vl]"),
                concat!($st, " {{z14.", $s, "}}, p0, [{tmp}, #6, mul vl]"),
                concat!($st, " {{z15.", $s, "}}, p0, [{tmp}, #7, mul vl]"),
                "addvl {tmp}, {buf}, #16",
                concat!($st, " {{z16.", $s, "}}, p0, [{tmp}, #0, mul vl]"),
                concat!($st, " {{z17.", $s, "}}, p0, [{tmp}, #1, mul vl]"),
                concat!($st, " {{z18.", $s, "}}, p0, [{tmp}, #2, mul vl]"),
                concat!($st, " {{z19.", $s, "}}, p0, [{tmp}, #3, mul vl]"),
                concat!($st, " {{z20.", $s, "}}, p0, [{tmp}, #4, mul vl]"),
                concat!($st, " {{z21.", $s, "}}, p0, [{tmp}, #5, mul vl]"),
                concat!($st, " {{z22.", $s, "}}, p0, [{tmp}, #6, mul vl]"),
                concat!($st, " {{z23.", $s, "}}, p0, [{tmp}, #7, mul vl]"),
                buf = in(reg) buf, m = in(reg) m, c = in(reg) c,
                n = inout(reg) n => _, tmp = out(reg) _,
                out("v0") _, out("v1") _, out("v2") _, out("v3") _, out("v4") _, out("v5") _,
                out("v6") _, out("v7") _, out("v8") _, out("v9") _, out("v10") _, out("v11") _,
                out("v12") _, out("v13") _, out("v14") _, out("v15") _, out("v16") _, out("v17") _,
                out("v18") _, out("v19") _, out("v20") _, out("v21") _, out("v22") _, out("v23") _,
                out("v24") _, out("v25") _, out("p0") _,
                options(nostack),
                );
            }
        }
    };
}

sve_kernel!(
    /// 24 SVE accumulators of `x = x * m + c` in doubles (`fmad`: fused).
    sve_f64_asm, f64, "d", "ld1d", "st1d", "ld1rd",
    [
        "fmad z0.d, p0/m, z24.d, z25.d", "fmad z1.d, p0/m, z24.d, z25.d", "fmad z2.d, p0/m, z24.d, z25.d",
        "fmad z3.d, p0/m, z24.d, z25.d", "fmad z4.d, p0/m, z24.d, z25.d", "fmad z5.d, p0/m, z24.d, z25.d",
        "fmad z6.d, p0/m, z24.d, z25.d", "fmad z7.d, p0/m, z24.d, z25.d", "fmad z8.d, p0/m, z24.d, z25.d",
        "fmad z9.d, p0/m, z24.d, z25.d", "fmad z10.d, p0/m, z24.d, z25.d", "fmad z11.d, p0/m, z24.d, z25.d",
        "fmad z12.d, p0/m, z24.d, z25.d", "fmad z13.d, p0/m, z24.d, z25.d", "fmad z14.d, p0/m, z24.d, z25.d",
        "fmad z15.d, p0/m, z24.d, z25.d", "fmad z16.d, p0/m, z24.d, z25.d", "fmad z17.d, p0/m, z24.d, z25.d",
        "fmad z18.d, p0/m, z24.d, z25.d", "fmad z19.d, p0/m, z24.d, z25.d", "fmad z20.d, p0/m, z24.d, z25.d",
        "fmad z21.d, p0/m, z24.d, z25.d", "fmad z22.d, p0/m, z24.d, z25.d", "fmad z23.d, p0/m, z24.d, z25.d",
    ]
);
sve_kernel!(
    /// 24 SVE accumulators of `x = x * m + c` in singles (`fmad`: fused).
    sve_f32_asm, f32, "s", "ld1w", "st1w", "ld1rw",
    [
        "fmad z0.s, p0/m, z24.s, z25.s", "fmad z1.s, p0/m, z24.s, z25.s", "fmad z2.s, p0/m, z24.s, z25.s",
        "fmad z3.s, p0/m, z24.s, z25.s", "fmad z4.s, p0/m, z24.s, z25.s", "fmad z5.s, p0/m, z24.s, z25.s",
        "fmad z6.s, p0/m, z24.s, z25.s", "fmad z7.s, p0/m, z24.s, z25.s", "fmad z8.s, p0/m, z24.s, z25.s",
        "fmad z9.s, p0/m, z24.s, z25.s", "fmad z10.s, p0/m, z24.s, z25.s", "fmad z11.s, p0/m, z24.s, z25.s",
        "fmad z12.s, p0/m, z24.s, z25.s", "fmad z13.s, p0/m, z24.s, z25.s", "fmad z14.s, p0/m, z24.s, z25.s",
        "fmad z15.s, p0/m, z24.s, z25.s", "fmad z16.s, p0/m, z24.s, z25.s", "fmad z17.s, p0/m, z24.s, z25.s",
        "fmad z18.s, p0/m, z24.s, z25.s", "fmad z19.s, p0/m, z24.s, z25.s", "fmad z20.s, p0/m, z24.s, z25.s",
        "fmad z21.s, p0/m, z24.s, z25.s", "fmad z22.s, p0/m, z24.s, z25.s", "fmad z23.s, p0/m, z24.s, z25.s",
    ]
);
sve_kernel!(
    /// 24 SVE accumulators of `x = (x + a) ^ b` over 32-bit lanes.
    sve_int_asm, u32, "s", "ld1w", "st1w", "ld1rw",
    [
        "add z0.s, z0.s, z24.s", "add z1.s, z1.s, z24.s", "add z2.s, z2.s, z24.s",
        "add z3.s, z3.s, z24.s", "add z4.s, z4.s, z24.s", "add z5.s, z5.s, z24.s",
        "add z6.s, z6.s, z24.s", "add z7.s, z7.s, z24.s", "add z8.s, z8.s, z24.s",
        "add z9.s, z9.s, z24.s", "add z10.s, z10.s, z24.s", "add z11.s, z11.s, z24.s",
        "add z12.s, z12.s, z24.s", "add z13.s, z13.s, z24.s", "add z14.s, z14.s, z24.s",
        "add z15.s, z15.s, z24.s", "add z16.s, z16.s, z24.s", "add z17.s, z17.s, z24.s",
        "add z18.s, z18.s, z24.s", "add z19.s, z19.s, z24.s", "add z20.s, z20.s, z24.s",
        "add z21.s, z21.s, z24.s", "add z22.s, z22.s, z24.s", "add z23.s, z23.s, z24.s",
        "eor z0.d, z0.d, z25.d", "eor z1.d, z1.d, z25.d", "eor z2.d, z2.d, z25.d",
        "eor z3.d, z3.d, z25.d", "eor z4.d, z4.d, z25.d", "eor z5.d, z5.d, z25.d",
        "eor z6.d, z6.d, z25.d", "eor z7.d, z7.d, z25.d", "eor z8.d, z8.d, z25.d",
        "eor z9.d, z9.d, z25.d", "eor z10.d, z10.d, z25.d", "eor z11.d, z11.d, z25.d",
        "eor z12.d, z12.d, z25.d", "eor z13.d, z13.d, z25.d", "eor z14.d, z14.d, z25.d",
        "eor z15.d, z15.d, z25.d", "eor z16.d, z16.d, z25.d", "eor z17.d, z17.d, z25.d",
        "eor z18.d, z18.d, z25.d", "eor z19.d, z19.d, z25.d", "eor z20.d, z20.d, z25.d",
        "eor z21.d, z21.d, z25.d", "eor z22.d, z22.d, z25.d", "eor z23.d, z23.d, z25.d",
    ]
);

/// Runs an SVE kernel on 24 accumulators of `lanes` lanes, accumulator
/// `i` starting at `init(i)` in every lane.
fn run_sve<T: Copy>(
    iters: u64,
    lanes: usize,
    init: impl Fn(usize) -> T,
    m: T,
    c: T,
    kernel: unsafe fn(u64, *mut T, *const T, *const T),
) -> Vec<T> {
    let mut buf: Vec<T> = (0..24 * lanes)
        .map(|i| black_box(init(i / lanes)))
        .collect();
    let (m, c) = (black_box(m), black_box(c));
    // SAFETY: `select` offers the SVE kernels only where SVE was detected;
    // `buf` holds 24 vectors of this vector length.
    unsafe { kernel(iters, buf.as_mut_ptr(), &m, &c) };
    buf
}

/// 24 SVE accumulators of `x = x * m + c` in doubles, at the hardware's
/// vector length.
pub(super) fn f64_sve(iters: u64) -> Chains {
    let lanes = (sve_bits() / 64) as usize;
    let x = run_sve(
        iters,
        lanes,
        |i| 2.0 + i as f64 * 1e-3,
        0.999_999,
        1e-6,
        sve_f64_asm,
    );
    Chains::F64(x)
}

/// 24 SVE accumulators of `x = x * m + c` in singles.
pub(super) fn f32_sve(iters: u64) -> Chains {
    let lanes = (sve_bits() / 32) as usize;
    let x = run_sve(
        iters,
        lanes,
        |i| 2.0 + i as f32 * 1e-3,
        0.999_99,
        1e-5,
        sve_f32_asm,
    );
    Chains::F32(x)
}

/// 24 SVE accumulators of `x = (x + a) ^ b` over 32-bit lanes.
pub(super) fn int_sve(iters: u64) -> Chains {
    let lanes = (sve_bits() / 32) as usize;
    let x = run_sve(
        iters,
        lanes,
        |i| i as u32,
        0x7F4A_7C15,
        0x4F6C_DD1D,
        sve_int_asm,
    );
    Chains::U32(x)
}
