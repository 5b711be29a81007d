//! The pure-Rust backend: faer's blocked, recursive LU with partial
//! pivoting, factoring A in place, then the two triangular solves, all on a
//! rayon pool of the requested size. Always available.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::lu::partial_pivoting::factor::{lu_in_place, lu_in_place_scratch};
use faer::linalg::triangular_solve::{
    solve_unit_lower_triangular_in_place, solve_upper_triangular_in_place,
};
use std::time::{Duration, Instant};

use faer::{MatMut, Par};

use crate::error::SolveError;
use crate::matrix::Equations;

/// faer's version, as recorded with results.
pub const FAER_VERSION: &str = "0.24";

/// A pool of `threads` workers for faer's parallel kernels.
pub struct RustSolver {
    pool: rayon::ThreadPool,
    threads: usize,
}

impl RustSolver {
    /// Builds the worker pool.
    pub fn new(threads: usize) -> Result<RustSolver, String> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .thread_name(|i| format!("linpack-{i}"))
            .build()
            .map_err(|e| format!("cannot start {threads} solver threads: {e}"))?;
        Ok(RustSolver { pool, threads })
    }

    /// Solves the equations in place (A becomes its LU factors and b
    /// becomes x). Returns the time of the factorisation and the triangular
    /// solves.
    pub fn solve(&self, eq: Equations<'_>) -> Result<Duration, SolveError> {
        let Equations { n, a, lda, b } = eq;
        let par = if self.threads > 1 {
            Par::rayon(self.threads)
        } else {
            Par::Seq
        };
        self.pool.install(|| {
            let start = Instant::now();
            let mut lu = MatMut::from_column_major_slice_with_stride_mut(a, n, n, lda);
            let mut perm = vec![0usize; n];
            let mut perm_inv = vec![0usize; n];
            let mut scratch = MemBuffer::new(lu_in_place_scratch::<usize, f64>(
                n,
                n,
                par,
                Default::default(),
            ));
            let (_, p) = lu_in_place(
                lu.as_mut(),
                &mut perm,
                &mut perm_inv,
                par,
                MemStack::new(&mut scratch),
                Default::default(),
            );
            if let Some(k) = (0..n).find(|&k| lu[(k, k)] == 0.0) {
                return Err(SolveError::Singular { column: k + 1 });
            }
            // x = U^-1 L^-1 P b.
            let (forward, _) = p.arrays();
            let permuted: Vec<f64> = forward.iter().map(|&i| b[i]).collect();
            b.copy_from_slice(&permuted);
            let mut x = MatMut::from_column_major_slice_mut(b, n, 1);
            solve_unit_lower_triangular_in_place(lu.as_ref(), x.as_mut(), par);
            solve_upper_triangular_in_place(lu.as_ref(), x.as_mut(), par);
            Ok(start.elapsed())
        })
    }
}
