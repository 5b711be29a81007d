//! `nodebench memory blocks`: the block-size x thread matrix of memset and
//! memcpy throughput and latency. For each operation, block size and thread count, a fixed total of bytes
//! (split across the threads: strong scaling) is moved in blocks:
//!
//! * `seq_write`: memset of consecutive blocks;
//! * `rand_write`: memset of blocks at random block-aligned offsets;
//! * `read_write`: memcpy of consecutive blocks from a source to a
//!   destination buffer (bytes counted once per block copied).
//!
//! Buffers are touched by their threads before timing (no page faults in
//! the figures). Throughput is total bytes over the team's wall time;
//! latency is the mean time of one block operation in a thread.

use std::hint::black_box;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use nodebench_core::bench::{BenchError, Benchmark, Context};
use nodebench_core::buffer::{Buffer, check_fits, split};
use nodebench_core::config::{self, Choice, Config};
use nodebench_core::names::labels;
use nodebench_core::names::memory::{self as names, label, metric, op, param};
use nodebench_core::rng::XorShift64;
use nodebench_core::team::{self, SpinBarrier};
use nodebench_core::{BenchResult, Better, Metric, Unit};

use crate::config::{check_threads, hugepages_param};

nodebench_core::choice! {
    /// One operation of the matrix.
    pub enum BlockOp {
        /// memset of consecutive blocks.
        SeqWrite => op::SEQ_WRITE,
        /// memset of blocks at random offsets.
        RandWrite => op::RAND_WRITE,
        /// memcpy of consecutive blocks.
        ReadWrite => op::READ_WRITE,
    }
}

/// Everything `memory blocks` runs with.
#[derive(Debug, Clone)]
pub struct BlocksConfig {
    /// Block sizes in bytes.
    pub block_sizes: Vec<u64>,
    /// Thread counts; one result per count.
    pub threads: Vec<usize>,
    /// Bytes moved per cell, split across the threads.
    pub total: u64,
    /// Operations to run.
    pub ops: Vec<BlockOp>,
    /// Pin threads.
    pub pin: bool,
    /// Ask for transparent huge pages.
    pub hugepages: bool,
}

impl Default for BlocksConfig {
    /// 8 B, 8 KiB, 8 MiB and 80 MiB blocks on 1, 2, 4 and 8 pinned threads,
    /// every operation, 1.28 GB per cell, transparent huge pages.
    fn default() -> Self {
        BlocksConfig {
            block_sizes: config::MATRIX_BLOCK_SIZES.to_vec(),
            threads: config::MATRIX_THREADS.to_vec(),
            total: 1_280_000_000,
            ops: BlockOp::ALL.to_vec(),
            pin: true,
            hugepages: true,
        }
    }
}

impl Config for BlocksConfig {
    fn validate(&self) -> Result<(), BenchError> {
        if self.block_sizes.is_empty() || self.block_sizes.contains(&0) {
            return Err(BenchError::Invalid(
                "--block-sizes: expected a list of positive sizes like 8,8KiB,8MiB,80MiB".into(),
            ));
        }
        check_threads(&self.threads)?;
        if self.ops.is_empty() {
            return Err(BenchError::Invalid(
                "--ops: expected seq_write, rand_write and/or read_write".into(),
            ));
        }
        if self.total == 0 {
            return Err(BenchError::Invalid(
                "--total: expected a positive size like 1.28GB".into(),
            ));
        }
        Ok(())
    }
}

/// The `memory.blocks` benchmark.
#[derive(Debug, Clone)]
pub struct Blocks {
    /// Its configuration.
    pub config: BlocksConfig,
}

/// What one thread did in one cell.
struct ThreadCell {
    ops: u64,
    seconds: f64,
}

/// Runs `ops` block operations of `block` bytes on this thread's region.
///
/// # Safety
/// `dst` (and `src` for read+write) must be valid for `region` bytes and
/// owned by this thread.
unsafe fn run_ops(
    op: BlockOp,
    dst: *mut u8,
    src: *const u8,
    region: usize,
    block: usize,
    ops: u64,
    seed: u64,
) {
    let nblocks = (region / block).max(1) as u64;
    let mut rng = XorShift64::new(seed);
    let mut idx: u64 = 0;
    for i in 0..ops {
        let offset = match op {
            BlockOp::RandWrite => rng.below(nblocks) as usize * block,
            _ => {
                let o = idx as usize * block;
                idx += 1;
                if idx == nblocks {
                    idx = 0;
                }
                o
            }
        };
        // SAFETY: offset + block <= nblocks * block <= region.
        unsafe {
            match op {
                BlockOp::SeqWrite | BlockOp::RandWrite => {
                    std::ptr::write_bytes(dst.add(offset), i as u8, block)
                }
                BlockOp::ReadWrite => {
                    std::ptr::copy_nonoverlapping(src.add(offset), dst.add(offset), block)
                }
            }
        }
    }
    black_box(dst);
}

impl Benchmark for Blocks {
    fn id(&self) -> &'static str {
        names::BLOCKS
    }

    fn validate(&self) -> Result<(), BenchError> {
        self.config.validate()
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        let c = &self.config;
        c.validate()?;
        let max_block = c.block_sizes.iter().copied().max().unwrap_or(1);
        let max_threads = c.threads.iter().copied().max().unwrap_or(1) as u64;
        // Each thread's region holds at least one block of the largest size.
        let region_total = c.total.max(max_block * max_threads);
        let copies = if c.ops.contains(&BlockOp::ReadWrite) {
            2
        } else {
            1
        };
        check_fits(copies * region_total, "--total")?;
        let cells = c.threads.len() * c.ops.len() * c.block_sizes.len();
        ctx.progress.start("memory blocks", cells as u64);

        for &threads in &c.threads {
            if ctx.cancel.is_cancelled() {
                break;
            }
            let mut result = BenchResult::new(self.id());
            result.set_param(param::THREADS, threads);
            result.set_param(param::TOTAL_BYTES, c.total);
            result.set_param(param::BLOCK_SIZES, &c.block_sizes);
            result.set_param(
                param::OPS,
                c.ops.iter().map(|o| o.as_str()).collect::<Vec<_>>(),
            );
            result.set_param(param::HUGEPAGES, hugepages_param(c.hugepages));
            result.set_param(
                param::SCALING,
                "strong: the total is split across the threads",
            );
            let region = (region_total / threads as u64) as usize;
            let len = region * threads;
            let dst: Buffer<u8> = Buffer::new(len, c.hugepages, "--total")?;
            let src: Option<Buffer<u8>> = if copies == 2 {
                Some(Buffer::new(len, c.hugepages, "--total")?)
            } else {
                None
            };
            let barrier = SpinBarrier::new(threads);
            let clock = Instant::now();
            let (start_ns, end_ns) = (AtomicU64::new(0), AtomicU64::new(0));
            let stop = AtomicBool::new(false);
            let cancel = ctx.cancel.clone();
            let mut cells_per_thread = team::run(threads, c.pin, |t| {
                let range = split(len, threads, t, 1);
                let (lo, n) = (range.start, range.len());
                // SAFETY: each thread touches only its own range.
                unsafe {
                    dst.part(range.clone()).fill(1);
                    if let Some(s) = &src {
                        s.part(range.clone()).fill(2);
                    }
                }
                let mut out: Vec<(BlockOp, u64, ThreadCell, f64)> = Vec::new();
                for &op in &c.ops {
                    for &block in &c.block_sizes {
                        if t == 0 {
                            stop.store(cancel.is_cancelled(), Ordering::SeqCst);
                        }
                        barrier.wait();
                        if stop.load(Ordering::SeqCst) {
                            return out;
                        }
                        let per_thread_bytes = c.total / threads as u64;
                        let ops = (per_thread_bytes / block).max(1);
                        let block = (block as usize).min(n);
                        barrier.wait_then(|| {
                            start_ns.store(clock.elapsed().as_nanos() as u64, Ordering::SeqCst)
                        });
                        let t0 = Instant::now();
                        // SAFETY: own range of both buffers, `n` bytes each.
                        unsafe {
                            let d = dst.as_ptr().add(lo);
                            let s = src
                                .as_ref()
                                .map(|s| s.as_ptr().add(lo) as *const u8)
                                .unwrap_or(d);
                            run_ops(
                                op,
                                d,
                                s,
                                n,
                                block,
                                ops,
                                0x5EED ^ (t as u64) << 32 ^ block as u64,
                            );
                        }
                        let mine = t0.elapsed().as_secs_f64();
                        barrier.wait_then(|| {
                            end_ns.store(clock.elapsed().as_nanos() as u64, Ordering::SeqCst)
                        });
                        let wall = end_ns
                            .load(Ordering::SeqCst)
                            .saturating_sub(start_ns.load(Ordering::SeqCst))
                            as f64
                            * 1e-9;
                        out.push((op, block as u64, ThreadCell { ops, seconds: mine }, wall));
                        // Keep the readers of start/end apart from the next writer.
                        barrier.wait();
                    }
                }
                out
            });
            let thread0 = cells_per_thread.remove(0);
            for (i, (op, block, cell0, wall)) in thread0.iter().enumerate() {
                let mut op_seconds = cell0.seconds / cell0.ops as f64;
                let mut bytes = cell0.ops * block;
                for other in &cells_per_thread {
                    if let Some((_, _, cell, _)) = other.get(i) {
                        op_seconds += cell.seconds / cell.ops as f64;
                        bytes += cell.ops * block;
                    }
                }
                let labelled = |m: Metric| {
                    m.label(label::OP, op.as_str())
                        .label(label::BLOCK, block)
                        .label(labels::THREADS, threads)
                };
                result.metrics.push(labelled(Metric::new(
                    metric::BANDWIDTH,
                    bytes as f64 / wall,
                    Unit::BytesPerSecond,
                    Better::Higher,
                )));
                result.metrics.push(labelled(Metric::new(
                    metric::LATENCY,
                    op_seconds / threads as f64,
                    Unit::Seconds,
                    Better::Lower,
                )));
                ctx.progress.advance(1);
            }
            if thread0.len() < c.ops.len() * c.block_sizes.len() {
                result.mark_cancelled();
            }
            ctx.record(result)?;
        }
        ctx.progress.finish();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::ResultStatus;
    use nodebench_core::bench::{Cancel, collect};
    use nodebench_core::inventory::Inventory;

    fn run(cfg: BlocksConfig) -> Result<Vec<BenchResult>, BenchError> {
        collect(
            &Blocks { config: cfg },
            &Inventory::default(),
            Cancel::new(),
        )
    }

    #[test]
    fn every_cell_has_bandwidth_and_latency() {
        let out = run(BlocksConfig {
            block_sizes: vec![8, 4096, 1 << 20],
            threads: vec![1, 2],
            total: 16 << 20,
            ..BlocksConfig::default()
        })
        .unwrap();
        assert_eq!(out.len(), 2);
        for r in &out {
            assert_eq!(r.status, ResultStatus::Passed);
            assert_eq!(r.metrics.len(), 3 * 3 * 2);
            assert!(
                r.metrics
                    .iter()
                    .all(|m| m.value > 0.0 && m.value.is_finite()),
                "{:?}",
                r.metrics
            );
        }
        // A 1 MiB memset moves more bytes per second than an 8-byte one.
        let bw = |block: &str| {
            out[0]
                .metric(
                    metric::BANDWIDTH,
                    &[(label::OP, op::SEQ_WRITE), (label::BLOCK, block)],
                )
                .unwrap()
                .value
        };
        assert!(bw("1048576") > bw("8"));
    }

    #[test]
    fn zero_block_size_and_empty_lists_are_refused() {
        let e = run(BlocksConfig {
            block_sizes: vec![0],
            ..BlocksConfig::default()
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("--block-sizes"), "{e}");
        let e = run(BlocksConfig {
            threads: vec![],
            ..BlocksConfig::default()
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("--threads"), "{e}");
    }

    #[test]
    fn no_ops_and_zero_total_are_refused() {
        let err = |config: BlocksConfig| Blocks { config }.validate().unwrap_err().to_string();
        assert_eq!(
            err(BlocksConfig {
                ops: vec![],
                ..BlocksConfig::default()
            }),
            "--ops: expected seq_write, rand_write and/or read_write"
        );
        assert_eq!(
            err(BlocksConfig {
                total: 0,
                ..BlocksConfig::default()
            }),
            "--total: expected a positive size like 1.28GB"
        );
        assert!(BlocksConfig::default().validate().is_ok());
    }

    #[test]
    fn ops_parse_by_their_label_names() {
        for &o in BlockOp::ALL {
            assert_eq!(o.as_str().parse::<BlockOp>().unwrap(), o);
        }
        assert_eq!(
            "memcpy".parse::<BlockOp>().unwrap_err().accepted,
            "seq_write, rand_write, read_write"
        );
    }
}
