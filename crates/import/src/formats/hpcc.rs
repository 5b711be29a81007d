//! HPC Challenge's `hpccoutf.txt`. The HPL section's rows become
//! `cpu.linpack` results (as [`super::hpl`] reads them); the figures of the
//! other tests come from the `Begin of Summary section.` key=value pairs:
//! STREAM (single and star) as `memory.stream`, DGEMM, FFT, RandomAccess,
//! PTRANS and the latency/bandwidth rings and ping-pongs under their own
//! ids, each labelled with the mode it ran in. A file whose summary section
//! does not end is cut off.

use std::collections::HashMap;

use nodebench_core::model::{BenchResult, Better, Metric, Printed, Unit};
use nodebench_core::names::hpcc::{kind, label, metric, mode, param};
use nodebench_core::names::labels::{KERNEL, THREADS};
use nodebench_core::names::{cpu, linpack, memory, net};

/// HPCC's banner line.
const BANNER: &str = "HPC Challenge Benchmark";
/// Where the key=value summary starts.
const SUMMARY_BEGIN: &str = "Begin of Summary section.";
/// Where it ends.
const SUMMARY_END: &str = "End of Summary section.";

/// True when `text` is HPCC's output file.
pub(crate) fn detect(text: &str) -> bool {
    text.lines()
        .any(|l| l.contains(BANNER) || l.trim() == SUMMARY_BEGIN)
}

/// The summary's pairs.
struct Summary<'a>(HashMap<&'a str, &'a str>);

impl Summary<'_> {
    /// The number under `key`, or what was expected.
    fn get(&self, key: &str) -> Result<f64, String> {
        self.0
            .get(key)
            .and_then(|v| crate::text::number(v))
            .ok_or_else(|| format!("expected `{key}=` with a number in the summary section"))
    }

    /// The whole number under `key` (a problem size, `DGEMM_N=692`).
    fn size(&self, key: &str) -> Result<u64, String> {
        let v = self.get(key)?;
        if v >= 0.0 && v.fract() == 0.0 && v < u64::MAX as f64 {
            Ok(v as u64)
        } else {
            Err(format!(
                "expected `{key}=` with a whole number in the summary section"
            ))
        }
    }

    /// The figure under `key` as HPCC printed it, in `unit` (the key's
    /// own suffix: `Gflops`, `GUPs`, `GBs`, `usec`).
    fn printed(&self, key: &str, unit: &str) -> Printed {
        Printed::new(self.0.get(key).copied().unwrap_or_default(), unit)
    }
}

/// The unit a summary key names by its suffix (`SingleDGEMM_Gflops`).
fn key_unit(key: &str) -> &str {
    key.rsplit_once('_').map_or("", |(_, u)| u)
}

/// The results of one file.
pub(crate) fn parse(text: &str) -> Result<Vec<BenchResult>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let begin = lines
        .iter()
        .position(|l| l.trim() == SUMMARY_BEGIN)
        .ok_or_else(|| format!("expected `{SUMMARY_BEGIN}` (cut off?)"))?;
    let end = (begin..lines.len())
        .find(|&i| lines[i].trim() == SUMMARY_END)
        .ok_or_else(|| {
            format!(
                "expected `{SUMMARY_END}` after line {} (cut off?)",
                begin + 1
            )
        })?;
    let s = Summary(
        lines[begin + 1..end]
            .iter()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.trim(), v.trim()))
            .collect(),
    );
    let version = format!(
        "hpcc {}.{}.{}",
        s.get("VersionMajor")?,
        s.get("VersionMinor")?,
        s.get("VersionMicro")?
    );
    let processes = s.get("CommWorldProcs")?;
    let mut results = hpl_results(&lines)?;
    best_hpl(&mut results, &s)?;
    results.extend(stream(&s)?);
    for (id, test, unit, per) in [
        (
            cpu::HPCC_DGEMM,
            "DGEMM_Gflops",
            Unit::FlopsPerSecond,
            "DGEMM_N",
        ),
        (cpu::HPCC_FFT, "FFT_Gflops", Unit::FlopsPerSecond, "FFT_N"),
        (
            memory::HPCC_RANDOM_ACCESS,
            "RandomAccess_GUPs",
            Unit::OpsPerSecond,
            "RandomAccess_N",
        ),
    ] {
        for (m, prefix) in [(mode::SINGLE, "Single"), (mode::STAR, "Star")] {
            let mut r = BenchResult::new(id);
            r.set_param(param::N, s.size(per)?);
            let name = if unit == Unit::OpsPerSecond {
                metric::UPDATES
            } else {
                metric::RATE
            };
            let key = format!("{prefix}{test}");
            r.metrics.push(Metric {
                printed: Some(s.printed(&key, key_unit(&key))),
                ..Metric::new(name, s.get(&key)? * 1e9, unit, Better::Higher).label(label::MODE, m)
            });
            results.push(r);
        }
    }
    for (id, key, unit, n) in [
        (
            cpu::HPCC_FFT,
            "MPIFFT_Gflops",
            Unit::FlopsPerSecond,
            "MPIFFT_N",
        ),
        (
            memory::HPCC_RANDOM_ACCESS,
            "MPIRandomAccess_GUPs",
            Unit::OpsPerSecond,
            "MPIRandomAccess_N",
        ),
        (
            memory::HPCC_PTRANS,
            "PTRANS_GBs",
            Unit::BytesPerSecond,
            "PTRANS_n",
        ),
    ] {
        let mut r = BenchResult::new(id);
        r.set_param(param::N, s.size(n)?);
        let name = match unit {
            Unit::OpsPerSecond => metric::UPDATES,
            Unit::BytesPerSecond => metric::BANDWIDTH,
            _ => metric::RATE,
        };
        r.metrics.push(Metric {
            printed: Some(s.printed(key, key_unit(key))),
            ..Metric::new(name, s.get(key)? * 1e9, unit, Better::Higher)
                .label(label::MODE, mode::MPI)
        });
        results.push(r);
    }
    if let Some(r) = latency_bandwidth(&s)? {
        results.push(r);
    }
    for r in &mut results {
        r.set_param(param::PROCESSES, processes);
        r.set_param(crate::param::TOOL_VERSION, &version);
    }
    Ok(results)
}

/// HPCC's `HPL_Tflops` (the best row, at `HPL_N`) as `rate_maximal` of
/// that row's result, as nodebench's LINPACK gives its best trial.
fn best_hpl(results: &mut [BenchResult], s: &Summary) -> Result<(), String> {
    let n = s.get("HPL_N")?;
    let rate = s.get("HPL_Tflops")? * 1e12;
    let best = results
        .iter_mut()
        .filter(|r| r.param(linpack::param::N).and_then(|v| v.as_f64()) == Some(n))
        .max_by(|a, b| {
            let r = |x: &BenchResult| x.metric(linpack::RATE, &[]).map_or(0.0, |m| m.value);
            r(a).total_cmp(&r(b))
        });
    if let Some(r) = best {
        r.metrics.push(Metric {
            printed: Some(s.printed("HPL_Tflops", "Tflops")),
            ..Metric::new(
                linpack::RATE_MAXIMAL,
                rate,
                Unit::FlopsPerSecond,
                Better::Higher,
            )
        });
    }
    Ok(())
}

/// The HPL section's rows.
fn hpl_results(lines: &[&str]) -> Result<Vec<BenchResult>, String> {
    let begin = lines
        .iter()
        .position(|l| l.trim() == "Begin of HPL section.")
        .ok_or("expected `Begin of HPL section.`")?;
    let end = (begin..lines.len())
        .find(|&i| lines[i].trim() == "End of HPL section.")
        .ok_or_else(|| format!("expected `End of HPL section.` after line {}", begin + 1))?;
    super::hpl::rows(&lines[begin + 1..end], begin + 1).map_err(|e| format!("HPL section: {e}"))
}

/// `SingleSTREAM_Copy`... and `StarSTREAM_Copy`... (GB/s, 10^9 bytes) as
/// `memory.stream` results labelled as nodebench's own STREAM labels them,
/// so that `compare` sets them beside a native run: HPCC's STREAM is plain
/// C loops (`stores=normal`). Single is one process of `STREAM_Threads`
/// threads. Star is one process's figure while every process ran its own:
/// times the processes it is the machine's total on that many threads, as
/// nodebench's all-core STREAM gives it (derived, and the result says so).
/// With one process Star is another Single, kept apart by `mode=star`.
fn stream(s: &Summary) -> Result<Vec<BenchResult>, String> {
    let threads = s.get("STREAM_Threads")?.max(1.0) as u64;
    let size = s.get("STREAM_VectorSize")? as u64;
    let processes = s.get("CommWorldProcs")?.max(1.0) as u64;
    let mut results = Vec::new();
    for (m, prefix) in [(mode::SINGLE, "SingleSTREAM_"), (mode::STAR, "StarSTREAM_")] {
        let star = m == mode::STAR;
        let (all, times) = if star && processes > 1 {
            (threads * processes, processes as f64)
        } else {
            (threads, 1.0)
        };
        let mut r = BenchResult::new(memory::STREAM);
        r.set_param(memory::param::THREADS, all);
        r.set_param(memory::param::ARRAY_SIZE, size);
        // HPCC prints no store kind; the star's threads are its processes'.
        r.set_param(
            nodebench_core::names::imported::DERIVED_LABELS,
            if times > 1.0 {
                format!("{},{THREADS}", memory::label::STORES)
            } else {
                memory::label::STORES.to_string()
            },
        );
        if times > 1.0 {
            r.set_param(
                nodebench_core::names::imported::DERIVED,
                format!(
                    "bandwidth = {prefix}* (one process's GB/s while all ran) x {processes} processes: the machine's total"
                ),
            );
        }
        for (kernel, key) in [
            (memory::kernel::COPY, "Copy"),
            (memory::kernel::SCALE, "Scale"),
            (memory::kernel::ADD, "Add"),
            (memory::kernel::TRIAD, "Triad"),
        ] {
            let key = format!("{prefix}{key}");
            let mut metric = Metric {
                // Star times the processes is derived: no printed form.
                printed: (times == 1.0).then(|| s.printed(&key, "GB/s")),
                ..Metric::new(
                    memory::metric::BANDWIDTH,
                    s.get(&key)? * 1e9 * times,
                    Unit::BytesPerSecond,
                    Better::Higher,
                )
                .label(KERNEL, kernel)
                .label(memory::label::STORES, memory::stores::NORMAL)
                .label(THREADS, all)
            };
            if star && processes == 1 {
                metric = metric.label(label::MODE, m);
            }
            r.metrics.push(metric);
        }
        results.push(r);
    }
    Ok(results)
}

/// The ping-pong and ring figures, when measured (HPCC prints -1 on one
/// process).
fn latency_bandwidth(s: &Summary) -> Result<Option<BenchResult>, String> {
    let figures = [
        (kind::MIN_PING_PONG, "MinPingPong"),
        (kind::AVG_PING_PONG, "AvgPingPong"),
        (kind::MAX_PING_PONG, "MaxPingPong"),
        (kind::NATURALLY_ORDERED_RING, "NaturallyOrderedRing"),
        (kind::RANDOMLY_ORDERED_RING, "RandomlyOrderedRing"),
    ];
    let mut r = BenchResult::new(net::HPCC_LATENCY_BANDWIDTH);
    for (k, key) in figures {
        let (us_key, gb_key) = (
            format!("{key}Latency_usec"),
            format!("{key}Bandwidth_GBytes"),
        );
        let us = s.get(&us_key)?;
        let gb = s.get(&gb_key)?;
        if us < 0.0 || gb < 0.0 {
            return Ok(None);
        }
        r.metrics.push(Metric {
            printed: Some(s.printed(&us_key, "usec")),
            ..Metric::new(metric::LATENCY, us / 1e6, Unit::Seconds, Better::Lower)
                .label(label::KIND, k)
        });
        r.metrics.push(Metric {
            printed: Some(s.printed(&gb_key, "GBytes")),
            ..Metric::new(
                metric::BANDWIDTH,
                gb * 1e9,
                Unit::BytesPerSecond,
                Better::Higher,
            )
            .label(label::KIND, k)
        });
    }
    Ok(Some(r))
}

#[cfg(test)]
mod tests {
    use super::*;

    const NP1: &str = include_str!("../../tests/fixtures/hpcc-np1.txt");
    const NP2: &str = include_str!("../../tests/fixtures/hpcc-np2.txt");

    fn find<'a>(rs: &'a [BenchResult], id: &str, m: &str) -> &'a Metric {
        rs.iter()
            .filter(|r| r.benchmark == id)
            .flat_map(|r| r.metrics.iter())
            .find(|x| x.label_value(label::MODE) == Some(m))
            .unwrap_or_else(|| panic!("no {id} {m}"))
    }

    #[test]
    fn one_process_hpl_stream_and_the_other_tests() {
        assert!(detect(NP1));
        let rs = parse(NP1).unwrap();
        let hpl: Vec<&BenchResult> = rs
            .iter()
            .filter(|r| r.benchmark == linpack::LINPACK)
            .collect();
        assert_eq!(hpl.len(), 2);
        assert_eq!(
            hpl[0]
                .metric(linpack::RATE, &[(linpack::label::TRIAL, "1")])
                .unwrap()
                .value,
            3.797e9
        );
        // HPL_Tflops is the best row's (n = HPL_N = 1000) rate_maximal.
        assert_eq!(
            hpl[0].metric(linpack::RATE_MAXIMAL, &[]).unwrap().value,
            0.00379685e12
        );
        assert!(hpl[1].metric(linpack::RATE_MAXIMAL, &[]).is_none());
        // One process: Star is another Single, kept apart by mode=star.
        let streams: Vec<&BenchResult> = rs
            .iter()
            .filter(|r| r.benchmark == memory::STREAM)
            .collect();
        assert_eq!(streams.len(), 2);
        let star = streams[1];
        assert!(streams[0].metrics.iter().all(|m| {
            m.label_value(label::MODE).is_none()
                && m.label_value(THREADS) == Some("1")
                && m.label_value(memory::label::STORES) == Some(memory::stores::NORMAL)
        }));
        assert!(
            star.metrics
                .iter()
                .all(|m| m.label_value(label::MODE) == Some(mode::STAR))
        );
        let bw = |k: &str| {
            star.metric(memory::metric::BANDWIDTH, &[(KERNEL, k)])
                .unwrap()
                .value
        };
        assert_eq!(bw(memory::kernel::COPY), 29.7911e9);
        assert_eq!(bw(memory::kernel::SCALE), 28.9254e9);
        assert_eq!(bw(memory::kernel::ADD), 29.6332e9);
        assert_eq!(bw(memory::kernel::TRIAD), 29.2672e9);
        assert_eq!(star.param(memory::param::ARRAY_SIZE), Some(&480000.into()));
        assert!(
            star.param(nodebench_core::names::imported::DERIVED)
                .is_none()
        );
        assert_eq!(find(&rs, cpu::HPCC_DGEMM, mode::STAR).value, 3.5762e9);
        assert_eq!(find(&rs, cpu::HPCC_FFT, mode::SINGLE).value, 2.75886e9);
        assert_eq!(find(&rs, cpu::HPCC_FFT, mode::MPI).value, 3.515e9);
        assert_eq!(
            find(&rs, memory::HPCC_RANDOM_ACCESS, mode::SINGLE).value,
            0.230847e9
        );
        assert_eq!(
            find(&rs, memory::HPCC_RANDOM_ACCESS, mode::MPI).value,
            0.0295871e9
        );
        assert_eq!(find(&rs, memory::HPCC_PTRANS, mode::MPI).value, 5.79452e9);
        // One process measures no latency or bandwidth (-1).
        assert!(
            rs.iter()
                .all(|r| r.benchmark != net::HPCC_LATENCY_BANDWIDTH)
        );
        assert!(
            rs.iter()
                .all(|r| r.param(crate::param::TOOL_VERSION) == Some(&"hpcc 1.5.0".into()))
        );
        assert!(
            rs.iter()
                .all(|r| r.param(param::PROCESSES) == Some(&1.0.into()))
        );
    }

    #[test]
    fn two_processes_latency_and_bandwidth() {
        let rs = parse(NP2).unwrap();
        let r = rs
            .iter()
            .find(|r| r.benchmark == net::HPCC_LATENCY_BANDWIDTH)
            .unwrap();
        let at = |k: &'static str| [(label::KIND, k)];
        assert_eq!(
            r.metric(metric::LATENCY, &at(kind::MIN_PING_PONG))
                .unwrap()
                .value,
            0.246778 / 1e6
        );
        assert_eq!(
            r.metric(metric::LATENCY, &at(kind::NATURALLY_ORDERED_RING))
                .unwrap()
                .value,
            0.196068 / 1e6
        );
        assert_eq!(
            r.metric(metric::BANDWIDTH, &at(kind::MIN_PING_PONG))
                .unwrap()
                .value,
            11.1619e9
        );
        assert_eq!(
            r.metric(metric::BANDWIDTH, &at(kind::RANDOMLY_ORDERED_RING))
                .unwrap()
                .value,
            9.65785e9
        );
        let hpl = rs.iter().find(|r| r.benchmark == linpack::LINPACK).unwrap();
        assert_eq!(hpl.param(linpack::param::Q), Some(&2.into()));
        // Two processes: StarSTREAM times 2 is the machine's total on 2
        // threads, as nodebench's all-core STREAM labels it.
        let star = rs
            .iter()
            .filter(|r| r.benchmark == memory::STREAM)
            .nth(1)
            .unwrap();
        assert!(star.metrics.iter().all(|m| {
            m.label_value(label::MODE).is_none() && m.label_value(THREADS) == Some("2")
        }));
        assert!(
            star.param(nodebench_core::names::imported::DERIVED)
                .and_then(|d| d.as_str())
                .unwrap()
                .contains("x 2 processes")
        );
    }

    #[test]
    fn halves_and_foreign_text_are_refused() {
        for text in [NP1, NP2] {
            let e = parse(&text[..text.len() / 2]).unwrap_err();
            assert!(e.contains("cut off"), "{e}");
        }
        let hpl = include_str!("../../tests/fixtures/hpl-hpcc-np1.txt");
        assert!(!detect(hpl));
        assert!(parse(hpl).is_err());
    }
}
