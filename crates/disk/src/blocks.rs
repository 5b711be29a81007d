//! `nodebench disk blocks`: the disk matrix of seeds/002: sequential read,
//! random read and read+write (alternating) for block sizes x thread counts.
//! Each thread has its own file; a fixed total (split across the threads) is
//! moved per cell, bounded by a time limit so 8-byte blocks finish; the
//! file's pages are dropped from the cache before each cell unless `--direct`
//! bypasses it anyway. Throughput is total bytes over the wall time; latency
//! is the mean time of one operation.

use std::path::PathBuf;
use std::sync::Barrier;
use std::time::{Duration, Instant};

use chrono::Utc;
use nodebench_core::bench::{BenchError, Benchmark, Context};
use nodebench_core::{BenchResult, Better, Metric, ResultStatus, Unit};

use crate::job::{self, Access, EndSync, Engine, JobSpec, Rw};
use crate::scratch::{self, OpenMode, ScratchFile};

/// One operation of the matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiskOp {
    /// Sequential reads.
    SeqRead,
    /// Random reads.
    RandRead,
    /// Alternating read and write, sequential.
    ReadWrite,
}

impl DiskOp {
    /// All operations in display order.
    pub const ALL: [DiskOp; 3] = [DiskOp::SeqRead, DiskOp::RandRead, DiskOp::ReadWrite];

    /// Label and command-line name.
    pub fn name(self) -> &'static str {
        match self {
            DiskOp::SeqRead => "seq_read",
            DiskOp::RandRead => "rand_read",
            DiskOp::ReadWrite => "read_write",
        }
    }

    /// Parses [`DiskOp::name`].
    pub fn parse(s: &str) -> Option<DiskOp> {
        DiskOp::ALL.into_iter().find(|o| o.name() == s)
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
}

impl DiskBlocksConfig {
    /// The seeds/002 defaults in `dir`.
    pub fn new(dir: PathBuf) -> Self {
        DiskBlocksConfig {
            dir,
            block_sizes: vec![8, 8 << 10, 8 << 20, 80 << 20],
            threads: vec![1, 2, 4, 8],
            total: 256 << 20,
            ops: DiskOp::ALL.to_vec(),
            direct: false,
            cell_time_limit: Duration::from_secs(5),
        }
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
        "disk.blocks"
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        let c = &self.config;
        if c.block_sizes.is_empty() || c.block_sizes.contains(&0) {
            return Err(BenchError::Invalid(
                "--block-sizes: expected positive sizes like 8,8KiB,8MiB,80MiB".into(),
            ));
        }
        if c.threads.is_empty() || c.threads.contains(&0) {
            return Err(BenchError::Invalid(
                "--threads: expected a list of positive thread counts like 1,2,4,8".into(),
            ));
        }
        if c.ops.is_empty() || c.total == 0 {
            return Err(BenchError::Invalid("--ops/--total: nothing to do".into()));
        }
        job::ignore_sigxfsz();
        let max_block = *c.block_sizes.iter().max().unwrap_or(&1);
        let max_threads = *c.threads.iter().max().unwrap_or(&1) as u64;
        scratch::check_dir(&c.dir, c.total.max(max_block * max_threads))
            .map_err(BenchError::Invalid)?;
        ctx.progress.start(
            "disk blocks",
            (c.threads.len() * c.ops.len() * c.block_sizes.len()) as u64,
        );
        for &threads in &c.threads {
            if ctx.cancel.is_cancelled() {
                break;
            }
            let mut result = BenchResult::new(self.id());
            result.set_param("dir", c.dir.display().to_string());
            result.set_param("threads", threads);
            result.set_param("total_bytes", c.total);
            result.set_param("direct", c.direct);
            result.set_param("cell_time_limit_s", c.cell_time_limit.as_secs_f64());
            if let Err(e) = self.run_threads(ctx, threads, max_block, &mut result) {
                result.mark_failed(e);
            }
            result.ended_at = Utc::now();
            let stop = result.status != ResultStatus::Passed;
            ctx.sink.record(result)?;
            if stop {
                break;
            }
        }
        ctx.progress.finish();
        Ok(())
    }
}

impl DiskBlocks {
    fn run_threads(
        &self,
        ctx: &mut Context<'_>,
        threads: usize,
        max_block: u64,
        result: &mut BenchResult,
    ) -> Result<(), String> {
        let c = &self.config;
        let per_thread = (c.total / threads as u64).max(max_block);
        let mode = OpenMode {
            direct: c.direct,
            sync: false,
        };
        let mut files = Vec::new();
        for t in 0..threads {
            let s = ScratchFile::create(&c.dir, &format!("blocks{t}"))?;
            let f = s.open(mode)?;
            let path = s.path().display().to_string();
            let layout = JobSpec {
                rw: Rw::Write,
                access: Access::Sequential,
                record: max_block.clamp(4096, 1 << 20),
                size: per_thread.div_ceil(4096) * 4096,
                engine: Engine::Psync,
                end_sync: EndSync::Fsync,
                time_limit: None,
                verifiable: None,
            };
            job::run_job(&f, &path, &layout, &ctx.cancel, None)?;
            files.push((s, f, path));
        }
        for &op in &c.ops {
            for &block in &c.block_sizes {
                if ctx.cancel.is_cancelled() {
                    result.mark_cancelled();
                    return Ok(());
                }
                if !c.direct {
                    for (_, f, path) in &files {
                        job::purge(f, path)?;
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
                    end_sync: EndSync::None,
                    time_limit: Some(c.cell_time_limit),
                    verifiable: None,
                };
                let barrier = Barrier::new(threads);
                let t0 = Instant::now();
                let cancel = ctx.cancel.clone();
                let outcomes: Vec<Result<job::JobOutcome, String>> = std::thread::scope(|s| {
                    let hs: Vec<_> = files
                        .iter()
                        .map(|(_, f, path)| {
                            let (barrier, cancel) = (&barrier, &cancel);
                            s.spawn(move || {
                                barrier.wait();
                                job::run_job(f, path, &spec, cancel, None)
                            })
                        })
                        .collect();
                    hs.into_iter()
                        .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                        .collect()
                });
                let wall = t0.elapsed().as_secs_f64();
                let mut bytes = 0u64;
                let mut ops = 0u64;
                let mut busy = 0.0;
                for o in outcomes {
                    let o = o?;
                    bytes += o.bytes;
                    ops += o.ops;
                    busy += o.seconds;
                }
                let m = |n: &str, v: f64, u: Unit, b: Better| {
                    Metric::new(n, v, u, b)
                        .label("op", op.name())
                        .label("block", block)
                        .label("threads", threads)
                };
                result.metrics.push(m(
                    "bandwidth",
                    bytes as f64 / wall.max(1e-12),
                    Unit::BytesPerSecond,
                    Better::Higher,
                ));
                result.metrics.push(m(
                    "latency",
                    busy / ops.max(1) as f64,
                    Unit::Seconds,
                    Better::Lower,
                ));
                result.metrics.push(m(
                    "iops",
                    ops as f64 / wall.max(1e-12),
                    Unit::OpsPerSecond,
                    Better::Higher,
                ));
                ctx.progress.advance(1);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::bench::{Cancel, collect};
    use nodebench_core::inventory::Inventory;

    #[test]
    fn matrix_cells_have_bandwidth_latency_and_iops() {
        let dir = tempfile::tempdir().unwrap();
        let inv = Inventory::default();
        let mut cfg = DiskBlocksConfig::new(dir.path().to_path_buf());
        cfg.block_sizes = vec![8, 64 << 10];
        cfg.threads = vec![1, 2];
        cfg.total = 1 << 20;
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
}
