//! The acceptance verdict table printed at the end of a run with
//! thresholds (`--assert`) and by `runs show`: PASS or FAIL per threshold
//! with the measured value, then the run's overall verdict.

use std::fmt::Write as _;

use comfy_table::{Table, presets};
use nodebench_core::ThresholdVerdict;

use crate::format;

/// What a passed threshold shows.
pub const PASS: &str = "PASS";
/// What a failed threshold shows.
pub const FAIL: &str = "FAIL";

/// The measured value of a verdict with its unit (`25.50 GB/s`), `-` when
/// nothing matched.
pub fn measured_text(v: &ThresholdVerdict) -> String {
    match (v.measured, v.unit) {
        (Some(x), Some(u)) => format::value(x, u),
        (Some(x), None) => x.to_string(),
        _ => "-".into(),
    }
}

/// The verdict table and the overall line; empty without verdicts.
pub fn verdict_table(verdicts: &[ThresholdVerdict]) -> String {
    if verdicts.is_empty() {
        return String::new();
    }
    let mut table = Table::new();
    table.load_style(presets::ASCII_BORDERS_ONLY_CONDENSED);
    table.set_header(["verdict", "threshold", "measured", "detail"]);
    for v in verdicts {
        table.add_row([
            if v.passed { PASS } else { FAIL }.to_string(),
            v.threshold.clone(),
            measured_text(v),
            v.detail.clone().unwrap_or_default(),
        ]);
    }
    let failed = verdicts.iter().filter(|v| !v.passed).count();
    let mut out = format!("acceptance\n{table}\n");
    if failed == 0 {
        let _ = writeln!(out, "{PASS}: all {} threshold(s) hold", verdicts.len());
    } else {
        let _ = writeln!(
            out,
            "{FAIL}: {failed} of {} threshold(s) failed",
            verdicts.len()
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::Unit;

    #[test]
    fn a_row_per_threshold_and_the_overall_verdict() {
        let v = |passed, measured| ThresholdVerdict {
            threshold: "memory.stream bandwidth{kernel=triad} >= 20 GB/s".into(),
            passed,
            measured,
            unit: measured.map(|_| Unit::BytesPerSecond),
            matched: usize::from(measured.is_some()),
            detail: None,
        };
        let text = verdict_table(&[v(true, Some(25.5e9)), v(false, Some(12.25e9))]);
        let row = |verdict: &str| {
            text.lines()
                .find(|l| l.starts_with(&format!("| {verdict} ")))
                .unwrap_or_else(|| panic!("no {verdict} row:\n{text}"))
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(
            row(PASS),
            "| PASS memory.stream bandwidth{kernel=triad} >= 20 GB/s 25.50 GB/s |"
        );
        assert!(row(FAIL).ends_with(" 12.25 GB/s |"));
        assert!(
            text.ends_with("FAIL: 1 of 2 threshold(s) failed\n"),
            "{text}"
        );
        assert!(verdict_table(&[v(true, Some(1.0))]).ends_with("PASS: all 1 threshold(s) hold\n"));
        assert_eq!(verdict_table(&[]), "");
    }
}
