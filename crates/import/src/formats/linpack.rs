//! Intel's optimized LINPACK (`xlinpack_xeon64`, `runme_xeon64`): the
//! `Size LDA Align. Time(s) GFlops Residual Residual(norm) Check` table and
//! the `Performance Summary (GFlops)` after it. Each size (with its LDA and
//! alignment) becomes one `cpu.linpack` result as nodebench's own LINPACK
//! records it: time, rate, residual and normalised residual per trial, the
//! summary's average and maximal rates. A size without its summary row is
//! cut off.

use nodebench_core::model::{BenchResult, Better, Metric, Unit};
use nodebench_core::names::linpack::{self as names, label::TRIAL, param};

use crate::text::number;

/// The banner of Intel's output.
const BANNER: &str = "Intel(R) Optimized LINPACK Benchmark data";
/// The trial table's header.
const TABLE: &str = "Size   LDA    Align. Time(s)";
/// The summary's title.
const SUMMARY: &str = "Performance Summary (GFlops)";

/// True when `text` holds Intel's LINPACK output.
pub(crate) fn detect(text: &str) -> bool {
    text.contains(BANNER) && text.contains(SUMMARY)
}

/// One trial row.
struct Trial {
    key: (u64, u64, u64),
    time: f64,
    gflops: f64,
    residual: f64,
    norm: f64,
    passed: bool,
}

/// `1000   1000   4      0.070      9.5866   9.394430e-13 3.203742e-02   pass`
fn trial(line: &str) -> Option<Trial> {
    let w: Vec<&str> = line.split_whitespace().collect();
    let [n, lda, align, time, gflops, residual, norm, check] = w.as_slice() else {
        return None;
    };
    Some(Trial {
        key: (n.parse().ok()?, lda.parse().ok()?, align.parse().ok()?),
        time: number(time)?,
        gflops: number(gflops)?,
        residual: number(residual)?,
        norm: number(norm)?,
        passed: match check.to_ascii_lowercase().as_str() {
            "pass" | "passed" => true,
            "fail" | "failed" => false,
            _ => return None,
        },
    })
}

/// One result per size.
pub(crate) fn parse(text: &str) -> Result<Vec<BenchResult>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let table = lines
        .iter()
        .position(|l| l.starts_with(TABLE))
        .ok_or_else(|| format!("expected the trial table (`{TABLE} GFlops ...`)"))?;
    let mut trials = Vec::new();
    for (i, l) in lines.iter().enumerate().skip(table + 1) {
        if l.trim().is_empty() {
            break;
        }
        trials.push(trial(l).ok_or_else(|| {
            format!(
                "line {}: expected `Size LDA Align. Time GFlops Residual Residual(norm) Check`, found `{}`",
                i + 1,
                l.trim()
            )
        })?);
    }
    if trials.is_empty() {
        return Err(format!(
            "line {}: expected trial rows under the header",
            table + 2
        ));
    }
    let summary = lines
        .iter()
        .position(|l| l.trim() == SUMMARY)
        .ok_or_else(|| format!("expected `{SUMMARY}` after the trials (cut off?)"))?;
    // `1000   1000   4       40.0022  54.2534`
    let rows: Vec<((u64, u64, u64), f64, f64)> = lines[summary + 1..]
        .iter()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let [n, lda, align, avg, max] = w.as_slice() else {
                return None;
            };
            Some((
                (n.parse().ok()?, lda.parse().ok()?, align.parse().ok()?),
                number(avg)?,
                number(max)?,
            ))
        })
        .collect();
    let threads = lines
        .iter()
        .find_map(|l| l.strip_prefix("Number of threads:"))
        .and_then(|v| v.trim().parse::<u64>().ok());
    let mut keys: Vec<(u64, u64, u64)> = Vec::new();
    for t in &trials {
        if !keys.contains(&t.key) {
            keys.push(t.key);
        }
    }
    keys.iter()
        .map(|&key| {
            let (n, lda, align) = key;
            let &(_, avg, max) = rows.iter().find(|r| r.0 == key).ok_or_else(|| {
                format!(
                    "expected the summary row of size {n} (LDA {lda}, Align. {align}) (cut off?)"
                )
            })?;
            let mut r = BenchResult::new(names::LINPACK);
            r.set_param(param::N, n);
            r.set_param(param::LDA, lda);
            r.set_param(param::ALIGN_KIB, align);
            if let Some(t) = threads {
                r.set_param(param::THREADS, t);
            }
            let mut failed = Vec::new();
            let own: Vec<&Trial> = trials.iter().filter(|t| t.key == key).collect();
            r.set_param(param::TRIALS, own.len());
            for (k, t) in own.iter().enumerate() {
                let k = k + 1;
                for (name, v, unit, better) in [
                    (names::TIME, t.time, Unit::Seconds, Better::Lower),
                    (
                        names::RATE,
                        t.gflops * 1e9,
                        Unit::FlopsPerSecond,
                        Better::Higher,
                    ),
                    (names::RESIDUAL, t.residual, Unit::Count, Better::Lower),
                    (names::RESIDUAL_NORM, t.norm, Unit::Count, Better::Lower),
                ] {
                    r.metrics
                        .push(Metric::new(name, v, unit, better).label(TRIAL, k));
                }
                if !t.passed {
                    failed.push(format!("trial {k}: residual check failed"));
                }
            }
            for (name, v) in [(names::RATE_AVERAGE, avg), (names::RATE_MAXIMAL, max)] {
                r.metrics.push(Metric::new(
                    name,
                    v * 1e9,
                    Unit::FlopsPerSecond,
                    Better::Higher,
                ));
            }
            if !failed.is_empty() {
                r.mark_failed(failed.join("; "));
            }
            Ok(r)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const RELAID: &str = include_str!("../../tests/fixtures/linpack-seed002-relaid.txt");
    const SEED_002: &str = include_str!("../../tests/fixtures/refused/linpack-seed002.txt");

    #[test]
    fn seed_002_figures_per_size_with_the_summary() {
        assert!(detect(RELAID));
        let rs = parse(RELAID).unwrap();
        assert_eq!(rs.len(), 5);
        let r = &rs[0];
        assert_eq!(r.benchmark, names::LINPACK);
        assert_eq!(r.param(param::N), Some(&1000.into()));
        assert_eq!(r.param(param::TRIALS), Some(&4.into()));
        assert_eq!(r.param(param::THREADS), Some(&2.into()));
        let t = |k: &'static str| [(TRIAL, k)];
        assert_eq!(r.metric(names::RATE, &t("3")).unwrap().value, 54.2534e9);
        assert_eq!(r.metric(names::TIME, &t("1")).unwrap().value, 0.070);
        assert_eq!(
            r.metric(names::RESIDUAL, &t("4")).unwrap().value,
            9.394430e-13
        );
        assert_eq!(
            r.metric(names::RESIDUAL_NORM, &t("4")).unwrap().value,
            3.203742e-02
        );
        assert_eq!(r.metric(names::RATE_AVERAGE, &[]).unwrap().value, 40.0022e9);
        assert_eq!(r.metric(names::RATE_MAXIMAL, &[]).unwrap().value, 54.2534e9);
        let r = &rs[4];
        assert_eq!(r.param(param::N), Some(&18000.into()));
        assert_eq!(r.param(param::LDA), Some(&18008.into()));
        assert_eq!(r.metric(names::RATE_MAXIMAL, &[]).unwrap().value, 76.3795e9);
        assert_eq!(r.metric(names::TIME, &t("2")).unwrap().value, 51.704);
    }

    /// the CS 553 benchmarking report's paste lost its columns (one figure per line, in no
    /// order): it is refused, never half-read.
    #[test]
    fn seed_002_mangled_paste_is_refused() {
        assert!(detect(SEED_002));
        let e = parse(SEED_002).unwrap_err();
        assert!(e.contains("trial table"), "{e}");
    }

    #[test]
    fn a_failed_check_fails_its_size() {
        let text = RELAID.replacen(
            "65.6884  4.085732e-12 3.554086e-02   pass",
            "65.6884  4.085732e-12 3.554086e-02   fail",
            1,
        );
        let rs = parse(&text).unwrap();
        assert_eq!(rs[1].status, nodebench_core::model::ResultStatus::Failed);
        assert_eq!(rs[0].status, nodebench_core::model::ResultStatus::Passed);
    }

    #[test]
    fn halves_and_foreign_text_are_refused() {
        let e = parse(&RELAID[..RELAID.len() / 2]).unwrap_err();
        assert!(e.contains("cut off") || e.contains("expected"), "{e}");
        // The summary cut after its first row.
        let cut = &RELAID[..RELAID.find("2000   2000   4       65.2848").unwrap()];
        assert!(parse(cut).unwrap_err().contains("summary row of size 2000"));
        let hpl = include_str!("../../tests/fixtures/hpl-hpcc-np1.txt");
        assert!(!detect(hpl));
        assert!(parse(hpl).is_err());
    }
}
