//! `nodebench memory loaded-latency`: Intel MLC's `--loaded_latency` and
//! `--peak_injection_bandwidth`. One CPU chases pointers through a random
//! cycle of cache lines (the latency) while every other usable CPU walks
//! its own buffer reading and writing whole lines in the chosen mix, pausing
//! `delay` spin iterations after each group of lines (the injection
//! delay). Sweeping the delay from long to none traces latency against
//! bandwidth: flat while the memory system has headroom, then rising at the
//! knee. Before the sweep, each mix runs on every usable CPU at delay 0:
//! the peak injection bandwidth.
//!
//! Bytes are counted as MLC counts them: 64 bytes per line read and per line
//! written (the read-for-ownership of an ordinary store is not added).

use std::hint::black_box;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use nodebench_core::bench::{BenchError, Benchmark, Context};
use nodebench_core::buffer::{Buffer, check_fits};
use nodebench_core::config::Config;
use nodebench_core::names::memory::{self as names, IDLE, label, metric, mix, param};
use nodebench_core::team::SpinBarrier;
use nodebench_core::{BenchResult, Better, Metric, Unit, affinity, cpulist};

use crate::config::{check_buffer, check_point_duration, default_traffic_bytes, hugepages_param};
use crate::latency::{build_chain, chase, median_chase, warmup_loads};

/// Injection delays swept, longest first (spin iterations per group).
pub const DEFAULT_DELAYS: [u64; 10] = [20000, 5000, 2000, 1000, 500, 200, 100, 50, 10, 0];
/// Chase windows per point; the point's latency is their median.
const WINDOWS: u32 = 9;
/// Bytes of a cache line as the traffic counts it.
const LINE: usize = 64;
/// u64 words per line.
const LINE_WORDS: usize = LINE / 8;

/// Everything `memory loaded-latency` runs with.
#[derive(Debug, Clone)]
pub struct LoadedConfig {
    /// The sweep's traffic mix (a [`mix`] name).
    pub mix: &'static str,
    /// Injection delays, spin iterations.
    pub delays: Vec<u64>,
    /// Time per point.
    pub duration: Duration,
    /// Bytes of the chase buffer.
    pub chase_bytes: u64,
    /// Bytes all traffic threads walk, split between them; `None` for 4x
    /// the last-level cache, at least 256 MiB.
    pub traffic_bytes: Option<u64>,
    /// Measure every mix's peak injection bandwidth first.
    pub peak: bool,
    /// Transparent huge pages for the buffers.
    pub hugepages: bool,
}

impl Default for LoadedConfig {
    /// All reads, the ten default delays, 200 ms a point, a 256 MiB chase,
    /// peak injection bandwidth of every mix, huge pages.
    fn default() -> Self {
        LoadedConfig {
            mix: mix::READS,
            delays: DEFAULT_DELAYS.to_vec(),
            duration: Duration::from_millis(200),
            chase_bytes: 256 << 20,
            traffic_bytes: None,
            peak: true,
            hugepages: true,
        }
    }
}

impl Config for LoadedConfig {
    fn validate(&self) -> Result<(), BenchError> {
        if !mix::ALL.contains(&self.mix) {
            return Err(BenchError::Invalid(format!(
                "--mix: expected one of {}, got {}",
                mix::ALL.join(", "),
                self.mix
            )));
        }
        if self.mix == mix::NT_WRITES && !cfg!(target_arch = "x86_64") {
            return Err(BenchError::Invalid(
                "--mix nt_writes: non-temporal stores are x86-64 only; expected reads, 3:1, 2:1 or 1:1".into(),
            ));
        }
        if self.delays.is_empty() {
            return Err(BenchError::Invalid(
                "--delays: expected a list of spin counts like 5000,500,50,0".into(),
            ));
        }
        check_buffer("--chase-size", self.chase_bytes, "256m")?;
        if let Some(b) = self.traffic_bytes {
            check_buffer("--traffic-size", b, "1g")?;
        }
        check_point_duration(self.duration, "point")?;
        Ok(())
    }
}

/// The loaded-latency benchmark.
#[derive(Debug, Clone, Default)]
pub struct LoadedLatency {
    pub config: LoadedConfig,
}

/// Lines read and written per group of a mix: (reads, writes, non-temporal).
fn pattern(m: &str) -> (usize, usize, bool) {
    match m {
        mix::R3W1 => (3, 1, false),
        mix::R2W1 => (2, 1, false),
        mix::R1W1 => (1, 1, false),
        mix::NT_WRITES => (0, 1, true),
        _ => (1, 0, false),
    }
}

/// Writes one line with non-temporal stores where the CPU has them.
#[inline(always)]
fn store_line(line: &mut [u64], value: u64, nontemporal: bool) {
    #[cfg(target_arch = "x86_64")]
    if nontemporal {
        for w in line.iter_mut() {
            // SAFETY: SSE2 is part of x86-64; `w` is a valid, aligned u64.
            unsafe { std::arch::x86_64::_mm_stream_si64(w as *mut u64 as *mut i64, value as i64) };
        }
        return;
    }
    let _ = nontemporal;
    for w in line.iter_mut() {
        *w = value;
    }
}

/// Walks `part` in groups of the mix's lines, spinning `delay` after each
/// group, until `stop`; returns the bytes moved.
fn walk(part: &mut [u64], m: &str, delay: u64, stop: &AtomicBool) -> u64 {
    let (reads, writes, nt) = pattern(m);
    let group = reads + writes;
    let lines = part.len() / LINE_WORDS;
    let mut at = 0usize;
    let mut groups = 0u64;
    let mut sink = 0u64;
    // Batches of groups between looks at the flag; at least one.
    loop {
        for _ in 0..64 {
            for k in 0..group {
                if at + 1 > lines {
                    at = 0;
                }
                let line = &mut part[at * LINE_WORDS..(at + 1) * LINE_WORDS];
                if k < reads {
                    sink = sink.wrapping_add(line.iter().fold(0, |a, b| a ^ b));
                } else {
                    store_line(line, groups, nt);
                }
                at += 1;
            }
            groups += 1;
            let mut spin = 0u64;
            for i in 0..delay {
                spin = black_box(spin.wrapping_add(i));
            }
        }
        if stop.load(Ordering::Relaxed) {
            break;
        }
    }
    #[cfg(target_arch = "x86_64")]
    if nt {
        // SAFETY: a store fence; always available on x86-64.
        unsafe { std::arch::x86_64::_mm_sfence() };
    }
    black_box(sink);
    groups * (group * LINE) as u64
}

/// One point: the chase latency (if `chase` holds the chase CPU) and the
/// traffic bandwidth over `duration`.
struct Point {
    latency: Option<f64>,
    bandwidth: f64,
}

/// Runs traffic of mix `m` at `delay` on each (CPU, part) of `traffic`
/// (part `i` is words `i * per..(i + 1) * per` of `buf`, first touched by
/// that CPU), and the chase on the CPU and chain of `chase_on` when given,
/// for `duration`.
fn point(
    chase_on: Option<(usize, &Buffer<usize>)>,
    traffic: &[(usize, usize)],
    (buf, per): (&Buffer<u64>, usize),
    m: &str,
    delay: u64,
    duration: Duration,
) -> Point {
    let stop = AtomicBool::new(false);
    let barrier = SpinBarrier::new(traffic.len() + 1);
    let moved = AtomicU64::new(0);
    let span = Mutex::new(Duration::ZERO);
    let latency = std::thread::scope(|s| {
        for &(cpu, t) in traffic {
            let (stop, barrier, moved) = (&stop, &barrier, &moved);
            s.spawn(move || {
                affinity::pin_current_thread(cpu);
                // SAFETY: each thread owns its part, written at set-up.
                let part = unsafe { buf.part(t * per..(t + 1) * per) };
                barrier.wait();
                moved.fetch_add(walk(part, m, delay, stop), Ordering::Relaxed);
            });
        }
        let (stop, barrier, span) = (&stop, &barrier, &span);
        s.spawn(move || {
            if let Some((cpu, _)) = chase_on {
                affinity::pin_current_thread(cpu);
            }
            barrier.wait();
            let t0 = Instant::now();
            let latency = match chase_on {
                Some((_, chain)) => {
                    let mut p = chain.as_ptr() as *const usize;
                    // Traffic settles for a tenth of the point first.
                    std::thread::sleep(duration / 10);
                    Some(median_chase(&mut p, duration, WINDOWS))
                }
                None => {
                    std::thread::sleep(duration);
                    None
                }
            };
            stop.store(true, Ordering::Relaxed);
            *span.lock().unwrap() = t0.elapsed();
            latency
        })
        .join()
        .unwrap_or_else(|p| std::panic::resume_unwind(p))
    });
    let secs = span.into_inner().unwrap().as_secs_f64().max(1e-9);
    Point {
        latency,
        bandwidth: moved.load(Ordering::Relaxed) as f64 / secs,
    }
}

/// The knee of a curve of (bandwidth, latency) points: the first point, by
/// bandwidth, whose latency is at least twice the idle latency.
pub fn knee(idle: f64, points: &[(f64, f64)]) -> Option<(f64, f64)> {
    let mut sorted = points.to_vec();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    sorted.into_iter().find(|&(_, lat)| lat >= 2.0 * idle)
}

impl Benchmark for LoadedLatency {
    fn id(&self) -> &'static str {
        names::LOADED_LATENCY
    }

    fn validate(&self) -> Result<(), BenchError> {
        self.config.validate()
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        let c = &self.config;
        c.validate()?;
        let allowed = affinity::allowed_cpus();
        if allowed.len() < 2 {
            return Err(BenchError::Invalid(format!(
                "memory loaded-latency: needs at least 2 usable CPUs (one chases, the others load), this process may use {}",
                allowed.len()
            )));
        }
        let inv = ctx.inventory;
        let llc = inv.last_level_cache_bytes();
        let traffic_bytes = c
            .traffic_bytes
            .unwrap_or_else(|| default_traffic_bytes(llc));
        check_fits(traffic_bytes + c.chase_bytes, "--traffic-size")?;
        let chase_cpu = allowed[0];
        let traffic_cpus = &allowed[1..];
        let mut result = BenchResult::new(self.id());
        result.set_param(param::CHASE_CPU, chase_cpu);
        let listed: Vec<u32> = traffic_cpus.iter().map(|&c| c as u32).collect();
        result.set_param(param::TRAFFIC_CPUS, cpulist::format(&listed));
        result.set_param(param::DELAYS, &c.delays);
        result.set_param(param::DURATION_S, c.duration.as_secs_f64());
        result.set_param(param::CHASE_BYTES, c.chase_bytes);
        result.set_param(param::TRAFFIC_BYTES, traffic_bytes);
        result.set_param(param::HUGEPAGES, hugepages_param(c.hugepages));
        result.set_param(
            param::METHOD,
            "a dependent chase over a random cycle of cache lines on the first usable CPU (the median of 9 windows per point) while the others read/write whole lines of their own buffers, spinning `delay` iterations after each group; bytes counted as lines read plus lines written",
        );
        result.set_param(
            param::PLACEMENT,
            "first touch: each buffer on the node of the thread that uses it",
        );
        let mixes: Vec<&str> = if c.peak {
            mix::ALL
                .iter()
                .copied()
                .filter(|m| *m != mix::NT_WRITES || cfg!(target_arch = "x86_64"))
                .collect()
        } else {
            Vec::new()
        };
        ctx.progress.start(
            "memory loaded-latency",
            (mixes.len() + c.delays.len() + 1) as u64,
        );
        let hugepages = c.hugepages;
        // Traffic buffers, each part first touched by the thread that uses it.
        let per =
            (traffic_bytes as usize / 8 / allowed.len() / LINE_WORDS * LINE_WORDS).max(LINE_WORDS);
        let buf: Buffer<u64> = Buffer::new(per * allowed.len(), hugepages, "--traffic-size")?;
        std::thread::scope(|s| {
            for (t, &cpu) in allowed.iter().enumerate() {
                let buf = &buf;
                s.spawn(move || {
                    affinity::pin_current_thread(cpu);
                    // SAFETY: disjoint parts, one per thread.
                    let part = unsafe { buf.part(t * per..(t + 1) * per) };
                    part.iter_mut().enumerate().for_each(|(i, w)| *w = i as u64);
                });
            }
        });
        let mut interrupted = false;
        for &m in &mixes {
            if ctx.cancel.is_cancelled() {
                interrupted = true;
                break;
            }
            let all: Vec<(usize, usize)> = allowed.iter().copied().zip(0..).collect();
            let p = point(None, &all, (&buf, per), m, 0, c.duration);
            result.metrics.push(
                Metric::new(
                    metric::INJECTION_BANDWIDTH,
                    p.bandwidth,
                    Unit::BytesPerSecond,
                    Better::Higher,
                )
                .label(label::MIX, m),
            );
            ctx.progress.advance(1);
        }
        // The chase buffer, touched by the chase CPU.
        let line = LINE;
        let words = line / std::mem::size_of::<usize>();
        let lines = c.chase_bytes as usize / line;
        let chain = std::thread::scope(|s| {
            s.spawn(|| -> Result<Buffer<usize>, BenchError> {
                affinity::pin_current_thread(chase_cpu);
                let chain: Buffer<usize> = Buffer::new(lines * words, hugepages, "--chase-size")?;
                build_chain(&chain, words, lines, 0x10AD);
                chase(
                    chain.as_ptr() as *const usize,
                    warmup_loads(lines, line, llc),
                );
                Ok(chain)
            })
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p))
        })?;
        // Every CPU but the chase's, each on the part it first touched.
        let loaders: Vec<(usize, usize)> = allowed.iter().copied().zip(0..).skip(1).collect();
        let mut curve: Vec<(f64, f64)> = Vec::new();
        let mut idle = None;
        // The idle point (no traffic), then each delay.
        let points = std::iter::once(None).chain(c.delays.iter().copied().map(Some));
        for delay in points {
            if interrupted || ctx.cancel.is_cancelled() {
                interrupted = true;
                break;
            }
            let traffic: &[(usize, usize)] = if delay.is_some() { &loaders } else { &[] };
            let p = point(
                Some((chase_cpu, &chain)),
                traffic,
                (&buf, per),
                c.mix,
                delay.unwrap_or(0),
                c.duration,
            );
            // A point with a chase always has its latency.
            let lat = p.latency.unwrap_or_default();
            let shown = delay.map_or(IDLE.to_string(), |d| d.to_string());
            match delay {
                None => idle = Some(lat),
                Some(_) => curve.push((p.bandwidth, lat)),
            }
            let labelled = |m: Metric| m.label(label::MIX, c.mix).label(label::DELAY, &shown);
            result.metrics.push(labelled(Metric::new(
                metric::LATENCY,
                lat,
                Unit::Seconds,
                Better::Lower,
            )));
            result.metrics.push(labelled(Metric::new(
                metric::BANDWIDTH,
                p.bandwidth,
                Unit::BytesPerSecond,
                Better::Higher,
            )));
            ctx.progress.advance(1);
        }
        ctx.progress.finish();
        if let Some(idle) = idle
            && !curve.is_empty()
        {
            match knee(idle, &curve) {
                Some((bw, lat)) => {
                    let labelled = |m: Metric| m.label(label::MIX, c.mix);
                    result.metrics.push(labelled(Metric::new(metric::KNEE_BANDWIDTH, bw, Unit::BytesPerSecond, Better::Higher)));
                    result.metrics.push(labelled(Metric::new(metric::KNEE_LATENCY, lat, Unit::Seconds, Better::Lower)));
                }
                None => result.set_param(
                    param::NOTE,
                    "no knee: latency stayed under twice the idle latency at every measured bandwidth",
                ),
            }
        }
        if interrupted {
            result.mark_cancelled();
        }
        ctx.record(result)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::bench::{Cancel, collect};

    #[test]
    fn the_knee_is_the_first_point_at_twice_idle() {
        let curve = [
            (30e9, 250e-9),
            (10e9, 95e-9),
            (20e9, 120e-9),
            (25e9, 180e-9),
        ];
        assert_eq!(knee(100e-9, &curve), Some((30e9, 250e-9)));
        assert_eq!(knee(90e-9, &curve), Some((25e9, 180e-9)));
        assert_eq!(knee(60e-9, &curve), Some((20e9, 120e-9)));
        assert_eq!(knee(200e-9, &curve), None);
    }

    #[test]
    fn mixes_read_and_write_their_ratio() {
        assert_eq!(pattern(mix::READS), (1, 0, false));
        assert_eq!(pattern(mix::R3W1), (3, 1, false));
        assert_eq!(pattern(mix::R2W1), (2, 1, false));
        assert_eq!(pattern(mix::R1W1), (1, 1, false));
        assert_eq!(pattern(mix::NT_WRITES), (0, 1, true));
        // Traffic stops when told and counts whole lines.
        let mut part = vec![0u64; 1024 * LINE_WORDS];
        let stop = AtomicBool::new(true);
        let bytes = walk(&mut part, mix::R1W1, 0, &stop);
        assert_eq!(bytes, 64 * 2 * LINE as u64, "one batch of 64 groups");
        let written = part
            .chunks(LINE_WORDS)
            .filter(|l| l.iter().all(|w| *w != 0))
            .count();
        assert_eq!(
            written, 63,
            "every second line written (group 0 writes zeros)"
        );
    }

    #[test]
    fn bad_configs_name_their_flag() {
        let err =
            |config: LoadedConfig| LoadedLatency { config }.validate().unwrap_err().to_string();
        assert_eq!(
            err(LoadedConfig {
                mix: "4:1",
                ..Default::default()
            }),
            "--mix: expected one of reads, 3:1, 2:1, 1:1, nt_writes, got 4:1"
        );
        assert_eq!(
            err(LoadedConfig {
                delays: vec![],
                ..Default::default()
            }),
            "--delays: expected a list of spin counts like 5000,500,50,0"
        );
        assert_eq!(
            err(LoadedConfig {
                chase_bytes: 1 << 20,
                ..Default::default()
            }),
            "--chase-size: expected at least 4 MiB (e.g. 256m), got 1048576 B"
        );
    }

    #[test]
    fn a_short_sweep_gives_every_point_and_peak() {
        if affinity::allowed_cpus().len() < 2 {
            return;
        }
        let inv = nodebench_machine::inventory::collect();
        let config = LoadedConfig {
            delays: vec![1000, 0],
            duration: Duration::from_millis(20),
            chase_bytes: 16 << 20,
            traffic_bytes: Some(16 << 20),
            hugepages: false,
            ..Default::default()
        };
        let r = &collect(&LoadedLatency { config }, &inv, Cancel::new()).unwrap()[0];
        let of = |name: &str| r.metrics.iter().filter(|m| m.name == name).count();
        let mixes = if cfg!(target_arch = "x86_64") { 5 } else { 4 };
        assert_eq!(of(metric::INJECTION_BANDWIDTH), mixes);
        assert_eq!(of(metric::LATENCY), 3, "idle and two delays");
        assert_eq!(of(metric::BANDWIDTH), 3);
        for m in &r.metrics {
            assert!(m.value >= 0.0 && m.value.is_finite(), "{m:?}");
        }
    }
}
