//! The link matrix on planted fleets: slow links found against the median
//! link, nothing else flagged, the host common to them named.

use std::collections::BTreeMap;

use super::*;

/// A client run `fleet pair` brings back: `net.tcp` at `bandwidth` B/s
/// (what the server received; the sender's figure is higher, so the wrong
/// one would be read) and `net.pingpong` at `latency` s (one thread, 1 B;
/// a slower 64 B cell and a faster two-thread one around it).
fn pair_run(server: &str, client: &str, bandwidth: Option<f64>, latency: Option<f64>) -> Run {
    let mut tags = BTreeMap::new();
    tags.insert(fleet::HOST_TAG.to_string(), client.to_string());
    tags.insert(fleet::SERVER_TAG.to_string(), server.to_string());
    let mut run = Run::start(vec!["nodebench".into()], tags);
    if let Some(b) = bandwidth {
        let mut r = BenchResult::new(net::TCP);
        for (side, v) in [(net::side::SENDER, b * 1.1), (net::side::RECEIVER, b)] {
            r.metrics.push(
                Metric::new(
                    net::metric::THROUGHPUT,
                    v,
                    Unit::BytesPerSecond,
                    Better::Higher,
                )
                .label(net::label::DIRECTION, net::direction::CLIENT_TO_SERVER)
                .label(net::label::SIDE, side),
            );
        }
        run.results.push(r);
    }
    if let Some(l) = latency {
        let mut r = BenchResult::new(net::PINGPONG);
        for (size, threads, v) in [("64", "1", l * 2.0), ("1", "1", l), ("1", "2", l / 2.0)] {
            r.metrics.push(
                Metric::new(latency::LATENCY_P50, v, Unit::Seconds, Better::Lower)
                    .label(net::label::PROTOCOL, net::protocol::TCP)
                    .label(labels::SIZE, size)
                    .label(labels::THREADS, threads),
            );
        }
        run.results.push(r);
    }
    run
}

/// A little noise, under the tolerance: 0 to 4 %.
fn noise(i: usize, j: usize) -> f64 {
    1.0 + 0.01 * ((i * 7 + j * 3) % 5) as f64
}

/// Every pair of `hosts` (the lower serving), at 1 GB/s and 50 us, but
/// for the links of `slow_host`: `factor` of the bandwidth.
fn fleet_with_slow_host(hosts: &[&str], slow_host: &str, factor: f64) -> Vec<Run> {
    let mut runs = Vec::new();
    for (i, a) in hosts.iter().enumerate() {
        for (j, b) in hosts.iter().enumerate().skip(i + 1) {
            let noise = noise(i, j);
            let f = if *a == slow_host || *b == slow_host {
                factor
            } else {
                1.0
            };
            runs.push(pair_run(a, b, Some(1e9 * noise * f), Some(50e-6 * noise)));
        }
    }
    runs
}

#[test]
fn the_slow_links_of_one_host_are_flagged_and_the_host_named() {
    let hosts = ["h1", "h2", "h3", "h4", "h5", "h6"];
    let runs = fleet_with_slow_host(&hosts, "h3", 0.6);
    let m = LinkMatrix::from_pair_runs(&runs, 5.0);
    assert_eq!(m.hosts, hosts);
    assert_eq!(m.links.len(), 15);
    assert!(m.bandwidth_judged && m.latency_judged);
    // 5 of the 15 links are h3's: the median link is a healthy one.
    let median = m.bandwidth_median.unwrap();
    assert!((1e9..1.05e9).contains(&median), "{median}");
    let slow: Vec<(&str, &str)> = m
        .slow_links()
        .map(|l| (l.server.as_str(), l.client.as_str()))
        .collect();
    assert_eq!(
        slow,
        [
            ("h1", "h3"),
            ("h2", "h3"),
            ("h3", "h4"),
            ("h3", "h5"),
            ("h3", "h6")
        ]
    );
    assert!(m.slow_links().all(|l| l.slow_bandwidth && !l.slow_latency));
    let l = m.link("h1", "h3").unwrap();
    assert!(l.bandwidth_deviation_percent.unwrap() < -35.0);
    // Only the receiver's figure and the one-thread 1-byte latency count.
    assert_eq!(
        m.link("h1", "h2").unwrap().latency,
        Some(50e-6 * noise(0, 1))
    );
    assert_eq!(
        m.link("h1", "h2").unwrap().bandwidth,
        Some(1e9 * noise(0, 1))
    );
    assert!(m.link("h3", "h1").is_none());
    assert_eq!(
        m.common,
        [CommonHost {
            host: "h3".into(),
            slow_links: 5,
            links: 5
        }]
    );
    assert_eq!(
        m.common_line().unwrap(),
        "h3 is on 5 of the 5 slow link(s) (5 of its 5 link(s))"
    );
    let lines = m.verdict_lines();
    assert_eq!(lines.len(), 6);
    assert!(
        lines[0].starts_with("slow link h1 -> h3: bandwidth 4")
            && lines[0].ends_with("% below the median link"),
        "{}",
        lines[0]
    );
}

#[test]
fn the_tolerance_is_the_line_and_latency_is_worse_above_the_median() {
    // Four links at 100, one at 95.1 (4.9 % below: kept), one at 94.9
    // (5.1 % below: slow); latency 10 us, one link at 10.4 (kept), one at
    // 30 (slow).
    let mut runs = Vec::new();
    let links = [
        ("a", "b", 100e6, 10e-6),
        ("a", "c", 100e6, 10e-6),
        ("a", "d", 100e6, 10.4e-6),
        ("b", "c", 100e6, 10e-6),
        ("b", "d", 95.1e6, 10e-6),
        ("c", "d", 94.9e6, 30e-6),
    ];
    for (s, c, b, l) in links {
        runs.push(pair_run(s, c, Some(b), Some(l)));
    }
    let m = LinkMatrix::from_pair_runs(&runs, 5.0);
    assert_eq!(m.bandwidth_median, Some(100e6));
    assert_eq!(m.latency_median, Some(10e-6));
    let flags: Vec<(bool, bool)> = m
        .links
        .iter()
        .map(|l| (l.slow_bandwidth, l.slow_latency))
        .collect();
    assert_eq!(
        flags,
        [
            (false, false),
            (false, false),
            (false, false),
            (false, false),
            (false, false),
            (true, true)
        ]
    );
    // One slow link: no host is on more than one.
    assert!(m.common.is_empty() && m.common_line().is_none());
    assert_eq!(
        m.verdict_lines(),
        [
            "slow link c -> d: bandwidth 5.1 % below the median link, latency 200.0 % above the median link"
        ]
    );
    // A wider tolerance keeps the 5.1 %.
    let m = LinkMatrix::from_pair_runs(&runs, 6.0);
    assert!(!m.link("c", "d").unwrap().slow_bandwidth);
    assert!(m.link("c", "d").unwrap().slow_latency);
}

#[test]
fn hosts_on_as_many_slow_links_are_all_named_and_a_lone_one_is_not() {
    // A triangle of slow links among a, b, c in a fleet of six: each of
    // the three is on two of the three.
    let mut runs = Vec::new();
    let hosts = ["a", "b", "c", "d", "e", "f"];
    for (i, s) in hosts.iter().enumerate() {
        for c in &hosts[i + 1..] {
            let slow = ["a", "b", "c"].contains(s) && ["a", "b", "c"].contains(c);
            runs.push(pair_run(s, c, Some(if slow { 5e8 } else { 1e9 }), None));
        }
    }
    let m = LinkMatrix::from_pair_runs(&runs, 5.0);
    assert_eq!(m.slow_links().count(), 3);
    let named: Vec<&str> = m.common.iter().map(|c| c.host.as_str()).collect();
    assert_eq!(named, ["a", "b", "c"]);
    assert_eq!(
        m.common_line().unwrap(),
        "a, b, c are each on 2 of the 3 slow link(s)"
    );
    // No ping-pong ran: no latency judged, none flagged.
    assert!(!m.latency_judged && m.latency_median.is_none());
    assert!(
        m.links
            .iter()
            .all(|l| l.latency.is_none() && !l.slow_latency)
    );
}

#[test]
fn fewer_than_three_links_are_not_judged() {
    let runs = [
        pair_run("a", "b", Some(1e9), Some(1e-5)),
        pair_run("a", "c", Some(1e8), Some(1e-3)),
    ];
    let m = LinkMatrix::from_pair_runs(&runs, 5.0);
    assert!(!m.bandwidth_judged && !m.latency_judged);
    assert_eq!(m.slow_links().count(), 0);
    assert!(
        m.links
            .iter()
            .all(|l| l.bandwidth_deviation_percent.is_none())
    );
    // The median is still said.
    assert_eq!(m.bandwidth_median, Some(5.5e8));
}

#[test]
fn repeated_links_take_their_median_and_failed_results_and_untagged_runs_count_not() {
    let mut runs = vec![
        pair_run("a", "b", Some(1e9), None),
        pair_run("a", "b", Some(3e9), None),
        pair_run("a", "b", Some(2e9), None),
        pair_run("b", "a", Some(7e8), None),
    ];
    let mut failed = pair_run("a", "c", Some(1e3), None);
    failed.results[0].status = ResultStatus::Failed;
    runs.push(failed);
    let mut untagged = pair_run("a", "d", Some(1e3), None);
    untagged.tags.clear();
    runs.push(untagged);
    let m = LinkMatrix::from_pair_runs(&runs, 5.0);
    assert_eq!(m.links.len(), 2, "{:?}", m.links);
    assert_eq!(m.link("a", "b").unwrap().bandwidth, Some(2e9));
    // Each direction is its own link.
    assert_eq!(m.link("b", "a").unwrap().bandwidth, Some(7e8));
    assert_eq!(m.hosts, ["a", "b"]);
}

#[test]
fn the_stored_result_reads_back_as_the_same_matrix() {
    let runs = fleet_with_slow_host(&["h1", "h2", "h3", "h4", "h5"], "h5", 0.5);
    let m = LinkMatrix::from_pair_runs(&runs, 5.0);
    let r = m.to_result();
    assert_eq!(r.benchmark, fleet::LINKS);
    // A bandwidth and a latency per link, each labelled with its ends.
    assert_eq!(r.metrics.len(), 20);
    let spec = nodebench_core::registry::catalog::spec(fleet::LINKS).unwrap();
    for metric in &r.metrics {
        assert_eq!(spec.metric(&metric.name).unwrap().unit, metric.unit);
        for k in metric.labels.keys() {
            assert!(spec.label(k).is_some(), "{k}");
        }
        assert_ne!(nodebench_core::orientation::of(metric), Better::Neither);
    }
    assert_eq!(
        r.param(fleet::param::TOLERANCE),
        Some(&serde_json::json!(5.0))
    );
    // The slow links and the common host are the result's warnings.
    assert_eq!(r.warnings.len(), 5);
    assert_eq!(
        r.warnings[4],
        "h5 is on 4 of the 4 slow link(s) (4 of its 4 link(s))"
    );
    let back = LinkMatrix::from_result(&r, 5.0);
    assert_eq!(back, m);
}

#[test]
fn a_stored_matrix_is_no_host_of_fleet_report() {
    let mut runs = fleet_with_slow_host(&["h1", "h2", "h3"], "h3", 1.0);
    let mut tags = BTreeMap::new();
    tags.insert(fleet::MODE_TAG.to_string(), fleet::MODE_MATRIX.to_string());
    let mut matrix = Run::start(vec!["nodebench".into()], tags);
    matrix
        .results
        .push(LinkMatrix::from_pair_runs(&runs, 5.0).to_result());
    runs.push(matrix);
    let report = super::super::analyse(&runs, &super::super::ReportConfig::default());
    // The pair runs are their clients'.
    let hosts: Vec<&str> = report.hosts.iter().map(|h| h.host.as_str()).collect();
    assert_eq!(hosts.len(), 2, "{hosts:?}");
    assert!(hosts.iter().all(|h| ["h2", "h3"].contains(h)), "{hosts:?}");
    assert!(report.figures.iter().all(|f| f.benchmark != fleet::LINKS));
}
