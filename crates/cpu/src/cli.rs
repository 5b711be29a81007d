//! The flags of `cpu ops`, `cpu fft` (HPC Challenge's FFT) and `cpu
//! switch`, and the one conversion of each into its benchmark's config.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use crate::config::{Kernel, OpsConfig, Scaling};
use crate::fft::{FftConfig, FftMode};
use crate::switch::{CpuSwitch, SwitchConfig};
use clap::Args;
use nodebench_core::bench::{BenchError, Benchmark};
use nodebench_core::cli::{BenchArgs, Runnable};
use nodebench_core::config::{Choice, UnknownChoice};
use nodebench_core::names::cpu;

use nodebench_core::cli::parse::{
    CpuList, ThreadList, duration_text, or_default, parse_count, parse_cpus, parse_duration,
    parse_threads,
};

/// HPC Challenge's FFT: a 1-D complex double-precision transform
/// (rustfft), single (one core) and star (every core its own), GFLOPS
/// as HPCC counts them (5 N log2 N / t), checked by the inverse
/// transform and HPCC's scaled residual (fails above 16).
#[derive(Debug, Args)]
pub struct FftArgs {
    /// The share of each core's memory (MemTotal over the cores) the four
    /// vectors of N complex doubles may take; N is the largest power of two
    /// within it.
    #[arg(long, value_name = "F", default_value_t = FftConfig::default().memory_fraction)]
    pub memory_fraction: f64,
    /// The transform's length instead (as HPCC prints FFT_N: 1048576 = 2^20); any
    /// length >= 2 (HPCC takes only 2^a 3^b 5^c).
    #[arg(long, value_name = "N", value_parser = parse_count)]
    pub size: Option<u64>,
    /// Modes, in order: single, star.
    #[arg(long, value_name = "LIST", value_delimiter = ',', default_values_t = FftConfig::default().modes)]
    pub modes: Vec<FftMode>,
    /// Threads of star. Default: every allowed CPU.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Timed forward transforms; the best counts.
    #[arg(long, value_name = "N", default_value_t = FftConfig::default().ntimes as u64, value_parser = parse_count)]
    pub ntimes: u64,
}

impl From<&FftArgs> for FftConfig {
    fn from(a: &FftArgs) -> FftConfig {
        FftConfig {
            memory_fraction: a.memory_fraction,
            size: a.size.map(|n| n as usize),
            modes: a.modes.clone(),
            threads: a.threads,
            ntimes: a.ntimes as usize,
        }
    }
}

/// Integer and floating-point operation rates (GIOPS, GFLOPS single and
/// double precision) per thread count, scalar and vectorised FMA kernels,
/// strong and weak scaling, as % of the theoretical peak
/// (cores x clock x FLOP/cycle of the ISA).
#[derive(Debug, Args)]
pub struct OpsArgs {
    /// Thread counts: 1,2,4,8 or 1..8 or 1..16:x2 or all. Default: 1,2,4,8 and the CPU count.
    #[arg(long, value_name = "LIST", value_parser = parse_threads)]
    pub threads: Option<ThreadList>,
    /// Target time of one single-thread measurement (500ms, 2s).
    #[arg(long, value_name = "DURATION", default_value = duration_text(OpsConfig::default().duration), value_parser = parse_duration, allow_hyphen_values = true)]
    pub duration: Duration,
    /// Reported repeats per cell; the figure is their median.
    #[arg(long, value_name = "N", default_value_t = OpsConfig::default().repeats as u64, value_parser = parse_count)]
    pub repeats: u64,
    /// Unreported warm-up runs per cell.
    #[arg(long, value_name = "N", default_value_t = OpsConfig::default().warmup as u64)]
    pub warmup: u64,
    /// Kernels to run, comma-separated: int.scalar,int.vector,f32.scalar,f32.vector,f64.scalar,f64.vector (default all).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub kernels: Vec<Kernel>,
    /// Strong (fixed total work), weak (fixed work per thread) or both.
    #[arg(long, value_name = "SCALING", default_value_t = ScalingModes(OpsConfig::default().scaling))]
    pub scaling: ScalingModes,
    /// Do not pin threads to CPUs.
    #[arg(long)]
    pub no_pin: bool,
}

/// A `--scaling` value: one [`Scaling`] by name, or `both` (strong first).
#[derive(Debug, Clone, PartialEq)]
pub struct ScalingModes(pub Vec<Scaling>);

/// The `--scaling` name of every mode at once.
const BOTH: &str = "both";

impl FromStr for ScalingModes {
    type Err = UnknownChoice;

    fn from_str(s: &str) -> Result<ScalingModes, UnknownChoice> {
        if s == BOTH {
            return Ok(ScalingModes(Scaling::ALL.to_vec()));
        }
        match s.parse::<Scaling>() {
            Ok(one) => Ok(ScalingModes(vec![one])),
            Err(e) => Err(UnknownChoice {
                accepted: format!("{}, {BOTH}", e.accepted),
                ..e
            }),
        }
    }
}

impl fmt::Display for ScalingModes {
    /// `both` for every mode, else the names, comma-separated.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 == Scaling::ALL {
            return f.write_str(BOTH);
        }
        let names: Vec<&str> = self.0.iter().map(|s| s.as_str()).collect();
        f.write_str(&names.join(","))
    }
}

impl From<&OpsArgs> for OpsConfig {
    fn from(a: &OpsArgs) -> OpsConfig {
        let d = OpsConfig::default();
        OpsConfig {
            threads: a.threads.as_ref().map_or(d.threads, |t| t.0.clone()),
            duration: a.duration,
            repeats: a.repeats as usize,
            warmup: a.warmup as usize,
            kernels: or_default(&a.kernels, d.kernels),
            scaling: a.scaling.0.clone(),
            pin: !a.no_pin,
        }
    }
}

impl BenchArgs for OpsArgs {
    const ID: &'static str = cpu::OPS;

    fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        Ok(Box::new(crate::ops::CpuOps {
            config: self.into(),
        }))
    }
}

impl BenchArgs for FftArgs {
    const ID: &'static str = cpu::HPCC_FFT;

    fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        Ok(Box::new(crate::fft::HpccFft {
            config: self.into(),
        }))
    }
}

/// The context-switch round trip (perf bench sched pipe -T): two threads
/// pass a token through a pair of pipes; the mean round trip (two wake-ups)
/// and round trips per second.
#[derive(Debug, Args)]
pub struct SwitchArgs {
    /// Round trips timed (perf's --loop).
    #[arg(long, value_name = "N", default_value_t = SwitchConfig::default().loops, value_parser = parse_count)]
    pub loops: u64,
    /// Pin the threads: one CPU (both on it, every round trip two context
    /// switches there) or two (0,1: one each). Default: unpinned.
    #[arg(long, value_name = "LIST", value_parser = parse_cpus)]
    pub cpus: Option<CpuList>,
}

impl From<&SwitchArgs> for SwitchConfig {
    fn from(a: &SwitchArgs) -> SwitchConfig {
        SwitchConfig {
            loops: a.loops,
            cpus: a.cpus.as_ref().map(|c| c.0.clone()).unwrap_or_default(),
        }
    }
}

impl BenchArgs for SwitchArgs {
    const ID: &'static str = cpu::SWITCH;

    fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        Ok(Box::new(CpuSwitch {
            config: self.into(),
        }))
    }
}

/// The benchmarks of this crate, as the CLI and the suites run them.
pub const RUNNABLE: &[Runnable] = &[
    Runnable::of::<OpsArgs>(),
    Runnable::of::<FftArgs>(),
    Runnable::of::<SwitchArgs>(),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scaling_modes_read_both_or_one_name_and_print_back() {
        assert_eq!("both".parse(), Ok(ScalingModes(Scaling::ALL.to_vec())));
        assert_eq!("weak".parse(), Ok(ScalingModes(vec![Scaling::Weak])));
        assert_eq!(ScalingModes(Scaling::ALL.to_vec()).to_string(), "both");
        assert_eq!(ScalingModes(vec![Scaling::Strong]).to_string(), "strong");
        assert_eq!(
            "sideways".parse::<ScalingModes>().unwrap_err().to_string(),
            "unknown value 'sideways' (accepted: strong, weak, both)"
        );
    }
}
