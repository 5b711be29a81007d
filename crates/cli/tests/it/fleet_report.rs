//! `nodebench fleet report`: a generated fleet of 1,000 hosts in a
//! temporary store with planted cases (two slow hosts, one of them a DIMM
//! short, one with a downtrained NIC link, 12 with other microcode, two at
//! powersave: each found, nothing else flagged; the GPUs' idle link speed
//! differs from host to host and is not flagged),
//! a small fleet judged by the tolerance alone, the JSON model against its
//! checked-in schema, and the refused arguments. The fleet page (`-o
//! FILE.html`) of the 1,000 hosts: under 5 MB, the planted hosts named,
//! loaded by headless Chromium without an error or a fetch.

use crate::common;
use crate::devtools;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{TempStore, bin, json, one_line_error, stderr, stdout};
use nodebench_core::BenchResult;
use nodebench_core::inventory::topology::Dimm;
use nodebench_core::inventory::{Inventory, PcieKind, PcieLink, Topology};
use nodebench_core::model::{Better, Metric, Run, RunStatus, Unit};
use nodebench_core::names::{cpu, fleet, labels, memory, net};
use nodebench_core::rng::XorShift64;
use nodebench_store::{SqliteStore, Store};
use serde_json::Value;

fn schema_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../schema/fleet.schema.json")
}

/// Noise of standard deviation 1 %, bell-shaped and bounded (the sum of
/// four uniform draws: never beyond +-3.5 %, so only a planted host can be
/// worse than the median by 5 %).
fn noise(rng: &mut XorShift64) -> f64 {
    let sum: f64 = (0..4)
        .map(|_| rng.below(1 << 20) as f64 / (1u64 << 19) as f64 - 1.0)
        .sum();
    sum * 0.01 / (4.0f64 / 3.0).sqrt()
}

/// Host `h`'s run: 200 performance figures (STREAM bandwidth and times,
/// cpu ops rates and efficiencies, latencies) with 1 % noise ([`noise`]), STREAM's
/// bandwidth times `stream`, and a byte count (not performance).
fn host_run(h: usize, fleet_id: &str, stream: f64) -> Run {
    let name = format!("h{h:04}");
    let mut run = Run::start(
        Vec::new(),
        BTreeMap::from([
            (fleet::HOST_TAG.to_string(), name),
            (fleet::FLEET_TAG.to_string(), fleet_id.to_string()),
        ]),
    );
    run.status = RunStatus::Complete;
    let mut rng = XorShift64::new(h as u64 + 1);
    let mut noisy = |v: f64| v * (1.0 + noise(&mut rng));
    let threads = [1, 2, 4, 8, 16];
    let mut s = BenchResult::new(memory::STREAM);
    for k in [
        memory::kernel::COPY,
        memory::kernel::SCALE,
        memory::kernel::ADD,
        memory::kernel::TRIAD,
    ] {
        for t in threads {
            let bw = noisy(1e10 * t as f64) * stream;
            for (name, v, unit, better) in [
                (
                    memory::metric::BANDWIDTH,
                    bw,
                    Unit::BytesPerSecond,
                    Better::Higher,
                ),
                (
                    memory::metric::TIME_MIN,
                    noisy(1e-3),
                    Unit::Seconds,
                    Better::Lower,
                ),
                (
                    memory::metric::TIME_AVG,
                    noisy(1.1e-3),
                    Unit::Seconds,
                    Better::Lower,
                ),
            ] {
                s.metrics.push(
                    Metric::new(name, v, unit, better)
                        .label(labels::KERNEL, k)
                        .label(labels::THREADS, t),
                );
            }
        }
    }
    s.metrics.push(Metric::new(
        net::metric::BYTES,
        1e9,
        Unit::Bytes,
        Better::Higher,
    ));
    let mut c = BenchResult::new(cpu::OPS);
    for &k in cpu::kernel::ALL {
        for t in threads {
            for sc in [cpu::scaling::STRONG, cpu::scaling::WEAK] {
                c.metrics.push(
                    Metric::new(
                        cpu::RATE,
                        noisy(1e9 * t as f64),
                        Unit::OpsPerSecond,
                        Better::Higher,
                    )
                    .label(labels::KERNEL, k)
                    .label(labels::THREADS, t)
                    .label(cpu::label::SCALING, sc),
                );
            }
            c.metrics.push(
                Metric::new(cpu::EFFICIENCY, noisy(90.0), Unit::Percent, Better::Higher)
                    .label(labels::KERNEL, k)
                    .label(labels::THREADS, t),
            );
        }
    }
    let mut l = BenchResult::new(memory::LATENCY);
    for i in 0..50 {
        l.metrics.push(
            Metric::new(
                memory::metric::LATENCY,
                noisy(1e-9 * (i + 1) as f64),
                Unit::Seconds,
                Better::Lower,
            )
            .label(memory::label::WORKING_SET, 4096u64 << (i % 25))
            .label(labels::SIZE, i),
        );
    }
    run.results = vec![s, c, l];
    let mut inv = Inventory {
        hostname: Some(format!("h{h:04}")),
        ..Inventory::default()
    };
    inv.cpu.microcode = Some("0x2b000590".into());
    inv.cpu.governor = Some("performance".into());
    inv.memory.available_bytes = Some(1 << 30 | h as u64);
    inv.topology = Some(Topology {
        dimms: Some(
            (0..16)
                .map(|i| Dimm {
                    controller: i / 2,
                    slot: i % 2,
                    size_bytes: Some(32 << 30),
                    ..Dimm::default()
                })
                .collect(),
        ),
        ..Topology::default()
    });
    let link = |address: &str, kind, name: &str, speed, width, max| {
        PcieLink::known(address, kind, name, (speed, width), max)
    };
    // A GPU idles at 2.5 GT/s on a third of the hosts.
    let gpu_speed = if h.is_multiple_of(3) { 2.5 } else { 32.0 };
    inv.pcie_links = Some(vec![
        link(
            "0000:18:00.0",
            PcieKind::Gpu,
            "GPU 0",
            gpu_speed,
            16,
            (32.0, 16),
        ),
        link("0000:3b:00.0", PcieKind::Nic, "eth0", 16.0, 16, (16.0, 16)),
        link("0000:5e:00.0", PcieKind::Nvme, "nvme0", 16.0, 4, (16.0, 4)),
    ]);
    run.inventory = Some(inv);
    run
}

/// Stores `hosts` hosts' runs of fleet `fleet_id`, `tweak` changing each.
fn store_fleet(t: &TempStore, fleet_id: &str, hosts: usize, tweak: impl Fn(usize, &mut Run)) {
    let mut store = SqliteStore::open(&t.store()).unwrap();
    for h in 0..hosts {
        let mut run = host_run(h, fleet_id, 1.0);
        tweak(h, &mut run);
        store.begin_run(&run).unwrap();
    }
}

/// `fleet report ARGS --json`, validated against the checked-in schema.
fn report_json(t: &TempStore, args: &[&str]) -> (Value, std::process::Output) {
    let mut a = vec!["--json", "fleet", "report"];
    a.extend_from_slice(args);
    let o = t.run(&a);
    let v: Value = serde_json::from_slice(&o.stdout)
        .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", stderr(&o)));
    let schema: Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path()).unwrap()).unwrap();
    let validator = jsonschema::validator_for(&schema).expect("schema compiles");
    let errors: Vec<String> = validator.iter_errors(&v).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{errors:#?}");
    (v, o)
}

fn outliers(v: &Value) -> Vec<String> {
    v["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| !h["outliers"].as_array().unwrap().is_empty())
        .map(|h| h["host"].as_str().unwrap().to_string())
        .collect()
}

/// The verdict of `host` in the report `v`.
fn host_of<'a>(v: &'a Value, host: &str) -> &'a Value {
    v["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["host"] == host)
        .unwrap()
}

#[test]
fn checked_in_fleet_schema_matches_the_model() {
    let generated = json(&bin().args(["schema", "fleet"]).output().unwrap());
    let checked_in: Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path()).unwrap()).unwrap();
    assert_eq!(
        generated, checked_in,
        "schema/fleet.schema.json is stale: regenerate it with `nodebench schema fleet > schema/fleet.schema.json` and bump FLEET_REPORT_SCHEMA_VERSION if a field changed meaning"
    );
}

#[test]
fn a_thousand_hosts_name_the_planted_slow_hosts_and_nothing_else() {
    let t = TempStore::new();
    store_fleet(&t, "f1000", 1000, |h, run| {
        let inv = run.inventory.as_mut().unwrap();
        match h {
            123 => {
                let dimms = inv.topology.as_mut().unwrap().dimms.as_mut().unwrap();
                dimms.remove(5);
            }
            200..212 => inv.cpu.microcode = Some("0x2b000571".into()),
            300 | 301 => inv.cpu.governor = Some("powersave".into()),
            456 => inv.pcie_links.as_mut().unwrap()[1].current_width = Some(8),
            _ => {}
        }
        let factor = match h {
            17 => 0.90,
            123 => 0.94,
            _ => return,
        };
        for m in &mut run.results[0].metrics {
            if m.name == memory::metric::BANDWIDTH {
                m.value *= factor;
            }
        }
    });
    let (v, o) = report_json(&t, &["f1000"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(v["hosts"].as_array().unwrap().len(), 1000);
    assert_eq!(v["figures"].as_array().unwrap().len(), 200);
    assert_eq!(v["left_out_figures"], 1);
    assert_eq!(v["robust_z_used"], true);
    assert_eq!(outliers(&v), ["h0017", "h0123"], "{:#}", v["hosts"][2]);
    assert_eq!(
        stderr(&o).trim(),
        "error: fleet report: 17 of 1000 host(s) flagged: 2 outlier(s), 16 unlike the others in inventory or host state"
    );
    // The odd hosts: grouped against the majority, nothing else.
    let odd: Vec<String> = v["consistency"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let others: Vec<String> = c["others"]
                .as_array()
                .unwrap()
                .iter()
                .map(|g| format!("{}: {}", g["value"], g["hosts"].as_array().unwrap().len()))
                .collect();
            format!(
                "{} {} {} | {}",
                c["field"],
                c["majority"],
                c["majority_hosts"],
                others.join(", ")
            )
        })
        .collect();
    assert_eq!(
        odd,
        [
            r#""cpu.governor" "performance" 998 | "powersave": 2"#,
            r#""cpu.microcode" "0x2b000590" 988 | "0x2b000571": 12"#,
            r#""pcie_links.1.current_width" "16" 999 | "8": 1"#,
            r#""topology.dimms (count)" "16" 999 | "15": 1"#,
        ]
    );
    let h123 = host_of(&v, "h0123");
    assert_eq!(h123["differs"][0], "topology.dimms (count)=15");
    assert!(
        h123["verdict"]
            .as_str()
            .unwrap()
            .ends_with("; differs: topology.dimms (count)=15"),
        "{h123}"
    );

    // The host with the downtrained NIC link is named, with its width.
    let h456 = host_of(&v, "h0456");
    assert_eq!(h456["verdict"], "differs: pcie_links.1.current_width=8");
    assert!(h456["outliers"].as_array().unwrap().is_empty());

    // h0017: 10 % low on (nearly) every one of the 20 STREAM bandwidths.
    let h17 = &v["hosts"][0];
    let worst = h17["outliers"][0]["worse_percent"].as_f64().unwrap();
    assert!((7.0..14.0).contains(&worst), "{h17}");
    assert!(h17["outliers"].as_array().unwrap().len() >= 18, "{h17}");
    for o in h17["outliers"].as_array().unwrap() {
        assert!(
            o["figure"]
                .as_str()
                .unwrap()
                .starts_with("memory.stream bandwidth{"),
            "{o}"
        );
    }
    let h123 = &v["hosts"][1];
    assert!(h123["outliers"].as_array().unwrap().len() >= 5, "{h123}");
    // The figure table: STREAM copy 1 thread has h0017 at its minimum.
    let f = &v["figures"][0];
    assert_eq!(f["id"], "memory.stream bandwidth{kernel=copy,threads=1}");
    assert_eq!(f["host_count"], 1000);
    assert_eq!(f["min_hosts"][0], "h0017");

    // The text: one line per host, worst first, and the figures; the page.
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("fleet.html");
    let o = t.run(&["fleet", "report", "f1000", "-o", page.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let text = stdout(&o);
    assert!(
        text.ends_with(&format!("\nwrote {}\n", page.display())),
        "{text}"
    );
    check_page(&page);
    assert!(text.starts_with("fleet report: 1000 host(s), 1000 run(s), 200 performance figure(s) (1 not performance, left out)\n"), "{text}");
    assert!(
        text.contains("2 outlier host(s), 16 unlike the others in inventory or host state, 983 ok"),
        "{text}"
    );
    assert!(
        text.contains("  cpu.microcode: 0x2b000590 on 988 hosts, 0x2b000571 on h0200-h0211\n"),
        "{text}"
    );
    assert!(
        text.contains("  cpu.governor: performance on 998 hosts, powersave on h0300-h0301\n"),
        "{text}"
    );
    assert!(
        text.contains("  topology.dimms (count): 16 on 999 hosts, 15 on h0123\n"),
        "{text}"
    );
    assert!(
        text.contains("  pcie_links.1.current_width: 16 on 999 hosts, 8 on h0456\n"),
        "{text}"
    );
    let rows: Vec<&str> = text.lines().filter(|l| l.starts_with("| h0")).collect();
    assert_eq!(rows.len(), 1000);
    assert!(rows[0].starts_with("| h0017   OUTLIER on "), "{}", rows[0]);
    assert!(rows[1].starts_with("| h0123   OUTLIER on "), "{}", rows[1]);
    assert!(rows[1].contains(", DIFFERS in 1 "), "{}", rows[1]);
    assert_eq!(
        rows.iter().filter(|r| r.contains(" DIFFERS in 1 ")).count(),
        16
    );
    assert_eq!(rows.iter().filter(|r| r.contains(" ok ")).count(), 983);
}

/// The 1,000-host page: its size, the planted hosts named in the verdicts
/// and the heat map, the consistency table; then loaded in Chromium.
fn check_page(page: &Path) {
    let html = std::fs::read_to_string(page).unwrap();
    assert!(html.len() < 5_000_000, "{} bytes", html.len());
    assert!(html.contains("<h1>nodebench fleet report: fleet f1000</h1>"));
    for h in ["h0017", "h0123"] {
        assert!(
            html.contains(&format!("<tr><td class=\"bad\">{h}</td>")),
            "{h}"
        );
    }
    assert!(html.contains("<td class=\"bad\">0x2b000571</td><td>h0200-h0211 (12)</td>"));
    let Some(chromium) = devtools::find_chromium() else {
        nodebench_core::test_require::missing(
            "fleet_report",
            nodebench_core::test_require::need::CHROMIUM,
            "chromium not found",
            "apt-get install chromium, or set NODEBENCH_CHROMIUM",
        );
        return;
    };
    let mut browser = devtools::Browser::start(&chromium);
    let load = browser.load(
        page,
        "JSON.stringify({plots: document.querySelectorAll('figure.dotplot').length,\
         heat: Array.from(document.querySelectorAll('div.heatmap image')).map(i => {\
           const b = i.getBoundingClientRect(); return [b.width, b.height]; }),\
         labels: Array.from(document.querySelectorAll('div.heatmap text.bad')).map(t => t.textContent),\
         fields: Array.from(document.querySelectorAll('table.consistency tr td:first-child')).map(t => t.textContent)})",
    );
    assert!(load.console.is_empty(), "console: {:?}", load.console);
    // Nothing fetched: the heat map's cells are a data: URI.
    assert!(
        load.requests
            .iter()
            .all(|r| r.starts_with("data:image/png;base64,")),
        "requests: {:?}",
        load.requests
    );
    let v: Value = serde_json::from_str(load.value.as_str().expect("a JSON string")).unwrap();
    assert_eq!(v["plots"], 200, "{v}");
    // 200 figures of 4 px by 998 hosts of 1 px and two outliers of 12.
    assert_eq!(v["heat"], serde_json::json!([[800, 1022]]), "{v}");
    assert_eq!(v["labels"], serde_json::json!(["h0017", "h0123"]), "{v}");
    assert_eq!(
        v["fields"],
        serde_json::json!([
            "cpu.governor",
            "cpu.microcode",
            "pcie_links.1.current_width",
            "topology.dimms (count)"
        ]),
        "{v}"
    );
}

#[test]
fn a_small_fleet_is_judged_by_the_tolerance_alone_and_says_so() {
    let t = TempStore::new();
    store_fleet(&t, "f5", 5, |h, run| {
        if h == 3 {
            for m in &mut run.results[1].metrics {
                m.value *= 0.92;
            }
        }
    });
    // By tag and by run ids: the same hosts.
    let (v, o) = report_json(&t, &["tag:fleet=f5"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(v["robust_z_used"], false);
    assert!(
        v["note"]
            .as_str()
            .unwrap()
            .contains("5 host(s), below --min-hosts 8")
    );
    assert_eq!(outliers(&v), ["h0003"]);
    let (w, _) = report_json(&t, &["1", "2", "3", "4", "5"]);
    assert_eq!(outliers(&w), ["h0003"]);
    // A wider tolerance: everyone ok, exit 0; the page written all the same.
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("f5.html");
    let o = t.run(&[
        "fleet",
        "report",
        "f5",
        "--tolerance",
        "15",
        "-o",
        page.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains(
        "<b>0 outlier host(s)</b>, 0 unlike the others in inventory or host state, 5 ok."
    ));
    assert!(html.contains("<p class=\"warning\">note: 5 host(s), below --min-hosts 8"));
    let text = stdout(&o);
    assert!(
        text.contains("note: 5 host(s), below --min-hosts 8"),
        "{text}"
    );
    assert!(
        text.contains("0 outlier host(s), 0 unlike the others in inventory or host state, 5 ok"),
        "{text}"
    );
    // With the z used at 3 hosts: the -8 % host is beyond it too. With
    // --json, stdout stays the JSON and `wrote` goes to stderr.
    let json_page = dir.path().join("f5-json.html");
    let (v, o) = report_json(
        &t,
        &["f5", "--min-hosts", "3", "-o", json_page.to_str().unwrap()],
    );
    assert_eq!(v["robust_z_used"], true);
    assert_eq!(outliers(&v), ["h0003"]);
    assert_eq!(
        stderr(&o).lines().next(),
        Some(format!("wrote {}", json_page.display()).as_str())
    );
    let html = std::fs::read_to_string(&json_page).unwrap();
    assert!(html.contains("<tr><td class=\"bad\">h0003</td><td class=\"bad\">outlier on "));
}

#[test]
fn bad_arguments_are_refused_with_one_line_and_exit_2() {
    let t = TempStore::new();
    store_fleet(&t, "f3", 3, |_, _| {});
    one_line_error(
        &t.run(&["fleet", "report", "f3", "--tolerance", "0"]),
        2,
        &["--tolerance", "above 0"],
    );
    one_line_error(&t.run(&["fleet", "report", "f3", "--z", "-1"]), 2, &["--z"]);
    one_line_error(
        &t.run(&["fleet", "report", "f3", "--min-hosts", "2"]),
        2,
        &["--min-hosts", "3 or more"],
    );
    one_line_error(
        &t.run(&["fleet", "report", "nosuchfleet"]),
        2,
        &["no stored run has the tag fleet=nosuchfleet"],
    );
    one_line_error(
        &t.run(&["fleet", "report", "f3", "-o", "/nonexistent/dir/fleet.html"]),
        2,
        &["--output /nonexistent/dir/fleet.html: cannot write"],
    );
    one_line_error(
        &t.run(&["fleet", "report", "f3", "--tag", "a=b"]),
        2,
        &["--tag"],
    );
}

/// A `fleet pair --matrix` run of fleet `fleet_id` over hosts h0000-h0004,
/// every pair both ways at 1 GB/s but 0.5 GB/s where h0003 is the client,
/// as that command stores it.
fn matrix_run(fleet_id: &str) -> Run {
    let hosts: Vec<String> = (0..5).map(|h| format!("h{h:04}")).collect();
    let mut pairs = Vec::new();
    for s in &hosts {
        for c in hosts.iter().filter(|c| *c != s) {
            let mut run = Run::start(
                Vec::new(),
                BTreeMap::from([
                    (fleet::SERVER_TAG.to_string(), s.clone()),
                    (fleet::HOST_TAG.to_string(), c.clone()),
                ]),
            );
            let mut r = BenchResult::new(net::TCP);
            let b = if c == "h0003" { 5e8 } else { 1e9 };
            r.metrics.push(
                Metric::new(
                    net::metric::THROUGHPUT,
                    b,
                    Unit::BytesPerSecond,
                    Better::Higher,
                )
                .label(net::label::DIRECTION, net::direction::CLIENT_TO_SERVER)
                .label(net::label::SIDE, net::side::RECEIVER),
            );
            run.results.push(r);
            pairs.push(run);
        }
    }
    let m = nodebench_fleet::analysis::links::LinkMatrix::from_pair_runs(&pairs, 5.0);
    let mut run = Run::start(
        Vec::new(),
        BTreeMap::from([
            (fleet::FLEET_TAG.to_string(), fleet_id.to_string()),
            (fleet::MODE_TAG.to_string(), fleet::MODE_MATRIX.to_string()),
        ]),
    );
    run.status = RunStatus::Complete;
    run.results.push(m.to_result());
    run
}

#[test]
fn a_link_matrix_in_the_selection_is_printed_and_drawn_but_is_no_host() {
    let t = TempStore::new();
    store_fleet(&t, "f6", 5, |_, _| {});
    SqliteStore::open(&t.store())
        .unwrap()
        .begin_run(&matrix_run("f6"))
        .unwrap();
    // The hosts are judged as without it: five, none an outlier.
    let (v, o) = report_json(&t, &["f6"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(v["hosts"].as_array().unwrap().len(), 5);
    assert_eq!(v["runs"].as_array().unwrap().len(), 6);
    assert!(outliers(&v).is_empty());

    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("f6.html");
    let o = t.run(&["fleet", "report", "f6", "-o", page.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("link matrix: 20 link(s) between 5 host(s), stored as run 6"),
        "{text}"
    );
    assert!(text.contains("slow links (4 of 20):"), "{text}");
    assert!(
        text.contains("  h0000 -> h0003: bandwidth 500.00 MB/s (-50.0 %)"),
        "{text}"
    );
    assert!(
        text.contains("h0003 is on 4 of the 4 slow link(s) (4 of its 8 link(s))"),
        "{text}"
    );
    let html = std::fs::read_to_string(&page).unwrap();
    let links = &html[html.find("<h2 id=\"links\">").unwrap()..];
    assert!(
        links.contains("20 link(s) between 5 host(s) (run 6)"),
        "{links}"
    );
    assert_eq!(
        links
            .matches(" class=\"bad slow\">500.00 MB/s &#10005;</td>")
            .count(),
        4
    );
    assert!(links.contains("h0003 is on 4 of the 4 slow link(s)"));
    assert!(!html.contains("No link matrix in this selection"));

    // Without one, the section says how to get it.
    let t = TempStore::new();
    store_fleet(&t, "f7", 3, |_, _| {});
    let o = t.run(&["fleet", "report", "f7", "-o", page.to_str().unwrap()]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stdout(&o).contains("link matrix"));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("No link matrix in this selection"));
}
