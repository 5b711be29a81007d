//! What `cpu linpack` runs: the orders, the trials, the backend asked for
//! with `--blas`, with Intel's optimized LINPACK's defaults and the one check
//! of them.

use std::fmt;
use std::str::FromStr;

use nodebench_core::bench::BenchError;
use nodebench_core::config::{Choice, Config};

/// The orders Intel's sample run uses, and ours by default.
pub const DEFAULT_SIZES: [usize; 4] = [1000, 2000, 5000, 10000];

/// The memory fraction `--full` uses when `--memory-fraction` is not given.
pub const FULL_MEMORY_FRACTION: f64 = 0.8;

nodebench_core::choice! {
    /// A system BLAS/LAPACK library family, searched by name.
    pub enum Family {
        /// OpenBLAS.
        OpenBlas => "openblas",
        /// Intel MKL (libmkl_rt).
        Mkl => "mkl",
        /// libFLAME, usually over BLIS.
        Flame => "flame",
    }
}

/// What `--blas` asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlasChoice {
    /// The fastest of the Rust backend and every system BLAS found.
    Auto,
    /// The pure-Rust backend.
    Rust,
    /// A library family searched on the loader's path.
    Family(Family),
    /// A library file given by path.
    Path(String),
}

impl BlasChoice {
    /// The accepted forms of a `--blas` value, for help and error texts:
    /// `auto, rust, openblas, mkl, flame or a library path`.
    pub fn accepted() -> String {
        format!("auto, rust, {} or a library path", Family::accepted())
    }
}

impl fmt::Display for BlasChoice {
    /// The `--blas` text that [`FromStr`] reads back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BlasChoice::Auto => f.write_str("auto"),
            BlasChoice::Rust => f.write_str("rust"),
            BlasChoice::Family(family) => write!(f, "{family}"),
            BlasChoice::Path(path) => f.write_str(path),
        }
    }
}

/// A `--blas` value that names no backend.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownBackend(pub String);

impl fmt::Display for UnknownBackend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "'{}' is not a backend; expected {}",
            self.0,
            BlasChoice::accepted()
        )
    }
}

impl std::error::Error for UnknownBackend {}

impl FromStr for BlasChoice {
    type Err = UnknownBackend;

    /// `auto`, `rust`, a [`Family`] name, or a library path (anything
    /// containing `/` or `.so`).
    fn from_str(s: &str) -> Result<BlasChoice, UnknownBackend> {
        Ok(match s {
            "auto" => BlasChoice::Auto,
            "rust" => BlasChoice::Rust,
            p if p.contains('/') || p.contains(".so") => BlasChoice::Path(p.to_string()),
            other => BlasChoice::Family(
                Family::from_name(other).map_err(|_| UnknownBackend(other.to_string()))?,
            ),
        })
    }
}

/// Which orders to solve.
#[derive(Debug, Clone, PartialEq)]
pub enum Sizes {
    /// These orders, in this order.
    List(Vec<usize>),
    /// The largest order whose system fits in this fraction of the memory
    /// available when the run starts.
    MemoryFraction(f64),
}

/// Which matrix to build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Uniform random entries: non-singular with probability one.
    Random,
    /// Random, with column 0 set to zero: exactly singular, for the tests
    /// that the check never passes a singular system.
    ZeroColumn,
}

/// Options of `cpu linpack`.
#[derive(Debug, Clone)]
pub struct LinpackConfig {
    /// Orders to solve.
    pub sizes: Sizes,
    /// Trials per order.
    pub trials: usize,
    /// The backend.
    pub blas: BlasChoice,
    /// Solver threads (default: every CPU this process may run on).
    pub threads: Option<usize>,
    /// Ask for transparent huge pages for A.
    pub hugepages: bool,
    /// Seed of the random matrix.
    pub seed: u64,
    /// The matrix to build: random, or (for tests) exactly singular.
    pub matrix: Kind,
}

impl Default for LinpackConfig {
    /// Intel's sample run: orders 1000, 2000, 5000 and 10000, 4 trials
    /// each; the fastest backend found; every CPU; huge pages; seed 42.
    fn default() -> Self {
        LinpackConfig {
            sizes: Sizes::List(DEFAULT_SIZES.to_vec()),
            trials: 4,
            blas: BlasChoice::Auto,
            threads: None,
            hugepages: true,
            seed: 42,
            matrix: Kind::Random,
        }
    }
}

impl Config for LinpackConfig {
    /// Checks the fields on their own; whether the orders fit in the memory
    /// available is checked when the run starts.
    fn validate(&self) -> Result<(), BenchError> {
        if self.trials == 0 {
            return Err(BenchError::Invalid(
                "--trials: expected a positive count".into(),
            ));
        }
        match &self.sizes {
            Sizes::List(sizes) if sizes.is_empty() || sizes.contains(&0) => {
                return Err(BenchError::Invalid(
                    "--sizes: expected positive orders, e.g. 1000,2000,5000".into(),
                ));
            }
            Sizes::MemoryFraction(f) if !(*f > 0.0 && *f <= 1.0) => {
                return Err(BenchError::Invalid(format!(
                    "--memory-fraction: expected a fraction in (0, 1], got {f}"
                )));
            }
            _ => {}
        }
        if self.threads == Some(0) {
            return Err(BenchError::Invalid(
                "--threads: expected a positive count".into(),
            ));
        }
        if self.blas == BlasChoice::Path(String::new()) {
            return Err(BenchError::Invalid(format!(
                "--blas: expected {}",
                BlasChoice::accepted()
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blas_values_parse_to_backends() {
        assert_eq!("auto".parse(), Ok(BlasChoice::Auto));
        assert_eq!("rust".parse(), Ok(BlasChoice::Rust));
        assert_eq!("openblas".parse(), Ok(BlasChoice::Family(Family::OpenBlas)));
        assert_eq!("mkl".parse(), Ok(BlasChoice::Family(Family::Mkl)));
        assert_eq!("flame".parse(), Ok(BlasChoice::Family(Family::Flame)));
        assert_eq!(
            "/opt/lib/libblas.so".parse(),
            Ok(BlasChoice::Path("/opt/lib/libblas.so".into()))
        );
        assert_eq!(
            "libopenblas.so.0".parse(),
            Ok(BlasChoice::Path("libopenblas.so.0".into()))
        );
        for text in [
            "auto",
            "rust",
            "openblas",
            "mkl",
            "flame",
            "/opt/lib/libblas.so",
        ] {
            assert_eq!(text.parse::<BlasChoice>().unwrap().to_string(), text);
        }
        assert_eq!(
            "cuda".parse::<BlasChoice>().unwrap_err().to_string(),
            "'cuda' is not a backend; expected auto, rust, openblas, mkl, flame or a library path"
        );
    }

    #[test]
    fn the_defaults_are_intels_sample_run() {
        let c = LinpackConfig::default();
        assert_eq!(c.sizes, Sizes::List(vec![1000, 2000, 5000, 10000]));
        assert_eq!((c.trials, c.seed), (4, 42));
        assert_eq!(c.blas, BlasChoice::Auto);
        assert_eq!(c.validate().map_err(|e| e.to_string()), Ok(()));
    }

    /// A change that spoils one field of a valid config.
    type Spoil = fn(&mut LinpackConfig);

    #[test]
    fn each_bad_field_is_named_in_one_line() {
        let cases: [(Spoil, &str); 7] = [
            (|c| c.trials = 0, "--trials: expected a positive count"),
            (
                |c| c.sizes = Sizes::List(vec![]),
                "--sizes: expected positive orders, e.g. 1000,2000,5000",
            ),
            (
                |c| c.sizes = Sizes::List(vec![1000, 0]),
                "--sizes: expected positive orders, e.g. 1000,2000,5000",
            ),
            (
                |c| c.sizes = Sizes::MemoryFraction(1.5),
                "--memory-fraction: expected a fraction in (0, 1], got 1.5",
            ),
            (
                |c| c.sizes = Sizes::MemoryFraction(0.0),
                "--memory-fraction: expected a fraction in (0, 1], got 0",
            ),
            (
                |c| c.threads = Some(0),
                "--threads: expected a positive count",
            ),
            (
                |c| c.blas = BlasChoice::Path(String::new()),
                "--blas: expected auto, rust, openblas, mkl, flame or a library path",
            ),
        ];
        for (spoil, expected) in cases {
            let mut c = LinpackConfig::default();
            spoil(&mut c);
            assert_eq!(c.validate().unwrap_err().to_string(), expected);
        }
        let nan = LinpackConfig {
            sizes: Sizes::MemoryFraction(f64::NAN),
            ..LinpackConfig::default()
        };
        assert!(nan.validate().is_err());
    }
}
