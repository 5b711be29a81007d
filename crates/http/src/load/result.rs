//! The `http.load` result of a run: the figures ab and httperf print, the
//! corrected and uncorrected latency percentiles (wrk2), the latency
//! histograms and the per-second series, under the names of
//! [`nodebench_core::names::http::load`].

use std::collections::BTreeMap;

use nodebench_core::config::Choice;
use nodebench_core::names::http::{self as ids, load as names};
use nodebench_core::names::labels::PERCENTILE;
use nodebench_core::{BenchResult, Better, Histogram, Metric, ResultStatus, TimeSeries, Unit};

use super::run::LoadOutcome;
use crate::config::{LoadConfig, Model};
use crate::stats::{Bucket, ErrorKind, ThreadStats};
use crate::url::Scheme;
use names::{label, param};

fn secs(ns: f64) -> f64 {
    ns / 1e9
}

fn counted(name: &str, v: u64, better: Better) -> Metric {
    Metric::new(name, v as f64, Unit::Count, better)
}

/// Builds the `http.load` result from a run's outcome: the figures ab and
/// httperf print, the corrected and uncorrected latency percentiles, the
/// latency histograms and the per-second series.
pub fn load_result(cfg: &LoadConfig, o: &LoadOutcome) -> BenchResult {
    let s = &o.stats;
    let mut r = BenchResult::new(ids::LOAD);
    set_params(&mut r, cfg, s);
    let elapsed = o.elapsed.as_secs_f64().max(1e-9);
    let m = &mut r.metrics;
    totals(m, cfg, s, elapsed);
    ab_tables(m, s);
    latency_percentiles(m, s);
    replies_and_errors(m, s);
    reply_rate(m, o);
    client_and_network(m, o, elapsed);
    for (which, h) in [
        (names::CORRECTED, &s.total),
        (names::UNCORRECTED, &s.uncorrected),
    ] {
        let labels = BTreeMap::from([(label::LATENCY.to_string(), which.to_string())]);
        r.histograms.push(Histogram::from_hdr(
            names::LATENCY,
            Unit::Seconds,
            1e9,
            labels,
            h,
        ));
    }
    r.histograms.push(Histogram::from_hdr(
        names::CONNECT_TIME,
        Unit::Seconds,
        1e9,
        BTreeMap::new(),
        &s.connect,
    ));
    per_second_series(&mut r.series, s, elapsed);
    r.warnings = o.warnings.clone();
    if o.cancelled {
        r.mark_cancelled();
    } else if s.completed == 0 {
        r.status = ResultStatus::Failed;
        r.error = Some(format!(
            "no request completed ({} errors: {})",
            s.error_total(),
            error_summary(s)
        ));
    } else if let Some(e) = error_rate_failure(s, cfg.expect_status, cfg.max_error_rate) {
        r.mark_failed(e);
    }
    r
}

/// Why a load fails `--max-error-rate`, or `None` when it does not: the
/// share of its requests that failed (no reply) or got an error status
/// (4xx, 5xx or one outside them; with `expect`, any other status) is over
/// `max`, as k6's `http_req_failed` counts them (ab's length check, which
/// every dynamic page trips, is not a failure here). The message gives the
/// replies by status class and the errors by kind.
pub fn error_rate_failure(s: &ThreadStats, expect: Option<u16>, max: f64) -> Option<String> {
    let bad_status = match expect {
        Some(code) => s.completed - s.code_count(code).min(s.completed),
        None => s.status[3] + s.status[4] + s.status[5],
    };
    // Requests that got no reply; a length mismatch is counted on a reply.
    let unanswered = s.error_total() - s.error_count(ErrorKind::Length);
    let requests = s.completed + unanswered;
    let bad = bad_status + unanswered;
    if requests == 0 || bad as f64 <= max * requests as f64 {
        return None;
    }
    let classes: Vec<String> = names::STATUS_CLASSES
        .iter()
        .zip(s.status)
        .filter(|(_, n)| *n > 0)
        .map(|(class, n)| format!("{class}={n}"))
        .collect();
    let what = match expect {
        Some(code) => format!("a status other than the expected {code}"),
        None => "an error status".to_string(),
    };
    Some(format!(
        "{bad} of {requests} requests ({:.1} %) failed or got {what}, over --max-error-rate {}: replies {}; errors {}",
        100.0 * bad as f64 / requests as f64,
        percent_text(max),
        if classes.is_empty() {
            "none".to_string()
        } else {
            classes.join(", ")
        },
        error_summary(s)
    ))
}

/// `1 %`, `0.5 %`: a share as the flag takes it.
fn percent_text(share: f64) -> String {
    let p = share * 100.0;
    if p.fract() == 0.0 {
        format!("{p:.0} %")
    } else {
        format!("{} %", (p * 1000.0).round() / 1000.0)
    }
}

/// The run's parameters: target, request, model and client settings, and
/// what the first reply said about the server and the document.
fn set_params(r: &mut BenchResult, cfg: &LoadConfig, s: &ThreadStats) {
    r.set_param(param::URL, cfg.target.url());
    r.set_param(param::HOST, &cfg.target.host);
    r.set_param(param::PORT, cfg.target.port);
    r.set_param(param::PATH, &cfg.target.path_and_query);
    r.set_param(param::METHOD, &cfg.request.method);
    r.set_param(param::MODEL, cfg.model.name());
    r.set_param(param::KEEPALIVE, cfg.keepalive);
    r.set_param(param::THREADS, cfg.threads);
    r.set_param(param::HTTP_VERSION, if cfg.http2 { "2" } else { "1.1" });
    r.set_param(param::STREAMS_PER_CONNECTION, cfg.streams);
    r.set_param(param::TLS, cfg.target.scheme == Scheme::Https);
    r.set_param(param::TIMEOUT_S, cfg.timeout.as_secs_f64());
    if let Some(code) = cfg.expect_status {
        r.set_param(param::EXPECT_STATUS, code);
    }
    r.set_param(param::MAX_ERROR_RATE, cfg.max_error_rate);
    match cfg.model {
        Model::Closed {
            concurrency,
            time_limit,
            ..
        } => {
            r.set_param(param::CONCURRENCY, concurrency);
            if let Some(t) = time_limit {
                r.set_param(param::TIME_LIMIT_S, t.as_secs_f64());
            }
        }
        Model::Open {
            rate,
            connections,
            duration,
            ..
        } => {
            r.set_param(param::RATE, rate);
            r.set_param(param::CONCURRENCY, connections);
            if let Some(t) = duration {
                r.set_param(param::DURATION_S, t.as_secs_f64());
            }
        }
        Model::ConnRate {
            conn_rate,
            calls_per_conn,
            connections,
        } => {
            r.set_param(param::CONN_RATE, conn_rate);
            r.set_param(param::CALLS_PER_CONN, calls_per_conn);
            r.set_param(param::NUM_CONNS, connections);
        }
    }
    if let Some(n) = cfg.model.requests() {
        r.set_param(param::REQUESTS, n);
    }
    if let Some(sv) = &s.server {
        r.set_param(param::SERVER_SOFTWARE, sv);
    }
    if let Some(d) = s.document_length {
        r.set_param(param::DOCUMENT_LENGTH, d);
    }
    r.set_param(
        param::CLIENT_CPU_SCOPE,
        "client threads (getrusage RUSAGE_THREAD)",
    );
}

/// ab's totals: time taken, request counts, rates and bytes transferred.
fn totals(m: &mut Vec<Metric>, cfg: &LoadConfig, s: &ThreadStats, elapsed: f64) {
    m.push(Metric::new(
        names::TIME_TAKEN,
        elapsed,
        Unit::Seconds,
        Better::Lower,
    ));
    m.push(counted(
        names::REQUESTS_COMPLETED,
        s.completed,
        Better::Higher,
    ));
    m.push(counted(names::REQUESTS_FAILED, s.failed(), Better::Lower));
    m.push(counted(names::NON_2XX, s.non_2xx(), Better::Lower));
    m.push(counted(
        names::CONNECTIONS_OPENED,
        s.connections,
        Better::Lower,
    ));
    m.push(counted(
        names::REQUESTS_SENT,
        s.requests_sent,
        Better::Higher,
    ));
    if !matches!(cfg.model, Model::Closed { .. }) {
        m.push(counted(names::SENT_LATE, s.sent_late, Better::Lower));
    }
    m.push(Metric::new(
        names::REQUESTS_PER_SECOND,
        s.completed as f64 / elapsed,
        Unit::OpsPerSecond,
        Better::Higher,
    ));
    if s.completed > 0 {
        let concurrency = cfg.model.connections().max(1) as f64;
        let per_request = match cfg.model {
            Model::Closed { .. } => concurrency * elapsed / s.completed as f64,
            _ => s.uncorrected.mean() / 1e9,
        };
        for (scope, v) in [
            (names::SCOPE_MEAN, per_request),
            (names::SCOPE_ACROSS_ALL, elapsed / s.completed as f64),
        ] {
            m.push(
                Metric::new(names::TIME_PER_REQUEST, v, Unit::Seconds, Better::Lower)
                    .label(label::SCOPE, scope),
            );
        }
    }
    m.push(Metric::new(
        names::TRANSFER_RATE,
        s.bytes_in as f64 / elapsed,
        Unit::BytesPerSecond,
        Better::Higher,
    ));
    for (name, bytes) in [
        (names::TOTAL_TRANSFERRED, s.bytes_in),
        (names::HTML_TRANSFERRED, s.body_bytes),
    ] {
        m.push(Metric::new(name, bytes as f64, Unit::Bytes, Better::Higher));
    }
}

/// ab's "Connection Times" table and "served within" percentages.
fn ab_tables(m: &mut Vec<Metric>, s: &ThreadStats) {
    // ab's Connect row is per request: a request on a reused keep-alive
    // connection took 0 ms to connect.
    let mut connect = s.connect.clone();
    let _ = connect.record_n(0, s.completed.saturating_sub(s.connections));
    let [p_connect, p_processing, p_waiting, p_total] = names::PHASES;
    for (phase, h) in [
        (p_connect, &connect),
        (p_processing, &s.uncorrected),
        (p_waiting, &s.waiting),
        (p_total, &s.total),
    ] {
        if h.is_empty() {
            continue;
        }
        let [min, mean, sd, median, max] = names::CONNECTION_STATS;
        for (stat, v) in [
            (min, h.min() as f64),
            (mean, h.mean()),
            (sd, h.stdev()),
            (median, h.value_at_quantile(0.5) as f64),
            (max, h.max() as f64),
        ] {
            m.push(
                Metric::new(
                    names::CONNECTION_TIME,
                    secs(v),
                    Unit::Seconds,
                    Better::Lower,
                )
                .label(label::PHASE, phase)
                .label(label::STAT, stat),
            );
        }
    }
    if !s.total.is_empty() {
        for pct in names::SERVED_WITHIN_PERCENTS {
            m.push(
                Metric::new(
                    names::SERVED_WITHIN,
                    secs(s.total.value_at_percentile(f64::from(pct)) as f64),
                    Unit::Seconds,
                    Better::Lower,
                )
                .label(label::PERCENT, pct),
            );
        }
    }
}

/// wrk2's latency percentiles, then the highest and the mean, for the
/// corrected and the uncorrected latency.
fn latency_percentiles(m: &mut Vec<Metric>, s: &ThreadStats) {
    for (which, h) in [
        (names::CORRECTED, &s.total),
        (names::UNCORRECTED, &s.uncorrected),
    ] {
        if h.is_empty() {
            continue;
        }
        let points = names::LATENCY_PERCENTILES
            .iter()
            .map(|&p| (p.to_string(), h.value_at_percentile(p) as f64))
            .chain([
                (names::PERCENTILE_MAX.to_string(), h.max() as f64),
                (names::PERCENTILE_MEAN.to_string(), h.mean()),
            ]);
        for (percentile, ns) in points {
            m.push(
                Metric::new(names::LATENCY, secs(ns), Unit::Seconds, Better::Lower)
                    .label(label::LATENCY, which)
                    .label(PERCENTILE, percentile),
            );
        }
    }
}

/// httperf's reply status classes and errors, and ab's failure columns.
fn replies_and_errors(m: &mut Vec<Metric>, s: &ThreadStats) {
    for (i, class) in names::STATUS_CLASSES.iter().enumerate() {
        // `other` only when some reply had a status outside 1xx..5xx.
        if i < 5 || s.status[i] > 0 {
            m.push(counted(names::REPLIES, s.status[i], Better::Higher).label(label::CLASS, class));
        }
    }
    for class in names::FAILED_CLASSES {
        let n: u64 = ErrorKind::ALL
            .iter()
            .filter(|k| k.ab_class() == class)
            .map(|&k| s.error_count(k))
            .sum();
        m.push(counted(names::FAILED_REQUESTS, n, Better::Lower).label(label::KIND, class));
    }
    for &k in ErrorKind::ALL {
        m.push(
            counted(names::ERRORS, s.error_count(k), Better::Lower).label(label::KIND, k.as_str()),
        );
    }
}

/// httperf's reply-rate samples, one per full second of the run.
fn reply_rate(m: &mut Vec<Metric>, o: &LoadOutcome) {
    let s = &o.stats;
    let full = (o.elapsed.as_secs() as usize).min(s.buckets.len());
    if full == 0 {
        return;
    }
    let samples: Vec<f64> = (0..full)
        .map(|i| s.buckets.get(i).map_or(0.0, |b| b.completions as f64))
        .collect();
    let n = samples.len() as f64;
    let mean = samples.iter().sum::<f64>() / n;
    let sd = if samples.len() > 1 {
        (samples.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0)).sqrt()
    } else {
        0.0
    };
    let min = samples.iter().copied().fold(f64::INFINITY, f64::min);
    let max = samples.iter().copied().fold(0.0, f64::max);
    for (stat, v) in names::REPLY_RATE_STATS
        .into_iter()
        .zip([min, mean, max, sd])
    {
        m.push(
            Metric::new(names::REPLY_RATE, v, Unit::OpsPerSecond, Better::Higher)
                .label(label::STAT, stat),
        );
    }
    m.push(counted(
        names::REPLY_RATE_SAMPLES,
        samples.len() as u64,
        Better::Higher,
    ));
}

/// httperf's CPU time and net I/O lines: the client threads' CPU time and
/// the socket bytes each way.
fn client_and_network(m: &mut Vec<Metric>, o: &LoadOutcome, elapsed: f64) {
    let s = &o.stats;
    let user = o.client_user.as_secs_f64();
    let sys = o.client_sys.as_secs_f64();
    for (mode, v) in [(names::MODE_USER, user), (names::MODE_SYS, sys)] {
        m.push(
            Metric::new(names::CLIENT_CPU_TIME, v, Unit::Seconds, Better::Lower)
                .label(label::MODE, mode),
        );
    }
    m.push(Metric::new(
        names::CLIENT_CPU_UTILIZATION,
        100.0 * (user + sys) / elapsed,
        Unit::Percent,
        Better::Lower,
    ));
    if s.completed > 0 {
        m.push(Metric::new(
            names::CLIENT_CPU_PER_REQUEST,
            (user + sys) / s.completed as f64,
            Unit::Seconds,
            Better::Lower,
        ));
    }
    for (dir, bytes) in [
        (names::DIRECTION_IN, s.bytes_in),
        (names::DIRECTION_OUT, s.bytes_out),
    ] {
        m.push(
            Metric::new(names::NET_IO, bytes as f64, Unit::Bytes, Better::Higher)
                .label(label::DIRECTION, dir),
        );
        m.push(
            Metric::new(
                names::NET_IO_RATE,
                bytes as f64 / elapsed,
                Unit::BytesPerSecond,
                Better::Higher,
            )
            .label(label::DIRECTION, dir),
        );
    }
}

/// Per-second series of replies, errors and bytes; the last, partial
/// second is scaled by its length.
fn per_second_series(series: &mut Vec<TimeSeries>, s: &ThreadStats, elapsed: f64) {
    // Full seconds only, as the reply-rate samples: a last second the run
    // covered in part would plot its few replies as a full second's low
    // rate. A run shorter than a second keeps its one part, over its length.
    let full = (elapsed.floor() as usize).min(s.buckets.len());
    let kept = if full > 0 {
        full
    } else {
        s.buckets.len().min(1)
    };
    let per_second = |f: fn(&Bucket) -> u64| -> Vec<(f64, f64)> {
        s.buckets[..kept]
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let covered = (elapsed - i as f64).clamp(1e-3, 1.0);
                (i as f64, f(b) as f64 / covered)
            })
            .collect()
    };
    for (name, unit, values) in [
        (
            names::REQUESTS_PER_SECOND,
            Unit::OpsPerSecond,
            per_second(|b| b.completions),
        ),
        (
            names::ERRORS_PER_SECOND,
            Unit::OpsPerSecond,
            per_second(|b| b.errors),
        ),
        (
            names::BYTES_PER_SECOND,
            Unit::BytesPerSecond,
            per_second(|b| b.bytes),
        ),
    ] {
        series.push(TimeSeries {
            name: name.into(),
            unit,
            labels: BTreeMap::new(),
            points: values,
        });
    }
}

/// `connrefused=3, client_timeout=1`: the non-zero error counts.
pub fn error_summary(s: &ThreadStats) -> String {
    let parts: Vec<String> = ErrorKind::ALL
        .iter()
        .filter(|&&k| s.error_count(k) > 0)
        .map(|&k| format!("{}={}", k.as_str(), s.error_count(k)))
        .collect();
    if parts.is_empty() {
        "none".into()
    } else {
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(completions: &[u64]) -> ThreadStats {
        let mut s = ThreadStats::new(std::time::Instant::now());
        s.buckets = completions
            .iter()
            .map(|&c| Bucket {
                completions: c,
                errors: 0,
                bytes: 100 * c,
            })
            .collect();
        s
    }

    fn rates(s: &ThreadStats, elapsed: f64) -> Vec<(f64, f64)> {
        let mut series = Vec::new();
        per_second_series(&mut series, s, elapsed);
        series
            .into_iter()
            .find(|t| t.name == names::REQUESTS_PER_SECOND)
            .unwrap()
            .points
    }

    #[test]
    fn error_replies_over_the_rate_fail_with_their_classes() {
        let mut s = stats(&[]);
        s.completed = 200;
        s.status = [0, 197, 0, 3, 0, 0];
        s.codes = vec![(200, 197), (404, 3)];
        // 3 of 200 is 1.5 %: over 1 %, within 2 %.
        assert_eq!(
            error_rate_failure(&s, None, 0.01).unwrap(),
            "3 of 200 requests (1.5 %) failed or got an error status, over --max-error-rate 1 %: replies 2xx=197, 4xx=3; errors none"
        );
        assert_eq!(error_rate_failure(&s, None, 0.02), None);
        // Expecting the 404: the 197 200s are the errors.
        let e = error_rate_failure(&s, Some(404), 0.01).unwrap();
        assert!(
            e.starts_with(
                "197 of 200 requests (98.5 %) failed or got a status other than the expected 404"
            ),
            "{e}"
        );
        s.codes = vec![(404, 200)];
        s.status = [0, 0, 0, 200, 0, 0];
        assert_eq!(error_rate_failure(&s, Some(404), 0.0), None);
        // Requests without a reply count, over replies and failures alike.
        s.errors[ErrorKind::ConnectRefused.index()] = 200;
        let e = error_rate_failure(&s, Some(404), 0.4).unwrap();
        assert!(e.starts_with("200 of 400 requests (50.0 %)"), "{e}");
    }

    #[test]
    fn a_partial_last_second_is_not_plotted_as_a_full_one() {
        // 180 k/s for two seconds, then 10 k replies in the 0.9 s of a
        // third the run covered in part: left out, not a 11 k/s second.
        let s = stats(&[180_000, 180_000, 10_000]);
        assert_eq!(rates(&s, 2.9), vec![(0.0, 180_000.0), (1.0, 180_000.0)]);
        // A run of half a second keeps its one part, over its length.
        let s = stats(&[5_000]);
        assert_eq!(rates(&s, 0.5), vec![(0.0, 10_000.0)]);
        assert!(rates(&stats(&[]), 0.5).is_empty());
    }
}
