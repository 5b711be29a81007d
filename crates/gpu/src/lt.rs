//! cuBLASLt, opened at run time, for the FP8 GEMM cuBLAS's `cublasGemmEx`
//! does not do: E4M3 inputs (per-tensor scales left at 1), BF16 output,
//! FP32 accumulation; A transposed ("TN", the layout FP8 requires on
//! Hopper), so D = A^T B.

use std::ffi::{c_int, c_void};

use nodebench_nvidia::cuda::{DeviceBuffer, Driver};
use nodebench_nvidia::libs::Loaded;

use crate::toolkit::{WORKSPACE_BYTES, compute, describe_blas, dtype, open_with};

type H = *mut c_void;

/// `cublasLtMatmulAlgo_t` and its heuristic result (96 bytes).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Heuristic {
    algo: [u64; 8],
    workspace: usize,
    state: c_int,
    waves: f32,
    reserved: [c_int; 4],
}

/// `cublasLtMatmulDescAttributes_t` values.
const DESC_TRANSA: c_int = 3;
/// `cublasLtMatmulPreferenceAttributes_t`: the workspace's bytes.
const PREF_MAX_WORKSPACE_BYTES: c_int = 1;
/// `CUBLAS_OP_T`.
const OP_T: c_int = 1;

type Matmul = unsafe extern "C" fn(
    H,
    H,
    *const c_void,
    u64,
    H,
    u64,
    H,
    *const c_void,
    u64,
    H,
    u64,
    H,
    *const Heuristic,
    u64,
    usize,
    H,
) -> c_int;

/// An FP8 multiply of n x n matrices, planned once.
pub struct Fp8Gemm {
    lib: Loaded,
    handle: H,
    desc: H,
    layouts: [H; 2],
    heuristic: Heuristic,
    matmul: Matmul,
    workspace: DeviceBuffer,
    version: usize,
}

impl Fp8Gemm {
    /// Opens cuBLASLt and plans D = A^T B for n x n E4M3 A and B and BF16
    /// D; an error where the library or the GPU has no FP8 kernel for it.
    pub fn plan(driver: &'static Driver, n: u64) -> Result<Fp8Gemm, crate::Error> {
        let names = [
            "libcublasLt.so.13",
            "libcublasLt.so.12",
            "libcublasLt.so.11",
            "libcublasLt.so",
        ];
        let lib = open_with(&names, "libcublasLt.so")
            .map_err(|e| crate::Error::Missing(format!("no cuBLASLt: {e}")))?;
        let check = |call: &str, r: c_int| {
            if r == 0 {
                Ok(())
            } else {
                Err(crate::Error::Failed(format!("{call}: status {r}")))
            }
        };
        // SAFETY: the types of cublasLt.h; every handle is made before use.
        unsafe {
            let create: unsafe extern "C" fn(*mut H) -> c_int = lib.symbol("cublasLtCreate")?;
            let version: unsafe extern "C" fn() -> usize = lib.symbol("cublasLtGetVersion")?;
            let desc_create: unsafe extern "C" fn(*mut H, c_int, c_int) -> c_int =
                lib.symbol("cublasLtMatmulDescCreate")?;
            let desc_set: unsafe extern "C" fn(H, c_int, *const c_void, usize) -> c_int =
                lib.symbol("cublasLtMatmulDescSetAttribute")?;
            let layout_create: unsafe extern "C" fn(*mut H, c_int, u64, u64, i64) -> c_int =
                lib.symbol("cublasLtMatrixLayoutCreate")?;
            let pref_create: unsafe extern "C" fn(*mut H) -> c_int =
                lib.symbol("cublasLtMatmulPreferenceCreate")?;
            let pref_set: unsafe extern "C" fn(H, c_int, *const c_void, usize) -> c_int =
                lib.symbol("cublasLtMatmulPreferenceSetAttribute")?;
            let heuristic: unsafe extern "C" fn(
                H,
                H,
                H,
                H,
                H,
                H,
                H,
                c_int,
                *mut Heuristic,
                *mut c_int,
            ) -> c_int = lib.symbol("cublasLtMatmulAlgoGetHeuristic")?;
            let matmul: Matmul = lib.symbol("cublasLtMatmul")?;
            let mut handle: H = std::ptr::null_mut();
            check("cublasLtCreate", create(&mut handle))?;
            let mut desc: H = std::ptr::null_mut();
            check(
                "cublasLtMatmulDescCreate",
                desc_create(&mut desc, compute::C_32F, dtype::R_32F),
            )?;
            check(
                "cublasLtMatmulDescSetAttribute(TRANSA)",
                desc_set(desc, DESC_TRANSA, &OP_T as *const c_int as _, 4),
            )?;
            let ld = n as i64;
            let mut fp8: H = std::ptr::null_mut();
            check(
                "cublasLtMatrixLayoutCreate",
                layout_create(&mut fp8, dtype::R_8F_E4M3, n, n, ld),
            )?;
            let mut out: H = std::ptr::null_mut();
            check(
                "cublasLtMatrixLayoutCreate",
                layout_create(&mut out, dtype::R_16BF, n, n, ld),
            )?;
            let mut pref: H = std::ptr::null_mut();
            check("cublasLtMatmulPreferenceCreate", pref_create(&mut pref))?;
            let ws = WORKSPACE_BYTES as u64;
            check(
                "cublasLtMatmulPreferenceSetAttribute",
                pref_set(pref, PREF_MAX_WORKSPACE_BYTES, &ws as *const u64 as _, 8),
            )?;
            let mut h: Heuristic = std::mem::zeroed();
            let mut found: c_int = 0;
            let r = heuristic(
                handle, desc, fp8, fp8, out, out, pref, 1, &mut h, &mut found,
            );
            if r != 0 || found == 0 {
                return Err(crate::Error::Failed(format!(
                    "cuBLASLt has no FP8 (E4M3) GEMM for this GPU (cublasLtMatmulAlgoGetHeuristic: status {r}, {found} algorithms)"
                )));
            }
            Ok(Fp8Gemm {
                handle,
                desc,
                layouts: [fp8, out],
                heuristic: h,
                matmul,
                workspace: driver.alloc(WORKSPACE_BYTES)?,
                version: version(),
                lib,
            })
        }
    }

    /// "cuBLASLt 13.1.0 (/path)".
    pub fn describe(&self) -> String {
        describe_blas("cuBLASLt", self.version, &self.lib.path)
    }

    /// D = A^T B on the default stream.
    ///
    /// # Safety
    /// `a`, `b` must hold n*n E4M3 values and `d` n*n BF16 values, on the
    /// current context, for the n planned.
    pub unsafe fn run(&self, a: u64, b: u64, d: u64) -> Result<(), crate::Error> {
        let (one, zero) = (1f32, 0f32);
        let [fp8, out] = self.layouts;
        // SAFETY: per the caller; scalars are floats (scale type FP32).
        let r = unsafe {
            (self.matmul)(
                self.handle,
                self.desc,
                &one as *const f32 as _,
                a,
                fp8,
                b,
                fp8,
                &zero as *const f32 as _,
                d,
                out,
                d,
                out,
                &self.heuristic,
                self.workspace.ptr,
                WORKSPACE_BYTES,
                std::ptr::null_mut(),
            )
        };
        if r != 0 {
            return Err(crate::Error::Failed(format!("cublasLtMatmul: status {r}")));
        }
        Ok(())
    }
}

/// E4M3 (no infinities, one NaN pattern, largest 448): the nearest value,
/// ties to even, saturating at ±448.
pub fn e4m3_from_f64(x: f64) -> u8 {
    if x.is_nan() {
        return 0x7f;
    }
    let sign = if x.is_sign_negative() { 0x80u8 } else { 0 };
    let a = x.abs().min(448.0);
    let code = if a < 2f64.powi(-6) {
        // Subnormals: multiples of 2^-9 (8 of them is the smallest normal).
        (a * 512.0).round_ties_even() as u8
    } else {
        let e = ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023;
        let q = ((a / 2f64.powi(e) - 1.0) * 8.0).round_ties_even() as i32;
        let (e, q) = if q == 8 { (e + 1, 0) } else { (e, q) };
        (((e + 7) << 3) | q).min(0x7e) as u8
    };
    sign | code
}

/// The value of an E4M3 code.
pub fn e4m3_to_f64(code: u8) -> f64 {
    let sign = if code & 0x80 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((code >> 3) & 0xf);
    let man = f64::from(code & 0x7);
    if exp == 0xf && code & 0x7 == 0x7 {
        return f64::NAN;
    }
    let mag = if exp == 0 {
        man / 8.0 * 2f64.powi(-6)
    } else {
        (1.0 + man / 8.0) * 2f64.powi(exp - 7)
    };
    sign * mag
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn e4m3_codes_match_the_ocp_fp8_table() {
        assert_eq!(e4m3_to_f64(0x00), 0.0);
        assert_eq!(e4m3_to_f64(0x38), 1.0); // exponent 7, mantissa 0
        assert_eq!(e4m3_to_f64(0x7e), 448.0); // the largest
        assert_eq!(e4m3_to_f64(0x01), 2f64.powi(-9)); // the smallest subnormal
        assert_eq!(e4m3_to_f64(0xb8), -1.0);
        assert!(e4m3_to_f64(0x7f).is_nan());
        assert_eq!(e4m3_from_f64(1.0), 0x38);
        assert_eq!(e4m3_from_f64(-1.0), 0xb8);
        assert_eq!(e4m3_from_f64(1e6), 0x7e);
        // 1.0625 is halfway between 1.0 (0x38) and 1.125 (0x39): to even.
        assert_eq!(e4m3_from_f64(1.0625), 0x38);
        assert_eq!(e4m3_to_f64(e4m3_from_f64(0.1)), 0.1015625);
        // Every finite code round-trips.
        for code in (0u8..=0x7e).chain(0x81..=0xfe) {
            assert_eq!(e4m3_from_f64(e4m3_to_f64(code)), code, "{code:#x}");
        }
    }

    #[test]
    fn the_heuristic_result_has_cublaslt_layout() {
        assert_eq!(std::mem::size_of::<Heuristic>(), 96);
    }
}
