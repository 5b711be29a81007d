//! Telemetry: what the machine did while a benchmark ran. A [`Sampler`]
//! thread reads /proc and /sys once an interval (CPU time split by mode,
//! context switches, interrupts, run queue, memory, swap, major faults, block
//! devices, NICs, CPU frequency and hwmon temperatures where readable), turns
//! consecutive snapshots into rates and keeps a bounded history, from which
//! [`Sampler::window`] cuts the series of one result's time span. Series
//! names and label keys are in [`nodebench_core::names::telemetry`].

mod history;
pub mod proc;
#[cfg(any(test, feature = "fixtures"))]
pub mod synthetic;

use std::path::Path;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

pub use crate::gpu::health::Sample as GpuSample;
use crate::sysroot::Roots;
pub use history::History;
use history::{KeyRef, LabelRef};
use nodebench_core::model::{TimeSeries, Unit};
use nodebench_core::names::telemetry::{label, series};
use proc::{DiskCounters, Memory, NicCounters, Stat, VmStat};

/// Default sampling interval.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(1);
/// Default history kept by a [`Sampler`]: samples older than this are
/// dropped, so memory stays bounded however long the run.
pub const DEFAULT_RETENTION: Duration = Duration::from_secs(3600);

/// Everything read from /proc and /sys at one instant.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// /proc/stat.
    pub stat: Stat,
    /// /proc/meminfo.
    pub memory: Memory,
    /// /proc/vmstat.
    pub vm: VmStat,
    /// /proc/diskstats, whole devices only (those in /sys/block) that have
    /// done any I/O since boot (unused loop, ram and zram devices left out).
    pub disks: Vec<DiskCounters>,
    /// /proc/net/dev.
    pub nics: Vec<NicCounters>,
    /// CPU number and current frequency in Hz, where cpufreq is readable.
    pub frequencies: Vec<(u32, f64)>,
    /// hwmon sensor (`chip/tempN`) and degrees Celsius, where readable.
    pub temperatures: Vec<(String, f64)>,
    /// NVIDIA GPUs' gauges (NVML), on the live machine only.
    pub gpus: Vec<GpuSample>,
}

fn read(path: impl AsRef<Path>) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

impl Snapshot {
    /// Reads the machine now; a file that cannot be read contributes nothing.
    pub fn read() -> Snapshot {
        Snapshot::read_at(&Roots::from_env())
    }

    /// Reads the machine whose `/proc` and `/sys` are under `roots`.
    pub fn read_at(roots: &Roots) -> Snapshot {
        let disks = proc::parse_diskstats(&read(roots.proc("diskstats")))
            .into_iter()
            .filter(|d| d.reads + d.writes > 0 && roots.sys("block").join(&d.device).exists())
            .collect();
        let stat = proc::parse_stat(&read(roots.proc("stat")));
        let frequencies = stat
            .cpus
            .iter()
            .filter_map(|&(cpu, _)| {
                let path = roots.sys(&format!(
                    "devices/system/cpu/cpu{cpu}/cpufreq/scaling_cur_freq"
                ));
                proc::parse_cpufreq_khz(&read(path)).map(|hz| (cpu, hz))
            })
            .collect();
        Snapshot {
            stat,
            memory: proc::parse_meminfo(&read(roots.proc("meminfo"))),
            vm: proc::parse_vmstat(&read(roots.proc("vmstat"))),
            disks,
            nics: proc::parse_net_dev(&read(roots.proc("net/dev"))),
            frequencies,
            temperatures: read_temperatures(roots),
            // NVML reads the live machine: not under recorded roots.
            gpus: if *roots == Roots::default() {
                crate::gpu::health::sample_all()
            } else {
                Vec::new()
            },
        }
    }
}

/// hwmon `temp*_input` files, named `chip/tempN` by the chip's `name` file.
fn read_temperatures(roots: &Roots) -> Vec<(String, f64)> {
    let mut temps = Vec::new();
    let Ok(chips) = std::fs::read_dir(roots.sys("class/hwmon")) else {
        return temps;
    };
    for chip in chips.flatten() {
        let dir = chip.path();
        let name = read(dir.join("name")).trim().to_string();
        let name = if name.is_empty() {
            chip.file_name().to_string_lossy().into_owned()
        } else {
            name
        };
        let Ok(files) = std::fs::read_dir(&dir) else {
            continue;
        };
        for file in files.flatten() {
            let file_name = file.file_name().to_string_lossy().into_owned();
            let Some(sensor) = file_name
                .strip_suffix("_input")
                .filter(|s| s.starts_with("temp"))
            else {
                continue;
            };
            if let Some(c) = proc::parse_hwmon_millidegrees(&read(file.path())) {
                temps.push((format!("{name}/{sensor}"), c));
            }
        }
    }
    temps.sort_by(|a, b| a.0.cmp(&b.0));
    temps
}

/// Identity of one telemetry series: name, unit and labels.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeriesKey {
    /// Series name from [`series`].
    pub name: &'static str,
    /// Unit of its values.
    pub unit: Unit,
    /// Labels (`cpu`, `device`, `nic`, `sensor`), without
    /// [`SOURCE`](nodebench_core::names::telemetry::SOURCE).
    pub labels: Vec<(&'static str, String)>,
}

impl std::hash::Hash for SeriesKey {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        // The unit follows from the name.
        self.name.hash(state);
        self.labels.hash(state);
    }
}

/// One value of one series.
pub type Reading = (SeriesKey, f64);

/// The readings of the interval between two snapshots `seconds` apart: CPU
/// shares, rates of the counters, and the gauges of `cur`. A counter that
/// went backwards (a device or NIC re-created) gives no rate.
pub fn rates(prev: &Snapshot, cur: &Snapshot, seconds: f64) -> Vec<Reading> {
    let mut out = Vec::new();
    if seconds <= 0.0 {
        return out;
    }
    for (i, (cpu, now)) in cur.stat.cpus.iter().enumerate() {
        let Some((total, parts)) = cpu_before(&prev.stat, i, *cpu).map(|b| cpu_shares(now, b))
        else {
            continue;
        };
        if total == 0 {
            continue;
        }
        for (name, part) in CPU_SHARES.iter().zip(parts) {
            let key = KeyRef {
                name,
                unit: Unit::Percent,
                label: Some((label::CPU, LabelRef::Number(*cpu))),
            };
            out.push((key.series_key(), share(part, total)));
        }
    }
    other_readings(prev, cur, seconds, &mut |k, v| {
        out.push((k.series_key(), v))
    });
    out
}

/// The CPU time shares, in the order of [`cpu_shares`]' parts.
pub(crate) const CPU_SHARES: [&str; 6] = [
    series::CPU_USER,
    series::CPU_SYSTEM,
    series::CPU_IOWAIT,
    series::CPU_IRQ,
    series::CPU_SOFTIRQ,
    series::CPU_STEAL,
];

/// The counters of CPU `cpu`, the `i`th of the current snapshot, in the
/// previous /proc/stat: the same CPUs come in the same order, unless one
/// came or went.
#[inline]
pub(crate) fn cpu_before(prev: &Stat, i: usize, cpu: u32) -> Option<&proc::CpuTimes> {
    match prev.cpus.get(i) {
        Some((c, t)) if *c == cpu => Some(t),
        _ => prev.cpus.iter().find(|(c, _)| *c == cpu).map(|(_, t)| t),
    }
}

/// A CPU's jiffies over an interval: all of them, and those of each of
/// [`CPU_SHARES`].
#[inline]
pub(crate) fn cpu_shares(now: &proc::CpuTimes, before: &proc::CpuTimes) -> (u64, [u64; 6]) {
    (
        now.total().saturating_sub(before.total()),
        [
            now.user.saturating_sub(before.user),
            now.system.saturating_sub(before.system),
            now.iowait.saturating_sub(before.iowait),
            now.irq.saturating_sub(before.irq),
            now.softirq.saturating_sub(before.softirq),
            now.steal.saturating_sub(before.steal),
        ],
    )
}

/// A share of `total` jiffies in %, as every reader computes it.
#[inline]
pub(crate) fn share(part: u64, total: u64) -> f64 {
    part as f64 * 100.0 / total as f64
}

/// The readings of [`rates`] but the CPU shares, handed to `f` one by one
/// with their keys borrowed from the snapshots (no allocation per
/// reading), in the same order every interval.
pub(crate) fn other_readings(
    prev: &Snapshot,
    cur: &Snapshot,
    seconds: f64,
    f: &mut impl FnMut(KeyRef<'_>, f64),
) {
    let plain = |name, unit| KeyRef {
        name,
        unit,
        label: None,
    };
    let rate = |a: u64, b: u64| b.checked_sub(a).map(|d| d as f64 / seconds);
    let (p, c) = (&prev.stat, &cur.stat);
    for (name, a, b) in [
        (series::CONTEXT_SWITCHES, p.ctxt, c.ctxt),
        (series::INTERRUPTS, p.intr, c.intr),
    ] {
        if let Some(r) = rate(a, b) {
            f(plain(name, Unit::OpsPerSecond), r);
        }
    }
    f(
        plain(series::PROCS_RUNNING, Unit::Count),
        c.procs_running as f64,
    );
    let m = &cur.memory;
    for (name, v) in [
        (series::MEMORY_USED, m.used),
        (series::MEMORY_CACHED, m.cached),
        (series::MEMORY_DIRTY, m.dirty),
        (series::MEMORY_WRITEBACK, m.writeback),
    ] {
        f(plain(name, Unit::Bytes), v as f64);
    }
    let (pv, cv) = (&prev.vm, &cur.vm);
    for (name, a, b) in [
        (series::SWAP_IN, pv.pswpin, cv.pswpin),
        (series::SWAP_OUT, pv.pswpout, cv.pswpout),
        (series::MAJOR_FAULTS, pv.pgmajfault, cv.pgmajfault),
    ] {
        if let Some(r) = rate(a, b) {
            f(plain(name, Unit::OpsPerSecond), r);
        }
    }
    for now in &cur.disks {
        let Some(before) = prev.disks.iter().find(|d| d.device == now.device) else {
            continue;
        };
        disk_readings(before, now, seconds, f);
    }
    for now in &cur.nics {
        let Some(before) = prev.nics.iter().find(|n| n.nic == now.nic) else {
            continue;
        };
        let label = Some((label::NIC, LabelRef::Text(&now.nic)));
        for (name, unit, a, b) in [
            (
                series::NET_RX_BYTES,
                Unit::BytesPerSecond,
                before.rx_bytes,
                now.rx_bytes,
            ),
            (
                series::NET_TX_BYTES,
                Unit::BytesPerSecond,
                before.tx_bytes,
                now.tx_bytes,
            ),
            (
                series::NET_RX_PACKETS,
                Unit::OpsPerSecond,
                before.rx_packets,
                now.rx_packets,
            ),
            (
                series::NET_TX_PACKETS,
                Unit::OpsPerSecond,
                before.tx_packets,
                now.tx_packets,
            ),
            (
                series::NET_RX_DROPS,
                Unit::OpsPerSecond,
                before.rx_drops,
                now.rx_drops,
            ),
            (
                series::NET_TX_DROPS,
                Unit::OpsPerSecond,
                before.tx_drops,
                now.tx_drops,
            ),
            (
                series::NET_RX_ERRORS,
                Unit::OpsPerSecond,
                before.rx_errors,
                now.rx_errors,
            ),
            (
                series::NET_TX_ERRORS,
                Unit::OpsPerSecond,
                before.tx_errors,
                now.tx_errors,
            ),
        ] {
            if let Some(r) = rate(a, b) {
                f(KeyRef { name, unit, label }, r);
            }
        }
    }
    for (cpu, hz) in &cur.frequencies {
        let key = KeyRef {
            name: series::CPU_FREQUENCY,
            unit: Unit::Hertz,
            label: Some((label::CPU, LabelRef::Number(*cpu))),
        };
        f(key, *hz);
    }
    for (sensor, c) in &cur.temperatures {
        let key = KeyRef {
            name: series::TEMPERATURE,
            unit: Unit::Count,
            label: Some((label::SENSOR, LabelRef::Text(sensor))),
        };
        f(key, *c);
    }
    for g in &cur.gpus {
        let label = Some((label::GPU, LabelRef::Number(g.index)));
        for (name, unit, v) in [
            (series::GPU_UTILISATION, Unit::Percent, g.utilisation),
            (
                series::GPU_MEMORY_UTILISATION,
                Unit::Percent,
                g.memory_utilisation,
            ),
            (series::GPU_SM_CLOCK, Unit::Hertz, g.sm_clock_hz),
            (series::GPU_POWER, Unit::Watts, g.power_w),
            (series::GPU_TEMPERATURE, Unit::Count, g.temperature_c),
            (series::GPU_MEMORY_USED, Unit::Bytes, g.memory_used_bytes),
        ] {
            if let Some(v) = v {
                f(KeyRef { name, unit, label }, v);
            }
        }
    }
}

/// A block device's readings over one interval, iostat's way: IOPS and
/// bytes/s per direction, average request size, average queue depth
/// (weighted time in queue / interval) and utilisation (busy time / interval).
fn disk_readings(
    before: &DiskCounters,
    now: &DiskCounters,
    seconds: f64,
    f: &mut impl FnMut(KeyRef<'_>, f64),
) {
    let d = |g: fn(&DiskCounters) -> u64| g(now).checked_sub(g(before));
    let (Some(reads), Some(writes), Some(rs), Some(ws), Some(ticks), Some(queue)) = (
        d(|c| c.reads),
        d(|c| c.writes),
        d(|c| c.read_sectors),
        d(|c| c.write_sectors),
        d(|c| c.io_ticks_ms),
        d(|c| c.time_in_queue_ms),
    ) else {
        return;
    };
    let label = Some((label::DEVICE, LabelRef::Text(&now.device)));
    let requests = reads + writes;
    let request_size = if requests == 0 {
        0.0
    } else {
        ((rs + ws) * proc::SECTOR_BYTES) as f64 / requests as f64
    };
    let ms = seconds * 1000.0;
    for (name, unit, v) in [
        (
            series::DISK_READ_IOPS,
            Unit::OpsPerSecond,
            reads as f64 / seconds,
        ),
        (
            series::DISK_WRITE_IOPS,
            Unit::OpsPerSecond,
            writes as f64 / seconds,
        ),
        (
            series::DISK_READ_BYTES,
            Unit::BytesPerSecond,
            (rs * proc::SECTOR_BYTES) as f64 / seconds,
        ),
        (
            series::DISK_WRITE_BYTES,
            Unit::BytesPerSecond,
            (ws * proc::SECTOR_BYTES) as f64 / seconds,
        ),
        (series::DISK_REQUEST_SIZE, Unit::Bytes, request_size),
        (series::DISK_QUEUE_DEPTH, Unit::Count, queue as f64 / ms),
        (
            series::DISK_UTILISATION,
            Unit::Percent,
            (ticks as f64 * 100.0 / ms).min(100.0),
        ),
    ] {
        f(KeyRef { name, unit, label }, v);
    }
}

/// The longest [`Sampler::sample_now`] waits for the sampler thread.
pub const SAMPLE_NOW_WAIT: Duration = Duration::from_millis(500);

/// The shortest interval [`Sampler::sample_now`] ends: /proc/stat counts CPU
/// time in ticks of 10 ms, so a shorter one would hold no tick for some
/// CPUs (no share to report) and noise for the others.
pub const MIN_FORCED_INTERVAL: Duration = Duration::from_millis(50);

/// What the owner asks of the sampler thread (dropping the sender stops it).
enum Request {
    /// Take a sample now and say so on the channel.
    SampleNow(mpsc::Sender<()>),
}

/// What the sampler thread and its owner share.
struct Shared {
    history: History,
    own_cpu: Duration,
}

/// A thread reading the machine every interval until dropped.
pub struct Sampler {
    shared: Arc<Mutex<Shared>>,
    requests: Option<mpsc::Sender<Request>>,
    thread: Option<JoinHandle<()>>,
}

impl Sampler {
    /// Starts sampling every `interval`, keeping [`DEFAULT_RETENTION`].
    pub fn start(interval: Duration) -> std::io::Result<Sampler> {
        Sampler::with_retention(interval, DEFAULT_RETENTION)
    }

    /// Starts sampling every `interval`, keeping the samples of the last
    /// `retention` (at least one).
    pub fn with_retention(interval: Duration, retention: Duration) -> std::io::Result<Sampler> {
        let shared = Arc::new(Mutex::new(Shared {
            history: History::for_retention(interval, retention),
            own_cpu: Duration::ZERO,
        }));
        let (requests, received) = mpsc::channel();
        let theirs = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("telemetry".into())
            .spawn(move || sample_loop(interval, &theirs, &received))?;
        Ok(Sampler {
            shared,
            requests: Some(requests),
            thread: Some(thread),
        })
    }

    /// Ends the current interval now instead of at its scheduled time, so
    /// that the activity up to this moment is in the samples: the recorder
    /// calls it as a result ends, so the result's last partial interval
    /// (a final fdatasync, the last second of a load) is not lost. Within
    /// [`MIN_FORCED_INTERVAL`] of the last sample it takes none (that
    /// sample ends the result's time). Waits for the sample, at most
    /// [`SAMPLE_NOW_WAIT`].
    pub fn sample_now(&self) {
        let Some(requests) = &self.requests else {
            return;
        };
        let (done, taken) = mpsc::channel();
        if requests.send(Request::SampleNow(done)).is_ok() {
            let _ = taken.recv_timeout(SAMPLE_NOW_WAIT);
        }
    }

    /// The series of the samples of the intervals that overlap `[from,
    /// to]`: those taken in it, and the first taken after `to` (its
    /// interval holds the end; see [`Sampler::sample_now`]). Each point is
    /// at its seconds since `from`, every series labelled
    /// `source=telemetry` (the last one at `to` at the latest).
    /// Empty when no interval ended in it.
    pub fn window(&self, from: DateTime<Utc>, to: DateTime<Utc>) -> Vec<TimeSeries> {
        self.shared
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .history
            .window(from, to)
    }

    /// CPU time (user + system) the sampler thread has used so far: its own
    /// cost, which stays under 1 % of one core at the default interval.
    pub fn own_cpu_time(&self) -> Duration {
        self.shared
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .own_cpu
    }
}

impl Drop for Sampler {
    fn drop(&mut self) {
        drop(self.requests.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn sample_loop(interval: Duration, shared: &Mutex<Shared>, requests: &mpsc::Receiver<Request>) {
    let mut prev = (Instant::now(), Snapshot::read());
    let mut next = prev.0 + interval;
    loop {
        let done = match requests.recv_timeout(next.saturating_duration_since(Instant::now())) {
            Err(RecvTimeoutError::Timeout) => None,
            Ok(Request::SampleNow(done)) if prev.0.elapsed() < MIN_FORCED_INTERVAL => {
                let _ = done.send(());
                continue;
            }
            Ok(Request::SampleNow(done)) => Some(done),
            Err(RecvTimeoutError::Disconnected) => return,
        };
        let now = (Instant::now(), Snapshot::read());
        let at = Utc::now();
        let seconds = (now.0 - prev.0).as_secs_f64();
        let (user, system) = nodebench_core::cputime::thread();
        let mut h = shared.lock().unwrap_or_else(|e| e.into_inner());
        h.history.record(at, &prev.1, &now.1, seconds);
        prev = now;
        next += interval;
        if next < prev.0 {
            next = prev.0 + interval;
        }
        h.own_cpu = user + system;
        drop(h);
        if let Some(done) = done {
            // A full interval from here: a forced sample does not leave a
            // sliver of an interval whose rates would be noise.
            next = prev.0 + interval;
            let _ = done.send(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::names::telemetry::{SOURCE, SOURCE_TELEMETRY};

    fn value(readings: &[Reading], name: &str, labels: &[(&str, &str)]) -> f64 {
        readings
            .iter()
            .find(|(k, _)| {
                k.name == name
                    && k.labels.len() == labels.len()
                    && labels
                        .iter()
                        .all(|(l, v)| k.labels.iter().any(|(kl, kv)| kl == l && kv == v))
            })
            .unwrap_or_else(|| panic!("no reading {name} {labels:?}"))
            .1
    }

    #[test]
    fn gpus_give_their_gauges_labelled_by_index_and_nothing_unknown() {
        let gpu = |index, power| GpuSample {
            index,
            utilisation: Some(97.0),
            memory_utilisation: Some(41.0),
            sm_clock_hz: Some(1.98e9),
            power_w: power,
            temperature_c: Some(61.0),
            memory_used_bytes: Some(8e9),
        };
        let cur = Snapshot {
            gpus: vec![gpu(0, Some(612.5)), gpu(1, None)],
            ..Snapshot::default()
        };
        let r = rates(&Snapshot::default(), &cur, 1.0);
        let g0 = [("gpu", "0")];
        assert_eq!(value(&r, series::GPU_UTILISATION, &g0), 97.0);
        assert_eq!(value(&r, series::GPU_MEMORY_UTILISATION, &g0), 41.0);
        assert_eq!(value(&r, series::GPU_SM_CLOCK, &g0), 1.98e9);
        assert_eq!(value(&r, series::GPU_POWER, &g0), 612.5);
        assert_eq!(value(&r, series::GPU_TEMPERATURE, &[("gpu", "1")]), 61.0);
        let power: Vec<_> = r
            .iter()
            .filter(|(k, _)| k.name == series::GPU_POWER)
            .collect();
        // GPU 1's power was not read: no reading, not a zero.
        assert_eq!(power.len(), 1);
        assert_eq!(power[0].0.unit, Unit::Watts);
    }

    #[test]
    fn two_snapshots_give_cpu_shares_and_iostat_figures() {
        let prev = Snapshot {
            stat: proc::parse_stat(
                "cpu0 100 0 50 800 50 0 0 0 0 0\nctxt 1000\nintr 500\nprocs_running 2\n",
            ),
            vm: proc::parse_vmstat("pswpin 10\npswpout 20\npgmajfault 30\n"),
            disks: proc::parse_diskstats(
                " 254 0 vda 100 0 800 0 200 0 1600 0 0 1000 5000 0 0 0 0\n",
            ),
            nics: proc::parse_net_dev("eth0: 1000 10 0 0 0 0 0 0 2000 20 0 0 0 0 0 0\n"),
            ..Snapshot::default()
        };
        let cur = Snapshot {
            stat: proc::parse_stat(
                "cpu0 180 0 60 800 60 0 0 0 0 0\nctxt 3000\nintr 900\nprocs_running 3\n",
            ),
            vm: proc::parse_vmstat("pswpin 10\npswpout 60\npgmajfault 34\n"),
            // 100 reads of 8 sectors, 300 writes of 2048 sectors, busy 1500 of 2000 ms,
            // 8000 ms weighted in queue.
            disks: proc::parse_diskstats(
                " 254 0 vda 200 0 1600 0 500 0 616000 0 0 2500 13000 0 0 0 0\n",
            ),
            nics: proc::parse_net_dev("eth0: 5000 14 0 1 0 0 0 0 2000 20 0 0 0 0 0 0\n"),
            ..Snapshot::default()
        };
        let r = rates(&prev, &cur, 2.0);
        let cpu0 = [("cpu", "0")];
        assert_eq!(value(&r, series::CPU_USER, &cpu0), 80.0);
        assert_eq!(value(&r, series::CPU_SYSTEM, &cpu0), 10.0);
        assert_eq!(value(&r, series::CPU_IOWAIT, &cpu0), 10.0);
        assert_eq!(value(&r, series::CONTEXT_SWITCHES, &[]), 1000.0);
        assert_eq!(value(&r, series::INTERRUPTS, &[]), 200.0);
        assert_eq!(value(&r, series::PROCS_RUNNING, &[]), 3.0);
        assert_eq!(value(&r, series::SWAP_OUT, &[]), 20.0);
        assert_eq!(value(&r, series::MAJOR_FAULTS, &[]), 2.0);
        let vda = [("device", "vda")];
        assert_eq!(value(&r, series::DISK_READ_IOPS, &vda), 50.0);
        assert_eq!(value(&r, series::DISK_WRITE_IOPS, &vda), 150.0);
        assert_eq!(
            value(&r, series::DISK_READ_BYTES, &vda),
            800.0 * 512.0 / 2.0
        );
        assert_eq!(
            value(&r, series::DISK_WRITE_BYTES, &vda),
            614400.0 * 512.0 / 2.0
        );
        assert_eq!(
            value(&r, series::DISK_REQUEST_SIZE, &vda),
            (800.0 + 614400.0) * 512.0 / 400.0
        );
        assert_eq!(value(&r, series::DISK_QUEUE_DEPTH, &vda), 4.0);
        assert_eq!(value(&r, series::DISK_UTILISATION, &vda), 75.0);
        let eth0 = [("nic", "eth0")];
        assert_eq!(value(&r, series::NET_RX_BYTES, &eth0), 2000.0);
        assert_eq!(value(&r, series::NET_RX_PACKETS, &eth0), 2.0);
        assert_eq!(value(&r, series::NET_RX_DROPS, &eth0), 0.5);
        assert_eq!(value(&r, series::NET_TX_BYTES, &eth0), 0.0);
    }

    #[test]
    fn a_counter_that_went_backwards_gives_no_rate() {
        let prev = Snapshot {
            stat: proc::parse_stat("ctxt 5000\n"),
            ..Snapshot::default()
        };
        let cur = Snapshot {
            stat: proc::parse_stat("ctxt 10\n"),
            ..Snapshot::default()
        };
        let r = rates(&prev, &cur, 1.0);
        assert!(r.iter().all(|(k, _)| k.name != series::CONTEXT_SWITCHES));
    }

    #[test]
    fn a_forced_sample_right_after_the_last_is_not_taken() {
        // Hourly samples, ten kept: only forced ones are taken here.
        let hour = Duration::from_secs(3600);
        let sampler = Sampler::with_retention(hour, 10 * hour).unwrap();
        let count = || {
            sampler
                .window(Utc::now() - chrono::Duration::hours(1), Utc::now())
                .iter()
                .find(|s| s.name == series::PROCS_RUNNING)
                .map_or(0, |s| s.points.len())
        };
        std::thread::sleep(MIN_FORCED_INTERVAL * 2);
        sampler.sample_now();
        assert_eq!(count(), 1);
        sampler.sample_now();
        assert_eq!(count(), 1, "a sliver of an interval was sampled");
        std::thread::sleep(MIN_FORCED_INTERVAL * 2);
        sampler.sample_now();
        assert_eq!(count(), 2);
    }

    #[test]
    fn history_is_bounded_by_the_retention() {
        let sampler =
            Sampler::with_retention(Duration::from_millis(20), Duration::from_millis(100)).unwrap();
        std::thread::sleep(Duration::from_millis(400));
        let all = sampler.window(Utc::now() - chrono::Duration::hours(1), Utc::now());
        let procs = all
            .iter()
            .find(|s| s.name == series::PROCS_RUNNING)
            .unwrap();
        assert!(
            procs.points.len() <= 5,
            "{} points kept",
            procs.points.len()
        );
        assert!(!procs.points.is_empty());
        assert_eq!(
            procs.labels.get(SOURCE).map(String::as_str),
            Some(SOURCE_TELEMETRY)
        );
    }
}
