//! `--tune`: for a run's duration, every cpufreq policy's EPP and governor
//! set to `performance` and `/dev/cpu_dma_latency` held open at 0 (no CPU
//! enters an idle state slower to leave than that), with exactly what was
//! changed recorded; [`Tuned::restore`] (also on drop) writes every old
//! value back, and [`Restore`] does the same from a signal handler, for
//! the second Ctrl-C that exits at once.
//!
//! Writes go under the sysfs root, so a test on a recorded tree sees every
//! file it changed. EPP is set before the governor and put back after it:
//! intel_pstate refuses an EPP write under the performance governor.

use std::ffi::CString;
use std::fs::File;
use std::io::Write as _;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use nodebench_core::inventory::host::{TuneChange, Tuning};

use crate::inventory::sysfs::{numbered_entries, read_text};
use crate::sysroot::Roots;

use super::cpufreq::CPUFREQ;

/// The value `--tune` sets governors and EPP to.
pub const PERFORMANCE: &str = "performance";

/// Whether this process runs as root (effective uid 0).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no arguments and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// Where `/dev/cpu_dma_latency` is for `roots`: the live one, or a
/// recorded tree's `dev/cpu_dma_latency` beside its `sys`.
pub fn dma_latency_path(roots: &Roots) -> PathBuf {
    if roots.is_live() {
        PathBuf::from("/dev/cpu_dma_latency")
    } else {
        roots.sys("").with_file_name("dev").join("cpu_dma_latency")
    }
}

/// One file changed: where, its old text exactly as read, the record.
struct Written {
    path: PathBuf,
    old: String,
    change: TuneChange,
}

/// The tuned state of a run; puts everything back on [`Tuned::restore`]
/// or drop.
pub struct Tuned {
    written: Vec<Written>,
    dma: Option<File>,
    record: Tuning,
    restored: bool,
}

/// What to write back, prepared so a signal handler can do it with
/// `open`/`write`/`close` alone (no allocation).
pub struct Restore {
    files: Vec<(CString, Vec<u8>)>,
}

impl Restore {
    /// Writes every old value back, newest change first. Only
    /// async-signal-safe calls: meant for a signal handler.
    pub fn run(&self) {
        for (path, old) in self.files.iter().rev() {
            // SAFETY: `path` is a NUL-terminated C string that outlives the
            // call; open, write and close are async-signal-safe and touch no
            // Rust state; `old` is a valid buffer of its length.
            unsafe {
                let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_TRUNC);
                if fd >= 0 {
                    libc::write(fd, old.as_ptr().cast(), old.len());
                    libc::close(fd);
                }
            }
        }
    }
}

fn write(path: &Path, value: &str) -> Result<(), String> {
    std::fs::write(path, value)
        .map_err(|e| format!("cannot write {value} to {}: {e}", path.display()))
}

impl Tuned {
    /// Sets every policy's EPP (where it has one) and governor to
    /// `performance` and holds `dma_latency` at 0. A write that fails puts
    /// back what was already written and is the error; a missing
    /// `dma_latency` is noted and skipped.
    pub fn apply(roots: &Roots, dma_latency: &Path) -> Result<Tuned, crate::Error> {
        let mut t = Tuned {
            written: Vec::new(),
            dma: None,
            record: Tuning::default(),
            restored: false,
        };
        for (n, dir) in numbered_entries(&roots.sys(CPUFREQ), "policy") {
            for file in ["energy_performance_preference", "scaling_governor"] {
                let path = dir.join(file);
                let Some(old) = read_text(&path) else {
                    continue;
                };
                if old.trim() == PERFORMANCE {
                    continue;
                }
                if file == "scaling_governor" {
                    let offered = read_text(dir.join("scaling_available_governors"));
                    if offered.is_some_and(|o| !o.split_whitespace().any(|g| g == PERFORMANCE)) {
                        t.record.notes.push(format!(
                            "policy{n}: no performance governor offered: left at {}",
                            old.trim()
                        ));
                        continue;
                    }
                }
                write(&path, PERFORMANCE).map_err(crate::Error::Io)?;
                t.written.push(Written {
                    path,
                    change: TuneChange {
                        file: format!("{CPUFREQ}/policy{n}/{file}"),
                        from: old.trim().to_string(),
                        to: PERFORMANCE.into(),
                    },
                    old,
                });
            }
        }
        if dma_latency.exists() {
            let held = File::options()
                .write(true)
                .open(dma_latency)
                .and_then(|mut f| f.write_all(&0i32.to_ne_bytes()).map(|()| f));
            match held {
                Ok(f) => {
                    t.dma = Some(f);
                    t.record.notes.push(format!(
                        "{} held at 0 µs for the run (released at its end)",
                        dma_latency.display()
                    ));
                }
                Err(e) => t.record.notes.push(format!(
                    "cannot hold {} at 0: {e}: skipped",
                    dma_latency.display()
                )),
            }
        } else {
            t.record.notes.push(format!(
                "no {}: idle states left as they are",
                dma_latency.display()
            ));
        }
        t.record.changes = t.written.iter().map(|w| w.change.clone()).collect();
        Ok(t)
    }

    /// What was changed, for the run's record.
    pub fn record(&self) -> &Tuning {
        &self.record
    }

    /// The restore a signal handler can run.
    pub fn signal_restore(&self) -> Restore {
        Restore {
            files: self
                .written
                .iter()
                .filter_map(|w| {
                    let path = CString::new(w.path.as_os_str().as_bytes()).ok()?;
                    Some((path, w.old.clone().into_bytes()))
                })
                .collect(),
        }
    }

    /// Puts every old value back (newest change first) and releases
    /// `/dev/cpu_dma_latency`; the writes that failed, as lines. Once:
    /// later calls do nothing.
    pub fn restore(&mut self) -> Vec<String> {
        if self.restored {
            return Vec::new();
        }
        self.restored = true;
        self.dma = None;
        self.written
            .iter()
            .rev()
            .filter_map(|w| write(&w.path, &w.old).err())
            .collect()
    }
}

impl Drop for Tuned {
    fn drop(&mut self) {
        for e in self.restore() {
            eprintln!("warning: --tune: {e}");
        }
    }
}
