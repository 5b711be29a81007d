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

use nodebench_core::BenchResult;

/// Benchmark id of the HTTP load benchmark.
const BENCHMARK: &str = "http.load";

/// True for results this module prints.
pub fn is_http_load(result: &BenchResult) -> bool {
    result.benchmark == BENCHMARK
}

/// The value of metric `name` whose labels include all of `labels`.
fn metric(r: &BenchResult, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    r.metrics
        .iter()
        .find(|m| {
            m.name == name
                && labels
                    .iter()
                    .all(|(k, v)| m.labels.get(*k).is_some_and(|x| x == v))
        })
        .map(|m| m.value)
}

fn count(r: &BenchResult, name: &str, labels: &[(&str, &str)]) -> u64 {
    metric(r, name, labels).map_or(0, |v| v.round() as u64)
}

fn param(r: &BenchResult, key: &str) -> Option<String> {
    r.parameters.get(key).map(|v| match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    })
}

fn ms(v: Option<f64>) -> String {
    v.map_or_else(String::new, |s| format!("{:.3}", s * 1e3))
}

/// The report of one `http.load` result.
pub fn report(r: &BenchResult) -> String {
    let mut out = String::new();
    let w = &mut out;
    let line = |w: &mut String, k: &str, v: String| {
        let _ = writeln!(w, "{:<24}{v}", format!("{k}:"));
    };
    let model = param(r, "model").unwrap_or_default();
    let _ = writeln!(
        w,
        "{} [{}]  model={model}  http={}  keepalive={}  threads={}",
        r.benchmark,
        r.status.as_str(),
        param(r, "http_version").unwrap_or_default(),
        param(r, "keepalive").unwrap_or_default(),
        param(r, "threads").unwrap_or_default(),
    );
    let _ = writeln!(w);
    line(
        w,
        "Server Software",
        param(r, "server_software").unwrap_or_default(),
    );
    line(w, "Server Hostname", param(r, "host").unwrap_or_default());
    line(w, "Server Port", param(r, "port").unwrap_or_default());
    let _ = writeln!(w);
    line(w, "Document Path", param(r, "path").unwrap_or_default());
    line(
        w,
        "Document Length",
        param(r, "document_length").map_or_else(String::new, |d| format!("{d} bytes")),
    );
    let _ = writeln!(w);
    line(
        w,
        "Concurrency Level",
        param(r, "concurrency").unwrap_or_default(),
    );
    if let Some(rate) = param(r, "rate") {
        line(w, "Request Rate", format!("{rate} [#/sec] (planned)"));
    }
    if let Some(rate) = param(r, "conn_rate") {
        line(
            w,
            "Connection Rate",
            format!(
                "{rate} [#/sec] (planned), {} calls per connection",
                param(r, "calls_per_conn").unwrap_or_default()
            ),
        );
    }
    line(
        w,
        "Time taken for tests",
        metric(r, "time_taken", &[]).map_or_else(String::new, |t| format!("{t:.3} seconds")),
    );
    line(
        w,
        "Complete requests",
        count(r, "requests_completed", &[]).to_string(),
    );
    let failed = count(r, "requests_failed", &[]);
    line(w, "Failed requests", failed.to_string());
    if failed > 0 {
        let _ = writeln!(
            w,
            "   (Connect: {}, Receive: {}, Length: {}, Exceptions: {})",
            count(r, "failed_requests", &[("kind", "connect")]),
            count(r, "failed_requests", &[("kind", "receive")]),
            count(r, "failed_requests", &[("kind", "length")]),
            count(r, "failed_requests", &[("kind", "exceptions")]),
        );
    }
    let non2xx = count(r, "non_2xx", &[]);
    if non2xx > 0 {
        line(w, "Non-2xx responses", non2xx.to_string());
    }
    line(
        w,
        "Total transferred",
        format!("{} bytes", count(r, "total_transferred", &[])),
    );
    line(
        w,
        "HTML transferred",
        format!("{} bytes", count(r, "html_transferred", &[])),
    );
    if let Some(rps) = metric(r, "requests_per_second", &[]) {
        line(w, "Requests per second", format!("{rps:.2} [#/sec] (mean)"));
    }
    if let Some(t) = metric(r, "time_per_request", &[("scope", "mean")]) {
        line(
            w,
            "Time per request",
            format!("{} [ms] (mean)", ms(Some(t))),
        );
    }
    if let Some(t) = metric(r, "time_per_request", &[("scope", "across_all")]) {
        line(
            w,
            "Time per request",
            format!(
                "{} [ms] (mean, across all concurrent requests)",
                ms(Some(t))
            ),
        );
    }
    if let Some(t) = metric(r, "transfer_rate", &[]) {
        line(
            w,
            "Transfer rate",
            format!("{:.2} [Kbytes/sec] received", t / 1024.0),
        );
    }

    if metric(r, "connection_time", &[("phase", "total"), ("stat", "min")]).is_some() {
        let _ = writeln!(w);
        let _ = writeln!(w, "Connection Times (ms)");
        let _ = writeln!(w, "              min  mean[+/-sd] median   max");
        for (label, phase) in [
            ("Connect", "connect"),
            ("Processing", "processing"),
            ("Waiting", "waiting"),
            ("Total", "total"),
        ] {
            let v = |stat: &str| {
                metric(r, "connection_time", &[("phase", phase), ("stat", stat)]).map(|s| s * 1e3)
            };
            let Some(min) = v("min") else {
                continue;
            };
            let _ = writeln!(
                w,
                "{:<11}{:>6.0} {:>5.0} {:>5.1} {:>6.0} {:>7.0}",
                format!("{label}:"),
                min,
                v("mean").unwrap_or(0.0),
                v("sd").unwrap_or(0.0),
                v("median").unwrap_or(0.0),
                v("max").unwrap_or(0.0),
            );
        }
        let _ = writeln!(w);
        let _ = writeln!(
            w,
            "Percentage of the requests served within a certain time (ms)"
        );
        for pct in [50, 66, 75, 80, 90, 95, 98, 99, 100] {
            let p = pct.to_string();
            if let Some(v) = metric(r, "served_within", &[("percent", p.as_str())]) {
                let _ = writeln!(
                    w,
                    "{:>4}% {:>9.3}{}",
                    pct,
                    v * 1e3,
                    if pct == 100 { " (longest request)" } else { "" }
                );
            }
        }
    }

    // httperf's summary lines.
    let _ = writeln!(w);
    if let Some(avg) = metric(r, "reply_rate", &[("stat", "avg")]) {
        let _ = writeln!(
            w,
            "Reply rate [replies/s]: min {:.1} avg {avg:.1} max {:.1} stddev {:.1} ({} samples)",
            metric(r, "reply_rate", &[("stat", "min")]).unwrap_or(0.0),
            metric(r, "reply_rate", &[("stat", "max")]).unwrap_or(0.0),
            metric(r, "reply_rate", &[("stat", "stddev")]).unwrap_or(0.0),
            count(r, "reply_rate_samples", &[]),
        );
    }
    let _ = writeln!(
        w,
        "Reply status: 1xx={} 2xx={} 3xx={} 4xx={} 5xx={}",
        count(r, "replies", &[("class", "1xx")]),
        count(r, "replies", &[("class", "2xx")]),
        count(r, "replies", &[("class", "3xx")]),
        count(r, "replies", &[("class", "4xx")]),
        count(r, "replies", &[("class", "5xx")]),
    );
    let user = metric(r, "client_cpu_time", &[("mode", "user")]).unwrap_or(0.0);
    let sys = metric(r, "client_cpu_time", &[("mode", "sys")]).unwrap_or(0.0);
    let elapsed = metric(r, "time_taken", &[]).unwrap_or(0.0).max(1e-9);
    let _ = writeln!(
        w,
        "CPU time [s]: user {user:.2} system {sys:.2} (user {:.1}% system {:.1}% total {:.1}%)",
        100.0 * user / elapsed,
        100.0 * sys / elapsed,
        100.0 * (user + sys) / elapsed,
    );
    if let Some(per) = metric(r, "client_cpu_per_request", &[]) {
        let _ = writeln!(w, "CPU per request [us]: {:.2}", per * 1e6);
    }
    let rate_in = metric(r, "net_io_rate", &[("direction", "in")]).unwrap_or(0.0);
    let rate_out = metric(r, "net_io_rate", &[("direction", "out")]).unwrap_or(0.0);
    let total = rate_in + rate_out;
    let _ = writeln!(
        w,
        "Net I/O: {:.1} KB/s ({:.1}*10^6 bps)",
        total / 1024.0,
        total * 8.0 / 1e6
    );
    let e = |k: &str| count(r, "errors", &[("kind", k)]);
    let all: u64 = r
        .metrics
        .iter()
        .filter(|m| m.name == "errors")
        .map(|m| m.value.round() as u64)
        .sum();
    let _ = writeln!(
        w,
        "Errors: total {all} client-timo {} socket-timo {} connrefused {} connreset {}",
        e("client_timeout"),
        e("socket_timeout"),
        e("connrefused"),
        e("connreset"),
    );
    let _ = writeln!(
        w,
        "Errors: fd-unavail {} addrunavail {} ftab-full 0 other {}",
        e("fd_unavail"),
        e("addr_unavail"),
        e("connect_other") + e("receive") + e("length") + e("exception"),
    );
    if model != "closed" {
        let _ = writeln!(
            w,
            "Sent late: {} of {} requests (client busy at their planned time)",
            count(r, "sent_late", &[]),
            count(r, "requests_sent", &[]),
        );
    }

    // wrk2's latency block.
    let has_latency = metric(r, "latency", &[("latency", "corrected")]).is_some();
    if has_latency {
        let _ = writeln!(w);
        let _ = writeln!(
            w,
            "Latency (ms)   {:>12} {:>12}",
            if model == "closed" {
                "total"
            } else {
                "corrected"
            },
            "uncorrected"
        );
        for p in ["50", "75", "90", "99", "99.9", "99.99", "99.999", "max"] {
            let c = metric(r, "latency", &[("latency", "corrected"), ("percentile", p)]);
            let u = metric(
                r,
                "latency",
                &[("latency", "uncorrected"), ("percentile", p)],
            );
            let label = if p == "max" {
                "max".to_string()
            } else {
                format!("{p}%")
            };
            let _ = writeln!(w, "{label:>9}      {:>12} {:>12}", ms(c), ms(u));
        }
    }
    for warning in &r.warnings {
        let _ = writeln!(w, "warning: {warning}");
    }
    if let Some(e) = &r.error {
        let _ = writeln!(w, "error: {e}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::{Better, Metric, Unit};

    #[test]
    fn prints_ab_and_httperf_lines_from_the_metrics() {
        let mut r = BenchResult::new("http.load");
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
            " 100%     9.000 (longest request)",
            "Reply status: 1xx=0 2xx=1000 3xx=0 4xx=0 5xx=0",
            "Errors: total 3 client-timo 3",
            "      99%             2.100",
            "warning: client CPU saturated",
        ] {
            assert!(text.contains(want), "missing {want:?} in\n{text}");
        }
        assert!(is_http_load(&r));
    }
}
