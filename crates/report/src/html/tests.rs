//! Synthetic runs, one per chart kind, and the charts and page made of them.

use std::collections::BTreeMap;

use nodebench_core::inventory::fixtures;
use nodebench_core::names::labels::{KERNEL, THREADS};
use nodebench_core::names::{cpu, disk, gpu, http, linpack, memory, net};
use nodebench_core::{BenchResult, Better, Histogram, Metric, Reference, Run, TimeSeries, Unit};

use super::chart::{Chart, Style, texts};
use super::charts::{Figure, figures, kind};
use super::{labelled, report};
use crate::compare::Side;

/// Each run a side of its own, named `run ID`.
fn sides(runs: &[Run]) -> Vec<Side> {
    runs.iter()
        .map(|r| Side {
            label: format!("run {}", r.id.unwrap()),
            runs: vec![r.clone()],
        })
        .collect()
}

fn run_of(id: i64, tags: &[(&str, &str)], results: Vec<BenchResult>) -> Run {
    let tags = tags
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let mut run = Run::start(vec!["nodebench".into(), "run".into()], tags);
    run.id = Some(id);
    run.inventory = Some(fixtures::sample());
    run.results = results;
    run
}

fn peak(value: f64) -> Option<Reference> {
    Some(Reference {
        name: "theoretical peak".into(),
        value,
    })
}

fn ops() -> BenchResult {
    let mut r = BenchResult::new(cpu::OPS);
    for (t, v) in [(1, 20e9), (2, 39e9), (4, 70e9)] {
        r.metrics.push(
            Metric::new(cpu::RATE, v, Unit::FlopsPerSecond, Better::Higher)
                .label(KERNEL, "f64.vector")
                .label(cpu::label::SCALING, "strong")
                .label(THREADS, t)
                .with_reference(peak(100e9)),
        );
        r.metrics.push(
            Metric::new(cpu::SPEEDUP, v / 20e9, Unit::Count, Better::Higher)
                .label(KERNEL, "f64.vector")
                .label(THREADS, t),
        );
    }
    r
}

fn stream(threads: u32, scale: f64) -> BenchResult {
    let mut r = BenchResult::new(memory::STREAM);
    for k in [memory::kernel::COPY, memory::kernel::TRIAD] {
        r.metrics.push(
            Metric::new(
                memory::metric::BANDWIDTH,
                scale * 10e9 * f64::from(threads),
                Unit::BytesPerSecond,
                Better::Higher,
            )
            .label(KERNEL, k)
            .label(memory::label::STORES, memory::stores::NORMAL)
            .label(THREADS, threads)
            .with_reference(peak(50e9)),
        );
    }
    r
}

fn linpack_order(n: u32, rate: f64) -> BenchResult {
    let mut r = BenchResult::new(linpack::LINPACK);
    r.set_param(linpack::param::N, n);
    for (name, v) in [
        (linpack::RATE_MAXIMAL, rate),
        (linpack::RATE_AVERAGE, rate * 0.9),
    ] {
        r.metrics.push(
            Metric::new(name, v, Unit::FlopsPerSecond, Better::Higher).with_reference(peak(100e9)),
        );
    }
    r
}

fn latency_sweep() -> BenchResult {
    let mut r = BenchResult::new(memory::LATENCY);
    for (ws, ns) in [(16u64 << 10, 1.2), (1 << 20, 4.0), (64 << 20, 90.0)] {
        r.metrics.push(
            Metric::new(
                memory::metric::LATENCY,
                ns * 1e-9,
                Unit::Seconds,
                Better::Lower,
            )
            .label(memory::label::WORKING_SET, ws),
        );
    }
    r
}

fn iozone_auto(file_size: u64) -> BenchResult {
    let mut r = BenchResult::new(disk::IOZONE);
    r.set_param(disk::param::AUTO, true);
    for test in [disk::test::WRITE, disk::test::READ] {
        for record in [4u64 << 10, 8 << 10] {
            r.metrics.push(
                Metric::new(
                    disk::metric::BANDWIDTH,
                    (file_size + record) as f64 * 1e3,
                    Unit::BytesPerSecond,
                    Better::Higher,
                )
                .label(disk::label::TEST, test)
                .label(disk::label::FILE_SIZE, file_size)
                .label(disk::label::RECORD, record),
            );
        }
    }
    r
}

fn hdr(from_us: u64, count: u64) -> hdrhistogram::Histogram<u64> {
    let mut h = hdrhistogram::Histogram::<u64>::new(3).unwrap();
    for i in 0..count {
        h.record((from_us + i) * 1000).unwrap();
    }
    h
}

fn load() -> BenchResult {
    let mut r = BenchResult::new(http::LOAD);
    for (which, from) in [(http::load::CORRECTED, 200), (http::load::UNCORRECTED, 100)] {
        let labels = BTreeMap::from([(http::load::label::LATENCY.to_string(), which.to_string())]);
        r.histograms.push(Histogram::from_hdr(
            http::load::LATENCY,
            Unit::Seconds,
            1e9,
            labels,
            &hdr(from, 10_000),
        ));
    }
    r.series.push(TimeSeries {
        name: http::load::REQUESTS_PER_SECOND.into(),
        unit: Unit::OpsPerSecond,
        labels: BTreeMap::new(),
        points: vec![(0.0, 9000.0), (1.0, 9500.0), (2.0, 9400.0)],
    });
    r
}

fn tcp() -> BenchResult {
    let mut r = BenchResult::new(net::TCP);
    r.series.push(TimeSeries {
        name: net::metric::THROUGHPUT.into(),
        unit: Unit::BytesPerSecond,
        labels: BTreeMap::from([(net::label::HOST.to_string(), "client".to_string())]),
        points: vec![(1.0, 1e9), (2.0, 1.1e9)],
    });
    r
}

fn sweep() -> BenchResult {
    let mut r = BenchResult::new(http::SWEEP);
    for (users, rate) in [(1, 100.0), (2, 190.0), (4, 300.0), (8, 305.0)] {
        r.metrics.push(
            Metric::new(http::sweep::RATE, rate, Unit::OpsPerSecond, Better::Higher)
                .label(http::sweep::USERS, users),
        );
    }
    r.set_param(http::sweep::SATURATION_USERS, 4);
    r
}

fn every_kind() -> Vec<BenchResult> {
    vec![
        ops(),
        stream(1, 1.0),
        stream(2, 1.0),
        linpack_order(1000, 40e9),
        linpack_order(2000, 60e9),
        latency_sweep(),
        iozone_auto(64 << 10),
        iozone_auto(128 << 10),
        load(),
        tcp(),
        sweep(),
    ]
}

fn line_charts(runs: &[Run], kind: &str) -> Vec<Chart> {
    figures(&labelled(&runs.iter().collect::<Vec<_>>()))
        .into_iter()
        .filter_map(|f| match f {
            Figure::Line(c) if c.kind == kind => Some(c),
            _ => None,
        })
        .collect()
}

fn one(runs: &[Run], kind: &str) -> Chart {
    let mut charts = line_charts(runs, kind);
    assert_eq!(charts.len(), 1, "{kind}: {charts:#?}");
    charts.remove(0)
}

fn names(chart: &Chart, style: Style) -> Vec<&str> {
    chart
        .series
        .iter()
        .filter(|s| s.style == style)
        .map(|s| s.name.as_str())
        .collect()
}

#[test]
fn cpu_ops_scales_by_threads_against_the_peak() {
    let runs = [run_of(1, &[], vec![ops()])];
    let c = one(&runs, kind::SCALING);
    assert_eq!(c.title, "cpu.ops f64.vector: rate by threads");
    assert_eq!(
        (c.x.title.as_str(), c.y.title.as_str()),
        ("threads", "rate (GFLOPS)")
    );
    assert_eq!(names(&c, Style::Measured), ["strong"]);
    assert_eq!(c.series[0].points, [(1.0, 20.0), (2.0, 39.0), (4.0, 70.0)]);
    assert_eq!(names(&c, Style::Limit), ["theoretical peak"]);
    assert_eq!(c.series[1].points, [(1.0, 100.0), (4.0, 100.0)]);
}

#[test]
fn stream_scales_one_series_per_kernel() {
    let runs = [run_of(1, &[], vec![stream(1, 1.0), stream(2, 1.0)])];
    let c = one(&runs, kind::SCALING);
    assert_eq!(c.y.title, "bandwidth (MB/s)");
    assert_eq!(c.x.scale, super::chart::Scale::Count);
    assert_eq!(names(&c, Style::Measured), ["copy normal", "triad normal"]);
    assert_eq!(c.series[0].points, [(1.0, 10_000.0), (2.0, 20_000.0)]);
    assert_eq!(c.data_series(), 2);
}

#[test]
fn stream_at_one_thread_count_is_bars_a_bar_per_run_and_imports_too() {
    // Two runs of STREAM at 2 threads: a group per kernel, a bar per run,
    // not overlapping dots on one x.
    let runs = [
        run_of(1, &[], vec![stream(2, 1.0)]),
        run_of(2, &[], vec![stream(2, 1.5)]),
    ];
    let bars: Vec<_> = figures(&labelled(&runs.iter().collect::<Vec<_>>()))
        .into_iter()
        .filter_map(|f| match f {
            Figure::Bar(b) => Some(b),
            _ => None,
        })
        .collect();
    assert_eq!(bars.len(), 1, "{bars:#?}");
    let b = &bars[0];
    assert_eq!(b.kind, kind::SCALING);
    assert_eq!(b.title, "memory.stream: bandwidth at 2 threads");
    assert_eq!(b.groups.1, ["copy normal", "triad normal"]);
    assert_eq!(b.series.len(), 2);
    assert_eq!(b.series[1].1, [Some(30_000.0), Some(30_000.0)]);
    assert_eq!(b.reference.as_ref().map(|r| r.0), Some(50_000.0));
    assert!(line_charts(&runs, kind::SCALING).is_empty());
    // An imported STREAM states no thread count: bars too.
    let mut imported = stream(2, 1.0);
    for m in &mut imported.metrics {
        m.labels.remove(THREADS);
    }
    let html = figures(&labelled(&[&run_of(3, &[], vec![imported])]))
        .iter()
        .map(Figure::html)
        .collect::<String>();
    assert!(
        html.contains("bandwidth at thread count not stated"),
        "{html}"
    );
}

#[test]
fn an_imported_load_charts_the_percentiles_its_tool_printed() {
    // ab's "served within" table: no histogram, 100 % left off the axis.
    let mut ab = BenchResult::new(http::LOAD);
    for (p, v) in [(50, 0.003), (90, 0.008), (99, 0.024), (100, 1.03)] {
        ab.metrics.push(
            Metric::new(http::load::SERVED_WITHIN, v, Unit::Seconds, Better::Lower)
                .label(http::load::label::PERCENT, p),
        );
    }
    let c = one(&[run_of(1, &[], vec![ab])], kind::PERCENTILES);
    assert!(
        c.title
            .ends_with("latency by percentile (as the tool reported)"),
        "{}",
        c.title
    );
    assert_eq!(c.series[0].points, [(50.0, 3.0), (90.0, 8.0), (99.0, 24.0)]);
}

#[test]
fn linpack_charts_rates_by_order_with_percent_of_peak() {
    let runs = [run_of(
        1,
        &[],
        vec![linpack_order(2000, 60e9), linpack_order(1000, 40e9)],
    )];
    let c = one(&runs, kind::LINPACK);
    assert_eq!(c.x.title, "order N");
    assert_eq!(names(&c, Style::Measured), ["maximal", "average"]);
    assert_eq!(c.series[0].points, [(1000.0, 40.0), (2000.0, 60.0)]);
    let (title, factor) = c.y2.clone().unwrap();
    assert_eq!(title, "% of theoretical peak");
    // 60 GFLOPS of a 100 GFLOPS peak is 60 % on the right axis.
    assert!((60.0 * factor - 60.0).abs() < 1e-9, "{factor}");
}

#[test]
fn the_latency_staircase_marks_the_cache_sizes_on_a_log_axis() {
    let runs = [run_of(1, &[], vec![latency_sweep()])];
    let c = one(&runs, kind::LATENCY_STAIRCASE);
    assert_eq!(c.x.title, "working set (bytes, log scale)");
    assert_eq!(c.y.title, "latency (ns)");
    let marks: Vec<&str> = c.markers.iter().map(|m| m.label.as_str()).collect();
    assert_eq!(marks, ["L1d 32 KiB", "L2 512 KiB", "L3 32 MiB"]);
    assert!((c.series[0].points[2].1 - 90.0).abs() < 1e-9);
    let texts = texts(&c.figure());
    for text in [
        "L1d 32 KiB",
        "working set (bytes, log scale)",
        "1 MiB",
        "latency (ns)",
    ] {
        assert!(texts.iter().any(|t| t == text), "{text} missing: {texts:?}");
    }
}

#[test]
fn iozone_auto_mode_gets_a_heat_map_per_test() {
    let runs = [run_of(
        1,
        &[],
        vec![iozone_auto(64 << 10), iozone_auto(128 << 10)],
    )];
    let maps: Vec<_> = figures(&labelled(&runs.iter().collect::<Vec<_>>()))
        .into_iter()
        .filter_map(|f| match f {
            Figure::Heat(h) => Some(h),
            _ => None,
        })
        .collect();
    let titles: Vec<&str> = maps.iter().map(|h| h.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "disk.iozone write: bandwidth by file and record size",
            "disk.iozone read: bandwidth by file and record size"
        ]
    );
    assert_eq!(maps[0].x.1, ["4 KiB", "8 KiB"]);
    assert_eq!(maps[0].y.1, ["64 KiB", "128 KiB"]);
    assert_eq!(maps[0].cells.len(), 4);
    assert!(texts(&maps[0].figure()).iter().any(|t| t == "file size"));
}

#[test]
fn http_latency_percentiles_show_corrected_and_uncorrected_on_nines() {
    let runs = [run_of(1, &[], vec![load()])];
    let c = one(&runs, kind::PERCENTILES);
    assert_eq!(c.x.title, "percentile (log scale of nines)");
    assert_eq!(c.y.title, "latency (ms)");
    assert_eq!(names(&c, Style::Measured), ["corrected", "uncorrected"]);
    let corrected = &c.series[0].points;
    // 10 000 values reach 99.99 %; the 90th percentile of 200..10 200 us
    // is 9.2 ms.
    let last = corrected.last().unwrap().0;
    assert!((last - 99.99).abs() < 1e-6, "{last}");
    assert!((corrected[10].0 - 90.0).abs() < 1e-9, "{:?}", corrected[10]);
    assert!((corrected[10].1 - 9.2).abs() < 0.01, "{:?}", corrected[10]);
    let texts = texts(&c.figure());
    for text in ["90%", "99.9%", "latency (ms)", "corrected", "uncorrected"] {
        assert!(texts.iter().any(|t| t == text), "{text} missing: {texts:?}");
    }
}

/// In the registry's order (net.tcp is listed before http.load).
#[test]
fn per_second_and_interval_series_are_charted_over_time() {
    let runs = [run_of(1, &[], vec![load(), tcp()])];
    let charts = line_charts(&runs, kind::TIME_SERIES);
    let titles: Vec<&str> = charts.iter().map(|c| c.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "net.tcp: throughput over time",
            "http.load: requests_per_second over time"
        ]
    );
    assert_eq!(charts[0].y.title, "throughput (MB/s)");
    assert_eq!(charts[0].series[0].points, [(1.0, 1000.0), (2.0, 1100.0)]);
    assert_eq!(charts[1].y.title, "requests_per_second (kOPS)");
}

#[test]
fn the_sweep_marks_its_saturation_point() {
    let runs = [run_of(1, &[], vec![sweep()])];
    let c = one(&runs, kind::SWEEP);
    assert_eq!(
        (c.x.title.as_str(), c.y.title.as_str()),
        ("users", "rate (requests/s)")
    );
    assert_eq!(c.series[0].points.len(), 4);
    assert_eq!(c.markers.len(), 1);
    assert_eq!(c.markers[0].x, 4.0);
    assert_eq!(c.markers[0].label, "saturation at 4 users");
}

#[test]
fn two_runs_overlay_one_series_per_run_named_by_tags() {
    let runs = [
        run_of(1, &[("config", "a")], every_kind()),
        run_of(2, &[("config", "b")], every_kind()),
    ];
    let scaling = line_charts(&runs, kind::SCALING);
    assert_eq!(scaling.len(), 2);
    assert_eq!(
        names(&scaling[0], Style::Measured),
        ["config=a: strong", "config=b: strong"]
    );
    assert_eq!(scaling[1].data_series(), 4);
    let p = one(&runs, kind::PERCENTILES);
    assert_eq!(
        names(&p, Style::Measured),
        [
            "config=a: corrected",
            "config=a: uncorrected",
            "config=b: corrected",
            "config=b: uncorrected"
        ]
    );
    assert_eq!(one(&runs, kind::SWEEP).markers.len(), 2);
    let html = report(&sides(&runs));
    assert!(html.contains("data-chart=\"linpack\" data-series=\"4\""));
}

#[test]
fn runs_without_tags_are_named_by_id_and_shared_tags_get_the_id() {
    let runs = [
        run_of(3, &[], vec![]),
        run_of(4, &[("os", "x")], vec![]),
        run_of(5, &[("os", "x")], vec![]),
    ];
    let names: Vec<String> = labelled(&runs.iter().collect::<Vec<_>>())
        .into_iter()
        .map(|l| l.label)
        .collect();
    assert_eq!(names, ["run 3", "os=x (run 4)", "os=x (run 5)"]);
}

#[test]
fn the_page_is_self_contained_with_every_chart_and_table() {
    let mut failed = ops();
    failed.mark_failed("checksum <mismatch>");
    let runs = [run_of(7, &[("config", "a&b")], {
        let mut v = every_kind();
        v.push(failed);
        v
    })];
    let html = report(&sides(&runs));
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert_eq!(
        html.matches("<figure class=\"chart\"").count(),
        10,
        "charts"
    );
    for kind in [
        kind::SCALING,
        kind::LINPACK,
        kind::LATENCY_STAIRCASE,
        kind::IOZONE_HEATMAP,
        kind::PERCENTILES,
        kind::TIME_SERIES,
        kind::SWEEP,
    ] {
        assert!(html.contains(&format!("data-chart=\"{kind}\"")), "{kind}");
    }
    // No fetches: nothing is loaded from elsewhere.
    for fetch in ["<script", "<link", "src=", "url(", "@import"] {
        assert!(!html.contains(fetch), "{fetch}");
    }
    assert!(html.contains("@media print"));
    // Header, inventory, the generic table as HTML and LINPACK's own report.
    assert!(html.contains("<h2 id=\"run-7\">run 7: config=a&amp;b</h2>"));
    assert!(html.contains("<tr><td>model number</td>"), "inventory");
    assert!(
        html.contains("<th>2 thr</th>") && html.contains("<td class=\"num\">39.00 (39.0%)</td>")
    );
    assert_eq!(html.matches("Performance Summary (GFlops)").count(), 1);
    assert!(html.contains("<p class=\"error\">error: checksum &lt;mismatch&gt;</p>"));
}

#[test]
fn two_runs_get_the_comparison_coloured_by_better_and_worse() {
    let rate = |v: f64| {
        let mut r = BenchResult::new(cpu::OPS);
        r.metrics.push(
            Metric::new(cpu::RATE, v, Unit::FlopsPerSecond, Better::Higher)
                .label(KERNEL, "f64.vector")
                .label(THREADS, 1),
        );
        r.metrics.push(
            Metric::new("time", v / 1e9, Unit::Seconds, Better::Lower).label(KERNEL, "f64.vector"),
        );
        r
    };
    let runs = [
        run_of(1, &[], vec![rate(10e9)]),
        run_of(2, &[], vec![rate(20e9)]),
    ];
    let html = report(&sides(&runs));
    assert!(
        html.contains("<h2 id=\"comparison\">Comparison</h2>"),
        "{html}"
    );
    // Twice the rate is better, twice the time worse: 200 % both, coloured apart.
    assert!(
        html.contains("<td class=\"num better\">200.0</td>"),
        "{html}"
    );
    assert!(
        html.contains("<td class=\"num worse\">200.0</td>"),
        "{html}"
    );
    assert_eq!(html.matches("<td>one sample</td>").count(), 2, "{html}");
    assert!(html.contains("<h3>geometric means</h3>"));
    assert!(html.contains("<th>% of baseline</th>"));
    // One run alone has no comparison.
    assert!(!report(&sides(&runs[..1])).contains("id=\"comparison\""));
}

#[test]
fn a_run_with_thresholds_shows_its_verdicts() {
    let mut run = run_of(7, &[], Vec::new());
    run.verdicts = vec![
        nodebench_core::ThresholdVerdict {
            threshold: "memory.stream bandwidth{kernel=triad} >= 20 GB/s".into(),
            passed: false,
            measured: Some(12.5e9),
            unit: Some(Unit::BytesPerSecond),
            matched: 1,
            detail: None,
        },
        nodebench_core::ThresholdVerdict {
            threshold: "http.load requests_failed == 0".into(),
            passed: true,
            measured: Some(0.0),
            unit: Some(Unit::Count),
            matched: 1,
            detail: None,
        },
    ];
    let html = report(&sides(&[run]));
    assert!(html.contains("<h3>acceptance</h3>"), "{html}");
    assert!(html.contains(
        "<tr><td class=\"worse\">FAIL</td><td><code>memory.stream bandwidth{kernel=triad} &gt;= 20 GB/s</code></td><td class=\"num\">12.50 GB/s</td>"
    ), "{html}");
    assert!(html.contains("<td class=\"better\">PASS</td>"), "{html}");
    let none = report(&sides(&[run_of(8, &[], Vec::new())]));
    assert!(!none.contains("acceptance"));
}

#[test]
fn a_tag_every_run_has_is_left_out_of_their_labels() {
    let a = run_of(1, &[("suite", "quick"), ("config", "a")], vec![]);
    let b = run_of(2, &[("suite", "quick"), ("config", "b")], vec![]);
    let both = labelled(&[&a, &b]);
    let names: Vec<&str> = both.iter().map(|l| l.label.as_str()).collect();
    assert_eq!(names, vec!["config=a", "config=b"]);
    let one = labelled(&[&a]);
    assert_eq!(one[0].label, "config=a, suite=quick");
    // Nothing left to tell them apart: the run ids.
    let c = run_of(3, &[("suite", "quick")], vec![]);
    let d = run_of(4, &[("suite", "quick")], vec![]);
    let names: Vec<String> = labelled(&[&c, &d]).into_iter().map(|l| l.label).collect();
    assert_eq!(names, vec!["run 3", "run 4"]);
}

#[test]
fn the_inventory_folds_the_topology_tree_under_its_first_line() {
    use nodebench_core::inventory::topology::{Core, NumaNode, Package, Topology};
    let mut run = run_of(1, &[], vec![ops()]);
    let inv = run.inventory.as_mut().unwrap();
    inv.topology = Some(Topology {
        cpus: "0-1".into(),
        packages: vec![Package {
            id: 0,
            cpus: "0-1".into(),
        }],
        cores: vec![Core {
            package: 0,
            id: 0,
            cpus: "0-1".into(),
        }],
        numa_nodes: Some(vec![NumaNode {
            id: 0,
            cpus: "0-1".into(),
            memory_bytes: Some(1 << 30),
            distances: vec![10],
        }]),
        ..Default::default()
    });
    let html = report(&sides(&[run]));
    assert!(
        html.contains("<details><summary>topology: Machine: 1 package, 1 NUMA node, 1 cores, 2 CPUs, 1 GiB memory</summary><pre>"),
        "{html}"
    );
    assert!(html.contains("\n      Core 0: PU 0 1\n"));
}

/// GPU results of two GPUs: stream, a GEMM sweep, copies (a peer's too)
/// and a burn's rate each second.
fn gpu_results() -> Vec<BenchResult> {
    let mut out = Vec::new();
    for g in 0..2u32 {
        let mut s = BenchResult::new(gpu::STREAM);
        for (k, v) in [("copy", 3.0e12), ("triad", 3.1e12)] {
            s.metrics.push(
                Metric::new(
                    gpu::metric::BANDWIDTH,
                    v,
                    Unit::BytesPerSecond,
                    Better::Higher,
                )
                .label(gpu::label::GPU, g)
                .label(KERNEL, k),
            );
        }
        let mut m = BenchResult::new(gpu::GEMM);
        for (p, n, v) in [
            ("fp64", 4096, 50e12),
            ("fp64", 8192, 56e12),
            ("bf16", 8192, 700e12),
        ] {
            m.metrics.push(
                Metric::new(gpu::metric::RATE, v, Unit::FlopsPerSecond, Better::Higher)
                    .label(gpu::label::GPU, g)
                    .label(gpu::label::PRECISION, p)
                    .label(gpu::label::N, n),
            );
        }
        let mut b = BenchResult::new(gpu::BANDWIDTH);
        b.metrics.push(
            Metric::new(
                gpu::metric::BANDWIDTH,
                55e9,
                Unit::BytesPerSecond,
                Better::Higher,
            )
            .label(gpu::label::GPU, g)
            .label(gpu::label::DIRECTION, "h2d")
            .label(gpu::label::HOST_MEMORY, "pinned")
            .label(gpu::label::HOST_NODE, "0"),
        );
        b.metrics.push(
            Metric::new(
                gpu::metric::BANDWIDTH,
                400e9,
                Unit::BytesPerSecond,
                Better::Higher,
            )
            .label(gpu::label::GPU, g)
            .label(gpu::label::DIRECTION, "d2d")
            .label(gpu::label::PEER, 1 - g),
        );
        out.extend([s, m, b]);
    }
    let mut burn = BenchResult::new(gpu::BURN);
    burn.series.push(TimeSeries {
        name: gpu::metric::RATE.into(),
        unit: Unit::FlopsPerSecond,
        labels: [("gpu".to_string(), "0".to_string())].into_iter().collect(),
        points: vec![(1.0, 51e12), (2.0, 50.5e12)],
    });
    out.push(burn);
    out
}

#[test]
fn gpu_results_get_bars_per_gpu_gemm_by_order_and_the_burn_over_time() {
    let runs = [run_of(1, &[], gpu_results())];
    let all = figures(&labelled(&runs.iter().collect::<Vec<_>>()));
    let bars: Vec<_> = all
        .iter()
        .filter_map(|f| match f {
            Figure::Bar(b) => Some(b),
            _ => None,
        })
        .collect();
    let titles: Vec<&str> = bars.iter().map(|b| b.title.as_str()).collect();
    assert_eq!(
        titles,
        [
            "gpu.stream gpu 0: bandwidth",
            "gpu.stream gpu 1: bandwidth",
            "gpu.bandwidth gpu 0: bandwidth",
            "gpu.bandwidth gpu 1: bandwidth"
        ]
    );
    assert_eq!(bars[0].groups.1, ["copy", "triad"]);
    assert_eq!(bars[0].y, "bandwidth (GB/s)");
    assert_eq!(bars[0].series[0].1, [Some(3000.0), Some(3100.0)]);
    // A host copy and a peer copy, each its own group.
    assert_eq!(bars[2].groups.1, ["d2d 1", "h2d pinned 0"]);
    let gemm: Vec<_> = line_charts(&runs, kind::SCALING);
    assert_eq!(gemm.len(), 2);
    assert_eq!(gemm[0].title, "gpu.gemm gpu 0: rate by matrix order");
    assert_eq!(gemm[0].y.title, "rate (TFLOPS)");
    assert_eq!(names(&gemm[0], Style::Measured), ["bf16", "fp64"]);
    assert_eq!(gemm[0].series[1].points, [(4096.0, 50.0), (8192.0, 56.0)]);
    let burn = one(&runs, kind::TIME_SERIES);
    assert_eq!(burn.title, "gpu.burn: rate over time");
    assert_eq!(burn.series[0].points, [(1.0, 51.0), (2.0, 50.5)]);
}

/// `cpu.ops` at 4 threads with its energy figures: `watts` total (and 120 W
/// in its phase), `above` above idle where given, `gflops_per_watt`.
fn ops_with_power(rate: f64, watts: f64, above: Option<f64>) -> BenchResult {
    use nodebench_core::names::energy::{draw, label, metric};
    let rapl = |m: Metric| {
        m.label(label::SOURCE, "rapl")
            .label(label::SCOPE, "package")
            .label(label::SENSOR, "intel-rapl:0")
    };
    let mut r = BenchResult::new(cpu::OPS);
    r.metrics.push(
        Metric::new(cpu::RATE, rate, Unit::FlopsPerSecond, Better::Higher)
            .label(KERNEL, "f64.vector")
            .label(cpu::label::SCALING, "strong")
            .label(THREADS, 4),
    );
    r.metrics.push(rapl(Metric::new(
        metric::POWER,
        watts,
        Unit::Watts,
        Better::Neither,
    )));
    r.metrics.push(rapl(
        Metric::new(metric::POWER, 120.0, Unit::Watts, Better::Neither).label(THREADS, 4),
    ));
    r.metrics.push(rapl(Metric::new(
        metric::ENERGY,
        watts * 3.0,
        Unit::Joules,
        Better::Lower,
    )));
    if let Some(a) = above {
        r.metrics.push(rapl(Metric::new(
            metric::POWER_ABOVE_IDLE,
            a,
            Unit::Watts,
            Better::Neither,
        )));
    }
    r.metrics.push(rapl(
        Metric::new(
            metric::GFLOPS_PER_WATT,
            rate / 1e9 / watts,
            Unit::Count,
            Better::Higher,
        )
        .label(KERNEL, "f64.vector")
        .label(THREADS, 4)
        .label(label::DRAW, draw::TOTAL),
    ));
    r
}

#[test]
fn a_result_with_power_gets_a_power_chart_beside_its_rate() {
    use super::charts::power::KIND;
    let runs = [
        run_of(1, &[], vec![ops_with_power(40e9, 100.0, Some(80.0))]),
        run_of(2, &[], vec![ops_with_power(40e9, 80.0, None)]),
    ];
    let labelled = labelled(&runs.iter().collect::<Vec<_>>());
    let figs = figures(&labelled);
    let at = figs
        .iter()
        .position(|f| matches!(f, Figure::Bar(b) if b.kind == KIND))
        .expect("a power chart");
    let Figure::Bar(power) = &figs[at] else {
        unreachable!()
    };
    // Right after the result's rate.
    assert!(at > 0, "{figs:?}");
    match &figs[at - 1] {
        Figure::Bar(b) => assert!(b.title.starts_with("cpu.ops"), "{}", b.title),
        Figure::Line(c) => assert!(c.title.starts_with("cpu.ops"), "{}", c.title),
        Figure::Heat(h) => panic!("{}", h.title),
    }
    assert_eq!(power.title, "cpu.ops: average power by source");
    assert_eq!(power.groups.1, vec!["intel-rapl:0 (package)".to_string()]);
    // The whole result's watts (not its phase's 120 W), above idle where
    // the run has it.
    let series: Vec<(&str, Vec<Option<f64>>)> = power
        .series
        .iter()
        .map(|(n, v)| (n.as_str(), v.clone()))
        .collect();
    assert_eq!(
        series,
        vec![
            ("run 1: total", vec![Some(100.0)]),
            ("run 1: above idle", vec![Some(80.0)]),
            ("run 2: total", vec![Some(80.0)]),
        ]
    );
    // A result without power figures gets none.
    let plain = [run_of(3, &[], vec![ops()])];
    let plain = labelled_figures(&plain);
    assert!(
        !plain
            .iter()
            .any(|f| matches!(f, Figure::Bar(b) if b.kind == KIND))
    );
}

fn labelled_figures(runs: &[Run]) -> Vec<Figure> {
    figures(&labelled(&runs.iter().collect::<Vec<_>>()))
}

#[test]
fn the_comparison_shows_performance_per_watt_higher_is_better() {
    let runs = [
        run_of(1, &[], vec![ops_with_power(40e9, 100.0, None)]),
        run_of(2, &[], vec![ops_with_power(40e9, 80.0, None)]),
    ];
    let html = report(&sides(&runs));
    assert!(html.contains("data-chart=\"efficiency\""), "{html}");
    assert!(
        html.contains("cpu.ops gflops_per_watt: % of baseline (over 100 % is better)"),
        "{html}"
    );
    // The same rate at 80 % of the watts: 125 % of the baseline's GFLOPS
    // per watt, better; 80 % of its joules, better too; watts alone are no
    // performance figure (no colour).
    assert!(
        html.contains("<td class=\"num better\">125.0</td>"),
        "{html}"
    );
    assert!(
        html.contains("<td class=\"num better\">80.0</td>"),
        "{html}"
    );
    assert!(!html.contains("<td class=\"num worse\">"), "{html}");
}
