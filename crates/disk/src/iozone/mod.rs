//! `nodebench disk iozone`: IOzone's test set on files under `--dir`, with
//! IOzone's flags (`-e` fsync in timing, `-o` O_SYNC, `-I` O_DIRECT, `-p`
//! purge the page cache between tests), throughput mode (`-t N` workers,
//! each on its own file, reporting "children see", "parent sees", per-worker
//! min/max/avg and the minimum transfer) and auto mode (`-a`: a file-size x
//! record-size matrix). Every test also reports IOPS and per-operation
//! latency percentiles from an HdrHistogram.
//!
//! Results: one per run (one per file size in auto mode). Metrics carry the
//! labels `test`, `file_size`, `record` and `workers`.

mod config;
mod figures;

use std::sync::Barrier;
use std::time::Instant;

use nodebench_core::BenchResult;
use nodebench_core::bench::{BenchError, Benchmark, Cancel, Context};
use nodebench_core::config::{Choice, Config};
use nodebench_core::names::disk::{self as names, param};

pub use config::{BASIC_TESTS, IozoneConfig, STRIDE_RECORDS, Test, auto_cells};
use figures::{TestFigures, record_cell, record_round};

use crate::job::{self, EndSync, Engine, JobOutcome, JobSpec, PreparedJob, Rw, Siblings};
use crate::rounds;
use crate::scratch::{self, OpenMode, ScratchFile};
use crate::steady;

/// The `disk.iozone` benchmark.
#[derive(Debug, Clone)]
pub struct Iozone {
    /// Its configuration.
    pub config: IozoneConfig,
}

/// One worker's scratch file, opened for the engine tests (with the run's
/// O_DIRECT/O_SYNC flags) and for the stdio tests (page cache, O_SYNC).
struct Worker {
    scratch: ScratchFile,
    file: std::fs::File,
    stdio_file: std::fs::File,
    path: String,
}

impl Worker {
    /// Worker `w`'s new scratch file under the run's directory.
    fn create(c: &IozoneConfig, w: usize) -> Result<Worker, BenchError> {
        let scratch = ScratchFile::create(&c.dir, &format!("iozone{w}"))?;
        let file = scratch.open(OpenMode {
            direct: c.direct,
            sync: c.o_sync,
        })?;
        let stdio_file = scratch.open(OpenMode {
            direct: false,
            sync: c.o_sync,
        })?;
        let path = scratch.path().display().to_string();
        Ok(Worker {
            scratch,
            file,
            stdio_file,
            path,
        })
    }

    /// The file a job on `engine` goes through.
    fn file_for(&self, engine: Engine) -> &std::fs::File {
        if engine == Engine::Stdio {
            &self.stdio_file
        } else {
            &self.file
        }
    }
}

/// How the tests of a cell ended.
enum CellEnd {
    /// Every test ran.
    Done,
    /// A test failed with this error.
    Failed(String),
    /// Cancelled.
    Cancelled,
}

impl Iozone {
    /// Runs the tests of one cell on every worker, pushing each finished
    /// test's figures onto `done` (so they are kept when a later test fails
    /// or the run is cancelled), and says how the cell ended.
    fn run_cell(
        &self,
        ctx: &mut Context<'_>,
        file_size: u64,
        record: u64,
        done: &mut Vec<(Test, TestFigures)>,
    ) -> CellEnd {
        match self.workers(record) {
            Ok(workers) => self.run_tests(ctx, &workers, file_size, record, &mut false, done),
            Err(e) => CellEnd::Failed(e.to_string()),
        }
    }

    /// Every worker's new scratch file, checked for the record size when
    /// the run bypasses the page cache.
    fn workers(&self, record: u64) -> Result<Vec<Worker>, BenchError> {
        let c = &self.config;
        let workers: Vec<Worker> = (0..c.workers)
            .map(|w| Worker::create(c, w))
            .collect::<Result<_, _>>()?;
        if c.direct {
            let align = scratch::direct_alignment(workers[0].scratch.path());
            if !record.is_multiple_of(align) {
                return Err(BenchError::System(format!(
                    "--record-size: {record} B is not a multiple of the direct-I/O alignment {align} B of --dir {}",
                    c.dir.display()
                )));
            }
        }
        Ok(workers)
    }

    /// Runs the tests once on `workers`' files (`laid_out`: whether they
    /// hold the whole file already), as [`Iozone::run_cell`] says.
    fn run_tests(
        &self,
        ctx: &mut Context<'_>,
        workers: &[Worker],
        file_size: u64,
        record: u64,
        laid_out: &mut bool,
        done: &mut Vec<(Test, TestFigures)>,
    ) -> CellEnd {
        let c = &self.config;
        for (ti, &test) in c.tests.iter().enumerate() {
            if ctx.cancel.is_cancelled() {
                return CellEnd::Cancelled;
            }
            if let Err(e) = prepare(c, test, workers, file_size, record, laid_out, &ctx.cancel) {
                return CellEnd::Failed(e.to_string());
            }
            let (rw, access, engine) = test.job(c.engine, 0x1234_5678 + ti as u64);
            let seed = (c.verify && test.writes_every_record()).then_some(0xC0FFEE ^ ti as u64);
            let spec = JobSpec {
                rw,
                access,
                record,
                size: file_size,
                engine,
                depth: c.iodepth,
                end_sync: if c.fsync_in_timing {
                    EndSync::Fsync
                } else {
                    EndSync::None
                },
                time_limit: None,
                verifiable: if rw == Rw::Write { seed } else { None },
            };
            let siblings = Siblings::default();
            // The workers and this thread: the wall time starts when every
            // worker has set its job up, as IOzone's parent starts its clock
            // when all children are ready.
            let barrier = Barrier::new(workers.len() + 1);
            let cancel = ctx.cancel.clone();
            let (outcomes, wall): (Vec<Result<JobOutcome, BenchError>>, f64) =
                std::thread::scope(|s| {
                    let handles: Vec<_> = workers
                        .iter()
                        .map(|w| {
                            let (barrier, siblings, cancel) = (&barrier, &siblings, &cancel);
                            let file = w.file_for(engine);
                            s.spawn(move || {
                                let job = PreparedJob::new(&spec);
                                barrier.wait();
                                job?.run(file, &w.path, cancel, Some(siblings))
                            })
                        })
                        .collect();
                    barrier.wait();
                    let t0 = Instant::now();
                    let outcomes = handles
                        .into_iter()
                        .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                        .collect();
                    (outcomes, t0.elapsed().as_secs_f64())
                });
            let per_worker: Vec<JobOutcome> = match outcomes.into_iter().collect() {
                Ok(p) => p,
                Err(e) => return CellEnd::Failed(format!("{test}: {e}")),
            };
            let cancelled = per_worker.iter().any(|o| o.cancelled);
            if let (Some(seed), Rw::Write) = (seed, rw)
                && !cancelled
            {
                for w in workers {
                    if let Err(e) =
                        job::verify(w.file_for(engine), &w.path, file_size, record, seed)
                    {
                        return CellEnd::Failed(format!("{test}: {e}"));
                    }
                }
            }
            if rw != Rw::Read {
                *laid_out = true;
            }
            ctx.progress.advance(1);
            done.push((test, TestFigures { per_worker, wall }));
            if cancelled {
                return CellEnd::Cancelled;
            }
        }
        CellEnd::Done
    }

    /// `--steady-state`: preconditions one cell's files, then runs its
    /// tests in rounds until each test's IOPS is steady, into `result`: the
    /// IOPS of every round, the last round's figures and the verdict.
    fn run_steady(
        &self,
        ctx: &mut Context<'_>,
        file_size: u64,
        record: u64,
        result: &mut BenchResult,
    ) {
        let c = &self.config;
        let workers = match self.workers(record) {
            Ok(w) => w,
            Err(e) => return result.mark_failed(e.to_string()),
        };
        let covered = file_size / record * record;
        for w in &workers {
            let pre = rounds::precondition(
                &w.file,
                &w.path,
                covered,
                layout_record(covered, record),
                &[record],
                None,
                &ctx.cancel,
            );
            if let Err(e) = pre {
                return result.mark_failed(e.to_string());
            }
        }
        if ctx.cancel.is_cancelled() {
            return result.mark_cancelled();
        }
        let mut laid_out = true;
        let mut last: Vec<(Test, TestFigures)> = Vec::new();
        let verdict = steady::run_rounds(c.max_rounds, |round| {
            let mut figures = Vec::new();
            match self.run_tests(
                ctx,
                &workers,
                file_size,
                record,
                &mut laid_out,
                &mut figures,
            ) {
                CellEnd::Done => {}
                CellEnd::Failed(e) => return Err(BenchError::System(e)),
                CellEnd::Cancelled => return Ok(None),
            }
            record_round(result, &figures, file_size, record, c.workers, round);
            let iops = figures.iter().map(|(_, f)| f.iops()).collect();
            last = figures;
            Ok(Some(iops))
        });
        record_cell(result, &last, file_size, record, c.workers, c.workers > 1);
        match verdict {
            Ok(v) => {
                rounds::record_verdict(result, &v, c.max_rounds, |i| {
                    last.get(i)
                        .map_or_else(String::new, |(t, _)| format!("test={t}"))
                });
                if v.cancelled {
                    result.mark_cancelled();
                }
            }
            Err(e) => result.mark_failed(e.to_string()),
        }
    }

    /// A new result for one file size, with the run's parameters.
    fn new_result(&self, file_size: u64, records: &[u64]) -> BenchResult {
        let c = &self.config;
        let mut result = BenchResult::new(self.id());
        result.set_param(param::DIR, c.dir.display().to_string());
        result.set_param(param::FILE_SIZE, file_size);
        if c.auto_max_file_size.is_none() {
            result.set_param(param::RECORD_SIZE, c.record_size);
        } else {
            result.set_param(param::RECORD_SIZES, records);
        }
        let tests: Vec<&str> = c.tests.iter().map(|t| t.as_str()).collect();
        result.set_param(param::TESTS, tests);
        result.set_param(param::WORKERS, c.workers);
        result.set_param(param::THROUGHPUT_MODE, c.workers > 1);
        result.set_param(param::AUTO, c.auto_max_file_size.is_some());
        result.set_param(param::FSYNC_IN_TIMING, c.fsync_in_timing);
        result.set_param(param::O_SYNC, c.o_sync);
        result.set_param(param::DIRECT, c.direct);
        result.set_param(param::PURGE, c.purge);
        result.set_param(param::DROP_CACHES, c.drop_caches);
        result.set_param(param::ENGINE, c.engine.as_str());
        let depth = if c.engine == Engine::IoUring {
            c.iodepth
        } else {
            1
        };
        result.set_param(param::IODEPTH, depth);
        result.set_param(param::STRIDE_RECORDS, STRIDE_RECORDS);
        result.set_param(param::VERIFY, c.verify);
        result.set_param(param::STEADY_STATE, c.steady_state);
        result.set_param(param::DATA, "incompressible (xorshift random bytes)");
        result
    }
}

/// The writes a file of `covered` bytes is laid out in: 1 MiB where the
/// size allows, so its extents do not depend on the record size under test.
fn layout_record(covered: u64, record: u64) -> u64 {
    if covered.is_multiple_of(1 << 20) {
        1 << 20
    } else {
        record
    }
}

/// Gets the workers' files ready for `test`, untimed: emptied for a test
/// that creates the file, laid out once for tests that need data, then the
/// page cache dropped as asked.
fn prepare(
    c: &IozoneConfig,
    test: Test,
    workers: &[Worker],
    file_size: u64,
    record: u64,
    laid_out: &mut bool,
    cancel: &Cancel,
) -> Result<(), BenchError> {
    if test.creates() {
        for w in workers {
            w.file
                .set_len(0)
                .map_err(|e| BenchError::System(format!("truncating {}: {e}", w.path)))?;
        }
    } else if test.needs_data() && !*laid_out {
        // Lay the file out for tests that read or rewrite it.
        let covered = file_size / record * record;
        let spec =
            JobSpec::sequential_write(layout_record(covered, record), covered, EndSync::Fsync);
        for w in workers {
            job::run_job(&w.file, &w.path, &spec, cancel, None)?;
        }
    }
    if c.drop_caches {
        job::drop_caches()?;
    }
    if c.purge {
        for w in workers {
            let f = if test.is_stdio() {
                &w.stdio_file
            } else {
                &w.file
            };
            job::purge(f, &w.path)?;
        }
    }
    Ok(())
}

impl Benchmark for Iozone {
    fn id(&self) -> &'static str {
        names::IOZONE
    }

    fn validate(&self) -> Result<(), BenchError> {
        self.config.validate()
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        self.config.validate()?;
        job::ignore_sigxfsz();
        let c = &self.config;
        let groups = c.groups();
        let rounds = if c.steady_state { c.max_rounds } else { 1 };
        let steps: usize =
            groups.iter().map(|(_, r)| r.len()).sum::<usize>() * c.tests.len() * rounds;
        ctx.progress.start("disk iozone", steps as u64);
        for (file_size, records) in &groups {
            if ctx.cancel.is_cancelled() {
                break;
            }
            let mut result = self.new_result(*file_size, records);
            result.warnings.extend(scratch::page_cache_warning(
                c.direct,
                file_size.saturating_mul(c.workers as u64),
                ctx.inventory.memory.total_bytes,
            ));
            if c.steady_state {
                self.run_steady(ctx, *file_size, c.record_size, &mut result);
                ctx.record(result)?;
                break;
            }
            for &record in records {
                let mut figures = Vec::new();
                let end = self.run_cell(ctx, *file_size, record, &mut figures);
                record_cell(
                    &mut result,
                    &figures,
                    *file_size,
                    record,
                    c.workers,
                    c.workers > 1,
                );
                match end {
                    CellEnd::Done => {}
                    CellEnd::Failed(e) => {
                        result.mark_failed(e);
                        break;
                    }
                    CellEnd::Cancelled => {
                        result.mark_cancelled();
                        break;
                    }
                }
            }
            if !ctx.record(result)? {
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
    use nodebench_core::ResultStatus;
    use nodebench_core::bench::collect;
    use nodebench_core::inventory::Inventory;
    use nodebench_core::names::disk::{label, metric, test};

    fn config(dir: &std::path::Path) -> IozoneConfig {
        IozoneConfig {
            dir: dir.to_path_buf(),
            file_size: 1 << 20,
            record_size: 64 << 10,
            fsync_in_timing: true,
            purge: true,
            verify: true,
            ..IozoneConfig::default()
        }
    }

    fn run(cfg: IozoneConfig) -> Result<Vec<BenchResult>, BenchError> {
        collect(
            &Iozone { config: cfg },
            &Inventory::default(),
            Cancel::new(),
        )
    }

    fn value(r: &BenchResult, name: &str, test: &str) -> f64 {
        r.metric(name, &[(label::TEST, test)])
            .unwrap_or_else(|| panic!("{name} {test}"))
            .value
    }

    #[test]
    fn all_tests_run_verify_and_leave_no_files() {
        let dir = tempfile::tempdir().unwrap();
        let out = run(config(dir.path())).unwrap();
        assert_eq!(out.len(), 1);
        let r = &out[0];
        assert_eq!(r.status, ResultStatus::Passed, "{:?}", r.error);
        for t in Test::ALL.iter().map(|t| t.as_str()) {
            assert_eq!(value(r, metric::BYTES, t), (1 << 20) as f64, "{t}");
            assert_eq!(value(r, metric::OPERATIONS, t), 16.0, "{t}");
            assert!(value(r, metric::BANDWIDTH, t) > 0.0);
            assert!(value(r, metric::LATENCY_P50, t) <= value(r, metric::LATENCY_MAX, t));
        }
        assert_eq!(r.histograms.len(), 16);
        assert_eq!(
            std::fs::read_dir(dir.path()).unwrap().count(),
            0,
            "scratch files left behind"
        );
    }

    #[test]
    fn throughput_mode_reports_iozone_fields() {
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = config(dir.path());
        cfg.workers = 2;
        cfg.tests = vec![Test::Write, Test::Read];
        let out = run(cfg).unwrap();
        let r = &out[0];
        for name in metric::THROUGHPUT {
            assert!(value(r, name, test::WRITE) > 0.0, "{name}");
        }
        assert_eq!(value(r, metric::BYTES, test::READ), (2 << 20) as f64);
        assert!(
            value(r, metric::MIN_PER_WORKER, test::WRITE)
                <= value(r, metric::MAX_PER_WORKER, test::WRITE)
        );
        assert!(value(r, metric::MIN_XFER, test::WRITE) <= (1 << 20) as f64);
    }

    #[test]
    fn auto_mode_gives_one_result_per_file_size() {
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = config(dir.path());
        cfg.auto_max_file_size = Some(128 << 10);
        cfg.tests = vec![Test::Write, Test::Read];
        cfg.purge = false;
        let out = run(cfg).unwrap();
        assert_eq!(out.len(), 2, "one result per file size");
        // 64 KiB: records 4..64 KiB (5); 128 KiB: 4..128 KiB (6); two tests each.
        assert_eq!(out[0].metrics_named(metric::BANDWIDTH).count(), 10);
        assert_eq!(out[1].metrics_named(metric::BANDWIDTH).count(), 12);
    }

    #[test]
    fn steady_state_stores_every_round_and_its_verdict() {
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = config(dir.path());
        cfg.file_size = 256 << 10;
        cfg.record_size = 4 << 10;
        cfg.tests = vec![Test::RandomWrite, Test::RandomRead];
        cfg.purge = false;
        cfg.steady_state = true;
        cfg.max_rounds = 6;
        let out = run(cfg).unwrap();
        let r = &out[0];
        assert_eq!(r.status, ResultStatus::Passed, "{:?}", r.error);
        let rounds = r.param(param::ROUNDS).unwrap().as_u64().unwrap() as usize;
        assert!((5..=6).contains(&rounds), "{rounds}");
        let mut all_steady = true;
        for t in [test::RANDOM_WRITE, test::RANDOM_READ] {
            let series: Vec<f64> = (1..=rounds)
                .map(|n| {
                    let n = n.to_string();
                    r.metric(metric::ROUND_IOPS, &[(label::TEST, t), (label::ROUND, &n)])
                        .unwrap_or_else(|| panic!("{t} round {n}"))
                        .value
                })
                .collect();
            assert_eq!(
                r.metrics
                    .iter()
                    .filter(|m| m.name == metric::ROUND_IOPS && m.has_labels(&[(label::TEST, t)]))
                    .count(),
                rounds
            );
            all_steady &= steady::check_window(&series).unwrap().steady();
            // The headline figures are the last round's.
            assert_eq!(value(r, metric::IOPS, t), series[rounds - 1]);
            assert_eq!(value(r, metric::BYTES, t), (256 << 10) as f64);
        }
        let reached = r
            .param(param::STEADY_STATE_REACHED)
            .unwrap()
            .as_bool()
            .unwrap();
        assert_eq!(reached, all_steady);
        assert_eq!(reached, rounds < 6 || all_steady);
        assert_eq!(
            r.warnings
                .iter()
                .any(|w| w.starts_with("steady state not reached in 6 rounds")),
            !reached
        );
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn drop_caches_runs_before_each_test_as_root() {
        // SAFETY: geteuid has no failure mode.
        if unsafe { libc::geteuid() } != 0 {
            eprintln!("drop_caches_runs_before_each_test_as_root: skipped: needs root");
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = config(dir.path());
        cfg.drop_caches = true;
        cfg.tests = vec![Test::Write, Test::Read];
        let out = run(cfg).unwrap();
        assert_eq!(out[0].status, ResultStatus::Passed, "{:?}", out[0].error);
        assert_eq!(value(&out[0], metric::BYTES, test::READ), (1 << 20) as f64);
    }

    #[test]
    fn bad_configs_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = config(dir.path());
        cfg.record_size = 2 << 20;
        assert!(run(cfg).unwrap_err().to_string().contains("--record-size"));
        let mut cfg = config(dir.path());
        cfg.file_size = 1 << 60;
        assert!(run(cfg).unwrap_err().to_string().contains("free"));
    }
}
