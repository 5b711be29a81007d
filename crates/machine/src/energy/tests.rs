//! The watch against counters the test sets itself.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use chrono::Utc;
use nodebench_core::model::{BenchResult, Metric, Phase, Unit};
use nodebench_core::names::energy::{label, metric, scope, source};
use nodebench_core::names::{gpu, linpack};
use nodebench_core::{Better, names};

use super::{Acc, Found, Reader, Source, Watch, advance, integrate};
use std::time::{Duration, Instant};

/// A counter source whose joules (in mJ) the test sets.
fn counter(src: &'static str, scope: &'static str, sensor: &str, mj: &Arc<AtomicU64>) -> Source {
    let theirs = Arc::clone(mj);
    Source {
        source: src,
        scope,
        sensor: sensor.into(),
        how: "test".into(),
        bus_id: (src == source::NVML).then(|| "0000:8a:00.0".to_string()),
        nested: false,
        shortest: Duration::ZERO,
        reader: Reader::Counter {
            read: Box::new(move || Some(theirs.load(Ordering::SeqCst) as f64 / 1e3)),
            range: None,
        },
    }
}

fn value(r: &BenchResult, name: &str, labels: &[(&str, &str)]) -> f64 {
    r.metric(name, labels)
        .unwrap_or_else(|| panic!("no {name} {labels:?} in {:#?}", r.metrics))
        .value
}

#[test]
fn no_source_says_so_and_adds_nothing() {
    let mut w = Watch::with(Found {
        sources: vec![],
        notes: vec!["RAPL needs root".into()],
    });
    assert_eq!(w.none(), Some("no power sensor readable (RAPL needs root)"));
    let mut r = BenchResult::new(linpack::LINPACK);
    r.metrics.push(Metric::new(
        linpack::RATE,
        1e9,
        Unit::FlopsPerSecond,
        Better::Higher,
    ));
    w.finish(&mut r);
    assert_eq!(r.metrics.len(), 1, "no zero where no source said anything");
}

#[test]
fn a_gpu_result_gets_its_joules_per_phase_and_gflops_per_watt_from_its_own_gpu() {
    let gpu0 = Arc::new(AtomicU64::new(5_000_000));
    let pkg = Arc::new(AtomicU64::new(0));
    let mut w = Watch::with(Found {
        sources: vec![
            counter(source::NVML, scope::GPU, "gpu0", &gpu0),
            counter(source::RAPL, scope::PACKAGE, "intel-rapl:0", &pkg),
        ],
        notes: vec![],
    });
    let mut r = BenchResult::new(gpu::GEMM);
    r.set_param(gpu::param::BUS_ID, "0000:8a:00.0");
    // Setup: 100 J on the GPU before the phase.
    gpu0.fetch_add(100_000, Ordering::SeqCst);
    std::thread::sleep(Duration::from_millis(20));
    w.mark();
    let phase_start = Utc::now();
    std::thread::sleep(Duration::from_millis(50));
    // The phase: 700 J on the GPU, 30 J on the package.
    gpu0.fetch_add(700_000, Ordering::SeqCst);
    pkg.fetch_add(30_000, Ordering::SeqCst);
    w.mark();
    let phase_end = Utc::now();
    std::thread::sleep(Duration::from_millis(20));
    gpu0.fetch_add(50_000, Ordering::SeqCst);
    let since =
        |t: chrono::DateTime<Utc>| (t - r.started_at).num_microseconds().unwrap() as f64 / 1e6;
    r.phases.push(Phase {
        labels: [("gpu", "0"), ("precision", "fp32"), ("n", "8192")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        start_s: since(phase_start),
        end_s: since(phase_end),
        bottleneck: None,
        disturbance: None,
    });
    r.metrics.push(
        Metric::new(
            gpu::metric::RATE,
            50e12,
            Unit::FlopsPerSecond,
            Better::Higher,
        )
        .label("gpu", 0)
        .label("precision", "fp32")
        .label("n", 8192),
    );
    w.finish(&mut r);
    let nvml = [(label::SOURCE, source::NVML), (label::SENSOR, "gpu0")];
    // The whole result: setup, phase and teardown.
    assert!((value(&r, metric::ENERGY, &nvml) - 850.0).abs() < 1e-9);
    let phase = [
        (label::SOURCE, source::NVML),
        ("precision", "fp32"),
        ("n", "8192"),
    ];
    assert!((value(&r, metric::ENERGY, &phase) - 700.0).abs() < 1e-9);
    let phase_watts = value(&r, metric::POWER, &phase);
    let rapl = [(label::SOURCE, source::RAPL), ("precision", "fp32")];
    assert!((value(&r, metric::ENERGY, &rapl) - 30.0).abs() < 1e-9);
    // GFLOPS per watt: the phase's rate over the GPU's own phase watts, not
    // the package's, naming the GPU.
    let eff = r
        .metric(
            names::energy::metric::GFLOPS_PER_WATT,
            &[("precision", "fp32")],
        )
        .unwrap();
    assert!((eff.value - 50e3 / phase_watts).abs() < 1e-6 * eff.value);
    assert_eq!(eff.label_value(label::SENSOR), Some("gpu0"));
    assert_eq!(eff.label_value(label::SOURCE), Some(source::NVML));
    assert_eq!(eff.better, Better::Higher);
    assert_eq!(
        r.metrics_named(names::energy::metric::GFLOPS_PER_WATT)
            .count(),
        1
    );
}

#[test]
fn a_gpu_result_without_its_gpus_counter_gets_no_efficiency() {
    let gpu0 = Arc::new(AtomicU64::new(0));
    let mut w = Watch::with(Found {
        sources: vec![counter(source::NVML, scope::GPU, "gpu0", &gpu0)],
        notes: vec![],
    });
    let mut r = BenchResult::new(gpu::GEMM);
    r.set_param(gpu::param::BUS_ID, "0000:01:00.0");
    r.metrics.push(Metric::new(
        gpu::metric::RATE,
        1e12,
        Unit::FlopsPerSecond,
        Better::Higher,
    ));
    gpu0.fetch_add(1_000, Ordering::SeqCst);
    w.finish(&mut r);
    assert!(r.metric(metric::ENERGY, &[]).is_some());
    assert_eq!(
        r.metrics_named(names::energy::metric::GFLOPS_PER_WATT)
            .count(),
        0
    );
}

#[test]
fn a_counter_wrapping_once_counts_across_the_wrap() {
    let mut acc = Acc::default();
    advance(&mut acc, 90.0, Some(100.0));
    assert_eq!(acc.total, Some(0.0));
    advance(&mut acc, 95.0, Some(100.0));
    advance(&mut acc, 5.0, Some(100.0));
    assert_eq!(acc.total, Some(15.0));
    // Without a range a counter going back is a reset: nothing added.
    advance(&mut acc, 1.0, None);
    assert_eq!(acc.total, Some(15.0));
}

#[test]
fn watts_are_integrated_as_trapezoids() {
    let mut acc = Acc::default();
    let t0 = Instant::now();
    integrate(&mut acc, t0, 100.0);
    integrate(&mut acc, t0 + Duration::from_secs(2), 200.0);
    assert_eq!(acc.total, Some(300.0));
}

/// The sources found in power tree `name`, and the tree.
fn found_in(name: &str) -> (Found, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    super::fixtures::write(name, dir.path()).unwrap();
    let roots = crate::sysroot::Roots::under(dir.path());
    (super::discover_at(&roots), dir)
}

fn listed(f: &Found) -> Vec<String> {
    f.sources
        .iter()
        .map(|s| format!("{} {} {} nested={}", s.source, s.sensor, s.scope, s.nested))
        .collect()
}

#[test]
fn a_two_socket_intel_tree_gives_packages_and_dram_divided_by_together() {
    let (found, dir) = found_in("intel-2s");
    assert_eq!(
        listed(&found),
        [
            "rapl intel-rapl:0 package nested=false",
            "rapl intel-rapl:0:0 dram nested=false",
            "rapl intel-rapl:1 package nested=false",
            "rapl intel-rapl:1:0 dram nested=false",
        ]
    );
    assert!(
        found.sources[0].how.contains("wraps at 262143 J"),
        "{}",
        found.sources[0].how
    );
    let zone = |z: &str| dir.path().join(format!("sys/class/powercap/{z}/energy_uj"));
    let before = Instant::now();
    let mut w = Watch::with(found);
    let mut r = BenchResult::new(linpack::LINPACK);
    r.metrics.push(Metric::new(
        linpack::RATE,
        100e9,
        Unit::FlopsPerSecond,
        Better::Higher,
    ));
    // 100 J and 20 J per socket's package and DRAM, package 1 across its wrap.
    std::fs::write(zone("intel-rapl:0"), "81334567890").unwrap();
    std::fs::write(zone("intel-rapl:0:0"), "12365678901").unwrap();
    std::fs::write(zone("intel-rapl:1"), "99999999").unwrap();
    std::fs::write(zone("intel-rapl:1:0"), "11131111111").unwrap();
    std::thread::sleep(Duration::from_millis(30));
    w.finish(&mut r);
    let secs = before.elapsed().as_secs_f64();
    let e = |z| value(&r, metric::ENERGY, &[(label::SENSOR, z)]);
    assert!((e("intel-rapl:0") - 100.0).abs() < 1e-6);
    assert!((e("intel-rapl:0:0") - 20.0).abs() < 1e-6);
    // 262143328850 - 79876543210 + 99999999 uJ: the wrap counted once.
    assert!(
        (e("intel-rapl:1") - 182_366.785_639).abs() < 1e-3,
        "{}",
        e("intel-rapl:1")
    );
    let eff = r
        .metric(names::energy::metric::GFLOPS_PER_WATT, &[])
        .unwrap();
    assert_eq!(
        eff.label_value(label::SENSOR),
        Some("intel-rapl:0+intel-rapl:0:0+intel-rapl:1+intel-rapl:1:0")
    );
    assert_eq!(eff.label_value(label::SCOPE), Some(scope::PACKAGE_DRAM));
    let joules = 100.0 + 20.0 + e("intel-rapl:1") + 20.0;
    // The watts are over the watch's own span, at least the sleep, at most
    // the time since.
    assert!(eff.value <= 100.0 * secs / joules * 1.0001);
    assert!(eff.value >= 100.0 * 0.030 / joules);
}

#[test]
fn an_amd_tree_gives_packages_with_their_cores_inside() {
    let (found, _dir) = found_in("amd-2s");
    assert_eq!(
        listed(&found),
        [
            "rapl intel-rapl:0 package nested=false",
            "rapl intel-rapl:0:0 core nested=true",
            "rapl intel-rapl:1 package nested=false",
            "rapl intel-rapl:1:0 core nested=true",
        ]
    );
}

#[test]
fn an_acpi_power_meter_is_the_whole_node_in_watts() {
    let (found, _dir) = found_in("acpi-meter");
    assert_eq!(listed(&found), ["hwmon hwmon0/power1 node nested=false"]);
    assert!(
        found.sources[0]
            .how
            .contains("power1_average (power_meter)")
    );
    let mut w = Watch::with(found);
    std::thread::sleep(Duration::from_millis(50));
    let mut r = BenchResult::new(linpack::LINPACK);
    r.metrics.push(Metric::new(
        linpack::RATE,
        312e9,
        Unit::FlopsPerSecond,
        Better::Higher,
    ));
    w.finish(&mut r);
    let watts = value(&r, metric::POWER, &[(label::SOURCE, source::HWMON)]);
    assert!((watts - 312.0).abs() < 1e-6, "{watts}");
    let eff = r
        .metric(names::energy::metric::GFLOPS_PER_WATT, &[])
        .unwrap();
    assert!((eff.value - 1.0).abs() < 1e-6);
    assert_eq!(eff.label_value(label::SCOPE), Some(scope::NODE));
}

#[test]
fn a_machine_with_no_sensor_says_so() {
    let (found, _dir) = found_in("none");
    assert!(found.sources.is_empty());
    assert_eq!(
        found.why_none().as_deref(),
        Some("no power sensor readable")
    );
}

#[test]
fn unreadable_zones_say_rapl_needs_root() {
    let (_, dir) = found_in("intel-2s");
    let roots = crate::sysroot::Roots::under(dir.path());
    let mut found = Found::default();
    // The kernel's 0400 energy_uj as a non-root run meets it (root reads
    // any file, so the refusal is handed in).
    super::rapl::discover_with(&roots, &mut found, &|_| {
        Err(std::io::Error::from(std::io::ErrorKind::PermissionDenied))
    });
    assert!(found.sources.is_empty());
    assert_eq!(found.notes, [super::rapl::NEEDS_ROOT]);
    assert_eq!(
        found.why_none().as_deref(),
        Some("no power sensor readable (RAPL needs root)")
    );
}

/// A span shorter than a stepping counter's shortest (NVML's) gets no
/// energy, power or efficiency figure: never the 0 J or the doubled watts
/// a step read over 60 ms gave.
#[test]
fn a_span_shorter_than_the_counters_step_gets_no_figure() {
    let gpu0 = Arc::new(AtomicU64::new(5_000_000));
    let mut nvml = counter(source::NVML, scope::GPU, "gpu0", &gpu0);
    nvml.shortest = Duration::from_secs(1);
    let mut w = Watch::with(Found {
        sources: vec![nvml],
        notes: vec![],
    });
    let mut r = BenchResult::new(gpu::GEMM);
    r.set_param(gpu::param::BUS_ID, "0000:8a:00.0");
    r.metrics.push(Metric::new(
        gpu::metric::RATE,
        50e12,
        Unit::FlopsPerSecond,
        Better::Higher,
    ));
    std::thread::sleep(Duration::from_millis(50));
    w.finish(&mut r);
    assert_eq!(r.metrics.len(), 1, "{:#?}", r.metrics);
}
