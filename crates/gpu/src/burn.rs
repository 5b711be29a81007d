//! `gpu burn`: every GPU multiplies at once for `--duration`, as gpu-burn
//! and DCGM's diagnostics load them: the first product is checked against
//! a host reference, every later one compared with it bit for bit on the
//! GPU (cuBLAS gives the same bits for the same call on the same GPU, so
//! any difference is a fault), and NVML watched throughout: XID errors,
//! volatile ECC counts, retired pages and remapped rows, throttle reasons,
//! temperature, power and SM clock. One result per GPU: the mean and the
//! slowest second's FLOP/s, the rate each second as a series, the
//! mismatches and NVML's counts; failed where anything faulted.

use std::ffi::c_void;
use std::time::{Duration, Instant};

use nodebench_core::bench::{BenchError, Benchmark, Cancel, Context};
use nodebench_core::config::Config;
use nodebench_core::inventory::Inventory;
use nodebench_core::names::gpu::{self as names, ecc, label, metric, param};
use nodebench_core::rng::XorShift64;
use nodebench_core::{BenchResult, Better, Metric, TimeSeries, Unit};
use nodebench_machine::gpu::health::{Report, Watch};
use nodebench_nvidia::cuda::Stream;

use crate::config::BurnConfig;
use crate::device::{self, Gpu};
use crate::gemm::{Multiply, random_matrix};
use crate::kernels::compare_kernel;
use crate::peak::peak_flops;
use crate::toolkit::Cublas;

/// The benchmark.
pub struct GpuBurn {
    pub config: BurnConfig,
}

/// How long each timed interval of multiplies lasts (a point of the rate
/// series, a poll of NVML).
pub const INTERVAL: Duration = Duration::from_secs(1);

/// Multiplies per interval for one that takes `once` seconds: at least 1.
pub fn per_interval(once: f64) -> u32 {
    (INTERVAL.as_secs_f64() / once.max(1e-6))
        .round()
        .clamp(1.0, 100_000.0) as u32
}

/// The mean rate and the slowest interval's, from (flop, seconds) pairs.
pub fn rates(intervals: &[(f64, f64)]) -> Option<(f64, f64)> {
    let (flop, secs) = intervals
        .iter()
        .fold((0.0, 0.0), |(f, s), (a, b)| (f + a, s + b));
    let min = intervals
        .iter()
        .filter(|(_, s)| *s > 0.0)
        .map(|(f, s)| f / s)
        .fold(f64::INFINITY, f64::min);
    (secs > 0.0 && min.is_finite()).then_some((flop / secs, min))
}

impl Benchmark for GpuBurn {
    fn id(&self) -> &'static str {
        names::BURN
    }

    fn validate(&self) -> Result<(), BenchError> {
        self.config.validate()
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        self.config.validate()?;
        let c = &self.config;
        let gpus = device::ordinals(c.gpus.as_deref())?;
        // One pair of inputs for every GPU, so their products agree too.
        let mut rng = XorShift64::new(0x6275_726e);
        let a = random_matrix(&mut rng, c.size);
        let b = random_matrix(&mut rng, c.size);
        let (inventory, cancel) = (ctx.inventory, ctx.cancel.clone());
        let results: Vec<BenchResult> = std::thread::scope(|s| {
            let handles: Vec<_> = gpus
                .iter()
                .map(|&g| {
                    let (a, b, cancel) = (&a, &b, cancel.clone());
                    s.spawn(move || burn_one(g, inventory, c, (a, b), &cancel))
                })
                .collect();
            handles
                .into_iter()
                .zip(&gpus)
                .map(|(h, g)| {
                    h.join().unwrap_or_else(|_| {
                        let mut r = BenchResult::new(names::BURN);
                        r.mark_failed(format!("GPU {g}: the burn thread panicked"));
                        r
                    })
                })
                .collect()
        });
        for r in results {
            ctx.record(r)?;
        }
        Ok(())
    }
}

fn burn_one(
    g: u32,
    inventory: &Inventory,
    c: &BurnConfig,
    inputs: (&[f64], &[f64]),
    cancel: &Cancel,
) -> BenchResult {
    let mut result = BenchResult::new(names::BURN);
    let outcome =
        Gpu::open(g, inventory).and_then(|gpu| burn(&gpu, c, inputs, cancel, &mut result));
    match outcome {
        Err(e) => result.mark_failed(e.to_string()),
        Ok(faults) if !faults.is_empty() => result.mark_failed(faults.join("; ")),
        Ok(_) if cancel.is_cancelled() => result.mark_cancelled(),
        Ok(_) => {}
    }
    result
}

/// Burns one GPU; the faults found (empty when none).
fn burn(
    gpu: &Gpu,
    c: &BurnConfig,
    (a_host, b_host): (&[f64], &[f64]),
    cancel: &Cancel,
    result: &mut BenchResult,
) -> Result<Vec<String>, crate::Error> {
    let d = gpu.driver;
    let (p, n) = (c.precision.as_str(), c.size);
    result.set_param(param::GPU, gpu.label());
    result.set_param(
        param::COMPUTE_CAPABILITY,
        gpu.info.compute_capability.clone(),
    );
    result.set_param(param::BURN_GEMM, format!("{p} n={n}"));
    result.set_param(param::DURATION, format!("{} s", c.duration.as_secs()));
    result.set_param(
        param::METHOD,
        "every GPU at once: C = A B as gpu gemm does it, back to back in intervals of about 1 s timed with events; the first C checked against a host reference on 16 sampled entries, every later C compared with it bit for bit on the GPU, inside the timed intervals (the comparison reads both Cs: about 2% of the time for FP32 at n = 8192 on an H100, more for faster precisions and smaller n); NVML polled after each interval for XID events, throttle reasons, temperature, power and SM clock, its ECC, retired-page and remapped-row counters read before and after",
    );
    let blas = Cublas::open(d)?;
    let m = Multiply::new(gpu, &blas, p, n, a_host, b_host)?;
    result.set_param(
        param::LIBRARIES,
        format!("{}; CUDA driver {}", m.describe(), d.path),
    );
    let (kernels, _) = gpu.kernels()?;
    let cmp = kernels[compare_kernel(m.out_bytes)
        .ok_or_else(|| crate::Error::Failed("no comparison for this precision".into()))?];
    let nn = u64::from(n) * u64::from(n);
    let work = d.alloc(nn as usize * m.out_bytes)?;
    let bad = d.alloc(8)?;
    bad.upload(&[0u64])?;
    let mut watch = match d
        .pci_bus_id(gpu.device)
        .ok_or_else(|| crate::Error::Failed("the driver gives no PCI bus id".to_string()))
        .and_then(|bus| Ok(Watch::open(&bus)?))
    {
        Ok(w) => Some(w),
        Err(why) => {
            result.set_param(param::HEALTH_UNAVAILABLE, format!("NVML: {why}"));
            None
        }
    };
    // The reference product, checked, then one timed to size the intervals.
    m.run()?;
    d.synchronize()?;
    let mut rng = XorShift64::new(u64::from(gpu.ordinal) + 1);
    m.check(&mut rng)?;
    let grid = 4 * gpu.info.sms.unwrap_or(108).max(1);
    let step = || -> Result<(), crate::Error> {
        m.run_into(work.ptr)?;
        let (mut x, mut y, mut len, mut counter) = (work.ptr, m.c.ptr, nn, bad.ptr);
        let arg = |v: &mut u64| v as *mut u64 as *mut c_void;
        // SAFETY: the comparison's parameters in order (kernels::SOURCE):
        // two device arrays of nn elements of its width, nn, the counter;
        // the locals outlive the call.
        unsafe {
            d.launch(
                cmp,
                grid,
                256,
                0,
                &mut [arg(&mut x), arg(&mut y), arg(&mut len), arg(&mut counter)],
            )
        }?;
        Ok(())
    };
    let t = Instant::now();
    step()?;
    d.synchronize()?;
    let k = per_interval(t.elapsed().as_secs_f64());
    let flop = 2.0 * f64::from(n).powi(3);
    let (start, end) = (d.event()?, d.event()?);
    let began = Instant::now();
    let mut intervals: Vec<(f64, f64)> = Vec::new();
    let mut points = Vec::new();
    let mut iterations = 0u64;
    let mut mismatches = 0u64;
    let mut bad_iterations = 0u64;
    while began.elapsed() < c.duration && !cancel.is_cancelled() {
        d.record(start, Stream::DEFAULT)?;
        for _ in 0..k {
            step()?;
        }
        d.record(end, Stream::DEFAULT)?;
        let secs = d.elapsed(start, end)?;
        iterations += u64::from(k);
        intervals.push((flop * f64::from(k), secs));
        points.push((began.elapsed().as_secs_f64(), flop * f64::from(k) / secs));
        let mut count = [0u64];
        bad.download(&mut count)?;
        if count[0] > mismatches {
            bad_iterations += 1;
            mismatches = count[0];
        }
        if let Some(w) = watch.as_mut() {
            w.poll();
        }
    }
    let report = watch.map(Watch::finish);
    let labelled = |m: Metric| {
        m.label(label::GPU, gpu.ordinal)
            .label(label::PRECISION, p)
            .label(label::N, n)
    };
    let push = |result: &mut BenchResult, name: &str, v: f64, unit: Unit, better: Better| {
        result
            .metrics
            .push(labelled(Metric::new(name, v, unit, better)));
    };
    if let Some((mean, min)) = rates(&intervals) {
        push(
            result,
            metric::RATE,
            mean,
            Unit::FlopsPerSecond,
            Better::Higher,
        );
        push(
            result,
            metric::RATE_MIN,
            min,
            Unit::FlopsPerSecond,
            Better::Higher,
        );
        if let Ok((peak, how)) = peak_flops(&gpu.info, gpu.major, gpu.minor, p) {
            push(
                result,
                metric::PEAK_PERCENT,
                100.0 * mean / peak,
                Unit::Percent,
                Better::Higher,
            );
            result.set_param(param::PEAK, format!("{p} {how}"));
        }
    }
    push(
        result,
        metric::ITERATIONS,
        iterations as f64,
        Unit::Count,
        Better::Higher,
    );
    push(
        result,
        metric::MISMATCHES,
        mismatches as f64,
        Unit::Count,
        Better::Lower,
    );
    let mut faults = Vec::new();
    if mismatches > 0 {
        faults.push(format!(
            "GPU {}: {mismatches} elements of C differed from the first product in {bad_iterations} of {} intervals",
            gpu.ordinal,
            intervals.len()
        ));
    }
    if let Some(r) = &report {
        result
            .metrics
            .extend(health_metrics(r).into_iter().map(labelled));
        if !r.unavailable.is_empty() {
            result.set_param(param::HEALTH_UNAVAILABLE, r.unavailable.join("; "));
        }
        if !r.xids.is_empty() {
            result.set_param(param::XIDS, r.xid_text());
        }
        faults.extend(r.faults());
        result.warnings.extend(r.warnings());
    }
    result.series.push(TimeSeries {
        name: metric::RATE.into(),
        unit: Unit::FlopsPerSecond,
        labels: [
            (label::GPU.to_string(), gpu.ordinal.to_string()),
            (label::PRECISION.to_string(), p.to_string()),
            (label::N.to_string(), n.to_string()),
        ]
        .into_iter()
        .collect(),
        points,
    });
    Ok(faults)
}

/// NVML's figures of a burn: what it could tell, nothing it could not.
pub fn health_metrics(r: &Report) -> Vec<Metric> {
    let mut out = Vec::new();
    let count = |name: &str, v: u64| Metric::new(name, v as f64, Unit::Count, Better::Lower);
    if !r.unavailable.iter().any(|u| u.starts_with("XID")) {
        out.push(count(metric::XID_ERRORS, r.xids.len() as u64));
    }
    let c = &r.counters;
    for (kind, v) in [
        (ecc::CORRECTED, c.ecc_corrected),
        (ecc::UNCORRECTED, c.ecc_uncorrected),
    ] {
        if let Some(v) = v {
            out.push(count(metric::ECC_ERRORS, v).label(label::ECC, kind));
        }
    }
    if c.retired_pages.is_some() || c.remapped_rows.is_some() {
        out.push(count(
            metric::RETIRED_MEMORY,
            c.retired_pages.unwrap_or(0) + c.remapped_rows.unwrap_or(0),
        ));
    }
    for (reason, pct) in r.throttled_percent() {
        out.push(
            Metric::new(metric::THROTTLED, pct, Unit::Percent, Better::Lower)
                .label(label::THROTTLE, reason),
        );
    }
    if let Some(t) = r.temperature_max {
        out.push(Metric::new(
            metric::TEMPERATURE_MAX,
            t,
            Unit::Count,
            Better::Lower,
        ));
    }
    if let Some(w) = r.power_max {
        out.push(Metric::new(
            metric::POWER_MAX,
            w,
            Unit::Watts,
            Better::Lower,
        ));
    }
    if let Some(hz) = r.sm_clock_mean_hz {
        out.push(Metric::new(
            metric::SM_CLOCK_MEAN,
            hz,
            Unit::Hertz,
            Better::Higher,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_hold_about_a_second_of_multiplies() {
        assert_eq!(per_interval(0.02), 50);
        assert_eq!(per_interval(3.0), 1);
        assert_eq!(per_interval(0.0), 100_000);
    }

    #[test]
    fn the_mean_weighs_by_time_and_the_minimum_is_the_slowest_interval() {
        // 100 TFLOP in 1 s, then 100 in 2 s: mean 200 / 3, slowest 50.
        let (mean, min) = rates(&[(100e12, 1.0), (100e12, 2.0)]).unwrap();
        assert!((mean - 200e12 / 3.0).abs() < 1.0);
        assert_eq!(min, 50e12);
        assert_eq!(rates(&[]), None);
    }

    #[test]
    fn health_figures_are_only_those_nvml_could_tell() {
        use nodebench_machine::gpu::health::Counters;
        let mut r = Report {
            samples: 4,
            throttled_samples: [4, 0, 0, 1, 0],
            power_max: Some(698.0),
            counters: Counters {
                ecc_corrected: Some(2),
                ..Counters::default()
            },
            ..Report::default()
        };
        r.unavailable.push("XID events: not supported".into());
        let m = health_metrics(&r);
        let names: Vec<_> = m.iter().map(|m| m.name.as_str()).collect();
        // No XID count where events could not be watched, no uncorrected
        // or retired count where NVML gave none: absent, not zero.
        assert_eq!(
            names,
            [
                metric::ECC_ERRORS,
                metric::THROTTLED,
                metric::THROTTLED,
                metric::THROTTLED,
                metric::THROTTLED,
                metric::THROTTLED,
                metric::POWER_MAX
            ]
        );
        assert_eq!(m[0].label_value(label::ECC), Some(ecc::CORRECTED));
        assert_eq!(m[0].value, 2.0);
        assert_eq!(m[1].value, 100.0);
        assert_eq!(m[4].value, 25.0);
        assert_eq!(m[6].unit, Unit::Watts);
        r.unavailable.clear();
        r.xids.push(79);
        assert_eq!(health_metrics(&r)[0].name, metric::XID_ERRORS);
        assert_eq!(health_metrics(&r)[0].value, 1.0);
    }
}
