//! `nodebench disk dd`: a sequential write of `count` blocks of `block_size`
//! bytes, as `dd if=/dev/zero of=FILE bs=100M count=100` measures it (but with
//! incompressible data), once without and once with a final fdatasync
//! (`conv=fdatasync`): the first figure is the page cache's, the second the
//! device's. Reported as dd does: bytes, seconds, MB/s (10^6 B/s).

use std::path::PathBuf;

use chrono::Utc;
use nodebench_core::bench::{BenchError, Benchmark, Context};
use nodebench_core::{BenchResult, Better, Metric, Unit};

use crate::job::{self, Access, EndSync, Engine, JobSpec, Rw};
use crate::scratch::{self, OpenMode, ScratchFile};

/// Everything `disk dd` runs with.
#[derive(Debug, Clone)]
pub struct DdConfig {
    /// Directory the file goes in.
    pub dir: PathBuf,
    /// Bytes per write.
    pub block_size: u64,
    /// Number of writes.
    pub count: u64,
    /// O_DIRECT (dd `oflag=direct`).
    pub direct: bool,
}

/// The `disk.dd` benchmark: one result with a figure per sync mode.
#[derive(Debug, Clone)]
pub struct Dd {
    /// Its configuration.
    pub config: DdConfig,
}

impl Benchmark for Dd {
    fn id(&self) -> &'static str {
        "disk.dd"
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        let c = &self.config;
        if c.block_size == 0 || c.count == 0 {
            return Err(BenchError::Invalid(
                "--block-size/--count: expected positive values like 100M and 100".into(),
            ));
        }
        let total = c
            .block_size
            .checked_mul(c.count)
            .ok_or_else(|| BenchError::Invalid("--block-size x --count overflows".into()))?;
        job::ignore_sigxfsz();
        scratch::check_dir(&c.dir, total).map_err(BenchError::Invalid)?;
        let mut result = BenchResult::new(self.id());
        result.set_param("dir", c.dir.display().to_string());
        result.set_param("block_size", c.block_size);
        result.set_param("count", c.count);
        result.set_param("direct", c.direct);
        result.set_param("mb", "1 MB = 10^6 bytes, as dd prints");
        ctx.progress.start("disk dd", 2);
        for (name, sync) in [("none", EndSync::None), ("fdatasync", EndSync::Fdatasync)] {
            if ctx.cancel.is_cancelled() {
                result.mark_cancelled();
                break;
            }
            let outcome = ScratchFile::create(&c.dir, "dd").and_then(|f| {
                let file = f.open(OpenMode {
                    direct: c.direct,
                    sync: false,
                })?;
                let spec = JobSpec {
                    rw: Rw::Write,
                    access: Access::Sequential,
                    record: c.block_size,
                    size: total,
                    engine: Engine::Psync,
                    end_sync: sync,
                    time_limit: None,
                    verifiable: None,
                };
                job::run_job(
                    &file,
                    &f.path().display().to_string(),
                    &spec,
                    &ctx.cancel,
                    None,
                )
            });
            match outcome {
                Ok(o) => {
                    let m = |n: &str, v: f64, u: Unit, b: Better| {
                        Metric::new(n, v, u, b).label("sync", name)
                    };
                    result
                        .metrics
                        .push(m("bytes", o.bytes as f64, Unit::Bytes, Better::Higher));
                    result
                        .metrics
                        .push(m("seconds", o.seconds, Unit::Seconds, Better::Lower));
                    result.metrics.push(m(
                        "bandwidth",
                        o.bytes as f64 / o.seconds.max(1e-12),
                        Unit::BytesPerSecond,
                        Better::Higher,
                    ));
                    if o.cancelled {
                        result.mark_cancelled();
                        break;
                    }
                }
                Err(e) => {
                    result.mark_failed(e);
                    break;
                }
            }
            ctx.progress.advance(1);
        }
        ctx.progress.finish();
        result.ended_at = Utc::now();
        ctx.sink.record(result)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::ResultStatus;
    use nodebench_core::bench::{Cancel, collect};
    use nodebench_core::inventory::Inventory;

    #[test]
    fn dd_writes_count_blocks_with_and_without_sync() {
        let dir = tempfile::tempdir().unwrap();
        let inv = Inventory::default();
        let out = collect(
            &Dd {
                config: DdConfig {
                    dir: dir.path().to_path_buf(),
                    block_size: 1 << 20,
                    count: 4,
                    direct: false,
                },
            },
            &inv,
            Cancel::new(),
        )
        .unwrap();
        let r = &out[0];
        assert_eq!(r.status, ResultStatus::Passed);
        let bytes: Vec<f64> = r
            .metrics
            .iter()
            .filter(|m| m.name == "bytes")
            .map(|m| m.value)
            .collect();
        assert_eq!(bytes, vec![4.0 * 1048576.0; 2]);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
