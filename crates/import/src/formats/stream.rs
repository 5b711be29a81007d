//! STREAM's report (McCalpin's stream.c, 5.x, and programs that print the
//! same table): the `Function Best Rate MB/s Avg time Min time Max time`
//! table's four kernel rows, the array size, the iterations, the thread
//! count, and `Solution Validates` at the end, as one `memory.stream`
//! result under the names `nodebench memory stream` gives the same
//! figures (STREAM's MB is 10^6 bytes).
//!
//! Threads: `Number of Threads counted = N` (stream.c 5.9 and later with
//! OpenMP), else one `Printing one line per active thread....` line per
//! thread (5.8 with OpenMP), else 1 (a build without OpenMP runs one
//! thread).

use nodebench_core::model::{BenchResult, Better, Metric, Unit};
use nodebench_core::names::labels;
use nodebench_core::names::memory::{self as names, kernel, label, metric, param, stores};

use crate::param::TOOL_VERSION;
use crate::text::{Words, number};

/// The rows of the table, with the kernels they are.
const ROWS: [(&str, &str); 4] = [
    ("Copy:", kernel::COPY),
    ("Scale:", kernel::SCALE),
    ("Add:", kernel::ADD),
    ("Triad:", kernel::TRIAD),
];

/// The last line of a run whose results check out.
const VALIDATES: &str = "Solution Validates";

/// True when `text` holds a STREAM report.
pub(crate) fn detect(text: &str) -> bool {
    let w = Words::new(text);
    (w.contains("Best Rate MB/s") || w.contains("Rate (MB/s)"))
        && w.contains("Copy:")
        && w.contains("Triad:")
}

/// One `memory.stream` result with the table's figures.
pub(crate) fn parse(text: &str) -> Result<Vec<BenchResult>, String> {
    let w = Words::new(text);
    let table = w
        .find("Best Rate MB/s", 0)
        .or_else(|| w.find("Rate (MB/s)", 0))
        .ok_or("expected the `Function Best Rate MB/s Avg time Min time Max time` table")?;
    if w.contains("Failed Validation") {
        return Err("STREAM printed `Failed Validation`: its figures are not valid".into());
    }
    let mut r = BenchResult::new(names::STREAM);
    if let Some(v) = w
        .find("STREAM version $Revision:", 0)
        .and_then(|i| w.get(i))
    {
        r.set_param(TOOL_VERSION, v);
    }
    let n = w
        .find("Array size =", 0)
        .and_then(|i| w.get(i))
        .and_then(|s| number(s.trim_end_matches(',')))
        .ok_or("expected `Array size = N`")? as u64;
    let word_bytes = match w.find("This system uses", 0) {
        Some(i) => w
            .number(i)
            .filter(|_| w.get(i + 1) == Some("bytes"))
            .ok_or_else(|| format!("line {}: expected `uses N bytes`", w.line(i)))?
            as u64,
        None => 8,
    };
    let ntimes = w
        .find("Each test is run", 0)
        .or_else(|| w.find("Each kernel will be executed", 0))
        .and_then(|i| w.number(i))
        .ok_or("expected `Each kernel will be executed N times`")? as u64;
    let threads = match w.find("Number of Threads counted =", 0) {
        Some(i) => w.number(i).ok_or_else(|| {
            format!(
                "line {}: expected `Number of Threads counted = N`",
                w.line(i)
            )
        })? as u64,
        None => {
            // No thread count printed: one thread, or one line per thread
            // OpenMP ran; nodebench's count, not STREAM's.
            r.set_param(
                nodebench_core::names::imported::DERIVED_LABELS,
                labels::THREADS,
            );
            text.matches("Printing one line per active thread")
                .count()
                .max(1) as u64
        }
    };
    r.set_param(param::THREADS, threads);
    r.set_param(param::ARRAY_SIZE, n);
    r.set_param(param::ARRAY_BYTES, word_bytes * n);
    r.set_param(param::NTIMES, ntimes);
    r.set_param(param::MB, "1 MB = 10^6 bytes");

    let mut at = table;
    for (row, kernel) in ROWS {
        let i = w
            .find(row, at)
            .ok_or_else(|| format!("expected the `{row}` row of the table"))?;
        let words: Option<Vec<&str>> = (i..i + 4).map(|k| w.get(k)).collect();
        let values = w.numbers(i, 4).zip(words).ok_or_else(|| {
            format!(
                "line {}: expected `{row} RATE AVG MIN MAX` (four numbers)",
                w.line(i)
            )
        })?;
        let (times, words) = values;
        // The rate in B/s: the printed MB/s with the exponent shifted.
        let rate = number(&format!("{}e6", words[0])).unwrap_or(times[0] * 1e6);
        let labelled = |m: Metric| {
            m.label(labels::KERNEL, kernel)
                .label(label::STORES, stores::NORMAL)
                .label(labels::THREADS, threads)
        };
        r.metrics.push(labelled(
            Metric::new(
                metric::BANDWIDTH,
                rate,
                Unit::BytesPerSecond,
                Better::Higher,
            )
            .printed(words[0], "MB/s"),
        ));
        for (k, name) in [metric::TIME_AVG, metric::TIME_MIN, metric::TIME_MAX]
            .into_iter()
            .enumerate()
        {
            r.metrics.push(labelled(
                Metric::new(name, times[k + 1], Unit::Seconds, Better::Lower)
                    .printed(words[k + 1], "s"),
            ));
        }
        at = i + 4;
    }
    let validates = (at..)
        .map_while(|i| w.get(i).map(|s| (i, s)))
        .any(|(i, s)| s == "Solution" && w.get(i + 1).is_some_and(|v| v.starts_with("Validates")));
    if !validates {
        return Err(format!(
            "line {}: expected `{VALIDATES}` after the table",
            w.line(at)
        ));
    }
    Ok(vec![r])
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOCAL: &str = include_str!("../../tests/fixtures/stream-ref-local.txt");
    const SEED_000: &str = include_str!("../../tests/fixtures/stream-seed000.txt");
    const SEED_002: &str = include_str!("../../tests/fixtures/refused/stream-seed002-garbled.txt");

    fn figures(r: &BenchResult, name: &str) -> Vec<f64> {
        ROWS.iter()
            .map(|(_, k)| r.metric(name, &[(labels::KERNEL, k)]).unwrap().value)
            .collect()
    }

    #[test]
    fn local_run_four_best_rates_in_bytes_per_second() {
        assert!(detect(LOCAL));
        let r = &parse(LOCAL).unwrap()[0];
        assert_eq!(r.benchmark, names::STREAM);
        assert_eq!(
            figures(r, metric::BANDWIDTH),
            vec![25386.0e6, 25561.1e6, 4005.5e6, 2720.6e6]
        );
        assert_eq!(
            figures(r, metric::TIME_AVG),
            vec![0.012711, 0.016615, 0.017286, 0.021571]
        );
        assert_eq!(
            figures(r, metric::TIME_MIN),
            vec![0.001261, 0.001252, 0.011984, 0.017643]
        );
        assert_eq!(
            figures(r, metric::TIME_MAX),
            vec![0.019992, 0.021960, 0.024880, 0.029163]
        );
        assert_eq!(r.param(param::THREADS), Some(&2u64.into()));
        assert_eq!(r.param(param::ARRAY_SIZE), Some(&2_000_000u64.into()));
        assert_eq!(r.param(param::ARRAY_BYTES), Some(&16_000_000u64.into()));
        assert_eq!(r.param(param::NTIMES), Some(&10u64.into()));
        let m = r
            .metric(metric::BANDWIDTH, &[(labels::KERNEL, kernel::TRIAD)])
            .unwrap();
        assert_eq!(m.label_value(labels::THREADS), Some("2"));
        assert_eq!(m.label_value(label::STORES), Some(stores::NORMAL));
    }

    #[test]
    fn seed_000_stream_5_8_wrapped_rows() {
        assert!(detect(SEED_000));
        let r = &parse(SEED_000).unwrap()[0];
        assert_eq!(
            figures(r, metric::BANDWIDTH),
            vec![1373.8586e6, 1376.1729e6, 1698.0915e6, 1703.5836e6]
        );
        assert_eq!(
            figures(r, metric::TIME_MAX),
            vec![0.0234, 0.0234, 0.0286, 0.0290]
        );
        assert_eq!(r.param(TOOL_VERSION), Some(&"5.8".into()));
        assert_eq!(r.param(param::THREADS), Some(&1u64.into()));
        assert_eq!(r.param(param::ARRAY_SIZE), Some(&2_000_000u64.into()));
        assert_eq!(r.param(param::NTIMES), Some(&10u64.into()));
    }

    #[test]
    fn seed_002_garbled_table_is_refused_at_the_add_row() {
        assert!(detect(SEED_002));
        let e = parse(SEED_002).unwrap_err();
        assert!(e.contains("`Add: RATE AVG MIN MAX`"), "{e}");
    }

    #[test]
    fn a_report_cut_off_or_failed_is_refused() {
        let e = parse(&LOCAL[..LOCAL.find("Solution").unwrap()]).unwrap_err();
        assert!(e.contains(VALIDATES), "{e}");
        let e = parse(&LOCAL[..LOCAL.find("Triad:").unwrap() + 30]).unwrap_err();
        assert!(e.contains("`Triad: RATE AVG MIN MAX`"), "{e}");
        let failed = LOCAL.replace(VALIDATES, "Failed Validation on array a[]");
        assert!(parse(&failed).unwrap_err().contains("Failed Validation"));
    }
}
