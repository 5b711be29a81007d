//! Tests sized as HPC Challenge sizes them: from a share of memory
//! (`--memory-fraction`, of MemTotal, over the cores that each run their
//! own copy), unless a size flag gives the figure HPCC printed; and the
//! checks the HPCC tests' configs share (`gups`, `fft`, `ptrans`,
//! `dgemm`), each one line naming its flag.

use crate::bench::BenchError;
use crate::units::{MAX_THREADS, format_bytes};

/// The largest share of memory a test may be sized from: the rest is the
/// system's and the run's own.
pub const MAX_MEMORY_FRACTION: f64 = 0.9;

/// `--memory-fraction` above 0 and at most [`MAX_MEMORY_FRACTION`].
pub fn check_memory_fraction(fraction: f64) -> Result<(), BenchError> {
    if fraction > 0.0 && fraction <= MAX_MEMORY_FRACTION {
        return Ok(());
    }
    Err(BenchError::Invalid(format!(
        "--memory-fraction: expected a share of memory above 0 and at most {MAX_MEMORY_FRACTION} (e.g. 0.5)"
    )))
}

/// `--threads`, where given, from 1 to [`MAX_THREADS`].
pub fn check_threads(threads: Option<usize>) -> Result<(), BenchError> {
    match threads {
        Some(t) if !(1..=MAX_THREADS).contains(&t) => Err(BenchError::Invalid(format!(
            "--threads: expected a number of threads from 1 to {MAX_THREADS}, got {t}"
        ))),
        _ => Ok(()),
    }
}

/// `--modes` not empty; `accepted` lists the modes (`single, star`).
pub fn check_modes<T>(modes: &[T], accepted: &str) -> Result<(), BenchError> {
    if modes.is_empty() {
        return Err(BenchError::Invalid(format!(
            "--modes: expected a list of {accepted}"
        )));
    }
    Ok(())
}

/// `--ntimes` at least 1; `what` names one timed repetition
/// (`timed transform`).
pub fn check_ntimes(ntimes: usize, what: &str) -> Result<(), BenchError> {
    if ntimes == 0 {
        return Err(BenchError::Invalid(format!(
            "--ntimes: expected at least 1 {what}"
        )));
    }
    Ok(())
}

/// The bytes `fraction` of `mem_total` gives, and where the size came
/// from (`--memory-fraction 0.5 of 24.0 GiB over 2 cores`, the cores where
/// each runs its own copy). `size_flag` is the flag to give instead when
/// MemTotal is unknown.
pub fn memory_share(
    fraction: f64,
    mem_total: Option<u64>,
    cores: Option<usize>,
    size_flag: &str,
) -> Result<(f64, String), BenchError> {
    let total = mem_total.ok_or_else(|| {
        BenchError::System(format!(
            "--memory-fraction: MemTotal unknown (no /proc/meminfo); give {size_flag}"
        ))
    })?;
    let over = cores.map_or(String::new(), |c| format!(" over {c} cores"));
    Ok((
        fraction * total as f64,
        format!(
            "--memory-fraction {fraction} of {}{over}",
            format_bytes(total)
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_check_names_its_flag_and_the_accepted_form() {
        assert!(check_memory_fraction(0.5).is_ok());
        assert!(check_memory_fraction(0.9).is_ok());
        for bad in [0.0, -0.1, 0.91, f64::NAN] {
            assert_eq!(
                check_memory_fraction(bad).unwrap_err().to_string(),
                "--memory-fraction: expected a share of memory above 0 and at most 0.9 (e.g. 0.5)"
            );
        }
        assert!(check_threads(None).is_ok());
        assert!(check_threads(Some(MAX_THREADS)).is_ok());
        assert_eq!(
            check_threads(Some(0)).unwrap_err().to_string(),
            format!("--threads: expected a number of threads from 1 to {MAX_THREADS}, got 0")
        );
        assert_eq!(
            check_modes::<u8>(&[], "single, star")
                .unwrap_err()
                .to_string(),
            "--modes: expected a list of single, star"
        );
        assert!(check_modes(&[1], "single, star").is_ok());
        assert_eq!(
            check_ntimes(0, "timed pass").unwrap_err().to_string(),
            "--ntimes: expected at least 1 timed pass"
        );
    }

    #[test]
    fn the_share_and_where_it_came_from() {
        let (bytes, by) = memory_share(0.5, Some(8 << 30), Some(4), "--size").unwrap();
        assert_eq!(bytes, (4u64 << 30) as f64);
        assert_eq!(by, "--memory-fraction 0.5 of 8 GiB over 4 cores");
        let (_, by) = memory_share(0.25, Some(8 << 30), None, "--order").unwrap();
        assert_eq!(by, "--memory-fraction 0.25 of 8 GiB");
        assert_eq!(
            memory_share(0.5, None, None, "--order")
                .unwrap_err()
                .to_string(),
            "--memory-fraction: MemTotal unknown (no /proc/meminfo); give --order"
        );
    }
}
