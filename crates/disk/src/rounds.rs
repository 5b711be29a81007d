//! What `--steady-state` does around the rounds of `disk blocks` and `disk
//! iozone`: the SNIA PTS preconditioning of the benchmark's own files, and
//! the verdict written into the result ([`crate::steady`] judges it).

use nodebench_core::bench::BenchError;
use std::fs::File;
use std::time::Duration;

use nodebench_core::BenchResult;
use nodebench_core::bench::Cancel;
use nodebench_core::names::disk::param;

use crate::job::{self, Access, EndSync, Engine, JobSpec, Rw};
use crate::steady::{self, Verdict};

/// Preconditions one test file as the PTS does, untimed: workload
/// independent, two sequential passes over its `size` bytes in
/// `layout_record` writes (twice its size written); then workload
/// dependent, a random-write pass over the file at each of `blocks`, each
/// bounded by `limit` where given. Every pass ends with an fsync. Stops
/// early when `cancel` is set (the caller checks it).
pub fn precondition(
    file: &File,
    path: &str,
    size: u64,
    layout_record: u64,
    blocks: &[u64],
    limit: Option<Duration>,
    cancel: &Cancel,
) -> Result<(), BenchError> {
    let sequential = JobSpec::sequential_write(layout_record, size, EndSync::Fsync);
    for _ in 0..2 {
        job::run_job(file, path, &sequential, cancel, None)
            .map_err(|e| BenchError::System(format!("preconditioning: {e}")))?;
    }
    for (i, &block) in blocks.iter().enumerate() {
        let random = JobSpec {
            rw: Rw::Write,
            access: Access::Random(0x55D ^ (block + i as u64)),
            record: block,
            size,
            engine: Engine::Psync,
            depth: 1,
            end_sync: EndSync::Fsync,
            time_limit: limit,
            verifiable: None,
        };
        job::run_job(file, path, &random, cancel, None)
            .map_err(|e| BenchError::System(format!("preconditioning: {e}")))?;
    }
    Ok(())
}

/// Writes the steady-state parameters and, when the window's limits were
/// not met, a warning naming the cell furthest from them (`cell` describes
/// a cell by its index in the rounds' IOPS lists).
pub fn record_verdict(
    result: &mut BenchResult,
    verdict: &Verdict,
    max_rounds: usize,
    cell: impl Fn(usize) -> String,
) {
    result.set_param(param::MAX_ROUNDS, max_rounds);
    result.set_param(param::ROUNDS, verdict.rounds);
    result.set_param(param::STEADY_STATE_REACHED, verdict.reached());
    if let Some(n) = verdict.steady_at {
        result.set_param(param::STEADY_STATE_ROUND, n);
        return;
    }
    if verdict.cancelled {
        return;
    }
    let window = format!(
        "the last {} rounds' IOPS within a range of {:.0} % and a fitted-line excursion of {:.0} % of their mean",
        steady::WINDOW,
        steady::MAX_RANGE * 100.0,
        steady::MAX_EXCURSION * 100.0
    );
    let why = match verdict.worst {
        Some((i, check)) => format!("{}: {}", cell(i), check.describe()),
        None => format!("fewer than {} rounds ran", steady::WINDOW),
    };
    result.warnings.push(format!(
        "steady state not reached in {} rounds (SNIA PTS: {window}); {why}; the figures are the last round's",
        verdict.rounds
    ));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scratch::{OpenMode, ScratchFile};
    use crate::steady::WindowCheck;

    #[test]
    fn preconditioning_fills_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let s = ScratchFile::create(dir.path(), "pre").unwrap();
        let f = s.open(OpenMode::default()).unwrap();
        let path = s.path().display().to_string();
        precondition(
            &f,
            &path,
            256 << 10,
            64 << 10,
            &[4096],
            None,
            &Cancel::new(),
        )
        .unwrap();
        assert_eq!(f.metadata().unwrap().len(), 256 << 10);
    }

    #[test]
    fn the_verdict_is_stored_and_a_miss_is_explained() {
        let mut r = BenchResult::new("disk.blocks");
        let reached = Verdict {
            rounds: 7,
            steady_at: Some(7),
            worst: None,
            cancelled: false,
        };
        record_verdict(&mut r, &reached, 25, |_| unreachable!());
        assert_eq!(r.param(param::STEADY_STATE_REACHED).unwrap(), true);
        assert_eq!(r.param(param::STEADY_STATE_ROUND).unwrap(), 7);
        assert!(r.warnings.is_empty());

        let mut r = BenchResult::new("disk.blocks");
        let missed = Verdict {
            rounds: 25,
            steady_at: None,
            worst: Some((
                1,
                WindowCheck {
                    mean: 1000.0,
                    range: 0.34,
                    excursion: 0.12,
                },
            )),
            cancelled: false,
        };
        record_verdict(&mut r, &missed, 25, |i| format!("cell {i}"));
        assert_eq!(r.param(param::STEADY_STATE_REACHED).unwrap(), false);
        assert_eq!(r.param(param::ROUNDS).unwrap(), 25);
        assert!(r.param(param::STEADY_STATE_ROUND).is_none());
        assert_eq!(
            r.warnings,
            [
                "steady state not reached in 25 rounds (SNIA PTS: the last 5 rounds' IOPS within a range of 20 % and a fitted-line excursion of 10 % of their mean); cell 1: IOPS range 34.0 % (limit 20 %), fitted-line excursion 12.0 % (limit 10 %) of the mean 1000 IOPS; the figures are the last round's"
            ]
        );
    }
}
