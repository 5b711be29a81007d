//! `fleet report` names the host under a CPU quota (a cgroup on every
//! process of its namespace) as the outlier. A module of its own, apart from
//! `fleet`'s, because it has the hosts to itself: libtest starts tests in
//! name order, and a test of `fleet` started beside it would wait for it
//! (the other test thread idle); the tests after it in name order use no
//! hosts.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::common::{TempStore, stderr, stdout};
use crate::fleet::{cells, hosts_file_alone, runs_list};
use serde_json::Value;

/// A CPU quota on every process of test host `host`'s namespace (its sshd,
/// and so every process started over ssh afterwards) for as long as it
/// lives: a cgroup of its own with the quota, v2's `cpu.max` or v1's
/// `cpu.cfs_quota_us`; the processes go back where they were, and the
/// cgroup is removed, when dropped.
struct CpuQuota {
    dir: PathBuf,
    back_to: PathBuf,
}

impl CpuQuota {
    /// The cgroup's `cpu.stat` (periods, throttled periods and time) on
    /// one line: whether the quota bit, for a failure's message.
    fn stat(&self) -> String {
        std::fs::read_to_string(self.dir.join("cpu.stat"))
            .unwrap_or_else(|e| format!("no cpu.stat: {e}"))
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// `percent` of one CPU for `host`, or None (said) where this machine
    /// has no cpu controller to write.
    fn on(test: &str, host: &str, percent: u32) -> Option<CpuQuota> {
        let pids: Vec<String> = Command::new("ip")
            .args(["netns", "pids", &format!("nbf-{host}")])
            .output()
            .map(|o| stdout(&o).split_whitespace().map(String::from).collect())
            .unwrap_or_default();
        assert!(!pids.is_empty(), "no process in nbf-{host}");
        let own = std::fs::read_to_string(format!("/proc/{}/cgroup", pids[0])).unwrap();
        let name = format!("nodebench-test-{host}-{}", std::process::id());
        let quota = u64::from(percent) * 1000;
        // cgroup v2, unified at /sys/fs/cgroup with the cpu controller.
        let v2 = Path::new("/sys/fs/cgroup");
        let v1 = Path::new("/sys/fs/cgroup/cpu");
        let (mount, back_to) = if std::fs::read_to_string(v2.join("cgroup.controllers"))
            .is_ok_and(|c| c.split_whitespace().any(|c| c == "cpu"))
        {
            let _ = std::fs::write(v2.join("cgroup.subtree_control"), "+cpu");
            let path = own.lines().find_map(|l| l.strip_prefix("0::")).unwrap();
            (v2, v2.join(path.trim_start_matches('/')))
        } else if v1.join("cpu.cfs_quota_us").exists() {
            let path = own
                .lines()
                .find_map(|l| {
                    let mut f = l.splitn(3, ':');
                    let (_, ctl, path) = (f.next()?, f.next()?, f.next()?);
                    ctl.split(',').any(|c| c == "cpu").then_some(path)
                })
                .unwrap();
            (v1, v1.join(path.trim_start_matches('/')))
        } else {
            nodebench_core::test_require::missing(
                test,
                nodebench_core::test_require::need::ROOT,
                "no cgroup cpu controller to write (v2 cpu.max or v1 cpu.cfs_quota_us)",
                "run the tests as root on a machine with cgroup's cpu controller",
            );
            return None;
        };
        let dir = mount.join(&name);
        std::fs::create_dir(&dir).unwrap();
        let q = CpuQuota { dir, back_to };
        if mount == v2 {
            std::fs::write(q.dir.join("cpu.max"), format!("{quota} 100000")).unwrap();
        } else {
            std::fs::write(q.dir.join("cpu.cfs_period_us"), "100000").unwrap();
            std::fs::write(q.dir.join("cpu.cfs_quota_us"), quota.to_string()).unwrap();
        }
        for pid in &pids {
            std::fs::write(q.dir.join("cgroup.procs"), pid).unwrap();
        }
        Some(q)
    }
}

impl Drop for CpuQuota {
    fn drop(&mut self) {
        // Processes exit while they are moved; a few rounds, bounded.
        for _ in 0..50 {
            let procs = std::fs::read_to_string(self.dir.join("cgroup.procs")).unwrap_or_default();
            for pid in procs.split_whitespace() {
                let _ = std::fs::write(self.back_to.join("cgroup.procs"), pid);
            }
            if std::fs::remove_dir(&self.dir).is_ok() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        eprintln!("could not remove {}", self.dir.display());
    }
}

#[test]
fn a_host_under_a_cpu_quota_is_the_only_outlier_fleet_report_names() {
    let tmp = tempfile::tempdir().unwrap();
    let Some(hosts) = hosts_file_alone("quota", &["h1", "h2", "h3"], tmp.path()) else {
        return;
    };
    let hosts = hosts.file.display().to_string();
    let store = TempStore::new();
    // Copy the binary to every host first, unmeasured.
    let cpu = [
        "cpu",
        "ops",
        "--threads",
        "1",
        "--duration",
        "300ms",
        "--repeats",
        "3",
        "--warmup",
        "0",
        "--kernels",
        "int.scalar",
    ];
    let o = store.run(&["--no-save", "fleet", "check", &hosts]);
    assert!(o.status.success(), "{}", stderr(&o));
    // A tenth of a CPU: below what the others get even with many other
    // tests busy on this machine's CPUs (the median is the slower of them,
    // so neither can be an outlier while h2 is the slowest).
    let Some(quota) = CpuQuota::on("quota", "h2", 10) else {
        return;
    };
    let started = Instant::now();
    let mut args = vec!["fleet", "run", &hosts, "--parallel", "1"];
    args.extend(cpu);
    let o = store.run(&args);
    // Once, in a CI-like run, h2 measured at full speed: say whether the
    // quota throttled anything.
    let throttled = quota.stat();
    drop(quota);
    assert!(o.status.success(), "{}\n{}", stdout(&o), stderr(&o));
    let runs = runs_list(&store);
    assert_eq!(runs.len(), 3, "{runs:?}");
    let fleet = runs[0]["tags"]["fleet"].as_str().unwrap().to_string();

    let o = store.run(&["--json", "fleet", "report", &fleet]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let outliers: Vec<&str> = report["hosts"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|h| !h["outliers"].as_array().unwrap().is_empty())
        .map(|h| h["host"].as_str().unwrap())
        .collect();
    assert_eq!(outliers, ["h2"], "h2's cgroup: {throttled}; {report}");
    // Its rate is a tenth of a CPU's, give or take: far below the median.
    let worst = &report["hosts"][0];
    assert_eq!(worst["host"], "h2");
    let worse = worst["outliers"][0]["worse_percent"].as_f64().unwrap();
    assert!(worse > 40.0, "{worst}");
    assert!(
        stderr(&o).contains("1 outlier(s)") || stderr(&o).contains("flagged"),
        "{}",
        stderr(&o)
    );
    // The text names it too.
    let o = store.run(&["fleet", "report", &fleet]);
    assert_eq!(o.status.code(), Some(1));
    let row = stdout(&o)
        .lines()
        .find(|l| cells(l).starts_with("h2"))
        .unwrap()
        .to_string();
    assert!(row.contains("OUTLIER on"), "{row}");
    assert!(
        started.elapsed() < Duration::from_secs(90),
        "{:?}",
        started.elapsed()
    );
}
