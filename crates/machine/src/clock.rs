//! The effective core clock, measured with a chain of dependent one-cycle
//! integer adds: what a core really runs at, turbo included, where the
//! kernel hides cpufreq (virtual machines). The theoretical peak
//! ([`crate::peak`]) and the memory latency sweep's cycle figures use it.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// Measures the clock of the calling thread's core for at least `duration`
/// (x86-64 and aarch64; `None` elsewhere): doubles the add count until one
/// round lasts that long, then divides adds by seconds.
pub fn measure_clock_hz(duration: Duration) -> Option<f64> {
    measure_clock_under(Load::Scalar, duration)
}

/// Dependent adds per loop iteration of [`dependent_adds`].
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
const ADDS_PER_ITER: u64 = 16;

/// `iters` x 16 dependent 1-cycle register-register adds. The addend is a
/// register, not an immediate: cores from Intel's Golden Cove on fold chains
/// of `add reg, imm` at rename, and such a chain reads several times the
/// real clock (22 GHz on a Sapphire Rapids guest).
#[cfg(target_arch = "x86_64")]
fn dependent_adds(iters: u64) -> u64 {
    use std::arch::asm;
    let mut x: u64 = black_box(1);
    let one: u64 = black_box(1);
    let n = iters.max(1);
    // SAFETY: register-only arithmetic and a counted loop; no memory access.
    unsafe {
        asm!(
            "2:",
            "add {x}, {one}", "add {x}, {one}", "add {x}, {one}", "add {x}, {one}",
            "add {x}, {one}", "add {x}, {one}", "add {x}, {one}", "add {x}, {one}",
            "add {x}, {one}", "add {x}, {one}", "add {x}, {one}", "add {x}, {one}",
            "add {x}, {one}", "add {x}, {one}", "add {x}, {one}", "add {x}, {one}",
            "dec {n}",
            "jnz 2b",
            x = inout(reg) x,
            one = in(reg) one,
            n = inout(reg) n => _,
            options(nomem, nostack),
        );
    }
    x
}

/// `iters` x 16 dependent 1-cycle register-register adds (`add x, x, y`),
/// as on x86-64: every Arm core in the peak table (Neoverse N1, N2, V1, V2,
/// A64FX) runs a dependent integer add in one cycle.
#[cfg(target_arch = "aarch64")]
fn dependent_adds(iters: u64) -> u64 {
    use std::arch::asm;
    let mut x: u64 = black_box(1);
    let one: u64 = black_box(1);
    let n = iters.max(1);
    // SAFETY: register-only arithmetic and a counted loop; no memory access.
    unsafe {
        asm!(
            "2:",
            "add {x}, {x}, {one}", "add {x}, {x}, {one}", "add {x}, {x}, {one}", "add {x}, {x}, {one}",
            "add {x}, {x}, {one}", "add {x}, {x}, {one}", "add {x}, {x}, {one}", "add {x}, {x}, {one}",
            "add {x}, {x}, {one}", "add {x}, {x}, {one}", "add {x}, {x}, {one}", "add {x}, {x}, {one}",
            "add {x}, {x}, {one}", "add {x}, {x}, {one}", "add {x}, {x}, {one}", "add {x}, {x}, {one}",
            "subs {n}, {n}, #1",
            "b.ne 2b",
            x = inout(reg) x,
            one = in(reg) one,
            n = inout(reg) n => _,
            options(nomem, nostack),
        );
    }
    x
}

/// What a core runs while its clock is measured: the clock a core holds
/// depends on it (wide vector FMAs lower it on many x86 parts), and a peak
/// is worth only the clock of its own instructions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Load {
    /// Scalar integer adds only.
    Scalar,
    /// 256-bit FMAs beside the adds (an AVX2 peak).
    Fma256,
    /// 512-bit FMAs beside the adds (an AVX-512 peak).
    Fma512,
}

impl Load {
    /// How the load is named in a peak's description and the inventory.
    pub fn as_str(self) -> &'static str {
        match self {
            Load::Scalar => "scalar adds",
            Load::Fma256 => "256-bit FMA",
            Load::Fma512 => "512-bit FMA",
        }
    }
}

/// Measures the calling thread's clock for at least `duration` while it
/// runs `load`: 16 dependent one-cycle adds per iteration set the pace
/// (the clock is adds over seconds), and with [`Load::Fma256`] or
/// [`Load::Fma512`] 16 FMAs of that width run beside them
/// ([`crate::fma`]), so the core holds the clock it grants such code.
/// `None` where the CPU lacks the instructions; on aarch64 only
/// [`Load::Scalar`] is measured; elsewhere nothing.
pub fn measure_clock_under(load: Load, duration: Duration) -> Option<f64> {
    measure_clock_round(load, duration).map(|r| r.hz)
}

/// One clock measurement with what the thread's own CPU time says of it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClockRound {
    /// Adds over wall seconds.
    pub hz: f64,
    /// Adds over the thread's own time on a CPU (its CPU-time clock), where
    /// readable: not lowered by time another process or the hypervisor
    /// took.
    pub on_cpu_hz: Option<f64>,
    /// The thread's time on a CPU over the wall time, where readable.
    pub on_cpu_share: Option<f64>,
}

/// [`measure_clock_under`], with the calling thread's CPU time
/// (`cputime::thread_cpu_now`) read around the measuring round.
pub fn measure_clock_round(load: Load, duration: Duration) -> Option<ClockRound> {
    #[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
    {
        #[cfg(target_arch = "aarch64")]
        let (run, adds): (fn(u64) -> u64, u64) = match load {
            Load::Scalar => (dependent_adds, ADDS_PER_ITER),
            _ => return None,
        };
        #[cfg(target_arch = "x86_64")]
        let run: fn(u64) -> u64 = match load {
            Load::Scalar => dependent_adds,
            Load::Fma256 if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") => {
                // SAFETY: the features it needs were detected just above.
                |n| unsafe { crate::fma::adds_with_fma256(n) }
            }
            Load::Fma512 if is_x86_feature_detected!("avx512f") => {
                // SAFETY: the feature it needs was detected just above.
                |n| unsafe { crate::fma::adds_with_fma512(n) }
            }
            _ => return None,
        };
        #[cfg(target_arch = "x86_64")]
        let adds = match load {
            Load::Scalar => ADDS_PER_ITER,
            _ => crate::fma::ADDS_WITH_FMA,
        };
        let mut iters: u64 = 1 << 14;
        loop {
            let before = nodebench_core::cputime::thread_cpu_now();
            let t = Instant::now();
            black_box(run(iters));
            let el = t.elapsed();
            if el >= duration || iters >= 1 << 40 {
                let after = nodebench_core::cputime::thread_cpu_now();
                let total = (iters * adds) as f64;
                let running = Some(after.saturating_sub(before).as_secs_f64()).filter(|r| *r > 0.0);
                return Some(ClockRound {
                    hz: total / el.as_secs_f64(),
                    on_cpu_hz: running.map(|r| total / r),
                    on_cpu_share: running.map(|r| r / el.as_secs_f64()),
                });
            }
            iters *= 2;
        }
    }
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    {
        let _ = (load, duration);
        None
    }
}

#[cfg(all(test, any(target_arch = "x86_64", target_arch = "aarch64")))]
mod tests {
    use super::*;

    #[test]
    fn the_add_chain_counts_every_add() {
        assert_eq!(dependent_adds(1000), 1 + 1000 * ADDS_PER_ITER);
    }

    /// On x86-64 and aarch64 the clock must always be measurable, and land
    /// between 100 MHz and 10 GHz (qemu-user's translated adds land there
    /// too); `None` here is a failure, not a skip.
    #[test]
    fn the_clock_under_each_load_is_plausible() {
        for load in [Load::Scalar, Load::Fma256, Load::Fma512] {
            if let Some(hz) = measure_clock_under(load, Duration::from_millis(20)) {
                assert!(hz > 1e8 && hz < 1e10, "{load:?}: {hz}");
            }
        }
        assert!(measure_clock_under(Load::Scalar, Duration::from_millis(5)).is_some());
    }

    #[test]
    fn clock_measurement_is_plausible() {
        let hz = measure_clock_hz(Duration::from_millis(20))
            .expect("the clock is measurable on x86-64 and aarch64");
        assert!(hz > 1e8 && hz < 1e10, "{hz}");
    }
}
