//! Energy in results, end to end: a recorded `/sys` tree (the 2-vCPU guest
//! with a RAPL package zone) whose `energy_uj` a thread here advances at a
//! known rate, across the counter's wrap, while `cpu ops` runs; the stored
//! joules, watts and GFLOPS per watt are checked against it. The idle draw
//! (`power idle`) at one rate, then a benchmark at a higher one: its
//! figures above idle. And a machine without a sensor: no power figure at
//! all, and `power idle` fails.

use crate::common;
use crate::rapl;

use common::{TempStore, bin, json, one_line_error, stderr, stdout};
use nodebench_core::names::energy::{self as names, draw, label, metric, param};
use nodebench_machine::inventory::fixtures::trees;
use nodebench_machine::sysroot::{PROCFS_ROOT_ENV, SYSFS_ROOT_ENV};
use rapl::{Rapl, ZONE, at};
use serde_json::Value;
use std::time::Duration;

/// The counter's range: 200 J, so that at [`WATTS`] it wraps every 2 s,
/// at least once in the 3 s result wherever it begins (the watch reads the
/// counter every second, so it never wraps twice unseen).
const RANGE_UJ: u64 = 200_000_000;
/// The rate the thread advances the counter at: 100 W.
const WATTS: f64 = 100.0;
/// The idle rate of the above-idle test.
const IDLE_WATTS: f64 = 20.0;

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
    let mut rapl = Rapl::start(RANGE_UJ, WATTS);
    let out = rapl.env(&mut bin()).args(OPS).output().unwrap();
    rapl.stop();
    let run = json(&out);
    let inventory = run["inventory"]["power"]["sources"].to_string();
    assert!(inventory.contains("intel-rapl:0"), "{inventory}");
    let r = &run["results"][0];
    let (from, to) = (at(&r["started_at"]), at(&r["ended_at"]));
    // The counter wrapped inside the result.
    let wraps = |t| (rapl.joules_at(t) / (RANGE_UJ as f64 / 1e6)).floor();
    assert!(wraps(to) > wraps(from), "no wrap inside the result");
    let zone = [(label::SOURCE, "rapl"), (label::SENSOR, ZONE)];
    let whole = |name| {
        r["metrics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| {
                m["name"] == name
                    && zone
                        .iter()
                        .all(|(k, v)| m["labels"][*k].as_str() == Some(*v))
                    && m["labels"].get("threads").is_none()
            })
            .unwrap_or_else(|| panic!("no {name} in {r}"))["value"]
            .as_f64()
            .unwrap()
    };
    let want = rapl.joules_at(to) - rapl.joules_at(from);
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

/// `OPS` saving to `t`'s store instead of `--no-save`.
fn ops_saved(rapl: &Rapl, t: &TempStore) -> Value {
    let args: Vec<&str> = OPS.iter().copied().filter(|a| *a != "--no-save").collect();
    json(&rapl.env(&mut t.command()).args(&args).output().unwrap())
}

/// The whole result's figure `name` of the zone (not a phase's).
fn whole<'a>(r: &'a Value, name: &str, extra: &[(&str, &str)]) -> Option<&'a Value> {
    r["metrics"].as_array().unwrap().iter().find(|m| {
        m["name"] == name
            && m["labels"][label::SENSOR] == ZONE
            && m["labels"].get("threads").is_none()
            && extra.iter().all(|(k, v)| m["labels"][*k] == *v)
    })
}

#[test]
fn above_idle_figures_subtract_the_stored_idle_draw_within_1_percent() {
    let t = TempStore::new();
    let mut rapl = Rapl::start(RANGE_UJ, IDLE_WATTS);
    // No idle run stored yet: no figure above idle, not a zero.
    let before = ops_saved(&rapl, &t);
    let r = &before["results"][0];
    assert!(whole(r, metric::POWER, &[]).is_some(), "{r}");
    for name in [metric::POWER_ABOVE_IDLE, metric::ENERGY_ABOVE_IDLE] {
        assert!(!r.to_string().contains(name), "{name} without idle: {r}");
    }
    assert!(!r.to_string().contains(draw::ABOVE_IDLE), "{r}");
    assert!(r["parameters"].get(param::IDLE_RUN).is_none(), "{r}");

    // The idle draw, at the idle rate.
    let o = rapl
        .env(&mut t.command())
        .args(["--json", "-q", "power", "idle", "--duration", "2s"])
        .output()
        .unwrap();
    let idle = json(&o);
    let idle_result = &idle["results"][0];
    assert_eq!(idle_result["benchmark"], names::IDLE);
    let idle_w = whole(idle_result, metric::POWER, &[]).unwrap()["value"]
        .as_f64()
        .unwrap();
    assert!(
        (idle_w / IDLE_WATTS - 1.0).abs() < 0.01,
        "idle {idle_w} W stored at {IDLE_WATTS} W"
    );
    let series = idle_result["series"].to_string();
    assert!(series.contains(ZONE), "the idle watts per step: {series}");

    // A benchmark at the higher rate: its figures above the idle draw.
    rapl.set_watts(WATTS);
    let run = ops_saved(&rapl, &t);
    rapl.stop();
    let r = &run["results"][0];
    let (from, to) = (at(&r["started_at"]), at(&r["ended_at"]));
    let value = |name, extra: &[(&str, &str)]| {
        whole(r, name, extra).unwrap_or_else(|| panic!("no {name} in {r}"))["value"]
            .as_f64()
            .unwrap()
    };
    let above_w = value(metric::POWER_ABOVE_IDLE, &[]);
    let want_w = WATTS - IDLE_WATTS;
    assert!(
        (above_w / want_w - 1.0).abs() < 0.01,
        "{above_w} W above idle stored, {want_w} W written"
    );
    let above_j = value(metric::ENERGY_ABOVE_IDLE, &[]);
    let want_j = rapl.joules_at(to) - rapl.joules_at(from) - idle_w * (to - from);
    assert!(
        (above_j / want_j - 1.0).abs() < 0.01,
        "{above_j} J above idle stored, {want_j} J counted over {} s",
        to - from
    );
    eprintln!("idle {idle_w} W; above idle {above_w} W, {above_j} J (counted {want_j} J)");
    // Naming the idle run and when it measured.
    assert_eq!(r["parameters"][param::IDLE_RUN], idle["id"], "{r}");
    assert_eq!(
        at(&r["parameters"][param::IDLE_AT]),
        at(&idle_result["started_at"])
    );
    // GFLOPS per watt above idle: the phase's rate over its watts above
    // idle (the phase's own figure; a phase of 1.5 s is too short to hold
    // against the writer's log within 1 % on a busy machine).
    let phase = [("threads", "1")];
    let rate = metric_of(r, "rate", &phase).unwrap()["value"]
        .as_f64()
        .unwrap();
    let phase_w = metric_of(
        r,
        metric::POWER_ABOVE_IDLE,
        &[("threads", "1"), (label::SENSOR, ZONE)],
    )
    .unwrap_or_else(|| panic!("no phase power above idle in {r}"))["value"]
        .as_f64()
        .unwrap();
    assert!(
        phase_w > 0.5 * want_w && phase_w < 1.5 * want_w,
        "{phase_w} W"
    );
    let eff = metric_of(
        r,
        metric::GFLOPS_PER_WATT,
        &[("threads", "1"), (label::DRAW, draw::ABOVE_IDLE)],
    )
    .unwrap_or_else(|| panic!("no gflops_per_watt above idle in {r}"));
    let eff_value = eff["value"].as_f64().unwrap();
    assert!(
        (eff_value / (rate / 1e9 / phase_w) - 1.0).abs() < 1e-6,
        "{eff_value} GFLOPS/W above idle for {rate} flop/s at {phase_w} W above idle"
    );
    assert_eq!(eff["labels"][label::SENSOR], ZONE);
}

#[test]
fn power_idle_refuses_a_bad_duration_and_fails_without_a_sensor() {
    let t = TempStore::new();
    for bad in ["2h", "500ms", "0s", "x"] {
        let o = t.run(&["power", "idle", "--duration", bad]);
        one_line_error(&o, 2, &["--duration"]);
    }
    // Refused before the store is opened.
    assert!(!t.store().exists());

    let root = tempfile::tempdir().unwrap();
    trees::write("kvm2", root.path()).unwrap();
    nodebench_machine::energy::fixtures::write("none", root.path()).unwrap();
    let o = t
        .command()
        .args(["-q", "--no-telemetry", "power", "idle", "--duration", "1s"])
        .env(SYSFS_ROOT_ENV, root.path().join("sys"))
        .env(PROCFS_ROOT_ENV, root.path().join("proc"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("power.idle: no power sensor readable"),
        "{}",
        stderr(&o)
    );
    let run = json(&t.run(&["runs", "show", "1", "--json"]));
    assert_eq!(run["status"], "failed");
    assert_eq!(run["error"]["benchmark"], names::IDLE);
    assert_eq!(run["error"]["phase"], "run");
    let r = &run["results"][0];
    assert_eq!(r["status"], "failed");
    assert_eq!(r["metrics"].as_array().map_or(0, Vec::len), 0, "{r}");
    let list = stdout(&t.run(&["runs", "list"]));
    assert!(
        list.lines()
            .nth(1)
            .is_some_and(|l| l.contains("failed") && l.contains(names::IDLE)),
        "{list}"
    );
}

/// The `+H:MM:SS` offset after `began` in a warning line, seconds.
fn began_offset(line: &str) -> u64 {
    let tail = &line[line.find("began").unwrap()..];
    let off = &tail[tail.find("(+").unwrap() + 2..tail.find(')').unwrap()];
    let parts: Vec<u64> = off.split(':').map(|p| p.parse().unwrap()).collect();
    parts[0] * 3600 + parts[1] * 60 + parts[2]
}

#[test]
fn a_burn_in_keeps_the_power_series_and_warns_when_power_rises_above_the_first_window() {
    const LOW: f64 = 40.0;
    const HIGH: f64 = 80.0;
    const RAISED_AT: Duration = Duration::from_secs(7);
    let t = TempStore::new();
    let mut zone = Rapl::start(1 << 40, LOW);
    // 12 s with 2 s checkpoints: the first window is its first sixth (2 s,
    // from when the cpu workload finished an iteration); the rate doubles
    // 7 s in.
    let out = std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(RAISED_AT);
            zone.set_watts(HIGH);
        });
        zone.env(&mut t.command())
            .args(["-q", "--no-telemetry", "burnin", "--workloads", "cpu"])
            .args(["--duration", "12s", "--checkpoint", "2s"])
            .output()
            .unwrap()
    });
    zone.stop();
    let text = stdout(&out);
    // Power is a warning, never a failure (the cpu's own throughput on a
    // busy machine is the verdict's to judge).
    assert!(matches!(out.status.code(), Some(0 | 1)), "{}", stderr(&out));
    let warnings: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with(&format!("warning: power {ZONE}: ")))
        .collect();
    assert_eq!(warnings.len(), 1, "{text}");
    assert!(warnings[0].contains("% of the first window's"), "{text}");
    let began = began_offset(warnings[0]);
    assert!(
        (7..=9).contains(&began),
        "raised 7 s in, warned from {began} s: {text}"
    );
    let run = json(&t.run(&["runs", "show", "1", "--json"]));
    for v in run["verdicts"].as_array().unwrap() {
        assert!(!v.to_string().contains("power"), "a power verdict: {v}");
    }
    // The series: every machine checkpoint's median watts per source.
    let system: Vec<&Value> = run["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["parameters"]["workload"] == "system")
        .collect();
    assert_eq!(system.len(), 6);
    let median = |r: &Value| {
        metric_of(r, "power_median", &[(label::SENSOR, ZONE)])
            .unwrap_or_else(|| panic!("no power_median in {r}"))["value"]
            .as_f64()
            .unwrap()
    };
    for (r, want) in [(system[0], LOW), (system[1], LOW), (system[5], HIGH)] {
        let w = median(r);
        assert!((w / want - 1.0).abs() < 0.02, "{w} W, {want} W written");
    }
    let steps = system[5]["series"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "power_median")
        .unwrap()["points"]
        .as_array()
        .unwrap()
        .len();
    assert!((1..=3).contains(&steps), "{steps} one-second steps in 2 s");
    let base =
        metric_of(system[5], "power_baseline_median", &[(label::SENSOR, ZONE)]).unwrap()["value"]
            .as_f64()
            .unwrap();
    assert!((base / LOW - 1.0).abs() < 0.02, "baseline {base} W");
    assert!(
        system[5]["warnings"]
            .to_string()
            .contains("power above the first window"),
        "{}",
        system[5]
    );
    // The summary: a column of each source's median watts over time.
    let shown = stdout(&t.run(&["runs", "show", "1"]));
    assert!(
        shown.contains("and median power per source over time")
            && shown.contains(&format!("power {ZONE}"))
            && shown.contains("(above)"),
        "{shown}"
    );
}
