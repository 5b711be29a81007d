//! Choosing the solver: the pure-Rust LU (always there) or a system
//! BLAS/LAPACK; `auto` times every one available on a small system and
//! takes the fastest.

use nodebench_core::bench::BenchError;
use std::time::Duration;

use nodebench_core::config::Choice;

use crate::blas::BlasLibrary;
use crate::config::{BlasChoice, Family, Kind};
use crate::error::SolveError;
use crate::matrix::{Equations, System, flops};
use crate::rust::{FAER_VERSION, RustSolver};

/// A ready solver.
pub enum Solver {
    /// faer's LU.
    Rust(RustSolver),
    /// dgesv from a loaded library.
    Blas(BlasLibrary),
}

impl Solver {
    /// Short name: rust, openblas, mkl, flame or lapack.
    pub fn name(&self) -> &'static str {
        match self {
            Solver::Rust(_) => "rust",
            Solver::Blas(b) => b.kind,
        }
    }

    /// Version and origin, recorded with every result.
    pub fn version(&self) -> String {
        match self {
            Solver::Rust(r) => format!(
                "blocked LU, {} GEMM, faer {FAER_VERSION} (pure Rust)",
                r.kernel()
            ),
            Solver::Blas(b) => format!("{} [{}]", b.version, b.path),
        }
    }

    /// Solves the equations in place (A becomes its LU factors, b becomes
    /// x) and returns the time of the solve alone, taken by the backend
    /// around its own work.
    pub fn solve(&self, eq: Equations<'_>) -> Result<Duration, SolveError> {
        match self {
            Solver::Rust(r) => r.solve(eq),
            Solver::Blas(l) => l.solve(eq),
        }
    }
}

/// The solver picked, and how.
pub struct Selection {
    /// The solver to use.
    pub solver: Solver,
    /// One line per candidate timed by `auto` (`openblas: 61.2 GFLOPS at n = 3000`),
    /// or what was not found.
    pub notes: Vec<String>,
}

/// Largest order of the calibration system `auto` times each candidate on:
/// runs of larger systems are calibrated at this order.
pub const CALIBRATION_MAX_ORDER: usize = 3000;

/// Smallest calibration order: below it one solve is too short to time.
pub const CALIBRATION_MIN_ORDER: usize = 1000;

/// The order `auto` calibrates at for a run whose largest system is
/// `largest`: that order itself, within [`CALIBRATION_MIN_ORDER`] and
/// [`CALIBRATION_MAX_ORDER`], so the pick is made at the run's scale and a
/// short run does not spend longer choosing than solving.
pub fn calibration_order(largest: usize) -> usize {
    largest.clamp(CALIBRATION_MIN_ORDER, CALIBRATION_MAX_ORDER)
}

/// Rounds of `auto`'s calibration: every candidate solves once per round.
pub const CALIBRATION_ROUNDS: usize = 3;

/// Loads what `choice` names for `threads` threads; `auto` times every
/// available candidate at [`calibration_order`] of `largest` (the run's
/// largest system), taking turns for up to
/// [`CALIBRATION_ROUNDS`] rounds (one under half the leader's rate drops
/// out), and keeps the one with the best solve.
pub fn select(
    choice: &BlasChoice,
    threads: usize,
    largest: usize,
) -> Result<Selection, BenchError> {
    let load = |lib: BlasLibrary| {
        lib.set_threads(threads);
        Solver::Blas(lib)
    };
    match choice {
        BlasChoice::Rust => Ok(Selection {
            solver: Solver::Rust(RustSolver::new(threads)?),
            notes: vec![],
        }),
        BlasChoice::Family(f) => Ok(Selection {
            solver: load(BlasLibrary::find(*f)?),
            notes: vec![],
        }),
        BlasChoice::Path(p) => Ok(Selection {
            solver: load(
                BlasLibrary::open(p).map_err(|e| BenchError::System(format!("--blas {p}: {e}")))?,
            ),
            notes: vec![],
        }),
        BlasChoice::Auto => {
            let mut candidates = vec![Solver::Rust(RustSolver::new(threads)?)];
            let mut missing = Vec::new();
            for &family in Family::ALL {
                match BlasLibrary::find(family) {
                    Ok(lib) => candidates.push(load(lib)),
                    Err(_) => missing.push(family.as_str()),
                }
            }
            let mut notes = Vec::new();
            if candidates.len() == 1 {
                notes.push(format!(
                    "auto: no system BLAS found (looked for {}); using the Rust backend",
                    missing.join(", ")
                ));
                return Ok(Selection {
                    solver: candidates.pop().expect("the Rust backend"),
                    notes,
                });
            }
            // Candidates take turns, round after round, so a slow spell of
            // a shared machine does not fall on one of them only.
            let order = calibration_order(largest);
            let mut system = System::new(order, 1, Kind::Random, true, "--blas auto")?;
            // A candidate under half the leader's best after a round is
            // out of the later ones: no slow spell explains a factor of
            // two, and a slow BLAS would otherwise cost seconds.
            let mut rates = vec![0.0f64; candidates.len()];
            let mut rounds = vec![0usize; candidates.len()];
            for _ in 0..CALIBRATION_ROUNDS {
                let leader = rates.iter().copied().fold(0.0, f64::max);
                for ((solver, best), done) in candidates.iter().zip(&mut rates).zip(&mut rounds) {
                    if *best >= leader / 2.0 {
                        *best = best.max(calibrate(solver, &mut system, threads)?);
                        *done += 1;
                    }
                }
            }
            for ((solver, gflops), done) in candidates.iter().zip(&rates).zip(&rounds) {
                notes.push(format!(
                    "auto: {} {gflops:.1} GFLOPS at n = {order} (best of {done})",
                    solver.name()
                ));
            }
            let pick = (0..rates.len())
                .max_by(|&a, &b| rates[a].total_cmp(&rates[b]))
                .expect("at least one candidate");
            let solver = candidates.swap_remove(pick);
            notes.push(format!("auto: picked {}", solver.name()));
            Ok(Selection { solver, notes })
        }
    }
}

/// GFLOPS of one solve of `system` (refilled first) by `solver`.
fn calibrate(solver: &Solver, system: &mut System, threads: usize) -> Result<f64, BenchError> {
    system.fill(threads);
    let mut x = system.rhs();
    let time = solver.solve(system.equations(&mut x)).map_err(|e| {
        BenchError::System(format!(
            "--blas auto: {} failed calibration: {e}",
            solver.name()
        ))
    })?;
    Ok(flops(system.n) / time.as_secs_f64() / 1e9)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_calibrates_at_the_runs_largest_order_within_bounds() {
        assert_eq!(calibration_order(150), CALIBRATION_MIN_ORDER);
        assert_eq!(calibration_order(2000), 2000);
        assert_eq!(calibration_order(3000), 3000);
        assert_eq!(calibration_order(49_840), CALIBRATION_MAX_ORDER);
    }
}
