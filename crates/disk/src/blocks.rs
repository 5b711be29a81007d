//! `nodebench disk blocks`: sequential read, random read and read+write
//! (alternating) for block sizes x thread counts. Each thread has its own
//! file; a fixed total (split across the threads) is moved per cell,
//! bounded by a time limit so 8-byte blocks finish; the file's pages are
//! dropped from the cache before each cell unless `--direct` bypasses it
//! anyway. Throughput is total bytes over the wall time; latency is the mean
//! time of one operation.

use std::path::PathBuf;
use std::sync::Barrier;
use std::time::{Duration, Instant};

use nodebench_core::bench::{BenchError, Benchmark, Context};
use nodebench_core::config::{self, Choice, Config};
use nodebench_core::names::disk::{self as names, label, metric, op, param};
use nodebench_core::names::labels;
use nodebench_core::{BenchResult, Better, Metric, Unit};

use crate::job::{self, Access, EndSync, Engine, JobSpec, Rw};
use crate::rounds;
use crate::scratch::{self, OpenMode, ScratchFile};
use crate::steady;

nodebench_core::choice! {
    /// One operation of the matrix.
    pub enum DiskOp {
        /// Sequential reads.
        SeqRead => op::SEQ_READ,
        /// Random reads.
        RandRead => op::RAND_READ,
        /// Alternating read and write, sequential.
        ReadWrite => op::READ_WRITE,
    }
}

/// Everything `disk blocks` runs with.
#[derive(Debug, Clone)]
pub struct DiskBlocksConfig {
    /// Directory the files go in.
    pub dir: PathBuf,
    /// Block sizes in bytes.
    pub block_sizes: Vec<u64>,
    /// Thread counts; one result each.
    pub threads: Vec<usize>,
    /// Bytes per cell, split across the threads.
    pub total: u64,
    /// Operations.
    pub ops: Vec<DiskOp>,
    /// O_DIRECT.
    pub direct: bool,
    /// Longest a cell may run.
    pub cell_time_limit: Duration,
    /// `--steady-state`: precondition the files, then run the matrix in
    /// rounds until every cell's IOPS is steady (SNIA PTS).
    pub steady_state: bool,
    /// The most rounds with `steady_state`.
    pub max_rounds: usize,
}

impl Default for DiskBlocksConfig {
    /// 8 B, 8 KiB, 8 MiB and 80 MiB blocks on 1, 2, 4 and 8 threads, every
    /// operation, 256 MiB per cell, at most 5 s a cell, in the temporary
    /// directory through the page cache.
    fn default() -> DiskBlocksConfig {
        DiskBlocksConfig {
            dir: std::env::temp_dir(),
            block_sizes: config::MATRIX_BLOCK_SIZES.to_vec(),
            threads: config::MATRIX_THREADS.to_vec(),
            total: 256 << 20,
            ops: DiskOp::ALL.to_vec(),
            direct: false,
            cell_time_limit: Duration::from_secs(5),
            steady_state: false,
            max_rounds: steady::DEFAULT_MAX_ROUNDS,
        }
    }
}

impl DiskBlocksConfig {
    /// The largest block size (1 when there is none).
    fn max_block(&self) -> u64 {
        self.block_sizes.iter().copied().max().unwrap_or(1)
    }
}

impl Config for DiskBlocksConfig {
    fn validate(&self) -> Result<(), BenchError> {
        if self.block_sizes.is_empty() || self.block_sizes.contains(&0) {
            return Err(BenchError::Invalid(
                "--block-sizes: expected positive sizes like 8,8KiB,8MiB,80MiB".into(),
            ));
        }
        if self.threads.is_empty() || self.threads.contains(&0) {
            return Err(BenchError::Invalid(
                "--threads: expected a list of positive thread counts like 1,2,4,8".into(),
            ));
        }
        if self.ops.is_empty() || self.total == 0 {
            return Err(BenchError::Invalid("--ops/--total: nothing to do".into()));
        }
        if self.cell_time_limit.is_zero() {
            return Err(BenchError::Invalid(
                "--cell-time: expected a positive duration like 5s".into(),
            ));
        }
        steady::check_max_rounds(self.max_rounds)?;
        let max_threads = self.threads.iter().copied().max().unwrap_or(1) as u64;
        let need = self.total.max(self.max_block().saturating_mul(max_threads));
        scratch::check_dir(&self.dir, need)
    }
}

/// The `disk.blocks` benchmark.
#[derive(Debug, Clone)]
pub struct DiskBlocks {
    /// Its configuration.
    pub config: DiskBlocksConfig,
}

impl Benchmark for DiskBlocks {
    fn id(&self) -> &'static str {
        names::BLOCKS
    }

    fn validate(&self) -> Result<(), BenchError> {
        self.config.validate()
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        let c = &self.config;
        c.validate()?;
        job::ignore_sigxfsz();
        let rounds = if c.steady_state { c.max_rounds } else { 1 };
        ctx.progress.start(
            "disk blocks",
            (c.threads.len() * c.ops.len() * c.block_sizes.len() * rounds) as u64,
        );
        for &threads in &c.threads {
            if ctx.cancel.is_cancelled() {
                break;
            }
            let mut result = BenchResult::new(self.id());
            result.set_param(param::DIR, c.dir.display().to_string());
            result.set_param(param::THREADS, threads);
            result.set_param(param::TOTAL_BYTES, c.total);
            result.set_param(param::DIRECT, c.direct);
            result.set_param(param::CELL_TIME_LIMIT_S, c.cell_time_limit.as_secs_f64());
            result.set_param(param::STEADY_STATE, c.steady_state);
            if let Err(e) = self.run_threads(ctx, threads, &mut result) {
                result.mark_failed(e.to_string());
            }
            if !ctx.record(result)? {
                break;
            }
        }
        ctx.progress.finish();
        Ok(())
    }
}

/// The record and size each thread's file is laid out with: records of a
/// power of two from 4 KiB to 1 MiB (near the largest block), and a size
/// of whole records of at least `per_thread`, so that every cell's
/// `per_thread` bytes are in the file (a sequential write lays out whole
/// records only: 80 MB laid out in 1 MiB records left 76 MiB, and the
/// reads hit the end of the file).
fn layout(per_thread: u64, max_block: u64) -> (u64, u64) {
    let record = max_block
        .clamp(4096, 1 << 20)
        .next_power_of_two()
        .min(1 << 20);
    (record, per_thread.div_ceil(record) * record)
}

/// One thread's file: removed on drop, open with the run's flags.
struct ThreadFile {
    _scratch: ScratchFile,
    file: std::fs::File,
    path: String,
}

/// What one (operation, block size) cell did on every thread.
struct Cell {
    op: DiskOp,
    block: u64,
    bytes: u64,
    ops: u64,
    /// The threads' I/O seconds, summed.
    busy: f64,
    /// Wall seconds from the common start to the last thread's end.
    wall: f64,
}

impl Cell {
    /// Operations per second over the wall time.
    fn iops(&self) -> f64 {
        self.ops as f64 / self.wall.max(1e-12)
    }

    /// `name` = `value` with the cell's labels on `threads` threads.
    fn metric(&self, name: &str, value: f64, unit: Unit, better: Better, threads: usize) -> Metric {
        Metric::new(name, value, unit, better)
            .label(label::OP, self.op.as_str())
            .label(label::BLOCK, self.block)
            .label(labels::THREADS, threads)
    }

    /// Its bandwidth, mean latency and IOPS.
    fn metrics(&self, threads: usize) -> [Metric; 3] {
        [
            self.metric(
                metric::BANDWIDTH,
                self.bytes as f64 / self.wall.max(1e-12),
                Unit::BytesPerSecond,
                Better::Higher,
                threads,
            ),
            self.metric(
                metric::LATENCY,
                self.busy / self.ops.max(1) as f64,
                Unit::Seconds,
                Better::Lower,
                threads,
            ),
            self.metric(
                metric::IOPS,
                self.iops(),
                Unit::OpsPerSecond,
                Better::Higher,
                threads,
            ),
        ]
    }
}

impl DiskBlocks {
    /// Runs every (operation, block size) cell on `threads` threads, one
    /// file each, into `result`: once, or with `--steady-state` in rounds
    /// after preconditioning the files.
    fn run_threads(
        &self,
        ctx: &mut Context<'_>,
        threads: usize,
        result: &mut BenchResult,
    ) -> Result<(), BenchError> {
        let c = &self.config;
        let max_block = c.max_block();
        let per_thread = (c.total / threads as u64).max(max_block);
        let mode = OpenMode {
            direct: c.direct,
            sync: false,
        };
        let (record, size) = layout(per_thread, max_block);
        result.warnings.extend(scratch::page_cache_warning(
            c.direct,
            size.saturating_mul(threads as u64),
            ctx.inventory.memory.total_bytes,
        ));
        let mut files = Vec::new();
        for t in 0..threads {
            let s = ScratchFile::create(&c.dir, &format!("blocks{t}"))?;
            let file = s.open(mode)?;
            let path = s.path().display().to_string();
            if c.steady_state {
                rounds::precondition(
                    &file,
                    &path,
                    size,
                    record,
                    &c.block_sizes,
                    Some(c.cell_time_limit),
                    &ctx.cancel,
                )?;
            } else {
                let layout = JobSpec::sequential_write(record, size, EndSync::Fsync);
                job::run_job(&file, &path, &layout, &ctx.cancel, None)?;
            }
            files.push(ThreadFile {
                _scratch: s,
                file,
                path,
            });
        }
        if !c.steady_state {
            let (cells, cancelled) = self.run_matrix(ctx, &files, per_thread)?;
            result
                .metrics
                .extend(cells.iter().flat_map(|cell| cell.metrics(threads)));
            if cancelled {
                result.mark_cancelled();
            }
            return Ok(());
        }
        let mut last: Vec<Cell> = Vec::new();
        let verdict = steady::run_rounds(c.max_rounds, |round| {
            let (cells, cancelled) = self.run_matrix(ctx, &files, per_thread)?;
            if cancelled {
                return Ok(None);
            }
            result.metrics.extend(cells.iter().map(|cell| {
                cell.metric(
                    metric::ROUND_IOPS,
                    cell.iops(),
                    Unit::OpsPerSecond,
                    Better::Higher,
                    threads,
                )
                .label(label::ROUND, round)
            }));
            let iops = cells.iter().map(Cell::iops).collect();
            last = cells;
            Ok(Some(iops))
        })?;
        result
            .metrics
            .extend(last.iter().flat_map(|cell| cell.metrics(threads)));
        rounds::record_verdict(result, &verdict, c.max_rounds, |i| {
            last.get(i).map_or_else(String::new, |cell| {
                format!("op={} block={} threads={threads}", cell.op, cell.block)
            })
        });
        if verdict.cancelled {
            result.mark_cancelled();
        }
        Ok(())
    }

    /// Runs every cell once on `files`, `per_thread` bytes each; says
    /// whether it was cancelled part way (the cells before are kept).
    fn run_matrix(
        &self,
        ctx: &mut Context<'_>,
        files: &[ThreadFile],
        per_thread: u64,
    ) -> Result<(Vec<Cell>, bool), BenchError> {
        let c = &self.config;
        let mut cells = Vec::new();
        for &op in &c.ops {
            for &block in &c.block_sizes {
                if ctx.cancel.is_cancelled() {
                    return Ok((cells, true));
                }
                if !c.direct {
                    for f in files {
                        job::purge(&f.file, &f.path)?;
                    }
                }
                let (rw, access) = match op {
                    DiskOp::SeqRead => (Rw::Read, Access::Sequential),
                    DiskOp::RandRead => (Rw::Read, Access::Random(block ^ 0xD15C)),
                    DiskOp::ReadWrite => (Rw::Mixed, Access::Sequential),
                };
                let spec = JobSpec {
                    rw,
                    access,
                    record: block,
                    size: per_thread,
                    engine: Engine::Psync,
                    depth: 1,
                    end_sync: EndSync::None,
                    time_limit: Some(c.cell_time_limit),
                    verifiable: None,
                };
                // The threads and this one: the wall time starts when every
                // thread has set its job up (buffers, record order).
                let barrier = Barrier::new(files.len() + 1);
                let cancel = ctx.cancel.clone();
                let (outcomes, wall): (Vec<Result<job::JobOutcome, BenchError>>, f64) =
                    std::thread::scope(|s| {
                        let hs: Vec<_> = files
                            .iter()
                            .map(|f| {
                                let (barrier, cancel) = (&barrier, &cancel);
                                s.spawn(move || {
                                    let job = job::PreparedJob::new(&spec);
                                    barrier.wait();
                                    job?.run(&f.file, &f.path, cancel, None)
                                })
                            })
                            .collect();
                        barrier.wait();
                        let t0 = Instant::now();
                        let outcomes = hs
                            .into_iter()
                            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                            .collect();
                        (outcomes, t0.elapsed().as_secs_f64())
                    });
                let mut cell = Cell {
                    op,
                    block,
                    bytes: 0,
                    ops: 0,
                    busy: 0.0,
                    wall,
                };
                for o in outcomes {
                    let o = o?;
                    cell.bytes += o.bytes;
                    cell.ops += o.ops;
                    cell.busy += o.seconds;
                }
                cells.push(cell);
                ctx.progress.advance(1);
            }
        }
        Ok((cells, false))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::ResultStatus;
    use nodebench_core::bench::{Cancel, collect};
    use nodebench_core::inventory::Inventory;

    #[test]
    fn matrix_cells_have_bandwidth_latency_and_iops() {
        let dir = tempfile::tempdir().unwrap();
        let inv = Inventory::default();
        let cfg = DiskBlocksConfig {
            dir: dir.path().to_path_buf(),
            block_sizes: vec![8, 64 << 10],
            threads: vec![1, 2],
            total: 1 << 20,
            ..DiskBlocksConfig::default()
        };
        let out = collect(&DiskBlocks { config: cfg }, &inv, Cancel::new()).unwrap();
        assert_eq!(out.len(), 2);
        for r in &out {
            assert_eq!(r.status, ResultStatus::Passed, "{:?}", r.error);
            assert_eq!(r.metrics.len(), 3 * 2 * 3);
            assert!(
                r.metrics
                    .iter()
                    .all(|m| m.value > 0.0 && m.value.is_finite())
            );
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn ops_parse_by_name() {
        assert_eq!("rand_read".parse::<DiskOp>().unwrap(), DiskOp::RandRead);
        assert_eq!(DiskOp::ReadWrite.to_string(), "read_write");
        let e = "scribble".parse::<DiskOp>().unwrap_err().to_string();
        assert_eq!(
            e,
            "unknown value 'scribble' (accepted: seq_read, rand_read, read_write)"
        );
    }

    #[test]
    fn validate_names_the_flag_of_each_bad_field() {
        let dir = tempfile::tempdir().unwrap();
        let ok = DiskBlocksConfig {
            dir: dir.path().to_path_buf(),
            total: 1 << 20,
            block_sizes: vec![4096],
            ..DiskBlocksConfig::default()
        };
        ok.validate().unwrap();
        let cases = [
            (
                DiskBlocksConfig {
                    block_sizes: vec![8, 0],
                    ..ok.clone()
                },
                "--block-sizes: expected positive sizes like 8,8KiB,8MiB,80MiB",
            ),
            (
                DiskBlocksConfig {
                    threads: vec![],
                    ..ok.clone()
                },
                "--threads: expected a list of positive thread counts like 1,2,4,8",
            ),
            (
                DiskBlocksConfig {
                    ops: vec![],
                    ..ok.clone()
                },
                "--ops/--total: nothing to do",
            ),
            (
                DiskBlocksConfig {
                    cell_time_limit: Duration::ZERO,
                    ..ok.clone()
                },
                "--cell-time: expected a positive duration like 5s",
            ),
        ];
        for (cfg, want) in cases {
            assert_eq!(cfg.validate().unwrap_err().to_string(), want);
        }
        let e = DiskBlocksConfig {
            total: u64::MAX / 4,
            ..ok
        }
        .validate()
        .unwrap_err()
        .to_string();
        assert!(e.starts_with("--dir ") && e.contains("free"), "{e}");
    }

    #[test]
    fn files_are_laid_out_in_whole_records_covering_each_threads_share() {
        for (per_thread, max_block) in [
            (80_000_000, 80_000_000),
            (64 << 20, 80_000_000),
            (3_000_000, 3_000_000),
            (1 << 20, 8),
            (100_000, 5_000),
        ] {
            let (record, size) = layout(per_thread, max_block);
            assert!(record.is_power_of_two() && (4096..=1 << 20).contains(&record));
            assert_eq!(size % record, 0, "{per_thread} {max_block}");
            assert!(size >= per_thread && size - per_thread < record);
        }
    }
}
