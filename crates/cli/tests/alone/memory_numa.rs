//! `nodebench memory numa` and `memory loaded-latency` on this machine, as a
//! user runs them: the matrices' shape and note, the loaded-latency curve's
//! points and rise, the tables printed, and bad flags refused in one line.

use crate::common;

use common::{json, one_line_error, run, stdout};

fn metrics<'a>(result: &'a serde_json::Value, name: &str) -> Vec<&'a serde_json::Value> {
    result["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["name"] == name)
        .collect()
}

#[test]
fn numa_matrix_has_one_cell_per_node_pair_and_says_so_on_one_node() {
    let _alone = crate::ALONE.lock().unwrap_or_else(|e| e.into_inner());
    let out = run(&[
        "--json",
        "memory",
        "numa",
        "--latency-size",
        "64m",
        "--bandwidth-size",
        "64m",
        "--duration",
        "50ms",
    ]);
    let v = json(&out);
    let r = &v["results"][0];
    assert_eq!(r["benchmark"], "memory.numa");
    let nodes = std::fs::read_dir("/sys/devices/system/node")
        .map(|d| {
            d.filter_map(|e| e.ok())
                .filter(|e| {
                    let n = e.file_name().into_string().unwrap_or_default();
                    n.starts_with("node") && n[4..].chars().all(|c| c.is_ascii_digit())
                })
                .count()
        })
        .unwrap_or(1);
    let lat = metrics(r, "latency");
    let bw = metrics(r, "bandwidth");
    assert_eq!(lat.len(), nodes * nodes);
    assert_eq!(bw.len(), nodes * nodes);
    for m in lat.iter().chain(&bw) {
        assert!(m["value"].as_f64().unwrap() > 0.0, "{m}");
    }
    let ns = lat[0]["value"].as_f64().unwrap() * 1e9;
    assert!((20.0..2000.0).contains(&ns), "DRAM latency {ns} ns");
    if nodes == 1 {
        assert_eq!(lat[0]["labels"]["cpu_node"], "0");
        assert_eq!(lat[0]["labels"]["memory_node"], "0");
        assert!(
            r["parameters"]["note"]
                .as_str()
                .unwrap()
                .starts_with("one NUMA node: a 1x1 matrix")
        );
        assert_eq!(
            r["parameters"]["placement"],
            "bound with mbind; every sampled page on the intended node"
        );
    }
    let text = stdout(&run(&[
        "memory",
        "numa",
        "--latency-size",
        "16m",
        "--bandwidth-size",
        "16m",
        "--duration",
        "20ms",
    ]));
    assert!(text.contains("Idle latency (ns): CPUs of node (rows) to memory of node (columns)\n  node                0\n     0 "), "{text}");
}

#[test]
fn loaded_latency_sweeps_bandwidth_and_measures_every_point() {
    let _alone = crate::ALONE.lock().unwrap_or_else(|e| e.into_inner());
    if nodebench_core::affinity::allowed_cpus().len() < 2 {
        return;
    }
    // What the sweep must show on any machine: at least 6 loaded points,
    // the traffic's bandwidth rising as the delay falls (delay 0 moves at
    // least 20x what the longest delay moves), and every latency a DRAM
    // latency no lower than the idle one by more than noise. Whether it
    // rises 1.3x depends on the machine: on this 2-vCPU guest one traffic
    // core moves about 9 GB/s, far from the host's peak, and the latency
    // stays within 10 % of idle when nothing else runs. The idle figure is
    // itself one noisy measurement: with database servers idling beside
    // the tests it read 180 and 198 ns where the loaded points read 126 to
    // 407 ns, so a point may be half the idle figure, never under 40 ns
    // (no DRAM access is that fast: a cache hit is a few ns).
    let (idle, points) = sweep();
    eprintln!(
        "idle {:.1} ns; points (MB/s, ns): {:?}",
        idle * 1e9,
        points
            .iter()
            .map(|(b, l)| ((b / 1e6).round(), (l * 1e9).round()))
            .collect::<Vec<_>>()
    );
    assert!(points.len() >= 6, "{points:?}");
    assert!((20e-9..2e-6).contains(&idle), "idle latency {idle}");
    let (first, last) = (points[0], points[points.len() - 1]);
    assert!(
        last.0 >= 20.0 * first.0.max(1e6),
        "delay 0 {last:?} vs longest delay {first:?}"
    );
    for &(bw, lat) in &points {
        assert!(bw > 0.0, "{points:?}");
        assert!(
            lat >= 0.5 * idle && (40e-9..2e-6).contains(&lat),
            "latency {lat} vs idle {idle}"
        );
    }
}

/// One sweep: the idle latency and the (bandwidth, latency) points.
fn sweep() -> (f64, Vec<(f64, f64)>) {
    let out = run(&[
        "--json",
        "memory",
        "loaded-latency",
        "--duration",
        "100ms",
        "--no-peak",
    ]);
    let v = json(&out);
    let r = &v["results"][0];
    let lat = metrics(r, "latency");
    let points: Vec<(f64, f64)> = lat
        .iter()
        .filter(|m| m["labels"]["delay"] != "idle")
        .map(|m| {
            let delay = m["labels"]["delay"].as_str().unwrap();
            let bw = metrics(r, "bandwidth")
                .into_iter()
                .find(|b| b["labels"]["delay"] == delay)
                .unwrap()["value"]
                .as_f64()
                .unwrap();
            (bw, m["value"].as_f64().unwrap())
        })
        .collect();
    let idle = lat.iter().find(|m| m["labels"]["delay"] == "idle").unwrap()["value"]
        .as_f64()
        .unwrap();
    (idle, points)
}

#[test]
fn bad_flags_are_refused_in_one_line() {
    let _alone = crate::ALONE.lock().unwrap_or_else(|e| e.into_inner());
    one_line_error(
        &run(&["memory", "loaded-latency", "--mix", "4:1"]),
        2,
        &["--mix", "reads, 3:1, 2:1, 1:1, nt_writes"],
    );
    one_line_error(
        &run(&["memory", "numa", "--latency-size", "1m"]),
        2,
        &["--latency-size: expected at least 4 MiB"],
    );
    one_line_error(
        &run(&["memory", "loaded-latency", "--delays", ""]),
        2,
        &["--delays"],
    );
}

#[test]
fn stream_runs_on_one_node_and_interleaved_and_refuses_a_missing_node() {
    let _alone = crate::ALONE.lock().unwrap_or_else(|e| e.into_inner());
    let small = ["--array-size", "2m", "--ntimes", "3", "--no-nontemporal"];
    let node0 = json(&run(&[
        &["--json", "memory", "stream", "--numa", "node:0"][..],
        &small[..],
    ]
    .concat()));
    let r = &node0["results"][0];
    assert_eq!(r["parameters"]["numa"], "node 0");
    assert_eq!(r["parameters"]["placement"], "bound to node 0");
    assert_eq!(r["status"], "passed");
    let inter = json(&run(&[
        &[
            "--json",
            "memory",
            "stream",
            "--numa",
            "interleave",
            "--threads",
            "1",
        ][..],
        &small[..],
    ]
    .concat()));
    assert!(
        inter["results"][0]["parameters"]["numa"]
            .as_str()
            .unwrap()
            .starts_with("interleave over nodes 0")
    );
    // The plain run carries no numa parameter, so it compares with runs
    // made before --numa existed.
    let plain = json(&run(&[
        &["--json", "memory", "stream", "--threads", "1"][..],
        &small[..],
    ]
    .concat()));
    assert!(plain["results"][0]["parameters"].get("numa").is_none());
    let text = stdout(&run(&[
        &["memory", "stream", "--numa", "node:0"][..],
        &small[..],
    ]
    .concat()));
    assert!(
        text.contains("memory.stream [passed]  stores=normal  threads=2  numa=node 0\n")
            || !text.contains("threads=2"),
        "{text}"
    );
    assert!(text.contains("  numa=node 0\n"), "{text}");
    one_line_error(
        &run(&["memory", "stream", "--numa", "node:x"]),
        2,
        &["--numa", "local, interleave or node:N"],
    );
    let missing = run(&["memory", "stream", "--numa", "node:4000"]);
    assert_ne!(missing.status.code(), Some(0));
    assert!(
        common::stderr(&missing).contains("--numa node:4000: expected a node with usable CPUs")
    );
}
