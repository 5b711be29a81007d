use std::collections::BTreeMap;

use nodebench_core::BenchResult;
use nodebench_core::config::Config;
use nodebench_core::model::{Better, Metric, ResultStatus, Run, Unit};
use nodebench_core::names::{fleet, labels, memory, net, slurm};

use super::*;

/// A run of `host` with STREAM triad at `triad` B/s, a latency of `lat` s
/// and a byte count (not performance).
fn run(id: i64, host: &str, triad: f64, lat: f64) -> Run {
    let mut run = Run::start(
        Vec::new(),
        BTreeMap::from([(fleet::HOST_TAG.into(), host.into())]),
    );
    run.id = Some(id);
    let mut r = BenchResult::new(memory::STREAM);
    r.set_param(memory::param::THREADS, 8);
    r.metrics.push(
        Metric::new(
            memory::metric::BANDWIDTH,
            triad,
            Unit::BytesPerSecond,
            Better::Higher,
        )
        .label(labels::KERNEL, memory::kernel::TRIAD),
    );
    r.metrics.push(Metric::new(
        memory::metric::LATENCY,
        lat,
        Unit::Seconds,
        Better::Lower,
    ));
    r.metrics.push(Metric::new(
        net::metric::BYTES,
        1e9 + id as f64,
        Unit::Bytes,
        Better::Higher,
    ));
    run.results.push(r);
    run
}

/// Noise of about +-1 % that differs per host.
fn jitter(i: usize) -> f64 {
    1.0 + ((i * 7919) % 21) as f64 / 1000.0 - 0.01
}

fn fleet_of(n: usize, tweak: impl Fn(usize, &mut f64, &mut f64)) -> Vec<Run> {
    (0..n)
        .map(|i| {
            let (mut t, mut l) = (2.0e11 * jitter(i), 80e-9 * jitter(i + 3));
            tweak(i, &mut t, &mut l);
            run(i as i64 + 1, &format!("h{i:03}"), t, l)
        })
        .collect()
}

#[test]
fn the_slow_host_is_the_only_outlier_and_comes_first() {
    let runs = fleet_of(40, |i, t, _| {
        if i == 17 {
            *t *= 0.90;
        }
    });
    let rep = analyse(&runs, &ReportConfig::default());
    assert!(rep.robust_z_used);
    assert_eq!(rep.note, None);
    // The byte count is not a performance figure.
    assert_eq!(rep.left_out_figures, 1);
    assert_eq!(rep.figures.len(), 2);
    let out: Vec<&str> = rep.outlier_hosts().map(|h| h.host.as_str()).collect();
    assert_eq!(out, ["h017"]);
    let first = &rep.hosts[0];
    assert_eq!(first.host, "h017");
    assert_eq!(first.outliers.len(), 1);
    assert_eq!(
        first.outliers[0].figure,
        "memory.stream bandwidth{kernel=triad}"
    );
    assert!(
        (first.outliers[0].worse_percent - 10.0).abs() < 1.5,
        "{first:?}"
    );
    assert!(
        first
            .verdict
            .starts_with("outlier on 1 figure(s), worst: memory.stream bandwidth{kernel=triad} -"),
        "{}",
        first.verdict
    );
    assert!(rep.hosts[1..].iter().all(|h| h.verdict == "ok"));
    let triad = &rep.figures[0];
    assert_eq!(triad.host_count, 40);
    assert_eq!(triad.min_hosts, ["h017"]);
    assert_eq!(triad.outliers, ["h017"]);
    assert_eq!(rep.runs.len(), 40);
}

#[test]
fn faster_is_never_an_outlier_and_a_slower_latency_is() {
    let runs = fleet_of(20, |i, t, l| {
        if i == 3 {
            *t *= 1.3;
        }
        if i == 9 {
            *l *= 1.2;
        }
    });
    let rep = analyse(&runs, &ReportConfig::default());
    let out: Vec<&str> = rep.outlier_hosts().map(|h| h.host.as_str()).collect();
    assert_eq!(out, ["h009"]);
    assert_eq!(rep.hosts[0].outliers[0].figure, "memory.stream latency");
    assert!(
        rep.hosts[0].verdict.contains("latency +"),
        "{}",
        rep.hosts[0].verdict
    );
}

#[test]
fn within_the_tolerance_is_ok_however_far_in_z() {
    // Every host the same but one 3 % slow: beyond any z, within 5 %.
    let runs = fleet_of(12, |i, t, _| {
        *t = if i == 5 { 2.0e11 * 0.97 } else { 2.0e11 };
    });
    let rep = analyse(&runs, &ReportConfig::default());
    assert_eq!(rep.outlier_hosts().count(), 0);
    let cfg = ReportConfig {
        tolerance_percent: 2.0,
        ..ReportConfig::default()
    };
    let rep = analyse(&runs, &cfg);
    // MAD 0: the z is absent, and the tolerance judges.
    let d = rep.figures[0]
        .deviations
        .iter()
        .find(|d| d.host == "h005")
        .unwrap();
    assert_eq!(d.z, None);
    assert!(d.outlier);
}

#[test]
fn beyond_the_tolerance_but_within_z_in_a_noisy_fleet_is_ok() {
    // +-10 % spread: a host 6 % below the median is ordinary.
    let runs = fleet_of(30, |i, t, _| {
        *t = 2.0e11 * (0.9 + (i % 11) as f64 * 0.02);
    });
    let rep = analyse(&runs, &ReportConfig::default());
    assert_eq!(rep.outlier_hosts().count(), 0, "{:?}", rep.hosts[0]);
}

#[test]
fn below_min_hosts_the_tolerance_alone_judges_and_says_so() {
    let runs = fleet_of(4, |i, t, _| {
        if i == 2 {
            *t *= 0.93;
        }
    });
    let rep = analyse(&runs, &ReportConfig::default());
    assert!(!rep.robust_z_used);
    assert!(rep.note.as_deref().unwrap().contains("below --min-hosts 8"));
    let out: Vec<&str> = rep.outlier_hosts().map(|h| h.host.as_str()).collect();
    assert_eq!(out, ["h002"]);
}

#[test]
fn a_host_is_named_by_tag_node_or_inventory_and_its_runs_pooled() {
    let mut runs = fleet_of(3, |_, _, _| {});
    runs[1].tags.clear();
    runs[1].tags.insert(slurm::NODE_TAG.into(), "node7".into());
    runs[2].tags.clear();
    runs.push(run(9, "h000", 2.0e11, 80e-9));
    let mut failed = run(10, "h000", 1.0, 80e-9);
    failed.results[0].status = ResultStatus::Failed;
    runs.push(failed);
    assert_eq!(host_name(&runs[2]), "run 3");
    let rep = analyse(&runs, &ReportConfig::default());
    let names: BTreeMap<&str, &Vec<i64>> = rep
        .hosts
        .iter()
        .map(|h| (h.host.as_str(), &h.runs))
        .collect();
    assert_eq!(names.len(), 3);
    assert_eq!(names["h000"], &vec![1, 9, 10]);
    assert_eq!(names["node7"], &vec![2]);
    assert_eq!(names["run 3"], &vec![3]);
    // The failed result's value is not read.
    assert_eq!(rep.figures[0].min_hosts.len(), 1);
    assert!(rep.figures[0].min > 1.9e11);
}

#[test]
fn a_figure_missing_on_one_host_is_named() {
    let mut runs = fleet_of(10, |_, _, _| {});
    runs[4].results[0].metrics.remove(1);
    let rep = analyse(&runs, &ReportConfig::default());
    let h = rep.hosts.iter().find(|h| h.host == "h004").unwrap();
    assert_eq!(h.missing_figures, ["memory.stream latency"]);
}

#[test]
fn bad_settings_are_one_line_naming_the_flag() {
    assert!(ReportConfig::default().validate().is_ok());
    for (cfg, flag) in [
        (
            ReportConfig {
                tolerance_percent: 0.0,
                ..Default::default()
            },
            "--tolerance",
        ),
        (
            ReportConfig {
                tolerance_percent: f64::NAN,
                ..Default::default()
            },
            "--tolerance",
        ),
        (
            ReportConfig {
                z: -1.0,
                ..Default::default()
            },
            "--z",
        ),
        (
            ReportConfig {
                min_hosts: 2,
                ..Default::default()
            },
            "--min-hosts",
        ),
    ] {
        let e = cfg.validate().unwrap_err().to_string();
        assert!(e.contains(flag), "{e}");
        assert_eq!(e.lines().count(), 1);
    }
}
