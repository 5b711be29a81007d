//! A recorded `/sys` and `/proc` tree (the 2-vCPU guest) with one RAPL
//! package zone whose `energy_uj` a thread advances at a rate the test sets
//! (and changes), wrapping at the zone's range, logging the unwrapped
//! joules it wrote and when, for the stored figures to be checked against.
//! Included by the tests that use it (`#[path = "common/rapl.rs"]`).

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use nodebench_machine::inventory::fixtures::trees;
use nodebench_machine::sysroot::{PROCFS_ROOT_ENV, SYSFS_ROOT_ENV};
use serde_json::Value;

/// The zone's name in powercap.
pub const ZONE: &str = "intel-rapl:0";

/// Seconds since the epoch.
pub fn now_s() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

/// A result's time (an RFC 3339 text) as seconds since the epoch.
pub fn at(v: &Value) -> f64 {
    let t = chrono::DateTime::parse_from_rfc3339(v.as_str().unwrap()).unwrap();
    t.timestamp_micros() as f64 / 1e6
}

/// The tree and its writer thread.
pub struct Rapl {
    root: tempfile::TempDir,
    watts: Arc<AtomicU64>,
    stop: Arc<AtomicBool>,
    log: Arc<Mutex<Vec<(f64, f64)>>>,
    writer: Option<JoinHandle<()>>,
}

impl Rapl {
    /// The tree, its zone wrapping at `range_uj`, advanced at `watts` from
    /// now on (returns once the first value is written).
    pub fn start(range_uj: u64, watts: f64) -> Rapl {
        let root = tempfile::tempdir().unwrap();
        let zone = zone_tree(root.path(), range_uj);
        let watts = Arc::new(AtomicU64::new(watts.to_bits()));
        let stop = Arc::new(AtomicBool::new(false));
        let log = Arc::new(Mutex::new(Vec::new()));
        let writer = {
            let (watts, stop, log) = (Arc::clone(&watts), Arc::clone(&stop), Arc::clone(&log));
            std::thread::spawn(move || advance(zone, range_uj, &watts, &stop, &log))
        };
        while log.lock().unwrap().is_empty() {
            std::thread::sleep(Duration::from_millis(1));
        }
        Rapl {
            root,
            watts,
            stop,
            log,
            writer: Some(writer),
        }
    }

    /// From now on the counter advances at `watts`.
    pub fn set_watts(&self, watts: f64) {
        self.watts.store(watts.to_bits(), Ordering::SeqCst);
    }

    /// `cmd` reading this tree for /sys and /proc.
    pub fn env<'a>(&self, cmd: &'a mut Command) -> &'a mut Command {
        cmd.env(SYSFS_ROOT_ENV, self.root.path().join("sys"))
            .env(PROCFS_ROOT_ENV, self.root.path().join("proc"))
    }

    /// The counter's unwrapped joules at `t` (seconds since the epoch),
    /// between the two writes around it.
    pub fn joules_at(&self, t: f64) -> f64 {
        let log = self.log.lock().unwrap();
        let i = log.partition_point(|(s, _)| *s <= t);
        assert!(i > 0 && i < log.len(), "{t} outside the log");
        let ((t0, e0), (t1, e1)) = (log[i - 1], log[i]);
        e0 + (e1 - e0) * (t - t0) / (t1 - t0)
    }

    /// Stops the writer (after a last write or two).
    pub fn stop(&mut self) {
        std::thread::sleep(Duration::from_millis(20));
        self.stop.store(true, Ordering::SeqCst);
        if let Some(w) = self.writer.take() {
            w.join().unwrap();
        }
    }
}

impl Drop for Rapl {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(w) = self.writer.take() {
            let _ = w.join();
        }
    }
}

/// The guest's tree under `root` with a package zone wrapping at `range_uj`;
/// the path of its `energy_uj`.
fn zone_tree(root: &Path, range_uj: u64) -> PathBuf {
    trees::write("kvm2", root).unwrap();
    let dir = root.join("sys/class/powercap").join(ZONE);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("name"), "package-0\n").unwrap();
    std::fs::write(dir.join("max_energy_range_uj"), format!("{range_uj}\n")).unwrap();
    dir.join("energy_uj")
}

/// Writes `energy_uj` every 2 ms at the current watts, atomically (a new
/// file renamed over it), logging (time, unwrapped J).
fn advance(
    zone: PathBuf,
    range_uj: u64,
    watts: &AtomicU64,
    stop: &AtomicBool,
    log: &Mutex<Vec<(f64, f64)>>,
) {
    let mut uj = (range_uj / 2) as f64;
    let mut last = Instant::now();
    let tmp = zone.with_file_name("energy_uj.new");
    while !stop.load(Ordering::SeqCst) {
        let now = Instant::now();
        uj += now.duration_since(last).as_secs_f64()
            * f64::from_bits(watts.load(Ordering::SeqCst))
            * 1e6;
        last = now;
        let wall = now_s();
        std::fs::write(&tmp, format!("{}\n", (uj as u64) % range_uj)).unwrap();
        std::fs::rename(&tmp, &zone).unwrap();
        log.lock().unwrap().push((wall, (uj as u64) as f64 / 1e6));
        std::thread::sleep(Duration::from_millis(2));
    }
}
