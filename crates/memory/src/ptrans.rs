//! `nodebench memory ptrans`: HPC Challenge's PTRANS on one node,
//! `A = A^T + B` for square matrices of doubles.
//!
//! * The order: the largest n whose two matrices (16 n^2 bytes) fit in
//!   `--memory-fraction` of the machine's memory (HPCC: n = HPL's N / 2,
//!   which is the half of HPL's memory at 0.5), or `--order`.
//! * Blocked: the matrix in `BLOCK` x `BLOCK` tiles; a work unit is a tile
//!   pair (I, J), I <= J, both tiles updated at once (each element's
//!   partner is in the other tile), so every element is read and written
//!   once per pass. Every thread takes tile rows I (the pairs (I, J >= I))
//!   from a shared counter, the longest rows first.
//! * Every thread works on the one matrix, as HPCC's processes do on the
//!   distributed one: the figure is labelled `mode=mpi`, as the import
//!   labels `PTRANS_GBs`, so `compare` matches them.
//! * GB/s as HPCC counts them: 8 n^2 bytes (one matrix) per pass over the
//!   pass's time, the best of `--ntimes` passes.
//! * The check: after k passes every entry has a closed form (A0 and B
//!   hold small integers, so it is exact), compared entry by entry; the
//!   largest difference over eps times the largest entry is the scaled
//!   residual, which fails above HPCC's 16 (HPCC prints 0 for a right run).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use nodebench_core::bench::{BenchError, Benchmark, Context};
use nodebench_core::buffer::{Buffer, check_fits, split};
use nodebench_core::config::Config;
use nodebench_core::inventory::meminfo::total_memory_bytes;
use nodebench_core::names::hpcc::{THRESHOLD, label, metric, mode, param};
use nodebench_core::names::memory::HPCC_PTRANS;
use nodebench_core::sizing;
use nodebench_core::team::{self, SpinBarrier};
use nodebench_core::{BenchResult, Better, Metric, Unit, affinity};

/// Tile edge, in elements: two 64 x 64 tiles of A and two of B (128 KiB)
/// sit in L2, and the column walk touches 64 lines at once.
pub const BLOCK: usize = 64;

/// Everything `memory ptrans` runs with.
#[derive(Debug, Clone)]
pub struct PtransConfig {
    /// The share of the machine's memory the two matrices may take.
    pub memory_fraction: f64,
    /// The order instead.
    pub order: Option<usize>,
    /// Threads; `None` for every allowed CPU.
    pub threads: Option<usize>,
    /// Timed passes; the best counts.
    pub ntimes: usize,
}

impl Default for PtransConfig {
    /// Half the memory (HPCC's n = N/2 of HPL's), every CPU, best of 5.
    fn default() -> Self {
        PtransConfig {
            memory_fraction: 0.5,
            order: None,
            threads: None,
            ntimes: 5,
        }
    }
}

impl Config for PtransConfig {
    fn validate(&self) -> Result<(), BenchError> {
        sizing::check_memory_fraction(self.memory_fraction)?;
        if self.order == Some(0) {
            return Err(BenchError::Invalid(
                "--order: expected a positive matrix order (e.g. 2000)".into(),
            ));
        }
        sizing::check_threads(self.threads)?;
        sizing::check_ntimes(self.ntimes, "timed pass")?;
        Ok(())
    }
}

impl PtransConfig {
    /// The order and where it came from, on a machine of `mem_total` bytes.
    pub fn order(&self, mem_total: Option<u64>) -> Result<(usize, String), BenchError> {
        if let Some(n) = self.order {
            return Ok((n, format!("--order {n}")));
        }
        let (share, sized_by) =
            sizing::memory_share(self.memory_fraction, mem_total, None, "--order")?;
        let n = ((share / 16.0).sqrt().floor() as usize).max(1);
        Ok((n, sized_by))
    }
}

/// A0's entry (i, j): a small integer, so every sum is exact.
fn a0(i: usize, j: usize) -> f64 {
    ((i * 7 + j * 13) % 1000) as f64
}

/// B's entry (i, j).
fn b0(i: usize, j: usize) -> f64 {
    ((i * 3 + j * 5) % 100) as f64
}

/// Entry (i, j) after `k` passes of `A = A^T + B` from A0.
fn expected(i: usize, j: usize, k: usize) -> f64 {
    let both = b0(i, j) + b0(j, i);
    if k.is_multiple_of(2) {
        a0(i, j) + (k / 2) as f64 * both
    } else {
        a0(j, i) + b0(i, j) + ((k - 1) / 2) as f64 * both
    }
}

/// The matrices, row-major, `n` x `n`.
pub struct Matrices {
    n: usize,
    a: Buffer<f64>,
    b: Buffer<f64>,
}

impl Matrices {
    /// Allocates the matrices and fills them (A0, B), rows split over
    /// `threads` (first touch).
    pub fn new(n: usize, threads: usize) -> Result<Matrices, BenchError> {
        let m = Matrices {
            n,
            a: Buffer::new(n * n, true, "--order")?,
            b: Buffer::new(n * n, true, "--order")?,
        };
        team::run(threads, true, |t| {
            let rows = split(n, threads, t, 1);
            // SAFETY: thread t alone owns these rows of both matrices.
            let (a, b) = unsafe {
                (
                    m.a.part(rows.start * n..rows.end * n),
                    m.b.part(rows.start * n..rows.end * n),
                )
            };
            for (r, i) in rows.enumerate() {
                for j in 0..n {
                    a[r * n + j] = a0(i, j);
                    b[r * n + j] = b0(i, j);
                }
            }
        });
        Ok(m)
    }

    /// One pass of `A = A^T + B` on `threads` threads (the caller's team:
    /// thread `t` of them calls this with the shared `next`).
    fn pass(&self, next: &AtomicUsize) {
        let n = self.n;
        let tiles = n.div_ceil(BLOCK);
        let (a, b) = (self.a.as_ptr(), self.b.as_ptr() as *const f64);
        loop {
            let ti = next.fetch_add(1, Ordering::Relaxed);
            if ti >= tiles {
                break;
            }
            for tj in ti..tiles {
                self.tile_pair(a, b, ti, tj);
            }
        }
    }

    /// Tiles (I, J) and (J, I) of one pass.
    #[inline(always)]
    fn tile_pair(&self, a: *mut f64, b: *const f64, ti: usize, tj: usize) {
        let n = self.n;
        let (r0, r1) = (ti * BLOCK, ((ti + 1) * BLOCK).min(n));
        let (c0, c1) = (tj * BLOCK, ((tj + 1) * BLOCK).min(n));
        for i in r0..r1 {
            // On a diagonal tile each pair once: j > i, and (i, i) alone.
            let from = if ti == tj { i + 1 } else { c0 };
            // SAFETY: tiles (I, J) and (J, I), J >= I, belong to the
            // thread the counter handed tile row I to, alone; every
            // index is < n*n.
            unsafe {
                if ti == tj {
                    *a.add(i * n + i) += *b.add(i * n + i);
                }
                for j in from..c1 {
                    let x = *a.add(i * n + j);
                    let y = *a.add(j * n + i);
                    *a.add(i * n + j) = y + *b.add(i * n + j);
                    *a.add(j * n + i) = x + *b.add(j * n + i);
                }
            }
        }
    }

    /// HPCC's scaled residual of A after `k` passes: the largest difference
    /// from the closed form over eps times the largest entry.
    pub fn residual(&self, k: usize, threads: usize) -> f64 {
        let n = self.n;
        let per = team::run(threads, false, |t| {
            let rows = split(n, threads, t, 1);
            // SAFETY: read only, after every pass has finished.
            let a = unsafe { self.a.part(rows.start * n..rows.end * n) };
            let (mut diff, mut big) = (0.0f64, 0.0f64);
            for (r, i) in rows.enumerate() {
                for j in 0..n {
                    let e = expected(i, j, k);
                    diff = diff.max((a[r * n + j] - e).abs());
                    big = big.max(e.abs());
                }
            }
            (diff, big)
        });
        let diff = per.iter().map(|p| p.0).fold(0.0, f64::max);
        let big = per.iter().map(|p| p.1).fold(1.0, f64::max);
        if diff.is_nan() {
            return f64::INFINITY;
        }
        diff / (f64::EPSILON * big)
    }
}

/// `ntimes` timed passes on `threads` pinned threads; the seconds of each.
pub fn timed_passes(m: &Matrices, threads: usize, ntimes: usize) -> Vec<f64> {
    let barrier = SpinBarrier::new(threads);
    let counters: Vec<AtomicUsize> = (0..ntimes).map(|_| AtomicUsize::new(0)).collect();
    let clock = Instant::now();
    let stamps: Vec<(AtomicUsize, AtomicUsize)> = (0..ntimes)
        .map(|_| (AtomicUsize::new(0), AtomicUsize::new(0)))
        .collect();
    team::run(threads, true, |_| {
        for (next, (start, end)) in counters.iter().zip(&stamps) {
            barrier
                .wait_then(|| start.store(clock.elapsed().as_nanos() as usize, Ordering::SeqCst));
            m.pass(next);
            barrier.wait_then(|| end.store(clock.elapsed().as_nanos() as usize, Ordering::SeqCst));
        }
    });
    stamps
        .iter()
        .map(|(s, e)| (e.load(Ordering::SeqCst) - s.load(Ordering::SeqCst)) as f64 * 1e-9)
        .collect()
}

/// The `memory.hpcc_ptrans` benchmark.
#[derive(Debug, Clone, Default)]
pub struct Ptrans {
    /// Its configuration.
    pub config: PtransConfig,
}

impl Benchmark for Ptrans {
    fn id(&self) -> &'static str {
        HPCC_PTRANS
    }

    /// The flags, then the matrices against the memory available.
    fn validate(&self) -> Result<(), BenchError> {
        let c = &self.config;
        c.validate()?;
        let (n, _) = c.order(total_memory_bytes())?;
        let flag = if c.order.is_some() {
            "--order"
        } else {
            "--memory-fraction"
        };
        check_fits((n as u64).saturating_mul(n as u64).saturating_mul(16), flag)
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        self.validate()?;
        let c = &self.config;
        let (n, sized_by) =
            c.order(ctx.inventory.memory.total_bytes.or_else(total_memory_bytes))?;
        let threads = c
            .threads
            .unwrap_or_else(|| affinity::allowed_cpus().len())
            .max(1);
        ctx.progress.start("memory ptrans", 1);
        let m = Matrices::new(n, threads)?;
        let times = timed_passes(&m, threads, c.ntimes);
        let best = times.iter().copied().fold(f64::INFINITY, f64::min);
        let residual = m.residual(times.len(), threads);
        let mut r = BenchResult::new(HPCC_PTRANS);
        r.set_param(param::N, n);
        r.set_param(param::THREADS, threads);
        r.set_param(param::SIZED_BY, &sized_by);
        r.metrics.push(
            Metric::new(
                metric::BANDWIDTH,
                8.0 * (n * n) as f64 / best.max(1e-9),
                Unit::BytesPerSecond,
                Better::Higher,
            )
            .label(label::MODE, mode::MPI),
        );
        r.metrics.push(
            Metric::new(metric::RESIDUAL, residual, Unit::Count, Better::Lower)
                .label(label::MODE, mode::MPI),
        );
        if residual.is_nan() || residual > THRESHOLD {
            r.mark_failed(format!(
                "check failed: scaled residual {residual:.3e} of A^T + B is above HPCC's {THRESHOLD}"
            ));
        }
        ctx.progress.advance(1);
        ctx.record(r)?;
        ctx.progress.finish();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(m: &Matrices) -> Vec<f64> {
        // SAFETY: no pass is running.
        unsafe { m.a.part(0..m.n * m.n) }.to_vec()
    }

    #[test]
    fn the_blocked_pass_is_a_naive_transpose_plus_b() {
        for n in [1, 5, 63, 64, 65, 130, 200] {
            for threads in [1, 3] {
                let m = Matrices::new(n, threads).unwrap();
                let before = read(&m);
                timed_passes(&m, threads, 1);
                let after = read(&m);
                for i in 0..n {
                    for j in 0..n {
                        assert_eq!(
                            after[i * n + j],
                            before[j * n + i] + b0(i, j),
                            "n={n} ({i},{j})"
                        );
                    }
                }
                assert_eq!(m.residual(1, threads), 0.0);
            }
        }
    }

    #[test]
    fn passes_follow_the_closed_form_and_a_planted_error_fails() {
        let n = 150;
        let m = Matrices::new(n, 2).unwrap();
        assert_eq!(timed_passes(&m, 2, 4).len(), 4);
        assert_eq!(m.residual(4, 2), 0.0);
        assert!(
            m.residual(3, 2) > THRESHOLD,
            "the wrong pass count is caught"
        );
        // SAFETY: no pass is running.
        unsafe { *m.a.as_ptr().add(17 * n + 99) += 0.5 };
        assert!(m.residual(4, 2) > THRESHOLD);
    }

    #[test]
    fn hpccs_order() {
        // HPL N = 4000 takes 128 MB; PTRANS n = N / 2 = 2000 at half of it.
        let c = PtransConfig::default();
        assert_eq!(c.order(Some(128_000_000)).unwrap().0, 2000);
    }
}
