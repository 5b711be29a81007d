//! What the memory benchmarks' configurations share: the check of a thread
//! list and the value of the huge-page parameter. Below every benchmark
//! module; imports nothing from them.

use nodebench_core::bench::BenchError;
use nodebench_core::names::memory::hugepages;

/// Checks a `--threads` list: not empty, no zero.
pub(crate) fn check_threads(threads: &[usize]) -> Result<(), BenchError> {
    if threads.is_empty() || threads.contains(&0) {
        return Err(BenchError::Invalid(
            "--threads: expected a list of positive thread counts like 1,2,4,8".into(),
        ));
    }
    Ok(())
}

/// The default size of a buffer the traffic walks: 4x the last-level
/// caches, so it streams from DRAM, and at least 256 MiB.
pub(crate) fn default_traffic_bytes(llc: Option<u64>) -> u64 {
    llc.map_or(256 << 20, |l| (4 * l).max(256 << 20))
}

/// Checks a buffer size flag of the chase and traffic buffers: 4 MiB at
/// least, so the chase leaves the caches' small levels and huge pages fit.
pub(crate) fn check_buffer(flag: &str, bytes: u64, example: &str) -> Result<(), BenchError> {
    if bytes < 4 << 20 {
        return Err(BenchError::Invalid(format!(
            "{flag}: expected at least 4 MiB (e.g. {example}), got {bytes} B"
        )));
    }
    Ok(())
}

/// Checks `--duration` of one measured point (a cell, a delay): 10 ms at
/// least, so a point holds many chase windows.
pub(crate) fn check_point_duration(d: std::time::Duration, point: &str) -> Result<(), BenchError> {
    if d < std::time::Duration::from_millis(10) {
        return Err(BenchError::Invalid(format!(
            "--duration: expected at least 10ms per {point} (e.g. 200ms)"
        )));
    }
    Ok(())
}

/// The [`hugepages`] parameter value of a run that asked for transparent
/// huge pages (`on`) or not.
pub(crate) fn hugepages_param(on: bool) -> &'static str {
    if on {
        hugepages::MADVISE
    } else {
        hugepages::OFF
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_lists_need_positive_counts() {
        assert!(check_threads(&[1, 2, 4]).is_ok());
        for bad in [&[][..], &[0][..], &[2, 0, 4][..]] {
            assert_eq!(
                check_threads(bad).unwrap_err().to_string(),
                "--threads: expected a list of positive thread counts like 1,2,4,8"
            );
        }
    }
}
