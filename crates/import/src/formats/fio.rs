//! fio's `--output-format=json` (and `json+`): each job becomes one
//! `disk.fio` result with, per data direction it ran (read, write, trim),
//! the IOPS, bandwidth, bytes and I/Os fio printed and its completion
//! latency (mean, min, max and every clat percentile), labelled with the
//! job and the direction; the job's options (pattern, block size, engine,
//! queue depth, jobs, size, runtime, O_DIRECT) are its parameters.

use nodebench_core::model::{BenchResult, Better, Metric, Unit};
use nodebench_core::names::disk::{self as names, direction, label, metric, param};
use nodebench_core::names::labels::PERCENTILE;
use nodebench_core::names::latency::{LATENCY_MIN, LATENCY_PERCENTILE};
use serde_json::Value;

use crate::text::{binary_prefix, number};

/// The key fio's JSON report starts with.
const VERSION_KEY: &str = "\"fio version\"";

/// True when `text` holds fio's JSON report.
pub(crate) fn detect(text: &str) -> bool {
    text.contains(VERSION_KEY) && text.contains("\"jobs\"")
}

/// One result per job.
pub(crate) fn parse(text: &str) -> Result<Vec<BenchResult>, String> {
    // fio may print notes (`note: both iodepth >= 1 and synchronous I/O
    // engine...`) before the JSON.
    let from = text
        .find("{\n")
        .or_else(|| text.find('{'))
        .ok_or("expected fio's JSON report (`{ \"fio version\" : ...`)")?;
    let report: Value =
        serde_json::from_str(&text[from..]).map_err(|e| format!("not complete JSON: {e}"))?;
    let version = report
        .get("fio version")
        .and_then(Value::as_str)
        .ok_or("expected `fio version`")?;
    let jobs = report
        .get("jobs")
        .and_then(Value::as_array)
        .ok_or("expected the `jobs` array")?;
    let global = report.get("global options");
    jobs.iter()
        .enumerate()
        .map(|(i, job)| {
            let mut r = job_result(job, global).map_err(|e| format!("job {}: {e}", i + 1))?;
            r.set_param(crate::param::TOOL_VERSION, version);
            Ok(r)
        })
        .collect()
}

/// The result of one job.
fn job_result(job: &Value, global: Option<&Value>) -> Result<BenchResult, String> {
    let name = job
        .get("jobname")
        .and_then(Value::as_str)
        .ok_or("expected `jobname`")?;
    let mut r = BenchResult::new(names::FIO);
    set_options(&mut r, job.get("job options"), global);
    let mut any = false;
    for dir in [direction::READ, direction::WRITE, direction::TRIM] {
        let Some(d) = job.get(dir) else {
            continue;
        };
        let ios = d
            .get("total_ios")
            .and_then(Value::as_f64)
            .ok_or_else(|| format!("expected `{dir}.total_ios`"))?;
        if ios == 0.0 {
            continue;
        }
        any = true;
        push_direction(&mut r, name, dir, d)?;
    }
    if !any {
        return Err(format!(
            "job `{name}` did no I/O (expected `read`, `write` or `trim` figures)"
        ));
    }
    if let Some(e) = job.get("error").and_then(Value::as_i64).filter(|&e| e != 0) {
        r.mark_failed(format!("fio reported error {e} for job `{name}`"));
    }
    Ok(r)
}

/// A JSON number as fio prints it: an integer as it is, a float as C's
/// `%f` (`7870.043319`, `0.000000`).
fn as_fio_prints(v: &Value) -> String {
    match v.as_f64() {
        Some(f) if v.is_f64() => format!("{f:.6}"),
        _ => v.to_string(),
    }
}

/// One direction's figures.
fn push_direction(r: &mut BenchResult, job: &str, dir: &str, d: &Value) -> Result<(), String> {
    let field = |key: &str| {
        d.get(key)
            .and_then(Value::as_f64)
            .ok_or_else(|| format!("expected `{dir}.{key}`"))
    };
    let at = |m: Metric| m.label(label::JOB, job).label(label::DIRECTION, dir);
    // Each figure as fio printed it, named by its key (`bw_bytes`).
    let printed = |key: &str| d.get(key).map(as_fio_prints).unwrap_or_default();
    // fio 3 prints bytes per second; older versions KiB/s only.
    let (bandwidth, bw_key) = match d.get("bw_bytes").and_then(Value::as_f64) {
        Some(b) => (b, "bw_bytes"),
        None => (field("bw")? * 1024.0, "bw"),
    };
    for (name, v, unit, key) in [
        (metric::IOPS, field("iops")?, Unit::OpsPerSecond, "iops"),
        (metric::BANDWIDTH, bandwidth, Unit::BytesPerSecond, bw_key),
        (metric::BYTES, field("io_bytes")?, Unit::Bytes, "io_bytes"),
        (
            metric::OPERATIONS,
            field("total_ios")?,
            Unit::Count,
            "total_ios",
        ),
    ] {
        r.metrics
            .push(at(Metric::new(name, v, unit, Better::Higher)).printed(printed(key), key));
    }
    // fio 3: `clat_ns`; fio 2: `clat` in microseconds.
    let (clat, per_second, clat_unit) = match (d.get("clat_ns"), d.get("clat")) {
        (Some(c), _) => (c, 1e9, "ns"),
        (None, Some(c)) => (c, 1e6, "us"),
        (None, None) => return Err(format!("expected `{dir}.clat_ns`")),
    };
    let clat_printed = |key: &str| clat.get(key).map(as_fio_prints).unwrap_or_default();
    let clat_field = |key: &str| {
        clat.get(key)
            .and_then(Value::as_f64)
            .map(|v| v / per_second)
            .ok_or_else(|| format!("expected `{dir}.clat_ns.{key}`"))
    };
    for (name, key) in [
        (metric::LATENCY, "mean"),
        (LATENCY_MIN, "min"),
        (metric::LATENCY_MAX, "max"),
    ] {
        r.metrics.push(
            at(Metric::new(
                name,
                clat_field(key)?,
                Unit::Seconds,
                Better::Lower,
            ))
            .printed(clat_printed(key), clat_unit),
        );
    }
    if let Some(pcts) = clat.get("percentile").and_then(Value::as_object) {
        for (p, value) in pcts {
            let v = value
                .as_f64()
                .ok_or_else(|| format!("expected a number at `{dir}.clat_ns.percentile.{p}`"))?;
            r.metrics.push(
                at(Metric::new(
                    LATENCY_PERCENTILE,
                    v / per_second,
                    Unit::Seconds,
                    Better::Lower,
                ))
                .label(PERCENTILE, percentile_name(p))
                .printed(as_fio_prints(value), clat_unit),
            );
        }
    }
    Ok(())
}

/// `99.900000` as `99.9`, `50.000000` as `50`.
fn percentile_name(p: &str) -> String {
    if p.contains('.') {
        p.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        p.to_string()
    }
}

/// The job's options (over the global ones) as disk parameters.
fn set_options(r: &mut BenchResult, job: Option<&Value>, global: Option<&Value>) {
    let get = |key: &str| {
        job.and_then(|o| o.get(key))
            .or_else(|| global.and_then(|o| o.get(key)))
            .and_then(Value::as_str)
    };
    if let Some(v) = get("rw").or_else(|| get("readwrite")) {
        r.set_param(param::PATTERN, v);
    }
    if let Some(v) = get("ioengine") {
        r.set_param(param::ENGINE, v);
    }
    for (key, name) in [("bs", param::BLOCK_SIZE), ("size", param::FILE_SIZE)] {
        if let Some(b) = get(key).and_then(fio_size) {
            r.set_param(name, b);
        }
    }
    for (key, name) in [("iodepth", param::IODEPTH), ("numjobs", param::JOBS)] {
        if let Some(n) = get(key).and_then(|v| v.parse::<u64>().ok()) {
            r.set_param(name, n);
        }
    }
    if let Some(s) = get("runtime").and_then(fio_seconds) {
        r.set_param(param::DURATION_S, s);
    }
    if let Some(d) = get("direct") {
        r.set_param(param::DIRECT, d == "1");
    }
    if let Some(d) = get("directory").or_else(|| get("filename")) {
        r.set_param(param::DIR, d);
    }
}

/// A fio size (`4k`, `64m`, `1g`, `128KiB`, `4096`): fio's k/m/g are
/// powers of 1024 by default.
fn fio_size(v: &str) -> Option<u64> {
    let v = v.trim();
    let split = v
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(v.len());
    let (n, unit) = v.split_at(split);
    let unit = unit.trim_end_matches(['b', 'B']).to_ascii_uppercase();
    Some((number(n)? * binary_prefix(unit.trim_end_matches('I'))?) as u64)
}

/// A fio time (`3`, `3s`, `2m`, `1h`): seconds when bare.
fn fio_seconds(v: &str) -> Option<f64> {
    let v = v.trim();
    let split = v
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(v.len());
    let (n, unit) = v.split_at(split);
    let scale = match unit {
        "" | "s" => 1.0,
        "m" => 60.0,
        "h" => 3600.0,
        "ms" => 1e-3,
        "us" => 1e-6,
        _ => return None,
    };
    Some(number(n)? * scale)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::value;

    const RANDRW: &str = include_str!("../../tests/fixtures/fio-randrw.json");
    const READ_PLUS: &str = include_str!("../../tests/fixtures/fio-read-jsonplus.json");

    #[test]
    fn randrw_read_and_write_iops_bandwidth_and_clat_percentiles() {
        assert!(detect(RANDRW));
        let results = parse(RANDRW).unwrap();
        assert_eq!(results.len(), 1);
        let r = &results[0];
        assert_eq!(r.benchmark, names::FIO);
        let read = [(label::JOB, "randrw"), (label::DIRECTION, direction::READ)];
        let write = [(label::JOB, "randrw"), (label::DIRECTION, direction::WRITE)];
        assert_eq!(value(r, metric::IOPS, &read), 7870.043319);
        assert_eq!(value(r, metric::IOPS, &write), 7828.390536);
        assert_eq!(value(r, metric::BANDWIDTH, &read), 32235697.0);
        assert_eq!(value(r, metric::BYTES, &read), 96739328.0);
        assert_eq!(value(r, metric::OPERATIONS, &read), 23618.0);
        assert_eq!(value(r, metric::LATENCY, &read), 96924.717292e-9);
        assert_eq!(value(r, metric::LATENCY_MAX, &read), 124604495e-9);
        let p = |pct: &str| {
            r.metric(LATENCY_PERCENTILE, &[read[0], read[1], (PERCENTILE, pct)])
                .map(|m| m.value)
        };
        assert_eq!(p("50"), Some(69120e-9));
        assert_eq!(p("99"), Some(329728e-9));
        assert_eq!(p("99.9"), Some(4014080e-9));
        assert_eq!(p("99.99"), Some(25034752e-9));
        assert_eq!(r.metrics_named(LATENCY_PERCENTILE).count(), 2 * 17);
        assert!(
            r.metric(metric::IOPS, &[(label::DIRECTION, direction::TRIM)])
                .is_none()
        );
        assert_eq!(r.param(param::PATTERN), Some(&"randrw".into()));
        assert_eq!(r.param(param::BLOCK_SIZE), Some(&4096.into()));
        assert_eq!(r.param(param::FILE_SIZE), Some(&(64u64 << 20).into()));
        assert_eq!(r.param(param::ENGINE), Some(&"psync".into()));
        assert_eq!(r.param(param::JOBS), Some(&1.into()));
        assert_eq!(r.param(param::DURATION_S), Some(&3.0.into()));
        assert_eq!(
            r.param(crate::param::TOOL_VERSION),
            Some(&"fio-3.33".into())
        );
    }

    #[test]
    fn json_plus_group_reported_read() {
        let r = &parse(READ_PLUS).unwrap()[0];
        let read = [(label::JOB, "seqread"), (label::DIRECTION, direction::READ)];
        assert_eq!(value(r, metric::IOPS, &read), 11896.677741);
        assert_eq!(value(r, metric::BANDWIDTH, &read), 1559321344.0);
        assert_eq!(r.param(param::BLOCK_SIZE), Some(&(128u64 << 10).into()));
        assert_eq!(r.param(param::JOBS), Some(&2.into()));
        assert!(
            r.metric(metric::IOPS, &[(label::DIRECTION, direction::WRITE)])
                .is_none()
        );
    }

    #[test]
    fn sizes_and_times() {
        assert_eq!(fio_size("4k"), Some(4096));
        assert_eq!(fio_size("1g"), Some(1 << 30));
        assert_eq!(fio_size("128KiB"), Some(128 << 10));
        assert_eq!(fio_size("512"), Some(512));
        assert_eq!(fio_seconds("2m"), Some(120.0));
        assert_eq!(fio_seconds("3"), Some(3.0));
        assert_eq!(percentile_name("99.950000"), "99.95");
        assert_eq!(percentile_name("50.000000"), "50");
    }

    #[test]
    fn halves_and_foreign_text_are_refused() {
        for text in [RANDRW, READ_PLUS] {
            let e = parse(&text[..text.len() / 2]).unwrap_err();
            assert!(e.contains("not complete JSON"), "{e}");
        }
        let iperf3 = include_str!("../../tests/fixtures/iperf3-tcp.json");
        assert!(!detect(iperf3));
        assert!(parse(iperf3).is_err());
    }
}
