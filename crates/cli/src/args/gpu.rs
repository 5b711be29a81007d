//! `nodebench gpu ...`: the subcommands. Each wraps its benchmark's
//! arguments, defined with their conversion into its config in `nodebench_gpu::cli`.

use clap::Subcommand;
use nodebench_gpu::cli::*;

/// `nodebench gpu ...`
#[derive(Debug, Subcommand)]
pub enum GpuCommand {
    /// BabelStream's copy, mul, add, triad and dot in double precision on
    /// each GPU, arrays sized from its memory, validated; GB/s and % of the
    /// memory's theoretical peak (memory clock x 2 x bus width, from NVML).
    Stream(GpuStreamArgs),
    /// Matrix multiply through cuBLAS at FP64, FP32, TF32, FP16, BF16 and FP8
    /// (cuBLASLt) over
    /// a size sweep: TFLOPS and % of the precision's peak (SMs x maximum SM
    /// clock x FLOP/clock/SM of the architecture), sampled entries checked
    /// against a host reference.
    Gemm(GpuGemmArgs),
    /// Host-to-device and device-to-host copies from pinned and pageable
    /// memory, one direction and both at once, from the GPU's closest NUMA
    /// node and a far one where there is one (as nvbandwidth).
    Bandwidth(GpuBandwidthArgs),
    /// Sustained multiplies on every GPU at once (as gpu-burn): the first
    /// product checked against a host reference, every later one compared
    /// with it bit for bit; NVML watched for XID errors, ECC counts,
    /// retired pages and remapped rows, throttling, temperature and power.
    /// A GPU with any mismatch or fault fails (exit 1).
    Burn(GpuBurnArgs),
}
