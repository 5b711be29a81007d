//! Where the machine's files are read from: `/sys` and `/proc`, or the
//! recorded trees named by `NODEBENCH_SYSFS_ROOT` (stands for `/sys`) and
//! `NODEBENCH_PROCFS_ROOT` (stands for `/proc`), so the inventory, the
//! topology and the telemetry can be tested on machines this one is not (a
//! 2-socket, 8-node, 256-CPU server recorded or built as files). What CPUID
//! says is not overridden.

use std::path::{Path, PathBuf};

/// The variable whose value stands for `/sys`.
pub const SYSFS_ROOT_ENV: &str = "NODEBENCH_SYSFS_ROOT";
/// The variable whose value stands for `/proc`.
pub const PROCFS_ROOT_ENV: &str = "NODEBENCH_PROCFS_ROOT";

/// The two roots files are read under.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Roots {
    sys: PathBuf,
    proc: PathBuf,
}

impl Default for Roots {
    /// The live machine: `/sys` and `/proc`.
    fn default() -> Roots {
        Roots {
            sys: PathBuf::from("/sys"),
            proc: PathBuf::from("/proc"),
        }
    }
}

impl Roots {
    /// The roots the environment names; an unset or empty variable is the
    /// real directory.
    pub fn from_env() -> Roots {
        let var = |name: &str, real: &str| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(real))
        };
        Roots {
            sys: var(SYSFS_ROOT_ENV, "/sys"),
            proc: var(PROCFS_ROOT_ENV, "/proc"),
        }
    }

    /// A recorded tree holding `sys/` and `proc/` under one directory.
    pub fn under(root: &Path) -> Roots {
        Roots {
            sys: root.join("sys"),
            proc: root.join("proc"),
        }
    }

    /// `rel` under the sysfs root: `sys("devices/system/node")`.
    pub fn sys(&self, rel: &str) -> PathBuf {
        self.sys.join(rel.trim_start_matches('/'))
    }

    /// `rel` under the procfs root: `proc("cpuinfo")`.
    pub fn proc(&self, rel: &str) -> PathBuf {
        self.proc.join(rel.trim_start_matches('/'))
    }

    /// The same sysfs root with `proc` standing for `/proc`.
    pub fn with_proc(&self, proc: PathBuf) -> Roots {
        Roots {
            sys: self.sys.clone(),
            proc,
        }
    }

    /// Whether these are the live machine's `/sys` and `/proc`.
    pub fn is_live(&self) -> bool {
        *self == Roots::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn joins_relative_paths_under_each_root() {
        let r = Roots::under(Path::new("/tmp/tree"));
        assert_eq!(
            r.sys("/devices/system/cpu/online"),
            PathBuf::from("/tmp/tree/sys/devices/system/cpu/online")
        );
        assert_eq!(r.proc("cpuinfo"), PathBuf::from("/tmp/tree/proc/cpuinfo"));
        assert!(!r.is_live());
        assert!(Roots::default().is_live());
        assert_eq!(Roots::default().proc("stat"), PathBuf::from("/proc/stat"));
    }
}
