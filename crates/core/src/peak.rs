//! Theoretical peak floating-point rate of this machine:
//!
//! `peak = physical cores x clock x FLOP per cycle per core`
//!
//! * **FLOP per cycle** comes from a table keyed by the microarchitecture the
//!   inventory recognised, and the ISA flags it runs: the number of FMA (or
//!   separate multiply and add) pipes times the vector width in doubles,
//!   times 2 for a fused multiply-add. For example AVX-512 with two FMA
//!   units = 2 x 8 x 2 = 32 double-precision FLOP/cycle; AVX2 + FMA with two
//!   256-bit units = 16; Zen 1's 128-bit units = 8. Single precision is twice
//!   double.
//! * **Clock**: the cpufreq maximum (turbo included) when the kernel exposes
//!   it; otherwise the clock measured with every core running a chain of
//!   dependent one-cycle adds (virtual machines hide cpufreq, and their
//!   `cpu MHz` is the host's TSC rate, not the core clock); otherwise the base
//!   frequency.
//! * **Cores**: physical cores (SMT siblings share the FMA units).
//!
//! A microarchitecture missing from the table gives an unknown peak, with the
//! reason, rather than a guess.

use std::time::Duration;

use crate::inventory::Inventory;

/// How the FLOP-per-cycle figure of a core was derived.
#[derive(Debug, Clone, PartialEq)]
pub struct CoreFlops {
    /// Double-precision FLOP per cycle per core.
    pub dp_per_cycle: u32,
    /// What it rests on, e.g. `Zen 3: AVX2, 2 x 256-bit FMA`.
    pub basis: String,
}

/// The theoretical peak of this machine.
#[derive(Debug, Clone, PartialEq)]
pub struct Peak {
    /// Physical cores counted.
    pub cores: u32,
    /// Clock used, in Hz.
    pub clock_hz: f64,
    /// Where the clock came from (`cpufreq max`, `measured all-core`, `base`).
    pub clock_source: &'static str,
    /// Per-core FLOP per cycle and its basis.
    pub core: CoreFlops,
}

impl Peak {
    /// Peak double-precision FLOP/s.
    pub fn dp_flops(&self) -> f64 {
        self.cores as f64 * self.clock_hz * self.core.dp_per_cycle as f64
    }

    /// Peak single-precision FLOP/s (twice double on every ISA in the table).
    pub fn sp_flops(&self) -> f64 {
        2.0 * self.dp_flops()
    }

    /// One line saying how the peak was derived, for references and help.
    pub fn describe(&self, double: bool) -> String {
        let (per_cycle, what) = if double {
            (self.core.dp_per_cycle, "DP")
        } else {
            (2 * self.core.dp_per_cycle, "SP")
        };
        format!(
            "theoretical peak: {} cores x {:.3} GHz ({}) x {} {} FLOP/cycle [{}]",
            self.cores,
            self.clock_hz / 1e9,
            self.clock_source,
            per_cycle,
            what,
            self.core.basis
        )
    }
}

fn has(inv: &Inventory, flag: &str) -> bool {
    inv.cpu.flags.iter().any(|f| f == flag)
}

/// FLOP per cycle per core for the recognised microarchitecture, or why it is unknown.
pub fn core_flops(inv: &Inventory) -> Result<CoreFlops, String> {
    let uarch = inv.cpu.microarchitecture.clone().ok_or_else(|| {
        "microarchitecture not recognised, so the FMA units per core are unknown".to_string()
    })?;
    let name = inv.cpu.model_name.clone().unwrap_or_default();
    let avx512 = has(inv, "avx512f");
    let fma = has(inv, "fma");
    let avx2 = has(inv, "avx2");
    let u = uarch.as_str();
    let (dp, basis): (u32, String) = match u {
        "Zen" | "Zen+" => (8, "AVX2 on 2 x 128-bit FMA".into()),
        "Zen 2" | "Zen 3" => (16, "AVX2, 2 x 256-bit FMA".into()),
        "Zen 4" => (16, "AVX-512 executed on 2 x 256-bit FMA".into()),
        "Zen 5" => {
            // Mobile Zen 5 keeps 256-bit datapaths; desktop and server have full 512-bit.
            if name.contains("Ryzen AI") {
                (16, "AVX-512 on 2 x 256-bit FMA (mobile Zen 5)".into())
            } else {
                (32, "AVX-512, 2 x 512-bit FMA".into())
            }
        }
        "Sandy Bridge" | "Ivy Bridge" => (8, "AVX, 256-bit multiply + 256-bit add".into()),
        "Haswell" | "Broadwell" | "Skylake" | "Kaby Lake" | "Coffee Lake" | "Comet Lake"
        | "Alder Lake" | "Raptor Lake" => (16, "AVX2, 2 x 256-bit FMA".into()),
        "Ice Lake" | "Tiger Lake" | "Rocket Lake" => {
            if avx512 {
                (16, "AVX-512, 1 x 512-bit FMA (client core)".into())
            } else {
                (16, "AVX2, 2 x 256-bit FMA".into())
            }
        }
        "Skylake-SP" | "Cascade Lake" | "Cooper Lake" | "Ice Lake-SP" | "Sapphire Rapids"
        | "Emerald Rapids" | "Granite Rapids" => {
            // Xeon Bronze, Silver and most Gold 5xxx parts have one 512-bit FMA unit.
            let one_unit = name.contains("Bronze")
                || name.contains("Silver")
                || (name.contains("Gold 5") && !name.contains("Gold 5122"));
            if one_unit {
                (
                    16,
                    "AVX-512, 1 x 512-bit FMA (Bronze/Silver/Gold 5xxx)".into(),
                )
            } else {
                (32, "AVX-512, 2 x 512-bit FMA".into())
            }
        }
        other => {
            return Err(format!(
                "no FLOP/cycle entry for microarchitecture '{other}'"
            ));
        }
    };
    // The table assumes the ISA the part advertises; a VM may hide it.
    if dp >= 16 && !(fma && avx2) && !avx512 {
        return Err(format!(
            "{u} without AVX2/FMA exposed (hidden by a hypervisor?): peak unknown"
        ));
    }
    Ok(CoreFlops {
        dp_per_cycle: dp,
        basis: format!("{u}: {basis}"),
    })
}

/// Derives the peak; `measure_clock` is called (with all cores busy) only when
/// cpufreq has no maximum. `Err` says why the peak is unknown.
pub fn theoretical_peak(
    inv: &Inventory,
    measure_clock: impl FnOnce() -> Option<f64>,
) -> Result<Peak, String> {
    let core = core_flops(inv)?;
    let cores = inv
        .cpu
        .physical_cores
        .ok_or_else(|| "physical core count unknown".to_string())?;
    let (clock_hz, clock_source) = if let Some(max) = inv.cpu.max_frequency_hz {
        (max, "cpufreq max")
    } else if let Some(measured) = measure_clock() {
        (measured, "measured all-core")
    } else if let Some(base) = inv.cpu.base_frequency_hz {
        (base, "base")
    } else {
        return Err("CPU clock unknown".into());
    };
    Ok(Peak {
        cores,
        clock_hz,
        clock_source,
        core,
    })
}

/// The all-core clock measured once per process (5 rounds of 40 ms) and
/// reused after, so every benchmark of one run derives the same peak.
pub fn all_core_clock() -> Option<f64> {
    static CLOCK: std::sync::OnceLock<Option<f64>> = std::sync::OnceLock::new();
    *CLOCK.get_or_init(|| measure_all_core_clock(5, Duration::from_millis(40)))
}

/// Measures the clock with one pinned thread per allowed CPU running
/// dependent adds at once, in `rounds` rounds of `each`; returns the highest
/// round's mean over the CPUs. The highest round is taken because the clock a
/// host grants moves with its load, and the peak is a ceiling.
fn measure_all_core_clock(rounds: usize, each: Duration) -> Option<f64> {
    let cpus = crate::affinity::allowed_cpus();
    let mut best: Option<f64> = None;
    for _ in 0..rounds.max(1) {
        let results: Vec<Option<f64>> = std::thread::scope(|s| {
            let handles: Vec<_> = cpus
                .iter()
                .map(|&cpu| {
                    s.spawn(move || {
                        crate::affinity::pin_current_thread(cpu);
                        crate::clock::measure_clock_hz(each)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().ok().flatten())
                .collect()
        });
        let vals: Vec<f64> = results.into_iter().flatten().collect();
        if vals.is_empty() {
            return None;
        }
        let mean = vals.iter().sum::<f64>() / vals.len() as f64;
        best = Some(best.map_or(mean, |b: f64| b.max(mean)));
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inventory::CpuInfo;

    fn inv(uarch: &str, name: &str, flags: &[&str], cores: u32, max_hz: Option<f64>) -> Inventory {
        Inventory {
            cpu: CpuInfo {
                microarchitecture: Some(uarch.into()),
                model_name: Some(name.into()),
                flags: flags.iter().map(|f| f.to_string()).collect(),
                physical_cores: Some(cores),
                max_frequency_hz: max_hz,
                base_frequency_hz: Some(2.0e9),
                ..Default::default()
            },
            ..Default::default()
        }
    }

    #[test]
    fn zen3_avx2_fma_is_16_dp_per_cycle() {
        let i = inv("Zen 3", "AMD EPYC 7763", &["avx2", "fma"], 2, Some(3.0e9));
        let p = theoretical_peak(&i, || panic!("cpufreq max known, no measurement")).unwrap();
        assert_eq!(p.core.dp_per_cycle, 16);
        assert_eq!(p.dp_flops(), 2.0 * 3.0e9 * 16.0);
        assert_eq!(p.sp_flops(), 2.0 * p.dp_flops());
        assert!(
            p.describe(true)
                .contains("2 cores x 3.000 GHz (cpufreq max) x 16 DP")
        );
    }

    #[test]
    fn avx512_two_units_unless_silver() {
        let gold = inv(
            "Sapphire Rapids",
            "Intel Xeon Gold 6430",
            &["avx2", "fma", "avx512f"],
            1,
            None,
        );
        assert_eq!(core_flops(&gold).unwrap().dp_per_cycle, 32);
        let silver = inv(
            "Cascade Lake",
            "Intel Xeon Silver 4216",
            &["avx2", "fma", "avx512f"],
            1,
            None,
        );
        assert_eq!(core_flops(&silver).unwrap().dp_per_cycle, 16);
        let zen4 = inv(
            "Zen 4",
            "AMD EPYC 9654",
            &["avx2", "fma", "avx512f"],
            1,
            None,
        );
        assert_eq!(core_flops(&zen4).unwrap().dp_per_cycle, 16);
    }

    #[test]
    fn clock_falls_back_to_measurement_then_base() {
        let i = inv("Zen 3", "AMD EPYC", &["avx2", "fma"], 2, None);
        let p = theoretical_peak(&i, || Some(3.1e9)).unwrap();
        assert_eq!((p.clock_hz, p.clock_source), (3.1e9, "measured all-core"));
        let p = theoretical_peak(&i, || None).unwrap();
        assert_eq!((p.clock_hz, p.clock_source), (2.0e9, "base"));
    }

    #[test]
    fn unknown_microarchitecture_or_hidden_isa_is_unknown() {
        let mut i = inv("Zen 3", "AMD EPYC", &["avx2", "fma"], 2, None);
        i.cpu.microarchitecture = None;
        assert!(
            theoretical_peak(&i, || None)
                .unwrap_err()
                .contains("not recognised")
        );
        let hidden = inv("Zen 3", "AMD EPYC", &["sse2"], 2, None);
        assert!(core_flops(&hidden).unwrap_err().contains("hidden"));
        let odd = inv("Itanium", "x", &[], 1, None);
        assert!(core_flops(&odd).unwrap_err().contains("Itanium"));
    }
}
