//! `http.sweep` results printed as a JMeter user sweep is tabulated: per
//! user count, the Summary Report's average, minimum and maximum latency in
//! ms and rate per second, and the rate's % of the first step,
//! with the received MB/s (10^6 B/s) and the CPU shares beside it, then the
//! saturation point and what saturated. `http.download` results get wget's
//! closing line under their usual table.
//!
//! Figures come from the result's metrics and parameters only.

use std::fmt::Write as _;

use nodebench_core::BenchResult;
use nodebench_core::names::http::download;
use nodebench_core::names::http::sweep::{
    self, CLIENT_CPU, ERRORS, LATENCY_AVG, LATENCY_MAX, LATENCY_MIN, MACHINE_CPU, PERCENT_OF_FIRST,
    RATE, SATURATION_RATE, SATURATION_USERS, THROUGHPUT, USERS,
};

fn param(r: &BenchResult, key: &str) -> Option<String> {
    r.parameters.get(key).map(|v| match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    })
}

/// The value of metric `name` labelled `users=users`.
fn step(r: &BenchResult, name: &str, users: &str) -> Option<f64> {
    r.metrics
        .iter()
        .find(|m| m.name == name && m.labels.get(USERS).map(String::as_str) == Some(users))
        .map(|m| m.value)
}

/// The report of one `http.sweep` result.
pub fn report(r: &BenchResult) -> String {
    let mut out = String::new();
    let mut heading = format!("{} [{}]", r.benchmark, r.status.as_str());
    use sweep::param as p;
    for key in [p::URL, p::METHOD, p::ITERATIONS, p::KEEPALIVE, p::THREADS] {
        if let Some(v) = param(r, key) {
            let _ = write!(heading, "  {key}={v}");
        }
    }
    let _ = writeln!(out, "{heading}");
    let _ = writeln!(
        out,
        "{:>6} {:>10} {:>10} {:>10} {:>12} {:>14} {:>10} {:>11} {:>12}",
        "Users",
        "Avg (ms)",
        "Min (ms)",
        "Max (ms)",
        "Rate/sec",
        "% of Baseline",
        "MB/s",
        "Client CPU",
        "Machine CPU"
    );
    let mut users: Vec<&str> = Vec::new();
    for m in r.metrics.iter().filter(|m| m.name == RATE) {
        if let Some(u) = m.labels.get(USERS) {
            users.push(u);
        }
    }
    let ms = |v: Option<f64>| v.map_or_else(String::new, |s| format!("{:.3}", s * 1e3));
    let pct = |v: Option<f64>| v.map_or_else(String::new, |p| format!("{p:.2}%"));
    for u in users {
        let _ = writeln!(
            out,
            "{u:>6} {:>10} {:>10} {:>10} {:>12} {:>14} {:>10} {:>11} {:>12}",
            ms(step(r, LATENCY_AVG, u)),
            ms(step(r, LATENCY_MIN, u)),
            ms(step(r, LATENCY_MAX, u)),
            step(r, RATE, u).map_or_else(String::new, |v| format!("{v:.2}")),
            pct(step(r, PERCENT_OF_FIRST, u)),
            step(r, THROUGHPUT, u).map_or_else(String::new, |v| format!("{:.2}", v / 1e6)),
            step(r, CLIENT_CPU, u).map_or_else(String::new, |v| format!("{v:.1}%")),
            step(r, MACHINE_CPU, u).map_or_else(String::new, |v| format!("{v:.1}%")),
        );
    }
    if let Some(e) = step_errors(r) {
        let _ = writeln!(out, "{e}");
    }
    if let Some(s) = param(r, p::SATURATION) {
        match param(r, SATURATION_USERS) {
            Some(u) => {
                let rate = r
                    .metrics
                    .iter()
                    .find(|m| m.name == SATURATION_RATE)
                    .map_or(0.0, |m| m.value);
                let _ = writeln!(
                    out,
                    "saturation: the rate stops growing at {u} users ({rate:.2}/s); {s}"
                );
            }
            None => {
                let _ = writeln!(out, "saturation: {s}");
            }
        }
    }
    if let Some(l) = param(r, p::LINK) {
        let _ = writeln!(out, "link: {l}");
    }
    if let Some(e) = &r.error {
        let _ = writeln!(out, "error: {e}");
    }
    for w in &r.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    let _ = writeln!(
        out,
        "(Client CPU and Machine CPU: % of all the machine's CPUs; MB/s = 10^6 bytes/s received)"
    );
    out
}

/// A line naming the steps that had failed requests, if any.
fn step_errors(r: &BenchResult) -> Option<String> {
    let failed: Vec<String> = r
        .metrics
        .iter()
        .filter(|m| m.name == ERRORS && m.value > 0.0)
        .filter_map(|m| Some(format!("{} at {} users", m.value, m.labels.get(USERS)?)))
        .collect();
    (!failed.is_empty()).then(|| format!("failed requests: {}", failed.join(", ")))
}

/// wget's closing line for an `http.download` result:
/// `(1180 MiB/s) - 'http://host/10g.bin' saved [10485760000/10485760000]`
/// (wget's "MB/s" are MiB/s, said so here), and the best one-second rate.
pub fn download_lines(r: &BenchResult) -> String {
    let get = |name: &str| r.metrics.iter().find(|m| m.name == name).map(|m| m.value);
    let (Some(bytes), Some(rate)) = (get(download::BYTES), get(download::THROUGHPUT)) else {
        return String::new();
    };
    let url = param(r, download::param::URL).unwrap_or_default();
    let status = r
        .param(download::param::STATUS)
        .and_then(serde_json::Value::as_u64);
    if let Some(code) = status.filter(|c| !(200..300).contains(c)) {
        // wget's "ERROR 404: Not Found.": an error page is not the download.
        return format!(
            "{} ERROR {code}: '{url}' not saved ({bytes:.0} bytes of the error reply read)\n",
            r.ended_at.format("%Y-%m-%d %H:%M:%S")
        );
    }
    let total =
        param(r, download::param::CONTENT_LENGTH).map_or(String::new(), |t| format!("/{t}"));
    let mut out = format!(
        "{} ({:.0} MiB/s) - '{url}' saved [{bytes:.0}{total}]\n",
        r.ended_at.format("%Y-%m-%d %H:%M:%S"),
        rate / 1048576.0
    );
    if let Some(max) = get(download::THROUGHPUT_MAX) {
        let _ = writeln!(
            out,
            "average {:.1} MB/s ({:.3} Gbit/s), best second {:.1} MB/s ({:.3} Gbit/s); MB = 10^6 B",
            rate / 1e6,
            rate * 8.0 / 1e9,
            max / 1e6,
            max * 8.0 / 1e9
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::{Better, Metric, Unit};

    #[test]
    fn sweep_prints_one_row_per_step_and_the_saturation() {
        let mut r = BenchResult::new(nodebench_core::names::http::SWEEP);
        r.set_param("url", "http://127.0.0.1:8080/1150");
        r.set_param("saturation_users", 2);
        r.set_param("saturation", "server CPU: the machine was 97 % busy");
        for (u, rate, pct) in [(1, 1029.5, 100.0), (2, 2076.3, 201.68)] {
            let m =
                |n: &str, v: f64, unit| Metric::new(n, v, unit, Better::Higher).label("users", u);
            r.metrics.extend([
                m("rate", rate, Unit::OpsPerSecond),
                m("percent_of_first", pct, Unit::Percent),
                m("latency_avg", 0.0009, Unit::Seconds),
                m("latency_min", 0.0001, Unit::Seconds),
                m("latency_max", 0.036, Unit::Seconds),
            ]);
        }
        r.metrics.push(Metric::new(
            "saturation_rate",
            2076.3,
            Unit::OpsPerSecond,
            Better::Higher,
        ));
        let text = report(&r);
        assert!(text.contains("% of Baseline"), "{text}");
        assert!(
            text.contains("1029.50") && text.contains("201.68%"),
            "{text}"
        );
        assert!(text.contains("36.000"), "max in ms: {text}");
        assert!(
            text.contains("stops growing at 2 users (2076.30/s); server CPU"),
            "{text}"
        );
    }

    #[test]
    fn download_says_saved_like_wget() {
        let mut r = BenchResult::new(nodebench_core::names::http::DOWNLOAD);
        r.set_param("url", "http://h/10g.bin");
        r.set_param("content_length", 10485760000u64);
        r.metrics = vec![
            Metric::new("bytes", 10485760000.0, Unit::Bytes, Better::Higher),
            Metric::new(
                "throughput",
                709.0 * 1048576.0,
                Unit::BytesPerSecond,
                Better::Higher,
            ),
            Metric::new("throughput_max", 8e8, Unit::BytesPerSecond, Better::Higher),
        ];
        let text = download_lines(&r);
        assert!(
            text.contains("(709 MiB/s) - 'http://h/10g.bin' saved [10485760000/10485760000]"),
            "{text}"
        );
        assert!(text.contains("best second 800.0 MB/s"), "{text}");
        r.set_param("status", 404);
        let text = download_lines(&r);
        assert!(
            text.ends_with(" ERROR 404: 'http://h/10g.bin' not saved (10485760000 bytes of the error reply read)\n"),
            "{text}"
        );
        assert!(!text.contains("saved ["), "{text}");
    }
}
