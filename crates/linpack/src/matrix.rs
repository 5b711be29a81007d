//! The system Ax = b: a seeded random matrix with entries uniform in
//! [-0.5, 0.5), stored column-major in a page-aligned buffer with a padded
//! leading dimension, and the HPL residual check.
//!
//! The generator is counter-based (element k of the SplitMix64 stream
//! seeded with `seed`), so any element can be regenerated on its own: the
//! check rebuilds A from the seed instead of keeping a second copy, as HPL
//! does, and both the fill and the check run in parallel.

use nodebench_core::bench::BenchError;
use nodebench_core::buffer::Buffer;
use nodebench_core::rng::{GOLDEN_GAMMA, splitmix64};

use crate::config::Kind;

/// Floating-point operations HPL counts for a system of order `n`:
/// 2/3 n^3 + 3/2 n^2.
pub fn flops(n: usize) -> f64 {
    let n = n as f64;
    2.0 / 3.0 * n * n * n + 1.5 * n * n
}

/// Element `k` of the stream seeded with `seed`, uniform in [-0.5, 0.5).
fn element(seed: u64, k: u64) -> f64 {
    let z = splitmix64(seed.wrapping_add(k.wrapping_mul(GOLDEN_GAMMA)));
    (z >> 11) as f64 * (1.0 / (1u64 << 53) as f64) - 0.5
}

/// A system to solve in place: A (column-major, leading dimension `lda`)
/// becomes its LU factors and b becomes x.
pub struct Equations<'a> {
    /// Order of the system.
    pub n: usize,
    /// A, `lda * n` elements.
    pub a: &'a mut [f64],
    /// Leading dimension of A.
    pub lda: usize,
    /// b on entry, x on return.
    pub b: &'a mut [f64],
}

/// The leading dimension used for order `n`: `n` rounded up to whole cache
/// lines (8 doubles), plus one more line when columns would start a multiple
/// of 4 KiB apart (they would then fall in the same cache sets), as Intel's
/// LINPACK pads 18000 to 18008.
pub fn leading_dimension(n: usize) -> usize {
    let lda = n.div_ceil(8) * 8;
    if lda.is_multiple_of(512) {
        lda + 8
    } else {
        lda
    }
}

/// Bytes needed to solve a system of order `n` (the matrix dominates; the
/// vectors and pivots are counted too).
pub fn bytes_needed(n: usize) -> u64 {
    let n = n as u64;
    (leading_dimension(n as usize) as u64 * n + 4 * n) * 8
}

/// The largest order whose system fits in `budget` bytes, rounded down to a
/// multiple of 8.
pub fn largest_order(budget: u64) -> usize {
    // lda ~ n, so bytes ~ 8 n^2; refine downward for the padding.
    let mut n = (((budget / 8) as f64).sqrt() as usize) / 8 * 8;
    while n > 8 && bytes_needed(n) > budget {
        n -= 8;
    }
    n
}

/// One system of order `n`: A (column-major, leading dimension `lda`) and
/// b, both regenerated from `seed` whenever they are needed afresh.
pub struct System {
    /// Order of the system.
    pub n: usize,
    /// Leading dimension of A.
    pub lda: usize,
    seed: u64,
    kind: Kind,
    a: Buffer<f64>,
}

impl System {
    /// Allocates the matrix (untouched); `huge` asks for transparent huge
    /// pages. `flag` names the option the size came from, for errors.
    pub fn new(
        n: usize,
        seed: u64,
        kind: Kind,
        huge: bool,
        flag: &str,
    ) -> Result<System, BenchError> {
        let lda = leading_dimension(n);
        let a = Buffer::new(lda * n, huge, flag)?;
        Ok(System {
            n,
            lda,
            seed,
            kind,
            a,
        })
    }

    /// Alignment of A's first element, in bytes.
    pub fn alignment(&self) -> usize {
        let addr = self.a.as_ptr() as usize;
        1 << addr.trailing_zeros().min(21)
    }

    fn a_entry(&self, i: usize, j: usize) -> f64 {
        if self.kind == Kind::ZeroColumn && j == 0 {
            0.0
        } else {
            element(self.seed, (j * self.n + i) as u64)
        }
    }

    /// Entry `i` of the right-hand side b.
    pub fn b_entry(&self, i: usize) -> f64 {
        element(self.seed, (self.n * self.n + i) as u64)
    }

    /// The right-hand side b.
    pub fn rhs(&self) -> Vec<f64> {
        (0..self.n).map(|i| self.b_entry(i)).collect()
    }

    /// Writes A afresh (the solver overwrites it with its LU factors), with
    /// `threads` threads each filling whole columns.
    pub fn fill(&mut self, threads: usize) {
        let (n, lda) = (self.n, self.lda);
        let cols_per = n.div_ceil(threads.max(1)).max(1);
        let this = &*self;
        std::thread::scope(|s| {
            for first in (0..n).step_by(cols_per) {
                let last = (first + cols_per).min(n);
                // SAFETY: each thread writes only its own columns
                // first..last, which do not overlap.
                let cols = unsafe { this.a.part(first * lda..last * lda) };
                s.spawn(move || {
                    for (c, col) in cols.chunks_mut(lda).enumerate() {
                        let j = first + c;
                        for (i, v) in col[..n].iter_mut().enumerate() {
                            *v = this.a_entry(i, j);
                        }
                    }
                });
            }
        });
    }

    /// A as a mutable column-major slice of `lda * n` elements.
    pub fn matrix_mut(&mut self) -> &mut [f64] {
        // SAFETY: `&mut self` makes this the only live view of the buffer.
        unsafe { self.a.part(0..self.a.len()) }
    }

    /// A (as last filled) with the right-hand side `b`, ready to solve.
    pub fn equations<'a>(&'a mut self, b: &'a mut [f64]) -> Equations<'a> {
        let (n, lda) = (self.n, self.lda);
        Equations {
            n,
            a: self.matrix_mut(),
            lda,
            b,
        }
    }

    /// HPL's check of a solution x of the original system (A and b are
    /// regenerated from the seed, so this works after A was factored in
    /// place), with `threads` threads each owning a band of rows.
    pub fn check(&self, x: &[f64], threads: usize) -> Residual {
        let n = self.n;
        let rows_per = n.div_ceil(threads.max(1)).max(1);
        // Per band: (max |r_i|, max row sum of |A|, max |b_i|).
        let bands: Vec<(f64, f64, f64)> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..n)
                .step_by(rows_per)
                .map(|first| {
                    let last = (first + rows_per).min(n);
                    s.spawn(move || {
                        let mut r: Vec<f64> = (first..last).map(|i| -self.b_entry(i)).collect();
                        let mut row_sum = vec![0.0f64; last - first];
                        for (j, &xj) in x.iter().enumerate() {
                            for (k, i) in (first..last).enumerate() {
                                let a = self.a_entry(i, j);
                                r[k] += a * xj;
                                row_sum[k] += a.abs();
                            }
                        }
                        let b_max = (first..last)
                            .map(|i| self.b_entry(i).abs())
                            .fold(0.0, f64::max);
                        (
                            max_abs(&r),
                            row_sum.iter().cloned().fold(0.0, f64::max),
                            b_max,
                        )
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("check thread"))
                .collect()
        });
        let r_norm = bands.iter().map(|b| b.0).fold(0.0, nan_max);
        let a_norm = bands.iter().map(|b| b.1).fold(0.0, f64::max);
        let b_norm = bands.iter().map(|b| b.2).fold(0.0, f64::max);
        let x_norm = max_abs(x);
        let normalised = r_norm / (f64::EPSILON * (a_norm * x_norm + b_norm) * n as f64);
        Residual {
            residual: r_norm,
            normalised: if normalised.is_finite() {
                normalised
            } else {
                f64::NAN
            },
        }
    }
}

/// The largest magnitude in `v`; NaN if any element is NaN.
fn max_abs(v: &[f64]) -> f64 {
    v.iter().map(|x| x.abs()).fold(0.0, nan_max)
}

/// `max` that propagates NaN, so a NaN anywhere fails the check.
fn nan_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

/// HPL's residuals of a solution.
#[derive(Debug, Clone, Copy)]
pub struct Residual {
    /// ||Ax - b||_inf.
    pub residual: f64,
    /// ||Ax - b||_inf / (eps (||A||_inf ||x||_inf + ||b||_inf) n); NaN when
    /// the solution is not finite.
    pub normalised: f64,
}

/// The normalised residual below which a solution passes, as HPL's default.
pub const THRESHOLD: f64 = 16.0;

impl Residual {
    /// True when the normalised residual is finite and below [`THRESHOLD`].
    pub fn passed(&self) -> bool {
        self.normalised < THRESHOLD
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_the_splitmix64_stream_of_the_seed() {
        // Values of the generator as first written (SplitMix64 of
        // seed + (k + 1) * golden, by hand): the matrices, and so every
        // stored residual, stay the same.
        for (seed, k, bits) in [
            (42, 0, 0x3fce_eb99_1317_f5b4_u64),
            (42, 1, 0xbfd5_c407_3313_6644),
            (42, 999_999, 0x3fd7_0dbc_cbd7_c31e),
            (7, 123_456_789, 0x3fc4_b600_9834_0e3c),
            (u64::MAX, u64::MAX, 0x3fca_682a_fe79_65dc),
        ] {
            assert_eq!(element(seed, k).to_bits(), bits, "seed {seed}, k {k}");
        }
    }

    #[test]
    fn entries_are_uniform_in_the_half_interval() {
        let v: Vec<f64> = (0..100_000).map(|k| element(7, k)).collect();
        assert!(v.iter().all(|x| (-0.5..0.5).contains(x)));
        let mean = v.iter().sum::<f64>() / v.len() as f64;
        assert!(mean.abs() < 0.01, "mean {mean}");
        assert!(v.iter().any(|x| *x < -0.49) && v.iter().any(|x| *x > 0.49));
    }

    #[test]
    fn leading_dimension_pads_to_lines_and_avoids_4k_strides() {
        assert_eq!(leading_dimension(1000), 1000);
        assert_eq!(leading_dimension(1001), 1008);
        assert_eq!(leading_dimension(1024), 1032);
        assert_eq!(leading_dimension(8000), 8000);
    }

    #[test]
    fn largest_order_fits_its_budget() {
        for budget in [1u64 << 20, 1 << 30, 20 << 30] {
            let n = largest_order(budget);
            assert!(bytes_needed(n) <= budget);
            assert!(bytes_needed(n + 64) > budget, "{budget}: {n}");
        }
    }

    #[test]
    fn the_exact_solution_passes_and_a_wrong_one_fails() {
        // A 2x2 system solved by hand: x = A^-1 b.
        let mut s = System::new(2, 3, Kind::Random, false, "--sizes").unwrap();
        s.fill(1);
        let (a, b) = (s.matrix_mut().to_vec(), s.rhs());
        let lda = s.lda;
        let (a00, a10, a01, a11) = (a[0], a[1], a[lda], a[lda + 1]);
        let det = a00 * a11 - a01 * a10;
        let x = [
            (b[0] * a11 - a01 * b[1]) / det,
            (a00 * b[1] - a10 * b[0]) / det,
        ];
        assert!(s.check(&x, 2).passed());
        assert!(!s.check(&[x[0] + 0.1, x[1]], 2).passed());
        assert!(!s.check(&[f64::NAN, x[1]], 1).passed());
    }
}
