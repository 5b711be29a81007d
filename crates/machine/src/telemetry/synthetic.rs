//! A synthetic machine for tests and measurements of the telemetry at
//! scale: `cpus` CPUs under a burn-in's load, second after second, as the
//! sampler would read them (no /proc needed, nothing slept). Seven CPUs in
//! eight are busy (user ~95 %, a little system, softirq and irq, a jiffy of
//! iowait now and then, 99 to 101 jiffies a second as real intervals
//! have), the eighth idle; busy CPUs' frequencies wander between 3.0 and
//! 3.5 GHz to the kHz, idle ones sit at 1.2 GHz; two NVMe disks, two NICs
//! and four hwmon sensors do what a burn-in makes them do.

use super::Snapshot;
use super::proc::{CpuTimes, DiskCounters, NicCounters};
use nodebench_core::rng::XorShift64;

/// Two consecutive snapshots of a synthetic machine, one second apart.
pub struct Machine {
    rng: XorShift64,
    prev: Snapshot,
    cur: Snapshot,
}

impl Machine {
    /// A machine of `cpus` CPUs whose counters follow the generator seeded
    /// with `seed`, at its first snapshot.
    pub fn new(cpus: u32, seed: u64) -> Machine {
        let mut cur = Snapshot::default();
        cur.stat.cpus = (0..cpus).map(|c| (c, CpuTimes::default())).collect();
        cur.frequencies = (0..cpus).map(|c| (c, 1.2e9)).collect();
        cur.disks = ["nvme0n1", "nvme1n1"]
            .iter()
            .map(|d| DiskCounters {
                device: d.to_string(),
                ..DiskCounters::default()
            })
            .collect();
        cur.nics = ["eth0", "eth1"]
            .iter()
            .map(|n| NicCounters {
                nic: n.to_string(),
                ..NicCounters::default()
            })
            .collect();
        cur.temperatures = [
            "coretemp/temp1",
            "coretemp/temp2",
            "nvme/temp1",
            "nvme/temp2",
        ]
        .iter()
        .map(|s| (s.to_string(), 40.0))
        .collect();
        let mut m = Machine {
            rng: XorShift64::new(seed),
            prev: Snapshot::default(),
            cur,
        };
        m.step();
        m
    }

    /// The snapshot before the last [`Machine::step`] and the one after it.
    pub fn pair(&self) -> (&Snapshot, &Snapshot) {
        (&self.prev, &self.cur)
    }

    /// One second on.
    pub fn step(&mut self) {
        std::mem::swap(&mut self.prev, &mut self.cur);
        self.cur.clone_from(&self.prev);
        let cpus = self.cur.stat.cpus.len() as u64;
        let rng = &mut self.rng;
        for ((cpu, t), (_, hz)) in self
            .cur
            .stat
            .cpus
            .iter_mut()
            .zip(self.cur.frequencies.iter_mut())
        {
            let r = rng.next_u64();
            let bits = |shift: u32, n: u64| (r >> shift) % n;
            let total = 99 + bits(0, 3);
            let (system, irq, softirq, iowait, idle) = if *cpu % 8 == 7 {
                *hz = 1.2e9;
                (bits(8, 2), 0, 0, 0, total - bits(8, 2) - bits(16, 2))
            } else {
                *hz = (3_000_000 + bits(40, 500_000)) as f64 * 1000.0;
                (
                    bits(8, 3),
                    u64::from(bits(16, 8) == 0),
                    u64::from(bits(20, 4) == 0),
                    u64::from(bits(24, 64) == 0),
                    bits(32, 3),
                )
            };
            t.system += system;
            t.irq += irq;
            t.softirq += softirq;
            t.iowait += iowait;
            t.idle += idle;
            t.user += total - system - irq - softirq - iowait - idle;
        }
        let s = &mut self.cur.stat;
        s.ctxt += 20_000 * cpus + rng.below(10_000);
        s.intr += 8_000 * cpus + rng.below(10_000);
        s.procs_running = cpus * 7 / 8 + rng.below(4);
        let m = &mut self.cur.memory;
        m.used = (400 << 30) + rng.below(1 << 20) * 1024;
        m.cached = (20 << 30) + rng.below(1 << 16) * 1024;
        m.dirty = rng.below(1 << 16) * 1024;
        m.writeback = rng.below(1 << 10) * 1024;
        self.cur.vm.pgmajfault += rng.below(3);
        for d in &mut self.cur.disks {
            let (r, w) = (20_000 + rng.below(2_000), 20_000 + rng.below(2_000));
            d.reads += r;
            d.writes += w;
            d.read_sectors += r * 8;
            d.write_sectors += w * 256;
            d.io_ticks_ms += 990 + rng.below(10);
            d.time_in_queue_ms += 30_000 + rng.below(3_000);
        }
        for n in &mut self.cur.nics {
            let (rx, tx) = (80_000 + rng.below(4_000), 80_000 + rng.below(4_000));
            n.rx_packets += rx;
            n.tx_packets += tx;
            n.rx_bytes += rx * 1500;
            n.tx_bytes += tx * 1500;
        }
        for (_, c) in &mut self.cur.temperatures {
            *c = (60 + rng.below(15)) as f64;
        }
    }
}
