//! `nodebench disk dd`: a sequential write of `count` blocks of `block_size`
//! bytes, as `dd if=/dev/zero of=FILE bs=100M count=100` measures it (but with
//! incompressible data), once without and once with a final fdatasync
//! (`conv=fdatasync`): the first figure is the page cache's, the second the
//! device's. Reported as dd does: bytes, seconds, MB/s (10^6 B/s).

use std::path::PathBuf;

use nodebench_core::bench::{BenchError, Benchmark, Context};
use nodebench_core::config::{Choice, Config};
use nodebench_core::names::disk::{self as names, label, metric, param};
use nodebench_core::{BenchResult, Better, Metric, Unit};

use crate::job::{self, EndSync, JobSpec};
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

impl Default for DdConfig {
    /// `dd bs=100M count=100` in the temporary directory, through the page
    /// cache.
    fn default() -> DdConfig {
        DdConfig {
            dir: std::env::temp_dir(),
            block_size: 100 << 20,
            count: 100,
            direct: false,
        }
    }
}

impl Config for DdConfig {
    fn validate(&self) -> Result<(), BenchError> {
        if self.block_size == 0 || self.count == 0 {
            return Err(BenchError::Invalid(
                "--block-size/--count: expected positive values like 100M and 100".into(),
            ));
        }
        scratch::check_blocks(&self.dir, self.block_size, self.count)
    }
}

/// The `disk.dd` benchmark: one result with a figure per sync mode.
#[derive(Debug, Clone)]
pub struct Dd {
    /// Its configuration.
    pub config: DdConfig,
}

impl Benchmark for Dd {
    fn id(&self) -> &'static str {
        names::DD
    }

    fn validate(&self) -> Result<(), BenchError> {
        self.config.validate()
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        let c = &self.config;
        c.validate()?;
        // No overflow: `validate` refused one.
        let total = c.block_size * c.count;
        job::ignore_sigxfsz();
        let mut result = BenchResult::new(self.id());
        result.set_param(param::DIR, c.dir.display().to_string());
        result.set_param(param::BLOCK_SIZE, c.block_size);
        result.set_param(param::COUNT, c.count);
        result.set_param(param::DIRECT, c.direct);
        result.set_param(param::MB, "1 MB = 10^6 bytes, as dd prints");
        ctx.progress.start("disk dd", 2);
        for sync in [EndSync::None, EndSync::Fdatasync] {
            if ctx.cancel.is_cancelled() {
                result.mark_cancelled();
                break;
            }
            let outcome = ScratchFile::create(&c.dir, "dd").and_then(|f| {
                let file = f.open(OpenMode {
                    direct: c.direct,
                    sync: false,
                })?;
                let spec = JobSpec::sequential_write(c.block_size, total, sync);
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
                        Metric::new(n, v, u, b).label(label::SYNC, sync.as_str())
                    };
                    result.metrics.push(m(
                        metric::BYTES,
                        o.bytes as f64,
                        Unit::Bytes,
                        Better::Higher,
                    ));
                    result.metrics.push(m(
                        metric::SECONDS,
                        o.seconds,
                        Unit::Seconds,
                        Better::Lower,
                    ));
                    result.metrics.push(m(
                        metric::BANDWIDTH,
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
                    result.mark_failed(e.to_string());
                    break;
                }
            }
            ctx.progress.advance(1);
        }
        ctx.progress.finish();
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
                    ..DdConfig::default()
                },
            },
            &inv,
            Cancel::new(),
        )
        .unwrap();
        let r = &out[0];
        assert_eq!(r.status, ResultStatus::Passed);
        let bytes: Vec<(f64, Option<&str>)> = r
            .metrics_named(metric::BYTES)
            .map(|m| (m.value, m.label_value(label::SYNC)))
            .collect();
        assert_eq!(
            bytes,
            [
                (4.0 * 1048576.0, Some("none")),
                (4.0 * 1048576.0, Some("fdatasync"))
            ]
        );
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn validate_refuses_empty_and_overflowing_writes() {
        let ok = DdConfig::default();
        let e = DdConfig {
            count: 0,
            ..ok.clone()
        }
        .validate()
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "--block-size/--count: expected positive values like 100M and 100"
        );
        let e = DdConfig {
            count: u64::MAX,
            ..ok
        }
        .validate()
        .unwrap_err();
        assert_eq!(e.to_string(), "--block-size x --count overflows");
    }
}
