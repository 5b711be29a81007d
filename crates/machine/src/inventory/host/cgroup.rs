//! The cgroup's CPU limits: the quota (v1 `cpu.cfs_quota_us` /
//! `cpu.cfs_period_us`, v2 `cpu.max`; the tightest on the way up to the
//! root) and the cpuset (v1 `cpuset.effective_cpus`, v2
//! `cpuset.cpus.effective`), found through `/proc/self/cgroup` and
//! `/proc/self/mountinfo` (mount points under `/sys` are read under the
//! sysfs root).

use std::path::{Path, PathBuf};

use nodebench_core::inventory::host::CgroupCpu;

use crate::inventory::sysfs::{read_text, read_value};
use crate::sysroot::Roots;

/// One line of `/proc/self/cgroup`: the controllers (empty for v2's
/// `0::`) and the path.
#[derive(Debug, PartialEq)]
struct Membership {
    controllers: Vec<String>,
    path: String,
}

fn parse_cgroup(text: &str) -> Vec<Membership> {
    text.lines()
        .filter_map(|l| {
            let mut parts = l.splitn(3, ':');
            let _id = parts.next()?;
            let controllers = parts.next()?;
            let path = parts.next()?;
            Some(Membership {
                controllers: controllers
                    .split(',')
                    .filter(|c| !c.is_empty())
                    .map(String::from)
                    .collect(),
                path: path.to_string(),
            })
        })
        .collect()
}

/// A cgroup mount from `/proc/self/mountinfo`.
#[derive(Debug, PartialEq)]
struct Mount {
    /// The mounted subtree's root (`/` outside a nested namespace).
    root: String,
    point: String,
    /// cgroup or cgroup2.
    fs_type: String,
    /// Super options: the v1 controllers (`rw,cpu,cpuacct`).
    options: Vec<String>,
}

fn parse_mountinfo(text: &str) -> Vec<Mount> {
    text.lines()
        .filter_map(|l| {
            let (left, right) = l.split_once(" - ")?;
            let f: Vec<&str> = left.split_whitespace().collect();
            let r: Vec<&str> = right.split_whitespace().collect();
            let fs_type = r.first()?.to_string();
            if fs_type != "cgroup" && fs_type != "cgroup2" {
                return None;
            }
            Some(Mount {
                root: f.get(3)?.to_string(),
                point: f.get(4)?.to_string(),
                fs_type,
                options: r
                    .get(2)
                    .map(|o| o.split(',').map(String::from).collect())
                    .unwrap_or_default(),
            })
        })
        .collect()
}

/// Where a mount point is read: under the sysfs root when it is under
/// `/sys`, else only on the live machine.
fn local(roots: &Roots, point: &str) -> Option<PathBuf> {
    match point.strip_prefix("/sys/") {
        Some(rel) => Some(roots.sys(rel)),
        None => roots.is_live().then(|| PathBuf::from(point)),
    }
}

/// The directory of cgroup `path` on `mount`, with the mount's directory.
fn dir_of(roots: &Roots, mount: &Mount, path: &str) -> Option<(PathBuf, PathBuf)> {
    let base = local(roots, &mount.point)?;
    let rel = if mount.root != "/" {
        path.strip_prefix(mount.root.as_str()).unwrap_or(path)
    } else {
        path
    };
    Some((base.join(rel.trim_start_matches('/')), base))
}

/// `dir` and its parents up to `base`, leaf first.
fn up_to(dir: &Path, base: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut d = dir.to_path_buf();
    loop {
        out.push(d.clone());
        if d == base || !d.starts_with(base) || !d.pop() {
            break;
        }
    }
    out
}

/// A quota in CPUs from v2's `cpu.max` ("max 100000", "200000 100000").
fn parse_cpu_max(text: &str) -> Option<f64> {
    let mut w = text.split_whitespace();
    let quota = w.next()?;
    let period: f64 = w.next().and_then(|p| p.parse().ok()).unwrap_or(100_000.0);
    if quota == "max" || period <= 0.0 {
        return None;
    }
    quota.parse::<f64>().ok().map(|q| q / period)
}

/// The tightest quota over `dirs`: (CPUs, the file's words).
fn tightest(quotas: impl Iterator<Item = (f64, String)>) -> Option<(f64, String)> {
    quotas.min_by(|a, b| a.0.total_cmp(&b.0))
}

/// The cgroup's CPU limits; `None` without `/proc/self/cgroup`.
pub fn cgroup(roots: &Roots) -> Option<CgroupCpu> {
    let members = parse_cgroup(&read_text(roots.proc("self/cgroup"))?);
    let mounts = read_text(roots.proc("self/mountinfo"))
        .map(|t| parse_mountinfo(&t))
        .unwrap_or_default();
    let v1 = |controller: &str| {
        let m = members
            .iter()
            .find(|m| m.controllers.iter().any(|c| c == controller))?;
        let mount = mounts
            .iter()
            .find(|x| x.fs_type == "cgroup" && x.options.iter().any(|o| o == controller))?;
        dir_of(roots, mount, &m.path).map(|d| (m.path.clone(), d))
    };
    if let Some((path, (dir, base))) = v1("cpu") {
        let quota = tightest(up_to(&dir, &base).iter().filter_map(|d| {
            let q: i64 = read_value(d.join("cpu.cfs_quota_us"))?.parse().ok()?;
            let p: i64 = read_value(d.join("cpu.cfs_period_us"))?.parse().ok()?;
            (q > 0 && p > 0).then(|| (q as f64 / p as f64, format!("{q}/{p}")))
        }));
        let cpuset = v1("cpuset").and_then(|(_, (dir, _))| {
            read_value(dir.join("cpuset.effective_cpus"))
                .or_else(|| read_value(dir.join("cpuset.cpus")))
        });
        return Some(limits(1, path, quota, cpuset));
    }
    let m = members.iter().find(|m| m.controllers.is_empty())?;
    let mount = mounts.iter().find(|x| x.fs_type == "cgroup2");
    let (dir, base) = match mount {
        Some(mount) => dir_of(roots, mount, &m.path)?,
        None => {
            let base = roots.sys("fs/cgroup");
            (base.join(m.path.trim_start_matches('/')), base)
        }
    };
    let chain = up_to(&dir, &base);
    let quota = tightest(chain.iter().filter_map(|d| {
        let text = read_value(d.join("cpu.max"))?;
        parse_cpu_max(&text).map(|c| (c, text))
    }));
    let cpuset = chain
        .iter()
        .find_map(|d| read_value(d.join("cpuset.cpus.effective")));
    Some(limits(2, m.path.clone(), quota, cpuset))
}

fn limits(
    version: u32,
    path: String,
    quota: Option<(f64, String)>,
    cpuset: Option<String>,
) -> CgroupCpu {
    let cpuset_cpus = cpuset
        .as_deref()
        .and_then(nodebench_core::cpulist::parse)
        .map(|c| c.len() as u32);
    CgroupCpu {
        version,
        path,
        quota_cpus: quota.as_ref().map(|q| q.0),
        quota: quota.map(|q| q.1),
        cpuset,
        cpuset_cpus,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_memberships_and_mounts() {
        let m = parse_cgroup("4:memory:/a/b\n1:cpu,cpuacct:/x\n0::/user.slice\n");
        assert_eq!(m[1].controllers, vec!["cpu", "cpuacct"]);
        assert_eq!(m[2].controllers, Vec::<String>::new());
        assert_eq!(m[2].path, "/user.slice");
        let mounts = parse_mountinfo(
            "30 25 0:26 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid shared:11 - cgroup cgroup rw,cpu,cpuacct\n\
             29 25 0:25 / /sys/fs/cgroup rw shared:4 - cgroup2 cgroup2 rw,nsdelegate\n\
             22 1 8:1 / / rw - ext4 /dev/sda1 rw\n",
        );
        assert_eq!(mounts.len(), 2);
        assert_eq!(mounts[0].point, "/sys/fs/cgroup/cpu,cpuacct");
        assert!(mounts[0].options.contains(&"cpu".to_string()));
        assert_eq!(mounts[1].fs_type, "cgroup2");
    }

    #[test]
    fn parses_cpu_max() {
        assert_eq!(parse_cpu_max("max 100000"), None);
        assert_eq!(parse_cpu_max("200000 100000"), Some(2.0));
        assert_eq!(parse_cpu_max("50000 100000\n"), Some(0.5));
        assert_eq!(parse_cpu_max("150000"), Some(1.5));
    }

    #[test]
    fn walks_up_to_the_mount() {
        let chain = up_to(Path::new("/s/fs/cgroup/a/b"), Path::new("/s/fs/cgroup"));
        assert_eq!(
            chain,
            vec![
                PathBuf::from("/s/fs/cgroup/a/b"),
                PathBuf::from("/s/fs/cgroup/a"),
                PathBuf::from("/s/fs/cgroup"),
            ]
        );
    }
}
