//! wrk's and wrk2's report: `Running Ns test @ URL`, `T threads and C
//! connections`, the `Thread Stats` latency line, the `--latency`
//! distribution (wrk's four rows, or wrk2's HdrHistogram rows `50.000%
//! ...` up to `100.000%`), `N requests in Ts, B read`, socket errors,
//! `Requests/sec:` and `Transfer/sec:`, as one `http.load` result.
//!
//! wrk times each request from its actual send (nodebench's
//! `uncorrected` latency, closed model); wrk2 corrects for coordinated
//! omission at its constant rate (`corrected`, open model). The
//! distribution's rows are `latency` metrics labelled with their
//! percentile (`99.9`), 100 % as `max`, the Thread Stats average as
//! `mean`. Byte figures use wrk's 1024-based units.

use names::{label, param};
use std::collections::BTreeMap;

use nodebench_core::latency;
use nodebench_core::model::{BenchResult, Better, Histogram, Metric, Unit};
use nodebench_core::names::http::{self as ids, load as names};
use nodebench_core::names::labels::PERCENTILE;

use crate::text::{
    Words, binary_prefix, decimal_prefix, number, number_unit, seconds, split_figure,
};

/// The header wrk prints before its distribution.
const DISTRIBUTION: &str = "Latency Distribution";
/// wrk2's distribution header.
const HDR: &str = "Latency Distribution (HdrHistogram - Recorded Latency)";

/// True when `text` holds a wrk or wrk2 report.
pub(crate) fn detect(text: &str) -> bool {
    let w = Words::new(text);
    w.contains("Thread Stats Avg Stdev Max +/- Stdev") && w.contains("Requests/sec:")
}

/// One `http.load` result with wrk's figures.
pub(crate) fn parse(text: &str) -> Result<Vec<BenchResult>, String> {
    let w = Words::new(text);
    let mut r = BenchResult::new(ids::LOAD);
    let wrk2 = w.contains(HDR);
    let which = if wrk2 {
        names::CORRECTED
    } else {
        names::UNCORRECTED
    };

    // Running 3s test @ http://127.0.0.1:8089/
    let run = w
        .find("test @", 0)
        .ok_or("expected `Running Ns test @ URL`")?;
    let duration = w
        .get(run.wrapping_sub(4))
        .filter(|s| *s == "Running")
        .and_then(|_| w.get(run - 3))
        .and_then(seconds)
        .ok_or_else(|| format!("line {}: expected `Running Ns test @ URL`", w.line(run)))?;
    let url = w.get(run).ok_or("expected the URL after `test @`")?;
    r.set_param(param::URL, url);
    if let Some((scheme, rest)) = url.split_once("://") {
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let (host, port) = match authority.rsplit_once(':') {
            Some((h, p)) => (h, p.parse::<u64>().unwrap_or(0)),
            None => (authority, if scheme == "https" { 443 } else { 80 }),
        };
        r.set_param(param::HOST, host);
        r.set_param(param::PORT, port);
        r.set_param(param::PATH, if path.is_empty() { "/" } else { path });
        r.set_param(param::TLS, scheme == "https");
    }
    let t = w
        .find("threads and", run)
        .ok_or("expected `T threads and C connections`")?;
    let threads = w.number(t - 3);
    let connections = w.number(t).filter(|_| w.get(t + 1) == Some("connections"));
    let (Some(threads), Some(connections)) = (threads, connections) else {
        return Err(format!(
            "line {}: expected `T threads and C connections`",
            w.line(t)
        ));
    };
    r.set_param(param::THREADS, threads as u64);
    r.set_param(param::CONCURRENCY, connections as u64);
    if wrk2 {
        r.set_param(param::MODEL, names::MODEL_OPEN);
        r.set_param(param::DURATION_S, duration);
    } else {
        r.set_param(param::MODEL, names::MODEL_CLOSED);
        r.set_param(param::TIME_LIMIT_S, duration);
    }

    // Each figure with its text as wrk printed it (`6.50ms`).
    let latency = |p: &str, v: f64, written: &str| {
        let (text, unit) = split_figure(written);
        Metric::new(names::LATENCY, v, Unit::Seconds, Better::Lower)
            .label(label::LATENCY, which)
            .label(PERCENTILE, p)
            .printed(text, unit)
    };
    // Latency  6.50ms  17.54ms  212.40ms  97.24%
    let l = w
        .find("Stdev Latency", 0)
        .ok_or("expected the `Latency` line of `Thread Stats`")?;
    let avg = w.get(l).and_then(seconds);
    let max = w.get(l + 2).and_then(seconds);
    let (Some(avg), Some(max)) = (avg, max) else {
        return Err(format!(
            "line {}: expected `Latency AVG STDEV MAX +/-STDEV`",
            w.line(l)
        ));
    };
    r.metrics.push(latency(
        names::PERCENTILE_MEAN,
        avg,
        w.get(l).unwrap_or_default(),
    ));
    // Req/Sec  734.60  180.46  1.18k  65.00%  (wrk2 may print -nan: left out)
    if let Some(q) = w.find("Req/Sec", l) {
        let rate = |i: usize| {
            let (v, prefix) = number_unit(w.get(i)?)?;
            Some(v * decimal_prefix(prefix)?)
        };
        let within = w
            .get(q + 3)
            .and_then(|s| s.strip_suffix('%'))
            .and_then(number);
        if let (Some(mean), Some(sd), Some(max), Some(within)) =
            (rate(q), rate(q + 1), rate(q + 2), within)
        {
            let [s_mean, s_sd, s_max, s_within] = names::THREAD_RATE_STATS;
            for (k, (stat, v, unit)) in [
                (s_mean, mean, Unit::OpsPerSecond),
                (s_sd, sd, Unit::OpsPerSecond),
                (s_max, max, Unit::OpsPerSecond),
                (s_within, within, Unit::Percent),
            ]
            .into_iter()
            .enumerate()
            {
                let (text, printed_unit) = split_figure(w.get(q + k).unwrap_or_default());
                r.metrics.push(
                    Metric::new(names::THREAD_REQUESTS_PER_SECOND, v, unit, Better::Higher)
                        .label(label::STAT, stat)
                        .printed(text, printed_unit),
                );
            }
        }
    }
    let mut printed_max = false;
    if let Some(d) = w.find(DISTRIBUTION, l) {
        let mut i = if wrk2 { w.find(HDR, l).unwrap_or(d) } else { d };
        // Rows: `50%` or `50.000%`, then a time.
        while let Some(p) = w.get(i).and_then(|s| s.strip_suffix('%')).and_then(number) {
            let v = w
                .get(i + 1)
                .and_then(seconds)
                .ok_or_else(|| format!("line {}: expected a time after `{p}%`", w.line(i)))?;
            let written = w.get(i + 1).unwrap_or_default();
            if p == 100.0 {
                r.metrics.push(latency(names::PERCENTILE_MAX, v, written));
                printed_max = true;
            } else {
                r.metrics.push(latency(&p.to_string(), v, written));
            }
            i += 2;
        }
        if i == d {
            return Err(format!(
                "line {}: expected percentile rows after `{DISTRIBUTION}`",
                w.line(d)
            ));
        }
    }
    if !printed_max {
        r.metrics.push(latency(
            names::PERCENTILE_MAX,
            max,
            w.get(l + 2).unwrap_or_default(),
        ));
    }
    if let Some(h) = spectrum(&w, which)? {
        r.histograms.push(h);
    }

    // 4420 requests in 3.05s, 2.46MB read
    let q = w
        .find("requests in", l)
        .ok_or("expected `N requests in Ts, B read`")?;
    let requests = w.number(q - 3);
    let taken = w.get(q).and_then(|s| s.strip_suffix(',')).and_then(seconds);
    let read = w
        .get(q + 1)
        .filter(|_| w.get(q + 2) == Some("read"))
        .and_then(bytes);
    let (Some(requests), Some(taken), Some(read)) = (requests, taken, read) else {
        return Err(format!(
            "line {}: expected `N requests in Ts, B read`",
            w.line(q)
        ));
    };
    let as_written =
        |i: usize| split_figure(w.get(i).unwrap_or_default().trim_end_matches([',', ']']));
    let m = &mut r.metrics;
    let (text, unit) = as_written(q - 3);
    m.push(
        Metric::new(
            names::REQUESTS_COMPLETED,
            requests,
            Unit::Count,
            Better::Higher,
        )
        .printed(text, unit),
    );
    let (text, unit) = as_written(q);
    m.push(Metric::new(names::TIME_TAKEN, taken, Unit::Seconds, Better::Lower).printed(text, unit));
    let (text, unit) = as_written(q + 1);
    m.push(
        Metric::new(names::TOTAL_TRANSFERRED, read, Unit::Bytes, Better::Higher)
            .printed(text, unit),
    );
    // Socket errors: connect 0, read 0, write 0, timeout 0
    if let Some(e) = w.find("Socket errors:", q) {
        let kinds = [
            ("connect", names::CONNECT_OTHER),
            ("read", names::RECEIVE),
            ("write", names::SEND),
            ("timeout", names::CLIENT_TIMEOUT),
        ];
        for (k, (word, kind)) in kinds.into_iter().enumerate() {
            let v = w
                .get(e + 2 * k + 1)
                .filter(|_| w.get(e + 2 * k) == Some(word))
                .and_then(|s| number(s.trim_end_matches([',', ']'])))
                .ok_or_else(|| {
                    format!(
                        "line {}: expected `{word} N` in `Socket errors:`",
                        w.line(e)
                    )
                })?;
            let (text, unit) = as_written(e + 2 * k + 1);
            m.push(
                Metric::new(names::ERRORS, v, Unit::Count, Better::Lower)
                    .label(label::KIND, kind)
                    .printed(text, unit),
            );
        }
    }
    if let Some(n) = w.find("Non-2xx or 3xx responses:", q) {
        let v = w
            .get(n)
            .and_then(|s| number(s.trim_end_matches(']')))
            .ok_or_else(|| format!("line {}: expected `Non-2xx or 3xx responses: N`", w.line(n)))?;
        let (text, unit) = as_written(n);
        m.push(Metric::new(names::ERROR_STATUS, v, Unit::Count, Better::Lower).printed(text, unit));
    }
    let rps = w.number_after("Requests/sec:")?;
    let (text, unit) = w.find("Requests/sec:", 0).map_or(("", ""), &as_written);
    m.push(
        Metric::new(
            names::REQUESTS_PER_SECOND,
            rps,
            Unit::OpsPerSecond,
            Better::Higher,
        )
        .printed(text, unit),
    );
    let tr = w
        .find("Transfer/sec:", 0)
        .ok_or("expected `Transfer/sec:`")?;
    let rate = w
        .get(tr)
        .and_then(bytes)
        .ok_or_else(|| format!("line {}: expected `Transfer/sec: N[KB|MB|GB]`", w.line(tr)))?;
    let (text, unit) = as_written(tr);
    m.push(
        Metric::new(
            names::TRANSFER_RATE,
            rate,
            Unit::BytesPerSecond,
            Better::Higher,
        )
        .printed(text, unit),
    );
    Ok(vec![r])
}

/// wrk2's `Detailed Percentile spectrum` (`Value Percentile TotalCount
/// 1/(1-Percentile)` rows in milliseconds, then `#[Mean = ...]`,
/// `#[Max = ..., Total count = N]`) as a latency histogram in nanoseconds:
/// each row's new requests recorded at its value, so the histogram is the
/// spectrum's resolution of wrk2's own.
fn spectrum(w: &Words, which: &str) -> Result<Option<Histogram>, String> {
    let Some(start) = w.find(
        "Detailed Percentile spectrum: Value Percentile TotalCount 1/(1-Percentile)",
        0,
    ) else {
        return Ok(None);
    };
    let mut h = latency::histogram();
    let mut i = start;
    let mut seen = 0.0;
    while let (Some(value), Some(total)) = (w.number(i), w.number(i + 2)) {
        if w.number(i + 1).is_none()
            || w.get(i + 3)
                .is_none_or(|s| number(s).is_none() && s != "inf")
        {
            break;
        }
        if total < seen {
            return Err(format!("line {}: TotalCount goes down", w.line(i)));
        }
        let ns = crate::text::number(&format!("{value}e6")).unwrap_or(value * 1e6);
        h.saturating_record_n(
            (ns.round() as u64).clamp(1, latency::MAX_LATENCY_NS),
            (total - seen) as u64,
        );
        seen = total;
        i += 4;
    }
    let count = w
        .find("Total count =", i)
        .and_then(|k| w.get(k))
        .and_then(|s| number(s.trim_end_matches(']')))
        .ok_or_else(|| {
            format!(
                "line {}: expected `#[Max = ..., Total count = N]` after the spectrum",
                w.line(i)
            )
        })?;
    if count != seen {
        return Err(format!(
            "line {}: the spectrum counts {seen} requests, its `Total count` {count}",
            w.line(i)
        ));
    }
    let labels = BTreeMap::from([(label::LATENCY.to_string(), which.to_string())]);
    Ok(Some(Histogram::from_hdr(
        names::LATENCY,
        Unit::Seconds,
        1e9,
        labels,
        &h,
    )))
}

/// Bytes in wrk's 1024-based units: `824.79KB`, `2.46MB`, `512.00B`.
fn bytes(s: &str) -> Option<f64> {
    let (v, unit) = number_unit(s)?;
    Some(v * binary_prefix(unit.strip_suffix('B')?)?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::value;

    const LOCAL: &str = include_str!("../../tests/fixtures/wrk-local.txt");
    const WRK2: &str = include_str!("../../tests/fixtures/wrk-wrk2-local.txt");

    fn latency(r: &BenchResult, which: &str, p: &str) -> f64 {
        r.metric(names::LATENCY, &[(label::LATENCY, which), (PERCENTILE, p)])
            .unwrap_or_else(|| panic!("{which} {p}"))
            .value
    }

    #[test]
    fn local_wrk_run_figures_in_canonical_units() {
        assert!(detect(LOCAL));
        let r = &parse(LOCAL).unwrap()[0];
        assert_eq!(r.benchmark, ids::LOAD);
        let u = names::UNCORRECTED;
        assert_eq!(latency(r, u, "50"), 3.02e-3);
        assert_eq!(latency(r, u, "75"), 5.72e-3);
        assert_eq!(latency(r, u, "90"), 9.17e-3);
        assert_eq!(latency(r, u, "99"), 108.43e-3);
        assert_eq!(latency(r, u, "max"), 212.40e-3);
        assert_eq!(latency(r, u, "mean"), 6.50e-3);
        assert_eq!(value(r, names::REQUESTS_PER_SECOND, &[]), 1448.69);
        assert_eq!(value(r, names::TRANSFER_RATE, &[]), 824.79 * 1024.0);
        assert_eq!(value(r, names::REQUESTS_COMPLETED, &[]), 4420.0);
        assert_eq!(value(r, names::TIME_TAKEN, &[]), 3.05);
        assert_eq!(value(r, names::TOTAL_TRANSFERRED, &[]), 2.46 * 1048576.0);
        let thread = |s| value(r, names::THREAD_REQUESTS_PER_SECOND, &[(label::STAT, s)]);
        assert_eq!(
            [
                thread("mean"),
                thread("sd"),
                thread("max"),
                thread("within_sd")
            ],
            [734.60, 180.46, 1.18e3, 65.00]
        );
        assert_eq!(r.param(param::THREADS), Some(&2u64.into()));
        assert_eq!(r.param(param::CONCURRENCY), Some(&10u64.into()));
        assert_eq!(r.param(param::TIME_LIMIT_S), Some(&3.0.into()));
        assert_eq!(r.param(param::MODEL), Some(&names::MODEL_CLOSED.into()));
        assert_eq!(r.param(param::PORT), Some(&8089u64.into()));
    }

    #[test]
    fn local_wrk2_run_hdr_rows_as_corrected_latency() {
        assert!(detect(WRK2));
        let r = &parse(WRK2).unwrap()[0];
        let c = names::CORRECTED;
        assert_eq!(latency(r, c, "50"), 1.79e-3);
        assert_eq!(latency(r, c, "90"), 843.78e-3);
        assert_eq!(latency(r, c, "99"), 3.59);
        assert_eq!(latency(r, c, "99.9"), 3.91);
        assert_eq!(latency(r, c, "99.999"), 3.94);
        assert_eq!(latency(r, c, "max"), 3.94);
        assert_eq!(latency(r, c, "mean"), 228.86e-3);
        assert_eq!(r.metrics_named(names::LATENCY).count(), 9);
        // The spectrum as the corrected latency histogram, in nanoseconds.
        let h = r
            .histogram(names::LATENCY, &[(label::LATENCY, c)])
            .unwrap()
            .to_hdr()
            .unwrap();
        assert_eq!(h.len(), 2243);
        assert_eq!(h.min(), h.lowest_equivalent(294_000));
        assert_eq!(h.max(), h.highest_equivalent(3_944_447_000));
        assert_eq!(h.value_at_quantile(0.5), h.highest_equivalent(1_789_000));
        // Its Req/Sec line reads `-nan`: no per-thread rate.
        assert_eq!(
            r.metrics_named(names::THREAD_REQUESTS_PER_SECOND).count(),
            0
        );
        assert_eq!(value(r, names::REQUESTS_PER_SECOND, &[]), 448.85);
        assert_eq!(value(r, names::TRANSFER_RATE, &[]), 415.54 * 1024.0);
        assert_eq!(value(r, names::REQUESTS_COMPLETED, &[]), 2245.0);
        assert_eq!(r.param(param::MODEL), Some(&names::MODEL_OPEN.into()));
        assert_eq!(r.param(param::DURATION_S), Some(&5.0.into()));
    }

    #[test]
    fn socket_errors_and_error_statuses() {
        let text = LOCAL.replace(
            "Requests/sec:",
            "  Socket errors: connect 1, read 2, write 3, timeout 4\n  Non-2xx or 3xx responses: 5\nRequests/sec:",
        );
        let r = &parse(&text).unwrap()[0];
        let kind = |k| value(r, names::ERRORS, &[(label::KIND, k)]);
        assert_eq!(
            [
                kind(names::CONNECT_OTHER),
                kind(names::RECEIVE),
                kind(names::SEND),
                kind(names::CLIENT_TIMEOUT)
            ],
            [1.0, 2.0, 3.0, 4.0]
        );
        assert_eq!(value(r, names::ERROR_STATUS, &[]), 5.0);
    }

    #[test]
    fn a_report_cut_off_is_refused() {
        let e = parse(&LOCAL[..LOCAL.find("Transfer/sec").unwrap()]).unwrap_err();
        assert!(e.contains("Transfer/sec"), "{e}");
        let e = parse(&WRK2[..WRK2.find("#[Max").unwrap()]).unwrap_err();
        assert!(e.contains("Total count"), "{e}");
        let e = parse(&LOCAL[..LOCAL.find("  4420 requests").unwrap()]).unwrap_err();
        assert!(e.contains("requests in"), "{e}");
    }
}
