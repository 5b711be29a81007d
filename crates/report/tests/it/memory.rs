//! The terminal tables of the memory results, built with the names the
//! memory benchmarks write: STREAM's table (a row per kernel and store kind,
//! a column per figure), the `memory blocks` matrix pivoted on threads, and
//! the latency sweep (a row per working set).

use nodebench_core::names::labels;
use nodebench_core::names::memory::{self as names, kernel, label, level, metric, op, stores};
use nodebench_core::{BenchResult, Better, Metric, Reference, Unit};
use nodebench_report::table::result_table;

fn stream_result() -> BenchResult {
    let mut r = BenchResult::new(names::STREAM);
    for (store, scale) in [(stores::NORMAL, 1.0), (stores::NONTEMPORAL, 1.5)] {
        for (k, rate) in [
            (kernel::COPY, 10e9),
            (kernel::SCALE, 10e9),
            (kernel::ADD, 12e9),
            (kernel::TRIAD, 12e9),
        ] {
            let labelled = |m: Metric| {
                m.label(labels::KERNEL, k)
                    .label(label::STORES, store)
                    .label(labels::THREADS, 2)
            };
            let rate = rate * scale;
            r.metrics.push(
                labelled(Metric::new(
                    metric::BANDWIDTH,
                    rate,
                    Unit::BytesPerSecond,
                    Better::Higher,
                ))
                .with_reference(Some(Reference {
                    name: "DRAM peak".into(),
                    value: 40e9,
                })),
            );
            let min = 16e7 / rate;
            for (name, t) in [
                (metric::TIME_AVG, min * 1.1),
                (metric::TIME_MIN, min),
                (metric::TIME_MAX, min * 1.2),
            ] {
                r.metrics
                    .push(labelled(Metric::new(name, t, Unit::Seconds, Better::Lower)));
            }
        }
    }
    r
}

#[test]
fn stream_prints_a_row_per_kernel_and_store_kind() {
    let text = result_table(&stream_result());
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "memory.stream [passed]  threads=2", "{text}");
    assert!(
        text.contains("bandwidth (MB/s)") && text.contains("time_min (ms)"),
        "{text}"
    );
    // The triad row with ordinary stores: 12000 MB/s, 30 % of the 40 GB/s peak.
    let triad = lines
        .iter()
        .find(|l| l.contains("triad normal"))
        .unwrap_or_else(|| panic!("no triad row: {text}"));
    assert!(triad.contains("12000.0 (30.0%)"), "{triad}");
    assert!(triad.contains(" 13.333 "), "time_min 13.333 ms: {triad}");
    // Rows in STREAM's kernel order, the ordinary pass first.
    let rows: Vec<String> = lines
        .iter()
        .filter_map(|l| l.strip_prefix("| "))
        .filter(|l| !l.starts_with(' '))
        .map(|l| l.split_whitespace().take(2).collect::<Vec<_>>().join(" "))
        .collect();
    let expected: Vec<String> = [stores::NORMAL, stores::NONTEMPORAL]
        .iter()
        .flat_map(|s| {
            [kernel::COPY, kernel::SCALE, kernel::ADD, kernel::TRIAD].map(|k| format!("{k} {s}"))
        })
        .collect();
    assert_eq!(rows, expected, "{text}");
}

#[test]
fn blocks_pivot_thread_counts_into_columns() {
    let mut r = BenchResult::new(names::BLOCKS);
    for threads in [1, 2] {
        for o in [op::SEQ_WRITE, op::READ_WRITE] {
            r.metrics.push(
                Metric::new(
                    metric::BANDWIDTH,
                    5e9 * threads as f64,
                    Unit::BytesPerSecond,
                    Better::Higher,
                )
                .label(label::OP, o)
                .label(label::BLOCK, 8192)
                .label(labels::THREADS, threads),
            );
        }
    }
    let text = result_table(&r);
    assert!(text.contains("1 thr") && text.contains("2 thr"), "{text}");
    let row = text
        .lines()
        .find(|l| l.contains("bandwidth op=read_write"))
        .unwrap_or_else(|| panic!("no read_write row: {text}"));
    assert!(
        row.contains(" 5000.0 ") && row.contains(" 10000.0 "),
        "{row}"
    );
    assert!(
        text.contains("block=8192"),
        "the common block size heads the table: {text}"
    );
}

#[test]
fn latency_prints_a_row_per_working_set() {
    let mut r = BenchResult::new(names::LATENCY);
    for (size, lvl, ns) in [(4096, level::L1, 1.2), (1 << 26, level::DRAM, 95.0)] {
        let labelled = |m: Metric| m.label(label::WORKING_SET, size).label(label::LEVEL, lvl);
        r.metrics.push(labelled(Metric::new(
            metric::LATENCY,
            ns * 1e-9,
            Unit::Seconds,
            Better::Lower,
        )));
        r.metrics.push(labelled(Metric::new(
            metric::LATENCY_CYCLES,
            ns * 3.0,
            Unit::Cycles,
            Better::Lower,
        )));
    }
    let text = result_table(&r);
    assert!(text.contains("latency (ns)"), "{text}");
    assert!(text.contains("latency_cycles (cycles)"), "{text}");
    let dram = text
        .lines()
        .find(|l| l.contains("DRAM 67108864"))
        .unwrap_or_else(|| panic!("no DRAM row: {text}"));
    assert!(
        dram.contains(" 95.000 ") && dram.contains(" 285.0 "),
        "{dram}"
    );
}
