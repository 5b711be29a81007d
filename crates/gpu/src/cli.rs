//! `nodebench gpu ...`: the flags of `gpu stream`, `gpu gemm`,
//! `gpu bandwidth` and `gpu burn`, and the one conversion of each into its config.

use std::time::Duration;

use crate::{BandwidthConfig, BurnConfig, GemmConfig, StreamConfig};
use clap::Args;
use nodebench_core::bench::{BenchError, Benchmark};
use nodebench_core::cli::{BenchArgs, Runnable};
use nodebench_core::names::gpu;

use nodebench_core::cli::parse::{
    duration_text, parse_count, parse_duration, parse_size, size_text,
};

/// `--gpus LIST`: CUDA ordinals, comma-separated.
#[derive(Debug, Args)]
pub struct GpuChoice {
    /// GPUs by CUDA ordinal, comma-separated (0,1). Default: every GPU.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub gpus: Vec<u32>,
}

impl GpuChoice {
    fn chosen(&self) -> Option<Vec<u32>> {
        (!self.gpus.is_empty()).then(|| self.gpus.clone())
    }
}

/// BabelStream's copy, mul, add, triad and dot in double precision on
/// each GPU, arrays sized from its memory, validated; GB/s and % of the
/// memory's theoretical peak (memory clock x 2 x bus width, from NVML).
#[derive(Debug, Args)]
pub struct GpuStreamArgs {
    #[command(flatten)]
    pub gpus: GpuChoice,
    /// Doubles per array, a multiple of 1024. Default: the largest power of
    /// two up to 2^28 whose three arrays fit in a quarter of the GPU's memory.
    #[arg(long, value_name = "N", value_parser = parse_count)]
    pub array_size: Option<u64>,
    /// Timed repetitions of each kernel (the first is not counted).
    #[arg(long, value_name = "N", default_value_t = StreamConfig::default().ntimes as u64, value_parser = parse_count)]
    pub ntimes: u64,
}

/// Matrix multiply through cuBLAS at FP64, FP32, TF32, FP16, BF16 and FP8
/// (cuBLASLt) over
/// a size sweep: TFLOPS and % of the precision's peak (SMs x maximum SM
/// clock x FLOP/clock/SM of the architecture), sampled entries checked
/// against a host reference.
#[derive(Debug, Args)]
pub struct GpuGemmArgs {
    #[command(flatten)]
    pub gpus: GpuChoice,
    /// Precisions, comma-separated: fp64,fp32,tf32,fp16,bf16,fp8 (default
    /// all; fp8 on Ada, Hopper and later, else a warning).
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub precisions: Vec<String>,
    /// Matrix orders, comma-separated multiples of 64. Default: 2048,4096,8192.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    pub sizes: Vec<u32>,
    /// Time each size and precision runs for, at least.
    #[arg(long, value_name = "DURATION", default_value = duration_text(GemmConfig::default().duration), value_parser = parse_duration)]
    pub duration: Duration,
}

/// Host-to-device and device-to-host copies from pinned and pageable
/// memory, one direction and both at once, from the GPU's closest NUMA
/// node and a far one where there is one (as nvbandwidth).
#[derive(Debug, Args)]
pub struct GpuBandwidthArgs {
    #[command(flatten)]
    pub gpus: GpuChoice,
    /// Bytes per copy (256MiB, 1GiB).
    #[arg(long, value_name = "SIZE", default_value = size_text(BandwidthConfig::default().bytes), value_parser = parse_size)]
    pub size: u64,
    /// Timed copies per figure; the figure is their median.
    #[arg(long, value_name = "N", default_value_t = BandwidthConfig::default().repeats as u64, value_parser = parse_count)]
    pub repeats: u64,
}

/// Sustained multiplies on every GPU at once (as gpu-burn): the first
/// product checked against a host reference, every later one compared
/// with it bit for bit; NVML watched for XID errors, ECC counts,
/// retired pages and remapped rows, throttling, temperature and power.
/// A GPU with any mismatch or fault fails (exit 1).
#[derive(Debug, Args)]
pub struct GpuBurnArgs {
    #[command(flatten)]
    pub gpus: GpuChoice,
    /// How long every GPU multiplies: 60s, 8h.
    #[arg(long, value_name = "DURATION", default_value = duration_text(BurnConfig::default().duration), value_parser = parse_duration)]
    pub duration: Duration,
    /// The multiplies' precision: fp64, fp32, tf32, fp16, bf16 or fp8.
    #[arg(long, value_name = "P", default_value_t = BurnConfig::default().precision)]
    pub precision: String,
    /// The matrices' order n, a multiple of 64.
    #[arg(long, value_name = "N", default_value_t = BurnConfig::default().size as u64, value_parser = parse_count)]
    pub size: u64,
}

impl From<&GpuBurnArgs> for BurnConfig {
    fn from(a: &GpuBurnArgs) -> Self {
        BurnConfig {
            gpus: a.gpus.chosen(),
            duration: a.duration,
            precision: a.precision.clone(),
            size: a.size.min(u64::from(u32::MAX)) as u32,
        }
    }
}

impl From<&GpuStreamArgs> for StreamConfig {
    fn from(a: &GpuStreamArgs) -> Self {
        StreamConfig {
            gpus: a.gpus.chosen(),
            array_elements: a.array_size,
            ntimes: a.ntimes.min(u64::from(u32::MAX)) as u32,
        }
    }
}

impl From<&GpuGemmArgs> for GemmConfig {
    fn from(a: &GpuGemmArgs) -> Self {
        let d = GemmConfig::default();
        GemmConfig {
            gpus: a.gpus.chosen(),
            precisions: if a.precisions.is_empty() {
                d.precisions
            } else {
                a.precisions.clone()
            },
            sizes: if a.sizes.is_empty() {
                d.sizes
            } else {
                a.sizes.clone()
            },
            duration: a.duration,
        }
    }
}

impl From<&GpuBandwidthArgs> for BandwidthConfig {
    fn from(a: &GpuBandwidthArgs) -> Self {
        BandwidthConfig {
            gpus: a.gpus.chosen(),
            bytes: a.size,
            repeats: a.repeats.min(u64::from(u32::MAX)) as u32,
        }
    }
}

impl BenchArgs for GpuStreamArgs {
    const ID: &'static str = gpu::STREAM;

    fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        Ok(Box::new(crate::GpuStream {
            config: self.into(),
        }))
    }
}

impl BenchArgs for GpuGemmArgs {
    const ID: &'static str = gpu::GEMM;

    fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        Ok(Box::new(crate::GpuGemm {
            config: self.into(),
        }))
    }
}

impl BenchArgs for GpuBandwidthArgs {
    const ID: &'static str = gpu::BANDWIDTH;

    fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        Ok(Box::new(crate::GpuBandwidth {
            config: self.into(),
        }))
    }
}

impl BenchArgs for GpuBurnArgs {
    const ID: &'static str = gpu::BURN;

    fn benchmark(&self) -> Result<Box<dyn Benchmark>, BenchError> {
        Ok(Box::new(crate::GpuBurn {
            config: self.into(),
        }))
    }
}

/// The benchmarks of this crate, as the CLI and the suites run them.
pub const RUNNABLE: &[Runnable] = &[
    Runnable::of::<GpuStreamArgs>(),
    Runnable::of::<GpuGemmArgs>(),
    Runnable::of::<GpuBandwidthArgs>(),
    Runnable::of::<GpuBurnArgs>(),
];
