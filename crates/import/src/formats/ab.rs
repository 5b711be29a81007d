//! ApacheBench's report: the server and document lines, the totals
//! (`Requests per second:`, `Transfer rate:`...), the `Connection Times
//! (ms)` table and the `Percentage of the requests served within a certain
//! time (ms)` rows, as one `http.load` result under the names nodebench's
//! own load generator gives the same figures (milliseconds to seconds,
//! ab's Kbytes to bytes: ab divides by 1024).

use names::{label, param};
use nodebench_core::model::{BenchResult, Better, Metric, Unit};
use nodebench_core::names::http::{self as ids, load as names};

use crate::param::TOOL_VERSION;
use crate::text::{Words, ms};

/// ab's banner.
const BANNER: &str = "This is ApacheBench,";

/// True when `text` holds an ab report.
pub(crate) fn detect(text: &str) -> bool {
    let w = Words::new(text);
    w.contains(BANNER) || (w.contains("Requests per second:") && w.contains("[#/sec] (mean)"))
}

/// One `http.load` result with ab's figures.
pub(crate) fn parse(text: &str) -> Result<Vec<BenchResult>, String> {
    let w = Words::new(text);
    let mut r = BenchResult::new(ids::LOAD);
    r.set_param(param::MODEL, names::MODEL_CLOSED);
    // ab is one thread multiplexing its connections.
    r.set_param(param::THREADS, 1);
    if let Some(v) = w
        .find(BANNER, 0)
        .and_then(|i| w.find("Version", i))
        .and_then(|i| w.get(i))
    {
        r.set_param(TOOL_VERSION, v);
    }
    target(&w, &mut r)?;
    totals(&w, &mut r)?;
    let completed = r
        .metric(names::REQUESTS_COMPLETED, &[])
        .map_or(0.0, |m| m.value);
    if completed > 0.0 {
        connection_times(&w, &mut r)?;
    }
    // ab counts a non-2xx reply per response read, and may print more of
    // them, or of failed requests, than complete requests: kept as
    // printed, with a word.
    let printed = |name: &str| r.metric(name, &[]).map(|m| m.value);
    let complete = ("Complete requests", printed(names::REQUESTS_COMPLETED));
    let non_2xx = ("Non-2xx responses", printed(names::NON_2XX));
    let failed = ("Failed requests", printed(names::REQUESTS_FAILED));
    super::warn_if_above(&mut r, non_2xx, complete);
    super::warn_if_above(&mut r, failed, complete);
    served_within(&w, &mut r)?;
    Ok(vec![r])
}

/// The server, URL and document parameters.
fn target(w: &Words, r: &mut BenchResult) -> Result<(), String> {
    let word_after = |phrase: &str| -> Result<&str, String> {
        w.find(phrase, 0)
            .and_then(|i| w.get(i))
            .ok_or_else(|| format!("expected `{phrase}` and its value"))
    };
    let host = word_after("Server Hostname:")?;
    let port = w.number_after("Server Port:")?;
    let path = word_after("Document Path:")?;
    if let Some(i) = w.find("Server Software:", 0) {
        // An empty Server header leaves the next label's word here.
        if let Some(s) = w.get(i).filter(|s| !s.ends_with(':')) {
            r.set_param(param::SERVER_SOFTWARE, s);
        }
    }
    r.set_param(param::HOST, host);
    r.set_param(param::PORT, port as u64);
    r.set_param(param::PATH, path);
    let scheme = if w.contains("SSL/TLS Protocol:") {
        "https"
    } else {
        "http"
    };
    r.set_param(param::TLS, scheme == "https");
    r.set_param(
        param::URL,
        format!("{scheme}://{host}:{}{path}", port as u64),
    );
    r.set_param(
        param::DOCUMENT_LENGTH,
        w.number_after("Document Length:")? as u64,
    );
    r.set_param(
        param::CONCURRENCY,
        w.number_after("Concurrency Level:")? as u64,
    );
    r.set_param(param::KEEPALIVE, w.contains("Keep-Alive requests:"));
    Ok(())
}

/// The totals block, from `Time taken for tests:` to `Transfer rate:`.
fn totals(w: &Words, r: &mut BenchResult) -> Result<(), String> {
    let m = &mut r.metrics;
    let count = |name: &str, v: f64, better: Better| Metric::new(name, v, Unit::Count, better);
    m.push(Metric::new(
        names::TIME_TAKEN,
        w.number_after("Time taken for tests:")?,
        Unit::Seconds,
        Better::Lower,
    ));
    m.push(count(
        names::REQUESTS_COMPLETED,
        w.number_after("Complete requests:")?,
        Better::Higher,
    ));
    m.push(count(
        names::REQUESTS_FAILED,
        w.number_after("Failed requests:")?,
        Better::Lower,
    ));
    // `Failed requests: N` is followed by its columns when N > 0:
    // `(Connect: 0, Receive: 0, Length: 5, Exceptions: 0)`.
    if let Some(i) = w
        .find("Failed requests:", 0)
        .and_then(|i| w.find("(Connect:", i))
    {
        let words = ["(Connect:", "Receive:", "Length:", "Exceptions:"];
        for (k, (class, word)) in names::FAILED_CLASSES.iter().zip(words).enumerate() {
            let at = i + 2 * k;
            let ok = k == 0 || w.get(at - 1) == Some(word);
            let v = w
                .get(at)
                .and_then(|s| crate::text::number(s.trim_end_matches([',', ')'])))
                .filter(|_| ok)
                .ok_or_else(|| {
                    format!(
                        "line {}: expected `(Connect: N, Receive: N, Length: N, Exceptions: N)`",
                        w.line(i)
                    )
                })?;
            m.push(count(names::FAILED_REQUESTS, v, Better::Lower).label(label::KIND, class));
        }
    }
    if w.contains("Write errors:") {
        m.push(count(
            names::WRITE_ERRORS,
            w.number_after("Write errors:")?,
            Better::Lower,
        ));
    }
    if w.contains("Non-2xx responses:") {
        m.push(count(
            names::NON_2XX,
            w.number_after("Non-2xx responses:")?,
            Better::Lower,
        ));
    }
    for (name, phrase) in [
        (names::TOTAL_TRANSFERRED, "Total transferred:"),
        (names::HTML_TRANSFERRED, "HTML transferred:"),
    ] {
        m.push(Metric::new(
            name,
            w.number_after(phrase)?,
            Unit::Bytes,
            Better::Higher,
        ));
    }
    m.push(Metric::new(
        names::REQUESTS_PER_SECOND,
        w.number_after("Requests per second:")?,
        Unit::OpsPerSecond,
        Better::Higher,
    ));
    for (scope, phrase) in [
        (names::SCOPE_MEAN, "[ms] (mean)"),
        (
            names::SCOPE_ACROSS_ALL,
            "[ms] (mean, across all concurrent requests)",
        ),
    ] {
        let i = w
            .find(phrase, 0)
            .ok_or_else(|| format!("expected `Time per request: N {phrase}`"))?;
        let at = i - phrase.split_whitespace().count() - 1;
        let v = w
            .number(at)
            .filter(|_| w.get(at.wrapping_sub(1)) == Some("request:"))
            .ok_or_else(|| {
                format!(
                    "line {}: expected `Time per request: N {phrase}`",
                    w.line(at)
                )
            })?;
        m.push(
            Metric::new(names::TIME_PER_REQUEST, ms(v), Unit::Seconds, Better::Lower)
                .label(label::SCOPE, scope),
        );
    }
    let rate = w.number_after("Transfer rate:")?;
    m.push(Metric::new(
        names::TRANSFER_RATE,
        rate * 1024.0,
        Unit::BytesPerSecond,
        Better::Higher,
    ));
    Ok(())
}

/// The `Connection Times (ms)` table: `min mean[+/-sd] median max`
/// columns, or `min avg max` with `-S`.
fn connection_times(w: &Words, r: &mut BenchResult) -> Result<(), String> {
    let start = w
        .find("Connection Times (ms)", 0)
        .ok_or("expected the `Connection Times (ms)` table")?;
    let [min, mean, sd, median, max] = names::CONNECTION_STATS;
    let stats: &[&str] = if w.get(start + 1) == Some("mean[+/-sd]") {
        &[min, mean, sd, median, max]
    } else {
        &[min, mean, max]
    };
    let rows = ["Connect:", "Processing:", "Waiting:", "Total:"];
    for (phase, row) in names::PHASES.iter().zip(rows) {
        let i = w
            .find(row, start)
            .ok_or_else(|| format!("expected the `{row}` row of `Connection Times (ms)`"))?;
        let values = w.numbers(i, stats.len()).ok_or_else(|| {
            format!(
                "line {}: expected {} numbers after `{row}`",
                w.line(i),
                stats.len()
            )
        })?;
        for (stat, v) in stats.iter().zip(values) {
            r.metrics.push(
                Metric::new(names::CONNECTION_TIME, ms(v), Unit::Seconds, Better::Lower)
                    .label(label::PHASE, phase)
                    .label(label::STAT, stat),
            );
        }
    }
    Ok(())
}

/// The `Percentage of the requests served within a certain time (ms)`
/// rows, up to `100% N (longest request)`; ab leaves them out with `-d`.
fn served_within(w: &Words, r: &mut BenchResult) -> Result<(), String> {
    let Some(start) = w.find("Percentage of the requests served", 0) else {
        return Ok(());
    };
    let mut at = start;
    for pct in names::SERVED_WITHIN_PERCENTS {
        let row = format!("{pct}%");
        let i = w.find(&row, at).ok_or_else(|| {
            format!("expected the `{row}` row of `Percentage of the requests served`")
        })?;
        let v = w
            .number(i)
            .ok_or_else(|| format!("line {}: expected a time after `{row}`", w.line(i)))?;
        r.metrics.push(
            Metric::new(names::SERVED_WITHIN, ms(v), Unit::Seconds, Better::Lower)
                .label(label::PERCENT, pct),
        );
        at = i;
    }
    if w.find("(longest request)", at) != Some(at + 3) {
        return Err(format!(
            "line {}: expected `100% N (longest request)`",
            w.line(at)
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::value;
    use nodebench_core::names::labels::PERCENTILE;

    const LOCAL: &str = include_str!("../../tests/fixtures/ab-local.txt");
    const SEED_000: &str = include_str!("../../tests/fixtures/ab-seed000.txt");

    #[test]
    fn local_run_figures_in_canonical_units() {
        assert!(detect(LOCAL));
        let r = &parse(LOCAL).unwrap()[0];
        assert_eq!(r.benchmark, ids::LOAD);
        assert_eq!(value(r, names::REQUESTS_PER_SECOND, &[]), 1481.15);
        assert_eq!(value(r, names::REQUESTS_COMPLETED, &[]), 2000.0);
        assert_eq!(value(r, names::REQUESTS_FAILED, &[]), 0.0);
        assert_eq!(value(r, names::TIME_TAKEN, &[]), 1.350);
        assert_eq!(value(r, names::TOTAL_TRANSFERRED, &[]), 946000.0);
        assert_eq!(value(r, names::HTML_TRANSFERRED, &[]), 636000.0);
        assert_eq!(value(r, names::TRANSFER_RATE, &[]), 684.16 * 1024.0);
        let scope = |s| [(label::SCOPE, s)];
        assert_eq!(
            value(r, names::TIME_PER_REQUEST, &scope(names::SCOPE_MEAN)),
            0.006752
        );
        assert_eq!(
            value(r, names::TIME_PER_REQUEST, &scope(names::SCOPE_ACROSS_ALL)),
            0.000675
        );
        let cell = |phase, stat| [(label::PHASE, phase), (label::STAT, stat)];
        assert_eq!(
            value(r, names::CONNECTION_TIME, &cell("connect", "max")),
            1.027
        );
        assert_eq!(
            value(r, names::CONNECTION_TIME, &cell("total", "sd")),
            0.0456
        );
        assert_eq!(
            value(r, names::CONNECTION_TIME, &cell("waiting", "median")),
            0.002
        );
        let within = |p| value(r, names::SERVED_WITHIN, &[(label::PERCENT, p)]);
        assert_eq!(within("99"), 0.024);
        assert_eq!(within("50"), 0.003);
        assert_eq!(within("100"), 1.030);
        assert_eq!(r.metrics_named(names::SERVED_WITHIN).count(), 9);
        assert_eq!(r.param(param::URL), Some(&"http://127.0.0.1:8089/".into()));
        assert_eq!(r.param(param::CONCURRENCY), Some(&10u64.into()));
        assert_eq!(r.param(param::DOCUMENT_LENGTH), Some(&318u64.into()));
        assert_eq!(
            r.param(param::SERVER_SOFTWARE),
            Some(&"SimpleHTTP/0.6".into())
        );
        assert_eq!(r.param(TOOL_VERSION), Some(&"2.3".into()));
        assert_eq!(r.param(param::THREADS), Some(&1.into()));
        assert!(
            r.metrics
                .iter()
                .all(|m| m.label_value(PERCENTILE).is_none())
        );
    }

    #[test]
    fn seed_000_wrapped_lines_read_the_same() {
        assert!(detect(SEED_000));
        let r = &parse(SEED_000).unwrap()[0];
        assert_eq!(value(r, names::REQUESTS_PER_SECOND, &[]), 1980.20);
        assert_eq!(value(r, names::REQUESTS_COMPLETED, &[]), 19804.0);
        assert_eq!(value(r, names::NON_2XX, &[]), 19806.0);
        assert_eq!(
            r.warnings,
            vec![
                "the source disagrees with itself: Non-2xx responses (19806) exceed Complete requests (19804); both imported as printed"
            ]
        );
        assert_eq!(value(r, names::WRITE_ERRORS, &[]), 0.0);
        assert_eq!(value(r, names::TIME_TAKEN, &[]), 10.993);
        assert_eq!(value(r, names::TRANSFER_RATE, &[]), 8091.80 * 1024.0);
        assert_eq!(
            value(
                r,
                names::TIME_PER_REQUEST,
                &[(label::SCOPE, names::SCOPE_ACROSS_ALL)]
            ),
            0.000505
        );
        let within = |p| value(r, names::SERVED_WITHIN, &[(label::PERCENT, p)]);
        assert_eq!(within("99"), 3.663);
        assert_eq!(within("100"), 9.522);
        let cell = |phase, stat| [(label::PHASE, phase), (label::STAT, stat)];
        assert_eq!(
            value(r, names::CONNECTION_TIME, &cell("connect", "sd")),
            0.5967
        );
        assert_eq!(
            value(r, names::CONNECTION_TIME, &cell("total", "max")),
            9.522
        );
        assert_eq!(r.param(TOOL_VERSION), Some(&"2.0.41-dev".into()));
        assert_eq!(r.param(param::CONCURRENCY), Some(&1000u64.into()));
        assert_eq!(
            r.param(param::SERVER_SOFTWARE),
            Some(&"Apache/2.0.52".into())
        );
    }

    #[test]
    fn failed_requests_above_complete_requests_import_with_a_warning() {
        let text = LOCAL.replace(
            "Failed requests:        0\n",
            "Failed requests:        5000\n   (Connect: 0, Receive: 0, Length: 5000, Exceptions: 0)\n",
        );
        let r = &parse(&text).unwrap()[0];
        assert_eq!(value(r, names::REQUESTS_FAILED, &[]), 5000.0);
        assert_eq!(value(r, names::REQUESTS_COMPLETED, &[]), 2000.0);
        assert_eq!(
            r.warnings,
            [
                "the source disagrees with itself: Failed requests (5000) exceed Complete requests (2000); both imported as printed"
            ]
        );
        assert!(parse(LOCAL).unwrap()[0].warnings.is_empty());
    }

    #[test]
    fn failed_request_columns() {
        let text = LOCAL.replace(
            "Failed requests:        0\n",
            "Failed requests:        7\n   (Connect: 1, Receive: 2, Length: 4, Exceptions: 0)\n",
        );
        let r = &parse(&text).unwrap()[0];
        assert_eq!(value(r, names::REQUESTS_FAILED, &[]), 7.0);
        let kind = |k| value(r, names::FAILED_REQUESTS, &[(label::KIND, k)]);
        assert_eq!(
            [
                kind("connect"),
                kind("receive"),
                kind("length"),
                kind("exceptions")
            ],
            [1.0, 2.0, 4.0, 0.0]
        );
    }

    #[test]
    fn a_report_cut_off_is_refused() {
        for text in [LOCAL, SEED_000] {
            let half = &text[..text.len() / 2];
            assert!(parse(half).is_err(), "{half}");
        }
        let e = parse(&LOCAL[..LOCAL.find(" 100%").unwrap()]).unwrap_err();
        assert!(e.contains("`100%`"), "{e}");
        let e = parse(&LOCAL[..LOCAL.find("Total:  ").unwrap()]).unwrap_err();
        assert!(e.contains("`Total:`"), "{e}");
    }
}
