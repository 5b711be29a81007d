//! What `cpu ops` runs: the kernels, the scaling modes and the options,
//! with their defaults and the one check of them.

use std::time::Duration;

use nodebench_core::affinity;
use nodebench_core::bench::BenchError;
use nodebench_core::config::{Choice, Config};
use nodebench_core::names::cpu::{kernel, scaling};
use nodebench_core::units::DURATION_FORMS;

nodebench_core::choice! {
    /// Which operation-rate kernel to run.
    #[derive(Hash)]
    pub enum Kernel {
        /// 64-bit integer add + xor, one element per instruction.
        IntScalar => kernel::INT_SCALAR,
        /// 32-bit integer add + xor over SIMD lanes.
        IntVector => kernel::INT_VECTOR,
        /// Single-precision multiply + add, one element per instruction.
        F32Scalar => kernel::F32_SCALAR,
        /// Single-precision fused multiply-add over SIMD lanes.
        F32Vector => kernel::F32_VECTOR,
        /// Double-precision multiply + add, one element per instruction.
        F64Scalar => kernel::F64_SCALAR,
        /// Double-precision fused multiply-add over SIMD lanes.
        F64Vector => kernel::F64_VECTOR,
    }
}

impl Kernel {
    /// True for floating-point kernels (rates in flop/s, set against the peak).
    pub fn is_float(self) -> bool {
        !matches!(self, Kernel::IntScalar | Kernel::IntVector)
    }

    /// True for the kernels that work on one element per instruction: their
    /// peak is one lane per FMA port ([`nodebench_machine::peak::Peak::scalar`]).
    pub fn is_scalar(self) -> bool {
        matches!(
            self,
            Kernel::IntScalar | Kernel::F32Scalar | Kernel::F64Scalar
        )
    }

    /// True for the double-precision kernels.
    pub fn is_double(self) -> bool {
        matches!(self, Kernel::F64Scalar | Kernel::F64Vector)
    }
}

nodebench_core::choice! {
    /// How the work grows with the thread count.
    pub enum Scaling {
        /// Fixed total work, split across the threads (speedup = time ratio).
        Strong => scaling::STRONG,
        /// Fixed work per thread (scaled speedup = rate ratio).
        Weak => scaling::WEAK,
    }
}

/// Everything `cpu ops` runs with.
#[derive(Debug, Clone)]
pub struct OpsConfig {
    /// Thread counts to measure, in order.
    pub threads: Vec<usize>,
    /// Target time of one single-thread measurement.
    pub duration: Duration,
    /// Reported repeats per cell.
    pub repeats: usize,
    /// Unreported warm-up runs per cell.
    pub warmup: usize,
    /// Kernels to run.
    pub kernels: Vec<Kernel>,
    /// Scaling modes to run.
    pub scaling: Vec<Scaling>,
    /// Pin worker `i` to allowed CPU `i mod n`.
    pub pin: bool,
}

/// The most unreported warm-up runs per cell.
pub const MAX_WARMUP: usize = 100;

impl OpsConfig {
    /// The default thread list: 1, 2, 4, 8 and the logical CPU count.
    pub fn default_threads(logical_cpus: usize) -> Vec<usize> {
        let mut t = vec![1, 2, 4, 8, logical_cpus.max(1)];
        t.sort_unstable();
        t.dedup();
        t
    }
}

impl Default for OpsConfig {
    /// 1, 2, 4, 8 and the CPU count; 200 ms per single-thread measurement;
    /// median of 3 repeats after 1 warm-up; every kernel; strong then weak
    /// scaling; threads pinned.
    fn default() -> Self {
        OpsConfig {
            threads: OpsConfig::default_threads(affinity::allowed_cpus().len()),
            duration: Duration::from_millis(200),
            repeats: 3,
            warmup: 1,
            kernels: Kernel::ALL.to_vec(),
            scaling: Scaling::ALL.to_vec(),
            pin: true,
        }
    }
}

impl Config for OpsConfig {
    fn validate(&self) -> Result<(), BenchError> {
        if self.threads.is_empty() || self.threads.contains(&0) {
            return Err(BenchError::Invalid(
                "--threads: expected a list of positive thread counts like 1,2,4,8".into(),
            ));
        }
        if self.duration.is_zero() {
            return Err(BenchError::Invalid(format!(
                "--duration: expected {DURATION_FORMS}"
            )));
        }
        if self.repeats == 0 {
            return Err(BenchError::Invalid(
                "--repeats: expected a whole number of at least 1".into(),
            ));
        }
        if self.warmup > MAX_WARMUP {
            return Err(BenchError::Invalid(format!(
                "--warmup: expected a whole number from 0 to {MAX_WARMUP}, got {}",
                self.warmup
            )));
        }
        if self.kernels.is_empty() || self.scaling.is_empty() {
            return Err(BenchError::Invalid(
                "--kernels/--scaling: nothing to run".into(),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_and_scaling_names_round_trip() {
        let names: Vec<&str> = Kernel::ALL.iter().map(|k| k.as_str()).collect();
        assert_eq!(
            names,
            [
                "int.scalar",
                "int.vector",
                "f32.scalar",
                "f32.vector",
                "f64.scalar",
                "f64.vector"
            ]
        );
        for &k in Kernel::ALL {
            assert_eq!(k.to_string().parse::<Kernel>(), Ok(k));
        }
        assert_eq!("weak".parse::<Scaling>(), Ok(Scaling::Weak));
        assert_eq!(Scaling::Strong.to_string(), "strong");
        assert_eq!(
            "f128.vector".parse::<Kernel>().unwrap_err().to_string(),
            "unknown value 'f128.vector' (accepted: int.scalar, int.vector, f32.scalar, f32.vector, f64.scalar, f64.vector)"
        );
    }

    #[test]
    fn default_threads_add_the_core_count() {
        assert_eq!(OpsConfig::default_threads(2), vec![1, 2, 4, 8]);
        assert_eq!(OpsConfig::default_threads(12), vec![1, 2, 4, 8, 12]);
    }

    #[test]
    fn the_defaults_are_valid() {
        let c = OpsConfig::default();
        assert_eq!(c.validate().map_err(|e| e.to_string()), Ok(()));
        assert_eq!(c.kernels.len(), 6);
        assert_eq!(c.scaling, [Scaling::Strong, Scaling::Weak]);
        assert_eq!((c.repeats, c.warmup), (3, 1));
        assert_eq!(c.duration, Duration::from_millis(200));
    }

    /// A change that spoils one field of a valid config.
    type Spoil = fn(&mut OpsConfig);

    #[test]
    fn each_bad_field_is_named_in_one_line() {
        let cases: [(Spoil, &str); 7] = [
            (
                |c| c.threads = vec![],
                "--threads: expected a list of positive thread counts like 1,2,4,8",
            ),
            (
                |c| c.threads = vec![1, 0],
                "--threads: expected a list of positive thread counts like 1,2,4,8",
            ),
            (
                |c| c.duration = Duration::ZERO,
                "--duration: expected a positive duration like 500ms, 10s, 5m, 72h (units ns, us, ms, s, m, h, d)",
            ),
            (
                |c| c.repeats = 0,
                "--repeats: expected a whole number of at least 1",
            ),
            (
                |c| c.warmup = 101,
                "--warmup: expected a whole number from 0 to 100, got 101",
            ),
            (|c| c.kernels.clear(), "--kernels/--scaling: nothing to run"),
            (|c| c.scaling.clear(), "--kernels/--scaling: nothing to run"),
        ];
        for (spoil, expected) in cases {
            let mut c = OpsConfig::default();
            spoil(&mut c);
            let err = c.validate().unwrap_err().to_string();
            assert_eq!(err, expected);
        }
    }
}
