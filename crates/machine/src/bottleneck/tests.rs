//! The rules, driven by made-up telemetry.
use super::*;
use nodebench_core::inventory::NetworkInterface;
use nodebench_core::model::{Better, Metric, TimeSeries, Unit};
use nodebench_core::names::telemetry::{self, label, series};

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
    assert!(!line.contains("requests"), "none recorded: {line}");
    // With each thread's served count: the busy thread's share.
    for (thread, n) in [(0, 960.0), (1, 40.0)] {
        r.metrics.push(
            Metric::new(
                http::in_process::SERVER_THREAD_REQUESTS,
                n,
                Unit::Count,
                Better::Neither,
            )
            .label(http::in_process::THREAD, thread),
        );
    }
    let line = attribute(&r, &[], None).unwrap();
    assert!(
        line.contains("waiting for one 62 %), serving 960 of 1000 requests (96 %); busiest core"),
        "{line}"
    );
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
fn a_stream_in_the_caches_is_not_memory_bandwidth() {
    let mut r = result(memory::STREAM, 100.0, 100.0, 0.0, 0.0);
    r.metrics.push(Metric::new(
        memory::metric::BANDWIDTH,
        80e9,
        Unit::BytesPerSecond,
        Better::Higher,
    ));
    // 8 MB arrays against 480 MiB of last-level cache (the case).
    r.set_param(memory::param::ARRAY_BYTES, 8_000_000u64);
    let mut inv = Inventory::default();
    inv.cpu.caches.push(nodebench_core::inventory::CacheInfo {
        level: 3,
        kind: "Unified".into(),
        size_bytes: 240 << 20,
        instances: Some(2),
        line_size_bytes: Some(64),
    });
    let line = attribute(&r, &[], Some(&inv)).unwrap();
    assert_eq!(
        line,
        "cache bandwidth: STREAM's arrays (7.63 MiB each) are under 4x the last-level caches (480 MiB), so the caches served part of it"
    );
    // Arrays of 4x the caches follow the rule: memory bandwidth.
    r.set_param(memory::param::ARRAY_BYTES, 4 * (480u64 << 20));
    assert!(
        attribute(&r, &[], Some(&inv))
            .unwrap()
            .starts_with("memory bandwidth: STREAM moves")
    );
}

#[test]
fn saturated_cores_are_named() {
    let r = result(nodebench_core::names::cpu::OPS, 40.0, 99.0, 0.0, 0.0);
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

/// A result of `n` CPUs whose telemetry intervals end at `stamps`, CPU `c`
/// busy `busy(c, stamp)` % (user) in the interval ending at `stamp`.
fn machine(
    benchmark: &str,
    n: usize,
    stamps: &[f64],
    busy: impl Fn(usize, f64) -> f64,
) -> BenchResult {
    let mut r = BenchResult::new(benchmark);
    for c in 0..n {
        let mut user = tele(series::CPU_USER, label::CPU, &c.to_string(), 0.0);
        user.points = stamps.iter().map(|&t| (t, busy(c, t))).collect();
        let mut system = tele(series::CPU_SYSTEM, label::CPU, &c.to_string(), 0.0);
        system.points = stamps.iter().map(|&t| (t, 0.0)).collect();
        r.series.extend([user, system]);
    }
    r
}

/// A phase over `[start, end]` with `labels`.
fn phase(labels: &[(&str, &str)], start_s: f64, end_s: f64) -> nodebench_core::model::Phase {
    nodebench_core::model::Phase {
        labels: labels
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        start_s,
        end_s,
        bottleneck: None,
        disturbance: None,
    }
}

/// An op rate of `kernel` at `threads` against a whole-machine `peak`.
fn rate(kernel: &str, threads: usize, v: f64, peak: f64) -> Metric {
    Metric::new(
        nodebench_core::names::cpu::RATE,
        v,
        Unit::FlopsPerSecond,
        Better::Higher,
    )
    .label(nodebench_core::names::labels::KERNEL, kernel)
    .label(nodebench_core::names::labels::THREADS, threads)
    .with_reference(Some(nodebench_core::model::Reference {
        name: "theoretical peak".into(),
        value: peak,
    }))
}

/// Sets each rate's reference, given as the whole machine's peak, to the
/// peak of the cores its threads can use, as cpu.ops and LINPACK record
/// it now (`Peak::cell_reference`); recorded results held the whole
/// machine's.
fn to_cells(r: &mut BenchResult) {
    let Some(cores) = r.param(peak::PEAK_CORES).and_then(|c| c.as_f64()) else {
        return;
    };
    let threads = r
        .param(nodebench_core::names::labels::THREADS)
        .and_then(|t| t.as_f64());
    for m in &mut r.metrics {
        let Some(reference) = m.reference.take() else {
            continue;
        };
        let t = m
            .label_value(nodebench_core::names::labels::THREADS)
            .and_then(|t| t.parse::<f64>().ok())
            .or(threads)
            .unwrap_or(cores);
        let value = reference.value / cores * t.min(cores);
        *m = m
            .clone()
            .with_reference(Some(nodebench_core::model::Reference {
                name: reference.name,
                value,
            }));
    }
}

fn lines(r: &BenchResult) -> Vec<String> {
    r.phases
        .iter()
        .map(|p| p.bottleneck.clone().unwrap_or_default())
        .collect()
}

#[test]
fn each_phase_of_a_64_cpu_run_gets_the_line_of_its_own_span() {
    // Scalar FMA rates (far below the vector peak) at 1, 8 and 64 threads,
    // pinned to cpu0, cpu0-7, all: the whole result's mean shows one busy
    // CPU, each phase its own.
    let mut r = machine(
        nodebench_core::names::cpu::OPS,
        64,
        &[1.0, 2.0, 3.0],
        |c, t| match t {
            1.0 if c == 0 => 100.0,
            2.0 if c < 8 => 99.0,
            3.0 => 97.0,
            _ => 1.0,
        },
    );
    r.set_param(peak::PEAK_CORES, 64);
    for (t, v) in [(1, 2e9), (8, 16e9), (64, 120e9)] {
        r.metrics.push(rate("f64.scalar", t, v, 64.0 * 80e9));
    }
    r.phases = vec![
        phase(&[("threads", "1")], 0.0, 1.0),
        phase(&[("threads", "8")], 1.0, 2.0),
        phase(&[("threads", "64")], 2.0, 3.0),
    ];
    to_cells(&mut r);
    attribute_all(&mut r, &[], None);
    assert_eq!(r.bottleneck, None);
    let got = lines(&r);
    assert_eq!(
        got[0],
        "CPU: 1 of 64 cores saturated: cpu0 100 % (user 100 %, system 0 %)"
    );
    assert!(
        got[1].starts_with("CPU: 8 of 64 cores saturated: cpu"),
        "{}",
        got[1]
    );
    assert!(got[1].ends_with("and 4 more"), "{}", got[1]);
    assert!(
        got[2].starts_with("CPU: all 64 cores saturated"),
        "{}",
        got[2]
    );
    // Read as one piece, the same telemetry names one core at best.
    let mut whole = r.clone();
    whole.phases.clear();
    assert!(!attribute(&whole, &[], None).unwrap().contains("all 64"));
}

#[test]
fn a_kernel_near_the_peak_of_its_cores_is_compute_bound_on_256_cpus() {
    // 256 CPUs, 128 cores with SMT2: the peak counts 128 cores, one core's
    // share is 1/128 of it. 1 thread at 95 % of a core; 256 threads at 92 %
    // of all 128; 64 threads at 50 % of 64 cores: not compute-bound, and
    // its 64 busy CPUs are named, never "latency-bound".
    let per_core = 100e9;
    let peak = 128.0 * per_core;
    let mut r = machine(
        nodebench_core::names::cpu::OPS,
        256,
        &[1.0, 2.0, 3.0],
        |c, t| match t {
            1.0 if c == 0 => 100.0,
            2.0 if c < 64 => 100.0,
            3.0 => 100.0,
            _ => 0.0,
        },
    );
    r.set_param(peak::PEAK_CORES, 128);
    r.metrics.push(rate("f64.vector", 1, 0.95 * per_core, peak));
    r.metrics
        .push(rate("f64.vector", 64, 0.5 * 64.0 * per_core, peak));
    r.metrics.push(rate("f64.vector", 256, 0.92 * peak, peak));
    r.phases = vec![
        phase(&[("kernel", "f64.vector"), ("threads", "1")], 0.0, 1.0),
        phase(&[("kernel", "f64.vector"), ("threads", "64")], 1.0, 2.0),
        phase(&[("kernel", "f64.vector"), ("threads", "256")], 2.0, 3.0),
    ];
    to_cells(&mut r);
    attribute_all(&mut r, &[], None);
    let got = lines(&r);
    assert_eq!(got[0], "compute-bound: FMA units at 95 % of peak on 1 core");
    assert!(
        got[1].starts_with("CPU: 64 of 256 cores saturated"),
        "{}",
        got[1]
    );
    assert_eq!(
        got[2],
        "compute-bound: FMA units at 92 % of peak on 128 cores (256 threads)"
    );
}

#[test]
fn unpinned_threads_moving_between_cpus_are_never_latency_bound() {
    // 8 threads wandering over 256 CPUs: every CPU about 3.1 % busy, 800 %
    // of one CPU in all.
    let mut r = machine(memory::BLOCKS, 256, &[1.0, 2.0], |_, _| 800.0 / 256.0);
    r.set_param(nodebench_core::names::labels::THREADS, 8);
    assert_eq!(
        attribute(&r, &[], None).unwrap(),
        "CPU: 8 thread(s) kept 8 of 256 CPUs' worth busy (800 % of one CPU in all), moving between CPUs"
    );
    // Half that: the threads waited; nothing is saturated.
    let mut idle = machine(memory::BLOCKS, 256, &[1.0, 2.0], |_, _| 400.0 / 256.0);
    idle.set_param(nodebench_core::names::labels::THREADS, 8);
    assert_eq!(attribute(&idle, &[], None).unwrap(), LATENCY_BOUND);
    // An HTTP load's `threads` are its client's: the in-process server's
    // threads busy the CPUs too, so the rule does not count them.
    let mut load = machine(http::LOAD, 2, &[1.0, 2.0], |_, _| 85.0);
    load.set_param(nodebench_core::names::labels::THREADS, 1);
    assert_eq!(attribute(&load, &[], None).unwrap(), LATENCY_BOUND);
}

#[test]
fn a_saturated_stream_thread_is_named_with_its_core() {
    let mut r = machine(net::TCP, 16, &[1.0, 2.0], |_, _| 10.0);
    r.set_param(net::param::PARALLEL, 1);
    for (host, role, v) in [("client", "sender", 99.2), ("server", "receiver", 71.0)] {
        r.metrics.push(
            metric(net::metric::THREAD_CPU, v)
                .label(net::label::DIRECTION, "client_to_server")
                .label(net::label::HOST, host)
                .label(net::label::SIDE, role),
        );
    }
    r.set_param(
        net::param::THREAD_LAST_CPU,
        serde_json::json!({"client_to_server client sender": 3, "client_to_server server receiver": 9}),
    );
    assert_eq!(
        attribute(&r, &[], None).unwrap(),
        "CPU: client sender thread on a core 99 % of the test (last on cpu3)"
    );
    r.metrics[1].value = 95.0;
    assert_eq!(
        attribute(&r, &[], None).unwrap(),
        "CPU: client sender thread on a core 99 % of the test (last on cpu3); server receiver thread on a core 95 % of the test (last on cpu9)"
    );
}

/// The recorded 16-vCPU Emerald Rapids results (fixtures/emr16.json).
fn emr16(which: &str) -> BenchResult {
    let all: serde_json::Value = serde_json::from_str(include_str!("fixtures/emr16.json")).unwrap();
    serde_json::from_value(all[which].clone()).unwrap()
}

#[test]
fn recorded_16_vcpu_fma_phases_are_compute_bound_on_8_effective_cores() {
    // Stored then: "CPU: 1 of 16 cores saturated: cpu0" for the whole
    // result. Its telemetry has the single-thread phase alone in the
    // interval ending at 1.46 s and the 16-thread phase in the one ending
    // at 3.46 s (CPUs 42-80 % busy: the 16 vCPUs float over 8 cores).
    let mut r = emr16("cpu_ops");
    assert!(
        r.bottleneck
            .as_deref()
            .unwrap()
            .starts_with("CPU: 1 of 16 cores saturated: cpu0")
    );
    // The peak as this version records it: 8 effective cores x 2.699 GHz
    // x 32 DP FLOP/cycle.
    let peak = 8.0 * 2.699e9 * 32.0;
    r.set_param(peak::PEAK_CORES, 8);
    for m in &mut r.metrics {
        m.reference.as_mut().unwrap().value = peak;
    }
    r.phases = vec![
        phase(
            &[
                ("kernel", "f64.vector"),
                ("scaling", "strong"),
                ("threads", "1"),
            ],
            0.47,
            1.46,
        ),
        phase(
            &[
                ("kernel", "f64.vector"),
                ("scaling", "weak"),
                ("threads", "16"),
            ],
            2.47,
            3.46,
        ),
    ];
    to_cells(&mut r);
    attribute_all(&mut r, &[], None);
    assert_eq!(
        lines(&r),
        [
            "compute-bound: FMA units at 100 % of peak on 1 core",
            "compute-bound: FMA units at 99 % of peak on 8 cores (16 threads)",
        ]
    );
    // Against 16 physical cores (49 % of that peak) the 16-thread phase is
    // not compute-bound; of its CPUs only cpu0 was busy 90 % of the span.
    r.set_param(peak::PEAK_CORES, 16);
    for m in &mut r.metrics {
        m.reference.as_mut().unwrap().value = 2.0 * peak;
    }
    to_cells(&mut r);
    attribute_all(&mut r, &[], None);
    assert_eq!(
        lines(&r)[1],
        "CPU: 1 of 16 cores saturated: cpu0 100 % (user 100 %, system 0 %)"
    );
}

#[test]
fn recorded_16_vcpu_http_load_names_both_client_and_server() {
    // Stored then: only "server CPU: ..." though the one load-generator
    // thread ran at 99.7 % of a core too.
    let r = emr16("http_load");
    let line = attribute(&r, &[], None).unwrap();
    assert!(
        line.starts_with("client CPU: 1 load-generator thread(s) at 100 % of a core each"),
        "{line}"
    );
    assert!(
        line.contains("; and server CPU: built-in server thread 0 (of 16) busy 96 %"),
        "{line}"
    );
}

#[test]
fn phases_shorter_than_the_telemetry_leave_one_line_for_the_result() {
    // Two 35 ms LINPACK solves inside one 100 ms interval: the interval's
    // readings are mostly the matrix fill and the check around them.
    let mut r = machine(linpack::LINPACK, 2, &[0.1], |_, _| 95.0);
    r.phases = vec![
        phase(&[("trial", "1")], 0.008, 0.043),
        phase(&[("trial", "2")], 0.059, 0.094),
    ];
    attribute_all(&mut r, &[], None);
    assert_eq!(lines(&r), ["", ""]);
    assert!(
        r.bottleneck
            .as_deref()
            .unwrap()
            .starts_with("CPU: all 2 cores saturated")
    );
    // Sampled at their ends, each phase has readings of its own.
    let mut r = machine(linpack::LINPACK, 2, &[0.043, 0.094], |c, t| {
        if t < 0.05 || c == 0 { 95.0 } else { 10.0 }
    });
    r.phases = vec![
        phase(&[("trial", "1")], 0.008, 0.043),
        phase(&[("trial", "2")], 0.059, 0.094),
    ];
    attribute_all(&mut r, &[], None);
    assert_eq!(r.bottleneck, None);
    assert!(
        lines(&r)[0].starts_with("CPU: all 2 cores"),
        "{:?}",
        lines(&r)
    );
    assert!(
        lines(&r)[1].starts_with("CPU: 1 of 2 cores"),
        "{:?}",
        lines(&r)
    );
}

#[test]
fn recorded_16_vcpu_fma_phases_are_never_latency_bound() {
    // The lent device's 16 vCPUs (fixtures/device16.json): at 8 and 16
    // threads the pinned CPUs were 50-91 % busy (threads waiting for the
    // slowest, FMA units shared on the host): "nothing saturated
    // (latency-bound)" before rule 11.
    let all: serde_json::Value =
        serde_json::from_str(include_str!("fixtures/device16.json")).unwrap();
    let mut r: BenchResult = serde_json::from_value(all["cpu_ops"].clone()).unwrap();
    to_cells(&mut r);
    attribute_all(&mut r, &[], None);
    let got = lines(&r);
    assert_eq!(got.len(), 5);
    assert!(got.iter().all(|l| l != LATENCY_BOUND), "{got:#?}");
    assert_eq!(
        got[3],
        "CPU: the 8 busiest CPUs (one per thread) 74 % busy on average (65-82 %), none saturated: a compute kernel's threads wait only for the slowest of them or for a CPU the hypervisor withheld"
    );
    // One thread: 106 % of one core's share of the all-core peak, said so.
    assert!(
        got[0].starts_with("compute-bound: FMA units at 106 % of peak on 1 core (above it"),
        "{}",
        got[0]
    );
}

#[test]
fn a_compute_kernel_whose_cpus_were_never_saturated_says_how_busy_they_were() {
    // 64 CPUs, 8 pinned threads at 60-74 %: never latency-bound; the same
    // telemetry under a memory benchmark is.
    let mut r = machine(nodebench_core::names::cpu::OPS, 64, &[1.0], |c, _| {
        if c < 8 { 60.0 + 2.0 * c as f64 } else { 0.5 }
    });
    r.phases = vec![phase(&[("threads", "8")], 0.0, 1.0)];
    attribute_all(&mut r, &[], None);
    assert_eq!(
        lines(&r)[0],
        "CPU: the 8 busiest CPUs (one per thread) 67 % busy on average (60-74 %), none saturated: a compute kernel's threads wait only for the slowest of them or for a CPU the hypervisor withheld"
    );
    r.benchmark = memory::BLOCKS.into();
    attribute_all(&mut r, &[], None);
    assert_eq!(lines(&r)[0], LATENCY_BOUND);
}
