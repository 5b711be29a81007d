//! The quick suite run by `nodebench run`: short, representative runs of each
//! benchmark area. Later areas add their entries here.

use std::time::Duration;

use nodebench_core::bench::Benchmark;
use nodebench_cpu::kernels::Kernel;
use nodebench_cpu::ops::{CpuOps, OpsConfig, Scaling};

/// The benchmarks of the quick suite, in run order.
pub fn quick() -> Vec<Box<dyn Benchmark>> {
    let ops = CpuOps {
        config: OpsConfig {
            duration: Duration::from_millis(100),
            repeats: 3,
            warmup: 1,
            kernels: Kernel::ALL.to_vec(),
            scaling: vec![Scaling::Strong],
            ..OpsConfig::default()
        },
    };
    vec![Box::new(ops)]
}
