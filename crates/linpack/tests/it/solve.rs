//! Solves real systems with each backend and checks what a user relies on:
//! one result per order, one figure per trial, PASSED residuals, and a
//! singular matrix never passing.

use nodebench_core::bench::{Cancel, collect};
use nodebench_core::names::linpack::{self as names, param};
use nodebench_core::{BenchResult, ResultStatus};
use nodebench_linpack::Linpack;
use nodebench_linpack::config::{BlasChoice, Family, Kind, LinpackConfig, Sizes};
use nodebench_machine::inventory;

fn run(blas: BlasChoice, sizes: &[usize], trials: usize, matrix: Kind) -> Vec<BenchResult> {
    run_on(blas, sizes, trials, matrix, 2)
}

fn run_on(
    blas: BlasChoice,
    sizes: &[usize],
    trials: usize,
    matrix: Kind,
    threads: usize,
) -> Vec<BenchResult> {
    let bench = Linpack {
        config: LinpackConfig {
            sizes: Sizes::List(sizes.to_vec()),
            trials,
            blas,
            threads: Some(threads),
            matrix,
            ..LinpackConfig::default()
        },
    };
    collect(&bench, &inventory::collect(), Cancel::new()).expect("linpack runs")
}

fn count(r: &BenchResult, name: &str) -> usize {
    r.metrics_named(name).count()
}

fn check_passed(results: &[BenchResult], sizes: &[usize], trials: usize, backend: &str) {
    assert_eq!(results.len(), sizes.len());
    for (r, &n) in results.iter().zip(sizes) {
        assert_eq!(r.status, ResultStatus::Passed, "{:?}", r.error);
        assert_eq!(r.param(param::N).unwrap(), n);
        assert_eq!(r.param(param::BACKEND).unwrap(), backend);
        for name in [
            names::TIME,
            names::RATE,
            names::RESIDUAL,
            names::RESIDUAL_NORM,
        ] {
            assert_eq!(count(r, name), trials, "{name}");
        }
        for m in r.metrics_named(names::RESIDUAL_NORM) {
            assert!(m.value < 16.0 && m.value > 0.0, "{}", m.value);
        }
        let max = r.metric(names::RATE_MAXIMAL, &[]).unwrap();
        let avg = r.metric(names::RATE_AVERAGE, &[]).unwrap();
        assert!(max.value >= avg.value && avg.value > 0.0);
    }
}

#[test]
fn the_rust_backend_solves_and_passes_the_residual_check() {
    let sizes = [64, 333, 600];
    check_passed(
        &run(BlasChoice::Rust, &sizes, 2, Kind::Random),
        &sizes,
        2,
        "rust",
    );
}

#[test]
fn the_rust_backend_passes_with_several_panels_on_one_and_three_workers() {
    // 1100 = 4 panels of 256 and a partial one of 76; 3 workers share the
    // chunks unevenly.
    let sizes = [1100, 517];
    for threads in [1, 3] {
        let results = run_on(BlasChoice::Rust, &sizes, 1, Kind::Random, threads);
        check_passed(&results, &sizes, 1, "rust");
        assert_eq!(results[0].param(param::THREADS).unwrap(), threads);
    }
}

#[test]
fn openblas_solves_and_passes_the_residual_check() {
    let sizes = [100, 513];
    check_passed(
        &run(
            BlasChoice::Family(Family::OpenBlas),
            &sizes,
            2,
            Kind::Random,
        ),
        &sizes,
        2,
        "openblas",
    );
}

#[test]
fn a_singular_matrix_fails_with_every_backend() {
    for blas in [BlasChoice::Rust, BlasChoice::Family(Family::OpenBlas)] {
        let results = run(blas.clone(), &[200], 2, Kind::ZeroColumn);
        assert_eq!(results.len(), 1);
        let r = &results[0];
        assert_eq!(r.status, ResultStatus::Failed, "{blas:?}");
        let error = r.error.as_deref().unwrap_or_default();
        assert!(error.contains("singular"), "{blas:?}: {error}");
        assert_eq!(
            count(r, names::RATE_MAXIMAL),
            0,
            "no figures for a failed solve"
        );
    }
}
