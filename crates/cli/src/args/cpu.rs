//! `nodebench cpu ...`: the subcommands. Each wraps its benchmark's
//! arguments, defined with their conversion into its config in
//! `nodebench_cpu::cli` (ops, fft) and `nodebench_linpack::cli` (linpack,
//! dgemm).

use clap::Subcommand;
use nodebench_cpu::cli::{FftArgs, OpsArgs};
use nodebench_linpack::cli::{DgemmArgs, LinpackArgs};

/// `nodebench cpu ...`
#[derive(Debug, Subcommand)]
pub enum CpuCommand {
    /// Integer and floating-point operation rates (GIOPS, GFLOPS single and
    /// double precision) per thread count, scalar and vectorised FMA kernels,
    /// strong and weak scaling, as % of the theoretical peak
    /// (cores x clock x FLOP/cycle of the ISA).
    Ops(OpsArgs),
    /// LINPACK as HPL runs it: solve Ax = b (A random, entries uniform in
    /// [-0.5, 0.5]) by LU with partial pivoting, per order and trial, with
    /// HPL's residual check (PASSED when the normalised residual
    /// ||Ax-b||/(eps (||A|| ||x|| + ||b||) n) is below 16). GFLOPS count
    /// 2/3 n^3 + 3/2 n^2 operations per solve, as HPL does, and are shown as
    /// % of the theoretical peak.
    Linpack(LinpackArgs),
    /// HPC Challenge's FFT: a 1-D complex double-precision transform
    /// (rustfft), single (one core) and star (every core its own), GFLOPS
    /// as HPCC counts them (5 N log2 N / t), checked by the inverse
    /// transform and HPCC's scaled residual (fails above 16).
    Fft(FftArgs),
    /// HPC Challenge's DGEMM through nodebench's own packed GEMM (LINPACK's
    /// kernel): C = C - A B of order n, single (one core) and star (every
    /// core its own), GFLOPS (2 n^3 per multiply) and HPCC's residual check
    /// (fails above 16).
    Dgemm(DgemmArgs),
}
