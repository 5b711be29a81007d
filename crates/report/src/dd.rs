//! `disk.dd` results close with dd's own summary line for each sync mode,
//! under the generic table.

use std::fmt::Write as _;

use nodebench_core::BenchResult;
use nodebench_core::names::disk::{label, metric, sync};

use crate::format;

/// dd's closing line for each sync mode of a `disk.dd` result:
/// `104857600 bytes (105 MB, 100 MiB) copied, 0.5 s, 210 MB/s`.
pub fn closing_lines(result: &BenchResult) -> String {
    let mut out = String::new();
    for mode in [sync::NONE, sync::FDATASYNC] {
        let printed = |name: &str| {
            let m = result.metric(name, &[(label::SYNC, mode)])?;
            m.printed.as_ref().map(|p| p.text.as_str())
        };
        // An imported summary as dd printed it: its own figures, nothing
        // recomputed.
        if let (Some(bytes), Some(secs), Some(rate)) = (
            printed(metric::BYTES),
            printed(metric::SECONDS),
            result
                .metric(metric::BANDWIDTH, &[(label::SYNC, mode)])
                .and_then(|m| m.printed.as_ref()),
        ) {
            let _ = writeln!(
                out,
                "{mode:>9}: {bytes} bytes copied, {secs} s, {}",
                rate.with_unit()
            );
            continue;
        }
        let get = |name: &str| result.metric(name, &[(label::SYNC, mode)]).map(|m| m.value);
        if let (Some(bytes), Some(secs)) = (get(metric::BYTES), get(metric::SECONDS)) {
            let (dp, dd) = format::si_prefix(bytes);
            let _ = writeln!(
                out,
                "{mode:>9}: {bytes:.0} bytes ({:.0} {dp}B, {}) copied, {secs:.3} s, {:.0} MB/s",
                bytes / dd,
                nodebench_core::units::format_bytes(bytes as u64),
                bytes / secs.max(1e-12) / 1e6
            );
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::names::disk;
    use nodebench_core::{Better, Metric, Unit};

    #[test]
    fn one_dd_line_per_sync_mode() {
        let mut r = BenchResult::new(disk::DD);
        for (mode, secs) in [(sync::NONE, 0.5), (sync::FDATASYNC, 2.0)] {
            r.metrics.extend([
                Metric::new(metric::BYTES, 104857600.0, Unit::Bytes, Better::Higher)
                    .label(label::SYNC, mode),
                Metric::new(metric::SECONDS, secs, Unit::Seconds, Better::Lower)
                    .label(label::SYNC, mode),
            ]);
        }
        assert_eq!(
            closing_lines(&r),
            "     none: 104857600 bytes (105 MB, 100 MiB) copied, 0.500 s, 210 MB/s\n\
             fdatasync: 104857600 bytes (105 MB, 100 MiB) copied, 2.000 s, 52 MB/s\n"
        );
    }

    #[test]
    fn an_imported_summary_closes_with_dd_own_figures() {
        let mut r = BenchResult::new(disk::DD);
        for (name, v, u, text, unit) in [
            (
                metric::BYTES,
                10485760000.0,
                Unit::Bytes,
                "10485760000",
                "bytes",
            ),
            (metric::SECONDS, 11.6923, Unit::Seconds, "11.6923", "s"),
            (
                metric::BANDWIDTH,
                897e6,
                Unit::BytesPerSecond,
                "897",
                "MB/s",
            ),
        ] {
            r.metrics.push(
                Metric::new(name, v, u, Better::Higher)
                    .label(label::SYNC, sync::NONE)
                    .printed(text, unit),
            );
        }
        assert_eq!(
            closing_lines(&r),
            "     none: 10485760000 bytes copied, 11.6923 s, 897 MB/s\n"
        );
    }
}
