//! `nodebench memory stream`: McCalpin's STREAM (Copy, Scale, Add, Triad)
//! under its run rules.
//!
//! * Three arrays of `array_size` doubles; by default each is at least 4x the
//!   sum of the last-level caches (and at least STREAM's 10 million elements).
//! * The team's threads are pinned and initialise the parts they later use
//!   (first touch); thread 0 times each kernel between two barriers.
//! * `ntimes` iterations; the first is dropped; best rate = bytes / min time,
//!   with avg/min/max time per kernel. Bytes as STREAM counts them: 16, 16,
//!   24, 24 per element (reads + writes, no write-allocate traffic); MB/s in
//!   tables means 10^6 B/s.
//! * Validation replays the recurrence on scalars and fails the result when
//!   the average relative error of any array exceeds 1e-13.
//! * A second pass uses non-temporal (streaming) stores, labelled
//!   `stores=nontemporal`: ordinary stores first read each destination line
//!   into the cache (write-allocate), so real traffic for Copy is 24 B per
//!   element, not the 16 STREAM counts; streaming stores skip that read.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

use nodebench_core::bench::{BenchError, Benchmark, Context};
use nodebench_core::buffer::{Buffer, check_fits, split};
use nodebench_core::config::{Choice, Config};
use nodebench_core::names::labels;
use nodebench_core::names::memory::{self as names, kernel, label, metric, param, stores};
use nodebench_core::stats::Stats;
use nodebench_core::team::{self, SpinBarrier};
use nodebench_core::{BenchResult, Better, Metric, Reference, ResultStatus, Unit, affinity};

use nodebench_machine::inventory::dmi;

use crate::config::{check_threads, hugepages_param};
use crate::stream_numa::{StreamNuma, Team, plan};
use nodebench_core::numa;

/// STREAM's scalar.
const SCALAR: f64 = 3.0;
/// STREAM's validation threshold for doubles.
pub const EPSILON: f64 = 1e-13;
/// STREAM's default (and our minimum default) array size, in elements.
pub const MIN_DEFAULT_ELEMENTS: usize = 10_000_000;
/// Fewest iterations: STREAM drops the first.
pub const MIN_NTIMES: usize = 2;

nodebench_core::choice! {
    /// One of the four STREAM kernels.
    pub enum StreamKernel {
        /// c = a
        Copy => kernel::COPY,
        /// b = scalar * c
        Scale => kernel::SCALE,
        /// c = a + b
        Add => kernel::ADD,
        /// a = b + scalar * c
        Triad => kernel::TRIAD,
    }
}

impl StreamKernel {
    /// Bytes moved per element, as STREAM counts them.
    pub fn bytes_per_element(self) -> usize {
        match self {
            StreamKernel::Copy | StreamKernel::Scale => 16,
            StreamKernel::Add | StreamKernel::Triad => 24,
        }
    }
}

nodebench_core::choice! {
    /// How a STREAM pass stores its results.
    pub enum Stores {
        /// Ordinary stores: the CPU reads each destination line before writing
        /// it (write-allocate), traffic STREAM does not count.
        Normal => stores::NORMAL,
        /// Non-temporal (streaming) stores, which skip that read (x86-64 only).
        Nontemporal => stores::NONTEMPORAL,
    }
}

/// A deliberate corruption, to prove that validation catches wrong results:
/// element `index` of the array kernel `after` just wrote (and the next
/// kernel reads) is doubled in iteration `iteration`. Test builds only.
#[cfg(test)]
#[derive(Debug, Clone, Copy, PartialEq)]
struct Corruption {
    /// Iteration (0-based) in which to corrupt.
    iteration: usize,
    /// Kernel after which to corrupt.
    after: StreamKernel,
    /// Element to double.
    index: usize,
}

/// Everything `memory stream` runs with.
#[derive(Debug, Clone)]
pub struct StreamConfig {
    /// Thread counts; one result per count.
    pub threads: Vec<usize>,
    /// Elements per array; `None` for the run-rule default.
    pub array_size: Option<usize>,
    /// Iterations (the first is dropped); at least 2.
    pub ntimes: usize,
    /// Also run the non-temporal-store pass.
    pub nontemporal: bool,
    /// Pin threads.
    pub pin: bool,
    /// Ask for transparent huge pages for the arrays (fewer TLB misses,
    /// which matter most under virtualisation's nested paging).
    pub hugepages: bool,
    /// Which CPUs run and where the arrays go on a NUMA machine.
    pub numa: StreamNuma,
}

impl Default for StreamConfig {
    /// STREAM's defaults: every allowed CPU (as an OpenMP build uses), the
    /// run-rule array size, `NTIMES` = 10; plus the non-temporal pass,
    /// pinned threads and transparent huge pages.
    fn default() -> Self {
        StreamConfig {
            threads: vec![nodebench_core::affinity::allowed_cpus().len()],
            array_size: None,
            ntimes: 10,
            nontemporal: true,
            pin: true,
            hugepages: true,
            numa: StreamNuma::Local,
        }
    }
}

impl Config for StreamConfig {
    /// An empty thread list means every CPU of the team (`--numa node:N`:
    /// that node's).
    fn validate(&self) -> Result<(), BenchError> {
        if !self.threads.is_empty() {
            check_threads(&self.threads)?;
        }
        if self.ntimes < MIN_NTIMES {
            return Err(BenchError::Invalid(
                "--ntimes: expected at least 2 (the first iteration is dropped)".into(),
            ));
        }
        if self.array_size == Some(0) {
            return Err(BenchError::Invalid(
                "--array-size: expected a positive number of elements".into(),
            ));
        }
        Ok(())
    }
}

/// The run-rule default array size: 4x the total last-level cache in
/// doubles, at least [`MIN_DEFAULT_ELEMENTS`].
pub fn default_array_size(llc_bytes: Option<u64>) -> usize {
    let four_llc = llc_bytes.map(|b| (4 * b).div_ceil(8) as usize).unwrap_or(0);
    four_llc.max(MIN_DEFAULT_ELEMENTS)
}

/// STREAM's own warning when an array of `array_bytes` is under 4x the
/// last-level caches (`llc_bytes`, all of them together): the caches, not
/// memory, serve part of every kernel, so the figures are not memory
/// bandwidth. None when the arrays follow the rule or the cache is unknown.
pub fn in_cache_warning(array_bytes: u64, llc_bytes: Option<u64>) -> Option<String> {
    let llc = llc_bytes.filter(|&b| b > 0)?;
    (array_bytes < 4 * llc).then(|| {
        format!(
            "STREAM's rule: each array must be at least 4x the last-level caches ({}); these arrays are {} each, so the caches serve part of every kernel and the figures are not memory bandwidth (use the default --array-size)",
            nodebench_core::units::format_bytes(4 * llc),
            nodebench_core::units::format_bytes(array_bytes)
        )
    })
}

/// The `memory.stream` benchmark.
#[derive(Debug, Clone)]
pub struct Stream {
    /// Its configuration.
    pub config: StreamConfig,
    /// Test builds only: an element to corrupt between kernels.
    #[cfg(test)]
    corrupt: Option<Corruption>,
}

impl Stream {
    /// The benchmark with `config`.
    pub fn new(config: StreamConfig) -> Stream {
        Stream {
            config,
            #[cfg(test)]
            corrupt: None,
        }
    }
}

/// Per-kernel times of one pass, iteration by iteration.
struct PassTimes {
    /// `times[kernel][iteration]` in seconds.
    times: [Vec<f64>; 4],
    /// Iterations completed (fewer than `ntimes` when cancelled).
    done: usize,
}

struct Arrays {
    a: Buffer<f64>,
    b: Buffer<f64>,
    c: Buffer<f64>,
}

impl Arrays {
    /// The array kernel `k` writes.
    #[cfg(test)]
    fn written_by(&self, k: StreamKernel) -> &Buffer<f64> {
        match k {
            StreamKernel::Copy | StreamKernel::Add => &self.c,
            StreamKernel::Scale => &self.b,
            StreamKernel::Triad => &self.a,
        }
    }
}

/// Runs one kernel over `range` with ordinary stores, compiled for AVX2 when
/// the CPU has it (as `gcc -march=native` would), else for the baseline.
///
/// # Safety
/// The caller's thread must own `range` of every array (no other slice of it live).
unsafe fn kernel_normal(k: StreamKernel, arr: &Arrays, range: std::ops::Range<usize>) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        #[target_feature(enable = "avx2")]
        unsafe fn avx2(k: StreamKernel, arr: &Arrays, range: std::ops::Range<usize>) {
            // SAFETY: forwarded from the caller.
            unsafe { kernel_normal_body(k, arr, range) }
        }
        // SAFETY: AVX2 detected; ownership forwarded from the caller.
        return unsafe { avx2(k, arr, range) };
    }
    // SAFETY: forwarded from the caller.
    unsafe { kernel_normal_body(k, arr, range) }
}

/// The loops of [`kernel_normal`], inlined into each instruction-set variant.
///
/// # Safety
/// As [`kernel_normal`].
#[inline(always)]
unsafe fn kernel_normal_body(k: StreamKernel, arr: &Arrays, range: std::ops::Range<usize>) {
    // SAFETY: the caller owns `range` in all three arrays.
    let (a, b, c) = unsafe {
        (
            arr.a.part(range.clone()),
            arr.b.part(range.clone()),
            arr.c.part(range),
        )
    };
    match k {
        StreamKernel::Copy => {
            for (c, a) in c.iter_mut().zip(a.iter()) {
                *c = *a;
            }
        }
        StreamKernel::Scale => {
            for (b, c) in b.iter_mut().zip(c.iter()) {
                *b = SCALAR * *c;
            }
        }
        StreamKernel::Add => {
            for ((c, a), b) in c.iter_mut().zip(a.iter()).zip(b.iter()) {
                *c = *a + *b;
            }
        }
        StreamKernel::Triad => {
            for ((a, b), c) in a.iter_mut().zip(b.iter()).zip(c.iter()) {
                *a = *b + SCALAR * *c;
            }
        }
    }
}

/// Runs one kernel over `range` with non-temporal stores (x86-64; elsewhere
/// ordinary stores, and the pass is not run).
///
/// # Safety
/// As [`kernel_normal`]; `range.start` must be a multiple of 2 elements on a
/// 16-byte-aligned array.
#[cfg(target_arch = "x86_64")]
unsafe fn kernel_nontemporal(k: StreamKernel, arr: &Arrays, range: std::ops::Range<usize>) {
    use std::arch::x86_64::*;
    // SAFETY: the caller owns `range`; SSE2 is baseline on x86-64; stores are
    // to 16-byte-aligned addresses (aligned array, even start, step 2).
    unsafe {
        let (a, b, c) = (
            arr.a.part(range.clone()),
            arr.b.part(range.clone()),
            arr.c.part(range),
        );
        let n = a.len();
        let even = n & !1;
        let s = _mm_set1_pd(SCALAR);
        let (pa, pb, pc) = (a.as_mut_ptr(), b.as_mut_ptr(), c.as_mut_ptr());
        let mut i = 0;
        match k {
            StreamKernel::Copy => {
                while i < even {
                    _mm_stream_pd(pc.add(i), _mm_loadu_pd(pa.add(i)));
                    i += 2;
                }
                if even < n {
                    *pc.add(even) = *pa.add(even);
                }
            }
            StreamKernel::Scale => {
                while i < even {
                    _mm_stream_pd(pb.add(i), _mm_mul_pd(s, _mm_loadu_pd(pc.add(i))));
                    i += 2;
                }
                if even < n {
                    *pb.add(even) = SCALAR * *pc.add(even);
                }
            }
            StreamKernel::Add => {
                while i < even {
                    _mm_stream_pd(
                        pc.add(i),
                        _mm_add_pd(_mm_loadu_pd(pa.add(i)), _mm_loadu_pd(pb.add(i))),
                    );
                    i += 2;
                }
                if even < n {
                    *pc.add(even) = *pa.add(even) + *pb.add(even);
                }
            }
            StreamKernel::Triad => {
                while i < even {
                    let v = _mm_add_pd(
                        _mm_loadu_pd(pb.add(i)),
                        _mm_mul_pd(s, _mm_loadu_pd(pc.add(i))),
                    );
                    _mm_stream_pd(pa.add(i), v);
                    i += 2;
                }
                if even < n {
                    *pa.add(even) = *pb.add(even) + SCALAR * *pc.add(even);
                }
            }
        }
        _mm_sfence();
    }
}

/// Initialises (first touch), then runs `ntimes` iterations of the four
/// kernels on `threads` pinned threads.
fn run_pass(
    arr: &Arrays,
    (threads, cpus): (usize, &[usize]),
    bench: &Stream,
    stores: Stores,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> PassTimes {
    let cfg = &bench.config;
    let nontemporal = stores == Stores::Nontemporal;
    let n = arr.a.len();
    let barrier = SpinBarrier::new(threads);
    let stop = AtomicBool::new(false);
    let clock = Instant::now();
    let (start_ns, end_ns) = (AtomicU64::new(0), AtomicU64::new(0));
    let mut results = team::run_on(cpus, threads, cfg.pin, |t| {
        // 8 doubles = one cache line per granule keeps parts line-aligned.
        let range = split(n, threads, t, 8);
        {
            // SAFETY: each thread owns its `range` exclusively.
            let (a, b, c) = unsafe {
                (
                    arr.a.part(range.clone()),
                    arr.b.part(range.clone()),
                    arr.c.part(range.clone()),
                )
            };
            a.fill(1.0);
            b.fill(2.0);
            c.fill(0.0);
            for x in a.iter_mut() {
                *x *= 2.0;
            }
        }
        let mut times: [Vec<f64>; 4] = Default::default();
        let mut done = 0;
        for _ in 0..cfg.ntimes {
            if t == 0 {
                stop.store(cancelled(), Ordering::SeqCst);
            }
            barrier.wait();
            if stop.load(Ordering::SeqCst) {
                break;
            }
            for (ki, &kernel) in StreamKernel::ALL.iter().enumerate() {
                // The last thread to arrive stamps the start just before it
                // releases the team, and the last to finish stamps the end:
                // no thread's scheduling delay shortens the measured time.
                barrier.wait_then(|| {
                    start_ns.store(clock.elapsed().as_nanos() as u64, Ordering::SeqCst)
                });
                #[cfg(target_arch = "x86_64")]
                if nontemporal {
                    // SAFETY: own range; starts are multiples of 8 elements of 2 MiB-aligned arrays.
                    unsafe { kernel_nontemporal(kernel, arr, range.clone()) }
                } else {
                    // SAFETY: own range.
                    unsafe { kernel_normal(kernel, arr, range.clone()) }
                }
                #[cfg(not(target_arch = "x86_64"))]
                {
                    let _ = nontemporal;
                    // SAFETY: own range.
                    unsafe { kernel_normal(kernel, arr, range.clone()) }
                }
                barrier.wait_then(|| {
                    end_ns.store(clock.elapsed().as_nanos() as u64, Ordering::SeqCst)
                });
                if t == 0 {
                    let ns = end_ns
                        .load(Ordering::SeqCst)
                        .saturating_sub(start_ns.load(Ordering::SeqCst));
                    times[ki].push(ns as f64 * 1e-9);
                    #[cfg(test)]
                    if let Some(f) = bench.corrupt
                        && f.iteration == done
                        && f.after == kernel
                        && f.index < n
                    {
                        // SAFETY: every other thread is waiting at the next
                        // barrier and holds no slice; index is in bounds.
                        unsafe { *arr.written_by(kernel).as_ptr().add(f.index) *= 2.0 };
                    }
                }
            }
            done += 1;
        }
        (times, done)
    });
    let (times, done) = results.swap_remove(0);
    PassTimes { times, done }
}

/// The sum of `|x - expected|` over `arr`: one part per CPU for arrays of
/// millions of elements, eight running sums per part (one per lane), so the
/// check of a 1 GiB array takes a fraction of a second rather than one add
/// latency per element on one core.
fn abs_error_sum(arr: &[f64], expected: f64) -> f64 {
    let part_sum = |part: &[f64]| {
        let mut lanes = [0.0f64; 8];
        let chunks = part.chunks_exact(8);
        let tail: f64 = chunks
            .remainder()
            .iter()
            .map(|x| (x - expected).abs())
            .sum();
        for chunk in chunks {
            for (lane, x) in lanes.iter_mut().zip(chunk) {
                *lane += (x - expected).abs();
            }
        }
        lanes.iter().sum::<f64>() + tail
    };
    let parts = affinity::allowed_cpus().len().min(arr.len() >> 20).max(1);
    if parts == 1 {
        return part_sum(arr);
    }
    team::run(parts, false, |t| {
        part_sum(&arr[split(arr.len(), parts, t, 8)])
    })
    .into_iter()
    .sum()
}

/// STREAM's check: the average absolute error of each array relative to the
/// value the recurrence gives after `iterations`; `Err` names the array.
pub fn validate(a: &[f64], b: &[f64], c: &[f64], iterations: usize) -> Result<(), BenchError> {
    let (mut aj, mut bj, mut cj) = (1.0f64, 2.0f64, 0.0f64);
    aj *= 2.0;
    for _ in 0..iterations {
        cj = aj;
        bj = SCALAR * cj;
        cj = aj + bj;
        aj = bj + SCALAR * cj;
    }
    for (name, arr, expected) in [("a", a, aj), ("b", b, bj), ("c", c, cj)] {
        let sum = abs_error_sum(arr, expected);
        let avg = sum / arr.len().max(1) as f64;
        let rel = (avg / expected).abs();
        if rel.is_nan() || rel > EPSILON {
            return Err(BenchError::System(format!(
                "validation failed: array {name}: average relative error {rel:e} exceeds {EPSILON:e} (expected {expected:e})"
            )));
        }
    }
    Ok(())
}

fn record_pass(
    result: &mut BenchResult,
    times: &PassTimes,
    n: usize,
    threads: usize,
    stores: Stores,
    reference: &Option<Reference>,
) {
    for (ki, &kernel) in StreamKernel::ALL.iter().enumerate() {
        // The first iteration is dropped, as STREAM does.
        let t: Vec<f64> = times.times[ki].iter().skip(1).copied().collect();
        let Some(ts) = Stats::from_samples(&t) else {
            continue;
        };
        let bytes = (kernel.bytes_per_element() * n) as f64;
        let rates: Vec<f64> = t.iter().map(|s| bytes / s).collect();
        let Some(rs) = Stats::from_samples(&rates) else {
            continue;
        };
        let labelled = |m: Metric| {
            m.label(labels::KERNEL, kernel.as_str())
                .label(label::STORES, stores.as_str())
                .label(labels::THREADS, threads)
        };
        result.metrics.push(
            labelled(Metric::new(
                metric::BANDWIDTH,
                bytes / ts.min,
                Unit::BytesPerSecond,
                Better::Higher,
            ))
            .with_stats(rs)
            .with_reference(reference.clone()),
        );
        result.metrics.push(labelled(Metric::new(
            metric::TIME_AVG,
            ts.mean,
            Unit::Seconds,
            Better::Lower,
        )));
        result.metrics.push(labelled(Metric::new(
            metric::TIME_MIN,
            ts.min,
            Unit::Seconds,
            Better::Lower,
        )));
        result.metrics.push(labelled(Metric::new(
            metric::TIME_MAX,
            ts.max,
            Unit::Seconds,
            Better::Lower,
        )));
    }
}

impl Benchmark for Stream {
    fn id(&self) -> &'static str {
        names::STREAM
    }

    /// The flags' check, then `--numa` against the machine's nodes: a node
    /// it does not have (or none listed for `interleave`) is the user's
    /// input, refused before anything runs.
    fn validate(&self) -> Result<(), BenchError> {
        self.config.validate()?;
        if let Some(n) = self.config.array_size {
            check_fits(3 * 8 * n as u64, "--array-size")?;
        }
        if !matches!(self.config.numa, StreamNuma::Local) {
            let roots = nodebench_machine::sysroot::Roots::from_env();
            let inventory = nodebench_core::inventory::Inventory {
                topology: nodebench_machine::inventory::topology::collect_topology(&roots),
                ..Default::default()
            };
            plan(
                &self.config.numa,
                &inventory,
                &affinity::allowed_cpus(),
                &|_| None,
            )?;
        }
        Ok(())
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        let c = &self.config;
        c.validate()?;
        let n = c
            .array_size
            .unwrap_or_else(|| default_array_size(ctx.inventory.last_level_cache_bytes()));
        check_fits(3 * 8 * n as u64, "--array-size")?;
        let peak = dmi::peak_dram_bandwidth();
        let reference = peak.as_ref().ok().map(|p| Reference {
            name: p.describe(),
            value: p.bytes_per_second,
        });
        let passes: &[Stores] = if c.nontemporal && cfg!(target_arch = "x86_64") {
            Stores::ALL
        } else {
            &[Stores::Normal]
        };
        let teams = plan(
            &c.numa,
            ctx.inventory,
            &affinity::allowed_cpus(),
            &nodebench_core::numa::refuses_binding,
        )?;
        let runs: Vec<(&Team, usize)> = teams
            .iter()
            .flat_map(|team| {
                let counts = if team.user_threads && !c.threads.is_empty() {
                    c.threads.clone()
                } else {
                    vec![team.cpus.len()]
                };
                counts.into_iter().map(move |t| (team, t))
            })
            .collect();
        ctx.progress
            .start("memory stream", (runs.len() * passes.len()) as u64);
        for (team, threads) in runs {
            if ctx.cancel.is_cancelled() {
                break;
            }
            let mut result = BenchResult::new(self.id());
            result.set_param(param::THREADS, threads);
            if let Some(numa) = &team.param {
                result.set_param(param::NUMA, numa);
                result.set_param(param::PLACEMENT, team.placement.describe());
            }
            result.set_param(param::ARRAY_SIZE, n);
            result.set_param(param::ARRAY_BYTES, 8 * n);
            if let Some(w) = in_cache_warning(8 * n as u64, ctx.inventory.last_level_cache_bytes())
            {
                result.warnings.push(w);
            }
            result.set_param(param::NTIMES, c.ntimes);
            result.set_param(param::HUGEPAGES, hugepages_param(c.hugepages));
            result.set_param(
                param::BYTES_PER_ELEMENT,
                "copy 16, scale 16, add 24, triad 24 (STREAM counting)",
            );
            result.set_param(param::MB, "1 MB = 10^6 bytes");
            result.set_param(
                param::DRAM_PEAK,
                match &peak {
                    Ok(p) => p.describe(),
                    Err(why) => format!("unknown: {why}"),
                },
            );
            let arrays = Arrays {
                a: Buffer::new(n, c.hugepages, "--array-size")?,
                b: Buffer::new(n, c.hugepages, "--array-size")?,
                c: Buffer::new(n, c.hugepages, "--array-size")?,
            };
            for buf in [&arrays.a, &arrays.b, &arrays.c] {
                numa::bind(buf.as_ptr() as *mut u8, 8 * n, &team.placement)
                    .map_err(|e| BenchError::System(format!("--numa: {e}")))?;
            }
            let cancel = ctx.cancel.clone();
            let cancelled = move || cancel.is_cancelled();
            for &stores in passes {
                let times = run_pass(&arrays, (threads, &team.cpus), self, stores, &cancelled);
                if times.done < c.ntimes {
                    result.mark_cancelled();
                }
                record_pass(&mut result, &times, n, threads, stores, &reference);
                if times.done > 0 {
                    // SAFETY: the team has finished; this is the only access.
                    let (a, b, cc) = unsafe {
                        (
                            arrays.a.part(0..n),
                            arrays.b.part(0..n),
                            arrays.c.part(0..n),
                        )
                    };
                    if let Err(e) = validate(a, b, cc, times.done) {
                        result.mark_failed(format!("{stores} stores: {e}"));
                    }
                }
                ctx.progress.advance(1);
                if result.status != ResultStatus::Passed {
                    break;
                }
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
    use nodebench_core::bench::{Cancel, collect};
    use nodebench_core::inventory::Inventory;

    fn run(config: StreamConfig, corrupt: Option<Corruption>) -> Vec<BenchResult> {
        collect(
            &Stream { config, corrupt },
            &Inventory::default(),
            Cancel::new(),
        )
        .unwrap()
    }

    fn small(threads: Vec<usize>) -> StreamConfig {
        StreamConfig {
            threads,
            array_size: Some(1_000_003),
            ntimes: 4,
            ..StreamConfig::default()
        }
    }

    #[test]
    fn arrays_under_four_times_the_caches_carry_streams_warning() {
        let w = in_cache_warning(8_000_000, Some(480 << 20)).unwrap();
        assert!(
            w.starts_with("STREAM's rule: each array must be at least 4x the last-level caches"),
            "{w}"
        );
        assert!(w.contains("not memory bandwidth"), "{w}");
        assert_eq!(in_cache_warning(4 * (480 << 20), Some(480 << 20)), None);
        assert_eq!(in_cache_warning(8, None), None);
    }

    #[test]
    fn a_clean_run_validates_and_reports_every_kernel() {
        let out = run(small(vec![1, 2]), None);
        assert_eq!(out.len(), 2);
        for r in &out {
            assert_eq!(r.status, ResultStatus::Passed, "{:?}", r.error);
            let bw: Vec<&Metric> = r.metrics_named(metric::BANDWIDTH).collect();
            assert_eq!(bw.len(), if cfg!(target_arch = "x86_64") { 8 } else { 4 });
            // Three repeats after dropping the first iteration.
            assert!(
                bw.iter()
                    .all(|m| m.value > 0.0 && m.stats.as_ref().unwrap().n == 3)
            );
        }
    }

    #[test]
    fn a_corrupted_element_fails_validation() {
        for &after in StreamKernel::ALL {
            let corrupt = Corruption {
                iteration: 1,
                after,
                index: 777_777,
            };
            let out = run(small(vec![2]), Some(corrupt));
            assert_eq!(
                out[0].status,
                ResultStatus::Failed,
                "corruption after {after:?} went unnoticed"
            );
            assert!(out[0].error.as_ref().unwrap().contains("validation failed"));
        }
    }

    #[test]
    fn validation_matches_the_recurrence() {
        let n = 1000;
        // After 0 iterations: a = 2, b = 2, c = 0.
        assert!(
            validate(&vec![2.0; n], &vec![2.0; n], &vec![0.0; n], 0).is_err(),
            "c = 0 divides by zero: NaN must fail"
        );
        // After 1 iteration: c=a=2, b=6, c=8, a=6+24=30.
        assert!(validate(&vec![30.0; n], &vec![6.0; n], &vec![8.0; n], 1).is_ok());
        let mut a = vec![30.0; n];
        a[5] = 31.0;
        assert!(
            validate(&a, &vec![6.0; n], &vec![8.0; n], 1)
                .unwrap_err()
                .to_string()
                .contains("array a")
        );
    }

    #[test]
    fn validation_of_large_arrays_sees_an_error_in_the_last_part() {
        // Millions of elements: checked in parts, one per CPU.
        let n = (3 << 20) + 5;
        let (a, mut b, c) = (vec![30.0; n], vec![6.0; n], vec![8.0; n]);
        assert!(validate(&a, &b, &c, 1).is_ok());
        b[n - 2] = 6.0 + 1e6;
        assert!(
            validate(&a, &b, &c, 1)
                .unwrap_err()
                .to_string()
                .contains("array b")
        );
    }

    #[test]
    fn bad_configs_name_their_flag() {
        let err = |config: StreamConfig| {
            Stream {
                config,
                corrupt: None,
            }
            .validate()
            .unwrap_err()
            .to_string()
        };
        assert_eq!(
            err(StreamConfig {
                ntimes: 1,
                ..StreamConfig::default()
            }),
            "--ntimes: expected at least 2 (the first iteration is dropped)"
        );
        assert_eq!(
            err(StreamConfig {
                array_size: Some(0),
                ..StreamConfig::default()
            }),
            "--array-size: expected a positive number of elements"
        );
        assert_eq!(
            err(StreamConfig {
                threads: vec![1, 0],
                ..StreamConfig::default()
            }),
            "--threads: expected a list of positive thread counts like 1,2,4,8"
        );
        assert!(StreamConfig::default().validate().is_ok());
    }

    #[test]
    fn default_size_is_four_times_the_llc() {
        assert_eq!(default_array_size(Some(32 << 20)), 16_777_216);
        assert_eq!(default_array_size(Some(1 << 20)), MIN_DEFAULT_ELEMENTS);
        assert_eq!(default_array_size(None), MIN_DEFAULT_ELEMENTS);
    }

    #[test]
    fn oversized_arrays_are_refused_before_allocating() {
        let inv = Inventory::default();
        let cfg = StreamConfig {
            array_size: Some(1 << 50),
            ..StreamConfig::default()
        };
        let stream = Stream {
            config: cfg,
            corrupt: None,
        };
        let e = collect(&stream, &inv, Cancel::new())
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("--array-size: needs"), "{e}");
    }
}
