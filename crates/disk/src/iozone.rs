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

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Barrier;
use std::time::Instant;

use chrono::Utc;
use hdrhistogram::Histogram as Hdr;
use nodebench_core::bench::{BenchError, Benchmark, Context};
use nodebench_core::{BenchResult, Better, Histogram, Metric, ResultStatus, Unit};

use crate::job::{self, Access, EndSync, Engine, JobOutcome, JobSpec, Rw, Siblings};
use crate::scratch::{self, OpenMode, ScratchFile};

/// IOzone's default stride, in records.
pub const STRIDE_RECORDS: u64 = 17;

/// One IOzone test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Test {
    /// Initial sequential write of a new file.
    Write,
    /// Sequential overwrite of the existing file.
    Rewrite,
    /// Sequential read.
    Read,
    /// Sequential read again (cache effects show here).
    Reread,
    /// Random reads, each record once.
    RandomRead,
    /// Random writes, each record once.
    RandomWrite,
    /// Sequential read from the end to the start.
    BackwardRead,
    /// Writing the same record over and over.
    RecordRewrite,
    /// Reading every 17th record, then the next start...
    StrideRead,
    /// Buffered stream write of a new file (fwrite), with the final flush.
    Fwrite,
    /// Buffered stream overwrite (fwrite again).
    Frewrite,
    /// Buffered stream read (fread).
    Fread,
    /// Buffered stream read again.
    Freread,
    /// pwrite of a new file.
    Pwrite,
    /// pread.
    Pread,
    /// Random mix: reads and writes alternate.
    Mixed,
}

impl Test {
    /// Every test, in IOzone's order.
    pub const ALL: [Test; 16] = [
        Test::Write,
        Test::Rewrite,
        Test::Read,
        Test::Reread,
        Test::RandomRead,
        Test::RandomWrite,
        Test::BackwardRead,
        Test::RecordRewrite,
        Test::StrideRead,
        Test::Fwrite,
        Test::Frewrite,
        Test::Fread,
        Test::Freread,
        Test::Pwrite,
        Test::Pread,
        Test::Mixed,
    ];

    /// The id used on the command line and in labels.
    pub fn id(self) -> &'static str {
        match self {
            Test::Write => "write",
            Test::Rewrite => "rewrite",
            Test::Read => "read",
            Test::Reread => "reread",
            Test::RandomRead => "random_read",
            Test::RandomWrite => "random_write",
            Test::BackwardRead => "backward_read",
            Test::RecordRewrite => "record_rewrite",
            Test::StrideRead => "stride_read",
            Test::Fwrite => "fwrite",
            Test::Frewrite => "frewrite",
            Test::Fread => "fread",
            Test::Freread => "freread",
            Test::Pwrite => "pwrite",
            Test::Pread => "pread",
            Test::Mixed => "mixed",
        }
    }

    /// Parses [`Test::id`].
    pub fn parse(s: &str) -> Option<Test> {
        Test::ALL.into_iter().find(|t| t.id() == s)
    }

    /// True when the test starts from a new, empty file.
    fn creates(self) -> bool {
        matches!(self, Test::Write | Test::Fwrite | Test::Pwrite)
    }

    /// True when the test needs the whole file written first.
    fn needs_data(self) -> bool {
        !self.creates()
    }

    /// True when the test writes every record exactly once, so `--verify`
    /// can read the whole file back and check it.
    fn writes_every_record(self) -> bool {
        matches!(
            self,
            Test::Write
                | Test::Rewrite
                | Test::RandomWrite
                | Test::Fwrite
                | Test::Frewrite
                | Test::Pwrite
        )
    }

    /// The job this test runs (before the run's engine and flags are applied).
    fn job(self, engine: Engine, seed: u64) -> (Rw, Access, Engine) {
        match self {
            Test::Write | Test::Rewrite => (Rw::Write, Access::Sequential, engine),
            Test::Read | Test::Reread => (Rw::Read, Access::Sequential, engine),
            Test::RandomRead => (Rw::Read, Access::Random(seed), engine),
            Test::RandomWrite => (Rw::Write, Access::Random(seed ^ 0xA5A5), engine),
            Test::BackwardRead => (Rw::Read, Access::Backward, engine),
            Test::RecordRewrite => (Rw::Write, Access::Fixed(0), engine),
            Test::StrideRead => (Rw::Read, Access::Stride(STRIDE_RECORDS), engine),
            Test::Fwrite | Test::Frewrite => (Rw::Write, Access::Sequential, Engine::Stdio),
            Test::Fread | Test::Freread => (Rw::Read, Access::Sequential, Engine::Stdio),
            Test::Pwrite => (Rw::Write, Access::Sequential, Engine::Psync),
            Test::Pread => (Rw::Read, Access::Sequential, Engine::Psync),
            Test::Mixed => (Rw::Mixed, Access::Random(seed ^ 0x5A5A), engine),
        }
    }
}

/// Everything `disk iozone` runs with.
#[derive(Debug, Clone)]
pub struct IozoneConfig {
    /// Directory the test files go in.
    pub dir: PathBuf,
    /// File size per worker (single cell).
    pub file_size: u64,
    /// Record size (single cell).
    pub record_size: u64,
    /// Tests, in run order.
    pub tests: Vec<Test>,
    /// Throughput mode with this many workers (1 = classic single process).
    pub workers: usize,
    /// Auto mode up to this file size.
    pub auto_max_file_size: Option<u64>,
    /// IOzone `-e`: fsync inside the write timing.
    pub fsync_in_timing: bool,
    /// IOzone `-o`: O_SYNC writes.
    pub o_sync: bool,
    /// IOzone `-I`: O_DIRECT.
    pub direct: bool,
    /// IOzone `-p`: drop the file's pages from the cache before each test.
    pub purge: bool,
    /// Also drop the whole page cache (sync, then 3 > /proc/sys/vm/drop_caches)
    /// before each test; needs root.
    pub drop_caches: bool,
    /// Engine for the tests that are not stdio or pread/pwrite by definition.
    pub engine: Engine,
    /// Read back and check what the write tests wrote.
    pub verify: bool,
}

impl IozoneConfig {
    /// IOzone's defaults for `dir`, one cell of `file_size` x `record_size`:
    /// every test, one worker, no -e/-o/-I/-p, psync, no verify.
    pub fn new(dir: PathBuf, file_size: u64, record_size: u64) -> IozoneConfig {
        IozoneConfig {
            dir,
            file_size,
            record_size,
            tests: Test::ALL.to_vec(),
            workers: 1,
            auto_max_file_size: None,
            fsync_in_timing: false,
            o_sync: false,
            direct: false,
            purge: false,
            drop_caches: false,
            engine: Engine::Psync,
            verify: false,
        }
    }
}

/// The `disk.iozone` benchmark.
#[derive(Debug, Clone)]
pub struct Iozone {
    /// Its configuration.
    pub config: IozoneConfig,
}

/// The (file size, record size) cells of auto mode: file sizes from 64 KiB
/// doubling to `max`, records 4 KiB to 16 MiB doubling and no larger than the
/// file; above 32 MiB files, records under 64 KiB are skipped, as IOzone does.
pub fn auto_cells(max: u64) -> Vec<(u64, u64)> {
    let mut cells = Vec::new();
    let mut f: u64 = 64 << 10;
    while f <= max.max(64 << 10) {
        let mut r: u64 = 4 << 10;
        while r <= f && r <= 16 << 20 {
            if !(f > 32 << 20 && r < 64 << 10) {
                cells.push((f, r));
            }
            r *= 2;
        }
        f *= 2;
    }
    cells
}

/// Per-test figures of one cell.
struct TestFigures {
    per_worker: Vec<JobOutcome>,
    wall: f64,
}

struct Worker {
    scratch: ScratchFile,
    file: std::fs::File,
    stdio_file: std::fs::File,
    path: String,
}

impl Iozone {
    fn validate(&self) -> Result<(), BenchError> {
        let c = &self.config;
        if c.tests.is_empty() {
            return Err(BenchError::Invalid(
                "--tests: expected a list of IOzone tests like write,read,random_read".into(),
            ));
        }
        if c.workers == 0 {
            return Err(BenchError::Invalid(
                "--workers: expected a positive number of workers".into(),
            ));
        }
        if c.file_size == 0 || c.record_size == 0 {
            return Err(BenchError::Invalid(
                "--file-size/--record-size: expected positive sizes like 1g, 4k".into(),
            ));
        }
        if c.auto_max_file_size.is_none() && c.record_size > c.file_size {
            return Err(BenchError::Invalid(format!(
                "--record-size: {} B is larger than --file-size {} B",
                c.record_size, c.file_size
            )));
        }
        if let Engine::IoUring { depth } = c.engine
            && depth == 0
        {
            return Err(BenchError::Invalid(
                "--iodepth: expected a positive queue depth".into(),
            ));
        }
        Ok(())
    }

    /// Runs the tests of one cell on every worker; `Err` holds the figures of
    /// the tests that finished and the error that ended the cell.
    #[allow(clippy::type_complexity)]
    fn run_cell(
        &self,
        ctx: &mut Context<'_>,
        file_size: u64,
        record: u64,
    ) -> (Vec<(Test, TestFigures)>, Option<String>, bool) {
        let c = &self.config;
        let mut done = Vec::new();
        let mode = OpenMode {
            direct: c.direct,
            sync: c.o_sync,
        };
        let mut workers = Vec::new();
        for w in 0..c.workers {
            let made = ScratchFile::create(&c.dir, &format!("iozone{w}")).and_then(|s| {
                let file = s.open(mode)?;
                let stdio_file = s.open(OpenMode {
                    direct: false,
                    sync: c.o_sync,
                })?;
                let path = s.path().display().to_string();
                Ok(Worker {
                    scratch: s,
                    file,
                    stdio_file,
                    path,
                })
            });
            match made {
                Ok(w) => workers.push(w),
                Err(e) => return (done, Some(e), false),
            }
        }
        if c.direct {
            let align = scratch::direct_alignment(workers[0].scratch.path());
            if !record.is_multiple_of(align) {
                return (
                    done,
                    Some(format!(
                        "--record-size: {record} B is not a multiple of the direct-I/O alignment {align} B of --dir {}",
                        c.dir.display()
                    )),
                    false,
                );
            }
        }
        let mut laid_out = false;
        for (ti, &test) in c.tests.iter().enumerate() {
            if ctx.cancel.is_cancelled() {
                return (done, None, true);
            }
            if test.creates() {
                for w in &workers {
                    if let Err(e) = w.file.set_len(0) {
                        return (done, Some(format!("truncating {}: {e}", w.path)), false);
                    }
                }
            } else if test.needs_data() && !laid_out {
                // Lay the file out (untimed) for tests that read or rewrite
                // it, in 1 MiB writes where the size allows, so its extents
                // do not depend on the record size under test.
                let covered = file_size / record * record;
                let layout_record = if covered.is_multiple_of(1 << 20) {
                    1 << 20
                } else {
                    record
                };
                for w in &workers {
                    let spec = JobSpec {
                        rw: Rw::Write,
                        access: Access::Sequential,
                        record: layout_record,
                        size: covered,
                        engine: Engine::Psync,
                        end_sync: EndSync::Fsync,
                        time_limit: None,
                        verifiable: None,
                    };
                    if let Err(e) = job::run_job(&w.file, &w.path, &spec, &ctx.cancel, None) {
                        return (done, Some(e), false);
                    }
                }
            }
            if c.drop_caches
                && let Err(e) = job::drop_caches()
            {
                return (done, Some(e), false);
            }
            if c.purge {
                for w in &workers {
                    let f = if matches!(
                        test,
                        Test::Fwrite | Test::Frewrite | Test::Fread | Test::Freread
                    ) {
                        &w.stdio_file
                    } else {
                        &w.file
                    };
                    if let Err(e) = job::purge(f, &w.path) {
                        return (done, Some(e), false);
                    }
                }
            }
            let (rw, access, engine) = test.job(c.engine, 0x1234_5678 + ti as u64);
            let seed = (c.verify && test.writes_every_record()).then_some(0xC0FFEE ^ ti as u64);
            let spec = JobSpec {
                rw,
                access,
                record,
                size: file_size,
                engine,
                end_sync: if c.fsync_in_timing {
                    EndSync::Fsync
                } else {
                    EndSync::None
                },
                time_limit: None,
                verifiable: if rw == Rw::Write { seed } else { None },
            };
            let siblings = Siblings::default();
            let barrier = Barrier::new(workers.len());
            let t0 = Instant::now();
            let cancel = ctx.cancel.clone();
            let outcomes: Vec<Result<JobOutcome, String>> = std::thread::scope(|s| {
                let handles: Vec<_> = workers
                    .iter()
                    .map(|w| {
                        let (barrier, siblings, cancel) = (&barrier, &siblings, &cancel);
                        let file = if engine == Engine::Stdio {
                            &w.stdio_file
                        } else {
                            &w.file
                        };
                        s.spawn(move || {
                            barrier.wait();
                            job::run_job(file, &w.path, &spec, cancel, Some(siblings))
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                    .collect()
            });
            let wall = t0.elapsed().as_secs_f64();
            let mut per_worker = Vec::new();
            for o in outcomes {
                match o {
                    Ok(o) => per_worker.push(o),
                    Err(e) => return (done, Some(format!("{}: {e}", test.id())), false),
                }
            }
            let cancelled = per_worker.iter().any(|o| o.cancelled);
            if let (Some(seed), Rw::Write) = (seed, rw)
                && !cancelled
            {
                for w in &workers {
                    let f = if engine == Engine::Stdio {
                        &w.stdio_file
                    } else {
                        &w.file
                    };
                    if let Err(e) = job::verify(f, &w.path, file_size, record, seed) {
                        return (done, Some(format!("{}: {e}", test.id())), false);
                    }
                }
            }
            if rw != Rw::Read {
                laid_out = true;
            }
            ctx.progress.advance(1);
            done.push((test, TestFigures { per_worker, wall }));
            if cancelled {
                return (done, None, true);
            }
        }
        (done, None, false)
    }
}

fn percentile_metrics(hist: &Hdr<u64>) -> Vec<(&'static str, f64)> {
    let q = |p: f64| hist.value_at_quantile(p) as f64 * 1e-9;
    vec![
        ("latency_p50", q(0.50)),
        ("latency_p90", q(0.90)),
        ("latency_p99", q(0.99)),
        ("latency_p999", q(0.999)),
        ("latency_max", hist.max() as f64 * 1e-9),
    ]
}

fn record_cell(
    result: &mut BenchResult,
    figures: &[(Test, TestFigures)],
    file_size: u64,
    record: u64,
    workers: usize,
    throughput: bool,
) {
    for (test, f) in figures {
        let labels: BTreeMap<String, String> = [
            ("test", test.id().to_string()),
            ("file_size", file_size.to_string()),
            ("record", record.to_string()),
            ("workers", workers.to_string()),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        let metric = |name: &str, value: f64, unit: Unit, better: Better| {
            let mut m = Metric::new(name, value, unit, better);
            m.labels = labels.clone();
            m
        };
        let rates: Vec<f64> = f
            .per_worker
            .iter()
            .map(|o| o.bytes as f64 / o.seconds.max(1e-12))
            .collect();
        let children = rates.iter().sum::<f64>();
        let bytes: u64 = f.per_worker.iter().map(|o| o.bytes).sum();
        let ops: u64 = f.per_worker.iter().map(|o| o.ops).sum();
        let mut hist = job_histogram();
        for o in &f.per_worker {
            let _ = hist.add(&o.latency_ns);
        }
        result.metrics.push(metric(
            "bandwidth",
            children,
            Unit::BytesPerSecond,
            Better::Higher,
        ));
        let iops = f
            .per_worker
            .iter()
            .map(|o| o.ops as f64 / o.seconds.max(1e-12))
            .sum::<f64>();
        result
            .metrics
            .push(metric("iops", iops, Unit::OpsPerSecond, Better::Higher));
        for (name, v) in percentile_metrics(&hist) {
            result
                .metrics
                .push(metric(name, v, Unit::Seconds, Better::Lower));
        }
        result
            .metrics
            .push(metric("bytes", bytes as f64, Unit::Bytes, Better::Higher));
        result.metrics.push(metric(
            "operations",
            ops as f64,
            Unit::Count,
            Better::Higher,
        ));
        if throughput {
            let min_xfer = f
                .per_worker
                .iter()
                .map(|o| o.bytes_when_first_done.unwrap_or(o.bytes))
                .min()
                .unwrap_or(0);
            result.metrics.push(metric(
                "children_see",
                children,
                Unit::BytesPerSecond,
                Better::Higher,
            ));
            result.metrics.push(metric(
                "parent_sees",
                bytes as f64 / f.wall.max(1e-12),
                Unit::BytesPerSecond,
                Better::Higher,
            ));
            let min = rates.iter().copied().fold(f64::INFINITY, f64::min);
            let max = rates.iter().copied().fold(0.0, f64::max);
            result.metrics.push(metric(
                "min_per_worker",
                min,
                Unit::BytesPerSecond,
                Better::Higher,
            ));
            result.metrics.push(metric(
                "max_per_worker",
                max,
                Unit::BytesPerSecond,
                Better::Higher,
            ));
            result.metrics.push(metric(
                "avg_per_worker",
                children / rates.len().max(1) as f64,
                Unit::BytesPerSecond,
                Better::Higher,
            ));
            result.metrics.push(metric(
                "min_xfer",
                min_xfer as f64,
                Unit::Bytes,
                Better::Higher,
            ));
        }
        result.histograms.push(Histogram::from_hdr(
            "latency",
            Unit::Seconds,
            1e9,
            labels,
            &hist,
        ));
    }
}

fn job_histogram() -> Hdr<u64> {
    Hdr::new_with_bounds(1, 3_600_000_000_000, 3)
        .unwrap_or_else(|_| Hdr::new(3).expect("3 digits is valid"))
}

impl Benchmark for Iozone {
    fn id(&self) -> &'static str {
        "disk.iozone"
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        self.validate()?;
        job::ignore_sigxfsz();
        let c = &self.config;
        let groups: Vec<(u64, Vec<u64>)> = match c.auto_max_file_size {
            Some(max) => {
                let mut g: Vec<(u64, Vec<u64>)> = Vec::new();
                for (f, r) in auto_cells(max) {
                    match g.last_mut() {
                        Some((lf, rs)) if *lf == f => rs.push(r),
                        _ => g.push((f, vec![r])),
                    }
                }
                g
            }
            None => vec![(c.file_size, vec![c.record_size])],
        };
        let largest = groups.iter().map(|(f, _)| *f).max().unwrap_or(0);
        scratch::check_dir(&c.dir, largest * c.workers as u64).map_err(BenchError::Invalid)?;
        let steps: usize = groups.iter().map(|(_, r)| r.len()).sum::<usize>() * c.tests.len();
        ctx.progress.start("disk iozone", steps as u64);
        let throughput = c.workers > 1;

        for (file_size, records) in &groups {
            if ctx.cancel.is_cancelled() {
                break;
            }
            let mut result = BenchResult::new(self.id());
            result.set_param("dir", c.dir.display().to_string());
            result.set_param("file_size", file_size);
            if c.auto_max_file_size.is_none() {
                result.set_param("record_size", c.record_size);
            } else {
                result.set_param("record_sizes", records);
            }
            result.set_param("tests", c.tests.iter().map(|t| t.id()).collect::<Vec<_>>());
            result.set_param("workers", c.workers);
            result.set_param("throughput_mode", throughput);
            result.set_param("auto", c.auto_max_file_size.is_some());
            result.set_param("fsync_in_timing", c.fsync_in_timing);
            result.set_param("o_sync", c.o_sync);
            result.set_param("direct", c.direct);
            result.set_param("purge", c.purge);
            result.set_param("drop_caches", c.drop_caches);
            result.set_param("engine", c.engine.name());
            result.set_param(
                "iodepth",
                match c.engine {
                    Engine::IoUring { depth } => depth,
                    _ => 1,
                },
            );
            result.set_param("stride_records", STRIDE_RECORDS);
            result.set_param("verify", c.verify);
            result.set_param("data", "incompressible (xorshift random bytes)");
            for &record in records {
                let (figures, error, cancelled) = self.run_cell(ctx, *file_size, record);
                record_cell(
                    &mut result,
                    &figures,
                    *file_size,
                    record,
                    c.workers,
                    throughput,
                );
                if let Some(e) = error {
                    result.mark_failed(e);
                    break;
                }
                if cancelled {
                    result.mark_cancelled();
                    break;
                }
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

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::bench::{Cancel, collect};
    use nodebench_core::inventory::Inventory;

    fn config(dir: &std::path::Path) -> IozoneConfig {
        IozoneConfig {
            fsync_in_timing: true,
            purge: true,
            verify: true,
            ..IozoneConfig::new(dir.to_path_buf(), 1 << 20, 64 << 10)
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
        r.metrics
            .iter()
            .find(|m| m.name == name && m.labels["test"] == test)
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
        for t in Test::ALL {
            assert_eq!(value(r, "bytes", t.id()), (1 << 20) as f64, "{}", t.id());
            assert_eq!(value(r, "operations", t.id()), 16.0, "{}", t.id());
            assert!(value(r, "bandwidth", t.id()) > 0.0);
            assert!(value(r, "latency_p50", t.id()) <= value(r, "latency_max", t.id()));
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
        for name in [
            "children_see",
            "parent_sees",
            "min_per_worker",
            "max_per_worker",
            "avg_per_worker",
            "min_xfer",
        ] {
            assert!(value(r, name, "write") > 0.0, "{name}");
        }
        assert_eq!(value(r, "bytes", "read"), (2 << 20) as f64);
        assert!(value(r, "min_per_worker", "write") <= value(r, "max_per_worker", "write"));
        assert!(value(r, "min_xfer", "write") <= (1 << 20) as f64);
    }

    #[test]
    fn auto_mode_follows_iozone_rules() {
        let cells = auto_cells(64 << 20);
        assert_eq!(cells[0], (64 << 10, 4 << 10));
        assert!(cells.contains(&(32 << 20, 4 << 10)));
        assert!(
            !cells.contains(&(64 << 20, 32 << 10)),
            "small records skipped above 32 MiB"
        );
        assert!(cells.contains(&(64 << 20, 64 << 10)));
        assert!(cells.iter().all(|(f, r)| r <= f && *r <= 16 << 20));
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = config(dir.path());
        cfg.auto_max_file_size = Some(128 << 10);
        cfg.tests = vec![Test::Write, Test::Read];
        cfg.purge = false;
        let out = run(cfg).unwrap();
        assert_eq!(out.len(), 2, "one result per file size");
        // 64 KiB: records 4..64 KiB (5); 128 KiB: 4..128 KiB (6); two tests each.
        assert_eq!(
            out[0]
                .metrics
                .iter()
                .filter(|m| m.name == "bandwidth")
                .count(),
            10
        );
        assert_eq!(
            out[1]
                .metrics
                .iter()
                .filter(|m| m.name == "bandwidth")
                .count(),
            12
        );
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
