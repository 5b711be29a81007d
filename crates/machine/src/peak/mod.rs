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
//! * **Cores**: effective cores where the run measured them
//!   ([`crate::cores`]: CPUs sharing execution units, SMT shown or hidden
//!   or vCPUs floated over fewer host cores, count as one), else physical
//!   cores (SMT siblings share the FMA units).
//!
//! A microarchitecture missing from the table gives an unknown peak, with the
//! reason, rather than a guess.

use std::time::Duration;

pub use crate::clock::Load;
use nodebench_core::Reference;
use nodebench_core::inventory::Inventory;
pub use nodebench_core::inventory::PeakClock;

/// How the FLOP-per-cycle figure of a core was derived.
#[derive(Debug, Clone, PartialEq)]
pub struct CoreFlops {
    /// Double-precision FLOP per cycle per core.
    pub dp_per_cycle: u32,
    /// What it rests on, e.g. `Zen 3: AVX2, 2 x 256-bit FMA`.
    pub basis: String,
    /// FMA ports a scalar instruction can issue to each cycle (a separate
    /// multiply and add port pair counts as one): a scalar kernel's peak is
    /// one lane per port, `2 x scalar_fma_ports` FLOP per cycle.
    pub scalar_fma_ports: u32,
    /// One lane per instruction (a scalar peak): single precision does no
    /// more FLOP per cycle than double.
    pub one_lane: bool,
}

impl CoreFlops {
    /// FLOP per cycle per core in single (`!double`) or double precision.
    pub fn per_cycle(&self, double: bool) -> u32 {
        if double || self.one_lane {
            self.dp_per_cycle
        } else {
            2 * self.dp_per_cycle
        }
    }
}

/// The theoretical peak of this machine.
#[derive(Debug, Clone, PartialEq)]
pub struct Peak {
    /// Cores counted: effective cores where measured, else physical.
    pub cores: u32,
    /// `effective` or `physical`.
    pub cores_source: &'static str,
    /// Clock used, in Hz.
    pub clock_hz: f64,
    /// Where the clock came from (`measured all-core under 512-bit FMA`,
    /// `cpufreq max`, `base`).
    pub clock_source: String,
    /// Per-core FLOP per cycle and its basis.
    pub core: CoreFlops,
    /// Why the clock or the core count is uncertain (their probes were
    /// disturbed in every try), where they are.
    pub uncertain: Option<String>,
    /// Where `cores` is a floating verdict of the effective-cores probe
    /// (all CPUs at once ran fewer times one CPU than their count, with no
    /// fixed sibling sets): the usable CPUs. A host that floats a guest's
    /// CPUs over its cores gives it a share that varies with the host's
    /// other load, so a cell can show more cores than the probe's moment
    /// did ([`Peak::against`]).
    pub floating_cpus: Option<u32>,
}

impl Peak {
    /// Peak double-precision FLOP/s.
    pub fn dp_flops(&self) -> f64 {
        self.cores as f64 * self.clock_hz * self.core.dp_per_cycle as f64
    }

    /// Peak single-precision FLOP/s (twice double on every ISA in the
    /// table: twice the lanes; the same for a scalar peak's one lane).
    pub fn sp_flops(&self) -> f64 {
        self.cores as f64 * self.clock_hz * self.core.per_cycle(false) as f64
    }

    /// The peak of a scalar kernel: one lane per FMA port, `cores x clock
    /// x 2 FLOP x scalar FMA ports`, in single and double precision alike.
    pub fn scalar(&self) -> Peak {
        let ports = self.core.scalar_fma_ports;
        Peak {
            core: CoreFlops {
                dp_per_cycle: 2 * ports,
                basis: format!(
                    "{}; scalar: {ports} FMA port{} x 1 lane x 2 FLOP",
                    self.core.basis,
                    if ports == 1 { "" } else { "s" }
                ),
                scalar_fma_ports: ports,
                one_lane: true,
            },
            ..self.clone()
        }
    }

    /// One line saying how the peak was derived, for references and help.
    pub fn describe(&self, double: bool) -> String {
        let (per_cycle, what) = (
            self.core.per_cycle(double),
            if double { "DP" } else { "SP" },
        );
        format!(
            "theoretical peak: {} {} cores x {:.3} GHz ({}) x {} {} FLOP/cycle [{}]",
            self.cores,
            self.cores_source,
            self.clock_hz / 1e9,
            self.clock_source,
            per_cycle,
            what,
            self.core.basis
        )
    }
}

impl Peak {
    /// Cores a cell of `threads` threads can use: `min(threads, cores)`.
    pub fn cores_for(&self, threads: usize) -> u32 {
        (threads.max(1) as u64).min(u64::from(self.cores)) as u32
    }

    /// Peak FLOP/s of one core.
    pub fn per_core(&self, double: bool) -> f64 {
        let all = if double {
            self.dp_flops()
        } else {
            self.sp_flops()
        };
        all / f64::from(self.cores.max(1))
    }

    /// The reference of a cell of `threads` threads: the peak of the cores
    /// they can use (`min(threads, cores)` x the per-core peak). Its
    /// `percent_of_reference` is the one "% of peak" every view prints.
    pub fn cell_reference(&self, threads: usize, double: bool) -> Reference {
        let k = self.cores_for(threads);
        let (per_cycle, what) = (
            self.core.per_cycle(double),
            if double { "DP" } else { "SP" },
        );
        Reference {
            name: format!(
                "theoretical peak of the {k} core{} {threads} thread{} can use (of {} {} cores): {k} x {:.3} GHz x {per_cycle} {what} FLOP/cycle{}",
                if k == 1 { "" } else { "s" },
                if threads == 1 { "" } else { "s" },
                self.cores,
                self.cores_source,
                self.clock_hz / 1e9,
                if self.uncertain.is_some() {
                    " (uncertain)"
                } else {
                    ""
                }
            ),
            value: f64::from(k) * self.per_core(double),
        }
    }

    /// A warning when `rate` (FLOP/s of `what`, run on `threads` threads)
    /// is above the peak of the cores those threads can use
    /// ([`Peak::cell_reference`], the same figure the table shows): the
    /// clock it implies against the clock the peak uses, so a figure over
    /// 100 % is never shown silently. `None` at or under the peak.
    pub fn above_peak(
        &self,
        what: &str,
        rate: f64,
        threads: usize,
        double: bool,
    ) -> Option<String> {
        let peak = self.cell_reference(threads, double).value;
        if !(peak > 0.0 && rate > peak) {
            return None;
        }
        let k = self.cores_for(threads);
        let implied = self.clock_hz * rate / peak;
        Some(format!(
            "{what}: {:.2} GFLOPS is {:.1} % of the peak of the {k} core{} it can use; at {} FLOP/cycle a core it implies a clock of {:.3} GHz, above the {:.3} GHz ({}) the peak uses",
            rate / 1e9,
            100.0 * rate / peak,
            if k == 1 { "" } else { "s" },
            self.core.per_cycle(double),
            implied / 1e9,
            self.clock_hz / 1e9,
            self.clock_source
        ))
    }

    /// A warning that the peak is uncertain, where it is.
    pub fn uncertain_warning(&self) -> Option<String> {
        self.uncertain
            .as_ref()
            .map(|u| format!("peak uncertain (not lowered): {u}"))
    }
}

fn has(inv: &Inventory, flag: &str) -> bool {
    inv.cpu.flags.iter().any(|f| f == flag)
}

/// FLOP per cycle per core for the recognised microarchitecture, or why it is unknown.
pub fn core_flops(inv: &Inventory) -> Result<CoreFlops, crate::Error> {
    if let Some(e) = &inv.cpu.emulation {
        return Err(crate::Error::Unknown(format!(
            "run under emulation ({e}): the host CPU's peak is not this binary's"
        )));
    }
    let uarch = inv.cpu.microarchitecture.clone().ok_or_else(|| {
        crate::Error::Unknown(
            "microarchitecture not recognised, so the FMA units per core are unknown".to_string(),
        )
    })?;
    let name = inv.cpu.model_name.clone().unwrap_or_default();
    let avx512 = has(inv, "avx512f");
    let fma = has(inv, "fma");
    let avx2 = has(inv, "avx2");
    let u = uarch.as_str();
    if let Some(arm) = arm_core_flops(inv, u) {
        return arm.map_err(crate::Error::Unknown);
    }
    // Scalar FMA ports: two on every x86 core in the table (Intel's ports
    // 0 and 1, AMD's two FMA pipes); Sandy and Ivy Bridge have one multiply
    // and one add port, a pair that does what one FMA port does.
    let scalar_fma_ports = if matches!(u, "Sandy Bridge" | "Ivy Bridge") {
        1
    } else {
        2
    };
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
            return Err(crate::Error::Unknown(format!(
                "no FLOP/cycle entry for microarchitecture '{other}'"
            )));
        }
    };
    // The table assumes the ISA the part advertises; a VM may hide it.
    if dp >= 16 && !(fma && avx2) && !avx512 {
        return Err(crate::Error::Unknown(format!(
            "{u} without AVX2/FMA exposed (hidden by a hypervisor?): peak unknown"
        )));
    }
    Ok(CoreFlops {
        dp_per_cycle: dp,
        basis: format!("{u}: {basis}"),
        scalar_fma_ports,
        one_lane: false,
    })
}

/// FLOP per cycle of the Arm cores in the table, from Arm's Software
/// Optimization Guides (FP/ASIMD pipes and their width) and Fujitsu's
/// A64FX microarchitecture manual; `None` for a core not from Arm's table
/// (the x86 table decides). Each pipe does one fused multiply-add per
/// cycle: 128-bit = 2 doubles x 2 FLOP.
fn arm_core_flops(inv: &Inventory, u: &str) -> Option<Result<CoreFlops, String>> {
    let asimd = has(inv, "asimd");
    let sve = has(inv, "sve");
    // The last figure: FP pipes a scalar FMA can issue to.
    let (dp, basis, needs_sve, ports): (u32, &str, bool, u32) = match u {
        "Neoverse N1" => (8, "NEON, 2 x 128-bit FMA", false, 2),
        "Neoverse N2" => (8, "SVE2/NEON, 2 x 128-bit FMA", false, 2),
        "Neoverse V1" => (16, "SVE 2 x 256-bit or NEON 4 x 128-bit FMA", false, 4),
        "Neoverse V2" => (16, "SVE2/NEON, 4 x 128-bit FMA", false, 4),
        "A64FX" => (32, "SVE, 2 x 512-bit FMA", true, 2),
        _ => return None,
    };
    let hidden = if needs_sve { !sve } else { !asimd };
    if hidden {
        return Some(Err(format!(
            "{u} without {} exposed (hidden by a hypervisor?): peak unknown",
            if needs_sve { "SVE" } else { "ASIMD" }
        )));
    }
    Some(Ok(CoreFlops {
        dp_per_cycle: dp,
        basis: format!("{u}: {basis}"),
        scalar_fma_ports: ports,
        one_lane: false,
    }))
}

/// The instructions a peak of `core` is made of, whose clock it is worth:
/// 512-bit FMAs for an AVX-512 peak, 256-bit for AVX2/FMA, else scalar
/// (Arm cores: the clock is measured under scalar adds).
pub fn peak_load(inv: &Inventory, core: &CoreFlops) -> Load {
    if has(inv, "avx512f") && core.basis.contains("AVX-512") {
        Load::Fma512
    } else if has(inv, "fma") || has(inv, "avx2") {
        Load::Fma256
    } else {
        Load::Scalar
    }
}

/// Derives the peak. The clock is, in order: the all-core clock under the
/// peak's own load recorded in the inventory ([`PeakClock`], measured by
/// the run), the one `measure_clock` returns for that load (called with
/// all cores idle), cpufreq's maximum, the base frequency. `Err` says why
/// the peak is unknown.
pub fn theoretical_peak(
    inv: &Inventory,
    measure_clock: impl FnOnce(Load) -> Option<f64>,
) -> Result<Peak, crate::Error> {
    let core = core_flops(inv)?;
    let load = peak_load(inv, &core);
    // Measured effective cores where the run probed them: CPUs that share
    // execution units (SMT shown or hidden, vCPUs floated over fewer host
    // cores) are one core's worth of FMA throughput.
    let (cores, cores_source) = match &inv.cpu.effective_cores {
        Some(e) if e.count > 0 => (e.count, "effective"),
        _ => (
            inv.cpu
                .physical_cores
                .ok_or_else(|| crate::Error::Unknown("physical core count unknown".to_string()))?,
            "physical",
        ),
    };
    let measured = format!("measured all-core under {}", load.as_str());
    let recorded = inv
        .cpu
        .peak_clock
        .as_ref()
        .filter(|c| c.load == load.as_str() && c.hz > 0.0)
        .map(|c| c.hz);
    let (clock_hz, mut clock_source) = if let Some(hz) = recorded {
        (hz, measured)
    } else if let Some(hz) = measure_clock(load) {
        (hz, measured)
    } else if let Some(max) = inv.cpu.max_frequency_hz {
        (max, "cpufreq max".to_string())
    } else if let Some(base) = inv.cpu.base_frequency_hz {
        (base, "base".to_string())
    } else {
        return Err(crate::Error::Unknown("CPU clock unknown".into()));
    };
    if let Some(max) = inv.cpu.max_frequency_hz
        && clock_source.starts_with("measured")
    {
        clock_source.push_str(&format!("; cpufreq max {:.3} GHz", max / 1e9));
    }
    let uncertain: Vec<String> = [
        inv.cpu
            .peak_clock
            .as_ref()
            .filter(|_| recorded.is_some())
            .and_then(|c| c.uncertain.as_ref())
            .map(|u| format!("clock: {u}")),
        inv.cpu
            .effective_cores
            .as_ref()
            .filter(|_| cores_source == "effective")
            .and_then(|e| e.uncertain.as_ref())
            .map(|u| format!("effective cores: {u}")),
    ]
    .into_iter()
    .flatten()
    .collect();
    let floating_cpus = inv
        .cpu
        .effective_cores
        .as_ref()
        .filter(|e| cores_source == "effective" && e.siblings.is_empty() && e.count < e.cpus)
        .map(|e| e.cpus);
    Ok(Peak {
        cores,
        cores_source,
        clock_hz,
        clock_source,
        core,
        uncertain: (!uncertain.is_empty()).then(|| uncertain.join("; ")),
        floating_cpus,
    })
}

/// Rounds and length of one all-core clock measurement.
const CLOCK_ROUNDS: usize = 5;
/// Length of one round of [`CLOCK_ROUNDS`].
const CLOCK_ROUND: Duration = Duration::from_millis(40);
/// Rounds run past [`CLOCK_ROUNDS`] in place of disturbed ones.
const CLOCK_RETRIES: usize = 5;
/// A probe thread on its CPU for under this share of a round's wall time
/// (schedstat's running time: another process held the CPU, or the
/// hypervisor did): the round is disturbed.
pub const MIN_ON_CPU: f64 = 0.9;

/// The all-core clock as the probe found it.
#[derive(Debug, Clone, PartialEq)]
pub struct ClockProbe {
    /// The clock, Hz.
    pub hz: f64,
    /// Why it is uncertain (every round disturbed), in words.
    pub uncertain: Option<String>,
}

/// One round over every CPU: the mean clock over wall time, the mean over
/// the threads' own CPU time, and the lowest thread's share of the wall
/// time on its CPU.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RoundSummary {
    /// Mean of adds over wall seconds.
    pub hz: f64,
    /// Mean of adds over each thread's own seconds on a CPU, where read.
    pub on_cpu_hz: Option<f64>,
    /// The lowest thread's time on its CPU over the wall time, where read.
    pub min_on_cpu: Option<f64>,
}

impl RoundSummary {
    /// Sums up one round's readings (`None` when there are none).
    pub fn of(vals: &[crate::clock::ClockRound]) -> Option<RoundSummary> {
        if vals.is_empty() {
            return None;
        }
        let n = vals.len() as f64;
        let on_cpu: Option<Vec<f64>> = vals.iter().map(|v| v.on_cpu_hz).collect();
        Some(RoundSummary {
            hz: vals.iter().map(|v| v.hz).sum::<f64>() / n,
            on_cpu_hz: on_cpu.map(|v| v.iter().sum::<f64>() / n),
            min_on_cpu: vals
                .iter()
                .filter_map(|v| v.on_cpu_share)
                .min_by(f64::total_cmp),
        })
    }

    /// Whether a thread was off its CPU for more than 1 - [`MIN_ON_CPU`]
    /// of the round.
    pub fn disturbed(&self) -> bool {
        self.min_on_cpu.is_some_and(|s| s < MIN_ON_CPU)
    }
}

/// The clock from the rounds run: the highest undisturbed round's mean
/// (the peak is a ceiling, and noise only lowers a round); where every
/// round was disturbed, the highest round's mean over the threads' own CPU
/// time, marked uncertain: never the lowered wall-time figure.
pub fn choose_clock(rounds: &[RoundSummary]) -> Option<ClockProbe> {
    let best = |v: &mut dyn Iterator<Item = f64>| {
        v.fold(None, |b: Option<f64>, x| Some(b.map_or(x, |b| b.max(x))))
    };
    if let Some(hz) = best(&mut rounds.iter().filter(|r| !r.disturbed()).map(|r| r.hz)) {
        return Some(ClockProbe {
            hz,
            uncertain: None,
        });
    }
    let wall = best(&mut rounds.iter().map(|r| r.hz))?;
    let on_cpu = best(&mut rounds.iter().filter_map(|r| r.on_cpu_hz));
    let shares: Vec<f64> = rounds.iter().filter_map(|r| r.min_on_cpu).collect();
    let lo = shares.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = shares.iter().copied().fold(0.0, f64::max);
    Some(ClockProbe {
        hz: on_cpu.map_or(wall, |c| c.max(wall)),
        uncertain: Some(format!(
            "all {} rounds disturbed: a probe thread was on its CPU only {:.0}-{:.0} % of the wall time (another process, or steal); the clock is the adds over the threads' own CPU time ({:.3} GHz against {:.3} GHz over wall time), not lowered",
            rounds.len(),
            100.0 * lo,
            100.0 * hi,
            on_cpu.unwrap_or(wall) / 1e9,
            wall / 1e9
        )),
    })
}

/// The all-core clock under `load`, measured once per process and reused
/// after, so every benchmark of one run derives the same peak.
pub fn all_core_clock(load: Load) -> Option<f64> {
    all_core_probe(load).map(|p| p.hz)
}

/// [`all_core_clock`] with whether the probe was disturbed.
pub fn all_core_probe(load: Load) -> Option<ClockProbe> {
    static CLOCKS: [std::sync::OnceLock<Option<ClockProbe>>; 3] = [
        std::sync::OnceLock::new(),
        std::sync::OnceLock::new(),
        std::sync::OnceLock::new(),
    ];
    let slot = match load {
        Load::Scalar => 0,
        Load::Fma256 => 1,
        Load::Fma512 => 2,
    };
    CLOCKS[slot]
        .get_or_init(|| measure_all_core_clock(load, CLOCK_ROUNDS, CLOCK_ROUND))
        .clone()
}

/// The peak clock of this machine's peak as the inventory records it:
/// measured under the peak's load with every usable CPU busy, with its
/// method. `None` where the peak or the clock is unknown.
pub fn peak_clock(inv: &Inventory) -> Option<PeakClock> {
    let core = core_flops(inv).ok()?;
    let load = peak_load(inv, &core);
    let probe = all_core_probe(load)?;
    Some(PeakClock {
        hz: probe.hz,
        load: load.as_str().to_string(),
        method: format!(
            "every usable CPU at once running 16 dependent adds{} per loop, {CLOCK_ROUNDS} rounds of {} ms (a round in which a thread was on its CPU under {:.0} % of the time run again, up to {CLOCK_RETRIES} times); the highest round's mean",
            match load {
                Load::Scalar => String::new(),
                _ => format!(" beside 16 {}", load.as_str()),
            },
            CLOCK_ROUND.as_millis(),
            100.0 * MIN_ON_CPU
        ),
        uncertain: probe.uncertain,
    })
}

/// Measures the clock with one pinned thread per allowed CPU running
/// `load` at once, in `rounds` undisturbed rounds of `each` (a disturbed
/// one is run again, up to [`CLOCK_RETRIES`] times); [`choose_clock`]
/// decides. The highest round is taken because the clock a host grants
/// moves with its load, and the peak is a ceiling.
fn measure_all_core_clock(load: Load, rounds: usize, each: Duration) -> Option<ClockProbe> {
    let cpus = nodebench_core::affinity::allowed_cpus();
    let mut done: Vec<RoundSummary> = Vec::new();
    while done.iter().filter(|r| !r.disturbed()).count() < rounds.max(1)
        && done.len() < rounds.max(1) + CLOCK_RETRIES
    {
        let results: Vec<Option<crate::clock::ClockRound>> = std::thread::scope(|s| {
            let handles: Vec<_> = cpus
                .iter()
                .map(|&cpu| {
                    s.spawn(move || {
                        nodebench_core::affinity::pin_current_thread(cpu);
                        crate::clock::measure_clock_round(load, each)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().ok().flatten())
                .collect()
        });
        let vals: Vec<crate::clock::ClockRound> = results.into_iter().flatten().collect();
        done.push(RoundSummary::of(&vals)?);
    }
    choose_clock(&done)
}

mod evidence;
pub use evidence::{MORE_CORES_SHOWN, set_result_against};

#[cfg(test)]
mod tests;
