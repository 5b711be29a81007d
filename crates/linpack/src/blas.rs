//! A system BLAS/LAPACK loaded at run time with dlopen, as HPL links the
//! node's best BLAS, without a build-time dependency: OpenBLAS (including
//! the ILP64 builds with `64_` symbols, such as the one in numpy's wheel),
//! MKL's single dynamic library, libFLAME over BLIS, or any library file
//! exporting LAPACK's `dgesv_`.

use nodebench_core::bench::BenchError;
use std::ffi::{CStr, c_char, c_int};
use std::mem::ManuallyDrop;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use libloading::Library;

use nodebench_core::config::Choice;

use crate::config::Family;
use crate::error::SolveError;
use crate::matrix::Equations;

/// LAPACK's dgesv with integers of type `I`: i32 (LP64) or i64 (ILP64).
type DgesvFn<I> = unsafe extern "C" fn(
    *const I,
    *const I,
    *mut f64,
    *const I,
    *mut I,
    *mut f64,
    *const I,
    *mut I,
);

/// BLAS's dgemm with integers of type `I` (the character arguments are
/// one byte each; the hidden Fortran lengths are not read by the C
/// libraries this loads).
type DgemmFn<I> = unsafe extern "C" fn(
    *const c_char,
    *const c_char,
    *const I,
    *const I,
    *const I,
    *const f64,
    *const f64,
    *const I,
    *const f64,
    *const I,
    *const f64,
    *mut f64,
    *const I,
);

/// The dgemm entry point found, with its integer width.
#[derive(Clone, Copy)]
enum Dgemm {
    Lp64(DgemmFn<i32>),
    Ilp64(DgemmFn<i64>),
}

/// Stack of the thread that calls into the library: OpenBLAS's LU puts
/// buffers on the stack and overflows the 2 MiB of an ordinary thread.
const BLAS_STACK: usize = 64 << 20;

/// Held around every call into a loaded library: a BLAS's thread pool is
/// not re-entrant (OpenBLAS must not change its thread count while another
/// thread is inside a solve), so calls from several threads of one process
/// (tests, or two benchmarks) take turns.
static CALLS: Mutex<()> = Mutex::new(());

/// Sets the library's thread count.
type ThreadControl = Box<dyn Fn(usize) + Send + Sync>;

/// The dgesv entry point found, with its integer width.
#[derive(Clone, Copy)]
enum Dgesv {
    Lp64(DgesvFn<i32>),
    Ilp64(DgesvFn<i64>),
}

/// Library names of `family` searched on the dynamic loader's path, best first.
fn library_names(family: Family) -> &'static [&'static str] {
    match family {
        Family::OpenBlas => &["libopenblas.so.0", "libopenblas.so", "libopenblas64_.so.0"],
        Family::Mkl => &["libmkl_rt.so.2", "libmkl_rt.so", "libmkl_rt.so.1"],
        Family::Flame => &["libflame.so.1", "libflame.so"],
    }
}

/// The package that provides `family` on Debian, for the error message.
fn package(family: Family) -> &'static str {
    match family {
        Family::OpenBlas => "libopenblas0",
        Family::Mkl => "intel-mkl or libmkl-rt",
        Family::Flame => "libflame1",
    }
}

/// A loaded BLAS/LAPACK library.
pub struct BlasLibrary {
    // Never unloaded: BLAS libraries keep worker threads that must not
    // outlive their code.
    _lib: ManuallyDrop<Library>,
    dgesv: Dgesv,
    dgemm: Option<Dgemm>,
    set_threads: Option<ThreadControl>,
    /// What was loaded: the name or path given to dlopen.
    pub path: String,
    /// The vendor's own version string (`OpenBLAS 0.3.21 ... Zen`), or what
    /// is known of the library when it has none.
    pub version: String,
    /// Short name of the backend: openblas, mkl, flame or lapack.
    pub kind: &'static str,
}

/// Looks `name` up in `lib` as a value of type `T`.
///
/// # Safety
/// `T` must be the symbol's true type.
unsafe fn symbol<T: Copy>(lib: &Library, name: &str) -> Option<T> {
    // SAFETY: the caller vouches for the type.
    unsafe { lib.get::<T>(name.as_bytes()).ok().map(|s| *s) }
}

/// A C string returned by the library, as owned text.
///
/// # Safety
/// `p` must be null or a NUL-terminated string.
unsafe fn text(p: *const c_char) -> Option<String> {
    // SAFETY: per the caller.
    (!p.is_null()).then(|| {
        // SAFETY: `p` is not null (checked) and NUL-terminated, per the caller.
        unsafe { CStr::from_ptr(p) }
            .to_string_lossy()
            .trim()
            .to_string()
    })
}

impl BlasLibrary {
    /// Finds and loads a library of `family`: in the directories listed in
    /// `$NODEBENCH_BLAS_DIRS` (colon-separated) when it is set, else on the
    /// dynamic loader's own path.
    pub fn find(family: Family) -> Result<BlasLibrary, BenchError> {
        let dirs: Option<Vec<String>> = std::env::var("NODEBENCH_BLAS_DIRS").ok().map(|v| {
            v.split(':')
                .filter(|d| !d.is_empty())
                .map(String::from)
                .collect()
        });
        let tried: Vec<String> = match &dirs {
            Some(dirs) => dirs
                .iter()
                .flat_map(|d| {
                    library_names(family)
                        .iter()
                        .map(move |n| format!("{d}/{n}"))
                })
                .collect(),
            None => library_names(family)
                .iter()
                .map(|n| n.to_string())
                .collect(),
        };
        for name in &tried {
            if let Ok(lib) = BlasLibrary::open(name) {
                return Ok(lib);
            }
        }
        Err(BenchError::System(format!(
            "--blas {}: no {} library found (tried {}{}); install {} or give the library's path: --blas /path/to/lib.so",
            family.as_str(),
            family.as_str(),
            if tried.is_empty() {
                "nothing".to_string()
            } else {
                tried.join(", ")
            },
            if dirs.is_some() {
                " from $NODEBENCH_BLAS_DIRS"
            } else {
                ""
            },
            package(family)
        )))
    }

    /// Loads the library at `path` (or a name the loader resolves) and finds
    /// its dgesv and thread control.
    pub fn open(path: &str) -> Result<BlasLibrary, BenchError> {
        // SAFETY: loading a BLAS runs its initialisers, which set up its
        // thread pool and touch nothing of ours.
        let lib = unsafe { Library::new(path) }.map_err(|e| BenchError::System(format!("{e}")))?;
        // SAFETY: the types are those of the documented C interfaces of LAPACK, OpenBLAS, MKL and BLIS.
        let dgesv = unsafe {
            if let Some(f) = symbol::<DgesvFn<i32>>(&lib, "dgesv_") {
                Dgesv::Lp64(f)
            } else if let Some(f) = symbol::<DgesvFn<i64>>(&lib, "dgesv_64_")
                .or_else(|| symbol::<DgesvFn<i64>>(&lib, "scipy_dgesv_64_"))
            {
                Dgesv::Ilp64(f)
            } else {
                return Err(BenchError::System(format!(
                    "--blas {path}: the library has no dgesv_ (LAPACK) entry point"
                )));
            }
        };
        // SAFETY: the types are those of the reference BLAS's dgemm.
        let dgemm = unsafe {
            symbol::<DgemmFn<i32>>(&lib, "dgemm_")
                .map(Dgemm::Lp64)
                .or_else(|| {
                    symbol::<DgemmFn<i64>>(&lib, "dgemm_64_")
                        .or_else(|| symbol::<DgemmFn<i64>>(&lib, "scipy_dgemm_64_"))
                        .map(Dgemm::Ilp64)
                })
        };
        type GetConfig = unsafe extern "C" fn() -> *const c_char;
        type SetInt = unsafe extern "C" fn(c_int);
        type SetI64 = unsafe extern "C" fn(i64);
        type MklVersion = unsafe extern "C" fn(*mut c_char, c_int);
        // SAFETY: the types are those of the documented C interfaces of LAPACK, OpenBLAS, MKL and BLIS.
        let (kind, version, set_threads): (&'static str, String, Option<ThreadControl>) = unsafe {
            let openblas = ["", "scipy_"].iter().find_map(|prefix| {
                let suffix = if prefix.is_empty() { "" } else { "64_" };
                let config =
                    symbol::<GetConfig>(&lib, &format!("{prefix}openblas_get_config{suffix}"))?;
                let set =
                    symbol::<SetInt>(&lib, &format!("{prefix}openblas_set_num_threads{suffix}"));
                Some((config, set))
            });
            if let Some((config, set)) = openblas {
                let v = text(config()).unwrap_or_else(|| "OpenBLAS".into());
                (
                    "openblas",
                    v,
                    set.map(|f| Box::new(move |n: usize| f(n as c_int)) as Box<_>),
                )
            } else if let Some(ver) = symbol::<MklVersion>(&lib, "MKL_Get_Version_String") {
                let mut buf = [0 as c_char; 256];
                ver(buf.as_mut_ptr(), buf.len() as c_int);
                let v = text(buf.as_ptr()).unwrap_or_else(|| "Intel MKL".into());
                let set = symbol::<SetInt>(&lib, "MKL_Set_Num_Threads");
                (
                    "mkl",
                    v,
                    set.map(|f| Box::new(move |n: usize| f(n as c_int)) as Box<_>),
                )
            } else if let Some(info) = symbol::<GetConfig>(&lib, "bli_info_get_version_str") {
                let v = format!("libFLAME/BLIS {}", text(info()).unwrap_or_default());
                let set = symbol::<SetI64>(&lib, "bli_thread_set_num_threads");
                (
                    "flame",
                    v,
                    set.map(|f| Box::new(move |n: usize| f(n as i64)) as Box<_>),
                )
            } else {
                (
                    "lapack",
                    format!("LAPACK from {path} (version unknown)"),
                    None,
                )
            }
        };
        Ok(BlasLibrary {
            _lib: ManuallyDrop::new(lib),
            dgesv,
            dgemm,
            set_threads,
            path: path.to_string(),
            version,
            kind,
        })
    }

    /// Asks the library to use `threads` threads; false when it has no
    /// thread control (it then uses its own default).
    pub fn set_threads(&self, threads: usize) -> bool {
        match &self.set_threads {
            Some(f) => {
                let _turn = CALLS.lock().unwrap_or_else(|e| e.into_inner());
                f(threads);
                true
            }
            None => false,
        }
    }

    /// Solves the equations in place with dgesv (A becomes its LU factors
    /// and b becomes x). Returns the time of the dgesv call alone, taken on
    /// the thread that makes it.
    pub fn solve(&self, eq: Equations<'_>) -> Result<Duration, SolveError> {
        let Equations { n, a, lda, b } = eq;
        assert!(a.len() >= lda * n && b.len() >= n && lda >= n.max(1));
        let _turn = CALLS.lock().unwrap_or_else(|e| e.into_inner());
        let (info, time) = match self.dgesv {
            Dgesv::Lp64(f) => call(f, n, a, lda, b),
            Dgesv::Ilp64(f) => call(f, n, a, lda, b),
        }
        .map_err(|()| {
            SolveError::Library(format!(
                "{}: order {n} is too large for its {}-bit LAPACK interface",
                self.path,
                if matches!(self.dgesv, Dgesv::Lp64(_)) {
                    32
                } else {
                    64
                }
            ))
        })?;
        match info {
            0 => Ok(time),
            k if k > 0 => Err(SolveError::Singular { column: k as usize }),
            k => Err(SolveError::Library(format!(
                "dgesv rejected argument {}",
                -k
            ))),
        }
    }
}

impl BlasLibrary {
    /// Whether the library exports dgemm.
    pub fn has_dgemm(&self) -> bool {
        self.dgemm.is_some()
    }

    /// `C -= A B` for `n` x `n` column-major matrices with the library's
    /// dgemm. Calls are not serialised: HPCC's StarDGEMM runs one multiply
    /// per core at once, so the caller sets the library to one thread
    /// first ([`BlasLibrary::set_threads`]).
    pub fn multiply_sub(
        &self,
        n: usize,
        a: &[f64],
        b: &[f64],
        c: &mut [f64],
    ) -> Result<(), BenchError> {
        assert!(a.len() >= n * n && b.len() >= n * n && c.len() >= n * n);
        let too_large = || {
            BenchError::System(format!(
                "{}: order {n} is too large for its BLAS interface",
                self.path
            ))
        };
        match self.dgemm {
            Some(Dgemm::Lp64(f)) => gemm_call(f, n, a, b, c).map_err(|()| too_large()),
            Some(Dgemm::Ilp64(f)) => gemm_call(f, n, a, b, c).map_err(|()| too_large()),
            None => Err(BenchError::System(format!(
                "{}: the library has no dgemm_ entry point",
                self.path
            ))),
        }
    }
}

/// Calls dgemm `f` for `C = -1 A B + 1 C`; `Err` when `n * n` does not fit
/// in `I`.
fn gemm_call<I>(f: DgemmFn<I>, n: usize, a: &[f64], b: &[f64], c: &mut [f64]) -> Result<(), ()>
where
    I: Copy + TryFrom<usize>,
{
    let n_i = I::try_from(n).map_err(|_| ())?;
    I::try_from(n * n).map_err(|_| ())?;
    let no = b'N' as c_char;
    let (alpha, beta) = (-1.0f64, 1.0f64);
    // SAFETY: A, B and C each hold n x n elements with leading dimension n
    // (asserted by the caller), as dgemm reads and writes them; every
    // scalar is passed by a pointer to a local that outlives the call.
    unsafe {
        f(
            &no,
            &no,
            &n_i,
            &n_i,
            &n_i,
            &alpha,
            a.as_ptr(),
            &n_i,
            b.as_ptr(),
            &n_i,
            &beta,
            c.as_mut_ptr(),
            &n_i,
        )
    };
    Ok(())
}

/// Calls dgesv `f` with integers of type `I` on a thread with a large stack,
/// and returns LAPACK's info and the call's time; `Err` when the order does
/// not fit in `I`.
fn call<I>(
    f: DgesvFn<I>,
    n: usize,
    a: &mut [f64],
    lda: usize,
    b: &mut [f64],
) -> Result<(i64, Duration), ()>
where
    I: Copy + Default + Send + Sync + TryFrom<usize> + Into<i64>,
{
    let to_int = |v: usize| I::try_from(v).map_err(|_| ());
    let (n_i, lda_i, one) = (to_int(n)?, to_int(lda)?, to_int(1)?);
    to_int(lda * n)?;
    let mut ipiv = vec![I::default(); n];
    let mut info = I::default();
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .name("blas-call".into())
            .stack_size(BLAS_STACK)
            .spawn_scoped(s, || {
                let start = Instant::now();
                // SAFETY: a holds lda x n elements, b and ipiv n, as dgesv
                // requires; the sizes fit in I (checked above).
                unsafe {
                    f(
                        &n_i,
                        &one,
                        a.as_mut_ptr(),
                        &lda_i,
                        ipiv.as_mut_ptr(),
                        b.as_mut_ptr(),
                        &n_i,
                        &mut info,
                    )
                };
                start.elapsed()
            })
            .map_err(|_| ())?
            .join()
            .map_err(|_| ())
    })
    .map(|time| (info.into(), time))
}
