//! The GPU benchmarks' configurations.

use std::time::Duration;

use nodebench_core::bench::BenchError;
use nodebench_core::config::Config;
use nodebench_core::names::gpu::precision;

/// `gpu stream`.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamConfig {
    /// GPUs by CUDA ordinal; `None` for all.
    pub gpus: Option<Vec<u32>>,
    /// Doubles per array; `None` sizes them from the GPU's memory.
    pub array_elements: Option<u64>,
    /// Timed repetitions of each kernel (the first is not counted).
    pub ntimes: u32,
}

impl Default for StreamConfig {
    fn default() -> Self {
        StreamConfig {
            gpus: None,
            array_elements: None,
            ntimes: 100,
        }
    }
}

impl Config for StreamConfig {
    fn validate(&self) -> Result<(), BenchError> {
        if !(2..=10_000).contains(&self.ntimes) {
            return Err(BenchError::Invalid(format!(
                "--ntimes: expected 2 to 10000, got {}",
                self.ntimes
            )));
        }
        if let Some(n) = self.array_elements
            && (n < 1 << 20 || n % 1024 != 0)
        {
            return Err(BenchError::Invalid(format!(
                "--array-size: expected a multiple of 1024 of at least 1048576 elements (e.g. 268435456), got {n}"
            )));
        }
        check_gpus(&self.gpus)
    }
}

/// `gpu gemm`.
#[derive(Debug, Clone, PartialEq)]
pub struct GemmConfig {
    pub gpus: Option<Vec<u32>>,
    /// Precisions, from [`precision::ALL`].
    pub precisions: Vec<String>,
    /// Matrix orders (square).
    pub sizes: Vec<u32>,
    /// Time each size runs for, at least.
    pub duration: Duration,
}

impl Default for GemmConfig {
    fn default() -> Self {
        GemmConfig {
            gpus: None,
            precisions: precision::ALL.iter().map(|p| p.to_string()).collect(),
            sizes: vec![2048, 4096, 8192],
            duration: Duration::from_millis(500),
        }
    }
}

impl Config for GemmConfig {
    fn validate(&self) -> Result<(), BenchError> {
        if self.precisions.is_empty() {
            return Err(BenchError::Invalid(
                "--precisions: expected one or more of fp64,fp32,tf32,fp16,bf16,fp8".into(),
            ));
        }
        if let Some(p) = self
            .precisions
            .iter()
            .find(|p| !precision::ALL.contains(&p.as_str()))
        {
            return Err(BenchError::Invalid(format!(
                "--precisions: unknown precision {p:?} (expected fp64, fp32, tf32, fp16, bf16 or fp8)"
            )));
        }
        if self.sizes.is_empty()
            || self
                .sizes
                .iter()
                .any(|n| !(64..=65_536).contains(n) || n % 64 != 0)
        {
            return Err(BenchError::Invalid(format!(
                "--sizes: expected multiples of 64 from 64 to 65536 (e.g. 4096,8192), got {:?}",
                self.sizes
            )));
        }
        if self.duration < Duration::from_millis(10) || self.duration > Duration::from_secs(600) {
            return Err(BenchError::Invalid(
                "--duration: expected 10ms to 10m per size and precision (e.g. 500ms)".into(),
            ));
        }
        check_gpus(&self.gpus)
    }
}

/// `gpu bandwidth`.
#[derive(Debug, Clone, PartialEq)]
pub struct BandwidthConfig {
    pub gpus: Option<Vec<u32>>,
    /// Bytes per copy.
    pub bytes: u64,
    /// Timed copies per figure (their median is the figure).
    pub repeats: u32,
}

impl Default for BandwidthConfig {
    fn default() -> Self {
        BandwidthConfig {
            gpus: None,
            bytes: 256 << 20,
            repeats: 10,
        }
    }
}

impl Config for BandwidthConfig {
    fn validate(&self) -> Result<(), BenchError> {
        if self.bytes < 1 << 20 || self.bytes > 64 << 30 {
            return Err(BenchError::Invalid(format!(
                "--size: expected 1 MiB to 64 GiB per copy (e.g. 256MiB), got {} B",
                self.bytes
            )));
        }
        if !(3..=1000).contains(&self.repeats) {
            return Err(BenchError::Invalid(format!(
                "--repeats: expected 3 to 1000, got {}",
                self.repeats
            )));
        }
        check_gpus(&self.gpus)
    }
}

/// `gpu burn`.
#[derive(Debug, Clone, PartialEq)]
pub struct BurnConfig {
    pub gpus: Option<Vec<u32>>,
    /// How long every GPU multiplies.
    pub duration: Duration,
    /// The multiplies' precision, from [`precision::ALL`].
    pub precision: String,
    /// Their order n (square).
    pub size: u32,
}

impl Default for BurnConfig {
    /// gpu-burn's defaults: FP32, 60 s; n = 8192.
    fn default() -> Self {
        BurnConfig {
            gpus: None,
            duration: Duration::from_secs(60),
            precision: precision::FP32.into(),
            size: 8192,
        }
    }
}

impl Config for BurnConfig {
    fn validate(&self) -> Result<(), BenchError> {
        if self.duration < Duration::from_secs(2) || self.duration > Duration::from_secs(30 * 86400)
        {
            return Err(BenchError::Invalid(
                "--duration: expected 2s to 30d (e.g. 60s, 8h)".into(),
            ));
        }
        if !precision::ALL.contains(&self.precision.as_str()) {
            return Err(BenchError::Invalid(format!(
                "--precision: unknown precision {:?} (expected fp64, fp32, tf32, fp16, bf16 or fp8)",
                self.precision
            )));
        }
        if !(256..=32_768).contains(&self.size) || !self.size.is_multiple_of(64) {
            return Err(BenchError::Invalid(format!(
                "--size: expected a multiple of 64 from 256 to 32768 (e.g. 8192), got {}",
                self.size
            )));
        }
        check_gpus(&self.gpus)
    }
}

fn check_gpus(gpus: &Option<Vec<u32>>) -> Result<(), BenchError> {
    if let Some(g) = gpus
        && g.is_empty()
    {
        return Err(BenchError::Invalid(
            "--gpus: expected GPU ordinals, e.g. 0,1".into(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused<C: Config>(c: &C) -> String {
        c.validate().unwrap_err().to_string()
    }

    #[test]
    fn defaults_are_valid() {
        StreamConfig::default().validate().unwrap();
        GemmConfig::default().validate().unwrap();
        BandwidthConfig::default().validate().unwrap();
        BurnConfig::default().validate().unwrap();
    }

    #[test]
    fn burn_refuses_what_it_cannot_run() {
        let b = |f: fn(&mut BurnConfig)| {
            let mut c = BurnConfig::default();
            f(&mut c);
            refused(&c)
        };
        assert_eq!(
            b(|c| c.duration = Duration::from_secs(1)),
            "--duration: expected 2s to 30d (e.g. 60s, 8h)"
        );
        assert_eq!(
            b(|c| c.precision = "int8".into()),
            "--precision: unknown precision \"int8\" (expected fp64, fp32, tf32, fp16, bf16 or fp8)"
        );
        assert_eq!(
            b(|c| c.size = 1000),
            "--size: expected a multiple of 64 from 256 to 32768 (e.g. 8192), got 1000"
        );
    }

    #[test]
    fn bad_values_name_their_flag_and_form() {
        let s = StreamConfig {
            ntimes: 1,
            ..StreamConfig::default()
        };
        assert_eq!(refused(&s), "--ntimes: expected 2 to 10000, got 1");
        let s = StreamConfig {
            array_elements: Some(1000),
            ..StreamConfig::default()
        };
        assert!(refused(&s).starts_with("--array-size: expected a multiple of 1024"));
        let g = GemmConfig {
            precisions: vec!["fp8x".into()],
            ..GemmConfig::default()
        };
        assert_eq!(
            refused(&g),
            "--precisions: unknown precision \"fp8x\" (expected fp64, fp32, tf32, fp16, bf16 or fp8)"
        );
        let g = GemmConfig {
            sizes: vec![100],
            ..GemmConfig::default()
        };
        assert!(refused(&g).starts_with("--sizes: expected multiples of 64"));
        let b = BandwidthConfig {
            bytes: 1000,
            ..BandwidthConfig::default()
        };
        assert_eq!(
            refused(&b),
            "--size: expected 1 MiB to 64 GiB per copy (e.g. 256MiB), got 1000 B"
        );
        let b = BandwidthConfig {
            gpus: Some(vec![]),
            ..BandwidthConfig::default()
        };
        assert_eq!(refused(&b), "--gpus: expected GPU ordinals, e.g. 0,1");
    }
}
