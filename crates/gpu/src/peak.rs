//! The theoretical GEMM peak: SMs x the maximum SM clock (NVML) x the dense
//! FLOP per clock per SM of the precision on the architecture, from
//! NVIDIA's architecture whitepapers and datasheets (A100, A10/A40, L40S,
//! H100/H200, B200 tensor-core and CUDA-core rates divided by their SMs
//! and boost clocks). Sparsity is never counted.

use nodebench_core::inventory::GpuInfo;
use nodebench_core::names::gpu::precision;

/// Dense FLOP per clock per SM of `p` on compute capability
/// `major.minor`; `None` where the table has no figure.
pub fn flop_per_clock_per_sm(major: i32, minor: i32, p: &str) -> Option<u32> {
    // (fp64, fp32, tf32, fp16, bf16, fp8); FP64 and FP32 GEMMs run on the
    // tensor cores where the architecture has FP64 ones (DMMA) and on the
    // CUDA cores otherwise; FP8 tensor cores came with Ada and Hopper.
    let row: [Option<u32>; 6] = match (major, minor) {
        // A100: FP64 tensor 19.5 TF, FP32 19.5, TF32 156, FP16/BF16 312 at
        // 108 SMs x 1410 MHz.
        (8, 0) => [
            Some(128),
            Some(128),
            Some(1024),
            Some(2048),
            Some(2048),
            None,
        ],
        // A10/A40 (GA102 with full-rate FP32 accumulation), Jetson Orin:
        // FP64 at 1/64 of FP32.
        (8, 6) | (8, 7) => [Some(4), Some(256), Some(512), Some(1024), Some(1024), None],
        // L40S / L4 (Ada): FP32 91.6 TF, TF32 183, FP16/BF16 362 at 142
        // SMs x 2520 MHz; FP8 733 dense.
        (8, 9) => [
            Some(4),
            Some(256),
            Some(512),
            Some(1024),
            Some(1024),
            Some(2048),
        ],
        // H100 / H200 (Hopper): FP64 tensor 67 TF and FP32 67 TF at 132 SMs
        // x 1980 MHz; TF32 495, FP16/BF16 989, FP8 1979 dense.
        (9, 0) => [
            Some(256),
            Some(256),
            Some(2048),
            Some(4096),
            Some(4096),
            Some(8192),
        ],
        // B200 (Blackwell): FP32 256, TF32 1.1 PF, FP16/BF16 2.25 PF, FP8
        // 4.5 PF dense at 148 SMs; NVIDIA's FP64 figure fits no whole
        // per-SM rate at its stated clock, so FP64 has none here.
        (10, 0) => [
            None,
            Some(256),
            Some(4096),
            Some(8192),
            Some(8192),
            Some(16384),
        ],
        _ => return None,
    };
    let i = precision::ALL.iter().position(|x| *x == p)?;
    row[i]
}

/// The peak FLOP/s of `p` on `gpu` and how it was found; `None` (with
/// why) where the table, the SM count or the clock is missing.
pub fn peak_flops(
    gpu: &GpuInfo,
    major: i32,
    minor: i32,
    p: &str,
) -> Result<(f64, String), crate::Error> {
    let per = flop_per_clock_per_sm(major, minor, p).ok_or_else(|| {
        crate::Error::Failed(format!(
            "no {p} rate for compute capability {major}.{minor} in the table"
        ))
    })?;
    let sms = gpu
        .sms
        .ok_or_else(|| crate::Error::Failed("the SM count is unknown".into()))?;
    let mhz = gpu
        .max_sm_clock_mhz
        .ok_or_else(|| crate::Error::Failed("the maximum SM clock is unknown".into()))?;
    let peak = f64::from(sms) * f64::from(mhz) * 1e6 * f64::from(per);
    Ok((
        peak,
        format!(
            "{:.1} TFLOPS: {sms} SMs x {mhz} MHz x {per} FLOP/clock/SM",
            peak / 1e12
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpu(sms: u32, mhz: u32) -> GpuInfo {
        GpuInfo {
            sms: Some(sms),
            max_sm_clock_mhz: Some(mhz),
            ..GpuInfo::default()
        }
    }

    #[test]
    fn hopper_matches_nvidias_h100_sxm_figures() {
        let h = gpu(132, 1980);
        let tf = |p| peak_flops(&h, 9, 0, p).unwrap().0 / 1e12;
        assert!((tf(precision::FP64) - 66.9).abs() < 0.1);
        assert!((tf(precision::FP32) - 66.9).abs() < 0.1);
        // NVIDIA quotes the tensor rates at 1830 MHz: 494.7 and 989.4.
        let t = gpu(132, 1830);
        assert!((peak_flops(&t, 9, 0, precision::TF32).unwrap().0 / 1e12 - 494.7).abs() < 0.1);
        assert!((peak_flops(&t, 9, 0, precision::BF16).unwrap().0 / 1e12 - 989.4).abs() < 0.1);
        // FP8 1978.9 dense (3957.8 with sparsity, never counted).
        assert!((peak_flops(&t, 9, 0, precision::FP8).unwrap().0 / 1e12 - 1978.9).abs() < 0.1);
    }

    #[test]
    fn ampere_matches_nvidias_a100_figures() {
        let a = gpu(108, 1410);
        let tf = |p| peak_flops(&a, 8, 0, p).unwrap().0 / 1e12;
        assert!((tf(precision::FP64) - 19.5).abs() < 0.1);
        assert!((tf(precision::FP32) - 19.5).abs() < 0.1);
        assert!((tf(precision::TF32) - 155.9).abs() < 0.1);
        assert!((tf(precision::FP16) - 311.9).abs() < 0.1);
    }

    #[test]
    fn ada_matches_the_l40s() {
        let l = gpu(142, 2520);
        assert!((peak_flops(&l, 8, 9, precision::FP32).unwrap().0 / 1e12 - 91.6).abs() < 0.1);
        assert!((peak_flops(&l, 8, 9, precision::FP16).unwrap().0 / 1e12 - 366.4).abs() < 0.1);
    }

    #[test]
    fn unknown_is_said_not_guessed() {
        assert_eq!(flop_per_clock_per_sm(7, 0, precision::FP64), None);
        assert_eq!(flop_per_clock_per_sm(10, 0, precision::FP64), None);
        // A100 has no FP8 tensor cores.
        assert_eq!(flop_per_clock_per_sm(8, 0, precision::FP8), None);
        let e = peak_flops(&gpu(132, 1980), 7, 5, precision::FP32)
            .unwrap_err()
            .to_string();
        assert_eq!(e, "no fp32 rate for compute capability 7.5 in the table");
        let e = peak_flops(&GpuInfo::default(), 9, 0, precision::FP32)
            .unwrap_err()
            .to_string();
        assert_eq!(e, "the SM count is unknown");
    }
}
