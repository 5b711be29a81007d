//! The `equivalent-size` result of `db as3ap --time-limit`: the spec's
//! metric in one line, then each trial of the search (size, seconds,
//! within the limit or not) and each phase's time at the equivalent size.
//! The single-user table of the trial at that size follows as its own
//! result.

use std::fmt::Write as _;

use nodebench_core::BenchResult;
use nodebench_core::names::db::{bound, label, metric, param, test};

use super::{fixed, param_text, status_line, value};

/// Bytes as the paper's megabytes (10^6 bytes).
fn mb(bytes: f64) -> String {
    format!("{:.1} MB", bytes / 1e6)
}

/// The summary, the trials' table and the phases' times.
pub(super) fn report(r: &BenchResult) -> String {
    let limit = value_of(r, param::TIME_LIMIT).unwrap_or(0.0);
    let timed = r
        .param(param::TIMED_TESTS)
        .and_then(|v| v.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|t| t.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default();
    let trials: Vec<String> = r
        .metrics_named(metric::TRIAL_SIZE)
        .filter_map(|m| m.labels.get(label::TRIAL).cloned())
        .collect();
    let spent = fixed(value(r, metric::SEARCH_SECONDS, &[]), 1);
    let how = param_text(r, param::EQUIVALENT).unwrap_or_default();
    let size = value(r, metric::EQUIVALENT_SIZE, &[]);
    let rows = value(r, metric::EQUIVALENT_ROWS_PER_TABLE, &[]);
    let rest = match (size, rows) {
        (Some(b), Some(n)) => format!(
            ": equivalent database size {}{} ({b:.0} B, {n:.0} rows per table), the largest whose {timed} finished within {limit:.0} s (the paper's 12 hours scaled down); {} trials in {spent} s",
            if how == bound::AT_LEAST {
                "at least "
            } else {
                ""
            },
            mb(b),
            trials.len()
        ),
        _ => format!(
            ": no equivalent size within {limit:.0} s ({timed}); {} trials in {spent} s",
            trials.len()
        ),
    };
    let mut out = status_line(r, test::EQUIVALENT_SIZE, &rest);
    if !trials.is_empty() {
        let within = format!("within {limit:.0} s");
        let _ = writeln!(
            out,
            "  {:>5} {:>14} {:>12} {:>10}  {within}",
            "trial", "size B", "rows/table", "seconds"
        );
        for t in &trials {
            let at = [(label::TRIAL, t.as_str())];
            let fits = value(r, metric::TRIAL_WITHIN_LIMIT, &at) == Some(1.0);
            let _ = writeln!(
                out,
                "  {t:>5} {:>14} {:>12} {:>10}  {}",
                fixed(value(r, metric::TRIAL_SIZE, &at), 0),
                fixed(value(r, metric::TRIAL_ROWS_PER_TABLE, &at), 0),
                fixed(value(r, metric::TRIAL_SECONDS, &at), 3),
                if fits { "yes" } else { "no" }
            );
        }
    }
    let phases: Vec<String> = r
        .metrics_named(metric::TEST_SECONDS)
        .filter_map(|m| {
            m.labels
                .get(label::TEST)
                .map(|t| format!("{t} {:.3} s", m.value))
        })
        .collect();
    if !phases.is_empty() {
        let _ = writeln!(
            out,
            "  at the equivalent size: {} (each test's time in the tables below)",
            phases.join(", ")
        );
    }
    out
}

/// A numeric parameter.
fn value_of(r: &BenchResult, key: &str) -> Option<f64> {
    r.param(key).and_then(|v| v.as_f64())
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::names::db::AS3AP;
    use nodebench_core::{Better, Metric, Unit};

    fn summary(fits: &[(u64, f64, bool)], equivalent: Option<u64>) -> BenchResult {
        let mut r = BenchResult::new(AS3AP);
        r.set_param(param::TEST, test::EQUIVALENT_SIZE);
        r.set_param(param::TIME_LIMIT, 20.0);
        r.set_param(param::TIMED_TESTS, ["load", "single"]);
        for (i, &(rows, secs, ok)) in fits.iter().enumerate() {
            let at = |m: Metric| m.label(label::TRIAL, i + 1);
            let n = |name: &str, v: f64, unit| at(Metric::new(name, v, unit, Better::Higher));
            r.metrics.extend([
                n(metric::TRIAL_SIZE, rows as f64 * 400.0, Unit::Bytes),
                n(metric::TRIAL_ROWS_PER_TABLE, rows as f64, Unit::Count),
                n(metric::TRIAL_SECONDS, secs, Unit::Seconds),
                n(
                    metric::TRIAL_WITHIN_LIMIT,
                    f64::from(u8::from(ok)),
                    Unit::Count,
                ),
            ]);
        }
        if let Some(rows) = equivalent {
            r.set_param(param::EQUIVALENT, bound::FOUND);
            r.metrics.extend([
                Metric::new(
                    metric::EQUIVALENT_SIZE,
                    rows as f64 * 400.0,
                    Unit::Bytes,
                    Better::Higher,
                ),
                Metric::new(
                    metric::EQUIVALENT_ROWS_PER_TABLE,
                    rows as f64,
                    Unit::Count,
                    Better::Higher,
                ),
                Metric::new(metric::TEST_SECONDS, 3.5, Unit::Seconds, Better::Lower)
                    .label(label::TEST, test::LOAD),
            ]);
        }
        r.metrics.push(Metric::new(
            metric::SEARCH_SECONDS,
            31.3,
            Unit::Seconds,
            Better::Lower,
        ));
        r
    }

    #[test]
    fn the_equivalent_size_and_every_trial_print() {
        let r = summary(
            &[
                (100_000, 4.5, true),
                (200_000, 9.0, true),
                (400_000, 20.01, false),
            ],
            Some(200_000),
        );
        let text = report(&r);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            "equivalent-size [passed]: equivalent database size 80.0 MB (80000000 B, 200000 rows per table), the largest whose load, single finished within 20 s (the paper's 12 hours scaled down); 3 trials in 31.3 s"
        );
        assert_eq!(
            lines[1].split_whitespace().collect::<Vec<_>>(),
            [
                "trial",
                "size",
                "B",
                "rows/table",
                "seconds",
                "within",
                "20",
                "s"
            ]
        );
        assert_eq!(
            lines[4].split_whitespace().collect::<Vec<_>>(),
            ["3", "160000000", "400000", "20.010", "no"]
        );
        assert_eq!(
            lines[5],
            "  at the equivalent size: load 3.500 s (each test's time in the tables below)"
        );
    }

    #[test]
    fn no_equivalent_size_says_so() {
        let mut r = summary(&[(10_000, 25.0, false)], None);
        r.mark_failed("no equivalent size: the smallest database tried, 4000000 B (10000 rows per table), took 25.0 s, over the 20 s limit");
        let text = report(&r);
        assert!(
            text.starts_with("equivalent-size [failed]: no equivalent size within 20 s (load, single); 1 trials in 31.3 s\n  error: no equivalent size: the smallest"),
            "{text}"
        );
        assert!(!text.contains("equivalent database size"), "{text}");
    }
}
