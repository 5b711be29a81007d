//! The trailing update's GEMM, C -= A B (column-major), with packed
//! operands and a register-blocked micro-kernel picked at run time:
//! AVX-512 (24 x 8 doubles: 24 zmm accumulators), AVX2 + FMA (8 x 6: 12 ymm
//! accumulators), NEON on aarch64 (8 x 6: 24 q-register accumulators), or
//! portable Rust (8 x 4).
//!
//! A is packed once per LU step into slivers of MR rows (MR values per k,
//! zero-padded at the bottom), B per chunk into slivers of NR columns; the
//! loops are BLIS's: for each block of [`MC`] rows of A (held in L2), for
//! each sliver of B (held in L1), for each sliver of A, one micro-kernel
//! call updates an MR x NR tile of C over the whole inner dimension.

/// Rows of A per L2-resident block: a multiple of every kernel's MR.
const MC: usize = 192;

/// A micro-kernel: `k` steps of the outer product of an MR-row sliver of
/// packed A and an NR-column sliver of packed B, subtracted from the
/// `m` x `n` (m <= MR, n <= NR) tile at `c` (leading dimension `ldc`).
type MicroKernel =
    unsafe fn(k: usize, a: *const f64, b: *const f64, c: *mut f64, ldc: usize, m: usize, n: usize);

/// A micro-kernel and the tile it computes.
#[derive(Clone, Copy)]
pub struct Kernel {
    /// Rows of the tile (the packed A sliver's height).
    pub mr: usize,
    /// Columns of the tile (the packed B sliver's width).
    pub nr: usize,
    /// Instruction set, as recorded with results.
    pub isa: &'static str,
    run: MicroKernel,
}

impl Kernel {
    /// The fastest kernel this CPU runs.
    pub fn detect() -> Kernel {
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") {
                return Kernel {
                    mr: 24,
                    nr: 8,
                    isa: "AVX-512 24x8",
                    run: x86::avx512_24x8,
                };
            }
            if std::arch::is_x86_feature_detected!("avx2")
                && std::arch::is_x86_feature_detected!("fma")
            {
                return Kernel {
                    mr: 8,
                    nr: 6,
                    isa: "AVX2+FMA 8x6",
                    run: x86::avx2_8x6,
                };
            }
        }
        #[cfg(target_arch = "aarch64")]
        {
            return Kernel {
                mr: 8,
                nr: 6,
                isa: "NEON 8x6",
                run: arm::neon_8x6,
            };
        }
        #[allow(unreachable_code)]
        Kernel::portable()
    }

    /// The portable kernel (plain Rust, 8 x 4).
    pub fn portable() -> Kernel {
        Kernel {
            mr: 8,
            nr: 4,
            isa: "portable 8x4",
            run: portable_8x4,
        }
    }

    /// Length of the buffer [`Kernel::pack_a`] fills for `m` x `k`.
    pub fn packed_a_len(&self, m: usize, k: usize) -> usize {
        m.div_ceil(self.mr) * self.mr * k
    }

    /// Packs the `m` x `k` block at `a` (leading dimension `lda`) into
    /// slivers of MR rows, zero-padded.
    ///
    /// # Safety
    /// `a` addresses an `m` x `k` column-major block with leading dimension
    /// `lda`; `dst` holds [`Kernel::packed_a_len`] elements.
    pub unsafe fn pack_a(&self, m: usize, k: usize, a: *const f64, lda: usize, dst: &mut [f64]) {
        let mr = self.mr;
        assert!(dst.len() >= self.packed_a_len(m, k));
        for (s, sliver) in dst
            .chunks_exact_mut(mr * k)
            .take(m.div_ceil(mr))
            .enumerate()
        {
            let first = s * mr;
            let rows = mr.min(m - first);
            for (p, out) in sliver.chunks_exact_mut(mr).enumerate() {
                // SAFETY: rows first..first + rows of column p are inside
                // the block, as the caller promises.
                let col = unsafe { std::slice::from_raw_parts(a.add(first + p * lda), rows) };
                out[..rows].copy_from_slice(col);
                out[rows..].fill(0.0);
            }
        }
    }

    /// C -= A B for the `m` x `n` block C at `c` (leading dimension `ldc`),
    /// A packed by [`Kernel::pack_a`] (`m` x `k`) and B the `k` x `n` block
    /// at `b` (leading dimension `ldb`), packed here into `bp`.
    ///
    /// # Safety
    /// The blocks lie inside their matrices, C overlaps neither A nor B,
    /// and no other thread writes any of them meanwhile.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn sub_product(
        &self,
        m: usize,
        n: usize,
        k: usize,
        ap: &[f64],
        b: *const f64,
        ldb: usize,
        c: *mut f64,
        ldc: usize,
        bp: &mut Vec<f64>,
    ) {
        let (mr, nr) = (self.mr, self.nr);
        if m == 0 || n == 0 || k == 0 {
            return;
        }
        assert!(ap.len() >= self.packed_a_len(m, k));
        bp.clear();
        bp.resize(n.div_ceil(nr) * nr * k, 0.0);
        for (t, sliver) in bp.chunks_exact_mut(nr * k).enumerate() {
            for j in 0..nr.min(n - t * nr) {
                // SAFETY: column t * nr + j of B, k rows, as promised.
                let col = unsafe { std::slice::from_raw_parts(b.add((t * nr + j) * ldb), k) };
                for (p, &v) in col.iter().enumerate() {
                    sliver[p * nr + j] = v;
                }
            }
        }
        for ic in (0..m).step_by(MC) {
            let rows = MC.min(m - ic);
            for jr in (0..n).step_by(nr) {
                let cols = nr.min(n - jr);
                let bs = &bp[jr * k..];
                for ir in (ic..ic + rows).step_by(mr) {
                    let a = &ap[ir * k..];
                    // SAFETY: the slivers hold mr x k and k x nr values;
                    // the tile (ir, jr) of m_r x cols lies inside C.
                    unsafe {
                        (self.run)(
                            k,
                            a.as_ptr(),
                            bs.as_ptr(),
                            c.add(ir + jr * ldc),
                            ldc,
                            mr.min(m - ir),
                            cols,
                        )
                    };
                }
            }
        }
    }
}

/// Adds `-acc` (MR x NR, column-major, leading dimension `mr`) to the
/// `m` x `n` corner of the tile at `c`.
///
/// # Safety
/// The tile of `m` x `n` at `c` (leading dimension `ldc`) is writable.
unsafe fn subtract_tile(acc: &[f64], mr: usize, c: *mut f64, ldc: usize, m: usize, n: usize) {
    for j in 0..n {
        for i in 0..m {
            // SAFETY: inside the tile, as the caller promises.
            unsafe { *c.add(i + j * ldc) -= acc[i + j * mr] };
        }
    }
}

/// The portable 8 x 4 kernel.
///
/// # Safety
/// As [`MicroKernel`]: `a` holds 8 k values, `b` 4 k, the tile is writable.
unsafe fn portable_8x4(
    k: usize,
    a: *const f64,
    b: *const f64,
    c: *mut f64,
    ldc: usize,
    m: usize,
    n: usize,
) {
    let mut acc = [0.0f64; 32];
    // SAFETY: the slivers hold 8 k and 4 k values.
    let (a, b) = unsafe {
        (
            std::slice::from_raw_parts(a, 8 * k),
            std::slice::from_raw_parts(b, 4 * k),
        )
    };
    for (ap, bp) in a.chunks_exact(8).zip(b.chunks_exact(4)) {
        for (j, &bj) in bp.iter().enumerate() {
            for (i, &ai) in ap.iter().enumerate() {
                acc[i + 8 * j] += ai * bj;
            }
        }
    }
    // SAFETY: as the caller promises.
    unsafe { subtract_tile(&acc, 8, c, ldc, m, n) };
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    use super::subtract_tile;

    /// How many k steps ahead the AVX-512 kernel prefetches its A and B
    /// slivers (one k step is 3 cache lines of A and 1 of B).
    const PREFETCH_K: usize = 8;

    /// The AVX-512 24 x 8 kernel: 3 zmm of A and 8 broadcasts of B per k
    /// feed 24 FMAs into 24 zmm accumulators.
    ///
    /// # Safety
    /// The CPU has AVX-512F; `a` holds 24 k values, `b` 8 k, and the
    /// `m` x `n` tile at `c` is writable.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn avx512_24x8(
        k: usize,
        a: *const f64,
        b: *const f64,
        c: *mut f64,
        ldc: usize,
        m: usize,
        n: usize,
    ) {
        // SAFETY: (whole body) the pointers stay inside the slivers (p < k)
        // and the tile, as the caller promises; unaligned loads throughout.
        unsafe {
            for j in 0..n {
                let col = c.add(j * ldc);
                for r in [0, 8, 16, 23] {
                    _mm_prefetch::<_MM_HINT_T0>(col.wrapping_add(r) as *const i8);
                }
            }
            let mut acc = [[_mm512_setzero_pd(); 3]; 8];
            for p in 0..k {
                let ap = a.add(p * 24);
                // A streams from L2 and B is evicted from L1 by it: both
                // are fetched PREFETCH_K steps ahead.
                let ahead = ap.wrapping_add(24 * PREFETCH_K);
                _mm_prefetch::<_MM_HINT_T0>(ahead as *const i8);
                _mm_prefetch::<_MM_HINT_T0>(ahead.wrapping_add(8) as *const i8);
                _mm_prefetch::<_MM_HINT_T0>(ahead.wrapping_add(16) as *const i8);
                let a0 = _mm512_loadu_pd(ap);
                let a1 = _mm512_loadu_pd(ap.add(8));
                let a2 = _mm512_loadu_pd(ap.add(16));
                let bp = b.add(p * 8);
                _mm_prefetch::<_MM_HINT_T0>(bp.wrapping_add(8 * PREFETCH_K) as *const i8);
                for (j, acc) in acc.iter_mut().enumerate() {
                    let bj = _mm512_set1_pd(*bp.add(j));
                    acc[0] = _mm512_fmadd_pd(a0, bj, acc[0]);
                    acc[1] = _mm512_fmadd_pd(a1, bj, acc[1]);
                    acc[2] = _mm512_fmadd_pd(a2, bj, acc[2]);
                }
            }
            if m == 24 {
                for (j, acc) in acc.iter().enumerate().take(n) {
                    let col = c.add(j * ldc);
                    for (v, &x) in acc.iter().enumerate() {
                        let cv = _mm512_loadu_pd(col.add(8 * v));
                        _mm512_storeu_pd(col.add(8 * v), _mm512_sub_pd(cv, x));
                    }
                }
            } else {
                let mut tile = [0.0f64; 24 * 8];
                for (j, acc) in acc.iter().enumerate() {
                    for (v, &x) in acc.iter().enumerate() {
                        _mm512_storeu_pd(tile.as_mut_ptr().add(24 * j + 8 * v), x);
                    }
                }
                subtract_tile(&tile, 24, c, ldc, m, n);
            }
        }
    }

    /// The AVX2 + FMA 8 x 6 kernel: 2 ymm of A and 6 broadcasts of B per k
    /// feed 12 FMAs into 12 ymm accumulators.
    ///
    /// # Safety
    /// The CPU has AVX2 and FMA; `a` holds 8 k values, `b` 6 k, and the
    /// `m` x `n` tile at `c` is writable.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn avx2_8x6(
        k: usize,
        a: *const f64,
        b: *const f64,
        c: *mut f64,
        ldc: usize,
        m: usize,
        n: usize,
    ) {
        // SAFETY: (whole body) as for the AVX-512 kernel.
        unsafe {
            for j in 0..n {
                let col = c.add(j * ldc);
                _mm_prefetch::<_MM_HINT_T0>(col as *const i8);
                _mm_prefetch::<_MM_HINT_T0>(col.wrapping_add(7) as *const i8);
            }
            let mut acc = [[_mm256_setzero_pd(); 2]; 6];
            for p in 0..k {
                let ap = a.add(p * 8);
                let a0 = _mm256_loadu_pd(ap);
                let a1 = _mm256_loadu_pd(ap.add(4));
                let bp = b.add(p * 6);
                for (j, acc) in acc.iter_mut().enumerate() {
                    let bj = _mm256_set1_pd(*bp.add(j));
                    acc[0] = _mm256_fmadd_pd(a0, bj, acc[0]);
                    acc[1] = _mm256_fmadd_pd(a1, bj, acc[1]);
                }
            }
            if m == 8 {
                for (j, acc) in acc.iter().enumerate().take(n) {
                    let col = c.add(j * ldc);
                    for (v, &x) in acc.iter().enumerate() {
                        let cv = _mm256_loadu_pd(col.add(4 * v));
                        _mm256_storeu_pd(col.add(4 * v), _mm256_sub_pd(cv, x));
                    }
                }
            } else {
                let mut tile = [0.0f64; 8 * 6];
                for (j, acc) in acc.iter().enumerate() {
                    for (v, &x) in acc.iter().enumerate() {
                        _mm256_storeu_pd(tile.as_mut_ptr().add(8 * j + 4 * v), x);
                    }
                }
                subtract_tile(&tile, 8, c, ldc, m, n);
            }
        }
    }
}

#[cfg(target_arch = "aarch64")]
mod arm {
    use std::arch::aarch64::*;

    use super::subtract_tile;

    /// The NEON 8 x 6 kernel: 4 q registers of A and 3 of B (6 values) per
    /// k feed 24 lane-indexed FMAs (`fmla v.2d, v.2d, v.d[lane]`) into 24
    /// accumulators; 31 of the 32 vector registers.
    ///
    /// # Safety
    /// `a` holds 8 k values, `b` 6 k, and the `m` x `n` tile at `c` is
    /// writable. NEON is part of the aarch64 baseline.
    pub(super) unsafe fn neon_8x6(
        k: usize,
        a: *const f64,
        b: *const f64,
        c: *mut f64,
        ldc: usize,
        m: usize,
        n: usize,
    ) {
        // SAFETY (whole body): the pointers stay inside the slivers (p < k)
        // and the tile, as the caller promises.
        unsafe {
            let mut acc = [[vdupq_n_f64(0.0); 4]; 6];
            for p in 0..k {
                let ap = a.add(p * 8);
                let av = [
                    vld1q_f64(ap),
                    vld1q_f64(ap.add(2)),
                    vld1q_f64(ap.add(4)),
                    vld1q_f64(ap.add(6)),
                ];
                let bp = b.add(p * 6);
                let bv = [vld1q_f64(bp), vld1q_f64(bp.add(2)), vld1q_f64(bp.add(4))];
                for (v, &x) in av.iter().enumerate() {
                    acc[0][v] = vfmaq_laneq_f64::<0>(acc[0][v], x, bv[0]);
                    acc[1][v] = vfmaq_laneq_f64::<1>(acc[1][v], x, bv[0]);
                    acc[2][v] = vfmaq_laneq_f64::<0>(acc[2][v], x, bv[1]);
                    acc[3][v] = vfmaq_laneq_f64::<1>(acc[3][v], x, bv[1]);
                    acc[4][v] = vfmaq_laneq_f64::<0>(acc[4][v], x, bv[2]);
                    acc[5][v] = vfmaq_laneq_f64::<1>(acc[5][v], x, bv[2]);
                }
            }
            let mut tile = [0.0f64; 48];
            for (j, col) in acc.iter().enumerate() {
                for (v, &x) in col.iter().enumerate() {
                    vst1q_f64(tile.as_mut_ptr().add(8 * j + 2 * v), x);
                }
            }
            subtract_tile(&tile, 8, c, ldc, m, n);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// C - A B by the textbook triple loop.
    fn naive(m: usize, n: usize, k: usize, a: &[f64], b: &[f64], c: &[f64]) -> Vec<f64> {
        let mut out = c.to_vec();
        for j in 0..n {
            for i in 0..m {
                let dot: f64 = (0..k).map(|p| a[i + p * m] * b[p + j * k]).sum();
                out[i + j * m] -= dot;
            }
        }
        out
    }

    fn values(len: usize, seed: u64) -> Vec<f64> {
        (0..len as u64)
            .map(|i| {
                ((i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ seed) >> 40) as f64 / (1u64 << 24) as f64
                    - 0.5
            })
            .collect()
    }

    fn check(kernel: Kernel) {
        // Odd sizes: partial tiles at the bottom and right, several MC
        // blocks, k of 1 and more.
        for (m, n, k) in [
            (1, 1, 1),
            (7, 5, 3),
            (25, 9, 17),
            (200, 13, 64),
            (401, 31, 7),
            (24, 8, 256),
        ] {
            let (a, b) = (values(m * k, 1), values(k * n, 2));
            // C with a leading dimension larger than m, padding untouched.
            let ldc = m + 3;
            let mut c = values(ldc * n, 3);
            let c_dense: Vec<f64> = (0..n)
                .flat_map(|j| c[j * ldc..j * ldc + m].to_vec())
                .collect();
            let expected = naive(m, n, k, &a, &b, &c_dense);
            let mut ap = vec![f64::NAN; kernel.packed_a_len(m, k)];
            let mut bp = Vec::new();
            // SAFETY: the blocks are the whole vectors, with their shapes.
            unsafe {
                kernel.pack_a(m, k, a.as_ptr(), m, &mut ap);
                kernel.sub_product(m, n, k, &ap, b.as_ptr(), k, c.as_mut_ptr(), ldc, &mut bp);
            }
            for j in 0..n {
                for i in 0..ldc {
                    let got = c[i + j * ldc];
                    if i < m {
                        let want = expected[i + j * m];
                        assert!(
                            (got - want).abs() <= 1e-12 * (1.0 + want.abs()) * k as f64,
                            "{} {m}x{n}x{k} ({i},{j}): {got} vs {want}",
                            kernel.isa
                        );
                    } else {
                        assert_eq!(
                            got,
                            values(ldc * n, 3)[i + j * ldc],
                            "padding row {i} written"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn the_detected_kernel_matches_the_naive_product_at_odd_sizes() {
        check(Kernel::detect());
    }

    #[test]
    fn the_portable_kernel_matches_the_naive_product_at_odd_sizes() {
        check(Kernel::portable());
    }

    #[cfg(target_arch = "aarch64")]
    #[test]
    fn the_neon_kernel_is_detected_and_matches_the_naive_product() {
        let k = Kernel::detect();
        assert_eq!((k.isa, k.mr, k.nr), ("NEON 8x6", 8, 6));
        check(k);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn the_avx2_kernel_matches_the_naive_product_at_odd_sizes() {
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            check(Kernel {
                mr: 8,
                nr: 6,
                isa: "AVX2+FMA 8x6",
                run: x86::avx2_8x6,
            });
        }
    }
}
