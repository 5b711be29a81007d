//! The CUDA toolkit's libraries, opened at run time: NVRTC (compiles the
//! CUDA C kernels for the GPU at hand) and cuBLAS (GEMM). A missing one is
//! a one-line error naming it.

use std::ffi::{CString, c_char, c_int, c_void};
use std::path::Path;

use nodebench_nvidia::cuda::{DeviceBuffer, Driver, Handle};
use nodebench_nvidia::libs::{self, Loaded};

/// Opens `names` and, first, from the same directory as the one found, the
/// companions it loads by name (cuBLAS's cuBLASLt, NVRTC's builtins), so a
/// toolkit off the loader's path works.
pub(crate) fn open_with(names: &[&str], companion_prefix: &str) -> Result<Loaded, crate::Error> {
    for dir in libs::search_dirs().into_iter().flatten() {
        if !names.iter().any(|n| dir.join(n).exists()) {
            continue;
        }
        preload(&dir, companion_prefix);
        return Ok(libs::open_in(&[Some(dir)], names)?);
    }
    Ok(libs::open_in(&[None], names)?)
}

/// Loads every `prefix*` library of `dir` (the `.alt` variants left out).
fn preload(dir: &Path, prefix: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut found: Vec<_> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(prefix) && !n.contains(".alt") && !n.ends_with(".a"))
        .collect();
    found.sort();
    for n in found {
        // Kept loaded for the process (the dependant finds it by soname).
        let _ = libs::open_in(&[Some(dir.to_path_buf())], &[n.as_str()]).map(std::mem::forget);
    }
}

type Prog = *mut c_void;

/// NVRTC.
pub struct Nvrtc {
    lib: Loaded,
    create: unsafe extern "C" fn(
        *mut Prog,
        *const c_char,
        *const c_char,
        c_int,
        *const *const c_char,
        *const *const c_char,
    ) -> c_int,
    compile: unsafe extern "C" fn(Prog, c_int, *const *const c_char) -> c_int,
    log_size: unsafe extern "C" fn(Prog, *mut usize) -> c_int,
    log: unsafe extern "C" fn(Prog, *mut c_char) -> c_int,
    cubin_size: unsafe extern "C" fn(Prog, *mut usize) -> c_int,
    cubin: unsafe extern "C" fn(Prog, *mut c_char) -> c_int,
    destroy: unsafe extern "C" fn(*mut Prog) -> c_int,
    version: unsafe extern "C" fn(*mut c_int, *mut c_int) -> c_int,
}

impl Nvrtc {
    /// Finds and loads NVRTC.
    pub fn open() -> Result<Nvrtc, crate::Error> {
        let names = [
            "libnvrtc.so.13",
            "libnvrtc.so.12",
            "libnvrtc.so.11.2",
            "libnvrtc.so",
        ];
        let lib = open_with(&names, "libnvrtc-builtins.so")
            .map_err(|e| crate::Error::Missing(format!("no NVRTC: {e}")))?;
        // SAFETY: the types of nvrtc.h.
        unsafe {
            Ok(Nvrtc {
                create: lib.symbol("nvrtcCreateProgram")?,
                compile: lib.symbol("nvrtcCompileProgram")?,
                log_size: lib.symbol("nvrtcGetProgramLogSize")?,
                log: lib.symbol("nvrtcGetProgramLog")?,
                cubin_size: lib.symbol("nvrtcGetCUBINSize")?,
                cubin: lib.symbol("nvrtcGetCUBIN")?,
                destroy: lib.symbol("nvrtcDestroyProgram")?,
                version: lib.symbol("nvrtcVersion")?,
                lib,
            })
        }
    }

    /// "NVRTC 13.0 (/path)".
    pub fn describe(&self) -> String {
        let (mut a, mut b) = (0, 0);
        // SAFETY: writes two ints.
        unsafe { (self.version)(&mut a, &mut b) };
        format!("NVRTC {a}.{b} ({})", self.lib.path)
    }

    /// Compiles `source` for compute capability `major.minor` into a CUBIN;
    /// a compile error comes back with NVRTC's log.
    pub fn compile(&self, source: &str, major: i32, minor: i32) -> Result<Vec<u8>, crate::Error> {
        let src = CString::new(source).map_err(|e| crate::Error::Failed(e.to_string()))?;
        let name = CString::new("nodebench.cu").unwrap();
        let mut prog: Prog = std::ptr::null_mut();
        // SAFETY: C strings and no headers.
        let r = unsafe {
            (self.create)(
                &mut prog,
                src.as_ptr(),
                name.as_ptr(),
                0,
                std::ptr::null(),
                std::ptr::null(),
            )
        };
        if r != 0 {
            return Err(crate::Error::Failed(format!(
                "nvrtcCreateProgram: error {r}"
            )));
        }
        let opts: Vec<CString> = [
            format!("--gpu-architecture=sm_{major}{minor}"),
            "--std=c++14".into(),
        ]
        .into_iter()
        .map(|o| CString::new(o).unwrap())
        .collect();
        let ptrs: Vec<*const c_char> = opts.iter().map(|o| o.as_ptr()).collect();
        // SAFETY: a program NVRTC made and C strings.
        let r = unsafe { (self.compile)(prog, ptrs.len() as c_int, ptrs.as_ptr()) };
        let out = if r != 0 {
            let mut n = 0usize;
            // SAFETY: writes the size, then that many bytes.
            unsafe { (self.log_size)(prog, &mut n) };
            let mut buf = vec![0 as c_char; n.max(1)];
            // SAFETY: `buf` holds the `n` bytes the size call reported.
            unsafe { (self.log)(prog, buf.as_mut_ptr()) };
            let log: String = buf
                .iter()
                .take_while(|c| **c != 0)
                .map(|c| *c as u8 as char)
                .collect();
            Err(crate::Error::Failed(format!(
                "NVRTC could not compile the kernels for sm_{major}{minor}: {}",
                log.trim()
            )))
        } else {
            let mut n = 0usize;
            // SAFETY: writes the size, then that many bytes.
            unsafe { (self.cubin_size)(prog, &mut n) };
            let mut buf = vec![0u8; n];
            // SAFETY: `buf` holds the `n` bytes the size call reported.
            unsafe { (self.cubin)(prog, buf.as_mut_ptr() as *mut c_char) };
            Ok(buf)
        };
        // SAFETY: destroys the program once.
        unsafe { (self.destroy)(&mut prog) };
        out
    }
}

/// "NAME 13.1.0 (/path)" for a cuBLAS-family version number
/// (major x 10000 + minor x 100 + patch).
pub(crate) fn describe_blas(name: &str, v: usize, path: &str) -> String {
    format!(
        "{name} {}.{}.{} ({path})",
        v / 10000,
        (v / 100) % 100,
        v % 100
    )
}

/// `cudaDataType` values.
pub mod dtype {
    pub const R_32F: i32 = 0;
    pub const R_64F: i32 = 1;
    pub const R_16F: i32 = 2;
    pub const R_16BF: i32 = 14;
    pub const R_8F_E4M3: i32 = 28;
}

/// `cublasComputeType_t` values.
pub mod compute {
    pub const C_16F: i32 = 64;
    pub const C_32F: i32 = 68;
    pub const C_64F: i32 = 70;
    pub const C_32F_FAST_TF32: i32 = 77;
}

type GemmEx = unsafe extern "C" fn(
    Handle,
    c_int,
    c_int,
    c_int,
    c_int,
    c_int,
    *const c_void,
    u64,
    c_int,
    c_int,
    u64,
    c_int,
    c_int,
    *const c_void,
    u64,
    c_int,
    c_int,
    c_int,
    c_int,
) -> c_int;

/// The workspace cuBLAS is given (as PyTorch gives it on Hopper): room
/// for its split-K and stream-K kernels.
pub const WORKSPACE_BYTES: usize = 32 << 20;

/// cuBLAS with a handle on the current context.
pub struct Cublas {
    lib: Loaded,
    handle: Handle,
    gemm_ex: GemmEx,
    version: c_int,
    _workspace: Option<DeviceBuffer>,
}

impl Cublas {
    /// Finds and loads cuBLAS and makes a handle (on the current context)
    /// with a [`WORKSPACE_BYTES`] workspace.
    pub fn open(driver: &'static Driver) -> Result<Cublas, crate::Error> {
        let names = [
            "libcublas.so.13",
            "libcublas.so.12",
            "libcublas.so.11",
            "libcublas.so",
        ];
        let lib = open_with(&names, "libcublasLt.so")
            .map_err(|e| crate::Error::Missing(format!("no cuBLAS: {e}")))?;
        // SAFETY: the types of cublas_v2.h.
        unsafe {
            let create: unsafe extern "C" fn(*mut Handle) -> c_int =
                lib.symbol("cublasCreate_v2")?;
            let get_version: unsafe extern "C" fn(Handle, *mut c_int) -> c_int =
                lib.symbol("cublasGetVersion_v2")?;
            let gemm_ex: GemmEx = lib.symbol("cublasGemmEx")?;
            let mut handle: Handle = std::ptr::null_mut();
            let r = create(&mut handle);
            if r != 0 {
                return Err(crate::Error::Failed(format!("cublasCreate_v2: status {r}")));
            }
            let mut version = 0;
            get_version(handle, &mut version);
            type SetWorkspace = unsafe extern "C" fn(Handle, u64, usize) -> c_int;
            let workspace = match lib.symbol::<SetWorkspace>("cublasSetWorkspace_v2") {
                Ok(set) => {
                    let w = driver.alloc(WORKSPACE_BYTES)?;
                    let r = set(handle, w.ptr, WORKSPACE_BYTES);
                    if r != 0 {
                        return Err(crate::Error::Failed(format!(
                            "cublasSetWorkspace_v2: status {r}"
                        )));
                    }
                    Some(w)
                }
                Err(_) => None,
            };
            Ok(Cublas {
                lib,
                handle,
                gemm_ex,
                version,
                _workspace: workspace,
            })
        }
    }

    /// "cuBLAS 13.1.0 (/path)".
    pub fn describe(&self) -> String {
        describe_blas("cuBLAS", self.version as usize, &self.lib.path)
    }

    /// C = A B for n x n column-major matrices on the device (`abc`: the
    /// device pointers of A, B and C): `dt` the data type of all three,
    /// `ct` the compute type; alpha 1, beta 0 as doubles where
    /// `double_scalars` (FP64 compute), else as floats.
    ///
    /// # Safety
    /// `abc` must be device allocations of at least n*n elements of `dt`
    /// on the current context.
    pub unsafe fn gemm(
        &self,
        n: i32,
        abc: [u64; 3],
        dt: i32,
        ct: i32,
        double_scalars: bool,
    ) -> Result<(), crate::Error> {
        let (one64, zero64, one32, zero32) = (1f64, 0f64, 1f32, 0f32);
        let (alpha, beta): (*const c_void, *const c_void) = if double_scalars {
            (&one64 as *const f64 as _, &zero64 as *const f64 as _)
        } else {
            (&one32 as *const f32 as _, &zero32 as *const f32 as _)
        };
        let [a, b, c] = abc;
        // SAFETY: per the caller, and scalars of the compute type's scalar type.
        let r = unsafe {
            (self.gemm_ex)(
                self.handle,
                0,
                0,
                n,
                n,
                n,
                alpha,
                a,
                dt,
                n,
                b,
                dt,
                n,
                beta,
                c,
                dt,
                n,
                ct,
                -1,
            )
        };
        if r != 0 {
            return Err(crate::Error::Failed(format!("cublasGemmEx: status {r}")));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn blas_versions_read_as_major_minor_patch() {
        assert_eq!(
            super::describe_blas("cuBLAS", 130_100, "/usr/lib/libcublas.so.13"),
            "cuBLAS 13.1.0 (/usr/lib/libcublas.so.13)"
        );
    }
}
