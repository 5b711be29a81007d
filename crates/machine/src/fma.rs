//! Register-only loops of vector FMAs in assembly (x86-64), written once
//! for each width: the clock under a peak's load ([`crate::clock`]) and the
//! effective-core probe ([`crate::cores`]).
//!
//! * `adds_with_fma*`: 16 dependent one-cycle integer adds per iteration
//!   set the pace (16 cycles), and 16 FMAs on 8 accumulators (two
//!   dependent 4-cycle FMAs each, 8 cycles) run beside them, so the core
//!   holds the clock it grants such code and the adds count its cycles.
//! * `fma_throughput*`: 12 independent FMAs per iteration (and one add to
//!   count it): twelve chains of 4-cycle FMAs keep two FMA units full, so
//!   a sibling thread on the same core finds none free.
//!
//! Each returns `1 + iters x adds`. The FMAs multiply two values that are
//! not zero, so the units toggle bits (and draw the power) as real code
//! does.

/// The two values the FMAs multiply.
static OPERANDS: [f64; 2] = [0.999_999_9, 1e-9];

/// One loop function: `$template` is the loop body, after the two
/// operands are broadcast into `{m}` and `{c}` and the accumulators
/// `{a0}`..`{a11}` set from `{m}`.
macro_rules! vector_loop {
    ($(#[$meta:meta])* $name:ident, $feature:literal, $class:ident, [$($line:literal),* $(,)?]) => {
        $(#[$meta])*
        #[target_feature(enable = $feature)]
        pub(crate) unsafe fn $name(iters: u64) -> u64 {
            let mut x: u64 = std::hint::black_box(1);
            let one: u64 = std::hint::black_box(1);
            let n = iters.max(1);
            // SAFETY: reads the two operands, then register-only arithmetic
            // in a counted loop; every vector register written is an output.
            unsafe {
                std::arch::asm!(
                    "vbroadcastsd {m}, qword ptr [{p}]",
                    "vbroadcastsd {c}, qword ptr [{p} + 8]",
                    "vmovapd {a0}, {m}", "vmovapd {a1}, {m}", "vmovapd {a2}, {m}",
                    "vmovapd {a3}, {m}", "vmovapd {a4}, {m}", "vmovapd {a5}, {m}",
                    "vmovapd {a6}, {m}", "vmovapd {a7}, {m}", "vmovapd {a8}, {m}",
                    "vmovapd {a9}, {m}", "vmovapd {a10}, {m}", "vmovapd {a11}, {m}",
                    "2:",
                    $($line,)*
                    "dec {n}",
                    "jnz 2b",
                    "vzeroupper",
                    p = in(reg) OPERANDS.as_ptr(),
                    x = inout(reg) x,
                    one = in(reg) one,
                    n = inout(reg) n => _,
                    m = out($class) _, c = out($class) _,
                    a0 = out($class) _, a1 = out($class) _, a2 = out($class) _,
                    a3 = out($class) _, a4 = out($class) _, a5 = out($class) _,
                    a6 = out($class) _, a7 = out($class) _, a8 = out($class) _,
                    a9 = out($class) _, a10 = out($class) _, a11 = out($class) _,
                    options(readonly, nostack),
                );
            }
            x
        }
    };
    (adds_with_fma $(#[$meta:meta])* $name:ident, $feature:literal, $class:ident) => {
        vector_loop!($(#[$meta])* $name, $feature, $class, [
            "add {x}, {one}", "vfmadd231pd {a0}, {m}, {c}",
            "add {x}, {one}", "vfmadd231pd {a1}, {m}, {c}",
            "add {x}, {one}", "vfmadd231pd {a2}, {m}, {c}",
            "add {x}, {one}", "vfmadd231pd {a3}, {m}, {c}",
            "add {x}, {one}", "vfmadd231pd {a4}, {m}, {c}",
            "add {x}, {one}", "vfmadd231pd {a5}, {m}, {c}",
            "add {x}, {one}", "vfmadd231pd {a6}, {m}, {c}",
            "add {x}, {one}", "vfmadd231pd {a7}, {m}, {c}",
            "add {x}, {one}", "vfmadd231pd {a0}, {m}, {c}",
            "add {x}, {one}", "vfmadd231pd {a1}, {m}, {c}",
            "add {x}, {one}", "vfmadd231pd {a2}, {m}, {c}",
            "add {x}, {one}", "vfmadd231pd {a3}, {m}, {c}",
            "add {x}, {one}", "vfmadd231pd {a4}, {m}, {c}",
            "add {x}, {one}", "vfmadd231pd {a5}, {m}, {c}",
            "add {x}, {one}", "vfmadd231pd {a6}, {m}, {c}",
            "add {x}, {one}", "vfmadd231pd {a7}, {m}, {c}",
        ]);
    };
    (fma_throughput $(#[$meta:meta])* $name:ident, $feature:literal, $class:ident) => {
        vector_loop!($(#[$meta])* $name, $feature, $class, [
            "add {x}, {one}",
            "vfmadd231pd {a0}, {m}, {c}", "vfmadd231pd {a1}, {m}, {c}",
            "vfmadd231pd {a2}, {m}, {c}", "vfmadd231pd {a3}, {m}, {c}",
            "vfmadd231pd {a4}, {m}, {c}", "vfmadd231pd {a5}, {m}, {c}",
            "vfmadd231pd {a6}, {m}, {c}", "vfmadd231pd {a7}, {m}, {c}",
            "vfmadd231pd {a8}, {m}, {c}", "vfmadd231pd {a9}, {m}, {c}",
            "vfmadd231pd {a10}, {m}, {c}", "vfmadd231pd {a11}, {m}, {c}",
        ]);
    };
}

/// Integer adds counted per iteration of the `adds_with_fma*` loops.
pub(crate) const ADDS_WITH_FMA: u64 = 16;

vector_loop!(adds_with_fma
    /// 16 dependent adds beside 16 256-bit FMAs a loop (needs AVX2 and FMA).
    adds_with_fma256, "avx2,fma", ymm_reg);
vector_loop!(adds_with_fma
    /// 16 dependent adds beside 16 512-bit FMAs a loop (needs AVX-512F).
    adds_with_fma512, "avx512f", zmm_reg);
vector_loop!(fma_throughput
    /// 12 independent 256-bit FMAs a loop (needs AVX2 and FMA).
    fma_throughput256, "avx2,fma", ymm_reg);
vector_loop!(fma_throughput
    /// 12 independent 512-bit FMAs a loop (needs AVX-512F).
    fma_throughput512, "avx512f", zmm_reg);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_loop_counts_its_adds() {
        if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
            // SAFETY: detected.
            unsafe {
                assert_eq!(adds_with_fma256(1000), 1 + 1000 * ADDS_WITH_FMA);
                assert_eq!(fma_throughput256(1000), 1 + 1000);
            }
        }
        if is_x86_feature_detected!("avx512f") {
            // SAFETY: detected.
            unsafe {
                assert_eq!(adds_with_fma512(1000), 1 + 1000 * ADDS_WITH_FMA);
                assert_eq!(fma_throughput512(1000), 1 + 1000);
            }
        }
    }
}
