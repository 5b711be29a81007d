//! Energy in results, end to end: a recorded `/sys` tree (the 2-vCPU guest
//! with a RAPL package zone) whose `energy_uj` a thread here advances at a
//! known rate, across the counter's wrap, while `cpu ops` runs; the stored
//! joules, watts and GFLOPS per watt are checked against it. And a machine
//! without a sensor: no power figure at all.

mod common;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use common::{bin, json};
use nodebench_core::names::energy::{label, metric};
use nodebench_machine::inventory::fixtures::trees;
use nodebench_machine::sysroot::{PROCFS_ROOT_ENV, SYSFS_ROOT_ENV};
use serde_json::Value;

/// The counter's range: 200 J, so that at [`WATTS`] it wraps every 2 s,
/// at least once in the 3 s result wherever it begins (the watch reads the
/// counter every second, so it never wraps twice unseen).
const RANGE_UJ: u64 = 200_000_000;
/// The rate the thread advances the counter at: 100 W.
const WATTS: f64 = 100.0;

const OPS: &[&str] = &[
    "--json",
    "--no-save",
    "-q",
    "cpu",
    "ops",
    "--threads",
    "1",
    "--duration",
    "1500ms",
    "--repeats",
    "2",
    "--warmup",
    "0",
    "--kernels",
    "f64.vector",
];

/// Seconds since the epoch.
fn now_s() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

/// A result's time as seconds since the epoch.
fn at(v: &Value) -> f64 {
    let t = chrono::DateTime::parse_from_rfc3339(v.as_str().unwrap()).unwrap();
    t.timestamp_micros() as f64 / 1e6
}

/// The counter's unwrapped joules at `t`, from the writer's log.
fn joules_at(log: &[(f64, f64)], t: f64) -> f64 {
    let i = log.partition_point(|(s, _)| *s <= t);
    assert!(i > 0 && i < log.len(), "{t} outside the log");
    let ((t0, e0), (t1, e1)) = (log[i - 1], log[i]);
    e0 + (e1 - e0) * (t - t0) / (t1 - t0)
}

/// Writes `energy_uj` every 2 ms at [`WATTS`], atomically (a new file
/// renamed over it), logging (time, unwrapped J).
fn advance(zone: PathBuf, stop: Arc<AtomicBool>, log: Arc<Mutex<Vec<(f64, f64)>>>) {
    let start_uj = RANGE_UJ / 2;
    let t0 = Instant::now();
    let tmp = zone.with_file_name("energy_uj.new");
    while !stop.load(Ordering::SeqCst) {
        let (t, wall) = (t0.elapsed().as_secs_f64(), now_s());
        let unwrapped = start_uj + (t * WATTS * 1e6) as u64;
        std::fs::write(&tmp, format!("{}\n", unwrapped % RANGE_UJ)).unwrap();
        std::fs::rename(&tmp, &zone).unwrap();
        log.lock().unwrap().push((wall, unwrapped as f64 / 1e6));
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn zone_tree(root: &Path) -> PathBuf {
    trees::write("kvm2", root).unwrap();
    let dir = root.join("sys/class/powercap/intel-rapl:0");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("name"), "package-0\n").unwrap();
    std::fs::write(dir.join("max_energy_range_uj"), format!("{RANGE_UJ}\n")).unwrap();
    dir.join("energy_uj")
}

fn metric_of<'a>(r: &'a Value, name: &str, labels: &[(&str, &str)]) -> Option<&'a Value> {
    r["metrics"].as_array().unwrap().iter().find(|m| {
        m["name"] == name
            && labels
                .iter()
                .all(|(k, v)| m["labels"][*k].as_str() == Some(*v))
    })
}

#[test]
fn rapl_joules_and_watts_across_a_wrap_match_the_counter_within_1_percent() {
    let root = tempfile::tempdir().unwrap();
    let zone = zone_tree(root.path());
    let stop = Arc::new(AtomicBool::new(false));
    let log = Arc::new(Mutex::new(Vec::new()));
    let writer = {
        let (zone, stop, log) = (zone.clone(), Arc::clone(&stop), Arc::clone(&log));
        std::thread::spawn(move || advance(zone, stop, log))
    };
    while log.lock().unwrap().is_empty() {
        std::thread::sleep(Duration::from_millis(1));
    }
    let out = bin()
        .args(OPS)
        .env(SYSFS_ROOT_ENV, root.path().join("sys"))
        .env(PROCFS_ROOT_ENV, root.path().join("proc"))
        .output()
        .unwrap();
    std::thread::sleep(Duration::from_millis(20));
    stop.store(true, Ordering::SeqCst);
    writer.join().unwrap();
    let run = json(&out);
    let log = log.lock().unwrap().clone();
    let inventory = run["inventory"]["power"]["sources"].to_string();
    assert!(inventory.contains("intel-rapl:0"), "{inventory}");
    let r = &run["results"][0];
    let (from, to) = (at(&r["started_at"]), at(&r["ended_at"]));
    // The counter wrapped inside the result.
    let wraps = |t| (joules_at(&log, t) / (RANGE_UJ as f64 / 1e6)).floor();
    assert!(wraps(to) > wraps(from), "no wrap inside the result");
    let rapl = [(label::SOURCE, "rapl"), (label::SENSOR, "intel-rapl:0")];
    let whole = |name| {
        r["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| {
                m["name"] == name
                    && rapl
                        .iter()
                        .all(|(k, v)| m["labels"][*k].as_str() == Some(*v))
                    && m["labels"].get("threads").is_none()
            })
            .unwrap_or_else(|| panic!("no {name} in {r}"))["value"]
            .as_f64()
            .unwrap()
    };
    let want = joules_at(&log, to) - joules_at(&log, from);
    let joules = whole(metric::ENERGY);
    assert!(
        (joules / want - 1.0).abs() < 0.01,
        "{joules} J stored, {want} J counted over {} s",
        to - from
    );
    let watts = whole(metric::POWER);
    eprintln!(
        "{joules} J stored, {want} J counted, {watts} W over {} s",
        to - from
    );
    assert!((watts / WATTS - 1.0).abs() < 0.01, "{watts} W");
    // GFLOPS per watt: the phase's rate over the package's watts, naming it.
    let rate = metric_of(r, "rate", &[("threads", "1")]).unwrap()["value"]
        .as_f64()
        .unwrap();
    let eff = metric_of(r, metric::GFLOPS_PER_WATT, &[("threads", "1")])
        .unwrap_or_else(|| panic!("no gflops_per_watt in {r}"));
    let eff_value = eff["value"].as_f64().unwrap();
    assert!(
        (eff_value / (rate / 1e9 / WATTS) - 1.0).abs() < 0.01,
        "{eff_value} GFLOPS/W for {rate} flop/s at {WATTS} W"
    );
    assert_eq!(eff["labels"][label::SENSOR], "intel-rapl:0");
    assert_eq!(eff["labels"][label::SCOPE], "package");
}

#[test]
fn a_machine_without_a_sensor_says_so_and_stores_no_power_figure() {
    let root = tempfile::tempdir().unwrap();
    trees::write("kvm2", root.path()).unwrap();
    nodebench_machine::energy::fixtures::write("none", root.path()).unwrap();
    let mut args = OPS.to_vec();
    args[8] = "20ms";
    let out = bin()
        .args(&args)
        .env(SYSFS_ROOT_ENV, root.path().join("sys"))
        .env(PROCFS_ROOT_ENV, root.path().join("proc"))
        .output()
        .unwrap();
    let run = json(&out);
    assert_eq!(
        run["inventory"]["power"]["unavailable"],
        "no power sensor readable"
    );
    for r in run["results"].as_array().unwrap() {
        for m in r["metrics"].as_array().unwrap() {
            let name = m["name"].as_str().unwrap();
            assert!(
                ![metric::ENERGY, metric::POWER, metric::GFLOPS_PER_WATT].contains(&name),
                "{m}"
            );
        }
    }
}
