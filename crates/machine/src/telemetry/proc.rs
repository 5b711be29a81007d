//! Parsers of the /proc and /sys files the sampler reads, each a pure
//! function over the file's text: counters as the kernel keeps them, turned
//! into rates by [`super::rates`].

/// One CPU's time counters from a `cpuN` line of /proc/stat, in jiffies.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CpuTimes {
    /// User mode, nice included.
    pub user: u64,
    /// Kernel mode.
    pub system: u64,
    /// Idle.
    pub idle: u64,
    /// Idle with I/O outstanding.
    pub iowait: u64,
    /// Hardware interrupts.
    pub irq: u64,
    /// Soft interrupts.
    pub softirq: u64,
    /// Stolen by the hypervisor.
    pub steal: u64,
}

impl CpuTimes {
    /// All jiffies of the CPU (guest time is already inside user).
    pub fn total(&self) -> u64 {
        self.user + self.system + self.idle + self.iowait + self.irq + self.softirq + self.steal
    }
}

/// What the sampler takes from /proc/stat.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stat {
    /// Per-CPU counters by CPU number (the aggregate `cpu` line left out).
    pub cpus: Vec<(u32, CpuTimes)>,
    /// Context switches since boot.
    pub ctxt: u64,
    /// Interrupts since boot.
    pub intr: u64,
    /// Runnable tasks now.
    pub procs_running: u64,
}

/// Parses /proc/stat; lines it does not know are skipped.
pub fn parse_stat(text: &str) -> Stat {
    let mut stat = Stat::default();
    for line in text.lines() {
        let mut fields = line.split_ascii_whitespace();
        let Some(key) = fields.next() else { continue };
        let first = |fields: &mut std::str::SplitAsciiWhitespace| {
            fields.next().and_then(|v| v.parse::<u64>().ok())
        };
        if let Some(n) = key.strip_prefix("cpu").and_then(|n| n.parse::<u32>().ok()) {
            let v: Vec<u64> = fields.map(|f| f.parse().unwrap_or(0)).collect();
            let at = |i: usize| v.get(i).copied().unwrap_or(0);
            stat.cpus.push((
                n,
                CpuTimes {
                    user: at(0) + at(1),
                    system: at(2),
                    idle: at(3),
                    iowait: at(4),
                    irq: at(5),
                    softirq: at(6),
                    steal: at(7),
                },
            ));
        } else {
            match key {
                "ctxt" => stat.ctxt = first(&mut fields).unwrap_or(0),
                "intr" => stat.intr = first(&mut fields).unwrap_or(0),
                "procs_running" => stat.procs_running = first(&mut fields).unwrap_or(0),
                _ => {}
            }
        }
    }
    stat
}

/// What the sampler takes from /proc/meminfo, in bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Memory {
    /// MemTotal less MemFree, Buffers, Cached and SReclaimable (free's "used").
    pub used: u64,
    /// Cached: the page cache.
    pub cached: u64,
    /// Dirty.
    pub dirty: u64,
    /// Writeback.
    pub writeback: u64,
}

/// Parses /proc/meminfo (values in kB).
pub fn parse_meminfo(text: &str) -> Memory {
    let mut total = 0;
    let mut free = 0;
    let mut buffers = 0;
    let mut reclaimable = 0;
    let mut mem = Memory::default();
    for line in text.lines() {
        let Some((key, rest)) = line.split_once(':') else {
            continue;
        };
        let kib: u64 = rest
            .split_ascii_whitespace()
            .next()
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let bytes = kib * 1024;
        match key {
            "MemTotal" => total = bytes,
            "MemFree" => free = bytes,
            "Buffers" => buffers = bytes,
            "SReclaimable" => reclaimable = bytes,
            "Cached" => mem.cached = bytes,
            "Dirty" => mem.dirty = bytes,
            "Writeback" => mem.writeback = bytes,
            _ => {}
        }
    }
    mem.used = total.saturating_sub(free + buffers + mem.cached + reclaimable);
    mem
}

/// What the sampler takes from /proc/vmstat: counters since boot.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct VmStat {
    /// Pages swapped in.
    pub pswpin: u64,
    /// Pages swapped out.
    pub pswpout: u64,
    /// Major page faults.
    pub pgmajfault: u64,
}

/// Parses /proc/vmstat.
pub fn parse_vmstat(text: &str) -> VmStat {
    let mut vm = VmStat::default();
    for line in text.lines() {
        let Some((key, value)) = line.split_once(' ') else {
            continue;
        };
        let value = value.trim().parse().unwrap_or(0);
        match key {
            "pswpin" => vm.pswpin = value,
            "pswpout" => vm.pswpout = value,
            "pgmajfault" => vm.pgmajfault = value,
            _ => {}
        }
    }
    vm
}

/// One block device's counters from /proc/diskstats, since boot.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DiskCounters {
    /// Device name (`vda`, `nvme0n1p1`).
    pub device: String,
    /// Reads completed.
    pub reads: u64,
    /// 512-byte sectors read.
    pub read_sectors: u64,
    /// Writes completed.
    pub writes: u64,
    /// 512-byte sectors written.
    pub write_sectors: u64,
    /// Milliseconds with requests in flight.
    pub io_ticks_ms: u64,
    /// Milliseconds spent by all requests in the queue (weighted time).
    pub time_in_queue_ms: u64,
}

/// Bytes in one /proc/diskstats sector, whatever the device's block size.
pub const SECTOR_BYTES: u64 = 512;

/// Parses /proc/diskstats; lines with fewer than the 14 classic fields are
/// skipped.
pub fn parse_diskstats(text: &str) -> Vec<DiskCounters> {
    text.lines()
        .filter_map(|line| {
            let f: Vec<&str> = line.split_ascii_whitespace().collect();
            if f.len() < 14 {
                return None;
            }
            let n = |i: usize| f[i].parse::<u64>().unwrap_or(0);
            Some(DiskCounters {
                device: f[2].to_string(),
                reads: n(3),
                read_sectors: n(5),
                writes: n(7),
                write_sectors: n(9),
                io_ticks_ms: n(12),
                time_in_queue_ms: n(13),
            })
        })
        .collect()
}

/// One network interface's counters from /proc/net/dev, since it came up.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NicCounters {
    /// Interface name (`eth0`).
    pub nic: String,
    /// Bytes received.
    pub rx_bytes: u64,
    /// Packets received.
    pub rx_packets: u64,
    /// Receive errors.
    pub rx_errors: u64,
    /// Received packets dropped.
    pub rx_drops: u64,
    /// Bytes sent.
    pub tx_bytes: u64,
    /// Packets sent.
    pub tx_packets: u64,
    /// Transmit errors.
    pub tx_errors: u64,
    /// Outgoing packets dropped.
    pub tx_drops: u64,
}

/// Parses /proc/net/dev (its two header lines have no `name:` prefix with
/// 16 counters and are skipped).
pub fn parse_net_dev(text: &str) -> Vec<NicCounters> {
    text.lines()
        .filter_map(|line| {
            let (name, rest) = line.split_once(':')?;
            let f: Vec<u64> = rest
                .split_ascii_whitespace()
                .map(|v| v.parse().ok())
                .collect::<Option<_>>()?;
            if f.len() < 16 {
                return None;
            }
            Some(NicCounters {
                nic: name.trim().to_string(),
                rx_bytes: f[0],
                rx_packets: f[1],
                rx_errors: f[2],
                rx_drops: f[3],
                tx_bytes: f[8],
                tx_packets: f[9],
                tx_errors: f[10],
                tx_drops: f[11],
            })
        })
        .collect()
}

/// Parses cpufreq's `scaling_cur_freq` (kHz) into Hz.
pub fn parse_cpufreq_khz(text: &str) -> Option<f64> {
    text.trim()
        .parse::<u64>()
        .ok()
        .map(|khz| khz as f64 * 1000.0)
}

/// Parses a hwmon `tempN_input` (millidegrees Celsius) into degrees.
pub fn parse_hwmon_millidegrees(text: &str) -> Option<f64> {
    text.trim().parse::<i64>().ok().map(|m| m as f64 / 1000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_of_this_machine_gives_each_cpu_and_the_counters() {
        let stat = parse_stat(include_str!("fixtures/stat.txt"));
        assert_eq!(stat.cpus.len(), 2);
        assert_eq!(
            stat.cpus[1],
            (
                1,
                CpuTimes {
                    user: 453649 + 184,
                    system: 59865,
                    idle: 93959,
                    iowait: 2442,
                    irq: 0,
                    softirq: 3765,
                    steal: 1746,
                }
            )
        );
        assert_eq!(stat.ctxt, 20847444);
        assert_eq!(stat.intr, 9501866);
        assert_eq!(stat.procs_running, 5);
    }

    #[test]
    fn meminfo_of_this_machine_in_bytes() {
        let mem = parse_meminfo(include_str!("fixtures/meminfo.txt"));
        assert_eq!(mem.cached, 3864280 * 1024);
        assert_eq!(mem.dirty, 268936 * 1024);
        assert_eq!(mem.writeback, 0);
        assert_eq!(
            mem.used,
            (24683656 - 19520652 - 37868 - 3864280 - 79056) * 1024
        );
    }

    #[test]
    fn vmstat_of_this_machine() {
        let vm = parse_vmstat(include_str!("fixtures/vmstat.txt"));
        assert_eq!(
            vm,
            VmStat {
                pswpin: 0,
                pswpout: 0,
                pgmajfault: 44035
            }
        );
    }

    #[test]
    fn diskstats_of_this_machine_names_every_device() {
        let disks = parse_diskstats(include_str!("fixtures/diskstats.txt"));
        assert_eq!(disks.len(), 10);
        let vda = disks.iter().find(|d| d.device == "vda").unwrap();
        assert_eq!(
            *vda,
            DiskCounters {
                device: "vda".into(),
                reads: 1210322,
                read_sectors: 95810042,
                writes: 199257,
                write_sectors: 172486976,
                io_ticks_ms: 131708,
                time_in_queue_ms: 2451308,
            }
        );
    }

    #[test]
    fn net_dev_of_this_machine_skips_the_headers() {
        let nics = parse_net_dev(include_str!("fixtures/net_dev.txt"));
        let names: Vec<&str> = nics.iter().map(|n| n.nic.as_str()).collect();
        assert_eq!(names, ["lo", "ifb0", "ifb1", "eth0"]);
        assert_eq!(nics[3].rx_bytes, 526794776);
        assert_eq!(nics[3].rx_packets, 19165);
        assert_eq!(nics[3].tx_bytes, 981605);
        assert_eq!(nics[3].tx_packets, 8877);
    }

    #[test]
    fn sysfs_single_values() {
        assert_eq!(parse_cpufreq_khz("2400000\n"), Some(2.4e9));
        assert_eq!(parse_hwmon_millidegrees("45500\n"), Some(45.5));
        assert_eq!(parse_cpufreq_khz("<unknown>\n"), None);
    }
}
