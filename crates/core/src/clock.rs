//! The effective core clock, measured with a chain of dependent one-cycle
//! integer adds: what a core really runs at, turbo included, where the
//! kernel hides cpufreq (virtual machines). The theoretical peak
//! ([`crate::peak`]) and the memory latency sweep's cycle figures use it.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// Measures the clock of the calling thread's core for at least `duration`
/// (x86-64 only; `None` elsewhere): doubles the add count until one round
/// lasts that long, then divides adds by seconds.
pub fn measure_clock_hz(duration: Duration) -> Option<f64> {
    #[cfg(target_arch = "x86_64")]
    {
        let mut iters: u64 = 1 << 16;
        loop {
            let t = Instant::now();
            black_box(dependent_adds(iters));
            let el = t.elapsed();
            if el >= duration || iters >= 1 << 40 {
                return Some((iters * ADDS_PER_ITER) as f64 / el.as_secs_f64());
            }
            iters *= 2;
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = duration;
        None
    }
}

/// Dependent adds per loop iteration of [`dependent_adds`].
#[cfg(target_arch = "x86_64")]
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

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    #[test]
    fn the_add_chain_counts_every_add() {
        assert_eq!(dependent_adds(1000), 1 + 1000 * ADDS_PER_ITER);
    }

    /// On x86-64 the clock must always be measurable, and land between
    /// 100 MHz and 10 GHz; `None` here is a failure, not a skip.
    #[test]
    fn clock_measurement_is_plausible() {
        let hz =
            measure_clock_hz(Duration::from_millis(20)).expect("the clock is measurable on x86-64");
        assert!(hz > 1e8 && hz < 1e10, "{hz}");
    }
}
