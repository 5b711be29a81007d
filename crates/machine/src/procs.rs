//! Every process's CPU time, from `<procfs root>/[pid]/stat`: a
//! [`Snapshot`] of each pid's name and `utime + stime` (the whole thread
//! group's, in clock ticks turned into seconds with `sysconf(_SC_CLK_TCK)`),
//! and the CPU seconds each pid took between two snapshots
//! ([`Snapshot::cpu_since`]): who else ran during a measurement, and how
//! much.
//!
//! A pid new since the earlier snapshot counts from 0; a pid whose start
//! time changed (the number was reused) is a new process; a pid gone by the
//! later snapshot is dropped (its last ticks are lost: the kernel keeps no
//! record of an exited process that was not our child).

use std::collections::BTreeMap;
use std::time::Instant;

use crate::sysroot::Roots;

/// One process as its `stat` file tells it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProcStat {
    pub pid: u32,
    /// The command name (`comm`, up to 15 bytes; may hold spaces and
    /// parentheses).
    pub comm: String,
    /// Its parent's pid (0 for the kernel's own).
    pub ppid: u32,
    /// `utime + stime`, clock ticks.
    pub ticks: u64,
    /// When it started, clock ticks after boot (tells a reused pid).
    pub start_ticks: u64,
    /// The CPU it last ran on.
    pub last_cpu: Option<u32>,
}

/// Parses one `/proc/[pid]/stat` line. The name sits between the first
/// `(` and the last `)`, so a name holding `) (` still parses; `None` for
/// a line that is not a stat line.
pub fn parse_stat(text: &str) -> Option<ProcStat> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    if close < open {
        return None;
    }
    let pid = text[..open].trim().parse().ok()?;
    let comm = text[open + 1..close].to_string();
    // Fields after the name, numbered from 3 (state) as proc(5) numbers
    // them: utime is 14, stime 15, starttime 22, processor 39.
    let rest: Vec<&str> = text[close + 1..].split_whitespace().collect();
    let field = |n: usize| rest.get(n - 3).copied();
    let ppid = field(4)?.parse().ok()?;
    let utime: u64 = field(14)?.parse().ok()?;
    let stime: u64 = field(15)?.parse().ok()?;
    let start_ticks = field(22)?.parse().ok()?;
    let last_cpu = field(39).and_then(|s| s.parse().ok());
    Some(ProcStat {
        pid,
        comm,
        ppid,
        ticks: utime + stime,
        start_ticks,
        last_cpu,
    })
}

/// Clock ticks per second (`sysconf(_SC_CLK_TCK)`; 100 where it fails,
/// the value every Linux port uses).
pub fn ticks_per_second() -> u64 {
    // SAFETY: sysconf has no pointer arguments.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 { t as u64 } else { 100 }
}

/// This process's pid, to leave out of [`Usage`] with [`Usage::without`].
pub fn own_pid() -> u32 {
    std::process::id()
}

/// Every process's CPU time at one moment.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// When it was read.
    pub taken: Instant,
    /// Clock ticks per second the tick counts are in.
    pub hz: u64,
    procs: BTreeMap<u32, ProcStat>,
}

impl Snapshot {
    /// Reads `[pid]/stat` of every pid under the procfs root. A process
    /// that exits between the listing and the read is left out; an error
    /// only when the root itself cannot be listed.
    pub fn take(roots: &Roots) -> Result<Snapshot, crate::Error> {
        let dir = roots.proc("");
        let entries = std::fs::read_dir(&dir)
            .map_err(|e| crate::Error::Io(format!("{}: {e}", dir.display())))?;
        let mut procs = BTreeMap::new();
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(pid) = name.to_str().and_then(|n| n.parse::<u32>().ok()) else {
                continue;
            };
            let Ok(text) = std::fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            if let Some(stat) = parse_stat(&text) {
                procs.insert(pid, stat);
            }
        }
        Ok(Snapshot::from_stats(procs.into_values()))
    }

    /// A snapshot of the given processes, taken now.
    pub fn from_stats(stats: impl IntoIterator<Item = ProcStat>) -> Snapshot {
        Snapshot {
            taken: Instant::now(),
            hz: ticks_per_second(),
            procs: stats.into_iter().map(|s| (s.pid, s)).collect(),
        }
    }

    /// How many processes it holds.
    pub fn len(&self) -> usize {
        self.procs.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.procs.is_empty()
    }

    /// One pid's reading.
    pub fn get(&self, pid: u32) -> Option<&ProcStat> {
        self.procs.get(&pid)
    }

    /// Every reading, by pid.
    pub fn iter(&self) -> impl Iterator<Item = &ProcStat> {
        self.procs.values()
    }

    /// The CPU seconds each process still present took since `earlier`
    /// (a pid new since then, or reused, counts from 0), over the wall
    /// time between the two.
    pub fn cpu_since(&self, earlier: &Snapshot) -> Usage {
        let hz = self.hz.max(1) as f64;
        let procs = self
            .procs
            .values()
            .filter_map(|now| {
                let before = earlier
                    .procs
                    .get(&now.pid)
                    .filter(|b| b.start_ticks == now.start_ticks)
                    .map_or(0, |b| b.ticks);
                let ticks = now.ticks.saturating_sub(before);
                (ticks > 0).then(|| ProcCpu {
                    pid: now.pid,
                    comm: now.comm.clone(),
                    cpu_s: ticks as f64 / hz,
                    last_cpu: now.last_cpu,
                })
            })
            .collect();
        Usage {
            wall_s: self
                .taken
                .saturating_duration_since(earlier.taken)
                .as_secs_f64(),
            procs,
        }
    }
}

/// One process's CPU time between two snapshots.
#[derive(Debug, Clone, PartialEq)]
pub struct ProcCpu {
    pub pid: u32,
    pub comm: String,
    /// CPU seconds (user + system, all its threads).
    pub cpu_s: f64,
    /// The CPU it last ran on, at the later snapshot.
    pub last_cpu: Option<u32>,
}

impl ProcCpu {
    /// Its CPU time as a share of `wall_s` seconds of one CPU, in percent
    /// (over 100 for a process running on several CPUs); `None` over no
    /// time.
    pub fn percent(&self, wall_s: f64) -> Option<f64> {
        (wall_s > 0.0).then(|| 100.0 * self.cpu_s / wall_s)
    }
}

/// The CPU time processes took between two snapshots: only those that
/// took some, by pid.
#[derive(Debug, Clone, PartialEq)]
pub struct Usage {
    /// Wall seconds between the snapshots.
    pub wall_s: f64,
    pub procs: Vec<ProcCpu>,
}

impl Usage {
    /// The same without `pid` (this process: [`own_pid`]).
    pub fn without(mut self, pid: u32) -> Usage {
        self.procs.retain(|p| p.pid != pid);
        self
    }

    /// The CPU seconds of all of them together.
    pub fn total_cpu_s(&self) -> f64 {
        self.procs.iter().map(|p| p.cpu_s).sum()
    }

    /// The `n` that took the most CPU time, most first (ties by pid).
    pub fn top(&self, n: usize) -> Vec<ProcCpu> {
        let mut v = self.procs.clone();
        v.sort_by(|a, b| b.cpu_s.total_cmp(&a.cpu_s).then(a.pid.cmp(&b.pid)));
        v.truncate(n);
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;
    use std::path::Path;

    /// Two recordings of this 2-vCPU guest's `/proc/[pid]/stat`, about a
    /// second apart, while a copy of `yes` named `a) b (c` ran (pid 21497)
    /// beside a build.
    const T0: &str = include_str!("procs/fixtures/kvm2-hog-t0.json");
    const T1: &str = include_str!("procs/fixtures/kvm2-hog-t1.json");

    fn tree(json: &str, dir: &Path) -> Roots {
        let files: BTreeMap<String, String> = serde_json::from_str(json).unwrap();
        for (path, text) in files {
            let p = dir.join(path.trim_start_matches('/'));
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        Roots::under(dir)
    }

    fn snapshot(json: &str) -> Snapshot {
        let dir = tempfile::tempdir().unwrap();
        let s = Snapshot::take(&tree(json, dir.path())).unwrap();
        assert_eq!(s.hz, ticks_per_second());
        s
    }

    #[test]
    fn parses_a_name_with_spaces_and_parentheses() {
        let s = parse_stat("21497 (a) b (c) R 1 21492 15214 0 -1 4194304 141 0 0 0 9 29 0 0 20 0 1 0 681530 2990080 406 18446744073709551615 93848953741312 93848953758281 140727085149904 0 0 0 0 6 0 0 0 0 17 1 0 0 0 0 0\n").unwrap();
        assert_eq!(s.pid, 21497);
        assert_eq!(s.comm, "a) b (c");
        assert_eq!(s.ppid, 1);
        assert_eq!(s.ticks, 38);
        assert_eq!(s.start_ticks, 681530);
        assert_eq!(s.last_cpu, Some(1));
        assert_eq!(parse_stat("12 (x) S 1 2"), None);
        assert_eq!(parse_stat("garbage"), None);
    }

    #[test]
    fn reads_every_pid_of_a_recorded_tree() {
        let s = snapshot(T0);
        assert_eq!(s.len(), 102);
        let hog = s.get(21497).unwrap();
        assert_eq!((hog.comm.as_str(), hog.ticks), ("a) b (c", 38));
        let init = s.get(1).unwrap();
        assert_eq!(
            (init.comm.as_str(), init.ticks),
            ("process_api", 232 + 1040)
        );
    }

    #[test]
    fn the_diff_counts_new_pids_from_zero_and_drops_exited_ones() {
        let (t0, t1) = (snapshot(T0), snapshot(T1));
        let hz = ticks_per_second() as f64;
        let usage = t1.cpu_since(&t0);
        // 21768 (python3, the recorder of the second tree) is new: all of
        // its 4 ticks count; 21562 is gone from the second tree.
        let top5 = usage.top(5);
        let top: Vec<(u32, &str, f64)> = top5
            .iter()
            .map(|p| (p.pid, p.comm.as_str(), (p.cpu_s * hz).round()))
            .collect();
        assert_eq!(
            top,
            vec![
                (21497, "a) b (c", 53.0),
                (20212, "rustc", 29.0),
                (21768, "python3", 4.0),
                (18841, "go", 3.0),
                (15218, "bash", 2.0),
            ]
        );
        assert!(usage.procs.iter().all(|p| p.pid != 21562));
        assert_eq!((usage.total_cpu_s() * hz).round(), 94.0);
        let without = usage.clone().without(21497);
        assert_eq!((without.total_cpu_s() * hz).round(), 41.0);
        assert_eq!(without.top(1)[0].pid, 20212);
        assert!(usage.wall_s >= 0.0);
    }

    #[test]
    fn a_reused_pid_is_a_new_process() {
        let stat = |ticks, start| ProcStat {
            pid: 7,
            comm: "x".into(),
            ppid: 1,
            ticks,
            start_ticks: start,
            last_cpu: None,
        };
        let before = Snapshot::from_stats([stat(500, 10)]);
        let same = Snapshot::from_stats([stat(520, 10)]);
        let reused = Snapshot::from_stats([stat(30, 99)]);
        let hz = before.hz as f64;
        assert_eq!(same.cpu_since(&before).procs[0].cpu_s, 20.0 / hz);
        assert_eq!(reused.cpu_since(&before).procs[0].cpu_s, 30.0 / hz);
        // Nothing taken, nothing listed.
        assert!(before.cpu_since(&before).procs.is_empty());
        let p = &same.cpu_since(&before).procs[0];
        assert_eq!(p.percent(0.0), None);
        assert_eq!(p.percent(20.0 / hz), Some(100.0));
    }

    #[test]
    fn a_missing_root_is_an_error_naming_it() {
        let err = Snapshot::take(&Roots::under(Path::new("/nonexistent-nb"))).unwrap_err();
        assert!(err.to_string().starts_with("/nonexistent-nb/proc"), "{err}");
    }

    #[test]
    fn reads_the_live_machine_and_finds_itself() {
        let s = Snapshot::take(&Roots::default()).unwrap();
        assert!(s.get(own_pid()).is_some());
    }
}
