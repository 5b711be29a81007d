//! `nodebench disk fsync`: the commit path of a database log. Each of
//! `count` writes of `block_size` bytes (appended in order, as fio's
//! `rw=write`) is followed by fdatasync(2) or fsync(2) before the next
//! starts, as fio `--rw=write --fdatasync=1` and pg_test_fsync time them;
//! a write and its sync are one operation. Reported: operations per
//! second, and the latency of one operation (mean, percentiles, longest).
//!
//! On a device with a volatile write cache that honours flushes this is
//! the flush latency; where the cache lies (or the file system is tmpfs)
//! it is far faster than any disk, and the figure says so rather than
//! hides it.

use std::os::unix::fs::FileExt;
use std::path::PathBuf;
use std::time::Instant;

use nodebench_core::bench::{BenchError, Benchmark, Context};
use nodebench_core::buffer::Buffer;
use nodebench_core::config::{Choice, Config};
use nodebench_core::latency;
use nodebench_core::names::disk::{self as names, label, metric, param, sync};
use nodebench_core::rng::XorShift64;
use nodebench_core::{BenchResult, Better, Metric, Unit};

use crate::job;
use crate::scratch::{self, OpenMode, ScratchFile};

nodebench_core::choice! {
    /// The call that makes each write durable.
    pub enum SyncCall {
        /// fdatasync(2): the data and what reading it needs (fio
        /// `--fdatasync=1`, PostgreSQL's default `wal_sync_method` on Linux).
        Fdatasync => sync::FDATASYNC,
        /// fsync(2): the data and all the file's metadata.
        Fsync => sync::FSYNC,
    }
}

/// Everything `disk fsync` runs with.
#[derive(Debug, Clone)]
pub struct FsyncConfig {
    /// Directory the file goes in.
    pub dir: PathBuf,
    /// Bytes per write (pg_test_fsync's 8 KiB, a PostgreSQL WAL page).
    pub block_size: u64,
    /// Number of writes, each synced.
    pub count: u64,
    /// The sync call.
    pub call: SyncCall,
    /// O_DIRECT: the writes bypass the page cache too.
    pub direct: bool,
}

impl Default for FsyncConfig {
    /// 1,000 fdatasync'd writes of 8 KiB in the temporary directory.
    fn default() -> FsyncConfig {
        FsyncConfig {
            dir: std::env::temp_dir(),
            block_size: 8 << 10,
            count: 1000,
            call: SyncCall::Fdatasync,
            direct: false,
        }
    }
}

/// Largest `--block-size`: one write is a log record, not a bulk copy.
pub const MAX_BLOCK_SIZE: u64 = 64 << 20;

impl Config for FsyncConfig {
    fn validate(&self) -> Result<(), BenchError> {
        if self.block_size == 0 || self.block_size > MAX_BLOCK_SIZE {
            return Err(BenchError::Invalid(
                "--block-size: expected a size from 1 byte to 64M, like 8k".into(),
            ));
        }
        if self.direct && !self.block_size.is_multiple_of(512) {
            return Err(BenchError::Invalid(
                "--block-size: with --direct, expected a multiple of 512 bytes, like 8k".into(),
            ));
        }
        if self.count == 0 {
            return Err(BenchError::Invalid(
                "--count: expected a positive count, like 1000".into(),
            ));
        }
        scratch::check_blocks(&self.dir, self.block_size, self.count)
    }
}

/// The `disk.fsync` benchmark: one result.
#[derive(Debug, Clone)]
pub struct Fsync {
    /// Its configuration.
    pub config: FsyncConfig,
}

/// What the timed loop gives: operations done, their latency histogram
/// (ns) and the seconds they took together.
struct Outcome {
    done: u64,
    hist: hdrhistogram::Histogram<u64>,
    seconds: f64,
    cancelled: bool,
}

impl Fsync {
    /// Writes and syncs until `count` are done or `ctx` is cancelled.
    fn measure(&self, ctx: &mut Context<'_>) -> Result<Outcome, BenchError> {
        let c = &self.config;
        let file = ScratchFile::create(&c.dir, "fsync")?;
        let f = file.open(OpenMode {
            direct: c.direct,
            sync: false,
        })?;
        let path = file.path().display().to_string();
        let len = c.block_size as usize;
        let buf: Buffer<u8> = Buffer::new(len, false, "--block-size")?;
        // SAFETY: the only slice of `buf`, written here before any read.
        let block = unsafe { buf.part(0..len) };
        XorShift64::new(0x5eed_f5c0).fill_bytes(block);
        let mut hist = latency::histogram();
        let mut done = 0;
        let start = Instant::now();
        while done < c.count {
            if ctx.cancel.is_cancelled() {
                break;
            }
            let offset = done * c.block_size;
            let t = Instant::now();
            f.write_all_at(block, offset)
                .map_err(|e| BenchError::System(job::io_error("writing", &path, offset, &e)))?;
            match c.call {
                SyncCall::Fdatasync => f.sync_data(),
                SyncCall::Fsync => f.sync_all(),
            }
            .map_err(|e| BenchError::System(job::io_error(c.call.as_str(), &path, offset, &e)))?;
            latency::record(&mut hist, t.elapsed());
            done += 1;
            if done.is_multiple_of(64) {
                ctx.progress.advance(64);
            }
        }
        Ok(Outcome {
            done,
            hist,
            seconds: start.elapsed().as_secs_f64(),
            cancelled: done < c.count,
        })
    }
}

impl Benchmark for Fsync {
    fn id(&self) -> &'static str {
        names::FSYNC
    }

    fn validate(&self) -> Result<(), BenchError> {
        self.config.validate()
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        let c = &self.config;
        c.validate()?;
        job::ignore_sigxfsz();
        let mut result = BenchResult::new(self.id());
        result.set_param(param::DIR, c.dir.display().to_string());
        result.set_param(param::BLOCK_SIZE, c.block_size);
        result.set_param(param::COUNT, c.count);
        result.set_param(param::DIRECT, c.direct);
        ctx.progress.start("disk fsync", c.count);
        let outcome = self.measure(ctx);
        ctx.progress.finish();
        match outcome {
            Ok(o) if o.done > 0 => {
                let call = c.call.as_str();
                let mut push = |name: &str, value: f64, unit: Unit, better: Better| {
                    result
                        .metrics
                        .push(Metric::new(name, value, unit, better).label(label::SYNC, call));
                };
                push(
                    metric::OPERATIONS,
                    o.done as f64,
                    Unit::Count,
                    Better::Neither,
                );
                push(metric::SECONDS, o.seconds, Unit::Seconds, Better::Lower);
                push(
                    metric::IOPS,
                    o.done as f64 / o.seconds.max(1e-12),
                    Unit::OpsPerSecond,
                    Better::Higher,
                );
                push(
                    metric::LATENCY,
                    o.hist.mean() * 1e-9,
                    Unit::Seconds,
                    Better::Lower,
                );
                for (name, v) in job::percentile_metrics(&o.hist) {
                    push(name, v, Unit::Seconds, Better::Lower);
                }
                if o.cancelled {
                    result.mark_cancelled();
                }
            }
            Ok(_) => result.mark_cancelled(),
            Err(e) => result.mark_failed(e.to_string()),
        }
        ctx.record(result)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::ResultStatus;
    use nodebench_core::bench::{Cancel, collect};
    use nodebench_core::inventory::Inventory;

    fn run(config: FsyncConfig) -> BenchResult {
        let out = collect(&Fsync { config }, &Inventory::default(), Cancel::new()).unwrap();
        assert_eq!(out.len(), 1);
        out.into_iter().next().unwrap()
    }

    #[test]
    fn each_write_is_one_synced_operation_and_the_file_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        for call in [SyncCall::Fdatasync, SyncCall::Fsync] {
            let r = run(FsyncConfig {
                dir: dir.path().to_path_buf(),
                block_size: 4096,
                count: 20,
                call,
                direct: false,
            });
            assert_eq!(r.status, ResultStatus::Passed, "{:?}", r.error);
            let value = |name: &str| {
                r.metric(name, &[(label::SYNC, call.as_str())])
                    .unwrap()
                    .value
            };
            assert_eq!(value(metric::OPERATIONS), 20.0);
            let seconds = value(metric::SECONDS);
            let iops = value(metric::IOPS);
            assert!((iops * seconds - 20.0).abs() < 1e-6, "{iops} x {seconds}");
            // Percentiles in order, each no longer than the longest, and
            // the mean within the range.
            let p: Vec<f64> = [
                metric::LATENCY_P50,
                metric::LATENCY_P90,
                metric::LATENCY_P99,
                metric::LATENCY_P999,
                metric::LATENCY_MAX,
            ]
            .iter()
            .map(|n| value(n))
            .collect();
            assert!(p.windows(2).all(|w| w[0] <= w[1]), "{p:?}");
            assert!(p[0] > 0.0);
            // The mean of 20 operations is at most their total time / 20
            // (plus the histogram's 0.1 % rounding).
            assert!(value(metric::LATENCY) <= seconds / 20.0 * 1.001);
            assert_eq!(r.param(param::COUNT).unwrap(), 20);
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_cancelled_run_is_marked_and_keeps_nothing_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let cancel = Cancel::new();
        cancel.cancel();
        let fsync = Fsync {
            config: FsyncConfig {
                dir: dir.path().to_path_buf(),
                count: 10,
                ..FsyncConfig::default()
            },
        };
        let out = collect(&fsync, &Inventory::default(), cancel).unwrap();
        assert_eq!(out[0].status, ResultStatus::Cancelled);
        assert!(out[0].metrics.is_empty(), "no figure from no operation");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn validate_names_the_flag_and_the_form() {
        let ok = FsyncConfig::default();
        let err = |c: FsyncConfig| c.validate().unwrap_err().to_string();
        assert_eq!(
            err(FsyncConfig {
                block_size: 0,
                ..ok.clone()
            }),
            "--block-size: expected a size from 1 byte to 64M, like 8k"
        );
        assert_eq!(
            err(FsyncConfig {
                block_size: 1000,
                direct: true,
                ..ok.clone()
            }),
            "--block-size: with --direct, expected a multiple of 512 bytes, like 8k"
        );
        assert_eq!(
            err(FsyncConfig {
                count: 0,
                ..ok.clone()
            }),
            "--count: expected a positive count, like 1000"
        );
        assert!(
            err(FsyncConfig {
                dir: "/nonexistent-nodebench".into(),
                ..ok
            })
            .starts_with("--dir /nonexistent-nodebench")
        );
        assert_eq!(
            "fsync".parse::<SyncCall>().unwrap(),
            SyncCall::Fsync,
            "the names are the label's values"
        );
    }
}
