//! `nodebench check` on the recorded and built host trees (text lines,
//! `--json` fields, exit codes 0, 1 with `--strict`, 2 on bad input), its
//! and `inventory`'s PCIe links on the trees of a downtrained, a healthy
//! and a virtual machine, and
//! `--tune` on a recorded tree: every file it wrote holds its old bytes
//! after a normal exit, after one Ctrl-C (the run finishes incomplete) and
//! after two (the second exits at once).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use common::{bin, interrupt, json, one_line_error, skipped_without_root, stderr, stdout};
use nodebench_machine::host::fixtures;
use nodebench_machine::inventory::fixtures::trees;
use nodebench_machine::sysroot::{PROCFS_ROOT_ENV, SYSFS_ROOT_ENV};

fn tree(name: &str) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    fixtures::write(name, root.path()).unwrap();
    root
}

fn on(root: &Path) -> std::process::Command {
    let mut c = bin();
    c.env(SYSFS_ROOT_ENV, root.join("sys"))
        .env(PROCFS_ROOT_ENV, root.join("proc"));
    c
}

fn check(name: &str, args: &[&str]) -> Output {
    let root = tree(name);
    on(root.path()).arg("check").args(args).output().unwrap()
}

/// `(verdict, setting)` of each text line but the count.
fn verdicts(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter(|l| l.starts_with("ok ") || l.starts_with("warn "))
        .map(|l| {
            let mut w = l.split("  ").filter(|w| !w.trim().is_empty());
            (
                w.next().unwrap().trim().into(),
                w.next().unwrap().trim().into(),
            )
        })
        .collect()
}

fn warned(text: &str) -> Vec<String> {
    verdicts(text)
        .into_iter()
        .filter(|(v, _)| v == "warn")
        .map(|(_, s)| s)
        .collect()
}

const SETTINGS: [&str; 19] = [
    "cpufreq driver",
    "governor",
    "EPP",
    "turbo",
    "frequency range",
    "deepest C-state",
    "SMT",
    "THP",
    "swap",
    "NUMA balancing",
    "irqbalance",
    "clocksource",
    "hypervisor",
    "steal time",
    "CPU limit",
    "memory",
    "thermal",
    "other processes",
    "PCIe link",
];

#[test]
fn a_healthy_host_is_all_ok_even_strict() {
    let out = check("healthy", &["--strict"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let settings: Vec<String> = verdicts(&text).into_iter().map(|(_, s)| s).collect();
    assert_eq!(settings, SETTINGS);
    assert!(warned(&text).is_empty(), "{text}");
    assert!(text.ends_with("all 19 settings ok\n"), "{text}");
    assert!(text.contains(
        "ok    deepest C-state  C1E (10 µs exit latency) on CPUs 0-15; driver intel_idle, governor menu [want"
    ));
    assert!(
        text.lines()
            .any(|l| l.starts_with("ok    other processes  0.0 % of 16 CPUs over 1.0 s")),
        "{text}"
    );
}

#[test]
fn the_powersave_host_warns_and_strict_exits_1() {
    let out = check("powersave", &[]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(
        warned(&text),
        [
            "governor",
            "EPP",
            "frequency range",
            "deepest C-state",
            "THP",
            "NUMA balancing",
            "irqbalance",
            "thermal"
        ]
    );
    assert!(text.contains("warn  governor         powersave [want performance: "));
    assert!(text.ends_with("8 of 19 settings warn\n"), "{text}");
    let strict = check("powersave", &["--strict"]);
    one_line_error(&strict, 1, &["--strict: 8 of 19 settings warn"]);
    assert_eq!(stdout(&strict), text);

    let doc = json(&check("powersave", &["--json"]));
    assert_eq!(doc["verdict"], "warn");
    let lines = doc["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 19);
    assert_eq!(lines[1]["setting"], "governor");
    assert_eq!(lines[1]["value"], "powersave");
    assert_eq!(lines[1]["want"], "performance");
    assert_eq!(lines[1]["verdict"], "warn");
    assert!(
        lines[1]["fix"]
            .as_str()
            .unwrap()
            .contains("cpupower frequency-set -g performance")
    );
    assert_eq!(doc["state"]["policies"].as_array().unwrap().len(), 16);
    assert_eq!(doc["state"]["policies"][0]["epp"], "balance_power");
    assert_eq!(doc["state"]["idle"]["deepest"]["name"], "C6");
    assert_eq!(doc["state"]["idle"]["deepest"]["exit_latency_us"], 170);
    assert_eq!(doc["state"]["irqbalance_pids"], serde_json::json!([911]));
    assert_eq!(doc["sample"]["steal_pct"], 0.0);
    // --strict with --json: the JSON, then exit 1.
    let strict_json = check("powersave", &["--json", "--strict"]);
    assert_eq!(strict_json.status.code(), Some(1));
    let doc: serde_json::Value = serde_json::from_slice(&strict_json.stdout).unwrap();
    assert_eq!(doc["verdict"], "warn");
}

#[test]
fn a_container_limited_to_fewer_cpus_than_online_warns_on_v1_and_v2() {
    let v2 = check("container-v2", &["--strict"]);
    assert_eq!(v2.status.code(), Some(1));
    let text = stdout(&v2);
    assert_eq!(warned(&text), ["steal time", "CPU limit"]);
    assert!(text.contains(
        "warn  CPU limit        cgroup v2 /: quota 2.00 CPUs (200000 100000), cpuset 4-5 (2 CPUs) of 16 online [want"
    ));
    assert!(text.contains("warn  steal time       5.0 % over 1.0 s [want under 1 %"));
    let doc = json(&check("container-v2", &["--json"]));
    assert_eq!(doc["state"]["cgroup"]["quota_cpus"], 2.0);
    assert_eq!(doc["state"]["cgroup"]["cpuset_cpus"], 2);
    assert_eq!(doc["sample"]["steal_pct"], 5.0);

    let v1 = check("container-v1", &[]);
    assert_eq!(v1.status.code(), Some(0));
    let text = stdout(&v1);
    assert_eq!(warned(&text), ["CPU limit"]);
    assert!(text.contains(
        "cgroup v1 /docker/4f2a: quota 1.50 CPUs (150000/100000), cpuset 0-3 (4 CPUs) of 16 online"
    ));
}

#[test]
fn the_busy_recorded_guest_names_its_other_processes() {
    let out = check("busy-kvm2", &[]);
    let text = stdout(&out);
    assert_eq!(warned(&text), ["other processes"]);
    assert!(text.contains(
        "warn  other processes  94.8 % of 2 CPUs over 1.1 s: 29427 rustc 27.4 %, 29564 hog 26.4 %, 25356 rustc 14.2 %, 26675 rustc 14.2 %, 28597 rustc 14.2 % [want under 2 % of the CPUs"
    ), "{text}");
    let doc = json(&check("busy-kvm2", &["--json"]));
    let top = doc["sample"]["top"].as_array().unwrap();
    assert_eq!(top.len(), 5);
    assert_eq!(
        (top[1]["pid"].as_u64(), top[1]["name"].as_str()),
        (Some(29564), Some("hog"))
    );
    assert_eq!(doc["state"]["cgroup"]["version"], 1);
    assert_eq!(doc["state"]["idle"]["driver"], "haltpoll");
}

#[test]
fn bad_input_exits_2_in_one_line() {
    let out = check("healthy", &["--strikt"]);
    assert_eq!(out.status.code(), Some(2));
    let out = bin()
        .arg("check")
        .env(SYSFS_ROOT_ENV, "/nonexistent-nb-tree/sys")
        .output()
        .unwrap();
    one_line_error(
        &out,
        2,
        &["NODEBENCH_SYSFS_ROOT=/nonexistent-nb-tree/sys/: not a directory"],
    );
    let out = bin().args(["--tune", "inventory"]).output().unwrap();
    one_line_error(&out, 2, &["--tune applies to commands that run benchmarks"]);
}

/// The `healthy` host with the PCIe links of the tree `pcie` beside it.
fn host_with_links(pcie: &str) -> tempfile::TempDir {
    let root = tree("healthy");
    trees::write(pcie, root.path()).unwrap();
    root
}

#[test]
fn a_downtrained_nic_and_nvme_drive_warn_and_an_idle_gpu_does_not() {
    let root = host_with_links("pcie-downtrained");
    let out = on(root.path()).arg("check").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert_eq!(warned(&text), ["PCIe link", "PCIe link"], "{text}");
    let pcie: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("  PCIe link  "))
        .collect();
    assert_eq!(pcie.len(), 3, "{text}");
    assert!(
        pcie[0].starts_with("ok    PCIe link        PCIe link of GPU 10de:2331 (0000:18:00.0) at 2.5 GT/s, its maximum 32.0 GT/s: idle speed (a GPU lowers its link speed when idle; not a fault) [want"),
        "{text}"
    );
    assert!(
        pcie[1].starts_with("warn  PCIe link        PCIe link of eth0 (0000:3b:00.0) at x8, its maximum x16: downtrained [want its maximum width"),
        "{text}"
    );
    assert!(pcie[1].contains("; change: reseat the card"), "{text}");
    assert!(
        pcie[2].starts_with("warn  PCIe link        PCIe link of nvme0 (0000:5e:00.0) at 8.0 GT/s, its maximum 16.0 GT/s: downtrained [want"),
        "{text}"
    );
    assert!(text.ends_with("2 of 21 settings warn\n"), "{text}");
    let strict = on(root.path())
        .args(["check", "--strict"])
        .output()
        .unwrap();
    one_line_error(&strict, 1, &["--strict: 2 of 21 settings warn"]);

    let doc = json(&on(root.path()).args(["--json", "check"]).output().unwrap());
    assert_eq!(doc["verdict"], "warn");
    let links = doc["pcie_links"].as_array().unwrap();
    assert_eq!(links.len(), 3);
    assert_eq!(links[1]["name"], "eth0");
    assert_eq!(links[1]["kind"], "nic");
    assert_eq!(links[1]["current_width"], 8);
    assert_eq!(links[1]["max_width"], 16);
    assert_eq!(links[2]["current_speed_gts"], 8.0);
    assert_eq!(links[2]["max_speed_gts"], 16.0);
}

#[test]
fn the_same_links_at_their_maximum_are_ok_even_strict() {
    let root = host_with_links("pcie-healthy");
    let out = on(root.path())
        .args(["check", "--strict"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.ends_with("all 21 settings ok\n"), "{text}");
    assert!(text.contains(
        "ok    PCIe link        nic eth0 (0000:3b:00.0): x16 at 16.0 GT/s (gen 4), its maximum x16 at 16.0 GT/s (gen 4) [want"
    ), "{text}");
}

#[test]
fn inventory_flags_the_downtrained_links_and_exits_0() {
    let root = host_with_links("pcie-downtrained");
    let out = on(root.path()).arg("inventory").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let section: Vec<&str> = text
        .lines()
        .skip_while(|l| *l != "[pcie]")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .map(str::trim)
        .collect();
    let rows: Vec<String> = section
        .iter()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect();
    assert_eq!(
        rows,
        [
            "GPU 10de:2331 gpu 0000:18:00.0: x16 at 2.5 GT/s (gen 1), its maximum x16 at 32.0 GT/s (gen 5) (note: PCIe link of GPU 10de:2331 (0000:18:00.0) at 2.5 GT/s, its maximum 32.0 GT/s: idle speed (a GPU lowers its link speed when idle; not a fault))",
            "eth0 nic 0000:3b:00.0: x8 at 16.0 GT/s (gen 4), its maximum x16 at 16.0 GT/s (gen 4) (warn: PCIe link of eth0 (0000:3b:00.0) at x8, its maximum x16: downtrained)",
            "nvme0 nvme 0000:5e:00.0: x4 at 8.0 GT/s (gen 3), its maximum x4 at 16.0 GT/s (gen 4) (warn: PCIe link of nvme0 (0000:5e:00.0) at 8.0 GT/s, its maximum 16.0 GT/s: downtrained)",
        ],
        "{text}"
    );
    let doc = json(
        &on(root.path())
            .args(["--json", "inventory"])
            .output()
            .unwrap(),
    );
    let links = doc["pcie_links"].as_array().unwrap();
    assert_eq!(links.len(), 3);
    assert_eq!(links[0]["kind"], "gpu");
    assert_eq!(links[0]["current_speed_gts"], 2.5);

    // The recorded guest: its virtio NIC has no link, and nothing is made up.
    let root = host_with_links("pcie-kvm2");
    let out = on(root.path()).arg("inventory").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("[pcie]\n  links "),
        "{}",
        stdout(&out)
    );
    let doc = json(
        &on(root.path())
            .args(["--json", "inventory"])
            .output()
            .unwrap(),
    );
    assert_eq!(doc["pcie_links"], serde_json::json!([]));
}

#[test]
fn check_on_this_machine_prints_every_line_within_3_s() {
    let start = Instant::now();
    let out = bin().arg("check").output().unwrap();
    let took = start.elapsed();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // 18 settings, then one line per PCIe link (one saying none where
    // none is read).
    let settings: Vec<String> = verdicts(&stdout(&out))
        .into_iter()
        .map(|(_, s)| s)
        .collect();
    assert_eq!(settings[..18], SETTINGS[..18], "{}", stdout(&out));
    assert!(
        settings[18..].iter().all(|s| s == "PCIe link"),
        "{settings:?}"
    );
    assert!(settings.len() > 18);
    assert!(took < Duration::from_secs(3), "{took:?}");
}

/// Every file under `root` with its bytes.
fn files(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

const CPU_OPS: [&str; 11] = [
    "cpu",
    "ops",
    "--threads",
    "1",
    "--warmup",
    "0",
    "--kernels",
    "int.scalar",
    "--no-pin",
    "--scaling",
    "strong",
];

#[test]
fn tune_puts_back_every_file_after_a_normal_exit() {
    if skipped_without_root("tune_puts_back_every_file_after_a_normal_exit", "--tune") {
        return;
    }
    let root = tree("powersave");
    let before = files(root.path());
    let out = on(root.path())
        .args(["--no-save", "-q", "--no-telemetry", "--json", "--tune"])
        .args(CPU_OPS)
        .args(["--duration", "20ms", "--repeats", "1"])
        .output()
        .unwrap();
    let run = json(&out);
    assert_eq!(
        files(root.path()),
        before,
        "a tuned file kept its new value"
    );
    let host = &run["inventory"]["host"];
    // Read after tuning: the run's state, with what was changed.
    assert_eq!(host["policies"][7]["governor"], "performance");
    assert_eq!(host["policies"][7]["epp"], "performance");
    let changes = host["tuning"]["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 32);
    assert_eq!(
        changes[1],
        serde_json::json!({
            "file": "devices/system/cpu/cpufreq/policy0/scaling_governor",
            "from": "powersave",
            "to": "performance"
        })
    );
    let note = host["tuning"]["notes"][0].as_str().unwrap();
    assert!(
        note.starts_with("no ")
            && note.ends_with("/dev/cpu_dma_latency: idle states left as they are"),
        "{note}"
    );
}

/// Starts a tuned run long enough to interrupt, waits until the tree shows
/// it tuned, sends `signals` SIGINTs and checks every file afterwards.
fn interrupted_tuned_run(signals: usize) {
    let root = tree("powersave");
    let before = files(root.path());
    let governor = root
        .path()
        .join("sys/devices/system/cpu/cpufreq/policy15/scaling_governor");
    let mut child = on(root.path())
        .args(["--no-save", "-q", "--no-telemetry", "--tune"])
        .args(CPU_OPS)
        .args(["--duration", "1s", "--repeats", "30"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while std::fs::read_to_string(&governor).unwrap() != "performance" {
        assert!(start.elapsed() < Duration::from_secs(20), "never tuned");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Let it reach the benchmark.
    std::thread::sleep(Duration::from_millis(300));
    for _ in 0..signals {
        interrupt(child.id());
        std::thread::sleep(Duration::from_millis(50));
    }
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130));
    assert_eq!(
        files(root.path()),
        before,
        "a tuned file kept its new value"
    );
}

#[test]
fn tune_puts_back_every_file_after_one_ctrl_c() {
    if skipped_without_root("tune_puts_back_every_file_after_one_ctrl_c", "--tune") {
        return;
    }
    interrupted_tuned_run(1);
}

#[test]
fn tune_puts_back_every_file_after_a_second_ctrl_c_that_exits_at_once() {
    if skipped_without_root("tune_puts_back_every_file_after_a_second_ctrl_c", "--tune") {
        return;
    }
    interrupted_tuned_run(2);
}
