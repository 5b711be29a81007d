//! Planted differences: synthetic runs whose ratios are known.

use std::collections::BTreeMap;

use nodebench_core::inventory::fixtures;
use nodebench_core::names::{cpu, labels, linpack, memory, net};
use nodebench_core::stats::Stats;
use nodebench_core::{BenchResult, Better, Metric, Run, Unit};

use super::*;

/// Noise of the three repeats: -1 %, 0, +1 %.
const NOISE: [f64; 3] = [0.99, 1.0, 1.01];

/// A run of three results: cpu.ops rate, STREAM triad bandwidth and the
/// latency of one working set, each times its factor and `noise`.
fn run(id: i64, rate: f64, bandwidth: f64, latency: f64, noise: f64) -> Run {
    let mut r = Run::start(vec!["nodebench".into()], BTreeMap::new());
    r.id = Some(id);
    r.inventory = Some(fixtures::sample());
    let mut ops = BenchResult::new(cpu::OPS);
    ops.set_param(cpu::param::KERNEL, "f64.vector");
    ops.metrics.push(
        Metric::new(
            cpu::RATE,
            rate * 1e9 * noise,
            Unit::FlopsPerSecond,
            Better::Higher,
        )
        .label(labels::THREADS, 1),
    );
    let mut stream = BenchResult::new(memory::STREAM);
    stream.set_param(memory::param::THREADS, 2);
    stream.metrics.push(
        Metric::new(
            memory::metric::BANDWIDTH,
            bandwidth * 1e10 * noise,
            Unit::BytesPerSecond,
            Better::Higher,
        )
        .label(labels::KERNEL, memory::kernel::TRIAD),
    );
    let mut lat = BenchResult::new(memory::LATENCY);
    lat.metrics.push(
        Metric::new(
            memory::metric::LATENCY,
            latency * 80e-9 * noise,
            Unit::Seconds,
            Better::Lower,
        )
        .label(memory::label::WORKING_SET, 1 << 30),
    );
    r.results = vec![ops, stream, lat];
    r
}

/// A side of three runs with the given factors.
fn side(label: &str, first_id: i64, rate: f64, bandwidth: f64, latency: f64) -> Side {
    Side {
        label: label.into(),
        runs: NOISE
            .iter()
            .enumerate()
            .map(|(i, n)| run(first_id + i as i64, rate, bandwidth, latency, *n))
            .collect(),
    }
}

/// Side `b` against `a`: cpu rate 2x, STREAM bandwidth the same, latency
/// 2x (worse); three runs each.
pub(super) fn planted() -> Comparison {
    compare(&[side("a", 1, 1.0, 1.0, 1.0), side("b", 4, 2.0, 1.0, 2.0)])
}

fn row<'a>(c: &'a Comparison, benchmark: &str) -> &'a MetricRow {
    c.rows.iter().find(|r| r.benchmark == benchmark).unwrap()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9 * b.abs().max(1.0)
}

#[test]
fn a_planted_double_is_200_percent_and_faster_or_slower_by_direction() {
    let c = planted();
    assert_eq!(c.schema_version, COMPARISON_SCHEMA_VERSION);
    assert_eq!(c.method, METHOD);
    assert_eq!(c.rows.len(), 3);
    assert!(c.unmatched.is_empty());
    assert_eq!(c.sides[1].run_ids, vec![4, 5, 6]);

    let rate = &row(&c, cpu::OPS).cells;
    assert_eq!(rate[0].verdict, Verdict::Baseline);
    assert_eq!((rate[1].n, rate[1].source), (3, SampleSource::Runs));
    assert!(close(rate[1].percent_of_baseline.unwrap(), 200.0));
    let iv = rate[1].interval.unwrap();
    assert!(
        iv.low > 1.9 && iv.high < 2.1 && iv.low < 2.0 && iv.high > 2.0,
        "{iv:?}"
    );
    assert_eq!(rate[1].verdict, Verdict::Faster);

    let bw = &row(&c, memory::STREAM).cells;
    assert!(close(bw[1].percent_of_baseline.unwrap(), 100.0));
    assert_eq!(bw[1].verdict, Verdict::NoSignificantDifference);

    // Twice the latency is worse: 200 % of baseline, slower.
    let lat = &row(&c, memory::LATENCY).cells;
    assert!(close(lat[1].percent_of_baseline.unwrap(), 200.0));
    assert_eq!(lat[1].verdict, Verdict::Slower);
    // Half the latency is better.
    let c = compare(&[side("a", 1, 1.0, 1.0, 1.0), side("b", 4, 1.0, 1.0, 0.5)]);
    assert_eq!(row(&c, memory::LATENCY).cells[1].verdict, Verdict::Faster);
}

#[test]
fn a_side_against_itself_is_100_percent_and_no_difference() {
    let a = side("a", 1, 1.0, 1.0, 1.0);
    let c = compare(&[a.clone(), a]);
    assert_eq!(c.rows.len(), 3);
    for r in &c.rows {
        assert_eq!(r.cells[1].percent_of_baseline, Some(100.0));
        assert_eq!(r.cells[1].verdict, Verdict::NoSignificantDifference);
    }
    assert!(c.warnings.is_empty(), "{:?}", c.warnings);
    assert!(c.summary.iter().all(|s| s.sides[1].percent == Some(100.0)));
}

#[test]
fn one_or_two_samples_get_no_interval() {
    let one = |id, f| Side {
        label: format!("run {id}"),
        runs: vec![run(id, f, 1.0, 1.0, 1.0)],
    };
    let c = compare(&[one(1, 1.0), one(2, 2.0)]);
    let rate = &row(&c, cpu::OPS).cells[1];
    assert_eq!(rate.verdict, Verdict::OneSample);
    // One run against itself: the same figure, no difference at all.
    let c = compare(&[one(1, 1.0), one(1, 1.0)]);
    let same = &row(&c, cpu::OPS).cells[1];
    assert_eq!(same.verdict, Verdict::NoSignificantDifference);
    assert_eq!(
        (same.percent_of_baseline, same.interval),
        (Some(100.0), None)
    );
    assert_eq!(rate.interval, None);
    assert!(close(rate.percent_of_baseline.unwrap(), 200.0));

    let two = Side {
        label: "two".into(),
        runs: vec![run(3, 1.0, 1.0, 1.0, 0.99), run(4, 1.0, 1.0, 1.0, 1.01)],
    };
    let other_two = Side {
        label: "other two".into(),
        runs: vec![run(5, 1.0, 1.0, 1.0, 0.98), run(6, 1.0, 1.0, 1.0, 1.02)],
    };
    let c = compare(&[two.clone(), other_two]);
    assert_eq!(row(&c, cpu::OPS).cells[1].verdict, Verdict::TooFewSamples);
    // Two samples against three is still too few.
    let c = compare(&[side("a", 1, 1.0, 1.0, 1.0), two]);
    assert_eq!(row(&c, cpu::OPS).cells[1].verdict, Verdict::TooFewSamples);
}

#[test]
fn a_single_runs_repeat_stats_are_its_samples() {
    let with_stats = |id, mean: f64| {
        let mut r = run(id, 1.0, 1.0, 1.0, 1.0);
        let samples: Vec<f64> = NOISE.iter().map(|n| mean * n).collect();
        let m = &mut r.results[0].metrics[0];
        m.value = mean;
        m.stats = Stats::from_samples(&samples);
        Side {
            label: format!("run {id}"),
            runs: vec![r],
        }
    };
    let c = compare(&[with_stats(1, 1e9), with_stats(2, 3e9)]);
    let cell = &row(&c, cpu::OPS).cells[1];
    assert_eq!((cell.n, cell.source), (3, SampleSource::RepeatStats));
    assert!(close(cell.percent_of_baseline.unwrap(), 300.0));
    assert_eq!(cell.verdict, Verdict::Faster);
    // Metrics without stats in the same runs stay one sample (here the
    // same figure on both sides: no difference at all).
    let stream = &row(&c, memory::STREAM).cells[1];
    assert_eq!((stream.n, stream.interval), (1, None));
    assert_eq!(stream.verdict, Verdict::NoSignificantDifference);
}

#[test]
fn metrics_on_one_side_and_other_workloads_are_listed_unmatched() {
    let a = side("a", 1, 1.0, 1.0, 1.0);
    let mut b = side("b", 4, 1.0, 1.0, 1.0);
    for (i, r) in b.runs.iter_mut().enumerate() {
        let mut extra = BenchResult::new(net::TCP);
        extra.metrics.push(Metric::new(
            net::metric::THROUGHPUT,
            1e9,
            Unit::BytesPerSecond,
            Better::Higher,
        ));
        r.results.push(extra);
        // The same STREAM metric with another thread count is another workload.
        r.results[1].set_param(memory::param::THREADS, 4 + i);
    }
    let c = compare(&[a, b]);
    assert_eq!(c.rows.len(), 2, "{:?}", c.rows);
    assert!(c.rows.iter().all(|r| r.benchmark != memory::STREAM));
    let listed: Vec<(&str, Vec<&str>)> = c
        .unmatched
        .iter()
        .map(|u| {
            (
                u.benchmark.as_str(),
                u.present_in.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(
        listed,
        vec![
            (memory::STREAM, vec!["a"]),
            (memory::STREAM, vec!["b"]),
            (net::TCP, vec!["b"]),
            (memory::STREAM, vec!["b"]),
            (memory::STREAM, vec!["b"]),
        ]
    );
    assert_eq!(c.unmatched[0].workload[memory::param::THREADS], "2");
    assert_eq!(c.unmatched[1].workload[memory::param::THREADS], "4");
    // Each says what the other side ran instead.
    assert_eq!(
        c.unmatched[0].elsewhere,
        vec!["threads=4 in b", "threads=5 in b", "threads=6 in b"]
    );
    let text = render::unmatched_text(&c.unmatched[1]);
    assert!(
        text.ends_with("only in b (other workload: threads=2 in a)"),
        "{text}"
    );
}

#[test]
fn stream_of_another_array_size_is_matched_with_the_difference_said() {
    let mut a = side("a", 1, 1.0, 1.0, 1.0);
    let mut b = side("b", 4, 1.0, 2.0, 1.0);
    for (side, elements) in [(&mut a, 2_000_000), (&mut b, 20_000_000)] {
        for r in &mut side.runs {
            r.results[1].set_param(memory::param::ARRAY_SIZE, elements);
        }
    }
    let c = compare(&[a.clone(), b.clone()]);
    assert!(c.unmatched.is_empty(), "{:?}", c.unmatched);
    let s = row(&c, memory::STREAM);
    assert!(close(s.cells[1].ratio.unwrap(), 2.0));
    assert_eq!(
        s.workload_differs,
        vec!["array_size: 2000000 (a) vs 20000000 (b)"]
    );
    assert_eq!(s.workload[memory::param::ARRAY_SIZE], "2000000");
    let said: Vec<String> = c.warnings.iter().map(InventoryWarning::message).collect();
    assert!(
        said.contains(
            &"memory.stream workload (compared anyway; --strict compares identical workloads only) differs: a = array_size=2000000; b = array_size=20000000"
                .to_string()
        ),
        "{said:?}"
    );
    let text = to_table(&c, false);
    assert!(
        text.contains("[workload differs: array_size: 2000000 (a) vs 20000000 (b)]"),
        "{text}"
    );
    // --strict: not matched.
    let c = compare_with(&[a, b], Matching::Strict);
    assert!(c.rows.iter().all(|r| r.benchmark != memory::STREAM));
    assert_eq!(c.unmatched.len(), 2);
}

#[test]
fn linpack_orders_of_other_thread_counts_are_not_matched() {
    let lp = |threads: u32| {
        let mut r = Run::start(vec![], BTreeMap::new());
        let mut res = BenchResult::new(linpack::LINPACK);
        res.set_param(linpack::param::N, 1000);
        res.set_param(linpack::param::THREADS, threads);
        res.set_param(linpack::param::SEED, threads);
        res.metrics.push(Metric::new(
            linpack::RATE_AVERAGE,
            1e10,
            Unit::FlopsPerSecond,
            Better::Higher,
        ));
        r.results.push(res);
        Side {
            label: format!("{threads} threads"),
            runs: vec![r],
        }
    };
    let c = compare(&[lp(1), lp(2)]);
    assert!(c.rows.is_empty());
    assert_eq!(c.unmatched.len(), 2);
    // The seed is not workload: same threads match.
    let c = compare(&[lp(2), lp(2)]);
    assert_eq!(c.rows.len(), 1);
}

#[test]
fn geometric_means_per_area_and_overall_are_better_oriented() {
    // cpu 2x faster; memory: bandwidth same, latency 2x (worse, 50 %).
    let c = compare(&[side("a", 1, 1.0, 1.0, 1.0), side("b", 4, 2.0, 1.0, 2.0)]);
    let by_area: Vec<(&str, f64, usize)> = c
        .summary
        .iter()
        .map(|s| {
            assert!(close(s.sides[0].percent.unwrap(), 100.0));
            (
                s.area.as_str(),
                s.sides[1].percent.unwrap(),
                s.sides[1].metrics,
            )
        })
        .collect();
    assert_eq!(by_area.len(), 3);
    assert_eq!((by_area[0].0, by_area[0].2), ("cpu", 1));
    assert!(close(by_area[0].1, 200.0));
    assert_eq!((by_area[1].0, by_area[1].2), ("memory", 2));
    assert!(close(by_area[1].1, 100.0 * 0.5f64.sqrt()));
    assert_eq!((by_area[2].0, by_area[2].2), (OVERALL, 3));
    assert!(close(by_area[2].1, 100.0));
}

#[test]
fn inventory_differences_are_warned() {
    let a = side("a", 1, 1.0, 1.0, 1.0);
    let mut b = side("b", 4, 1.0, 1.0, 1.0);
    for r in &mut b.runs {
        let inv = r.inventory.as_mut().unwrap();
        inv.os.kernel = Some("6.12.0-test".into());
        inv.cpu.governor = Some("powersave".into());
        r.nodebench_version = "9.9.9".into();
    }
    let mut net_a = BenchResult::new(net::TCP);
    net_a.set_param(net::param::MTU, 1500);
    let mut net_b = net_a.clone();
    net_b.set_param(net::param::MTU, 9000);
    let mut a = a;
    a.runs[0].results.push(net_a);
    b.runs[0].results.push(net_b);
    let c = compare(&[a, b]);
    let fields: Vec<&str> = c.warnings.iter().map(|w| w.field.as_str()).collect();
    assert_eq!(
        fields,
        vec![
            warnings::KERNEL,
            warnings::GOVERNOR,
            warnings::MTU,
            warnings::VERSION
        ]
    );
    let kernel = c.warnings[0].message();
    assert!(
        kernel.starts_with("kernel differs: a = ") && kernel.ends_with("; b = 6.12.0-test"),
        "{kernel}"
    );
    assert_eq!(c.warnings[2].message(), "MTU differs: a = 1500; b = 9000");
}

#[test]
fn the_file_system_of_the_disk_dir_is_compared() {
    let disk_run = |fs: &str| {
        let mut r = run(1, 1.0, 1.0, 1.0, 1.0);
        let inv = r.inventory.as_mut().unwrap();
        inv.filesystems = vec![nodebench_core::inventory::Filesystem {
            device: "/dev/sda1".into(),
            mount_point: "/scratch".into(),
            fs_type: fs.into(),
            ..Default::default()
        }];
        let mut res = BenchResult::new(nodebench_core::names::disk::IOZONE);
        res.set_param(nodebench_core::names::disk::param::DIR, "/scratch/nb");
        r.results.push(res);
        Side {
            label: fs.into(),
            runs: vec![r],
        }
    };
    let c = compare(&[disk_run("ext4"), disk_run("xfs")]);
    assert_eq!(c.warnings.len(), 1);
    assert_eq!(
        c.warnings[0].message(),
        "file system of the tested dir differs: ext4 = ext4 on /scratch; xfs = xfs on /scratch"
    );
}

#[test]
fn compare_shows_the_median_runs_show_prints_not_the_mean() {
    // One run each; repeats 8, 9, 20 (median 9, mean 12.3) against 8.5,
    // 8.8, 9.0: runs show prints 9 and 8.8, so does compare.
    let one = |id, samples: &[f64]| {
        let mut r = run(id, 1.0, 1.0, 1.0, 1.0);
        let m = &mut r.results[0].metrics[0];
        let st = Stats::from_samples(samples).unwrap();
        m.value = st.median;
        m.stats = Some(st);
        Side {
            label: format!("run {id}"),
            runs: vec![r],
        }
    };
    let c = compare(&[one(1, &[8e9, 9e9, 20e9]), one(2, &[8.5e9, 8.8e9, 9e9])]);
    let cells = &row(&c, cpu::OPS).cells;
    assert_eq!((cells[0].value, cells[1].value), (9e9, 8.8e9));
    assert!(close(cells[1].ratio.unwrap(), 8.8 / 9.0));
    // The wide baseline: the interval is wide, and above 0.
    let iv = cells[1].interval.unwrap();
    assert!(
        iv.low > 0.0 && iv.low < 8.8 / 9.0 && iv.high > 1.0,
        "{iv:?}"
    );
}

#[test]
fn figures_that_are_not_performance_get_no_ratio_colour_or_geomean() {
    // LINPACK's residual and a reply-rate standard deviation, 6x apart.
    let with = |id, v: f64| {
        let mut r = run(id, 1.0, 1.0, 1.0, 1.0);
        let mut lp = BenchResult::new(linpack::LINPACK);
        lp.metrics.push(Metric::new(
            linpack::RESIDUAL,
            v,
            Unit::Count,
            Better::Lower,
        ));
        let mut http = BenchResult::new(nodebench_core::names::http::LOAD);
        http.metrics.push(
            Metric::new(
                nodebench_core::names::http::load::REPLY_RATE,
                v,
                Unit::Count,
                Better::Higher,
            )
            .label(nodebench_core::names::http::load::label::STAT, "stddev"),
        );
        r.results.extend([lp, http]);
        Side {
            label: format!("run {id}"),
            runs: vec![r],
        }
    };
    let c = compare(&[with(1, 1.0), with(2, 6.0)]);
    for benchmark in [linpack::LINPACK, nodebench_core::names::http::LOAD] {
        let r = row(&c, benchmark);
        assert_eq!(r.better, Better::Neither, "{benchmark}");
        assert_eq!(r.cells[1].value, 6.0);
        assert_eq!(r.cells[1].ratio, None);
        assert_eq!(r.cells[1].verdict, Verdict::NotPerformance);
        assert_eq!(super::render::is_better(&r.cells[1], r.better), None);
    }
    // The geometric means count the rate, bandwidth and latency only.
    let overall = c.summary.iter().find(|s| s.area == OVERALL).unwrap();
    assert_eq!(overall.sides[1].metrics, 3);
}

/// AS3AP's single-user tests were renamed to the paper's names (issue 31):
/// a run stored before does not match the renamed tests, and compare lists
/// both names as unmatched, each on its side.
#[test]
fn renamed_as3ap_tests_are_listed_unmatched() {
    use nodebench_core::names::db;
    let single = |id: i64, queries: &[&str]| {
        let mut r = Run::start(vec!["nodebench".into()], BTreeMap::new());
        r.id = Some(id);
        r.inventory = Some(fixtures::sample());
        let mut b = BenchResult::new(db::AS3AP);
        b.set_param(db::param::TEST, db::test::SINGLE);
        b.set_param(db::param::ENGINE, "sqlite");
        b.set_param(db::param::ROWS_PER_TABLE, 10_000);
        b.set_param(db::param::USERS, 3);
        for q in queries {
            b.metrics.push(
                Metric::new(
                    db::metric::QUERY_SECONDS,
                    0.001,
                    Unit::Seconds,
                    Better::Lower,
                )
                .label(db::label::QUERY, *q),
            );
        }
        r.results = vec![b];
        Side {
            label: format!("run {id}"),
            runs: vec![r],
        }
    };
    let before = single(1, &["sel_1_cl", "upd_append_t_end", "bulk_unmodify"]);
    let after = single(2, &["sel_1_cl", "update_key", "refer_integrity"]);
    let c = compare(&[before, after]);
    assert_eq!(c.rows.len(), 1, "only sel_1_cl kept its name");
    let mut listed: Vec<(String, Vec<String>)> = c
        .unmatched
        .iter()
        .map(|u| (u.labels[db::label::QUERY].clone(), u.present_in.clone()))
        .collect();
    listed.sort();
    let side = |s: &str| vec![s.to_string()];
    assert_eq!(
        listed,
        vec![
            ("bulk_unmodify".to_string(), side("run 1")),
            ("refer_integrity".to_string(), side("run 2")),
            ("upd_append_t_end".to_string(), side("run 1")),
            ("update_key".to_string(), side("run 2")),
        ]
    );
}

/// GPU results compare as every benchmark's: per GPU and precision, the
/// GEMM rate in the `gpu` area's geometric mean, a burn's power and
/// mismatch count compared without entering it.
#[test]
fn gpu_results_match_per_gpu_and_precision_and_have_their_area() {
    use nodebench_core::names::gpu;
    let gpu_run = |id: i64, tflops: f64, watts: f64| {
        let mut r = run(id, 1.0, 1.0, 1.0, 1.0);
        let mut gemm = BenchResult::new(gpu::GEMM);
        for g in 0..2 {
            gemm.metrics.push(
                Metric::new(
                    gpu::metric::RATE,
                    tflops * 1e12,
                    Unit::FlopsPerSecond,
                    Better::Higher,
                )
                .label(gpu::label::GPU, g)
                .label(gpu::label::PRECISION, gpu::precision::BF16)
                .label(gpu::label::N, 8192),
            );
        }
        let mut burn = BenchResult::new(gpu::BURN);
        burn.metrics.push(
            Metric::new(gpu::metric::POWER_MAX, watts, Unit::Watts, Better::Lower)
                .label(gpu::label::GPU, 0),
        );
        burn.metrics.push(
            Metric::new(gpu::metric::MISMATCHES, 0.0, Unit::Count, Better::Lower)
                .label(gpu::label::GPU, 0),
        );
        r.results.extend([gemm, burn]);
        Side {
            label: format!("run {id}"),
            runs: vec![r],
        }
    };
    let c = compare(&[gpu_run(1, 700.0, 690.0), gpu_run(2, 770.0, 650.0)]);
    let gemm: Vec<&MetricRow> = c.rows.iter().filter(|r| r.benchmark == gpu::GEMM).collect();
    assert_eq!(gemm.len(), 2, "one row per GPU");
    for r in gemm {
        assert!(close(r.cells[1].percent_of_baseline.unwrap(), 110.0));
        assert_eq!(r.area(), "gpu");
    }
    let power = c
        .rows
        .iter()
        .find(|r| r.metric == gpu::metric::POWER_MAX)
        .unwrap();
    assert_eq!(power.unit, Unit::Watts);
    assert_eq!(power.cells[1].value, 650.0);
    let area = c.summary.iter().find(|s| s.area == "gpu").unwrap();
    // The two GEMM rates; power and the mismatch count are not rates.
    assert_eq!(area.sides[1].metrics, 2);
    assert!(close(area.sides[1].percent.unwrap(), 110.0));
}

/// STREAM's four figures of one kernel (bandwidth, average, minimum and
/// maximum time) are one measurement: the geometric mean counts its
/// bandwidth once; the times print in one scale.
#[test]
fn one_measurement_counts_once_and_a_tables_times_share_one_unit() {
    let stream_run = |id: i64, f: f64| {
        let mut r = Run::start(vec!["nodebench".into()], BTreeMap::new());
        r.id = Some(id);
        let mut s = BenchResult::new(memory::STREAM);
        s.set_param(memory::param::THREADS, 2);
        let m = |name: &str, v: f64, unit, better| {
            Metric::new(name, v, unit, better).label(labels::KERNEL, memory::kernel::TRIAD)
        };
        s.metrics.push(m(
            memory::metric::BANDWIDTH,
            2e10 * f,
            Unit::BytesPerSecond,
            Better::Higher,
        ));
        // 900 us, 850 us and 1.2 ms: one table, one scale.
        s.metrics
            .push(m("time_avg", 900e-6 / f, Unit::Seconds, Better::Lower));
        s.metrics
            .push(m("time_min", 850e-6 / f, Unit::Seconds, Better::Lower));
        s.metrics
            .push(m("time_max", 1.2e-3 / f, Unit::Seconds, Better::Lower));
        r.results = vec![s];
        r
    };
    let sides = [
        Side {
            label: "run 1".into(),
            runs: vec![stream_run(1, 1.0)],
        },
        Side {
            label: "run 2".into(),
            runs: vec![stream_run(2, 2.0)],
        },
    ];
    let c = compare(&sides);
    assert_eq!(c.rows.len(), 4);
    let overall = c.summary.iter().find(|s| s.area == OVERALL).unwrap();
    assert_eq!(overall.sides[1].metrics, 1, "{:?}", c.summary);
    assert!(close(overall.sides[1].percent.unwrap(), 200.0));
    let table = render::to_table(&c, false);
    let units: Vec<&str> = table
        .lines()
        .filter(|l| l.contains("time_"))
        .map(|l| l.split_whitespace().nth(3).unwrap())
        .collect();
    assert_eq!(units, ["ms", "ms", "ms"], "{table}");
    // One sample each: no spread in the CSV (an empty field, not 0).
    let csv = render::render(&c, render::CompareFormat::Csv, false).unwrap();
    let row = csv
        .lines()
        .find(|l| l.contains("bandwidth") && l.contains("run 2"))
        .unwrap();
    let fields: Vec<&str> = row.split(',').collect();
    assert_eq!(fields[9], "", "{row}");
}

#[test]
fn every_host_setting_that_differs_is_warned_and_old_runs_stay_quiet() {
    use nodebench_core::inventory::host::{CState, FreqPolicy, HostState, IdleState};
    let host = |epp: &str, cstate: &str, latency: u64| HostState {
        policies: vec![FreqPolicy {
            name: "policy0".into(),
            cpus: "0".into(),
            driver: Some("intel_pstate".into()),
            governor: Some("powersave".into()),
            epp: Some(epp.into()),
            ..Default::default()
        }],
        idle: Some(IdleState {
            driver: Some("intel_idle".into()),
            governor: Some("menu".into()),
            deepest: Some(CState {
                name: cstate.into(),
                exit_latency_us: latency,
                cpus: "0".into(),
            }),
            states: 3,
        }),
        ..Default::default()
    };
    let mut a = side("run 1", 1, 1.0, 1.0, 1.0);
    let mut b = side("run 2", 4, 1.0, 1.0, 1.0);
    for r in &mut a.runs {
        let inv = r.inventory.as_mut().unwrap();
        inv.cpu.governor = Some("powersave".into());
        inv.host = Some(host("power", "C6", 170));
    }
    for r in &mut b.runs {
        let inv = r.inventory.as_mut().unwrap();
        inv.cpu.governor = Some("powersave".into());
        inv.host = Some(host("performance", "C1", 2));
    }
    let c = compare(&[a.clone(), b]);
    let messages: Vec<String> = c.warnings.iter().map(|w| w.message()).collect();
    assert_eq!(
        messages,
        vec![
            "EPP differs: run 1 = power; run 2 = performance",
            "deepest C-state differs: run 1 = C6 (170 µs exit latency); run 2 = C1 (2 µs exit latency)",
        ]
    );
    // The governor every policy has replaces CPU 0's: the same on both.
    assert!(!messages.iter().any(|m| m.starts_with("governor")));
    // A run stored before host state was recorded warns about nothing it
    // did not record.
    let mut old = side("old", 7, 1.0, 1.0, 1.0);
    for r in &mut old.runs {
        r.inventory.as_mut().unwrap().cpu.governor = Some("powersave".into());
    }
    let c = compare(&[old, a]);
    assert_eq!(c.warnings, vec![], "{:?}", c.warnings);
}
