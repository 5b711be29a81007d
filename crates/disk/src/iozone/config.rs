//! What `disk iozone` runs: IOzone's tests, its options and their defaults,
//! the checks made before anything runs, and the cells of auto mode.

use std::path::PathBuf;

use nodebench_core::bench::BenchError;
use nodebench_core::config::{Choice, Config};
use nodebench_core::names::disk::test;

use crate::job::{Access, Engine, Rw};
use crate::scratch;
use crate::steady;

/// IOzone's default stride, in records.
pub const STRIDE_RECORDS: u64 = 17;

nodebench_core::choice! {
    /// One IOzone test.
    pub enum Test {
        /// Initial sequential write of a new file.
        Write => test::WRITE,
        /// Sequential overwrite of the existing file.
        Rewrite => test::REWRITE,
        /// Sequential read.
        Read => test::READ,
        /// Sequential read again (cache effects show here).
        Reread => test::REREAD,
        /// Random reads, each record once.
        RandomRead => test::RANDOM_READ,
        /// Random writes, each record once.
        RandomWrite => test::RANDOM_WRITE,
        /// Sequential read from the end to the start.
        BackwardRead => test::BACKWARD_READ,
        /// Writing the same record over and over.
        RecordRewrite => test::RECORD_REWRITE,
        /// Reading every 17th record, then the next start...
        StrideRead => test::STRIDE_READ,
        /// Buffered stream write of a new file (fwrite), with the final flush.
        Fwrite => test::FWRITE,
        /// Buffered stream overwrite (fwrite again).
        Frewrite => test::FREWRITE,
        /// Buffered stream read (fread).
        Fread => test::FREAD,
        /// Buffered stream read again.
        Freread => test::FREREAD,
        /// pwrite of a new file.
        Pwrite => test::PWRITE,
        /// pread.
        Pread => test::PREAD,
        /// Random mix: reads and writes alternate.
        Mixed => test::MIXED,
    }
}

/// IOzone's `-i 0 -i 1 -i 2`: write/rewrite, read/reread and random
/// read/write, the tests most IOzone reports quote (the first six of
/// IOzone's order).
pub const BASIC_TESTS: &[Test] = <Test as Choice>::ALL.split_at(6).0;

impl Test {
    /// True when the test starts from a new, empty file.
    pub(super) fn creates(self) -> bool {
        matches!(self, Test::Write | Test::Fwrite | Test::Pwrite)
    }

    /// True when the test needs the whole file written first.
    pub(super) fn needs_data(self) -> bool {
        !self.creates()
    }

    /// True when the test goes through buffered streams (fread/fwrite).
    pub(super) fn is_stdio(self) -> bool {
        matches!(
            self,
            Test::Fwrite | Test::Frewrite | Test::Fread | Test::Freread
        )
    }

    /// True when the test writes every record exactly once, so `--verify`
    /// can read the whole file back and check it.
    pub(super) fn writes_every_record(self) -> bool {
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
    pub(super) fn job(self, engine: Engine, seed: u64) -> (Rw, Access, Engine) {
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
    /// Engine for the tests that are not stdio or pread/pwrite by definition:
    /// psync or io_uring.
    pub engine: Engine,
    /// Operations in flight with io_uring.
    pub iodepth: u32,
    /// Read back and check what the write tests wrote.
    pub verify: bool,
    /// `--steady-state`: precondition the files, then run the tests in
    /// rounds until every test's IOPS is steady (SNIA PTS).
    pub steady_state: bool,
    /// The most rounds with `steady_state`.
    pub max_rounds: usize,
}

impl Default for IozoneConfig {
    /// The command line's defaults: every test on one 512 MiB file in 4 KiB
    /// records (IOzone `-s 512m -r 4k`) in the temporary directory, one
    /// worker, no `-e`/`-o`/`-I`/`-p`, psync, no verify.
    fn default() -> IozoneConfig {
        IozoneConfig {
            dir: std::env::temp_dir(),
            file_size: 512 << 20,
            record_size: 4 << 10,
            tests: Test::ALL.to_vec(),
            workers: 1,
            auto_max_file_size: None,
            fsync_in_timing: false,
            o_sync: false,
            direct: false,
            purge: false,
            drop_caches: false,
            engine: Engine::Psync,
            iodepth: 1,
            verify: false,
            steady_state: false,
            max_rounds: steady::DEFAULT_MAX_ROUNDS,
        }
    }
}

impl IozoneConfig {
    /// The (file size, record sizes) groups the run measures, one result
    /// each: the auto-mode matrix by file size, or the single cell.
    pub(super) fn groups(&self) -> Vec<(u64, Vec<u64>)> {
        match self.auto_max_file_size {
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
            None => vec![(self.file_size, vec![self.record_size])],
        }
    }
}

impl Config for IozoneConfig {
    fn validate(&self) -> Result<(), BenchError> {
        if self.tests.is_empty() {
            return Err(BenchError::Invalid(
                "--tests: expected a list of IOzone tests like write,read,random_read".into(),
            ));
        }
        if self.workers == 0 {
            return Err(BenchError::Invalid(
                "--workers: expected a positive number of workers".into(),
            ));
        }
        if self.file_size == 0 || self.record_size == 0 {
            return Err(BenchError::Invalid(
                "--file-size/--record-size: expected positive sizes like 1g, 4k".into(),
            ));
        }
        if self.auto_max_file_size.is_none() && self.record_size > self.file_size {
            return Err(BenchError::Invalid(format!(
                "--record-size: {} B is larger than --file-size {} B",
                self.record_size, self.file_size
            )));
        }
        if self.engine == Engine::Stdio {
            return Err(BenchError::Invalid(format!(
                "--engine: expected {} or {}, got {}",
                Engine::Psync,
                Engine::IoUring,
                Engine::Stdio
            )));
        }
        if self.iodepth == 0 {
            return Err(BenchError::Invalid(
                "--iodepth: expected a positive queue depth".into(),
            ));
        }
        if self.steady_state && self.auto_max_file_size.is_some() {
            return Err(BenchError::Invalid(
                "--steady-state: runs one --file-size and --record-size, not --auto".into(),
            ));
        }
        steady::check_max_rounds(self.max_rounds)?;
        let largest = self.groups().iter().map(|(f, _)| *f).max().unwrap_or(0);
        // A missing directory is the user's (exit 2); one without room the
        // machine's refusal (the benchmark fails).
        scratch::check_dir(&self.dir, largest.saturating_mul(self.workers as u64))
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_names_parse_back_and_unknown_ones_list_the_accepted() {
        for &t in Test::ALL {
            assert_eq!(t.as_str().parse::<Test>().unwrap(), t);
        }
        assert_eq!(Test::ALL.len(), 16);
        assert_eq!("random_read".parse::<Test>().unwrap(), Test::RandomRead);
        let e = "scribble".parse::<Test>().unwrap_err().to_string();
        assert!(
            e.contains("'scribble'") && e.contains("stride_read, fwrite"),
            "{e}"
        );
        assert_eq!(
            BASIC_TESTS,
            [
                Test::Write,
                Test::Rewrite,
                Test::Read,
                Test::Reread,
                Test::RandomRead,
                Test::RandomWrite
            ]
        );
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
    }

    #[test]
    fn validate_names_the_flag_of_each_bad_field() {
        let dir = tempfile::tempdir().unwrap();
        let ok = IozoneConfig {
            dir: dir.path().to_path_buf(),
            file_size: 1 << 20,
            record_size: 64 << 10,
            ..IozoneConfig::default()
        };
        ok.validate().unwrap();
        let cases: [(IozoneConfig, &str); 10] = [
            (
                IozoneConfig {
                    tests: vec![],
                    ..ok.clone()
                },
                "--tests: expected a list of IOzone tests like write,read,random_read",
            ),
            (
                IozoneConfig {
                    workers: 0,
                    ..ok.clone()
                },
                "--workers: expected a positive number of workers",
            ),
            (
                IozoneConfig {
                    record_size: 0,
                    ..ok.clone()
                },
                "--file-size/--record-size: expected positive sizes like 1g, 4k",
            ),
            (
                IozoneConfig {
                    record_size: 2 << 20,
                    ..ok.clone()
                },
                "--record-size: 2097152 B is larger than --file-size 1048576 B",
            ),
            (
                IozoneConfig {
                    engine: Engine::Stdio,
                    ..ok.clone()
                },
                "--engine: expected psync or io_uring, got stdio",
            ),
            (
                IozoneConfig {
                    engine: Engine::IoUring,
                    iodepth: 0,
                    ..ok.clone()
                },
                "--iodepth: expected a positive queue depth",
            ),
            (
                IozoneConfig {
                    file_size: 1 << 60,
                    workers: 64,
                    ..ok.clone()
                },
                "free for the test files",
            ),
            (
                IozoneConfig {
                    steady_state: true,
                    auto_max_file_size: Some(128 << 10),
                    ..ok.clone()
                },
                "--steady-state: runs one --file-size and --record-size, not --auto",
            ),
            (
                IozoneConfig {
                    steady_state: true,
                    max_rounds: 4,
                    ..ok.clone()
                },
                "--max-rounds: expected at least 5 (the steady-state window), got 4",
            ),
            (
                IozoneConfig {
                    dir: "/nonexistent-nodebench".into(),
                    ..ok.clone()
                },
                "--dir /nonexistent-nodebench: ",
            ),
        ];
        for (cfg, want) in cases {
            let e = cfg.validate().unwrap_err().to_string();
            assert!(e.contains(want), "{e} lacks {want}");
        }
        // Auto mode may have records larger than the single cell's file size.
        IozoneConfig {
            auto_max_file_size: Some(128 << 10),
            record_size: 2 << 20,
            ..ok
        }
        .validate()
        .unwrap();
    }
}
