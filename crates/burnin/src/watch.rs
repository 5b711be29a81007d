//! Reads the machine's error sources during a burn-in: EDAC memory
//! controller counts, thermal-throttle counts, machine-check exceptions in
//! /proc/interrupts, and /dev/kmsg read without blocking from where it was
//! when the burn-in started. Each poll returns what is new since the last.

use std::fs::File;
use std::io::{ErrorKind, Read, Seek, SeekFrom};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use crate::events::{self, EventKind};

/// Most kernel log records read in one poll (the log is read from where
/// it was; a flood is counted on the next poll).
const MAX_RECORDS_PER_POLL: usize = 10_000;

/// Something new on one of the machine's error sources.
#[derive(Debug, Clone, PartialEq)]
pub struct MachineEvent {
    /// What kind.
    pub kind: EventKind,
    /// How many new (counter increase, or 1 per log line).
    pub count: u64,
    /// Where it was seen: the counter file and its value, or the log line.
    pub detail: String,
}

/// A counter file and its last value.
#[derive(Debug)]
struct Counter {
    path: PathBuf,
    kind: EventKind,
    last: u64,
}

/// Where the sources are (the real ones, or a test's copies).
#[derive(Debug, Clone)]
pub struct Sources {
    /// `/sys`.
    pub sys: PathBuf,
    /// `/proc`.
    pub proc: PathBuf,
    /// `/dev/kmsg`.
    pub kmsg: PathBuf,
}

impl Default for Sources {
    fn default() -> Self {
        Sources {
            sys: "/sys".into(),
            proc: "/proc".into(),
            kmsg: "/dev/kmsg".into(),
        }
    }
}

/// The error sources of one burn-in, read from their values at the start.
#[derive(Debug)]
pub struct MachineWatch {
    counters: Vec<Counter>,
    interrupts: PathBuf,
    mce_last: Option<u64>,
    kmsg: Option<File>,
    kmsg_partial: String,
    unreadable: Vec<String>,
}

/// `dir`'s entries whose names start with `prefix`, sorted.
fn entries(dir: &Path, prefix: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
                .map(|e| e.path())
                .collect()
        })
        .unwrap_or_default();
    out.sort();
    out
}

fn read_counter(path: &Path) -> Option<u64> {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|t| events::parse_counter(&t))
}

impl MachineWatch {
    /// Opens the real sources.
    pub fn open() -> MachineWatch {
        MachineWatch::open_at(&Sources::default())
    }

    /// Opens the sources under `src`, taking their current values as the start.
    pub fn open_at(src: &Sources) -> MachineWatch {
        let mut counters = Vec::new();
        let mut unreadable = Vec::new();
        for mc in entries(&src.sys.join("devices/system/edac/mc"), "mc") {
            for (file, kind) in [
                ("ce_count", EventKind::EdacCorrected),
                ("ue_count", EventKind::EdacUncorrected),
            ] {
                let path = mc.join(file);
                if let Some(last) = read_counter(&path) {
                    counters.push(Counter { path, kind, last });
                }
            }
        }
        if counters.is_empty() {
            unreadable
                .push("EDAC counts (no memory controller in /sys/devices/system/edac/mc)".into());
        }
        let edac = counters.len();
        for cpu in entries(&src.sys.join("devices/system/cpu"), "cpu") {
            for path in entries(&cpu.join("thermal_throttle"), "") {
                let name = path.file_name().unwrap_or_default().to_string_lossy();
                if !name.ends_with("_throttle_count") {
                    continue;
                }
                if let Some(last) = read_counter(&path) {
                    counters.push(Counter {
                        path,
                        kind: EventKind::ThermalThrottle,
                        last,
                    });
                }
            }
        }
        if counters.len() == edac {
            unreadable.push("thermal throttle counts (no cpu*/thermal_throttle in /sys)".into());
        }
        let interrupts = src.proc.join("interrupts");
        let mce_last = std::fs::read_to_string(&interrupts)
            .ok()
            .and_then(|t| events::parse_mce_interrupts(&t));
        if mce_last.is_none() {
            unreadable.push("machine checks (no MCE line in /proc/interrupts)".into());
        }
        let kmsg = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&src.kmsg)
            .and_then(|mut f| f.seek(SeekFrom::End(0)).map(|_| f));
        let kmsg = match kmsg {
            Ok(f) => Some(f),
            Err(e) => {
                unreadable.push(format!(
                    "kernel log not readable ({}: {e})",
                    src.kmsg.display()
                ));
                None
            }
        };
        MachineWatch {
            counters,
            interrupts,
            mce_last,
            kmsg,
            kmsg_partial: String::new(),
            unreadable,
        }
    }

    /// The sources that could not be read, one phrase each.
    pub fn unreadable(&self) -> &[String] {
        &self.unreadable
    }

    /// What is new on every source since the last poll (or the start).
    pub fn poll(&mut self) -> Vec<MachineEvent> {
        let mut out = Vec::new();
        for c in &mut self.counters {
            if let Some(now) = read_counter(&c.path)
                && now > c.last
            {
                out.push(MachineEvent {
                    kind: c.kind,
                    count: now - c.last,
                    detail: format!("{} = {now} (was {})", c.path.display(), c.last),
                });
                c.last = now;
            }
        }
        if let Some(last) = self.mce_last
            && let Some(now) = std::fs::read_to_string(&self.interrupts)
                .ok()
                .and_then(|t| events::parse_mce_interrupts(&t))
            && now > last
        {
            out.push(MachineEvent {
                kind: EventKind::MachineCheck,
                count: now - last,
                detail: format!("MCE in {} = {now} (was {last})", self.interrupts.display()),
            });
            self.mce_last = Some(now);
        }
        self.read_kmsg(&mut out);
        out
    }

    /// Reads the kernel log records written since the last read. /dev/kmsg
    /// returns one record per read; a plain file (tests) returns many.
    fn read_kmsg(&mut self, out: &mut Vec<MachineEvent>) {
        let Some(file) = self.kmsg.as_mut() else {
            return;
        };
        let mut buf = vec![0u8; 8192];
        let mut records = 0;
        while records < MAX_RECORDS_PER_POLL {
            match file.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => {
                    self.kmsg_partial
                        .push_str(&String::from_utf8_lossy(&buf[..n]));
                    while let Some(end) = self.kmsg_partial.find('\n') {
                        let line: String = self.kmsg_partial.drain(..=end).collect();
                        records += 1;
                        if let Some(rec) = events::parse_kmsg(line.trim_end())
                            && let Some(kind) = events::classify_kernel_message(&rec.message)
                        {
                            out.push(MachineEvent {
                                kind,
                                count: 1,
                                detail: rec.message,
                            });
                        }
                    }
                }
                Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                // EPIPE: records were overwritten before we read them; the
                // next read goes on from the oldest one still there.
                Err(e) if e.raw_os_error() == Some(libc::EPIPE) => continue,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => {
                    self.unreadable
                        .push(format!("kernel log stopped being readable ({e})"));
                    self.kmsg = None;
                    return;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn new_counts_and_log_lines_are_reported_once() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let src = Sources {
            sys: root.join("sys"),
            proc: root.join("proc"),
            kmsg: root.join("kmsg"),
        };
        let ce = src.sys.join("devices/system/edac/mc/mc0/ce_count");
        write(&ce, "2\n");
        write(&src.sys.join("devices/system/edac/mc/mc0/ue_count"), "0\n");
        let throttle = src
            .sys
            .join("devices/system/cpu/cpu1/thermal_throttle/core_throttle_count");
        write(&throttle, "0\n");
        write(
            &src.proc.join("interrupts"),
            "MCE: 0 0 Machine check exceptions\n",
        );
        write(&src.kmsg, "6,1,10,-;old line: I/O error before the start\n");

        let mut watch = MachineWatch::open_at(&src);
        assert!(watch.unreadable().is_empty(), "{:?}", watch.unreadable());
        assert_eq!(watch.poll(), vec![], "nothing new at the start");

        write(&ce, "5\n");
        write(&throttle, "1\n");
        write(
            &src.proc.join("interrupts"),
            "MCE: 1 0 Machine check exceptions\n",
        );
        let mut log = std::fs::OpenOptions::new()
            .append(true)
            .open(&src.kmsg)
            .unwrap();
        writeln!(
            log,
            "3,2,20,-;blk_update_request: I/O error, dev sdb, sector 8"
        )
        .unwrap();
        writeln!(log, "6,3,30,-;eth0: link up").unwrap();
        let events = watch.poll();
        let kinds: Vec<(EventKind, u64)> = events.iter().map(|e| (e.kind, e.count)).collect();
        assert_eq!(
            kinds,
            vec![
                (EventKind::EdacCorrected, 3),
                (EventKind::ThermalThrottle, 1),
                (EventKind::MachineCheck, 1),
                (EventKind::KernelIoError, 1),
            ]
        );
        assert!(
            events[0].detail.ends_with("ce_count = 5 (was 2)"),
            "{}",
            events[0].detail
        );
        assert_eq!(watch.poll(), vec![], "each reported once");
    }

    #[test]
    fn missing_sources_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let src = Sources {
            sys: dir.path().join("sys"),
            proc: dir.path().join("proc"),
            kmsg: dir.path().join("kmsg"),
        };
        let mut watch = MachineWatch::open_at(&src);
        let text = watch.unreadable().join("; ");
        assert!(text.contains("EDAC counts"), "{text}");
        assert!(text.contains("thermal throttle"), "{text}");
        assert!(text.contains("machine checks"), "{text}");
        assert!(text.contains("kernel log not readable"), "{text}");
        assert_eq!(watch.poll(), vec![]);
    }
}
