//! The pure-Rust backend: a right-looking blocked LU with partial pivoting
//! in HPL's structure, with a lookahead of one panel: our own packed GEMM
//! (gemm.rs) for the trailing update, faer for the panel LU and the
//! triangular solves.
//!
//! A is cut into panels of [`PANEL`] columns. Step s, with panel s already
//! factored (its L below the diagonal, its row transpositions known):
//! the columns right of the panel are cut into chunks, and each chunk gets
//! the panel's row swaps, the triangular solve with the panel's unit-lower
//! block (its rows of U) and the trailing update A22 -= L21 U12 (gemm.rs,
//! L21 packed once per step). Worker 0 first updates the chunk holding
//! panel s + 1, factors it (faer's recursive LU on the tall panel) and
//! packs its L21 while the other workers take the remaining chunks; then
//! it joins them. A barrier ends the step. Finally the swaps are applied to the L columns left of each
//! panel and b is solved with faer's triangular solves.

use nodebench_core::bench::BenchError;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Barrier, Mutex};
use std::time::{Duration, Instant};

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::lu::partial_pivoting::factor::{lu_in_place, lu_in_place_scratch};
use faer::linalg::triangular_solve::{
    solve_unit_lower_triangular_in_place, solve_upper_triangular_in_place,
};
use faer::{MatMut, MatRef, Par};

use crate::error::SolveError;
use crate::gemm::Kernel;
use crate::matrix::Equations;

/// faer's version, as recorded with results.
pub const FAER_VERSION: &str = "0.24";

/// Columns per panel (HPL's NB): the inner dimension of every trailing
/// update.
pub const PANEL: usize = 256;

/// Columns per chunk of the trailing update, the unit of work the workers
/// share.
pub const CHUNK: usize = 128;

/// The solver's workers, and a rayon pool for faer's parallel triangular
/// solves of b.
pub struct RustSolver {
    pool: rayon::ThreadPool,
    threads: usize,
    kernel: Kernel,
}

impl RustSolver {
    /// Builds the worker pool.
    pub fn new(threads: usize) -> Result<RustSolver, BenchError> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("linpack-{i}"))
            .build()
            .map_err(|e| {
                BenchError::System(format!("cannot start {threads} solver threads: {e}"))
            })?;
        Ok(RustSolver {
            pool,
            threads,
            kernel: Kernel::detect(),
        })
    }

    /// The GEMM micro-kernel in use (`AVX-512 24x8`), recorded with results.
    pub fn kernel(&self) -> &'static str {
        self.kernel.isa
    }

    /// Solves the equations in place (A becomes its LU factors and b
    /// becomes x). Returns the time of the factorisation and the triangular
    /// solves.
    pub fn solve(&self, eq: Equations<'_>) -> Result<Duration, SolveError> {
        let Equations { n, a, lda, b } = eq;
        // The workspace is allocated and touched before the clock starts.
        let mut work = Workspace::new(n, PANEL, &self.kernel);
        let start = Instant::now();
        let pivots = factor(
            a,
            n,
            lda,
            self.threads,
            &self.kernel,
            &mut work,
            (PANEL, CHUNK),
        );
        let lu = MatRef::from_column_major_slice_with_stride(&*a, n, n, lda);
        if let Some(k) = (0..n).find(|&k| lu[(k, k)] == 0.0) {
            return Err(SolveError::Singular { column: k + 1 });
        }
        // x = U^-1 L^-1 P b, P applied as the transpositions in order.
        for (i, &p) in pivots.iter().enumerate() {
            b.swap(i, p);
        }
        let par = if self.threads > 1 {
            Par::rayon(self.threads)
        } else {
            Par::Seq
        };
        self.pool.install(|| {
            let mut x = MatMut::from_column_major_slice_mut(b, n, 1);
            solve_unit_lower_triangular_in_place(lu, x.as_mut(), par);
            solve_upper_triangular_in_place(lu, x.as_mut(), par);
        });
        Ok(start.elapsed())
    }
}

/// A column-major matrix shared by the workers, each of which touches only
/// the blocks its step gives it.
#[derive(Clone, Copy)]
struct Shared {
    ptr: *mut f64,
    lda: usize,
}

// SAFETY: the workers write disjoint column ranges between barriers and
// read only blocks no one writes in the same step (see `factor`).
unsafe impl Send for Shared {}
// SAFETY: as for Send.
unsafe impl Sync for Shared {}

impl Shared {
    /// The block of `rows` x `cols` starting at (`i`, `j`).
    ///
    /// # Safety
    /// The block lies inside the matrix and no other live view writes it.
    #[allow(clippy::mut_from_ref)]
    unsafe fn block(&self, i: usize, j: usize, rows: usize, cols: usize) -> MatMut<'_, f64> {
        // SAFETY: in bounds and unaliased, as the caller promises.
        unsafe {
            MatMut::from_raw_parts_mut(
                self.ptr.add(i + j * self.lda),
                rows,
                cols,
                1,
                self.lda as isize,
            )
        }
    }
}

/// What a factorisation needs besides A, allocated and written once
/// before the clock starts, as HPL allocates its work arrays before timing
/// (first touches of fresh pages are slow, above all in a VM).
struct Workspace {
    /// The two buffers of packed L21.
    packed: [Vec<f64>; 2],
    /// faer's scratch for the panel LU.
    scratch: MemBuffer,
    /// faer's row permutation of a panel, and its inverse.
    perm: Vec<usize>,
    perm_inv: Vec<usize>,
}

impl Workspace {
    /// The workspace for order `n` and panels of `panel` columns.
    fn new(n: usize, panel: usize, kernel: &Kernel) -> Workspace {
        let touched = |len: usize| {
            let mut v = Vec::with_capacity(len);
            v.resize(len, 0.0);
            v
        };
        let len = kernel.packed_a_len(n, panel);
        Workspace {
            packed: [touched(len), touched(len)],
            scratch: MemBuffer::new(lu_in_place_scratch::<usize, f64>(
                n,
                panel,
                Par::Seq,
                Default::default(),
            )),
            perm: vec![0; n],
            perm_inv: vec![0; n],
        }
    }
}

/// The two buffers of packed L21, shared by the workers.
#[derive(Clone, Copy)]
struct Packed {
    ptrs: [*mut f64; 2],
    len: usize,
}

// SAFETY: buffer s % 2 is written by worker 0 only in the step before s,
// and read by all only in step s (a barrier between).
unsafe impl Send for Packed {}
// SAFETY: as for Send.
unsafe impl Sync for Packed {}

impl Packed {
    /// Buffer `i` to read.
    ///
    /// # Safety
    /// No one writes buffer `i` meanwhile.
    unsafe fn slice(&self, i: usize) -> &[f64] {
        // SAFETY: a live buffer of `len` values, not written meanwhile.
        unsafe { std::slice::from_raw_parts(self.ptrs[i], self.len) }
    }

    /// Buffer `i` to write.
    ///
    /// # Safety
    /// No one else reads or writes buffer `i` meanwhile.
    #[allow(clippy::mut_from_ref)]
    unsafe fn slice_mut(&self, i: usize) -> &mut [f64] {
        // SAFETY: a live buffer of `len` values, this caller's alone.
        unsafe { std::slice::from_raw_parts_mut(self.ptrs[i], self.len) }
    }
}

/// Factors the panel of `rows` x `cols` at (`k`, `k`) with faer's LU and
/// returns its row transpositions, 0-based and relative to row `k`, in the
/// order they were applied (as LAPACK's ipiv).
///
/// # Safety
/// As [`Shared::block`], for the panel.
unsafe fn factor_panel(
    a: Shared,
    k: usize,
    rows: usize,
    cols: usize,
    perm: &mut [usize],
    perm_inv: &mut [usize],
    scratch: &mut MemBuffer,
) -> Vec<usize> {
    // SAFETY: as the caller promises.
    let panel = unsafe { a.block(k, k, rows, cols) };
    let (perm, perm_inv) = (&mut perm[..rows], &mut perm_inv[..rows]);
    lu_in_place(
        panel,
        perm,
        perm_inv,
        Par::Seq,
        MemStack::new(scratch),
        Default::default(),
    );
    // faer built perm by swapping (i, i + t_i) for i = 0, 1, ...; the row
    // at position i is final after swap i, so t_i is where perm[i] stood
    // just before it.
    let mut at: Vec<usize> = (0..rows).collect();
    let mut pos: Vec<usize> = (0..rows).collect();
    (0..cols)
        .map(|i| {
            let p = pos[perm[i]];
            let (ri, rp) = (at[i], at[p]);
            at.swap(i, p);
            pos[ri] = p;
            pos[rp] = i;
            p
        })
        .collect()
}

/// Applies the panel at (`k`, `k`) of width `kb` to the columns
/// `first..last`: its row swaps `ipiv`, the solve with its unit-lower block
/// and the trailing update of the rows below.
///
/// # Safety
/// Columns `first..last` are this worker's alone; the panel's columns are
/// final for this step.
#[allow(clippy::too_many_arguments)]
unsafe fn update(
    a: Shared,
    n: usize,
    k: usize,
    kb: usize,
    ipiv: &[usize],
    cols: (usize, usize),
    kernel: &Kernel,
    l21: &[f64],
    bp: &mut Vec<f64>,
) {
    let (first, last) = cols;
    let w = last - first;
    // SAFETY: this worker's own columns, rows k..n.
    let mut own = unsafe { a.block(k, first, n - k, w) };
    for j in 0..w {
        let col = own
            .as_mut()
            .col_mut(j)
            .try_as_col_major_mut()
            .expect("unit row stride");
        let col = col.as_slice_mut();
        for (i, &p) in ipiv.iter().enumerate() {
            col.swap(i, p);
        }
    }
    // SAFETY: the panel's columns are only read in this step.
    let panel = unsafe { a.block(k, k, n - k, kb) };
    let panel = panel.as_ref();
    let (l11, _) = panel.split_at_row(kb);
    let (mut u12, _) = own.split_at_row_mut(kb);
    solve_unit_lower_triangular_in_place(l11, u12.as_mut(), Par::Seq);
    // SAFETY: A22's columns are this worker's, L21 is packed and U12 lies
    // in its own rows above A22.
    unsafe {
        kernel.sub_product(
            n - k - kb,
            w,
            kb,
            l21,
            a.ptr.add(k + first * a.lda),
            a.lda,
            a.ptr.add(k + kb + first * a.lda),
            a.lda,
            bp,
        )
    };
}

/// LU factorisation with partial pivoting of the `n` x `n` matrix `a`
/// (column-major, leading dimension `lda`) in place, on `threads` workers.
/// Returns the row transpositions: row i was swapped with row `pivots[i]`
/// (>= i), in order.
fn factor(
    a: &mut [f64],
    n: usize,
    lda: usize,
    threads: usize,
    kernel: &Kernel,
    work: &mut Workspace,
    (panel, chunk): (usize, usize),
) -> Vec<usize> {
    assert!(
        a.len() >= lda * n.saturating_sub(1) + n,
        "A holds n columns"
    );
    let shared = Shared {
        ptr: a.as_mut_ptr(),
        lda,
    };
    let steps = n.div_ceil(panel);
    let panel_cols = |s: usize| (s * panel, panel.min(n - s * panel));
    // Transpositions of each panel, relative to its first row.
    let ipivs: Mutex<Vec<Vec<usize>>> = Mutex::new(Vec::with_capacity(steps));
    let next: Vec<AtomicUsize> = (0..steps).map(|_| AtomicUsize::new(0)).collect();
    let barrier = Barrier::new(threads.max(1));
    // L21 of panel s, packed for the GEMM in buffer s % 2: worker 0 packs
    // panel s + 1's while the others still read panel s's.
    let Workspace {
        packed: buffers,
        scratch,
        perm,
        perm_inv,
    } = work;
    assert!(buffers[0].len() >= kernel.packed_a_len(n, panel) && perm.len() >= n);
    let packed = Packed {
        ptrs: [buffers[0].as_mut_ptr(), buffers[1].as_mut_ptr()],
        len: buffers[0].len(),
    };
    // Worker 0's own workspace.
    let own = Mutex::new((scratch, perm, perm_inv));
    // Worker 0's part of a step: factor panel s and pack its L21.
    let factor_and_pack =
        |s: usize, perm: &mut [usize], perm_inv: &mut [usize], scratch: &mut MemBuffer| {
            let (k, kb) = panel_cols(s);
            // SAFETY: the panel's columns are worker 0's in this step, and so
            // is buffer s % 2 (the others read buffer (s - 1) % 2).
            let piv = unsafe {
                let piv = factor_panel(shared, k, n - k, kb, perm, perm_inv, scratch);
                kernel.pack_a(
                    n - k - kb,
                    kb,
                    shared.ptr.add(k + kb + k * lda),
                    lda,
                    packed.slice_mut(s % 2),
                );
                piv
            };
            ipivs.lock().expect("pivots").push(piv);
        };

    let work = |worker: usize| {
        let mut own = (worker == 0).then(|| own.lock().expect("worker 0's workspace"));
        let mut bp = Vec::new();
        if worker == 0 && n > 0 {
            let (scratch, perm, perm_inv) = &mut **own.as_mut().expect("worker 0");
            factor_and_pack(0, perm, perm_inv, scratch);
        }
        barrier.wait();
        for (s, next) in next.iter().enumerate() {
            let (k, kb) = panel_cols(s);
            let ipiv = ipivs.lock().expect("pivots")[s].clone();
            // SAFETY: buffer s % 2 was written before the last barrier and
            // is only read in this step.
            let l21 = unsafe { packed.slice(s % 2) };
            // Chunks of the columns right of the panel; chunk 0 is the next
            // panel's columns (worker 0's lookahead).
            let rest = k + kb;
            let lookahead = panel.min(n - rest);
            let chunks = if n > rest {
                1 + (n - rest - lookahead).div_ceil(chunk)
            } else {
                0
            };
            let chunk_cols = |c: usize| {
                if c == 0 {
                    (rest, rest + lookahead)
                } else {
                    let first = rest + lookahead + (c - 1) * chunk;
                    (first, (first + chunk).min(n))
                }
            };
            if worker == 0 && chunks > 0 {
                // SAFETY: chunk 0 is claimed by worker 0 alone (the others
                // start at 1), and the next panel lies in it.
                unsafe { update(shared, n, k, kb, &ipiv, chunk_cols(0), kernel, l21, &mut bp) };
                let (scratch, perm, perm_inv) = &mut **own.as_mut().expect("worker 0");
                factor_and_pack(s + 1, perm, perm_inv, scratch);
            }
            loop {
                let c = 1 + next.fetch_add(1, Ordering::Relaxed);
                if c >= chunks {
                    break;
                }
                // SAFETY: each chunk index is taken once, so its columns
                // are this worker's alone; the panel was final at the last
                // barrier.
                unsafe { update(shared, n, k, kb, &ipiv, chunk_cols(c), kernel, l21, &mut bp) };
            }
            barrier.wait();
        }
    };
    std::thread::scope(|scope| {
        for worker in 1..threads {
            let work = &work;
            scope.spawn(move || work(worker));
        }
        work(0);
    });

    // Each panel's swaps also apply to the L columns left of it.
    let ipivs = ipivs.into_inner().expect("pivots");
    let left_swaps = |first: usize, last: usize| {
        for (s, ipiv) in ipivs.iter().enumerate() {
            let k = s * panel;
            for j in first..last.min(k) {
                // SAFETY: each thread swaps in its own columns.
                let col = unsafe { shared.block(k, j, n - k, 1) };
                let col = col
                    .col_mut(0)
                    .try_as_col_major_mut()
                    .expect("unit row stride");
                let col = col.as_slice_mut();
                for (i, &p) in ipiv.iter().enumerate() {
                    col.swap(i, p);
                }
            }
        }
    };
    let per = n.div_ceil(threads.max(1)).max(1);
    std::thread::scope(|scope| {
        for first in (0..n).step_by(per) {
            let left_swaps = &left_swaps;
            scope.spawn(move || left_swaps(first, (first + per).min(n)));
        }
    });
    ipivs
        .iter()
        .enumerate()
        .flat_map(|(s, ipiv)| ipiv.iter().map(move |&p| p + s * panel))
        .collect()
}
