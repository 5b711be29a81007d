//! What NVML says of a GPU's health and activity: its gauges each second
//! for telemetry ([`sample_all`]: utilisation, memory utilisation, SM
//! clock, power, temperature, memory in use), and over a burn-in
//! ([`Watch`]) the XID errors it raised, the volatile ECC counts, the pages
//! retired and rows remapped, and the share of the time each throttle
//! reason held its clocks down. Where NVML cannot tell (an older driver, a
//! guest without event support) the report says so and counts nothing.

use std::ffi::{CString, c_uint};

use nodebench_core::names::gpu::throttle;

use nodebench_nvidia::nvml::{self, Device, EventData, EventSet, Nvml, ask};

/// A GPU's gauges at one instant; `None` where NVML did not answer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sample {
    /// NVML's index.
    pub index: u32,
    /// Share of the last sample period a kernel ran, %.
    pub utilisation: Option<f64>,
    /// Share of it the memory was read or written, %.
    pub memory_utilisation: Option<f64>,
    pub sm_clock_hz: Option<f64>,
    pub power_w: Option<f64>,
    pub temperature_c: Option<f64>,
    pub memory_used_bytes: Option<f64>,
}

/// Every GPU's gauges now; empty without NVML.
pub fn sample_all() -> Vec<Sample> {
    let Ok(n) = nvml::nvml() else {
        return Vec::new();
    };
    n.devices()
        .into_iter()
        .enumerate()
        .map(|(i, d)| sample(n, d, i as u32))
        .collect()
}

fn sample(n: &Nvml, d: Device, index: u32) -> Sample {
    let mut s = Sample {
        index,
        ..Sample::default()
    };
    let mut util: [c_uint; 2] = [0; 2];
    if ask!(n, utilization, d, &mut util).is_some() {
        s.utilisation = Some(f64::from(util[0]));
        s.memory_utilisation = Some(f64::from(util[1]));
    }
    let mut v: c_uint = 0;
    if ask!(n, clock, d, nvml::CLOCK_SM, &mut v).is_some() {
        s.sm_clock_hz = Some(f64::from(v) * 1e6);
    }
    if ask!(n, power_usage, d, &mut v).is_some() {
        s.power_w = Some(f64::from(v) / 1e3);
    }
    if ask!(n, temperature, d, nvml::TEMPERATURE_GPU, &mut v).is_some() {
        s.temperature_c = Some(f64::from(v));
    }
    let mut mem = nvml::Memory::default();
    if ask!(n, memory, d, &mut mem).is_some() {
        s.memory_used_bytes = Some(mem.used as f64);
    }
    s
}

/// NVML's clock event (throttle) reason bits that mean the board held the
/// clocks down, with their names in the `throttle` label.
pub const THROTTLE_BITS: [(u64, &str); 5] = [
    (0x4, throttle::POWER_CAP),
    (0x8, throttle::HW_SLOWDOWN),
    (0x20, throttle::SW_THERMAL),
    (0x40, throttle::HW_THERMAL),
    (0x80, throttle::HW_POWER_BRAKE),
];

/// The throttle reasons a mask holds (idle, application clocks and sync
/// boost left out: they are settings, not the board protecting itself).
pub fn throttle_reasons(mask: u64) -> Vec<&'static str> {
    THROTTLE_BITS
        .iter()
        .filter(|(bit, _)| mask & bit != 0)
        .map(|(_, name)| *name)
        .collect()
}

/// What an XID error means, from NVIDIA's XID catalogue; "see NVIDIA's
/// XID catalogue" for one not listed here.
pub fn xid_meaning(xid: u64) -> &'static str {
    match xid {
        13 => "graphics engine exception",
        31 => "GPU memory page fault",
        32 => "invalid or corrupted push buffer stream",
        38 => "driver firmware error",
        43 => "GPU stopped processing",
        45 => "preemptive cleanup after earlier errors",
        48 => "double-bit ECC error",
        61 => "internal micro-controller breakpoint",
        62 => "internal micro-controller halt",
        63 => "ECC page retirement or row remapping recorded",
        64 => "ECC page retirement or row remapping failed",
        68 => "video decoder exception",
        69 => "graphics engine class error",
        74 => "NVLink error",
        79 => "GPU has fallen off the bus",
        92 => "high single-bit ECC error rate",
        94 => "contained ECC error",
        95 => "uncontained ECC error",
        109 => "context switch timeout",
        119 => "GSP RPC timeout",
        120 => "GSP error",
        121 => "C2C link error",
        140 => "unrecovered ECC error",
        _ => "see NVIDIA's XID catalogue",
    }
}

/// Counters NVML keeps for a GPU; `None` where it does not keep or tell
/// one.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Counters {
    /// Volatile (since the driver loaded) corrected ECC errors.
    pub ecc_corrected: Option<u64>,
    /// Volatile uncorrected ECC errors.
    pub ecc_uncorrected: Option<u64>,
    /// Retired pages, both causes (before Ampere).
    pub retired_pages: Option<u64>,
    /// Remapped rows, corrected and uncorrected (Ampere and later).
    pub remapped_rows: Option<u64>,
    /// A remapping failed.
    pub remap_failed: bool,
}

impl Counters {
    fn read(n: &Nvml, d: Device) -> Counters {
        let ecc = |kind: c_uint| {
            let mut v = 0u64;
            // Volatile counts (counter type 0).
            ask!(n, total_ecc, d, kind, 0, &mut v).map(|_| v)
        };
        let retired = |cause: c_uint| {
            let mut count: c_uint = 0;
            ask!(n, retired_pages, d, cause, &mut count, std::ptr::null_mut())
                .map(|_| u64::from(count))
        };
        let (mut corr, mut unc, mut pending, mut failed): (c_uint, c_uint, c_uint, c_uint) =
            (0, 0, 0, 0);
        let rows = ask!(
            n,
            remapped_rows,
            d,
            &mut corr,
            &mut unc,
            &mut pending,
            &mut failed
        );
        Counters {
            ecc_corrected: ecc(0),
            ecc_uncorrected: ecc(1),
            retired_pages: match (retired(0), retired(1)) {
                (Some(a), Some(b)) => Some(a + b),
                (a, b) => a.or(b),
            },
            remapped_rows: rows.map(|_| u64::from(corr) + u64::from(unc)),
            remap_failed: rows.is_some() && failed != 0,
        }
    }

    /// What grew from `self` to `later`; `None` where either side is
    /// unknown, 0 where a counter went backwards (a driver reload).
    pub fn delta(&self, later: &Counters) -> Counters {
        let d = |a: Option<u64>, b: Option<u64>| Some(b?.saturating_sub(a?));
        Counters {
            ecc_corrected: d(self.ecc_corrected, later.ecc_corrected),
            ecc_uncorrected: d(self.ecc_uncorrected, later.ecc_uncorrected),
            retired_pages: d(self.retired_pages, later.retired_pages),
            remapped_rows: d(self.remapped_rows, later.remapped_rows),
            remap_failed: later.remap_failed && !self.remap_failed,
        }
    }
}

/// One GPU watched over a run: call [`Watch::poll`] every so often (each
/// call drains its XID events and samples its gauges and throttle
/// reasons), then [`Watch::finish`].
pub struct Watch {
    nvml: &'static Nvml,
    device: Device,
    events: Option<EventSet>,
    before: Counters,
    report: Report,
    clock_sum: f64,
    clock_samples: u64,
}

// SAFETY: NVML handles may be used from any thread.
unsafe impl Send for Watch {}

impl Watch {
    /// Starts watching the GPU at PCI bus id `bus_id` (as the CUDA driver
    /// gives it).
    pub fn open(bus_id: &str) -> Result<Watch, crate::Error> {
        let n = nvml::nvml()?;
        let id = CString::new(bus_id).map_err(|e| crate::Error::Unknown(e.to_string()))?;
        let mut device: Device = std::ptr::null_mut();
        ask!(n, handle_by_bus_id, id.as_ptr(), &mut device).ok_or_else(|| {
            crate::Error::Unknown(format!("NVML does not know the GPU at {bus_id}"))
        })?;
        let mut index: c_uint = 0;
        let _ = ask!(n, index, device, &mut index);
        let mut report = Report {
            index,
            ..Report::default()
        };
        let events = match register_xid(n, device) {
            Ok(set) => Some(set),
            Err(why) => {
                report.unavailable.push(format!("XID events: {why}"));
                None
            }
        };
        let before = Counters::read(n, device);
        if before.ecc_uncorrected.is_none() {
            report
                .unavailable
                .push("ECC counts: not reported (ECC off or not supported)".into());
        }
        if before.retired_pages.is_none() && before.remapped_rows.is_none() {
            report
                .unavailable
                .push("retired pages and remapped rows: not reported".into());
        }
        Ok(Watch {
            nvml: n,
            device,
            events,
            before,
            report,
            clock_sum: 0.0,
            clock_samples: 0,
        })
    }

    /// Drains the XID events and samples the gauges and throttle reasons.
    pub fn poll(&mut self) {
        let n = self.nvml;
        if let (Some(set), Some(wait)) = (self.events, n.api.event_set_wait) {
            loop {
                let mut e = EventData {
                    device: std::ptr::null_mut(),
                    event_type: 0,
                    event_data: 0,
                    gpu_instance_id: 0,
                    compute_instance_id: 0,
                };
                // SAFETY: a set NVML made and room for one event; no wait.
                if unsafe { wait(set, &mut e, 0) } != 0 {
                    break;
                }
                if e.event_type & nvml::EVENT_XID != 0 {
                    self.report.xids.push(e.event_data);
                }
            }
        }
        let s = sample(n, self.device, self.report.index);
        let r = &mut self.report;
        r.temperature_max = max(r.temperature_max, s.temperature_c);
        r.power_max = max(r.power_max, s.power_w);
        if let Some(hz) = s.sm_clock_hz {
            self.clock_sum += hz;
            self.clock_samples += 1;
        }
        let mut mask = 0u64;
        let got = ask!(n, event_reasons, self.device, &mut mask)
            .or_else(|| ask!(n, throttle_reasons, self.device, &mut mask));
        if got.is_some() {
            r.samples += 1;
            for name in throttle_reasons(mask) {
                let i = THROTTLE_BITS.iter().position(|(_, x)| *x == name).unwrap();
                r.throttled_samples[i] += 1;
            }
        }
    }

    /// The run's report: the counters' growth since [`Watch::open`].
    pub fn finish(mut self) -> Report {
        self.poll();
        let after = Counters::read(self.nvml, self.device);
        let mut r = std::mem::take(&mut self.report);
        r.counters = self.before.delta(&after);
        r.sm_clock_mean_hz =
            (self.clock_samples > 0).then(|| self.clock_sum / self.clock_samples as f64);
        r
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        if let (Some(set), Some(free)) = (self.events.take(), self.nvml.api.event_set_free) {
            // SAFETY: a set NVML made, freed once.
            unsafe { free(set) };
        }
    }
}

fn max(a: Option<f64>, b: Option<f64>) -> Option<f64> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.max(y)),
        (x, y) => x.or(y),
    }
}

/// An event set with `device`'s critical XID events registered.
fn register_xid(n: &Nvml, device: Device) -> Result<EventSet, String> {
    let (Some(create), Some(register)) = (n.api.event_set_create, n.api.register_events) else {
        return Err("this NVML has no event API".into());
    };
    let mut set: EventSet = std::ptr::null_mut();
    // SAFETY: writes one handle.
    let r = unsafe { create(&mut set) };
    if r != 0 {
        return Err(format!("nvmlEventSetCreate returned {r}"));
    }
    // SAFETY: a device handle and the set just made.
    let r = unsafe { register(device, nvml::EVENT_XID, set) };
    if r != 0 {
        if let Some(free) = n.api.event_set_free {
            // SAFETY: the set just made, freed once.
            unsafe { free(set) };
        }
        return Err(format!(
            "nvmlDeviceRegisterEvents returned {r} ({})",
            if r == 3 {
                "not supported on this GPU or in this guest"
            } else {
                "refused"
            }
        ));
    }
    Ok(set)
}

/// What a [`Watch`] saw over a run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Report {
    /// NVML's index.
    pub index: u32,
    /// The XID errors raised, in order.
    pub xids: Vec<u64>,
    /// How much each counter grew.
    pub counters: Counters,
    /// Samples of the throttle reasons taken.
    pub samples: u64,
    /// Of them, those in which each of [`THROTTLE_BITS`] held.
    pub throttled_samples: [u64; 5],
    pub temperature_max: Option<f64>,
    pub power_max: Option<f64>,
    pub sm_clock_mean_hz: Option<f64>,
    /// What NVML could not tell, in words.
    pub unavailable: Vec<String>,
}

impl Report {
    /// Each throttle reason's share of the samples, %; empty without
    /// samples.
    pub fn throttled_percent(&self) -> Vec<(&'static str, f64)> {
        if self.samples == 0 {
            return Vec::new();
        }
        THROTTLE_BITS
            .iter()
            .zip(self.throttled_samples)
            .map(|((_, name), n)| (*name, n as f64 * 100.0 / self.samples as f64))
            .collect()
    }

    /// The XIDs with their meanings: "79 (GPU has fallen off the bus)".
    pub fn xid_text(&self) -> String {
        self.xids
            .iter()
            .map(|x| format!("{x} ({})", xid_meaning(*x)))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Faults: an XID, an uncorrected ECC error, a page retired or row
    /// remapped, a failed remapping. Each is one line.
    pub fn faults(&self) -> Vec<String> {
        let c = &self.counters;
        let mut out = Vec::new();
        if !self.xids.is_empty() {
            out.push(format!(
                "GPU {}: {} XID error(s): {}",
                self.index,
                self.xids.len(),
                self.xid_text()
            ));
        }
        if let Some(n) = c.ecc_uncorrected.filter(|n| *n > 0) {
            out.push(format!("GPU {}: {n} uncorrected ECC error(s)", self.index));
        }
        if let Some(n) = c.retired_pages.filter(|n| *n > 0) {
            out.push(format!("GPU {}: {n} page(s) retired", self.index));
        }
        if let Some(n) = c.remapped_rows.filter(|n| *n > 0) {
            out.push(format!("GPU {}: {n} row(s) remapped", self.index));
        }
        if c.remap_failed {
            out.push(format!("GPU {}: a row remapping failed", self.index));
        }
        out
    }

    /// Warnings: corrected ECC errors, and thermal or hardware throttling
    /// (a power cap alone is the board working as designed, reported but
    /// not warned of).
    pub fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(n) = self.counters.ecc_corrected.filter(|n| *n > 0) {
            out.push(format!("GPU {}: {n} corrected ECC error(s)", self.index));
        }
        for (name, pct) in self.throttled_percent() {
            if name != throttle::POWER_CAP && pct > 0.0 {
                out.push(format!(
                    "GPU {}: clocks held down by {name} in {pct:.1}% of the samples",
                    self.index
                ));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn throttle_masks_decode_to_the_protective_reasons() {
        // 0x1 idle and 0x2 application clocks are settings, not throttling.
        assert!(throttle_reasons(0x1 | 0x2 | 0x10).is_empty());
        assert_eq!(throttle_reasons(0x4), vec![throttle::POWER_CAP]);
        assert_eq!(
            throttle_reasons(0x4 | 0x40 | 0x80),
            vec![
                throttle::POWER_CAP,
                throttle::HW_THERMAL,
                throttle::HW_POWER_BRAKE
            ]
        );
        assert_eq!(throttle_reasons(0x8 | 0x20).len(), 2);
    }

    #[test]
    fn xids_have_their_catalogue_meanings() {
        assert_eq!(xid_meaning(79), "GPU has fallen off the bus");
        assert_eq!(xid_meaning(48), "double-bit ECC error");
        assert_eq!(xid_meaning(9999), "see NVIDIA's XID catalogue");
    }

    #[test]
    fn counters_grow_or_stay_unknown() {
        let before = Counters {
            ecc_corrected: Some(10),
            ecc_uncorrected: Some(0),
            retired_pages: None,
            remapped_rows: Some(2),
            remap_failed: false,
        };
        let after = Counters {
            ecc_corrected: Some(13),
            ecc_uncorrected: Some(1),
            retired_pages: Some(4),
            remapped_rows: Some(1),
            remap_failed: true,
        };
        let d = before.delta(&after);
        assert_eq!(d.ecc_corrected, Some(3));
        assert_eq!(d.ecc_uncorrected, Some(1));
        // Unknown before: unknown, not 4.
        assert_eq!(d.retired_pages, None);
        // Went backwards (a driver reload): nothing grew.
        assert_eq!(d.remapped_rows, Some(0));
        assert!(d.remap_failed);
        // A failure already there before is not new.
        assert!(!after.delta(&after).remap_failed);
    }

    #[test]
    fn faults_and_warnings_name_the_gpu_and_what_happened() {
        let mut r = Report {
            index: 2,
            xids: vec![79, 13],
            samples: 10,
            throttled_samples: [10, 0, 0, 3, 0],
            ..Report::default()
        };
        r.counters.ecc_uncorrected = Some(1);
        r.counters.ecc_corrected = Some(5);
        r.counters.remapped_rows = Some(0);
        assert_eq!(
            r.faults(),
            vec![
                "GPU 2: 2 XID error(s): 79 (GPU has fallen off the bus), 13 (graphics engine exception)",
                "GPU 2: 1 uncorrected ECC error(s)",
            ]
        );
        // The power cap held in every sample: reported, not warned of.
        assert_eq!(
            r.warnings(),
            vec![
                "GPU 2: 5 corrected ECC error(s)",
                "GPU 2: clocks held down by hw_thermal in 30.0% of the samples",
            ]
        );
        let shares = r.throttled_percent();
        assert_eq!(shares[0], (throttle::POWER_CAP, 100.0));
        assert_eq!(Report::default().throttled_percent(), vec![]);
        assert!(Report::default().faults().is_empty());
    }

    #[test]
    fn nvml_event_data_has_its_c_layout() {
        assert_eq!(std::mem::size_of::<EventData>(), 32);
    }

    #[test]
    fn without_nvml_nothing_is_sampled() {
        if nvml::nvml().is_err() {
            assert!(sample_all().is_empty());
            assert!(Watch::open("0000:00:00.0").is_err());
        }
    }
}
