//! `gpu burn` as gpu-burn and DCGM's diagnostics are read: per GPU one
//! block, the verdict and rate first, then what was compared and what
//! NVML saw (a figure NVML could not tell is said, not shown as zero),
//! then the rate of each interval.

use std::fmt::Write as _;

use nodebench_core::names::gpu::{ecc, label, metric, param, throttle};
use nodebench_core::{BenchResult, Unit};

use crate::format::value;

/// The report of one `gpu.burn` result.
pub fn burn(r: &BenchResult) -> String {
    let text = |key: &str| {
        r.param(key)
            .and_then(|v| v.as_str())
            .unwrap_or("")
            .to_string()
    };
    let get = |name: &str, labels: &[(&str, &str)]| r.metric(name, labels).map(|m| m.value);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} [{}]  GPU {}  {}  {}",
        r.benchmark,
        r.status.as_str(),
        text(param::GPU),
        text(param::BURN_GEMM),
        text(param::DURATION)
    );
    if let Some(rate) = get(metric::RATE, &[]) {
        let mut line = format!("  rate {}", value(rate, Unit::FlopsPerSecond));
        if let Some(p) = get(metric::PEAK_PERCENT, &[]) {
            let _ = write!(line, " ({p:.1} % of peak)");
        }
        if let Some(min) = get(metric::RATE_MIN, &[]) {
            let _ = write!(
                line,
                ", slowest interval {}",
                value(min, Unit::FlopsPerSecond)
            );
        }
        let _ = writeln!(out, "{line}");
    }
    if let Some(peak) = r.param(param::PEAK).and_then(|v| v.as_str()) {
        let _ = writeln!(out, "  peak {peak}");
    }
    if let (Some(n), Some(bad)) = (get(metric::ITERATIONS, &[]), get(metric::MISMATCHES, &[])) {
        let _ = writeln!(
            out,
            "  compared: {n:.0} products, {bad:.0} mismatched elements"
        );
    }
    let count = |name: &str, labels: &[(&str, &str)]| {
        get(name, labels).map_or("not reported".to_string(), |v| format!("{v:.0}"))
    };
    let _ = writeln!(
        out,
        "  NVML: XID errors {}; ECC corrected {}, uncorrected {}; retired pages / remapped rows {}",
        count(metric::XID_ERRORS, &[]),
        count(metric::ECC_ERRORS, &[(label::ECC, ecc::CORRECTED)]),
        count(metric::ECC_ERRORS, &[(label::ECC, ecc::UNCORRECTED)]),
        count(metric::RETIRED_MEMORY, &[]),
    );
    let shares: Vec<String> = throttle::ALL
        .iter()
        .filter_map(|t| {
            get(metric::THROTTLED, &[(label::THROTTLE, t)]).map(|p| format!("{t} {p:.1} %"))
        })
        .collect();
    if !shares.is_empty() {
        let _ = writeln!(out, "  clocks held down: {}", shares.join(", "));
    }
    let gauges: Vec<String> = [
        (metric::TEMPERATURE_MAX, "temperature max", None),
        (metric::POWER_MAX, "power max", Some(Unit::Watts)),
        (metric::SM_CLOCK_MEAN, "SM clock mean", Some(Unit::Hertz)),
    ]
    .iter()
    .filter_map(|(name, what, unit)| {
        let v = get(name, &[])?;
        Some(match unit {
            Some(u) => format!("{what} {}", value(v, *u)),
            None => format!("{what} {v:.0} C"),
        })
    })
    .collect();
    if !gauges.is_empty() {
        let _ = writeln!(out, "  {}", gauges.join(", "));
    }
    if let Some(why) = r.param(param::HEALTH_UNAVAILABLE).and_then(|v| v.as_str()) {
        let _ = writeln!(out, "  NVML could not tell: {why}");
    }
    if let Some(e) = &r.error {
        let _ = writeln!(out, "error: {e}");
    }
    for w in &r.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    for s in r.series.iter().filter(|s| s.name == metric::RATE) {
        out.push_str(&crate::table::series_lines(s));
    }
    out
}

#[cfg(test)]
mod tests {
    use nodebench_core::names::gpu;
    use nodebench_core::{Better, Metric, TimeSeries};

    use super::*;

    #[test]
    fn a_burn_reads_as_gpu_burn_with_what_nvml_could_not_tell() {
        let mut r = BenchResult::new(gpu::BURN);
        r.set_param(param::GPU, "0: NVIDIA H100 80GB HBM3");
        r.set_param(param::BURN_GEMM, "fp32 n=8192");
        r.set_param(param::DURATION, "60 s");
        r.set_param(
            param::HEALTH_UNAVAILABLE,
            "XID events: nvmlDeviceRegisterEvents returned 3",
        );
        let m = |name: &str, v: f64, unit: Unit| {
            Metric::new(name, v, unit, Better::Lower).label("gpu", 0)
        };
        r.metrics = vec![
            m(metric::RATE, 51.05e12, Unit::FlopsPerSecond),
            m(metric::RATE_MIN, 50.9e12, Unit::FlopsPerSecond),
            m(metric::PEAK_PERCENT, 76.3, Unit::Percent),
            m(metric::ITERATIONS, 2886.0, Unit::Count),
            m(metric::MISMATCHES, 0.0, Unit::Count),
            m(metric::ECC_ERRORS, 0.0, Unit::Count).label(label::ECC, ecc::CORRECTED),
            m(metric::ECC_ERRORS, 0.0, Unit::Count).label(label::ECC, ecc::UNCORRECTED),
            m(metric::THROTTLED, 100.0, Unit::Percent).label(label::THROTTLE, throttle::POWER_CAP),
            m(metric::POWER_MAX, 694.9, Unit::Watts),
            m(metric::TEMPERATURE_MAX, 61.0, Unit::Count),
        ];
        r.series.push(TimeSeries {
            name: metric::RATE.into(),
            unit: Unit::FlopsPerSecond,
            labels: Default::default(),
            points: vec![(1.0, 51e12)],
        });
        let text = burn(&r);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "gpu.burn [passed]  GPU 0: NVIDIA H100 80GB HBM3  fp32 n=8192  60 s"
        );
        assert_eq!(
            lines[1],
            "  rate 51.05 TFLOPS (76.3 % of peak), slowest interval 50.90 TFLOPS"
        );
        assert_eq!(lines[2], "  compared: 2886 products, 0 mismatched elements");
        // No XID count (events refused) and no retired count: said so.
        assert_eq!(
            lines[3],
            "  NVML: XID errors not reported; ECC corrected 0, uncorrected 0; retired pages / remapped rows not reported"
        );
        assert_eq!(lines[4], "  clocks held down: power_cap 100.0 %");
        assert_eq!(lines[5], "  temperature max 61 C, power max 694.90 W");
        assert!(lines[6].starts_with("  NVML could not tell: XID events"));
        assert!(text.contains("51.00 TFLOPS"), "{text}");
    }
}
