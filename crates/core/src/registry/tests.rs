//! The registry's own consistency: every benchmark once, each facet of a
//! descriptor naming what its metric catalog holds.
use std::collections::BTreeSet;

use super::catalog::LabelSpec;
use super::*;

/// `figure` names one of `d`'s metrics, with labels its catalog holds.
fn in_catalog(d: &Descriptor, figure: &Figure, what: &str) {
    assert!(
        d.metrics.iter().any(|m| m.name == figure.metric),
        "{}: {what} {} is not one of its metrics",
        d.id,
        figure.metric
    );
    for (k, v) in figure.labels {
        let label: &LabelSpec = d
            .labels
            .iter()
            .find(|l| l.key == *k)
            .unwrap_or_else(|| panic!("{}: {what} label {k} not in its catalog", d.id));
        if let Some(values) = label.values {
            assert!(
                values.contains(v),
                "{}: {what} {k}={v} not in its catalog",
                d.id
            );
        }
    }
}

#[test]
fn every_id_and_command_is_listed_once() {
    let mut ids = BTreeSet::new();
    let mut commands = BTreeSet::new();
    for d in ALL {
        assert!(ids.insert(d.id), "{} twice", d.id);
        assert!(!d.command.is_empty(), "{}: no command", d.id);
        assert!(
            commands.insert(d.command),
            "{}: command {:?} twice",
            d.id,
            d.command
        );
        assert!(std::ptr::eq(get(d.id).unwrap(), d), "{}", d.id);
        assert!(std::ptr::eq(by_command(d.command).unwrap(), d), "{}", d.id);
    }
    assert_eq!(ALL.len(), 32);
    assert_eq!(suite_steps().count(), 25);
    assert!(get("disk.fio").is_none(), "imported, not runnable");
}

#[test]
fn each_headline_and_watched_rate_is_in_the_catalog() {
    for d in ALL {
        in_catalog(d, &d.headline, "headline");
        if let Some(w) = &d.watched {
            in_catalog(d, w, "watched rate");
            assert!(d.suite_step, "{}: a burn-in runs suite steps only", d.id);
        }
    }
}

#[test]
fn scale_parameters_are_workload_parameters() {
    for d in ALL {
        for p in d.scale_params {
            assert!(d.workload_params.contains(p), "{}: {p}", d.id);
        }
    }
}

#[test]
fn the_hpcc_tests_run_as_the_subcommands_users_know() {
    let words = |id: &str| get(id).unwrap().command;
    assert_eq!(words("memory.hpcc_random_access"), ["memory", "gups"]);
    assert_eq!(words("cpu.hpcc_fft"), ["cpu", "fft"]);
    assert_eq!(words("disk.dd"), ["disk", "dd"]);
    assert_eq!(words("http.scan"), ["scan"]);
}

#[test]
fn the_unions_hold_every_name_once() {
    assert_eq!(
        http::LOAD_STATS,
        ["min", "mean", "sd", "median", "max", "avg", "stddev"]
    );
    assert_eq!(http::LOAD_KINDS.len(), 12);
    for k in crate::names::http::load::FAILED_CLASSES
        .iter()
        .chain(&crate::names::http::load::ERROR_KINDS)
    {
        assert!(http::LOAD_KINDS.contains(k), "{k}");
    }
}

#[test]
fn each_chart_names_what_the_catalog_holds() {
    let metric = |d: &Descriptor, name: &str| {
        assert!(
            d.metrics.iter().any(|m| m.name == name),
            "{}: chart metric {name} is not one of its metrics",
            d.id
        )
    };
    let labels = |d: &Descriptor, keys: &[&str]| {
        for k in keys {
            assert!(
                d.labels.iter().any(|l| l.key == *k),
                "{}: chart label {k} not in its catalog",
                d.id
            );
        }
    };
    let mut drawn = 0;
    for d in ALL {
        for c in d.charts {
            drawn += 1;
            match c {
                Chart::Scaling {
                    metric: name,
                    chart_by,
                    series_by,
                } => {
                    metric(d, name);
                    labels(d, chart_by);
                    labels(d, series_by);
                    labels(d, &[crate::names::labels::THREADS]);
                }
                Chart::GpuBars { by } => labels(d, by),
                // Histograms and series are not in the metric catalog.
                Chart::Percentiles { .. }
                | Chart::ByOrder
                | Chart::LatencyStaircase
                | Chart::LoadedLatency
                | Chart::HeatMap
                | Chart::TimeSeries { .. }
                | Chart::Sweep
                | Chart::GpuByOrder => {}
            }
        }
        for p in d.chart_title {
            assert!(d.workload_params.contains(p), "{}: title {p}", d.id);
        }
    }
    assert_eq!(drawn, 19);
}
