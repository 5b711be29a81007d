//! The catalog of what each runnable benchmark produces
//! (`nodebench_core::registry::catalog`) held against real runs: every runnable
//! benchmark runs at tiny sizes, offline, with `--json`, and every metric of
//! every result must be in its benchmark's spec with that unit, every label
//! key in the spec and every label value among the spec's values where it
//! lists them. The other way round, every metric of a spec must turn up,
//! but for the few a tiny run may leave out ([`MAY_BE_ABSENT`]).

use crate::common;
use crate::rapl;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Output;

use nodebench_core::model::Unit;
use nodebench_core::names::burnin::{self, metric as burnin_metric};
use nodebench_core::names::{cpu, db, disk, energy, fleet, gpu, http, linpack, memory, net, scan};
use nodebench_core::registry::catalog;
use nodebench_fleet::analysis::links::LinkMatrix;
use nodebench_http::server::{Server, ServerConfig};
use serde_json::Value;

use common::{QUICK_OPS, bin, json, stderr};

/// The benchmarks each test below runs; together, every one in the catalog.
const CPU_AND_MEMORY: &[&str] = &[
    cpu::OPS,
    cpu::SWITCH,
    linpack::LINPACK,
    memory::STREAM,
    memory::BLOCKS,
    memory::LATENCY,
    memory::NUMA,
    memory::LOADED_LATENCY,
];
/// HPC Challenge's tests.
const HPCC: &[&str] = &[
    cpu::HPCC_DGEMM,
    cpu::HPCC_FFT,
    memory::HPCC_PTRANS,
    memory::HPCC_RANDOM_ACCESS,
];
const DISK: &[&str] = &[disk::IOZONE, disk::DD, disk::BLOCKS, disk::FSYNC];
const NET: &[&str] = &[net::TCP, net::UDP, net::PINGPONG];
const HTTP_AND_SCAN: &[&str] = &[http::LOAD, http::SWEEP, http::DOWNLOAD, scan::SCAN];
const DB_AND_BURNIN: &[&str] = &[db::AS3AP, db::TPCC, burnin::CHECKPOINT];
/// The idle draw, run on a recorded tree with a RAPL zone.
const POWER: &[&str] = &[energy::IDLE];
/// The link matrix `fleet pair --matrix` stores.
const FLEET: &[&str] = &[fleet::LINKS];
/// Benchmarks that need an NVIDIA GPU: on a machine without one they exit
/// 3 before running (tests/it/gpu.rs), so no result of theirs is checked here.
const NEEDS_A_GPU: &[&str] = &[gpu::STREAM, gpu::GEMM, gpu::BANDWIDTH, gpu::BURN];

/// Metrics recorded in another unit than the catalog's under some labels
/// (the catalog's module notes), with every unit each takes.
const UNIT_VARIES: &[(&str, &str, &[Unit])] = &[
    (
        cpu::OPS,
        cpu::RATE,
        &[Unit::FlopsPerSecond, Unit::OpsPerSecond],
    ),
    (burnin::CHECKPOINT, burnin_metric::THROUGHPUT_MEAN, BURNIN),
    (burnin::CHECKPOINT, burnin_metric::THROUGHPUT_MIN, BURNIN),
    (burnin::CHECKPOINT, burnin_metric::THROUGHPUT_MAX, BURNIN),
    (burnin::CHECKPOINT, burnin_metric::BASELINE_MEDIAN, BURNIN),
];
/// The units of the burn-in's workloads.
const BURNIN: &[Unit] = &[
    Unit::BytesPerSecond,
    Unit::FlopsPerSecond,
    Unit::OpsPerSecond,
];

/// Catalog metrics a tiny run here may not record: each is recorded only
/// when something happened that these runs do not make sure of.
const MAY_BE_ABSENT: &[(&str, &str)] = &[
    // The core clock could not be measured.
    (memory::LATENCY, memory::metric::LATENCY_CYCLES),
    // Only where latency reaches twice the idle latency in the sweep.
    (memory::LOADED_LATENCY, memory::metric::KNEE_BANDWIDTH),
    (memory::LOADED_LATENCY, memory::metric::KNEE_LATENCY),
    // No TCP_INFO sample was taken in the run.
    (net::TCP, net::metric::RETRANSMITS),
    (net::TCP, net::metric::SND_CWND_MAX),
    (net::TCP, net::metric::RTT),
    // Only once the rate stops growing, and with the machine's CPU shares.
    (http::SWEEP, http::sweep::SATURATION_RATE),
    (http::SWEEP, http::sweep::MACHINE_CPU),
    (http::SWEEP, http::sweep::CLIENT_CPU),
    // Only once the baseline window has closed on samples.
    (burnin::CHECKPOINT, burnin_metric::BASELINE_MEDIAN),
    (burnin::CHECKPOINT, burnin_metric::PERCENT_OF_BASELINE),
    // Only where a power source is readable (none on a CI guest).
    (burnin::CHECKPOINT, burnin_metric::POWER_MEDIAN),
    (burnin::CHECKPOINT, burnin_metric::POWER_BASELINE_MEDIAN),
    (burnin::CHECKPOINT, burnin_metric::POWER_PERCENT_OF_BASELINE),
    // Only with --time-limit, the equivalent-size search (tests/it/db_metric.rs
    // checks its figures against the catalog).
    (db::AS3AP, db::metric::EQUIVALENT_SIZE),
    (db::AS3AP, db::metric::EQUIVALENT_ROWS_PER_TABLE),
    (db::AS3AP, db::metric::SEARCH_SECONDS),
    (db::AS3AP, db::metric::TRIAL_SIZE),
    (db::AS3AP, db::metric::TRIAL_ROWS_PER_TABLE),
    (db::AS3AP, db::metric::TRIAL_SECONDS),
    (db::AS3AP, db::metric::TRIAL_WITHIN_LIMIT),
    (db::AS3AP, db::metric::TEST_SECONDS),
];

/// The run printed by `nodebench --no-save --json --no-telemetry -q ARGS`,
/// which must succeed.
fn run(args: &[&str]) -> Value {
    json(&output(args))
}

fn output(args: &[&str]) -> Output {
    bin()
        .args(["--no-save", "--json", "--no-telemetry", "-q"])
        .args(args)
        .output()
        .unwrap()
}

/// A scratch directory under the target directory (not a tmpfs /tmp).
fn scratch() -> tempfile::TempDir {
    tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap()
}

fn text(v: &Value) -> &str {
    v.as_str().unwrap_or_else(|| panic!("not a string: {v}"))
}

/// Checks every result of `runs` against the catalog, that each of `ids`
/// has a result, and that every metric of their specs was recorded but for
/// [`MAY_BE_ABSENT`].
fn check(runs: &[Value], ids: &[&str]) {
    let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
    let mut errors: Vec<String> = Vec::new();
    for run in runs {
        for r in run["results"].as_array().unwrap() {
            let id = text(&r["benchmark"]);
            let spec = catalog::spec(id).unwrap_or_else(|| panic!("{id}: not in the catalog"));
            if let Some(e) = r["error"].as_str() {
                errors.push(format!("{id}: {e}"));
            }
            for m in r["metrics"].as_array().unwrap() {
                let name = text(&m["name"]);
                let unit = Unit::from_symbol(text(&m["unit"])).unwrap();
                let want = spec
                    .metric(name)
                    .unwrap_or_else(|| panic!("{id} {name}: not in the catalog: {m}"));
                let varies = UNIT_VARIES
                    .iter()
                    .any(|(b, n, units)| *b == id && *n == name && units.contains(&unit));
                assert!(
                    want.unit == unit || varies,
                    "{id} {name}: in {} here, {} in the catalog: {m}",
                    unit.symbol(),
                    want.unit.symbol()
                );
                for (key, value) in m["labels"].as_object().into_iter().flatten() {
                    let label = spec
                        .label(key)
                        .unwrap_or_else(|| panic!("{id} {name}: label {key} not in the catalog"));
                    if let Some(values) = label.values {
                        assert!(
                            values.contains(&text(value)),
                            "{id} {name}: {key}={value} not among {values:?}"
                        );
                    }
                }
                seen.insert((id.to_string(), name.to_string()));
            }
        }
    }
    for &id in ids {
        let spec = catalog::spec(id).unwrap();
        assert!(
            seen.iter().any(|(b, _)| b == id),
            "{id}: no metric recorded; errors: {errors:?}"
        );
        let missing: Vec<&str> = spec
            .metrics
            .iter()
            .map(|m| m.name)
            .filter(|n| !seen.contains(&(id.to_string(), n.to_string())))
            .filter(|&n| !MAY_BE_ABSENT.contains(&(id, n)))
            .collect();
        assert!(
            missing.is_empty(),
            "{id}: never recorded: {missing:?}; errors: {errors:?}"
        );
    }
}

#[test]
fn every_runnable_benchmark_is_run_here() {
    let run_here: BTreeSet<&str> = [
        CPU_AND_MEMORY,
        HPCC,
        DISK,
        NET,
        HTTP_AND_SCAN,
        DB_AND_BURNIN,
        POWER,
        FLEET,
        NEEDS_A_GPU,
    ]
    .concat()
    .into_iter()
    .collect();
    let catalog: BTreeSet<&str> = catalog::all().iter().map(|s| s.id).collect();
    assert_eq!(run_here, catalog);
    for (id, name) in UNIT_VARIES
        .iter()
        .map(|(b, n, _)| (b, n))
        .chain(MAY_BE_ABSENT.iter().map(|(b, n)| (b, n)))
    {
        let spec = catalog::spec(id).unwrap();
        assert!(spec.metrics.iter().any(|m| m.name == *name), "{id} {name}");
    }
}

#[test]
fn cpu_and_memory_results_are_in_the_catalog() {
    // QUICK_OPS without its --quiet: run() passes -q.
    let ops: Vec<&str> = QUICK_OPS
        .iter()
        .copied()
        .filter(|a| *a != "--quiet")
        .collect();
    let runs = [
        run(&ops),
        run(&["cpu", "switch", "--loops", "2000"]),
        run(&[
            "cpu", "linpack", "--sizes", "200", "--trials", "1", "--blas", "rust",
        ]),
        run(&[
            "memory",
            "stream",
            "--threads",
            "1",
            "--array-size",
            "1m",
            "--ntimes",
            "3",
        ]),
        run(&[
            "memory",
            "blocks",
            "--block-sizes",
            "8,64KiB",
            "--threads",
            "1,2",
            "--total",
            "8MiB",
        ]),
        run(&[
            "memory",
            "latency",
            "--min-size",
            "4KiB",
            "--max-size",
            "64KiB",
            "--duration",
            "5ms",
        ]),
        run(&[
            "memory",
            "numa",
            "--latency-size",
            "8m",
            "--bandwidth-size",
            "8m",
            "--duration",
            "10ms",
        ]),
        run(&[
            "memory",
            "loaded-latency",
            "--chase-size",
            "8m",
            "--traffic-size",
            "8m",
            "--delays",
            "100,0",
            "--duration",
            "10ms",
        ]),
    ];
    check(&runs, CPU_AND_MEMORY);
}

#[test]
fn hpcc_results_are_in_the_catalog() {
    let runs = [
        run(&["cpu", "dgemm", "--order", "64", "--threads", "2"]),
        run(&["cpu", "fft", "--size", "1024", "--threads", "2"]),
        run(&["memory", "ptrans", "--order", "100", "--threads", "2"]),
        run(&[
            "memory",
            "gups",
            "--table-size",
            "65536",
            "--threads",
            "2",
            "--modes",
            "single,star,shared",
        ]),
    ];
    check(&runs, HPCC);
}

#[test]
fn disk_results_are_in_the_catalog() {
    let d = scratch();
    let dir = d.path().to_str().unwrap();
    let tests = disk_tests();
    let runs = [
        // Two workers: throughput mode's figures too.
        run(&[
            "disk", "iozone", "--dir", dir, "-s", "1m", "-r", "64k", "-t", "2", "--tests", &tests,
        ]),
        run(&[
            "disk",
            "dd",
            "--dir",
            dir,
            "--block-size",
            "64k",
            "--count",
            "16",
        ]),
        // Both sync calls: each value of the `sync` label.
        run(&["disk", "fsync", "--dir", dir, "--count", "8"]),
        run(&[
            "disk", "fsync", "--dir", dir, "--count", "8", "--sync", "fsync",
        ]),
        // Steady state: the rounds' IOPS too (5 rounds at the least).
        run(&[
            "disk",
            "blocks",
            "--dir",
            dir,
            "--block-sizes",
            "4k,64k",
            "--threads",
            "1,2",
            "--total",
            "1MiB",
            "--steady-state",
            "--max-rounds",
            "5",
        ]),
        run(&[
            "disk",
            "iozone",
            "--dir",
            dir,
            "-s",
            "256k",
            "-r",
            "64k",
            "--tests",
            "write,read",
            "--steady-state",
            "--max-rounds",
            "5",
        ]),
    ];
    check(&runs, DISK);
    assert!(leftovers(d.path()).is_empty(), "{:?}", leftovers(d.path()));
}

/// Every IOzone test the catalog lists, comma-separated.
fn disk_tests() -> String {
    let spec = catalog::spec(disk::IOZONE).unwrap();
    let test = spec
        .labels
        .iter()
        .find(|l| l.key == disk::label::TEST)
        .unwrap();
    test.values.unwrap().join(",")
}

fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn net_results_are_in_the_catalog() {
    let runs = [
        run(&["net", "tcp", "--loopback", "-t", "1", "--bidir"]),
        run(&[
            "net",
            "udp",
            "--loopback",
            "-t",
            "1",
            "-b",
            "10M",
            "--bidir",
        ]),
        run(&[
            "net",
            "pingpong",
            "--loopback",
            "--duration",
            "100ms",
            "--sizes",
            "1,1024",
            "--threads",
            "1",
        ]),
    ];
    check(&runs, NET);
}

/// The link matrix, built by the fleet crate as `fleet pair --matrix`
/// builds it, from real runs of the two tests it reads (here on loopback,
/// tagged as a pair's client runs are: server a, client b).
#[test]
fn the_fleet_link_matrix_is_in_the_catalog() {
    let mut runs: Vec<nodebench_core::Run> = [
        run(&["net", "tcp", "--loopback", "-t", "300ms"]),
        run(&[
            "net",
            "pingpong",
            "--loopback",
            "--duration",
            "100ms",
            "--protocols",
            "tcp",
            "--sizes",
            "1",
            "--threads",
            "1",
        ]),
    ]
    .into_iter()
    .map(|v| serde_json::from_value(v).unwrap())
    .collect();
    for r in &mut runs {
        r.tags.insert(fleet::SERVER_TAG.into(), "a".into());
        r.tags.insert(fleet::HOST_TAG.into(), "b".into());
    }
    let m = LinkMatrix::from_pair_runs(&runs, 5.0);
    assert_eq!(m.links.len(), 1);
    let stored = serde_json::json!({ "results": [m.to_result()] });
    check(&[stored], FLEET);
}

#[test]
fn http_and_scan_results_are_in_the_catalog() {
    let server = Server::bind(ServerConfig {
        threads: 1,
        ..ServerConfig::default()
    })
    .unwrap()
    .spawn();
    let url = format!("http://{}", server.local_addr());
    let runs = [
        run(&["http", "load", "-n", "200", "-c", "4", "/bytes/100"]),
        // The open model, over a full second: late sends and reply rates.
        run(&[
            "http",
            "load",
            "--rate",
            "200",
            "--duration",
            "1100ms",
            "/bytes/100",
        ]),
        run(&["http", "sweep", "--users", "1,2", "-n", "10", "/1150"]),
        run(&["http", "download", "/bytes/1M"]),
        run(&["scan", &url, "--rate", "1000"]),
    ];
    check(&runs, HTTP_AND_SCAN);
}

#[test]
fn db_and_burnin_results_are_in_the_catalog() {
    let d = scratch();
    let db = format!("sqlite:{}", d.path().join("as3ap.db").display());
    let as3ap = run(&[
        "db",
        "as3ap",
        "--db",
        &db,
        "--size",
        "4000000",
        "--users",
        "2",
        "--warmup",
        "0",
        "--measure",
        "100ms",
    ]);
    // The TPC-C tables scaled down 10x (a test setting), 1 s.
    let tpcc_db = format!("sqlite:{}", d.path().join("tpcc.db").display());
    let tpcc = run(&[
        "db",
        "tpcc",
        "--db",
        &tpcc_db,
        "--test-scale-down",
        "10",
        "--users",
        "2",
        "--warmup",
        "0",
        "--duration",
        "1s",
    ]);
    // PASS or FAIL is the machine's to say (exit 0 or 1, the verdict
    // printed after the run's JSON); the run is whole.
    let o = output(&[
        "burnin",
        "--workloads",
        "cpu,http",
        "--duration",
        "6s",
        "--checkpoint",
        "3s",
    ]);
    assert!(matches!(o.status.code(), Some(0 | 1)), "{}", stderr(&o));
    let burnin: Value = serde_json::Deserializer::from_slice(&o.stdout)
        .into_iter()
        .next()
        .expect("a run on stdout")
        .expect("stdout starts with JSON");
    check(&[as3ap, tpcc, burnin], DB_AND_BURNIN);
}

#[test]
fn power_idle_results_are_in_the_catalog() {
    let mut zone = rapl::Rapl::start(1 << 40, 30.0);
    let o = zone
        .env(&mut bin())
        .args(["--no-save", "--json", "--no-telemetry", "-q"])
        .args(["power", "idle", "--duration", "1s"])
        .output()
        .unwrap();
    zone.stop();
    check(&[json(&o)], POWER);
}
