//! `nodebench memory latency`: dependent loads chasing pointers through a
//! random cyclic permutation of cache lines, for working sets from 4 KiB to
//! beyond the last-level cache. Each load's address depends on the previous
//! load, so the time per load is the load-to-use latency of whichever level
//! holds the working set; the random order defeats the prefetchers. Each
//! point is labelled L1/L2/L3/DRAM from the inventory's cache sizes.

use std::hint::black_box;
use std::time::{Duration, Instant};

use nodebench_core::bench::{BenchError, Benchmark, Context};
use nodebench_core::buffer::{Buffer, check_fits};
use nodebench_core::config::Config;
use nodebench_core::inventory::Inventory;
use nodebench_core::names::memory::{self as names, label, level, metric, param};
use nodebench_core::rng::XorShift64;
use nodebench_core::{BenchResult, Better, Metric, Unit, affinity};

use crate::config::hugepages_param;

/// Bytes per cache line assumed when the inventory does not say.
const DEFAULT_LINE: usize = 64;

/// Everything `memory latency` runs with.
#[derive(Debug, Clone)]
pub struct LatencyConfig {
    /// Smallest working set.
    pub min_size: u64,
    /// Largest working set; `None` for 4x the last-level cache (at least 64 MiB).
    pub max_size: Option<u64>,
    /// Explicit working sets (overrides min/max).
    pub sizes: Option<Vec<u64>>,
    /// Target time per point.
    pub duration: Duration,
    /// Ask for transparent huge pages (fewer TLB misses in the DRAM points).
    pub hugepages: bool,
}

impl Default for LatencyConfig {
    /// Working sets from 4 KiB to 4x the last-level cache, 100 ms a point,
    /// transparent huge pages.
    fn default() -> Self {
        LatencyConfig {
            min_size: 4096,
            max_size: None,
            sizes: None,
            duration: Duration::from_millis(100),
            hugepages: true,
        }
    }
}

impl Config for LatencyConfig {
    /// The working sets' floor of two cache lines depends on the machine's
    /// line size: [`Latency::run`] checks it.
    fn validate(&self) -> Result<(), BenchError> {
        if let Some(max) = self.max_size
            && max < self.min_size
        {
            return Err(BenchError::Invalid(format!(
                "--min-size/--max-size: expected min <= max, got {} > {max}",
                self.min_size
            )));
        }
        if self.sizes.as_ref().is_some_and(|s| s.is_empty()) {
            return Err(BenchError::Invalid(
                "--min-size/--max-size: expected at least one working set".into(),
            ));
        }
        // Two lines of the smallest cache line there is; the machine's own
        // line size (larger on some) is checked again when it runs.
        let floor = 2 * DEFAULT_LINE as u64;
        let smallest = match &self.sizes {
            Some(s) => s.iter().copied().min().unwrap_or(floor),
            None => self.min_size,
        };
        if smallest < floor {
            return Err(BenchError::Invalid(format!(
                "--min-size: expected a working set of at least two cache lines ({floor} B, e.g. 4k), got {smallest} B"
            )));
        }
        Ok(())
    }
}

/// The `memory.latency` benchmark: one result holding a point per working set.
#[derive(Debug, Clone)]
pub struct Latency {
    /// Its configuration.
    pub config: LatencyConfig,
}

/// The cache level a working set of `bytes` fits in, from the per-core sizes
/// of the inventory; `unknown` when the sizes are not known.
pub fn level_for(bytes: u64, inv: &Inventory) -> &'static str {
    let levels = [(1, level::L1), (2, level::L2), (3, level::L3)];
    let mut any = false;
    for (index, name) in levels {
        if let Some(size) = inv.cache_bytes(index) {
            any = true;
            if bytes <= size {
                return name;
            }
        }
    }
    if any { level::DRAM } else { level::UNKNOWN }
}

/// Working sets from `min` doubling up to and including `max`, with a point
/// at 1.5x between each pair.
pub fn sweep(min: u64, max: u64) -> Vec<u64> {
    let mut out = Vec::new();
    let mut s = min.max(1);
    while s <= max {
        out.push(s);
        let mid = s + s / 2;
        if mid > s && mid < max {
            out.push(mid);
        }
        s *= 2;
    }
    if out.last() != Some(&max) && max > min {
        out.push(max);
    }
    out
}

/// Links the `lines` cache lines of `buf` into one random cycle (Sattolo's
/// algorithm), each line's first word holding the address of the next.
pub(crate) fn build_chain(buf: &Buffer<usize>, line_words: usize, lines: usize, seed: u64) {
    let mut order: Vec<usize> = (0..lines).collect();
    let mut rng = XorShift64::new(seed);
    for i in (1..lines).rev() {
        // Sattolo: j < i, never i itself.
        order.swap(i, rng.below(i as u64) as usize);
    }
    let base = buf.as_ptr();
    for w in 0..lines {
        let from = order[w];
        let to = order[(w + 1) % lines];
        // SAFETY: both indexes are lines inside the buffer.
        unsafe { *base.add(from * line_words) = base.add(to * line_words) as usize };
    }
}

/// Loads of the warm-up walk over a set of `lines` lines of `line` bytes:
/// a full lap, or the last-level cache's lines when the set is larger than
/// that cache (a full lap when its size is unknown).
pub(crate) fn warmup_loads(lines: usize, line: usize, llc: Option<u64>) -> u64 {
    let cap = llc.map_or(u64::MAX, |b| b / line as u64);
    (lines as u64).min(cap)
}

/// Follows the chain `loads` times (rounded up to 16) from `start`; returns
/// where it stopped.
pub(crate) fn chase(start: *const usize, loads: u64) -> *const usize {
    let mut p = start;
    for _ in 0..loads.div_ceil(16) {
        for _ in 0..16 {
            // SAFETY: every link points at the first word of a line of the buffer.
            p = unsafe { *p } as *const usize;
        }
    }
    black_box(p)
}

/// The cache line the inventory names (CPU 0's first cache), else
/// [`DEFAULT_LINE`]: the unit the chase links.
pub(crate) fn line_bytes(inv: &Inventory) -> usize {
    inv.cpu
        .caches
        .first()
        .and_then(|c| c.line_size_bytes)
        .map_or(DEFAULT_LINE, |l| l as usize)
}

/// Seconds per load of a chase from `*p` lasting at least `duration`: the
/// number of loads grows until one timed walk lasts that long. `*p` is left
/// where the chase stopped.
pub(crate) fn timed_chase(p: &mut *const usize, duration: Duration) -> f64 {
    let mut loads: u64 = 1 << 16;
    loop {
        let t = Instant::now();
        *p = chase(*p, loads);
        let el = t.elapsed();
        if el >= duration || loads >= 1 << 36 {
            return el.as_secs_f64() / loads.div_ceil(16).saturating_mul(16) as f64;
        }
        let scale = duration.as_secs_f64() / el.as_secs_f64().max(1e-6);
        loads = ((loads as f64 * scale.clamp(2.0, 100.0)) as u64).max(loads * 2);
    }
}

/// The median of `windows` [`timed_chase`] windows sharing `duration`: a
/// window in which the chasing thread lost its CPU (a preemption, a host's
/// steal) does not move it, as it would move one long window's mean.
pub(crate) fn median_chase(p: &mut *const usize, duration: Duration, windows: u32) -> f64 {
    let windows = windows.max(1);
    let mut each: Vec<f64> = (0..windows)
        .map(|_| timed_chase(p, duration / windows))
        .collect();
    each.sort_by(f64::total_cmp);
    each[each.len() / 2]
}

impl Benchmark for Latency {
    fn id(&self) -> &'static str {
        names::LATENCY
    }

    fn validate(&self) -> Result<(), BenchError> {
        self.config.validate()
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        let c = &self.config;
        c.validate()?;
        let line = line_bytes(ctx.inventory);
        let max = c.max_size.unwrap_or_else(|| {
            ctx.inventory
                .last_level_cache_bytes()
                .map(|l| (4 * l).max(64 << 20))
                .unwrap_or(256 << 20)
        });
        let sizes = match &c.sizes {
            Some(s) => s.clone(),
            None => sweep(c.min_size, max),
        };
        if sizes.is_empty() || sizes.iter().any(|&s| s < line as u64 * 2) {
            return Err(BenchError::Invalid(format!(
                "--min-size/--max-size: working sets must be at least two cache lines ({} B) and min <= max",
                2 * line
            )));
        }
        let largest = sizes.iter().copied().max().unwrap_or(0);
        check_fits(largest, "--max-size")?;

        let mut result = BenchResult::new(self.id());
        result.set_param(param::LINE_BYTES, line);
        result.set_param(param::SIZES, &sizes);
        result.set_param(param::DURATION_S, c.duration.as_secs_f64());
        result.set_param(param::HUGEPAGES, hugepages_param(c.hugepages));
        result.set_param(
            param::METHOD,
            "dependent loads over a random cyclic permutation of cache lines (Sattolo)",
        );

        // One pinned thread does all the work, so every point sees the same core.
        let cpu = affinity::allowed_cpus()[0];
        let cancel = ctx.cancel.clone();
        let progress = ctx.progress;
        progress.start("memory latency", sizes.len() as u64);
        let inventory = ctx.inventory;
        let llc = inventory.last_level_cache_bytes();
        let outcome = std::thread::scope(|s| {
            s.spawn(|| -> Result<(Vec<Metric>, bool, Option<f64>), BenchError> {
                affinity::pin_current_thread(cpu);
                let clock = nodebench_machine::clock::measure_clock_hz(Duration::from_millis(50));
                let mut metrics = Vec::new();
                for (i, &size) in sizes.iter().enumerate() {
                    if cancel.is_cancelled() {
                        return Ok((metrics, true, clock));
                    }
                    let words = line / std::mem::size_of::<usize>();
                    let lines = (size as usize / line).max(2);
                    let buf: Buffer<usize> = Buffer::new(lines * words, c.hugepages, "--max-size")?;
                    build_chain(&buf, words, lines, 0x9E37_79B9 + i as u64);
                    // The walk goes on along the chain from pass to pass, so
                    // a pass never re-walks lines the one before just
                    // cached. Warm-up: a full lap brings the set into its
                    // level; a set larger than the last-level cache is
                    // walked for that cache's lines instead, which leaves
                    // the caches as the walk keeps them (a full lap of a
                    // 1 GiB set takes seconds and changes nothing more).
                    let mut p = buf.as_ptr() as *const usize;
                    p = chase(p, warmup_loads(lines, line, llc));
                    let per_load = timed_chase(&mut p, c.duration);
                    let cache_level = level_for(size, inventory);
                    let labelled = |m: Metric| {
                        m.label(label::WORKING_SET, size)
                            .label(label::LEVEL, cache_level)
                    };
                    metrics.push(labelled(Metric::new(
                        metric::LATENCY,
                        per_load,
                        Unit::Seconds,
                        Better::Lower,
                    )));
                    if let Some(hz) = clock {
                        metrics.push(labelled(Metric::new(
                            metric::LATENCY_CYCLES,
                            per_load * hz,
                            Unit::Cycles,
                            Better::Lower,
                        )));
                    }
                    progress.advance(1);
                }
                Ok((metrics, false, clock))
            })
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p))
        });
        let (metrics, interrupted, clock) = outcome?;
        result.set_param(
            param::CLOCK,
            match clock {
                Some(hz) => format!("{:.3} GHz measured on the pinned core", hz / 1e9),
                None => "unknown (cycles not reported)".into(),
            },
        );
        result.metrics = metrics;
        if interrupted {
            result.mark_cancelled();
        }
        progress.finish();
        ctx.record(result)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::bench::{Cancel, collect};

    #[test]
    fn sweep_doubles_with_midpoints() {
        assert_eq!(sweep(4096, 16384), vec![4096, 6144, 8192, 12288, 16384]);
        assert_eq!(sweep(4096, 10000), vec![4096, 6144, 8192, 10000]);
        assert_eq!(sweep(1, 4), vec![1, 2, 3, 4]);
    }

    #[test]
    fn crossed_or_empty_working_sets_are_refused() {
        let err = |config: LatencyConfig| Latency { config }.validate().unwrap_err().to_string();
        assert_eq!(
            err(LatencyConfig {
                min_size: 8192,
                max_size: Some(4096),
                ..LatencyConfig::default()
            }),
            "--min-size/--max-size: expected min <= max, got 8192 > 4096"
        );
        assert_eq!(
            err(LatencyConfig {
                sizes: Some(vec![]),
                ..LatencyConfig::default()
            }),
            "--min-size/--max-size: expected at least one working set"
        );
        assert!(LatencyConfig::default().validate().is_ok());
    }

    #[test]
    fn working_sets_under_two_lines_are_refused() {
        // Given as a list, or as the start of the sweep (not raised
        // quietly): refused by validate, before anything runs.
        let small_list = LatencyConfig {
            sizes: Some(vec![64]),
            ..LatencyConfig::default()
        };
        let small_min = LatencyConfig {
            min_size: 1,
            max_size: Some(4096),
            ..LatencyConfig::default()
        };
        for (config, got) in [(small_list, 64), (small_min, 1)] {
            let e = config.validate().unwrap_err().to_string();
            assert_eq!(
                e,
                format!(
                    "--min-size: expected a working set of at least two cache lines (128 B, e.g. 4k), got {got} B"
                )
            );
        }
        // On a machine with 256 B lines (A64FX), 256 B passes validate and
        // is refused when it runs.
        let mut inventory = Inventory::default();
        inventory
            .cpu
            .caches
            .push(nodebench_core::inventory::CacheInfo {
                level: 1,
                kind: "Data".into(),
                size_bytes: 64 << 10,
                instances: Some(1),
                line_size_bytes: Some(256),
            });
        let config = LatencyConfig {
            sizes: Some(vec![256]),
            ..LatencyConfig::default()
        };
        let e = collect(&Latency { config }, &inventory, Cancel::new())
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "--min-size/--max-size: working sets must be at least two cache lines (512 B) and min <= max"
        );
    }

    /// A chain over `lines` 64 B lines, and its first line (the buffer
    /// must outlive every walk of it).
    fn chain(lines: usize, seed: u64) -> (Buffer<usize>, *const usize) {
        let buf: Buffer<usize> = Buffer::new(lines * 8, false, "test").unwrap();
        build_chain(&buf, 8, lines, seed);
        let start = buf.as_ptr() as *const usize;
        (buf, start)
    }

    #[test]
    fn the_chain_is_one_cycle_through_every_line() {
        let lines = 1000;
        let (_buf, start) = chain(lines, 42);
        let mut seen = std::collections::HashSet::new();
        let mut p = start;
        for _ in 0..lines {
            assert!(
                seen.insert(p as usize),
                "revisited a line before the cycle closed"
            );
            // SAFETY: links point into the buffer.
            p = unsafe { *p } as *const usize;
        }
        assert_eq!(p, start, "the chain closes after exactly `lines` steps");
    }

    #[test]
    fn passes_walk_on_along_the_chain() {
        let (_buf, start) = chain(48, 7);
        let after_16 = chase(start, 16);
        assert_ne!(after_16, start, "16 loads of a 48-line cycle end elsewhere");
        assert_ne!(chase(after_16, 16), after_16);
        assert_eq!(
            chase(chase(after_16, 16), 16),
            start,
            "48 loads close the cycle"
        );
    }

    #[test]
    fn warmup_is_a_lap_up_to_the_last_level_cache() {
        // 64 B lines, a 6400 B cache: at most 100 loads.
        assert_eq!(warmup_loads(80, 64, Some(6400)), 80);
        assert_eq!(warmup_loads(1_000_000, 64, Some(6400)), 100);
        assert_eq!(warmup_loads(1_000_000, 64, None), 1_000_000);
    }

    #[test]
    fn latency_grows_from_l1_to_l2_to_dram() {
        let mut inv = nodebench_machine::inventory::collect();
        // Under qemu-user the host's caches are seen through a translator:
        // the labels are still checked, the ordering of times is not, so a
        // small hierarchy stands in for the host's (whose last level may be
        // 480 MiB, four times which took qemu 43 s to chase here).
        let emulated = inv.cpu.emulation.is_some();
        if emulated {
            for c in &mut inv.cpu.caches {
                let cap: u64 = match c.level {
                    1 => 64 << 10,
                    2 => 1 << 20,
                    _ => 8 << 20,
                };
                c.size_bytes = c.size_bytes.min(cap);
            }
        }
        let (Some(l1), Some(l2), Some(llc)) = (
            inv.cache_bytes(1),
            inv.cache_bytes(2),
            inv.last_level_cache_bytes(),
        ) else {
            eprintln!("cache sizes unknown here; nothing to compare");
            return;
        };
        // Twice the last level: at least half the chase misses it.
        let dram = if emulated {
            2 * llc
        } else {
            (2 * llc).max(64 << 20)
        };
        let sizes = vec![l1 / 2, (l2 / 2).max(l1 * 4), dram];
        let out = collect(
            &Latency {
                config: LatencyConfig {
                    sizes: Some(sizes.clone()),
                    duration: Duration::from_millis(50),
                    ..LatencyConfig::default()
                },
            },
            &inv,
            Cancel::new(),
        )
        .unwrap();
        let lat: Vec<(&str, f64)> = out[0]
            .metrics_named(metric::LATENCY)
            .map(|m| (m.label_value(label::LEVEL).unwrap(), m.value))
            .collect();
        assert_eq!(lat.len(), 3);
        assert_eq!(lat[0].0, level::L1);
        assert_eq!(lat[1].0, level::L2);
        assert_eq!(lat[2].0, level::DRAM);
        if emulated {
            eprintln!("emulated: latency ordering not checked ({lat:?})");
            return;
        }
        assert!(
            lat[0].1 < lat[1].1,
            "L1 {:?} not below L2 {:?}",
            lat[0],
            lat[1]
        );
        assert!(
            lat[1].1 < lat[2].1,
            "L2 {:?} not below DRAM {:?}",
            lat[1],
            lat[2]
        );
        // Generous sanity bounds: L1 under 10 ns, DRAM over 20 ns.
        assert!(lat[0].1 < 10e-9 && lat[2].1 > 20e-9, "{lat:?}");
    }
}
