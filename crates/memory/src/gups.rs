//! `nodebench memory gups`: HPC Challenge's RandomAccess (GUPS).
//!
//! * A table of 2^n 64-bit words, entry `i` holding `i`; HPCC's size rule:
//!   the largest power of two whose bytes are not above `--memory-fraction`
//!   (HPCC's half) of the memory each core's process has (MemTotal over the
//!   star team's cores, as HPCC with one process per core); or
//!   `--table-size` words.
//! * 4 x table-size updates `table[r & (size-1)] ^= r` with the values of
//!   HPCC's generator (`HPCC_starts`, [`crate::gups_kernel`]).
//! * Modes, one result each (label `mode`): `single` (one core, the others
//!   idle), `star` (every core its own table at once, the figure each
//!   core's mean GUP/s as HPCC's StarRandomAccess) and `shared` (every core
//!   updating one table of `--memory-fraction` of all memory without locks,
//!   HPCC's rule allowing the lost updates up to 1 %).
//! * Verification as HPCC's: the updates applied again (in another
//!   interleaving), the entries that are not their index counted; the
//!   result fails at 1 % of the table or more.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use nodebench_core::bench::{BenchError, Benchmark, Context};
use nodebench_core::buffer::{Buffer, check_fits, split};
use nodebench_core::config::{Choice, Config};
use nodebench_core::inventory::meminfo::{pow2_floor, total_memory_bytes as mem_total};
use nodebench_core::names::hpcc::{label, metric, mode, param};
use nodebench_core::names::memory::HPCC_RANDOM_ACCESS;
use nodebench_core::sizing;
use nodebench_core::team::{self, SpinBarrier};
use nodebench_core::{BenchResult, Better, Metric, Unit, affinity};

use crate::config::hugepages_param;
use crate::gups_kernel::{STREAMS, Shared, init, passes, update, wrong_entries};

/// Fewest entries of a table (1 KiB): HPCC's 128 streams then take 4
/// updates each.
pub const MIN_TABLE: u64 = 1 << 7;
/// Streams of the verification pass: not the run's 128, so a kernel that
/// dropped or doubled updates in its interleaving cannot undo itself.
const VERIFY_STREAMS: u64 = 61;

nodebench_core::choice! {
    /// How RandomAccess runs.
    pub enum GupsMode {
        /// One core, its own table, the others idle (SingleRandomAccess).
        Single => mode::SINGLE,
        /// Every core its own table at once (StarRandomAccess).
        Star => mode::STAR,
        /// Every core updating one table without locks.
        Shared => mode::SHARED,
    }
}

/// Everything `memory gups` runs with.
#[derive(Debug, Clone)]
pub struct GupsConfig {
    /// The share of each core's memory one table may take (HPCC: 0.5).
    pub memory_fraction: f64,
    /// Entries (64-bit words) of each table, a power of two; `None` for
    /// the size from `memory_fraction`.
    pub table_size: Option<u64>,
    /// The modes, run in this order.
    pub modes: Vec<GupsMode>,
    /// Threads of star and shared; `None` for every allowed CPU.
    pub threads: Option<usize>,
    /// Ask for transparent huge pages for the tables.
    pub hugepages: bool,
}

impl Default for GupsConfig {
    /// HPCC's: half the memory, single then star; plus huge pages.
    fn default() -> Self {
        GupsConfig {
            memory_fraction: 0.5,
            table_size: None,
            modes: vec![GupsMode::Single, GupsMode::Star],
            threads: None,
            hugepages: true,
        }
    }
}

impl Config for GupsConfig {
    fn validate(&self) -> Result<(), BenchError> {
        sizing::check_memory_fraction(self.memory_fraction)?;
        if let Some(n) = self.table_size
            && (n < MIN_TABLE || !n.is_power_of_two())
        {
            return Err(BenchError::Invalid(format!(
                "--table-size: expected a power of two of at least {MIN_TABLE} entries (e.g. 4194304 = 2^22), got {n}"
            )));
        }
        sizing::check_modes(&self.modes, "single, star, shared")?;
        sizing::check_threads(self.threads)?;
        Ok(())
    }
}

/// What one run's tables are: entries per table by mode, and the text of
/// where the size came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// Star and shared threads.
    pub threads: usize,
    /// Entries of a single or star table.
    pub local: u64,
    /// Entries of the shared table.
    pub global: u64,
    /// Where the size came from.
    pub sized_by: String,
}

impl GupsConfig {
    /// The tables' sizes on a machine with `mem_total` bytes and `cpus`
    /// allowed CPUs.
    pub fn plan(&self, mem_total: Option<u64>, cpus: usize) -> Result<Plan, BenchError> {
        let threads = self.threads.unwrap_or(cpus).max(1);
        if let Some(n) = self.table_size {
            return Ok(Plan {
                threads,
                local: n,
                global: n,
                sized_by: format!("--table-size {n}"),
            });
        }
        let (bytes, sized_by) = sizing::memory_share(
            self.memory_fraction,
            mem_total,
            Some(threads),
            "--table-size",
        )?;
        let share = bytes / 8.0;
        Ok(Plan {
            threads,
            local: pow2_floor(share / threads as f64).max(MIN_TABLE),
            global: pow2_floor(share).max(MIN_TABLE),
            sized_by,
        })
    }

    /// Bytes the largest mode allocates at once.
    pub fn peak_bytes(&self, plan: &Plan) -> u64 {
        self.modes
            .iter()
            .map(|m| match m {
                GupsMode::Single => plan.local.saturating_mul(8),
                GupsMode::Star => plan
                    .local
                    .saturating_mul(8)
                    .saturating_mul(plan.threads as u64),
                GupsMode::Shared => plan.global.saturating_mul(8),
            })
            .max()
            .unwrap_or(0)
    }
}

/// The `memory.hpcc_random_access` benchmark.
#[derive(Debug, Clone, Default)]
pub struct Gups {
    /// Its configuration.
    pub config: GupsConfig,
}

/// What one mode measured.
struct Outcome {
    /// Updates per second (star: the mean of each core's).
    rate: f64,
    /// Wrong entries, over every table.
    errors: u64,
    /// Entries checked, over every table.
    entries: u64,
    /// Seconds of the timed updates (star: the longest core's).
    seconds: f64,
}

/// Each thread's own table of `len` entries: initialised, updated (timed
/// between two barriers), verified. `threads` = 1 is single.
fn own_tables(len: u64, threads: usize, huge: bool) -> Result<Outcome, BenchError> {
    let tables: Vec<Buffer<u64>> = (0..threads)
        .map(|_| Buffer::new(len as usize, huge, "--table-size"))
        .collect::<Result<_, _>>()?;
    let barrier = SpinBarrier::new(threads);
    let per = team::run(threads, true, |t| {
        // SAFETY: thread t alone touches table t.
        let table = unsafe { tables[t].part(0..len as usize) };
        init(table, 0);
        barrier.wait();
        let start = Instant::now();
        update(table, len as usize, 0, 4 * len, STREAMS);
        let seconds = start.elapsed().as_secs_f64();
        barrier.wait();
        update(table, len as usize, 0, 4 * len, VERIFY_STREAMS);
        (seconds, wrong_entries(table, 0))
    });
    let rate = per.iter().map(|(s, _)| 4.0 * len as f64 / s).sum::<f64>() / threads as f64;
    Ok(Outcome {
        rate,
        errors: per.iter().map(|(_, e)| e).sum(),
        entries: len * threads as u64,
        seconds: per.iter().map(|(s, _)| *s).fold(0.0, f64::max),
    })
}

/// One table of `len` entries every thread updates at once, each its
/// share of the updates; timed from the last thread's start to the last
/// one's end. Verified on one thread, the updates applied again in order.
fn shared_table(len: u64, threads: usize, huge: bool) -> Result<Outcome, BenchError> {
    let buf: Buffer<u64> = Buffer::new(len as usize, huge, "--table-size")?;
    let n = len as usize;
    // SAFETY: AtomicU64 has u64's size and alignment; the buffer lives
    // until this function returns and is only reached through this slice.
    let table: &[AtomicU64] =
        unsafe { std::slice::from_raw_parts(buf.as_ptr() as *const AtomicU64, n) };
    let updates = 4 * len;
    let barrier = SpinBarrier::new(threads);
    let clock = Instant::now();
    let (start_ns, end_ns) = (AtomicU64::new(0), AtomicU64::new(0));
    team::run(threads, true, |t| {
        let part = split(n, threads, t, 512);
        for (i, e) in table[part.clone()].iter().enumerate() {
            e.store((part.start + i) as u64, Ordering::Relaxed);
        }
        let mine = split(updates as usize, threads, t, STREAMS as usize);
        barrier.wait_then(|| start_ns.store(clock.elapsed().as_nanos() as u64, Ordering::SeqCst));
        update(
            &mut Shared(table),
            n,
            mine.start as u64,
            mine.len() as u64,
            STREAMS,
        );
        barrier.wait_then(|| end_ns.store(clock.elapsed().as_nanos() as u64, Ordering::SeqCst));
    });
    let seconds = (end_ns.load(Ordering::SeqCst) - start_ns.load(Ordering::SeqCst)) as f64 * 1e-9;
    update(&mut Shared(table), n, 0, updates, VERIFY_STREAMS);
    let errors = team::run(threads, false, |t| {
        let part = split(n, threads, t, 512);
        table[part.clone()]
            .iter()
            .enumerate()
            .filter(|(i, e)| e.load(Ordering::Relaxed) != (part.start + i) as u64)
            .count() as u64
    })
    .into_iter()
    .sum();
    Ok(Outcome {
        rate: updates as f64 / seconds.max(1e-9),
        errors,
        entries: len,
        seconds,
    })
}

impl Benchmark for Gups {
    fn id(&self) -> &'static str {
        HPCC_RANDOM_ACCESS
    }

    /// The flags, then the tables against the memory available now: too
    /// big a table is refused before anything runs.
    fn validate(&self) -> Result<(), BenchError> {
        let c = &self.config;
        c.validate()?;
        let plan = c.plan(mem_total(), affinity::allowed_cpus().len())?;
        let flag = if c.table_size.is_some() {
            "--table-size"
        } else {
            "--memory-fraction"
        };
        check_fits(c.peak_bytes(&plan), flag)
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        self.validate()?;
        let c = &self.config;
        let plan = c.plan(
            ctx.inventory.memory.total_bytes.or_else(mem_total),
            affinity::allowed_cpus().len(),
        )?;
        ctx.progress.start("memory gups", c.modes.len() as u64);
        for &m in &c.modes {
            if ctx.cancel.is_cancelled() {
                break;
            }
            let (len, threads) = match m {
                GupsMode::Single => (plan.local, 1),
                GupsMode::Star => (plan.local, plan.threads),
                GupsMode::Shared => (plan.global, plan.threads),
            };
            let mut r = BenchResult::new(HPCC_RANDOM_ACCESS);
            r.set_param(param::N, len);
            r.set_param(param::TABLE_BYTES, 8 * len);
            r.set_param(param::UPDATES, 4 * len);
            r.set_param(param::THREADS, threads);
            r.set_param(param::SIZED_BY, &plan.sized_by);
            r.set_param(param::HUGEPAGES, hugepages_param(c.hugepages));
            let out = match m {
                GupsMode::Shared => shared_table(len, threads, c.hugepages),
                _ => own_tables(len, threads, c.hugepages),
            }?;
            r.metrics.push(
                Metric::new(
                    metric::UPDATES,
                    out.rate,
                    Unit::OpsPerSecond,
                    Better::Higher,
                )
                .label(label::MODE, m.as_str()),
            );
            r.metrics.push(
                Metric::new(
                    metric::ERRORS,
                    out.errors as f64,
                    Unit::Count,
                    Better::Lower,
                )
                .label(label::MODE, m.as_str()),
            );
            if !passes(out.errors, out.entries as usize) {
                r.mark_failed(format!(
                    "verification failed: {} of {} entries wrong ({:.3} %), HPCC accepts under 1 %",
                    out.errors,
                    out.entries,
                    100.0 * out.errors as f64 / out.entries as f64
                ));
            }
            if out.seconds < 0.01 {
                r.warnings.push(format!(
                    "the updates took {:.1} ms: too short a table to time well",
                    out.seconds * 1e3
                ));
            }
            ctx.progress.advance(1);
            if !ctx.record(r)? {
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

    #[test]
    fn hpccs_size_rule() {
        let c = GupsConfig::default();
        // Half of 256 MB over 2 cores: 64 MB each, whose largest power of
        // two of words is 2^22 (HPCC's RandomAccess_N on 2 processes of
        // HPL N = 4000, 64 MB each).
        let p = c.plan(Some(2 * 4000 * 4000 * 8), 2).unwrap();
        assert_eq!(p.local, 1 << 22);
        assert_eq!(p.global, 1 << 23);
        assert_eq!(c.peak_bytes(&p), 64 << 20);
        assert_eq!(pow2_floor(1023.9), 512);
        assert_eq!(pow2_floor(1024.0), 1024);
        let given = GupsConfig {
            table_size: Some(1 << 20),
            ..GupsConfig::default()
        };
        assert_eq!(given.plan(None, 8).unwrap().local, 1 << 20);
        assert!(matches!(c.plan(None, 8), Err(BenchError::System(_))));
    }

    #[test]
    fn bad_flags_are_refused_with_the_flag_named() {
        let bad = |c: GupsConfig| c.validate().unwrap_err().to_string();
        let d = GupsConfig::default;
        assert!(
            bad(GupsConfig {
                table_size: Some(1000),
                ..d()
            })
            .starts_with("--table-size: expected a power of two")
        );
        assert!(
            bad(GupsConfig {
                memory_fraction: 1.5,
                ..d()
            })
            .starts_with("--memory-fraction:")
        );
        assert!(
            bad(GupsConfig {
                modes: vec![],
                ..d()
            })
            .starts_with("--modes:")
        );
    }

    #[test]
    fn every_mode_runs_and_verifies() {
        // The shared table loses updates where two threads hit one entry at
        // once: fewer the larger the table (2^12 entries lost 52 here, over
        // HPCC's 1 %; 2^16 a handful).
        for (threads, f) in [
            (1, own_tables as fn(u64, usize, bool) -> _),
            (2, shared_table),
        ] {
            let out = f(1 << 16, threads, false).unwrap();
            assert_eq!(out.entries, 1 << 16);
            assert!(passes(out.errors, 1 << 16), "{} errors", out.errors);
            assert!(out.rate > 0.0 && out.seconds > 0.0);
        }
        let star = own_tables(1 << 12, 2, false).unwrap();
        assert_eq!((star.errors, star.entries), (0, 2 << 12));
    }
}
