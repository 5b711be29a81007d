//! The machine's own error sources as text: EDAC and thermal-throttle
//! counters in /sys, the MCE line of /proc/interrupts and /dev/kmsg
//! records. Pure functions over a file's text, so each is tested on samples.

/// What kind of machine event a burn-in records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum EventKind {
    /// A new corrected memory error counted by an EDAC controller (`ce_count`).
    EdacCorrected,
    /// A new uncorrected memory error counted by an EDAC controller (`ue_count`).
    EdacUncorrected,
    /// New machine-check exceptions (the MCE line of /proc/interrupts).
    MachineCheck,
    /// New thermal throttling events (`thermal_throttle/*_throttle_count`).
    ThermalThrottle,
    /// A kernel log line about an I/O error.
    KernelIoError,
    /// A kernel log line about an out-of-memory kill.
    KernelOom,
    /// A kernel log line about thermal throttling or overheating.
    KernelThermal,
    /// A kernel log line about a machine check or hardware (EDAC) error.
    KernelHardwareError,
}

impl EventKind {
    /// How the event is named in findings and tables.
    pub fn describe(self) -> &'static str {
        match self {
            EventKind::EdacCorrected => "EDAC corrected memory errors",
            EventKind::EdacUncorrected => "EDAC uncorrected memory errors",
            EventKind::MachineCheck => "machine-check exceptions",
            EventKind::ThermalThrottle => "thermal throttling",
            EventKind::KernelIoError => "kernel log: I/O error",
            EventKind::KernelOom => "kernel log: out-of-memory kill",
            EventKind::KernelThermal => "kernel log: thermal throttling",
            EventKind::KernelHardwareError => "kernel log: hardware error",
        }
    }
}

/// A counter file's value (`ce_count`, `core_throttle_count`): one
/// unsigned integer, surrounding white space allowed.
pub fn parse_counter(text: &str) -> Option<u64> {
    text.trim().parse().ok()
}

/// The machine-check exception count of /proc/interrupts: the sum of the
/// per-CPU columns of its `MCE:` line; `None` when there is no such line.
pub fn parse_mce_interrupts(text: &str) -> Option<u64> {
    let line = text
        .lines()
        .find(|l| l.split_whitespace().next() == Some("MCE:"))?;
    Some(
        line.split_whitespace()
            .skip(1)
            .map_while(|w| w.parse::<u64>().ok())
            .sum(),
    )
}

/// One /dev/kmsg record: `PRIORITY,SEQUENCE,MICROSECONDS,FLAGS[,...];MESSAGE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KmsgRecord {
    /// Syslog level (0 emergency .. 7 debug), the low 3 bits of the priority.
    pub level: u8,
    /// The record's sequence number.
    pub sequence: u64,
    /// Microseconds since boot when it was logged.
    pub usec: u64,
    /// The message (first line; continuation lines are metadata).
    pub message: String,
}

/// Parses one /dev/kmsg record line; `None` for continuation lines
/// (starting with a space) and anything else that is not a record.
pub fn parse_kmsg(line: &str) -> Option<KmsgRecord> {
    let (prefix, message) = line.split_once(';')?;
    let mut fields = prefix.split(',');
    let priority: u32 = fields.next()?.parse().ok()?;
    let sequence: u64 = fields.next()?.parse().ok()?;
    let usec: u64 = fields.next()?.parse().ok()?;
    Some(KmsgRecord {
        level: (priority & 7) as u8,
        sequence,
        usec,
        message: message.lines().next().unwrap_or("").to_string(),
    })
}

/// Which kind of trouble a kernel log message reports, if any: I/O errors,
/// OOM kills, thermal throttling, machine checks and EDAC errors.
pub fn classify_kernel_message(message: &str) -> Option<EventKind> {
    let m = message.to_ascii_lowercase();
    let any = |words: &[&str]| words.iter().any(|w| m.contains(w));
    if any(&[
        "i/o error",
        "medium error",
        "blk_update_request",
        "critical target error",
    ]) {
        Some(EventKind::KernelIoError)
    } else if any(&[
        "out of memory",
        "oom-kill",
        "invoked oom-killer",
        "oom_reaper",
    ]) {
        Some(EventKind::KernelOom)
    } else if any(&[
        "temperature above threshold",
        "cpu clock throttled",
        "critical temperature",
    ]) {
        Some(EventKind::KernelThermal)
    } else if any(&["machine check", "hardware error", "mce: "])
        || (m.contains("edac") && m.contains("error"))
    {
        Some(EventKind::KernelHardwareError)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_are_one_integer() {
        assert_eq!(parse_counter("12\n"), Some(12));
        assert_eq!(parse_counter(" 0 "), Some(0));
        assert_eq!(parse_counter("n/a"), None);
    }

    #[test]
    fn the_mce_line_is_summed_over_cpus() {
        let text = "           CPU0       CPU1       \n  0:         22          0   IO-APIC   2-edge      timer\n\
NMI:          0          0   Non-maskable interrupts\n\
MCE:          3          1   Machine check exceptions\n\
MCP:        120        120   Machine check polls\n";
        assert_eq!(parse_mce_interrupts(text), Some(4));
        assert_eq!(parse_mce_interrupts("NMI: 0 0 Non-maskable\n"), None);
    }

    #[test]
    fn kmsg_records_and_continuation_lines() {
        let r = parse_kmsg(
            "3,1052,812345678,-;blk_update_request: I/O error, dev sdb, sector 2048 op 0x1:(WRITE)",
        )
        .unwrap();
        assert_eq!((r.level, r.sequence, r.usec), (3, 1052, 812_345_678));
        assert!(r.message.starts_with("blk_update_request: I/O error"));
        // facility 0, level 4: priority 4; facility 3 (daemon) level 6: 30.
        assert_eq!(
            parse_kmsg("30,7,100,c;systemd[1]: started").unwrap().level,
            6
        );
        assert_eq!(parse_kmsg(" SUBSYSTEM=block"), None);
        assert_eq!(parse_kmsg("garbage"), None);
    }

    #[test]
    fn kernel_messages_are_classified() {
        let cases = [
            (
                "Buffer I/O error on dev sdb1, logical block 0, lost async page write",
                Some(EventKind::KernelIoError),
            ),
            (
                "sd 2:0:0:0: [sdb] tag#0 Sense Key : Medium Error [current]",
                Some(EventKind::KernelIoError),
            ),
            (
                "Out of memory: Killed process 4242 (stress) total-vm:123kB",
                Some(EventKind::KernelOom),
            ),
            (
                "stress invoked oom-killer: gfp_mask=0x100cca(GFP_HIGHUSER_MOVABLE), order=0",
                Some(EventKind::KernelOom),
            ),
            (
                "CPU3: Package temperature above threshold, cpu clock throttled (total events = 1)",
                Some(EventKind::KernelThermal),
            ),
            (
                "mce: [Hardware Error]: Machine check events logged",
                Some(EventKind::KernelHardwareError),
            ),
            (
                "EDAC MC0: 1 CE memory read error on CPU_SrcID#0_Ha#0_Chan#1_DIMM#0",
                Some(EventKind::KernelHardwareError),
            ),
            ("e1000e: eth0 NIC Link is Up 1000 Mbps Full Duplex", None),
            ("EDAC MC: Ver: 3.0.0", None),
        ];
        for (msg, want) in cases {
            assert_eq!(classify_kernel_message(msg), want, "{msg}");
        }
    }
}
