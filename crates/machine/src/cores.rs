//! Effective cores: how many CPUs' worth of floating-point throughput the
//! usable CPUs hold together, measured rather than read from the topology.
//!
//! A hypervisor may show 16 cores with one thread each and float them over
//! 8 host cores; SMT siblings may be hidden, or shown. Counting the cores
//! the topology lists then sets a peak no code can reach (49 % of "peak"
//! on such a guest, where the machine gives all it has). The probe
//! ([`probe`]) runs a throughput-bound loop of independent FMAs, as wide
//! as the CPU has (512-bit, 256-bit, else portable multiply-adds), on one
//! CPU, on all usable CPUs at once, and, where that finds
//! sharing, on pairs (every pair up to [`ALL_PAIRS_UP_TO`] CPUs, a sample
//! past that); [`decide`] turns the rates into a count:
//!
//! * all CPUs together run at least [`NO_SHARING`] x their count times one
//!   CPU: no sharing, every CPU is a core;
//! * pairs that run under [`PAIR_SHARES`] x one CPU share execution units:
//!   sets of such pairs of one size that cover every CPU are fixed
//!   siblings (visible SMT when the topology lists them, hidden otherwise),
//!   and each set is one core;
//! * otherwise (any two CPUs run 2x one, all of them less than their
//!   count): the CPUs float over fewer cores, or lose time to steal, and
//!   the effective cores are the all-CPU rate over one CPU's, rounded.

use std::hint::black_box;
use std::time::{Duration, Instant};

pub use nodebench_core::inventory::EffectiveCores;

/// All CPUs together at or above this share of their count times one CPU:
/// no sharing.
pub const NO_SHARING: f64 = 0.85;
/// A pair under this many times one CPU's rate shares execution units.
pub const PAIR_SHARES: f64 = 1.5;
/// Every pair is probed up to this many CPUs; a sample past it.
pub const ALL_PAIRS_UP_TO: usize = 16;
/// Pairs probed past [`ALL_PAIRS_UP_TO`] CPUs.
const SAMPLED_PAIRS: usize = 64;

/// Decides the effective cores of `cpus` from measured rates: `one`, the
/// loop's rate on one CPU; `all`, on every CPU at once (summed); `pair`,
/// the summed rate of two CPUs at once (called only where `all` shows
/// sharing, on the pairs [`pairs_to_probe`] lists); `visible`, the sibling
/// sets the topology lists (to say whether fixed siblings were shown).
pub fn decide(
    cpus: &[u32],
    one: f64,
    all: f64,
    pair: &mut dyn FnMut(u32, u32) -> f64,
    visible: &[Vec<u32>],
) -> EffectiveCores {
    let n = cpus.len();
    let done = |count: usize, siblings: Vec<Vec<u32>>, method: String| EffectiveCores {
        count: count.max(1) as u32,
        cpus: n as u32,
        siblings,
        method,
        uncertain: None,
    };
    if n <= 1 || one <= 0.0 {
        return done(n.max(1), Vec::new(), "one usable CPU".into());
    }
    let ratio = all / one;
    if ratio >= NO_SHARING * n as f64 {
        return done(
            n,
            Vec::new(),
            format!(
                "measured: all {n} CPUs at once ran {ratio:.2}x one CPU's multiply-add rate: no sharing"
            ),
        );
    }
    // Which pairs share: grouped into sets (connected pairs).
    let probed = pairs_to_probe(cpus, visible);
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    let index = |c: u32| cpus.iter().position(|&x| x == c);
    let mut sharing = 0;
    for &(a, b) in &probed {
        if pair(a, b) / one < PAIR_SHARES
            && let (Some(i), Some(j)) = (index(a), index(b))
        {
            sharing += 1;
            let (ri, rj) = (root(&mut parent, i), root(&mut parent, j));
            parent[ri] = rj;
        }
    }
    let mut sets: Vec<Vec<u32>> = Vec::new();
    let mut roots: Vec<usize> = Vec::new();
    for (i, &cpu) in cpus.iter().enumerate() {
        let r = root(&mut parent, i);
        match roots.iter().position(|&x| x == r) {
            Some(k) => sets[k].push(cpu),
            None => {
                roots.push(r);
                sets.push(vec![cpu]);
            }
        }
    }
    let size = sets[0].len();
    let fixed = size >= 2 && sets.iter().all(|s| s.len() == size);
    // Fixed sets whose count agrees with the all-CPU rate (within a quarter).
    if fixed && (ratio - sets.len() as f64).abs() <= 0.25 * sets.len() as f64 {
        let shown = sets.iter().all(|s| {
            visible
                .iter()
                .any(|v| s.iter().all(|c| v.contains(c)) && v.len() == s.len())
        });
        let count = sets.len();
        return done(
            count,
            sets,
            format!(
                "measured: {n} CPUs in {count} fixed sets of {size} sharing one core's execution units ({}); all at once ran {ratio:.2}x one CPU",
                if shown {
                    "SMT siblings the topology lists"
                } else {
                    "siblings the topology does not show"
                }
            ),
        );
    }
    let count = ratio.round().max(1.0) as usize;
    let pairs_text = if sharing == 0 {
        format!("each of {} pairs probed ran 2x one CPU", probed.len())
    } else {
        format!(
            "{sharing} of {} pairs probed shared units, in no fixed sets",
            probed.len()
        )
    };
    done(
        count.min(n),
        Vec::new(),
        format!(
            "measured: all {n} CPUs at once ran {ratio:.2}x one CPU while {pairs_text}: the CPUs float over about {count} cores (or lose time to steal)"
        ),
    )
}

/// The pairs of `cpus` to probe: every pair up to [`ALL_PAIRS_UP_TO`]
/// CPUs; past that the visible siblings, neighbours and CPUs half the list
/// apart, up to [`SAMPLED_PAIRS`].
pub fn pairs_to_probe(cpus: &[u32], visible: &[Vec<u32>]) -> Vec<(u32, u32)> {
    let n = cpus.len();
    let mut out = Vec::new();
    if n <= ALL_PAIRS_UP_TO {
        for i in 0..n {
            for j in i + 1..n {
                out.push((cpus[i], cpus[j]));
            }
        }
        return out;
    }
    let mut add = |a: u32, b: u32| {
        let p = (a.min(b), a.max(b));
        if a != b && !out.contains(&p) && out.len() < SAMPLED_PAIRS {
            out.push(p);
        }
    };
    for v in visible {
        if let [a, b, ..] = v[..]
            && cpus.contains(&a)
            && cpus.contains(&b)
        {
            add(a, b);
        }
    }
    let step = (n / (SAMPLED_PAIRS / 2)).max(1);
    for i in (0..n).step_by(step) {
        add(cpus[i], cpus[(i + 1) % n]);
        add(cpus[i], cpus[(i + n / 2) % n]);
    }
    out
}

/// Independent multiply-add chains per loop iteration of the portable
/// loop: enough to keep the floating-point units of one core busy, so
/// that a second thread on the same core gains little.
const CHAINS: usize = 24;

/// `iters` iterations of the widest FMA throughput loop this CPU runs
/// ([`crate::fma`]), else of [`CHAINS`] independent `x = x * m + c` chains.
fn madd_loop(iters: u64) -> f64 {
    #[cfg(target_arch = "x86_64")]
    {
        if is_x86_feature_detected!("avx512f") {
            // SAFETY: detected just above.
            return unsafe { crate::fma::fma_throughput512(iters) } as f64;
        }
        if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
            // SAFETY: detected just above.
            return unsafe { crate::fma::fma_throughput256(iters) } as f64;
        }
    }
    let m = black_box(0.999_999_9_f64);
    let c = black_box(1e-9_f64);
    let mut x = [0.5_f64; CHAINS];
    for (i, v) in x.iter_mut().enumerate() {
        *v += i as f64 * 1e-3;
    }
    for _ in 0..iters {
        for v in &mut x {
            *v = *v * m + c;
        }
    }
    x.iter().sum()
}

/// Iterations of [`madd_loop`] lasting about `d` on the calling thread.
fn calibrate(d: Duration) -> u64 {
    let mut iters: u64 = 1 << 10;
    loop {
        let t = Instant::now();
        black_box(madd_loop(iters));
        if t.elapsed() >= d / 4 || iters >= 1 << 34 {
            let per = t.elapsed().as_secs_f64() / iters as f64;
            return ((d.as_secs_f64() / per.max(1e-12)) as u64).max(1);
        }
        iters *= 2;
    }
}

/// A probe thread that waited for its CPU (runnable while another task
/// of this kernel ran there: schedstat's wait time) longer than this share
/// of its run: the try is disturbed. Steal is not counted: vCPUs floated
/// over fewer host cores are what the probe measures.
pub const MAX_WAIT: f64 = 0.1;

/// One try of a set of CPUs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SetRate {
    /// All iterations over the time from the first start to the last end.
    pub wall: f64,
    /// The sum of each thread's iterations over its own time on a CPU
    /// (schedstat), where readable: what the set gives when nothing else
    /// takes its CPUs.
    pub on_cpu: Option<f64>,
    /// The longest any thread waited for its CPU, as a share of its run,
    /// where readable.
    pub max_wait: Option<f64>,
}

impl SetRate {
    /// Whether a thread waited for its CPU over [`MAX_WAIT`] of its run.
    pub fn disturbed(&self) -> bool {
        self.max_wait.is_some_and(|w| w > MAX_WAIT)
    }
}

/// The rate of a set from its tries: the best undisturbed try (noise only
/// lowers a rate); where every try was disturbed, the best on-CPU rate
/// (never the lowered wall-time one), with why it is uncertain.
pub fn best_rate(tries: &[SetRate], what: &str) -> (f64, Option<String>) {
    let clean = tries
        .iter()
        .filter(|t| !t.disturbed())
        .map(|t| t.wall)
        .fold(None, |b: Option<f64>, x| Some(b.map_or(x, |b| b.max(x))));
    if let Some(r) = clean {
        return (r, None);
    }
    let wall = tries.iter().map(|t| t.wall).fold(0.0, f64::max);
    let on_cpu = tries.iter().filter_map(|t| t.on_cpu).fold(0.0, f64::max);
    let wait = tries.iter().filter_map(|t| t.max_wait).fold(0.0, f64::max);
    (
        wall.max(on_cpu),
        Some(format!(
            "{what}: a thread waited for its CPU up to {:.0} % of the time in all {} tries (another process held it); counted over the threads' own CPU time",
            100.0 * wait,
            tries.len()
        )),
    )
}

/// The rate (iterations per second) of `cpus` together, each running
/// `iters` iterations, pinned, started together: all their iterations over
/// the time from the first start to the last end. Not the sum of each
/// thread's own rate, which counts threads a hypervisor ran in turns (a
/// CPU quota, vCPUs floated over fewer cores) as if they ran at once; that
/// sum ([`SetRate::on_cpu`]) serves only where another process disturbed
/// every try.
fn rate_on(cpus: &[u32], iters: u64) -> SetRate {
    let start = std::sync::Barrier::new(cpus.len());
    type Span = (Instant, Instant, Option<(f64, f64)>);
    let spans: Vec<Span> = std::thread::scope(|s| {
        let handles: Vec<_> = cpus
            .iter()
            .map(|&cpu| {
                let start = &start;
                s.spawn(move || {
                    nodebench_core::affinity::pin_current_thread(cpu as usize);
                    let tid = nodebench_core::cputime::current_tid();
                    start.wait();
                    let before = nodebench_core::cputime::thread_sched(tid);
                    let cpu = nodebench_core::cputime::thread_cpu_now();
                    let t = Instant::now();
                    black_box(madd_loop(iters));
                    let end = Instant::now();
                    let cpu = nodebench_core::cputime::thread_cpu_now().saturating_sub(cpu);
                    let after = nodebench_core::cputime::thread_sched(tid);
                    // Running time from the thread's CPU clock (it counts
                    // the slice running now); waiting from schedstat.
                    let sched = before.zip(after).map(|(b, a)| {
                        (
                            cpu.as_secs_f64(),
                            a.waiting.saturating_sub(b.waiting).as_secs_f64(),
                        )
                    });
                    (t, end, sched)
                })
            })
            .collect();
        handles.into_iter().filter_map(|h| h.join().ok()).collect()
    });
    let (Some(first), Some(last)) = (
        spans.iter().map(|s| s.0).min(),
        spans.iter().map(|s| s.1).max(),
    ) else {
        return SetRate {
            wall: 0.0,
            on_cpu: None,
            max_wait: None,
        };
    };
    let sched: Option<Vec<(f64, f64, f64)>> = spans
        .iter()
        .map(|(a, b, s)| s.map(|(run, wait)| (run, wait, (*b - *a).as_secs_f64())))
        .collect();
    SetRate {
        wall: (iters as f64 * spans.len() as f64) / (last - first).as_secs_f64().max(1e-9),
        on_cpu: sched.as_ref().map(|v| {
            v.iter()
                .map(|(run, _, _)| iters as f64 / run.max(1e-9))
                .sum()
        }),
        max_wait: sched.as_ref().map(|v| {
            v.iter()
                .map(|(_, wait, span)| wait / span.max(1e-9))
                .fold(0.0, f64::max)
        }),
    }
}

/// The SMT sibling sets the topology lists
/// (`/sys/devices/system/cpu/cpuN/topology/thread_siblings_list`).
fn visible_siblings(cpus: &[u32]) -> Vec<Vec<u32>> {
    let mut sets: Vec<Vec<u32>> = Vec::new();
    for c in cpus {
        let path = format!("/sys/devices/system/cpu/cpu{c}/topology/thread_siblings_list");
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let set = nodebench_core::cpulist::parse(text.trim()).unwrap_or_default();
        if set.len() > 1 && !sets.contains(&set) {
            sets.push(set);
        }
    }
    sets
}

/// Measures the effective cores of the CPUs this process may use (about
/// 0.6 s; up to about 1.2 s more where sharing calls for pairs).
pub fn probe() -> EffectiveCores {
    let cpus: Vec<u32> = nodebench_core::affinity::allowed_cpus()
        .into_iter()
        .map(|c| c as u32)
        .collect();
    if cpus.len() <= 1 {
        return decide(&cpus, 1.0, 1.0, &mut |_, _| 0.0, &[]);
    }
    // Calibrated on a pinned thread of its own: the caller's affinity (all
    // the CPUs the run may use) must stay as it is.
    let first = cpus[0] as usize;
    let iters = std::thread::scope(|s| {
        s.spawn(move || {
            nodebench_core::affinity::pin_current_thread(first);
            calibrate(Duration::from_millis(20))
        })
        .join()
        .unwrap_or(1 << 16)
    });
    // The best of several tries of each: a moment's noise (steal, another
    // process) only lowers a rate, and counting too few cores would put
    // figures above the peak. A try in which a thread waited for its CPU
    // does not count; as many more are run; if every one was disturbed the
    // threads' own CPU time decides and the count is marked uncertain.
    let mut uncertain: Vec<String> = Vec::new();
    let mut best = |set: &[u32], iters: u64, tries: usize, what: &str| {
        let mut done: Vec<SetRate> = Vec::new();
        while done.len() < 2 * tries && done.iter().filter(|t| !t.disturbed()).count() < tries {
            done.push(rate_on(set, iters));
        }
        let (rate, note) = best_rate(&done, what);
        uncertain.extend(note);
        rate
    };
    let one = best(&cpus[..1], iters, 3, "one CPU");
    // All at once for longer (about 160 ms, three tries): a hypervisor's
    // CPU quota is enforced over periods of about 100 ms, and a shorter
    // burst would see more cores than a benchmark keeps.
    let all = best(&cpus, iters * 8, 3, "all CPUs");
    let visible = visible_siblings(&cpus);
    // Pairs run half as long: up to 120 of them fit the probe's time; a
    // pair that looks shared is tried once more before it counts.
    let pair_iters = (iters / 2).max(1);
    let mut e = decide(
        &cpus,
        one,
        all,
        &mut |a, b| {
            let r = best(&[a, b], pair_iters, 1, "a pair");
            if r / one < PAIR_SHARES {
                r.max(best(&[a, b], pair_iters, 1, "a pair"))
            } else {
                r
            }
        },
        &visible,
    );
    if !uncertain.is_empty() {
        uncertain.dedup();
        e.uncertain = Some(uncertain.join("; "));
    }
    e
}

/// The effective cores measured once per process and reused.
pub fn effective() -> EffectiveCores {
    static CORES: std::sync::OnceLock<EffectiveCores> = std::sync::OnceLock::new();
    CORES.get_or_init(probe).clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cpus(n: u32) -> Vec<u32> {
        (0..n).collect()
    }

    /// 16 CPUs whose pairs `(i, i + 8)` share one core.
    fn smt_pairs(a: u32, b: u32) -> f64 {
        if a % 8 == b % 8 { 1.15 } else { 2.0 }
    }

    #[test]
    fn visible_smt2_counts_one_core_per_sibling_pair() {
        let visible: Vec<Vec<u32>> = (0..8).map(|i| vec![i, i + 8]).collect();
        let e = decide(&cpus(16), 1.0, 8.3, &mut smt_pairs, &visible);
        assert_eq!(e.count, 8);
        assert_eq!(e.siblings.len(), 8);
        assert_eq!(e.siblings[0], vec![0, 8]);
        assert!(
            e.method.contains("SMT siblings the topology lists"),
            "{}",
            e.method
        );
    }

    #[test]
    fn hidden_fixed_pairs_are_found_and_said() {
        let e = decide(&cpus(16), 1.0, 8.1, &mut smt_pairs, &[]);
        assert_eq!(e.count, 8);
        assert_eq!(e.siblings.len(), 8);
        assert!(
            e.method.contains("siblings the topology does not show"),
            "{}",
            e.method
        );
    }

    #[test]
    fn floating_vcpus_count_the_all_cpu_rate() {
        // The 16-vCPU guest of issue 28: any two ran 2x one, all 16 about 8x.
        let mut probed = 0;
        let e = decide(
            &cpus(16),
            1.0,
            8.05,
            &mut |_, _| {
                probed += 1;
                2.0
            },
            &[],
        );
        assert_eq!(probed, 120, "every pair of 16 CPUs");
        assert_eq!(e.count, 8);
        assert!(e.siblings.is_empty());
        assert!(
            e.method.contains("float over about 8 cores"),
            "{}",
            e.method
        );
        assert!(
            e.method.contains("each of 120 pairs probed ran 2x"),
            "{}",
            e.method
        );
    }

    #[test]
    fn no_sharing_counts_every_cpu_and_probes_no_pair() {
        let e = decide(
            &cpus(16),
            1.0,
            15.6,
            &mut |_, _| panic!("no pair needed"),
            &[],
        );
        assert_eq!(e.count, 16);
        assert!(e.method.contains("no sharing"), "{}", e.method);
    }

    #[test]
    fn a_disturbed_try_never_lowers_the_rate() {
        let clean = SetRate {
            wall: 1.9,
            on_cpu: Some(2.0),
            max_wait: Some(0.01),
        };
        // A busy loop held one of the two CPUs a third of the time.
        let hogged = SetRate {
            wall: 1.33,
            on_cpu: Some(1.98),
            max_wait: Some(0.33),
        };
        assert!(hogged.disturbed() && !clean.disturbed());
        assert_eq!(best_rate(&[hogged, clean], "all CPUs"), (1.9, None));
        let (rate, why) = best_rate(&[hogged, hogged], "all CPUs");
        assert_eq!(rate, 1.98);
        assert_eq!(
            why.as_deref(),
            Some(
                "all CPUs: a thread waited for its CPU up to 33 % of the time in all 2 tries (another process held it); counted over the threads' own CPU time"
            )
        );
        // Two vCPUs on one host core: the count it gives is not lowered
        // to one by the busy loop's share.
        let e = decide(&[0, 1], 1.0, rate, &mut |_, _| panic!("no pair"), &[]);
        assert_eq!(e.count, 2);
    }

    #[test]
    fn a_two_vcpu_guest() {
        let e = decide(
            &[0, 1],
            1.0,
            1.98,
            &mut |_, _| panic!("no pair needed"),
            &[],
        );
        assert_eq!((e.count, e.cpus), (2, 2));
        // Two vCPUs that are one host core's two threads.
        let e = decide(&[0, 1], 1.0, 1.1, &mut |_, _| 1.1, &[]);
        assert_eq!(e.count, 1);
        assert_eq!(e.siblings, vec![vec![0, 1]]);
    }

    #[test]
    fn big_machines_sample_their_pairs() {
        let cpus: Vec<u32> = (0..256).collect();
        let visible: Vec<Vec<u32>> = (0..128).map(|i| vec![i, i + 128]).collect();
        let pairs = pairs_to_probe(&cpus, &visible);
        assert_eq!(pairs.len(), SAMPLED_PAIRS);
        assert!(pairs.contains(&(0, 128)));
        let e = decide(
            &cpus,
            1.0,
            128.0,
            &mut |a, b| if a % 128 == b % 128 { 1.1 } else { 2.0 },
            &visible,
        );
        // 64 sampled pairs cannot place all 256 CPUs in sets: the rate says.
        assert_eq!(e.count, 128);
    }

    #[test]
    fn the_probe_leaves_the_callers_affinity_alone() {
        assert!(madd_loop(10).is_finite());
        let before = nodebench_core::affinity::allowed_cpus();
        let e = probe();
        assert!(e.count >= 1 && e.count <= e.cpus, "{e:?}");
        assert_eq!(e.cpus as usize, before.len());
        assert_eq!(nodebench_core::affinity::allowed_cpus(), before);
    }
}
