//! Bottleneck attribution: after a throughput or load result, one line
//! naming what limited it, read from the result's own figures, the
//! telemetry series attached to it (`source=telemetry`) and the known limits
//! of the machine (NIC line rates from the inventory, the STREAM peak
//! measured earlier in the run, the theoretical peak).
//!
//! A result that ran in phases (thread counts, IOzone tests, LINPACK
//! trials: [`nodebench_core::model::Phase`]) gets a line for each phase, from the
//! telemetry of the phase's own span and the figures carrying its labels;
//! a result measured as one piece gets one line. The rules, first match
//! wins:
//!
//! 1. a worker thread of the built-in server that never idled (on a core
//!    or waiting for one: `/cpu/N` pages on too few server threads), with
//!    its share of the requests the server served where recorded, and
//!    the load generator's own threads at full cores; both named when both
//!    hold;
//! 2. compute: a compute kernel or LINPACK at [`COMPUTE_BOUND_SHARE`] or
//!    more of the peak of the cores its threads can use (effective cores
//!    where measured): "compute-bound: FMA units at N % of peak on K cores";
//! 3. the device queue: the disk's queue depth, in its deepest interval,
//!    near the configured `iodepth`;
//! 4. a NIC at its line rate;
//! 5. a disk busy nearly all the time;
//! 6. memory bandwidth: STREAM itself, or a memory result near the STREAM
//!    peak of the same run;
//! 7. a TCP stream's sender or receiver thread on a core
//!    [`CPU_SATURATED`] % of the test (its own CPU time), both named when
//!    both are;
//! 8. saturated CPUs (busy [`CPU_SATURATED`] % or more of the span),
//!    named, whoever ran on them;
//! 9. the phase's threads keeping as many CPUs busy between them
//!    ([`CPU_SATURATED`] % of that many CPUs' time) while moving among
//!    more CPUs, none of which is saturated alone;
//! 10. one TCP stream: its window over the round-trip time;
//! 11. a compute kernel or LINPACK below all of these: its threads' CPUs
//!     (the busiest as many as it ran threads) and how busy they were; a
//!     compute kernel has no latency to be bound by, and its idle time is
//!     waiting for its slowest thread or for a CPU the hypervisor withheld;
//! 12. otherwise "nothing saturated (latency-bound)", which rules 8, 9 and
//!     11 keep from any span whose CPUs were busy and from every compute
//!     kernel.
//!
//! A result without telemetry (`--no-telemetry`) gets no line: the rules
//! need the machine's view of the run. HPCC RandomAccess is the exception:
//! its line comes from the table's size and pages ([`random_access`]).

mod random_access;
mod span;

use nodebench_core::inventory::Inventory;
use nodebench_core::model::{BenchResult, Phase};
use nodebench_core::names::{cpu, disk, http, labels, linpack, memory, net, peak};
use nodebench_core::registry::{self, Bottleneck};
use span::Telemetry;

/// A CPU (a core, a server or client thread) busy this share of the time,
/// in %, counts as saturated: above it the work waits for the CPU; 90 %
/// leaves room for the sampler's 1 s granularity and the start and end of
/// a run, when the load ramps.
pub const CPU_SATURATED: f64 = 90.0;
/// A disk busy this share of the interval (%, iostat's %util) is the limit;
/// the same margin as [`CPU_SATURATED`].
pub const DISK_SATURATED: f64 = 90.0;
/// The device's queue depth, averaged over its deepest sampling interval,
/// at this share of the configured `iodepth` means the requests wait in the
/// device queue, not in the benchmark: io_uring keeps `iodepth` in flight,
/// less those completed and not yet resubmitted, which on a 2-vCPU guest
/// with both cores busy is a quarter of them (measured: 21-23 of 32). The
/// deepest interval, not the mean over the result: one IOzone result holds
/// its write phase (queue about 1) and its random-read phase.
pub const QUEUE_FULL_SHARE: f64 = 0.65;
/// A NIC carrying this share of its line rate is the limit: framing and
/// headers take 3 to 5 % of the line, so 100 % of it is never seen as
/// payload.
pub const LINE_RATE_SHARE: f64 = 0.9;
/// A memory result reaching this share of the STREAM peak of the run is
/// bandwidth-bound: STREAM's triad is the most a program gets from DRAM.
pub const STREAM_PEAK_SHARE: f64 = 0.8;
/// A single TCP stream moving this share of its congestion window per
/// round trip is bound by window over RTT.
pub const WINDOW_PER_RTT_SHARE: f64 = 0.8;
/// A compute kernel or LINPACK at this share of the peak of the cores its
/// threads use is compute-bound: the FMA units are busy; what is left is
/// the loop's overhead, and for LINPACK its panel factorisation and
/// memory traffic.
pub const COMPUTE_BOUND_SHARE: f64 = 0.8;

/// Whether benchmark `id`'s `threads` are every thread doing the work
/// (rule 9): its descriptor says [`Bottleneck::AllThreadsWork`].
pub fn threads_are_all_the_work(id: &str) -> bool {
    registry::get(id).is_some_and(|d| d.bottleneck == Bottleneck::AllThreadsWork)
}

/// The fallback line.
pub const LATENCY_BOUND: &str = "nothing saturated (latency-bound)";

/// Whether benchmark `id`'s results get a line: those measuring a
/// throughput or a rate under load, as its descriptor says.
pub fn attributed(id: &str) -> bool {
    registry::get(id).is_some_and(|d| d.bottleneck != Bottleneck::None)
}

/// Fills in `result`'s lines: one for each of its phases, or one for the
/// whole result when it has none ([`attribute`]) or when a phase is
/// shorter than the telemetry can tell apart (its span under
/// [`span::MIN_COVERAGE`] of the intervals it overlaps: a LINPACK solve of
/// 30 ms inside a 50 ms minimum interval).
pub fn attribute_all(
    result: &mut BenchResult,
    earlier: &[BenchResult],
    inventory: Option<&Inventory>,
) {
    for p in &mut result.phases {
        p.bottleneck = None;
    }
    result.bottleneck = None;
    if result.benchmark == memory::HPCC_RANDOM_ACCESS {
        result.bottleneck = random_access::line(result, inventory);
        return;
    }
    if !attributed(&result.benchmark) {
        return;
    }
    let spans: Option<Vec<Telemetry>> = result
        .phases
        .iter()
        .map(|p| {
            Telemetry::of(result, Some((p.start_s, p.end_s)))
                .filter(|t| t.coverage >= span::MIN_COVERAGE)
        })
        .collect();
    match spans {
        Some(spans) if !spans.is_empty() => {
            let lines: Vec<String> = result
                .phases
                .iter()
                .zip(&spans)
                .map(|(p, t)| line(result, Some(p), t, earlier, inventory))
                .collect();
            for (phase, line) in result.phases.iter_mut().zip(lines) {
                phase.bottleneck = Some(line);
            }
        }
        _ => result.bottleneck = attribute(result, earlier, inventory),
    }
}

/// The line for `result` as one piece, or None when its benchmark is not a
/// throughput or load benchmark, or it carries no telemetry. `earlier` are
/// the run's results before it (for the STREAM peak); `inventory` gives
/// line rates and effective cores.
pub fn attribute(
    result: &BenchResult,
    earlier: &[BenchResult],
    inventory: Option<&Inventory>,
) -> Option<String> {
    if !attributed(&result.benchmark) {
        return None;
    }
    let t = Telemetry::of(result, None)?;
    Some(line(result, None, &t, earlier, inventory))
}

/// What a line is about: a result, or one phase of it.
struct Scope<'a> {
    result: &'a BenchResult,
    phase: Option<&'a Phase>,
}

impl Scope<'_> {
    /// The metrics named `name` of this scope: those carrying the phase's
    /// labels, or all of them.
    fn metrics<'a>(
        &'a self,
        name: &'a str,
    ) -> impl Iterator<Item = &'a nodebench_core::model::Metric> + 'a {
        self.result
            .metrics_named(name)
            .filter(move |m| self.phase.is_none_or(|p| p.covers(m)))
    }

    /// The threads the scope ran: the phase's `threads` label, else the
    /// result's single thread count.
    fn threads(&self) -> Option<f64> {
        if let Some(t) = self
            .phase
            .and_then(|p| p.labels.get(labels::THREADS))
            .and_then(|v| v.parse::<f64>().ok())
        {
            return Some(t);
        }
        let v = self.result.param(labels::THREADS)?;
        v.as_f64().or_else(|| match v.as_array()?.as_slice() {
            [one] => one.as_f64(),
            _ => None,
        })
    }
}

/// The line for one scope; `t` is its telemetry.
fn line(
    result: &BenchResult,
    phase: Option<&Phase>,
    t: &Telemetry,
    earlier: &[BenchResult],
    inventory: Option<&Inventory>,
) -> String {
    let scope = Scope { result, phase };
    let rules: [&dyn Fn() -> Option<String>; 11] = [
        &|| load_cpu(result, t),
        &|| compute(&scope),
        &|| device_queue(result, t),
        &|| line_rate(t, inventory),
        &|| disk_busy(t),
        &|| memory_bandwidth(result, earlier, inventory),
        &|| stream_threads(result),
        &|| cores(t),
        &|| threads_busy(&scope, t),
        &|| tcp_window(result),
        &|| compute_waiting(&scope, t),
    ];
    rules
        .iter()
        .find_map(|rule| rule())
        .unwrap_or_else(|| LATENCY_BOUND.to_string())
}

/// `v` bytes/s with a decimal prefix: "1.23 GB/s".
fn bytes_per_sec(v: f64) -> String {
    decimal(v, "B/s")
}

/// `v` bits/s with a decimal prefix: "10.0 Gbit/s".
fn bits_per_sec(v: f64) -> String {
    decimal(v, "bit/s")
}

fn decimal(v: f64, unit: &str) -> String {
    let (scaled, prefix) = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")]
        .into_iter()
        .find(|(f, _)| v >= *f)
        .map_or((v, ""), |(f, p)| (v / f, p));
    format!("{scaled:.2} {prefix}{unit}")
}

/// Rule 1: the built-in server's threads, the load generator's, or both.
fn load_cpu(r: &BenchResult, t: &Telemetry) -> Option<String> {
    match (server_cpu(r, t), client_cpu(r, t)) {
        (Some(server), Some(client)) => Some(format!("{client}; and {server}")),
        (server, client) => server.or(client),
    }
}

/// Rule 2: a compute kernel or LINPACK near the peak of the cores its
/// threads can use.
fn compute(scope: &Scope<'_>) -> Option<String> {
    let r = scope.result;
    let name = match r.benchmark.as_str() {
        cpu::OPS => cpu::RATE,
        linpack::LINPACK => linpack::RATE,
        _ => return None,
    };
    let peak_cores = r.param(peak::PEAK_CORES)?.as_f64().filter(|c| *c > 0.0)?;
    let (share, cores, threads) = scope
        .metrics(name)
        .filter_map(|m| {
            // The metric's own % of the peak of the cores its threads can
            // use (`Peak::cell_reference`): the figure the table prints.
            let share = m.percent_of_reference? / 100.0;
            let threads = m
                .label_value(labels::THREADS)
                .and_then(|t| t.parse::<f64>().ok())
                .or_else(|| scope.threads())?;
            let cores = threads.min(peak_cores);
            share.is_finite().then_some((share, cores, threads))
        })
        .max_by(|a, b| a.0.total_cmp(&b.0))?;
    (share >= COMPUTE_BOUND_SHARE).then(|| {
        let on = if threads > cores {
            format!("{cores:.0} cores ({threads:.0} threads)")
        } else if cores == 1.0 {
            "1 core".to_string()
        } else {
            format!("{cores:.0} cores")
        };
        // One core can clock above the all-core clock the peak uses (turbo
        // with the others idle): say so rather than show a bare 104 %.
        let above = if share > 1.0 {
            " (above it: the cores ran faster than the peak's measured all-core clock)"
        } else {
            ""
        };
        format!(
            "compute-bound: FMA units at {:.0} % of peak on {on}{above}",
            100.0 * share
        )
    })
}

/// A worker thread of the in-process built-in server that never
/// idled: on a CPU or waiting for one nearly all the time; with the
/// requests it served out of the server's, where recorded.
fn server_cpu(r: &BenchResult, t: &Telemetry) -> Option<String> {
    use http::in_process::{SERVER_THREAD_CPU, SERVER_THREAD_REQUESTS, SERVER_THREAD_WAIT, THREAD};
    let threads: Vec<(&str, f64, f64)> = r
        .metrics_named(SERVER_THREAD_CPU)
        .map(|m| {
            let thread = m.label_value(THREAD).unwrap_or("?");
            let wait = r
                .metric(SERVER_THREAD_WAIT, &[(THREAD, thread)])
                .map_or(0.0, |w| w.value);
            (thread, m.value, wait)
        })
        .collect();
    let (thread, running, waiting) = threads
        .iter()
        .copied()
        .max_by(|a, b| (a.1 + a.2).total_cmp(&(b.1 + b.2)))?;
    let busy = (running + waiting).min(100.0);
    let total: f64 = r
        .metrics_named(SERVER_THREAD_REQUESTS)
        .map(|m| m.value)
        .sum();
    let served = match r.metric(SERVER_THREAD_REQUESTS, &[(THREAD, thread)]) {
        Some(m) if total > 0.0 => format!(
            ", serving {:.0} of {total:.0} requests ({:.0} %)",
            m.value,
            100.0 * m.value / total
        ),
        _ => String::new(),
    };
    (busy >= CPU_SATURATED).then(|| {
        format!(
            "server CPU: built-in server thread {thread} (of {}) busy {busy:.0} % of the time (on a core {running:.0} %, waiting for one {waiting:.0} %){served}; busiest core {}",
            threads.len(),
            t.busiest_cpu().unwrap_or_else(|| "unknown".into())
        )
    })
}

/// The HTTP load generator's threads at full cores.
fn client_cpu(r: &BenchResult, t: &Telemetry) -> Option<String> {
    let pct = r.metric(http::load::CLIENT_CPU_UTILIZATION, &[])?.value;
    let threads = r
        .param(http::load::param::THREADS)
        .and_then(|v| v.as_f64())
        .unwrap_or(1.0)
        .max(1.0);
    (pct / threads >= CPU_SATURATED).then(|| {
        format!(
            "client CPU: {threads:.0} load-generator thread(s) at {:.0} % of a core each; busiest core {}",
            pct / threads,
            t.busiest_cpu().unwrap_or_else(|| "unknown".into())
        )
    })
}

/// The disk with the highest utilisation.
fn busiest_disk(t: &Telemetry) -> Option<&(String, f64, f64, f64)> {
    t.disks.iter().max_by(|a, b| a.1.total_cmp(&b.1))
}

/// Rule 3: the device queue at the configured depth.
fn device_queue(r: &BenchResult, t: &Telemetry) -> Option<String> {
    let depth = r.param(disk::param::IODEPTH)?.as_f64()?;
    if depth < 2.0 {
        return None;
    }
    let (dev, util, queue, deepest) = t.disks.iter().max_by(|a, b| a.3.total_cmp(&b.3))?;
    (*deepest >= QUEUE_FULL_SHARE * depth).then(|| {
        format!(
            "device queue: {dev} held up to {deepest:.1} requests in flight ({queue:.1} on average over the result), the configured queue depth {depth:.0} ({util:.0} % utilised)"
        )
    })
}

/// Rule 4: a NIC at its line rate (interfaces with a known speed only).
fn line_rate(t: &Telemetry, inventory: Option<&Inventory>) -> Option<String> {
    let inv = inventory?;
    t.nics.iter().find_map(|(nic, rx, tx)| {
        let speed = inv
            .network_interfaces
            .iter()
            .find(|i| &i.name == nic)?
            .speed_mbps? as f64
            * 1e6;
        let (dir, bytes) = if rx >= tx {
            ("receive", rx)
        } else {
            ("send", tx)
        };
        let bits = bytes * 8.0;
        (speed > 0.0 && bits >= LINE_RATE_SHARE * speed).then(|| {
            format!(
                "network: {nic} at {:.0} % of its {} line rate ({dir}, {})",
                100.0 * bits / speed,
                bits_per_sec(speed),
                bits_per_sec(bits)
            )
        })
    })
}

/// Rule 5: a disk busy nearly all the time.
fn disk_busy(t: &Telemetry) -> Option<String> {
    let (dev, util, queue, _) = busiest_disk(t)?;
    (*util >= DISK_SATURATED).then(|| {
        format!("disk: {dev} busy {util:.0} % of the time (average queue depth {queue:.1})")
    })
}

/// The best `bandwidth` of a memory result.
fn best_bandwidth(r: &BenchResult) -> Option<f64> {
    r.metrics_named(memory::metric::BANDWIDTH)
        .map(|m| m.value)
        .max_by(f64::total_cmp)
}

/// Rule 6: memory bandwidth. A STREAM whose arrays are under 4x the
/// last-level caches (STREAM's rule) measured the caches too: its line says
/// so, never "memory bandwidth".
fn memory_bandwidth(
    r: &BenchResult,
    earlier: &[BenchResult],
    inventory: Option<&Inventory>,
) -> Option<String> {
    let best = best_bandwidth(r)?;
    if r.benchmark == memory::STREAM {
        let array = r.param(memory::param::ARRAY_BYTES).and_then(|v| v.as_u64());
        let llc = inventory.and_then(Inventory::last_level_cache_bytes);
        if let (Some(array), Some(llc)) = (array, llc)
            && llc > 0
            && array < 4 * llc
        {
            return Some(format!(
                "cache bandwidth: STREAM's arrays ({} each) are under 4x the last-level caches ({}), so the caches served part of it",
                nodebench_core::units::format_bytes(array),
                nodebench_core::units::format_bytes(llc)
            ));
        }
        return Some(format!(
            "memory bandwidth: STREAM moves {} at best, the measured peak",
            bytes_per_sec(best)
        ));
    }
    if r.benchmark != memory::BLOCKS {
        return None;
    }
    let peak = earlier
        .iter()
        .filter(|e| e.benchmark == memory::STREAM)
        .filter_map(best_bandwidth)
        .max_by(f64::total_cmp)?;
    (best >= STREAM_PEAK_SHARE * peak).then(|| {
        format!(
            "memory bandwidth: {} is {:.0} % of the STREAM peak measured in this run ({})",
            bytes_per_sec(best),
            100.0 * best / peak,
            bytes_per_sec(peak)
        )
    })
}

/// Rule 7: a TCP stream's sender or receiver thread on a core nearly all
/// of the test, by its own CPU time.
fn stream_threads(r: &BenchResult) -> Option<String> {
    if r.benchmark != net::TCP {
        return None;
    }
    let mut hot: Vec<_> = r
        .metrics_named(net::metric::THREAD_CPU)
        .filter(|m| m.value >= CPU_SATURATED)
        .collect();
    if hot.is_empty() {
        return None;
    }
    hot.sort_by(|a, b| b.value.total_cmp(&a.value));
    let named: Vec<String> = hot
        .iter()
        .map(|m| {
            let role = m.label_value(net::label::SIDE).unwrap_or("stream");
            let host = m.label_value(net::label::HOST).unwrap_or("?");
            let dir = m.label_value(net::label::DIRECTION).unwrap_or("?");
            let core = r
                .param(net::param::THREAD_LAST_CPU)
                .and_then(|cpus| cpus.get(format!("{dir} {host} {role}"))?.as_u64())
                .map_or(String::new(), |c| format!(" (last on cpu{c})"));
            format!(
                "{host} {role} thread on a core {:.0} % of the test{core}",
                m.value
            )
        })
        .collect();
    Some(format!("CPU: {}", named.join("; ")))
}

/// Rule 8: saturated cores, named.
fn cores(t: &Telemetry) -> Option<String> {
    let mut hot: Vec<_> = t.cpus.iter().filter(|c| c.1 >= CPU_SATURATED).collect();
    if hot.is_empty() {
        return None;
    }
    hot.sort_by(|a, b| b.1.total_cmp(&a.1));
    let all = hot.len() == t.cpus.len();
    let named: Vec<String> = hot
        .iter()
        .take(4)
        .map(|(c, busy, user, system)| {
            format!("cpu{c} {busy:.0} % (user {user:.0} %, system {system:.0} %)")
        })
        .collect();
    let more = hot.len().saturating_sub(named.len());
    Some(format!(
        "CPU: {} saturated: {}{}",
        if all {
            format!("all {} cores", t.cpus.len())
        } else {
            format!("{} of {} cores", hot.len(), t.cpus.len())
        },
        named.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    ))
}

/// Rule 9: the scope's threads keeping as many CPUs busy between them
/// while moving among more CPUs (unpinned threads on a large machine),
/// none saturated alone.
fn threads_busy(scope: &Scope<'_>, t: &Telemetry) -> Option<String> {
    // Where `threads` counts all the work's threads: not a load
    // generator's, whose server shares the machine.
    if !threads_are_all_the_work(&scope.result.benchmark) {
        return None;
    }
    let threads = scope.threads()?.max(1.0);
    let n = t.cpus.len() as f64;
    if threads >= n || n == 0.0 {
        return None;
    }
    let total = t.total_busy();
    (total >= CPU_SATURATED * threads).then(|| {
        format!(
            "CPU: {threads:.0} thread(s) kept {threads:.0} of {n:.0} CPUs' worth busy ({total:.0} % of one CPU in all), moving between CPUs"
        )
    })
}

/// Rule 11: a compute kernel (cpu.ops, LINPACK) that none of the rules
/// above explains: how busy its threads' CPUs were.
fn compute_waiting(scope: &Scope<'_>, t: &Telemetry) -> Option<String> {
    if ![cpu::OPS, linpack::LINPACK].contains(&scope.result.benchmark.as_str()) {
        return None;
    }
    let threads = (scope.threads()?.max(1.0) as usize).min(t.cpus.len());
    let mut busy: Vec<f64> = t.cpus.iter().map(|c| c.1).collect();
    busy.sort_by(|a, b| b.total_cmp(a));
    let theirs = &busy[..threads];
    if theirs.is_empty() {
        return None;
    }
    let mean = theirs.iter().sum::<f64>() / threads as f64;
    let (low, high) = (theirs[threads - 1], theirs[0]);
    Some(format!(
        "CPU: the {threads} busiest CPUs (one per thread) {mean:.0} % busy on average ({low:.0}-{high:.0} %), none saturated: a compute kernel's threads wait only for the slowest of them or for a CPU the hypervisor withheld"
    ))
}

/// Rule 10: one TCP stream moving about a window per round trip.
fn tcp_window(r: &BenchResult) -> Option<String> {
    if r.benchmark != net::TCP || r.param(net::param::PARALLEL)?.as_u64()? != 1 {
        return None;
    }
    let rtt = r
        .metrics_named(net::metric::RTT)
        .map(|m| m.value)
        .find(|v| *v > 0.0)?;
    let cwnd = r
        .metrics_named(net::metric::SND_CWND_MAX)
        .map(|m| m.value)
        .max_by(f64::total_cmp)?;
    let rate = r
        .metrics_named(net::metric::THROUGHPUT)
        .map(|m| m.value)
        .max_by(f64::total_cmp)?;
    let bound = cwnd / rtt;
    (rate >= WINDOW_PER_RTT_SHARE * bound).then(|| {
        format!(
            "network round-trip time: one TCP stream with a {:.0} KiB window and {:.0} µs RTT carries at most {}",
            cwnd / 1024.0,
            rtt * 1e6,
            bytes_per_sec(bound)
        )
    })
}

#[cfg(test)]
mod tests;
