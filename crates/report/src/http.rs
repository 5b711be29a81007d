//! `http.load` results printed the way ab prints them (server, document,
//! concurrency, request counts and rates, the connection-times table, the
//! "served within" percentages), followed by httperf's summary lines
//! (reply rate, reply status, CPU time, net I/O, errors) and wrk2's latency
//! percentiles, corrected for coordinated omission and uncorrected.
//!
//! Figures are taken from the result's metrics and parameters only (never
//! recomputed from a benchmark's private types). Units follow the tools:
//! times in ms, ab's Kbytes = 1024 bytes, httperf's KB/s = 1024 bytes/s.
//! As in ab, the "Connect" row has one figure per request, 0 ms for a
//! request on a reused keep-alive connection.

use std::fmt::Write as _;

use names::{label, param};
use nodebench_core::BenchResult;
use nodebench_core::names::http::load as names;
use nodebench_core::names::labels::PERCENTILE;

/// The value of metric `name` whose labels include all of `labels`.
fn metric(r: &BenchResult, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    r.metric(name, labels).map(|m| m.value)
}

/// Metric `name` as an imported source printed it (`3.05 s`, `2.46 MB`),
/// when it was imported with its source's form.
fn quoted(r: &BenchResult, name: &str, labels: &[(&str, &str)]) -> Option<String> {
    r.metric(name, labels)?
        .printed
        .as_ref()
        .map(|p| p.with_unit())
}

fn count(r: &BenchResult, name: &str, labels: &[(&str, &str)]) -> u64 {
    metric(r, name, labels).map_or(0, |v| v.round() as u64)
}

/// Parameter `key` as printed: a string as it is, anything else as JSON.
fn param(r: &BenchResult, key: &str) -> Option<String> {
    r.param(key).map(|v| match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    })
}

fn ms(v: Option<f64>) -> String {
    v.map_or_else(String::new, |s| format!("{:.3}", s * 1e3))
}

/// One ab-style line: the key and a colon padded to 24 columns, then the value.
fn line(w: &mut String, k: &str, v: String) {
    let _ = writeln!(w, "{:<24}{v}", format!("{k}:"));
}

/// The report of one `http.load` result.
pub fn report(r: &BenchResult) -> String {
    let mut out = String::new();
    let w = &mut out;
    let model = param(r, param::MODEL).unwrap_or_default();
    let closed = model == names::MODEL_CLOSED;
    // The settings the result records; an imported run's tool said
    // nothing of some, which are left out rather than printed blank.
    let mut head = format!("{} [{}]", r.benchmark, r.status.as_str());
    for (key, name) in [
        ("model", param::MODEL),
        ("http", param::HTTP_VERSION),
        ("keepalive", param::KEEPALIVE),
        ("threads", param::THREADS),
    ] {
        if let Some(v) = param(r, name) {
            let _ = write!(head, "  {key}={v}");
        }
    }
    let _ = writeln!(w, "{head}");
    ab_summary(w, r);
    ab_tables(w, r);
    httperf_lines(w, r, closed);
    wrk2_latency(w, r, closed);
    for warning in &r.warnings {
        let _ = writeln!(w, "warning: {warning}");
    }
    if let Some(e) = &r.error {
        let _ = writeln!(w, "error: {e}");
    }
    out
}

/// `line` when the figure is known; a figure the result does not hold (an
/// imported tool did not print it) leaves its line out.
fn line_if(w: &mut String, k: &str, v: Option<String>) {
    if let Some(v) = v {
        line(w, k, v);
    }
}

/// ab's summary: server, document, concurrency, counts, rates, transfer.
fn ab_summary(w: &mut String, r: &BenchResult) {
    let _ = writeln!(w);
    let text = |key: &str| param(r, key).unwrap_or_default();
    line_if(w, "Server Software", param(r, param::SERVER_SOFTWARE));
    line_if(w, "Server Hostname", param(r, param::HOST));
    line_if(w, "Server Port", param(r, param::PORT));
    let _ = writeln!(w);
    line_if(w, "Document Path", param(r, param::PATH));
    line_if(
        w,
        "Document Length",
        param(r, param::DOCUMENT_LENGTH).map(|d| format!("{d} bytes")),
    );
    let _ = writeln!(w);
    line_if(w, "Concurrency Level", param(r, param::CONCURRENCY));
    if let Some(rate) = param(r, param::RATE) {
        line(w, "Request Rate", format!("{rate} [#/sec] (planned)"));
    }
    if let Some(rate) = param(r, param::CONN_RATE) {
        line(
            w,
            "Connection Rate",
            format!(
                "{rate} [#/sec] (planned), {} calls per connection",
                text(param::CALLS_PER_CONN)
            ),
        );
    }
    line_if(
        w,
        "Time taken for tests",
        quoted(r, names::TIME_TAKEN, &[])
            .or_else(|| metric(r, names::TIME_TAKEN, &[]).map(|t| format!("{t:.3} seconds"))),
    );
    line_if(
        w,
        "Complete requests",
        quoted(r, names::REQUESTS_COMPLETED, &[]).or_else(|| {
            metric(r, names::REQUESTS_COMPLETED, &[])
                .map(|_| count(r, names::REQUESTS_COMPLETED, &[]).to_string())
        }),
    );
    let failed = count(r, names::REQUESTS_FAILED, &[]);
    line_if(
        w,
        "Failed requests",
        metric(r, names::REQUESTS_FAILED, &[]).map(|_| failed.to_string()),
    );
    if failed > 0 {
        let [connect, receive, length, exceptions] =
            names::FAILED_CLASSES.map(|k| count(r, names::FAILED_REQUESTS, &[(label::KIND, k)]));
        let _ = writeln!(
            w,
            "   (Connect: {connect}, Receive: {receive}, Length: {length}, Exceptions: {exceptions})",
        );
    }
    let non2xx = count(r, names::NON_2XX, &[]);
    if non2xx > 0 {
        line(w, "Non-2xx responses", non2xx.to_string());
    }
    for (key, name) in [
        ("Total transferred", names::TOTAL_TRANSFERRED),
        ("HTML transferred", names::HTML_TRANSFERRED),
    ] {
        line_if(
            w,
            key,
            quoted(r, name, &[])
                .or_else(|| metric(r, name, &[]).map(|_| format!("{} bytes", count(r, name, &[])))),
        );
    }
    if let Some(rps) = quoted(r, names::REQUESTS_PER_SECOND, &[]) {
        line(w, "Requests per second", format!("{rps} [#/sec] (mean)"));
    } else if let Some(rps) = metric(r, names::REQUESTS_PER_SECOND, &[]) {
        line(w, "Requests per second", format!("{rps:.2} [#/sec] (mean)"));
    }
    for (scope, how) in [
        (names::SCOPE_MEAN, "mean"),
        (
            names::SCOPE_ACROSS_ALL,
            "mean, across all concurrent requests",
        ),
    ] {
        if let Some(t) = metric(r, names::TIME_PER_REQUEST, &[(label::SCOPE, scope)]) {
            line(
                w,
                "Time per request",
                format!("{} [ms] ({how})", ms(Some(t))),
            );
        }
    }
    if let Some(t) = quoted(r, names::TRANSFER_RATE, &[]) {
        // wrk's `Transfer/sec: 824.79KB`.
        line(w, "Transfer rate", format!("{t}/sec received"));
    } else if let Some(t) = metric(r, names::TRANSFER_RATE, &[]) {
        line(
            w,
            "Transfer rate",
            format!("{:.2} [Kbytes/sec] received", t / 1024.0),
        );
    }
}

/// ab's "Connection Times" table and "served within" percentages.
fn ab_tables(w: &mut String, r: &BenchResult) {
    let [_, _, _, total] = names::PHASES;
    let [min, mean, sd, median, max] = names::CONNECTION_STATS;
    let time = |phase: &str, stat: &str| {
        metric(
            r,
            names::CONNECTION_TIME,
            &[(label::PHASE, phase), (label::STAT, stat)],
        )
        .map(|s| s * 1e3)
    };
    if time(total, min).is_none() {
        return;
    }
    let _ = writeln!(w);
    let _ = writeln!(w, "Connection Times (ms)");
    let _ = writeln!(w, "              min  mean[+/-sd] median   max");
    for (row, phase) in ["Connect", "Processing", "Waiting", "Total"]
        .into_iter()
        .zip(names::PHASES)
    {
        let Some(lowest) = time(phase, min) else {
            continue;
        };
        let v = |stat: &str| time(phase, stat).unwrap_or(0.0);
        let _ = writeln!(
            w,
            "{:<11}{:>6} {:>5} {:>5.1} {:>6} {:>7}",
            format!("{row}:"),
            whole_ms(lowest),
            whole_ms(v(mean)),
            v(sd),
            whole_ms(v(median)),
            whole_ms(v(max)),
        );
    }
    if r.metrics_named(names::SERVED_WITHIN).next().is_none() {
        return;
    }
    let _ = writeln!(w);
    let _ = writeln!(
        w,
        "Percentage of the requests served within a certain time (ms)"
    );
    let within: Vec<(u32, f64)> = names::SERVED_WITHIN_PERCENTS
        .into_iter()
        .filter_map(|pct| {
            let p = pct.to_string();
            metric(r, names::SERVED_WITHIN, &[(label::PERCENT, p.as_str())]).map(|v| (pct, v * 1e3))
        })
        .collect();
    // ab prints whole ms (`3`, never `3.000`): the column keeps that form
    // when every figure is whole, else all figures in µs precision.
    let whole = within.iter().all(|(_, v)| (v - v.round()).abs() < 1e-6);
    for (pct, v) in within {
        let figure = if whole {
            format!("{v:>6.0}")
        } else {
            format!("{v:>9.3}")
        };
        let _ = writeln!(
            w,
            "{:>4}% {}{}",
            pct,
            figure,
            if pct == 100 { " (longest request)" } else { "" }
        );
    }
}

/// A time in ms as ab prints it, in whole ms, unless that would lose what
/// the figure holds (httperf's median of 0.5 ms is not 0): then to 0.1 ms.
fn whole_ms(v: f64) -> String {
    if (v - v.round()).abs() < 1e-6 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// httperf's summary lines: reply rate, reply status, CPU time, net I/O,
/// errors, and (open models) the requests sent late.
fn httperf_lines(w: &mut String, r: &BenchResult, closed: bool) {
    let _ = writeln!(w);
    let rate = |stat: &str| metric(r, names::REPLY_RATE, &[(label::STAT, stat)]);
    let [min, avg, max, stddev] = names::REPLY_RATE_STATS;
    if let Some(avg) = rate(avg) {
        let _ = writeln!(
            w,
            "Reply rate [replies/s]: min {:.1} avg {avg:.1} max {:.1} stddev {:.1} ({} samples)",
            rate(min).unwrap_or(0.0),
            rate(max).unwrap_or(0.0),
            rate(stddev).unwrap_or(0.0),
            count(r, names::REPLY_RATE_SAMPLES, &[]),
        );
    }
    // A figure the source did not give (an imported ab reports no reply
    // classes, CPU time or net I/O) is left out, never shown as 0.
    if r.metrics_named(names::REPLIES).next().is_some() {
        let [c1, c2, c3, c4, c5, _] =
            names::STATUS_CLASSES.map(|c| count(r, names::REPLIES, &[(label::CLASS, c)]));
        let _ = writeln!(
            w,
            "Reply status: 1xx={c1} 2xx={c2} 3xx={c3} 4xx={c4} 5xx={c5}"
        );
    }
    let cpu = |mode: &str| metric(r, names::CLIENT_CPU_TIME, &[(label::MODE, mode)]);
    if let (Some(user), Some(sys)) = (cpu(names::MODE_USER), cpu(names::MODE_SYS)) {
        let utilization = metric(r, names::CLIENT_CPU_UTILIZATION, &[]);
        match metric(r, names::TIME_TAKEN, &[]).filter(|t| *t > 0.0) {
            // The share the result records (httperf's own from its exact
            // times), not one derived from the rounded seconds.
            _ if utilization.is_some() => {
                let _ = writeln!(
                    w,
                    "CPU time [s]: user {user:.2} system {sys:.2} (total {:.1}%)",
                    utilization.unwrap_or_default()
                );
            }
            Some(elapsed) => {
                let _ = writeln!(
                    w,
                    "CPU time [s]: user {user:.2} system {sys:.2} (user {:.1}% system {:.1}% total {:.1}%)",
                    100.0 * user / elapsed,
                    100.0 * sys / elapsed,
                    100.0 * (user + sys) / elapsed,
                );
            }
            None => {
                let _ = writeln!(w, "CPU time [s]: user {user:.2} system {sys:.2}");
            }
        }
    }
    if let Some(per) = metric(r, names::CLIENT_CPU_PER_REQUEST, &[]) {
        let _ = writeln!(w, "CPU per request [us]: {:.2}", per * 1e6);
    }
    // Both directions (nodebench's own) or their sum (httperf's).
    let io = |dir: &str| metric(r, names::NET_IO_RATE, &[(label::DIRECTION, dir)]);
    let total = match (io(names::DIRECTION_IN), io(names::DIRECTION_OUT)) {
        (Some(i), Some(o)) => Some(i + o),
        _ => io(names::DIRECTION_BOTH),
    };
    if let Some(total) = total {
        let _ = writeln!(
            w,
            "Net I/O: {:.1} KB/s ({:.1}*10^6 bps)",
            total / 1024.0,
            total * 8.0 / 1e6
        );
    }
    if r.metrics_named(names::ERRORS).next().is_some() {
        let e = |k: &str| count(r, names::ERRORS, &[(label::KIND, k)]);
        let all: u64 = r
            .metrics_named(names::ERRORS)
            .map(|m| m.value.round() as u64)
            .sum();
        let _ = writeln!(
            w,
            "Errors: total {all} client-timo {} socket-timo {} connrefused {} connreset {}",
            e(names::CLIENT_TIMEOUT),
            e(names::SOCKET_TIMEOUT),
            e(names::CONNREFUSED),
            e(names::CONNRESET),
        );
        let _ = writeln!(
            w,
            "Errors: fd-unavail {} addrunavail {} ftab-full {} other {}",
            e(names::FD_UNAVAIL),
            e(names::ADDR_UNAVAIL),
            e(names::FTAB_FULL),
            e(names::CONNECT_OTHER)
                + e(names::RECEIVE)
                + e(names::LENGTH)
                + e(names::EXCEPTION)
                + e(names::SEND),
        );
    }
    if !closed && metric(r, names::SENT_LATE, &[]).is_some() {
        let _ = writeln!(
            w,
            "Sent late: {} of {} requests (client busy at their planned time)",
            count(r, names::SENT_LATE, &[]),
            count(r, names::REQUESTS_SENT, &[]),
        );
    }
}

/// wrk2's latency block: each percentile, corrected (the total latency in
/// the closed model) and uncorrected. An imported wrk or wrk2 report's
/// figures print as the tool printed them, each with its unit (`3.02ms`,
/// `3.59s`), and only its rows.
fn wrk2_latency(w: &mut String, r: &BenchResult, closed: bool) {
    let imported = r.quotes_source();
    let latency = |which: &str, p: &str| {
        let m = r.metric(names::LATENCY, &[(label::LATENCY, which), (PERCENTILE, p)])?;
        Some(match &m.printed {
            Some(printed) => format!("{}{}", printed.text, printed.unit),
            None => ms(Some(m.value)),
        })
    };
    let shown = |which: &str| metric(r, names::LATENCY, &[(label::LATENCY, which)]).is_some();
    // wrk2 prints corrected latency; an imported wrk its uncorrected rows.
    let any = shown(names::CORRECTED) || (imported && shown(names::UNCORRECTED));
    if !any {
        return;
    }
    let _ = writeln!(w);
    let _ = writeln!(
        w,
        "{}   {:>12} {:>12}",
        if imported {
            "Latency     "
        } else {
            "Latency (ms)"
        },
        if closed { "total" } else { names::CORRECTED },
        names::UNCORRECTED
    );
    let percentiles = names::LATENCY_PERCENTILES
        .iter()
        .map(|p| (p.to_string(), format!("{p}%")))
        .chain([(
            names::PERCENTILE_MAX.to_string(),
            names::PERCENTILE_MAX.to_string(),
        )]);
    for (p, row) in percentiles {
        let c = latency(names::CORRECTED, &p);
        let u = latency(names::UNCORRECTED, &p);
        if imported && c.is_none() && u.is_none() {
            continue;
        }
        let _ = writeln!(
            w,
            "{row:>9}      {:>12} {:>12}",
            c.unwrap_or_default(),
            u.unwrap_or_default()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::{Better, Metric, Unit};

    #[test]
    fn prints_ab_and_httperf_lines_from_the_metrics() {
        let mut r = BenchResult::new(nodebench_core::names::http::LOAD);
        r.parameters.insert("model".into(), "closed".into());
        r.parameters.insert("host".into(), "127.0.0.1".into());
        r.parameters.insert("port".into(), 8080.into());
        r.parameters.insert("path".into(), "/3985".into());
        r.parameters.insert("document_length".into(), 3985.into());
        r.parameters.insert("concurrency".into(), 10.into());
        r.parameters
            .insert("server_software".into(), "nginx/1.22.1".into());
        let m = |n: &str, v: f64, u: Unit| Metric::new(n, v, u, Better::Higher);
        r.metrics.push(m("time_taken", 2.0, Unit::Seconds));
        r.metrics.push(m("requests_completed", 1000.0, Unit::Count));
        r.metrics.push(m("requests_failed", 3.0, Unit::Count));
        r.metrics
            .push(m("failed_requests", 3.0, Unit::Count).label("kind", "receive"));
        r.metrics
            .push(m("requests_per_second", 500.0, Unit::OpsPerSecond));
        r.metrics
            .push(m("transfer_rate", 2048.0, Unit::BytesPerSecond));
        for (stat, v) in [
            ("min", 0.001),
            ("mean", 0.002),
            ("sd", 0.0005),
            ("median", 0.002),
            ("max", 0.009),
        ] {
            r.metrics.push(
                m("connection_time", v, Unit::Seconds)
                    .label("phase", "total")
                    .label("stat", stat),
            );
        }
        r.metrics
            .push(m("served_within", 0.009, Unit::Seconds).label("percent", 100));
        r.metrics
            .push(m("replies", 1000.0, Unit::Count).label("class", "2xx"));
        r.metrics
            .push(m("errors", 3.0, Unit::Count).label("kind", "client_timeout"));
        r.metrics.push(
            m("latency", 0.0021, Unit::Seconds)
                .label("latency", "corrected")
                .label("percentile", "99"),
        );
        r.warnings.push("client CPU saturated".into());
        let text = report(&r);
        for want in [
            "Server Software:        nginx/1.22.1",
            "Document Length:        3985 bytes",
            "Complete requests:      1000",
            "Failed requests:        3",
            "(Connect: 0, Receive: 3, Length: 0, Exceptions: 0)",
            "Requests per second:    500.00 [#/sec] (mean)",
            "Transfer rate:          2.00 [Kbytes/sec] received",
            "Total:          1     2   0.5      2       9",
            " 100%      9 (longest request)",
            "Reply status: 1xx=0 2xx=1000 3xx=0 4xx=0 5xx=0",
            "Errors: total 3 client-timo 3",
            "      99%             2.100",
            "warning: client CPU saturated",
        ] {
            assert!(text.contains(want), "missing {want:?} in\n{text}");
        }
        // What the source did not give is left out, not printed as 0.
        assert!(!text.contains("CPU time"), "{text}");
        assert!(!text.contains("Net I/O"), "{text}");
        r.metrics
            .retain(|m| m.name != "replies" && m.name != "errors");
        r.metrics.push(
            m("net_io_rate", 4151.6 * 1024.0, Unit::BytesPerSecond).label("direction", "both"),
        );
        for mode in ["user", "sys"] {
            r.metrics
                .push(m("client_cpu_time", 0.5, Unit::Seconds).label("mode", mode));
        }
        let text = report(&r);
        assert!(!text.contains("Reply status"), "{text}");
        assert!(!text.contains("Errors:"), "{text}");
        assert!(text.contains("Net I/O: 4151.6 KB/s"), "{text}");
        assert!(
            text.contains(
                "CPU time [s]: user 0.50 system 0.50 (user 25.0% system 25.0% total 50.0%)"
            ),
            "{text}"
        );
        // A figure finer than a ms prints the whole column to the µs.
        r.metrics
            .push(m("served_within", 0.0025, Unit::Seconds).label("percent", 50));
        let text = report(&r);
        for want in ["  50%     2.500", " 100%     9.000 (longest request)"] {
            assert!(text.contains(want), "missing {want:?} in\n{text}");
        }
    }
}
