//! `nodebench cpu dgemm`: HPC Challenge's DGEMM through nodebench's own
//! GEMM ([`crate::gemm`], the packed micro-kernel of LINPACK's trailing
//! update; `--blas rust`, the default) or a system BLAS's dgemm (`--blas
//! openblas|mkl|flame|auto|PATH`, loaded at run time and set to one thread:
//! HPCC's StarDGEMM is one single-threaded multiply per core), single (one
//! core, the others idle) and star (every core its own multiply at once,
//! the figure the mean of each core's).
//!
//! * The order: the largest n whose three matrices (24 n^2 bytes) fit in
//!   `--memory-fraction` of each core's memory (MemTotal over the cores;
//!   HPCC's DGEMM_N is the same rule over each process's memory), or
//!   `--order`.
//! * `C = C - A B` (HPCC's `C = beta C + alpha A B` with alpha = -1,
//!   beta = 1), entries uniform in [-0.5, 0.5); 2 n^3 flops per multiply,
//!   the best of `--ntimes`.
//! * HPCC's check: with a random x, `||C x - (C0 x - k A (B x))||_inf`
//!   over `eps n (k ||A|| ||B|| + ||C0||) ||x||` (infinity norms, k
//!   multiplies done) is the scaled residual, which fails above 16.

use std::time::Instant;

use nodebench_core::bench::{BenchError, Benchmark, Context};
use nodebench_core::buffer::check_fits;
use nodebench_core::config::{Choice, Config};
use nodebench_core::inventory::meminfo::total_memory_bytes;
use nodebench_core::names::cpu::HPCC_DGEMM;
use nodebench_core::names::hpcc::{THRESHOLD, label, metric, mode, param};
use nodebench_core::rng::XorShift64;
use nodebench_core::sizing;
use nodebench_core::team::{self, SpinBarrier};
use nodebench_core::{BenchResult, Better, Metric, Unit, affinity};

use crate::blas::BlasLibrary;
use crate::config::{BlasChoice, Family};
use crate::gemm::Kernel;
use crate::rust::{CHUNK, PANEL};

nodebench_core::choice! {
    /// How DGEMM runs.
    pub enum DgemmMode {
        /// One core, the others idle (SingleDGEMM).
        Single => mode::SINGLE,
        /// Every core its own multiply at once (StarDGEMM).
        Star => mode::STAR,
    }
}

/// Everything `cpu dgemm` runs with.
#[derive(Debug, Clone)]
pub struct DgemmConfig {
    /// The share of each core's memory the three matrices may take.
    pub memory_fraction: f64,
    /// The order instead.
    pub order: Option<usize>,
    /// The modes, in order.
    pub modes: Vec<DgemmMode>,
    /// Threads of star; `None` for every allowed CPU.
    pub threads: Option<usize>,
    /// Timed multiplies; the best counts.
    pub ntimes: usize,
    /// Whose multiply: nodebench's own GEMM (`rust`) or a system BLAS.
    pub blas: BlasChoice,
}

impl Default for DgemmConfig {
    /// Single then star, half of each core's memory, the best of 2.
    fn default() -> Self {
        DgemmConfig {
            memory_fraction: 0.5,
            order: None,
            modes: vec![DgemmMode::Single, DgemmMode::Star],
            threads: None,
            ntimes: 2,
            blas: BlasChoice::Rust,
        }
    }
}

impl Config for DgemmConfig {
    fn validate(&self) -> Result<(), BenchError> {
        sizing::check_memory_fraction(self.memory_fraction)?;
        if self.order == Some(0) {
            return Err(BenchError::Invalid(
                "--order: expected a positive matrix order (e.g. 1632)".into(),
            ));
        }
        sizing::check_modes(&self.modes, "single, star")?;
        sizing::check_threads(self.threads)?;
        sizing::check_ntimes(self.ntimes, "timed multiply")?;
        Ok(())
    }
}

impl DgemmConfig {
    /// The order and where it came from, on a machine of `mem_total`
    /// bytes with `cores` star cores.
    pub fn order(
        &self,
        mem_total: Option<u64>,
        cores: usize,
    ) -> Result<(usize, String), BenchError> {
        if let Some(n) = self.order {
            return Ok((n, format!("--order {n}")));
        }
        let (share, sized_by) =
            sizing::memory_share(self.memory_fraction, mem_total, Some(cores), "--order")?;
        let per_core = share / cores.max(1) as f64;
        let n = ((per_core / 24.0).sqrt().floor() as usize).max(1);
        Ok((n, sized_by))
    }
}

/// Whose multiply DGEMM times.
pub enum Multiplier {
    /// nodebench's own packed GEMM.
    Own(Kernel),
    /// A system BLAS's dgemm, set to one thread.
    Blas(BlasLibrary),
}

impl Multiplier {
    /// The multiplier `choice` names: `rust` nodebench's own; a family or
    /// a path that library's dgemm; `auto` the first family found, else
    /// nodebench's own. `Err` names `--blas` and what is missing.
    pub fn select(choice: &BlasChoice) -> Result<Multiplier, BenchError> {
        let blas = |lib: BlasLibrary| {
            if !lib.has_dgemm() {
                return Err(BenchError::System(format!(
                    "--blas {}: the library has no dgemm_ entry point",
                    lib.path
                )));
            }
            lib.set_threads(1);
            Ok(Multiplier::Blas(lib))
        };
        match choice {
            BlasChoice::Rust => Ok(Multiplier::Own(Kernel::detect())),
            BlasChoice::Family(f) => blas(BlasLibrary::find(*f)?),
            BlasChoice::Path(p) => blas(
                BlasLibrary::open(p).map_err(|e| BenchError::System(format!("--blas {p}: {e}")))?,
            ),
            BlasChoice::Auto => Family::ALL
                .iter()
                .find_map(|&f| BlasLibrary::find(f).ok().filter(BlasLibrary::has_dgemm))
                .map_or_else(|| Ok(Multiplier::Own(Kernel::detect())), blas),
        }
    }

    /// `C -= A B` for `n` x `n` column-major matrices.
    pub fn multiply_sub(
        &self,
        n: usize,
        a: &[f64],
        b: &[f64],
        c: &mut [f64],
    ) -> Result<(), BenchError> {
        match self {
            Multiplier::Own(k) => {
                multiply_sub(k, n, a, b, c);
                Ok(())
            }
            Multiplier::Blas(lib) => lib.multiply_sub(n, a, b, c),
        }
    }

    /// The backend's name (`rust`, `openblas`...) and what it is.
    pub fn describe(&self) -> (&'static str, String) {
        match self {
            Multiplier::Own(k) => ("rust", format!("nodebench's packed GEMM ({})", k.isa)),
            Multiplier::Blas(lib) => (lib.kind, lib.version.clone()),
        }
    }
}

/// `C -= A B` for `n` x `n` column-major matrices, by LINPACK's packed
/// kernel: A packed a panel of [`PANEL`] columns at a time, B a chunk of
/// [`CHUNK`] columns at a time.
pub fn multiply_sub(kernel: &Kernel, n: usize, a: &[f64], b: &[f64], c: &mut [f64]) {
    assert!(a.len() >= n * n && b.len() >= n * n && c.len() >= n * n);
    let mut ap = vec![0.0; kernel.packed_a_len(n, PANEL.min(n))];
    let mut bp = Vec::new();
    for p in (0..n).step_by(PANEL) {
        let kc = PANEL.min(n - p);
        // SAFETY: columns p..p + kc of A, n rows, lie in `a` (asserted).
        unsafe { kernel.pack_a(n, kc, a[p * n..].as_ptr(), n, &mut ap) };
        for jc in (0..n).step_by(CHUNK) {
            let cols = CHUNK.min(n - jc);
            // SAFETY: rows p..p + kc of B's columns jc..jc + cols, and C's
            // columns jc..jc + cols, lie in their slices; C is its own.
            unsafe {
                kernel.sub_product(
                    n,
                    cols,
                    kc,
                    &ap,
                    b[p + jc * n..].as_ptr(),
                    n,
                    c[jc * n..].as_mut_ptr(),
                    n,
                    &mut bp,
                )
            };
        }
    }
}

/// `y = M x` for the `n` x `n` column-major `m`.
fn mat_vec(n: usize, m: &[f64], x: &[f64]) -> Vec<f64> {
    let mut y = vec![0.0; n];
    for (j, &xj) in x.iter().enumerate() {
        for (yi, &mij) in y.iter_mut().zip(&m[j * n..(j + 1) * n]) {
            *yi += mij * xj;
        }
    }
    y
}

/// The infinity norm (largest row sum of magnitudes) of `m`.
fn norm_inf(n: usize, m: &[f64]) -> f64 {
    let mut rows = vec![0.0f64; n];
    for col in m.chunks_exact(n) {
        for (r, v) in rows.iter_mut().zip(col) {
            *r += v.abs();
        }
    }
    rows.into_iter().fold(0.0, f64::max)
}

/// The largest magnitude of `v`.
fn max_abs(v: &[f64]) -> f64 {
    v.iter().fold(0.0, |m, x| m.max(x.abs()))
}

/// Uniform entries in [-0.5, 0.5).
fn random(len: usize, rng: &mut XorShift64) -> Vec<f64> {
    (0..len)
        .map(|_| (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64 - 0.5)
        .collect()
}

/// One core's multiplies: the best time of `ntimes`, and the scaled
/// residual. `corrupt` adds to one entry of C before the check (tests).
fn multiplies(
    multiplier: &Multiplier,
    n: usize,
    ntimes: usize,
    seed: u64,
    barrier: &SpinBarrier,
    corrupt: f64,
) -> Result<(f64, f64), BenchError> {
    let mut rng = XorShift64::new(seed);
    let (a, b, mut c) = (
        random(n * n, &mut rng),
        random(n * n, &mut rng),
        random(n * n, &mut rng),
    );
    let x = random(n, &mut rng);
    let c0x = mat_vec(n, &c, &x);
    let c0_norm = norm_inf(n, &c);
    let mut best = f64::INFINITY;
    for _ in 0..ntimes {
        barrier.wait();
        let t = Instant::now();
        multiplier.multiply_sub(n, &a, &b, &mut c)?;
        best = best.min(t.elapsed().as_secs_f64());
    }
    c[n / 2] += corrupt;
    let k = ntimes as f64;
    let abx = mat_vec(n, &a, &mat_vec(n, &b, &x));
    let cx = mat_vec(n, &c, &x);
    let diff = cx
        .iter()
        .zip(c0x.iter().zip(&abx))
        .map(|(y, (y0, p))| (y - (y0 - k * p)).abs())
        .fold(0.0, f64::max);
    let scale =
        f64::EPSILON * n as f64 * (k * norm_inf(n, &a) * norm_inf(n, &b) + c0_norm) * max_abs(&x);
    let residual = if diff.is_nan() {
        f64::INFINITY
    } else {
        diff / scale
    };
    Ok((best, residual))
}

/// The `cpu.hpcc_dgemm` benchmark.
#[derive(Debug, Clone, Default)]
pub struct HpccDgemm {
    /// Its configuration.
    pub config: DgemmConfig,
}

impl HpccDgemm {
    fn cores(&self) -> usize {
        self.config
            .threads
            .unwrap_or_else(|| affinity::allowed_cpus().len())
            .max(1)
    }
}

impl Benchmark for HpccDgemm {
    fn id(&self) -> &'static str {
        HPCC_DGEMM
    }

    /// The flags, then the star run's matrices against the memory available.
    fn validate(&self) -> Result<(), BenchError> {
        let c = &self.config;
        c.validate()?;
        let cores = self.cores();
        let (n, _) = c.order(total_memory_bytes(), cores)?;
        let threads = if c.modes.contains(&DgemmMode::Star) {
            cores
        } else {
            1
        };
        let flag = if c.order.is_some() {
            "--order"
        } else {
            "--memory-fraction"
        };
        check_fits(
            (n as u64)
                .saturating_mul(n as u64)
                .saturating_mul(24)
                .saturating_mul(threads as u64),
            flag,
        )
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        self.validate()?;
        let c = &self.config;
        let cores = self.cores();
        let (n, sized_by) = c.order(
            ctx.inventory.memory.total_bytes.or_else(total_memory_bytes),
            cores,
        )?;
        let multiplier = Multiplier::select(&c.blas)?;
        let (backend, version) = multiplier.describe();
        ctx.progress.start("cpu dgemm", c.modes.len() as u64);
        for &m in &c.modes {
            if ctx.cancel.is_cancelled() {
                break;
            }
            let threads = if m == DgemmMode::Star { cores } else { 1 };
            let barrier = SpinBarrier::new(threads);
            let per = team::run(threads, true, |t| {
                multiplies(&multiplier, n, c.ntimes, 0xd9e + t as u64, &barrier, 0.0)
            })
            .into_iter()
            .collect::<Result<Vec<_>, BenchError>>()?;
            let flops = 2.0 * (n as f64).powi(3);
            let rate = per.iter().map(|(s, _)| flops / s).sum::<f64>() / threads as f64;
            let residual = per.iter().map(|(_, r)| *r).fold(0.0, f64::max);
            let mut r = BenchResult::new(HPCC_DGEMM);
            r.set_param(param::N, n);
            r.set_param(param::THREADS, threads);
            r.set_param(param::SIZED_BY, &sized_by);
            r.set_param(param::BACKEND, backend);
            r.set_param(param::BACKEND_VERSION, &version);
            r.metrics.push(
                Metric::new(metric::RATE, rate, Unit::FlopsPerSecond, Better::Higher)
                    .label(label::MODE, m.as_str()),
            );
            r.metrics.push(
                Metric::new(metric::RESIDUAL, residual, Unit::Count, Better::Lower)
                    .label(label::MODE, m.as_str()),
            );
            if residual.is_nan() || residual > THRESHOLD {
                r.mark_failed(format!(
                    "check failed: scaled residual {residual:.3} of C - A B is above HPCC's {THRESHOLD}"
                ));
            }
            ctx.progress.advance(1);
            if !ctx.record(r)? {
                break;
            }
        }
        ctx.progress.finish();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_packed_gemm_matches_the_textbook_product() {
        for kernel in [Kernel::detect(), Kernel::portable()] {
            for n in [1, 7, 50, 300] {
                let mut rng = XorShift64::new(n as u64);
                let (a, b) = (random(n * n, &mut rng), random(n * n, &mut rng));
                let mut c = random(n * n, &mut rng);
                let mut want = c.clone();
                for j in 0..n {
                    for p in 0..n {
                        for i in 0..n {
                            want[i + j * n] -= a[i + p * n] * b[p + j * n];
                        }
                    }
                }
                multiply_sub(&kernel, n, &a, &b, &mut c);
                let err = c
                    .iter()
                    .zip(&want)
                    .map(|(x, y)| (x - y).abs())
                    .fold(0.0, f64::max);
                assert!(err < 1e-12 * n as f64, "{} n={n}: {err}", kernel.isa);
            }
        }
    }

    #[test]
    fn the_residual_check_passes_and_catches_a_planted_error() {
        let k = Multiplier::Own(Kernel::detect());
        let one = SpinBarrier::new(1);
        let (t, r) = multiplies(&k, 200, 2, 1, &one, 0.0).unwrap();
        assert!(t > 0.0 && r < THRESHOLD, "residual {r}");
        let (_, bad) = multiplies(&k, 200, 2, 1, &one, 1e-4).unwrap();
        assert!(bad > THRESHOLD, "residual {bad}");
    }

    /// OpenBLAS's dgemm (Debian's libopenblas0, which scripts/test
    /// installs) computes the same C - A B as nodebench's GEMM and passes
    /// HPCC's check; a planted error fails it.
    #[test]
    fn a_system_blas_dgemm_matches_the_own_gemm_and_passes_hpccs_check() {
        let blas = match Multiplier::select(&BlasChoice::Family(Family::OpenBlas)) {
            Ok(m) => m,
            Err(e) => {
                nodebench_core::test_require::missing(
                    "a_system_blas_dgemm_matches_the_own_gemm_and_passes_hpccs_check",
                    nodebench_core::test_require::need::OPENBLAS,
                    &e.to_string(),
                    "apt-get install libopenblas0",
                );
                return;
            }
        };
        assert_eq!(blas.describe().0, "openblas");
        let n = 150;
        let mut rng = XorShift64::new(7);
        let (a, b) = (random(n * n, &mut rng), random(n * n, &mut rng));
        let c0 = random(n * n, &mut rng);
        let (mut own, mut lib) = (c0.clone(), c0);
        Multiplier::Own(Kernel::detect())
            .multiply_sub(n, &a, &b, &mut own)
            .unwrap();
        blas.multiply_sub(n, &a, &b, &mut lib).unwrap();
        let err = own
            .iter()
            .zip(&lib)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f64::max);
        assert!(err < 1e-12 * n as f64, "{err}");
        let one = SpinBarrier::new(1);
        let (_, r) = multiplies(&blas, 200, 2, 1, &one, 0.0).unwrap();
        assert!(r < THRESHOLD, "residual {r}");
        let (_, bad) = multiplies(&blas, 200, 2, 1, &one, 1e-4).unwrap();
        assert!(bad > THRESHOLD, "residual {bad}");
        // A library without dgemm_ is refused naming --blas.
        let err = Multiplier::select(&BlasChoice::Path("/nonexistent/libx.so".into()))
            .err()
            .unwrap();
        assert!(
            err.to_string().starts_with("--blas /nonexistent/libx.so: "),
            "{err}"
        );
    }

    #[test]
    fn hpccs_order() {
        // HPCC: DGEMM_N = 1632 for 64 MB per process (HPL N = 4000 on 2).
        let c = DgemmConfig::default();
        assert_eq!(c.order(Some(256_000_000), 2).unwrap().0, 1632);
        let bad = DgemmConfig {
            order: Some(0),
            ..DgemmConfig::default()
        };
        assert!(
            bad.validate()
                .unwrap_err()
                .to_string()
                .starts_with("--order:")
        );
    }
}
