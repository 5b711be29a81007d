//! Bottleneck attribution: after a throughput or load result, one line
//! naming what limited it, read from the result's own figures, the
//! telemetry series attached to it (`source=telemetry`) and the known limits
//! of the machine (NIC line rates from the inventory, the STREAM peak
//! measured earlier in the run). The rules, first match wins:
//!
//! 1. a worker thread of the built-in server that never idled (on a core
//!    or waiting for one: `/cpu/N` pages on too few server threads);
//! 2. the load generator's own threads at full cores;
//! 3. the device queue: the disk's queue depth, in its deepest interval, near the configured
//!    `iodepth`;
//! 4. a NIC at its line rate;
//! 5. a disk busy nearly all the time;
//! 6. memory bandwidth: STREAM itself, or a memory result near the STREAM
//!    peak of the same run;
//! 7. saturated CPU cores (named), whoever ran on them;
//! 8. one TCP stream: its window over the round-trip time;
//! 9. otherwise "nothing saturated (latency-bound)".
//!
//! A result without telemetry (`--no-telemetry`) gets no line: the rules
//! need the machine's view of the run.

use crate::inventory::Inventory;
use crate::model::BenchResult;
use crate::names::{disk, http, linpack, memory, net, telemetry};

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

/// The fallback line.
pub const LATENCY_BOUND: &str = "nothing saturated (latency-bound)";

/// Benchmarks whose results get a line: those measuring a throughput or
/// a rate under load.
pub const ATTRIBUTED: &[&str] = &[
    http::LOAD,
    http::SWEEP,
    http::DOWNLOAD,
    net::TCP,
    net::UDP,
    disk::IOZONE,
    disk::DD,
    disk::BLOCKS,
    memory::STREAM,
    memory::BLOCKS,
    linpack::LINPACK,
    crate::names::cpu::OPS,
];

/// The line for `result`, or None when its benchmark is not a throughput
/// or load benchmark, or it carries no telemetry. `earlier` are the run's
/// results before it (for the STREAM peak); `inventory` gives line rates.
pub fn attribute(
    result: &BenchResult,
    earlier: &[BenchResult],
    inventory: Option<&Inventory>,
) -> Option<String> {
    if !ATTRIBUTED.contains(&result.benchmark.as_str()) {
        return None;
    }
    let t = Telemetry::of(result)?;
    let rules: [&dyn Fn() -> Option<String>; 8] = [
        &|| server_cpu(result, &t),
        &|| client_cpu(result, &t),
        &|| device_queue(result, &t),
        &|| line_rate(&t, inventory),
        &|| disk_busy(&t),
        &|| memory_bandwidth(result, earlier),
        &|| cores(&t),
        &|| tcp_window(result),
    ];
    Some(
        rules
            .iter()
            .find_map(|rule| rule())
            .unwrap_or_else(|| LATENCY_BOUND.to_string()),
    )
}

/// The means of a result's telemetry series.
struct Telemetry {
    /// (cpu, busy %, user %, system %), by CPU number.
    cpus: Vec<(String, f64, f64, f64)>,
    /// (device, utilisation %, average queue depth, deepest interval's
    /// queue depth).
    disks: Vec<(String, f64, f64, f64)>,
    /// (nic, received bytes/s, sent bytes/s).
    nics: Vec<(String, f64, f64)>,
}

impl Telemetry {
    /// None when the result carries no telemetry series.
    fn of(r: &BenchResult) -> Option<Telemetry> {
        use telemetry::label;
        use telemetry::series as s;
        let tele: Vec<_> = r
            .series
            .iter()
            .filter(|s| {
                s.labels.get(telemetry::SOURCE).map(String::as_str)
                    == Some(telemetry::SOURCE_TELEMETRY)
            })
            .collect();
        if tele.is_empty() {
            return None;
        }
        let peak = |name: &str, key: &str, value: &str| {
            tele.iter()
                .find(|s| s.name == name && s.labels.get(key).map(String::as_str) == Some(value))
                .map(|s| s.points.iter().map(|p| p.1).fold(0.0, f64::max))
                .unwrap_or(0.0)
        };
        let mean = |name: &str, key: &str, value: &str| {
            tele.iter()
                .find(|s| s.name == name && s.labels.get(key).map(String::as_str) == Some(value))
                .map(|s| mean(s.points.iter().map(|p| p.1)))
                .unwrap_or(0.0)
        };
        let keys = |name: &str, key: &str| {
            let mut v: Vec<String> = tele
                .iter()
                .filter(|s| s.name == name)
                .filter_map(|s| s.labels.get(key).cloned())
                .collect();
            v.sort_by_key(|k| (k.len(), k.clone()));
            v.dedup();
            v
        };
        let cpus = keys(s::CPU_USER, label::CPU)
            .into_iter()
            .map(|c| {
                let m = |n| mean(n, label::CPU, &c);
                let (user, system) = (m(s::CPU_USER), m(s::CPU_SYSTEM));
                let busy = user + system + m(s::CPU_IRQ) + m(s::CPU_SOFTIRQ) + m(s::CPU_STEAL);
                (c, busy, user, system)
            })
            .collect();
        let disks = keys(s::DISK_UTILISATION, label::DEVICE)
            .into_iter()
            .map(|d| {
                let m = |n| mean(n, label::DEVICE, &d);
                let (util, queue) = (m(s::DISK_UTILISATION), m(s::DISK_QUEUE_DEPTH));
                let deepest = peak(s::DISK_QUEUE_DEPTH, label::DEVICE, &d);
                (d, util, queue, deepest)
            })
            .collect();
        let nics = keys(s::NET_RX_BYTES, label::NIC)
            .into_iter()
            .map(|n| {
                let m = |name| mean(name, label::NIC, &n);
                let (rx, tx) = (m(s::NET_RX_BYTES), m(s::NET_TX_BYTES));
                (n, rx, tx)
            })
            .collect();
        Some(Telemetry { cpus, disks, nics })
    }

    /// The busiest CPU, as "cpu1 at 98 % (user 60 %, system 38 %)".
    fn busiest_cpu(&self) -> Option<String> {
        self.cpus
            .iter()
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|(c, busy, user, system)| {
                format!("cpu{c} at {busy:.0} % (user {user:.0} %, system {system:.0} %)")
            })
    }
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

fn mean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v, n + 1));
    if n == 0 { 0.0 } else { sum / n as f64 }
}

/// Rule 1: a worker thread of the in-process built-in server that never
/// idled: on a CPU or waiting for one nearly all the time.
fn server_cpu(r: &BenchResult, t: &Telemetry) -> Option<String> {
    use http::in_process::{SERVER_THREAD_CPU, SERVER_THREAD_WAIT, THREAD};
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
    (busy >= CPU_SATURATED).then(|| {
        format!(
            "server CPU: built-in server thread {thread} (of {}) busy {busy:.0} % of the time (on a core {running:.0} %, waiting for one {waiting:.0} %); busiest core {}",
            threads.len(),
            t.busiest_cpu().unwrap_or_else(|| "unknown".into())
        )
    })
}

/// Rule 2: the HTTP load generator's threads at full cores.
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

/// Rule 6: memory bandwidth.
fn memory_bandwidth(r: &BenchResult, earlier: &[BenchResult]) -> Option<String> {
    let best = best_bandwidth(r)?;
    if r.benchmark == memory::STREAM {
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

/// Rule 7: saturated cores, named.
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

/// Rule 8: one TCP stream moving about a window per round trip.
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
mod tests {
    use super::*;
    use crate::inventory::NetworkInterface;
    use crate::model::{Better, Metric, TimeSeries, Unit};
    use crate::names::telemetry::{label, series};

    /// A telemetry series `name{key=value}` holding `value` at three points.
    fn tele(name: &str, key: &str, value: &str, v: f64) -> TimeSeries {
        TimeSeries {
            name: name.into(),
            unit: Unit::Percent,
            labels: [
                (
                    telemetry::SOURCE.to_string(),
                    telemetry::SOURCE_TELEMETRY.to_string(),
                ),
                (key.to_string(), value.to_string()),
            ]
            .into(),
            points: vec![(1.0, v), (2.0, v), (3.0, v)],
        }
    }

    /// A `benchmark` result with two CPUs busy `cpu0`/`cpu1` % (user
    /// only) and disk vda at `util` % with `queue` requests in flight.
    fn result(benchmark: &str, cpu0: f64, cpu1: f64, util: f64, queue: f64) -> BenchResult {
        let mut r = BenchResult::new(benchmark);
        for (cpu, busy) in [("0", cpu0), ("1", cpu1)] {
            r.series.push(tele(series::CPU_USER, label::CPU, cpu, busy));
            r.series
                .push(tele(series::CPU_SYSTEM, label::CPU, cpu, 0.0));
        }
        r.series
            .push(tele(series::DISK_UTILISATION, label::DEVICE, "vda", util));
        r.series
            .push(tele(series::DISK_QUEUE_DEPTH, label::DEVICE, "vda", queue));
        r.series
            .push(tele(series::NET_RX_BYTES, label::NIC, "eth0", 1.2e9));
        r.series
            .push(tele(series::NET_TX_BYTES, label::NIC, "eth0", 1e6));
        r
    }

    fn metric(name: &str, v: f64) -> Metric {
        Metric::new(name, v, Unit::Percent, Better::Lower)
    }

    #[test]
    fn a_server_thread_that_never_idles_is_the_server_cpu() {
        let mut r = result(http::LOAD, 97.0, 40.0, 0.0, 0.0);
        for (name, v) in [
            (http::in_process::SERVER_THREAD_CPU, 35.0),
            (http::in_process::SERVER_THREAD_WAIT, 62.0),
        ] {
            r.metrics
                .push(metric(name, v).label(http::in_process::THREAD, 0));
        }
        let line = attribute(&r, &[], None).unwrap();
        assert!(
            line.starts_with("server CPU: built-in server thread 0 (of 1) busy 97 %"),
            "{line}"
        );
        assert!(line.contains("busiest core cpu0 at 97 %"), "{line}");
        // Idle half the time: not the server.
        r.metrics[1].value = 10.0;
        assert!(!attribute(&r, &[], None).unwrap().starts_with("server"));
    }

    #[test]
    fn client_threads_at_full_cores_are_the_client_cpu() {
        let mut r = result(http::LOAD, 99.0, 98.0, 0.0, 0.0);
        r.set_param(http::load::param::THREADS, 2);
        r.metrics
            .push(metric(http::load::CLIENT_CPU_UTILIZATION, 190.0));
        let line = attribute(&r, &[], None).unwrap();
        assert!(
            line.starts_with("client CPU: 2 load-generator thread(s) at 95 %"),
            "{line}"
        );
        r.metrics[0].value = 100.0;
        assert!(
            attribute(&r, &[], None)
                .unwrap()
                .starts_with("CPU: all 2 cores")
        );
    }

    #[test]
    fn a_queue_at_the_configured_depth_is_the_device_queue() {
        let mut r = result(disk::IOZONE, 20.0, 10.0, 100.0, 31.2);
        r.set_param(disk::param::IODEPTH, 32);
        assert_eq!(
            attribute(&r, &[], None).unwrap(),
            "device queue: vda held up to 31.2 requests in flight (31.2 on average over the result), the configured queue depth 32 (100 % utilised)"
        );
        // An IOzone result: a write phase with about 1 in flight, then
        // random reads at 24 of 32: the reads' phase names the queue.
        let mut r = result(disk::IOZONE, 20.0, 10.0, 60.0, 0.0);
        r.set_param(disk::param::IODEPTH, 32);
        let queue = r
            .series
            .iter_mut()
            .find(|s| s.name == series::DISK_QUEUE_DEPTH)
            .unwrap();
        queue.points = vec![(1.0, 0.6), (2.0, 0.5), (3.0, 0.7), (4.0, 22.0), (5.0, 24.0)];
        assert_eq!(
            attribute(&r, &[], None).unwrap(),
            "device queue: vda held up to 24.0 requests in flight (9.6 on average over the result), the configured queue depth 32 (60 % utilised)"
        );
        // Half the depth: the device is busy, its queue is not full.
        let mut r = result(disk::IOZONE, 20.0, 10.0, 99.0, 16.0);
        r.set_param(disk::param::IODEPTH, 32);
        assert_eq!(
            attribute(&r, &[], None).unwrap(),
            "disk: vda busy 99 % of the time (average queue depth 16.0)"
        );
    }

    #[test]
    fn a_nic_at_its_line_rate_is_the_network() {
        let r = result(http::DOWNLOAD, 30.0, 20.0, 0.0, 0.0);
        let mut inv = Inventory::default();
        inv.network_interfaces.push(NetworkInterface {
            name: "eth0".into(),
            speed_mbps: Some(10_000),
            ..NetworkInterface::default()
        });
        // 1.2 GB/s = 9.6 Gbit/s of 10.
        assert_eq!(
            attribute(&r, &[], Some(&inv)).unwrap(),
            "network: eth0 at 96 % of its 10.00 Gbit/s line rate (receive, 9.60 Gbit/s)"
        );
        inv.network_interfaces[0].speed_mbps = Some(100_000);
        assert_eq!(attribute(&r, &[], Some(&inv)).unwrap(), LATENCY_BOUND);
        // No speed known (loopback, virtual NICs): no line-rate rule.
        assert_eq!(attribute(&r, &[], None).unwrap(), LATENCY_BOUND);
    }

    #[test]
    fn memory_results_near_the_stream_peak_are_bandwidth_bound() {
        let bw = |benchmark, v| {
            let mut r = result(benchmark, 100.0, 100.0, 0.0, 0.0);
            r.metrics.push(Metric::new(
                memory::metric::BANDWIDTH,
                v,
                Unit::BytesPerSecond,
                Better::Higher,
            ));
            r
        };
        let stream = bw(memory::STREAM, 10e9);
        assert_eq!(
            attribute(&stream, &[], None).unwrap(),
            "memory bandwidth: STREAM moves 10.00 GB/s at best, the measured peak"
        );
        let blocks = bw(memory::BLOCKS, 9e9);
        assert_eq!(
            attribute(&blocks, std::slice::from_ref(&stream), None).unwrap(),
            "memory bandwidth: 9.00 GB/s is 90 % of the STREAM peak measured in this run (10.00 GB/s)"
        );
        // Without a STREAM result before it, its busy cores are what is known.
        assert!(
            attribute(&blocks, &[], None)
                .unwrap()
                .starts_with("CPU: all 2 cores")
        );
    }

    #[test]
    fn saturated_cores_are_named() {
        let r = result(crate::names::cpu::OPS, 40.0, 99.0, 0.0, 0.0);
        assert_eq!(
            attribute(&r, &[], None).unwrap(),
            "CPU: 1 of 2 cores saturated: cpu1 99 % (user 99 %, system 0 %)"
        );
    }

    #[test]
    fn one_tcp_stream_at_window_per_rtt_is_the_round_trip_time() {
        let mut r = result(net::TCP, 30.0, 20.0, 0.0, 0.0);
        r.set_param(net::param::PARALLEL, 1);
        r.metrics.push(Metric::new(
            net::metric::RTT,
            0.01,
            Unit::Seconds,
            Better::Lower,
        ));
        r.metrics.push(Metric::new(
            net::metric::SND_CWND_MAX,
            1048576.0,
            Unit::Bytes,
            Better::Higher,
        ));
        r.metrics.push(Metric::new(
            net::metric::THROUGHPUT,
            95e6,
            Unit::BytesPerSecond,
            Better::Higher,
        ));
        assert_eq!(
            attribute(&r, &[], None).unwrap(),
            "network round-trip time: one TCP stream with a 1024 KiB window and 10000 µs RTT carries at most 104.86 MB/s"
        );
        r.set_param(net::param::PARALLEL, 4);
        assert_eq!(attribute(&r, &[], None).unwrap(), LATENCY_BOUND);
    }

    #[test]
    fn nothing_saturated_is_latency_bound_and_no_telemetry_is_no_line() {
        let r = result(http::LOAD, 30.0, 20.0, 10.0, 0.5);
        assert_eq!(attribute(&r, &[], None).unwrap(), LATENCY_BOUND);
        let mut bare = r.clone();
        bare.series.clear();
        assert_eq!(attribute(&bare, &[], None), None);
        let mut latency = r;
        latency.benchmark = memory::LATENCY.into();
        assert_eq!(attribute(&latency, &[], None), None);
    }
}
