//! httperf's report: the command line it prints (`httperf --client=0/1
//! --server=... --rate=...`), `Total:`, the connection, request and reply
//! lines, `Reply status:`, `CPU time [s]:`, `Net I/O:` and the two
//! `Errors:` lines, as one `http.load` result under the names nodebench's
//! own load generator gives the same figures (milliseconds to seconds,
//! httperf's KB to 1024 bytes).

use names::{label, param};
use nodebench_core::model::{BenchResult, Better, Metric, Unit};
use nodebench_core::names::http::{self as ids, load as names};

use crate::param::TOOL_COMMAND;
use crate::text::{Words, ms, option};

/// The line only httperf prints.
const REPLY_RATE: &str = "Reply rate [replies/s]:";

/// True when `text` holds an httperf report.
pub(crate) fn detect(text: &str) -> bool {
    let w = Words::new(text);
    w.contains(REPLY_RATE) && w.contains("Reply status:")
}

/// One `http.load` result with httperf's figures.
pub(crate) fn parse(text: &str) -> Result<Vec<BenchResult>, String> {
    let w = Words::new(text);
    let mut r = BenchResult::new(ids::LOAD);
    command(&w, &mut r)?;
    let m = &mut r.metrics;
    let count = |name: &str, v: f64, better: Better| Metric::new(name, v, Unit::Count, better);

    // Total: connections C requests R replies P test-duration T s
    let t = w
        .find("Total: connections", 0)
        .ok_or("expected `Total: connections`")?;
    let total = labelled_numbers(
        &w,
        t - 1,
        &["connections", "requests", "replies", "test-duration"],
    )?;
    m.push(count(names::CONNECTIONS_OPENED, total[0], Better::Lower));
    m.push(count(names::REQUESTS_SENT, total[1], Better::Higher));
    m.push(count(names::REQUESTS_COMPLETED, total[2], Better::Higher));
    m.push(Metric::new(
        names::TIME_TAKEN,
        total[3],
        Unit::Seconds,
        Better::Lower,
    ));

    m.push(Metric::new(
        names::CONNECTION_RATE,
        w.number_after("Connection rate:")?,
        Unit::OpsPerSecond,
        Better::Higher,
    ));
    // Connection time [ms]: min A avg B max C median D stddev E
    let c = w
        .find("Connection time [ms]: min", 0)
        .ok_or("expected `Connection time [ms]: min ...`")?;
    let times = labelled_numbers(&w, c - 1, &["min", "avg", "max", "median", "stddev"])?;
    let [min, mean, sd, median, max] = names::CONNECTION_STATS;
    for (stat, v) in [min, mean, max, median, sd].into_iter().zip(times) {
        m.push(
            Metric::new(names::CONNECTION_TIME, ms(v), Unit::Seconds, Better::Lower)
                .label(label::PHASE, names::PHASE_TOTAL)
                .label(label::STAT, stat),
        );
    }
    m.push(
        Metric::new(
            names::CONNECTION_TIME,
            ms(w.number_after("Connection time [ms]: connect")?),
            Unit::Seconds,
            Better::Lower,
        )
        .label(label::PHASE, names::PHASES[0])
        .label(label::STAT, mean),
    );
    m.push(Metric::new(
        names::REQUEST_RATE,
        w.number_after("Request rate:")?,
        Unit::OpsPerSecond,
        Better::Higher,
    ));
    m.push(Metric::new(
        names::REQUEST_SIZE,
        w.number_after("Request size [B]:")?,
        Unit::Bytes,
        Better::Lower,
    ));
    // Reply time [ms]: response R transfer T
    let rt = w
        .find("Reply time [ms]:", 0)
        .ok_or("expected `Reply time [ms]:`")?;
    let times = labelled_numbers(&w, rt, &[names::REPLY_RESPONSE, names::REPLY_TRANSFER])?;
    for (phase, v) in [names::REPLY_RESPONSE, names::REPLY_TRANSFER]
        .into_iter()
        .zip(times)
    {
        m.push(
            Metric::new(names::REPLY_TIME, ms(v), Unit::Seconds, Better::Lower)
                .label(label::PHASE, phase),
        );
    }
    // Reply size [B]: header H content C footer F (total T)
    let rs = w
        .find("Reply size [B]:", 0)
        .ok_or("expected `Reply size [B]:`")?;
    let sizes = labelled_numbers(&w, rs, &["header", "content", "footer"])?;
    let total = w
        .get(rs + 7)
        .filter(|s| w.get(rs + 6) == Some("(total") && s.ends_with(')'))
        .and_then(|s| crate::text::number(s.trim_end_matches(')')))
        .ok_or_else(|| format!("line {}: expected `(total N)` in `Reply size`", w.line(rs)))?;
    for (part, v) in names::REPLY_PARTS
        .into_iter()
        .zip(sizes.into_iter().take(3).chain([total]))
    {
        m.push(
            Metric::new(names::REPLY_SIZE, v, Unit::Bytes, Better::Lower).label(label::PART, part),
        );
    }

    // Reply rate [replies/s]: min A avg B max C stddev D (N samples)
    let rr = w.find(REPLY_RATE, 0).ok_or("expected `Reply rate`")?;
    let rates = labelled_numbers(&w, rr, &["min", "avg", "max", "stddev"])?;
    for (stat, v) in names::REPLY_RATE_STATS.into_iter().zip(rates) {
        m.push(
            Metric::new(names::REPLY_RATE, v, Unit::OpsPerSecond, Better::Higher)
                .label(label::STAT, stat),
        );
    }
    let samples = w
        .get(rr + 8)
        .and_then(|s| s.strip_prefix('('))
        .and_then(crate::text::number)
        .filter(|_| w.get(rr + 9) == Some("samples)"))
        .ok_or_else(|| format!("line {}: expected `(N samples)`", w.line(rr + 8)))?;
    m.push(count(names::REPLY_RATE_SAMPLES, samples, Better::Higher));

    // Reply status: 1xx=A 2xx=B 3xx=C 4xx=D 5xx=E
    let st = w
        .find("Reply status:", 0)
        .ok_or("expected `Reply status:`")?;
    for (k, class) in names::STATUS_CLASSES[..5].iter().enumerate() {
        let v = w
            .get(st + k)
            .and_then(|s| s.strip_prefix(&format!("{class}=")))
            .and_then(crate::text::number)
            .ok_or_else(|| {
                format!(
                    "line {}: expected `{class}=N` in `Reply status:`",
                    w.line(st)
                )
            })?;
        m.push(count(names::REPLIES, v, Better::Higher).label(label::CLASS, class));
    }

    // CPU time [s]: user U system S (user u% system s% total t%)
    let cpu = w
        .find("CPU time [s]:", 0)
        .ok_or("expected `CPU time [s]:`")?;
    let secs = labelled_numbers(&w, cpu, &["user", "system"])?;
    for (mode, v) in [names::MODE_USER, names::MODE_SYS].into_iter().zip(secs) {
        m.push(
            Metric::new(names::CLIENT_CPU_TIME, v, Unit::Seconds, Better::Lower)
                .label(label::MODE, mode),
        );
    }
    let total_pct = w
        .find("total", cpu + 4)
        .and_then(|i| w.get(i))
        .and_then(|s| crate::text::number(s.trim_end_matches([')', '%'])))
        .ok_or_else(|| format!("line {}: expected `total N%)` in `CPU time`", w.line(cpu)))?;
    m.push(Metric::new(
        names::CLIENT_CPU_UTILIZATION,
        total_pct,
        Unit::Percent,
        Better::Lower,
    ));

    // Net I/O: R KB/s (...)
    let net = w.find("Net I/O:", 0).ok_or("expected `Net I/O:`")?;
    let rate = w
        .number(net)
        .filter(|_| w.get(net + 1) == Some("KB/s"))
        .ok_or_else(|| format!("line {}: expected `Net I/O: N KB/s`", w.line(net)))?;
    m.push(
        Metric::new(
            names::NET_IO_RATE,
            rate * 1024.0,
            Unit::BytesPerSecond,
            Better::Higher,
        )
        .label(label::DIRECTION, names::DIRECTION_BOTH),
    );

    errors(&w, m)?;
    // A reply answers a request: more replies than requests cannot hold.
    let printed = |name: &str| r.metric(name, &[]).map(|m| m.value);
    let replies = ("replies", printed(names::REQUESTS_COMPLETED));
    let requests = ("requests", printed(names::REQUESTS_SENT));
    super::warn_if_above(&mut r, replies, requests);
    Ok(vec![r])
}

/// The numbers after the words `labels` (`min 0.8 avg 1.4 ...`), the
/// first label at word `at`.
fn labelled_numbers(w: &Words, at: usize, labels: &[&str]) -> Result<Vec<f64>, String> {
    labels
        .iter()
        .enumerate()
        .map(|(k, l)| {
            let i = at + 2 * k;
            w.number(i + 1)
                .filter(|_| w.get(i) == Some(l))
                .ok_or_else(|| format!("line {}: expected `{l} N`", w.line(i)))
        })
        .collect()
}

/// The two `Errors:` lines: the total as failed requests, each kind as
/// an `errors` metric.
fn errors(w: &Words, m: &mut Vec<Metric>) -> Result<(), String> {
    let first = w
        .find("Errors: total", 0)
        .ok_or("expected `Errors: total`")?;
    let total = w
        .number(first)
        .ok_or_else(|| format!("line {}: expected `Errors: total N`", w.line(first)))?;
    m.push(Metric::new(
        names::REQUESTS_FAILED,
        total,
        Unit::Count,
        Better::Lower,
    ));
    let kinds = [
        ("client-timo", names::CLIENT_TIMEOUT),
        ("socket-timo", names::SOCKET_TIMEOUT),
        ("connrefused", names::CONNREFUSED),
        ("connreset", names::CONNRESET),
        ("fd-unavail", names::FD_UNAVAIL),
        ("addrunavail", names::ADDR_UNAVAIL),
        ("ftab-full", names::FTAB_FULL),
        ("other", names::EXCEPTION),
    ];
    let mut at = first;
    for (word, kind) in kinds {
        let i = w
            .find(word, at)
            .ok_or_else(|| format!("expected `{word} N` in httperf's `Errors:` lines"))?;
        let v = w
            .number(i)
            .ok_or_else(|| format!("line {}: expected a number after `{word}`", w.line(i)))?;
        m.push(Metric::new(names::ERRORS, v, Unit::Count, Better::Lower).label(label::KIND, kind));
        at = i;
    }
    Ok(())
}

/// The command line httperf prints (`httperf --client=0/1 --server=...`):
/// the target and the load model.
fn command(w: &Words, r: &mut BenchResult) -> Result<(), String> {
    let start = (0..)
        .map_while(|i| w.get(i).map(|s| (i, s)))
        .find(|(i, s)| {
            *s == "httperf"
                && (i + 1..)
                    .map_while(|k| w.get(k).filter(|a| a.starts_with("--")))
                    .any(|a| a.starts_with("--client="))
        })
        .map(|(i, _)| i)
        .ok_or("expected the `httperf --client=...` command line httperf prints")?;
    let args: Vec<&str> = (start + 1..)
        .map_while(|i| w.get(i))
        .take_while(|a| a.starts_with("--"))
        .collect();
    r.set_param(TOOL_COMMAND, format!("httperf {}", args.join(" ")));
    // httperf is one thread multiplexing its connections.
    r.set_param(param::THREADS, 1);
    let host = option(&args, "--server").unwrap_or("localhost");
    let port: u64 = option(&args, "--port")
        .and_then(|p| p.parse().ok())
        .unwrap_or(80);
    let path = option(&args, "--uri").unwrap_or("/");
    r.set_param(param::HOST, host);
    r.set_param(param::PORT, port);
    r.set_param(param::PATH, path);
    r.set_param(param::URL, format!("http://{host}:{port}{path}"));
    let number = |name: &str| option(&args, name).and_then(crate::text::number);
    match number("--rate") {
        Some(rate) => {
            r.set_param(param::MODEL, names::MODEL_CONN_RATE);
            r.set_param(param::CONN_RATE, rate);
        }
        None => r.set_param(param::MODEL, names::MODEL_CLOSED),
    }
    r.set_param(
        param::CALLS_PER_CONN,
        number("--num-calls").unwrap_or(1.0) as u64,
    );
    r.set_param(
        param::NUM_CONNS,
        number("--num-conns").unwrap_or(1.0) as u64,
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::value;

    const LOCAL: &str = include_str!("../../tests/fixtures/httperf-local.txt");
    const SEED_000: &str = include_str!("../../tests/fixtures/httperf-seed000.txt");

    #[test]
    fn local_run_figures_in_canonical_units() {
        assert!(detect(LOCAL));
        let r = &parse(LOCAL).unwrap()[0];
        assert_eq!(r.benchmark, ids::LOAD);
        assert_eq!(value(r, names::REQUESTS_COMPLETED, &[]), 1400.0);
        assert_eq!(value(r, names::CONNECTIONS_OPENED, &[]), 1400.0);
        assert_eq!(value(r, names::TIME_TAKEN, &[]), 7.001);
        let stat = |s| [(label::STAT, s)];
        assert_eq!(value(r, names::REPLY_RATE, &stat("avg")), 199.8);
        assert_eq!(value(r, names::REPLY_RATE, &stat("stddev")), 0.0);
        assert_eq!(value(r, names::REPLY_RATE_SAMPLES, &[]), 1.0);
        assert_eq!(value(r, names::REQUEST_RATE, &[]), 200.0);
        let class = |c| value(r, names::REPLIES, &[(label::CLASS, c)]);
        assert_eq!(class("2xx"), 1400.0);
        assert_eq!(class("4xx"), 0.0);
        let cpu = |m| value(r, names::CLIENT_CPU_TIME, &[(label::MODE, m)]);
        assert_eq!((cpu("user"), cpu("sys")), (1.43, 3.95));
        assert_eq!(value(r, names::CLIENT_CPU_UTILIZATION, &[]), 76.8);
        let size = |p| value(r, names::REPLY_SIZE, &[(label::PART, p)]);
        assert_eq!(
            [size("header"), size("content"), size("total")],
            [155.0, 428.0, 583.0]
        );
        assert_eq!(value(r, names::REQUEST_SIZE, &[]), 62.0);
        let time = |p| value(r, names::REPLY_TIME, &[(label::PHASE, p)]);
        assert_eq!(time(names::REPLY_RESPONSE), 0.0016);
        assert_eq!(time(names::REPLY_TRANSFER), 0.0);
        assert_eq!(r.param(param::CONN_RATE), Some(&200.0.into()));
        assert_eq!(r.param(param::NUM_CONNS), Some(&1400u64.into()));
        assert_eq!(r.param(param::URL), Some(&"http://127.0.0.1:8089/".into()));
        assert_eq!(r.param(param::MODEL), Some(&names::MODEL_CONN_RATE.into()));
        assert_eq!(r.param(param::THREADS), Some(&1.into()));
    }

    #[test]
    fn seed_000_wrapped_lines_read_the_same() {
        assert!(detect(SEED_000));
        let r = &parse(SEED_000).unwrap()[0];
        assert_eq!(value(r, names::REQUESTS_COMPLETED, &[]), 20000.0);
        assert_eq!(value(r, names::TIME_TAKEN, &[]), 19.999);
        assert_eq!(value(r, names::CONNECTION_RATE, &[]), 1000.0);
        let cell = |phase, stat| [(label::PHASE, phase), (label::STAT, stat)];
        assert_eq!(
            value(r, names::CONNECTION_TIME, &cell("total", "max")),
            0.0251
        );
        assert_eq!(
            value(r, names::CONNECTION_TIME, &cell("total", "median")),
            0.0005
        );
        assert_eq!(
            value(r, names::CONNECTION_TIME, &cell("total", "sd")),
            0.0024
        );
        assert_eq!(
            value(r, names::CONNECTION_TIME, &cell("connect", "mean")),
            0.0003
        );
        let stat = |s| [(label::STAT, s)];
        assert_eq!(value(r, names::REPLY_RATE, &stat("min")), 999.9);
        assert_eq!(value(r, names::REPLY_RATE, &stat("max")), 1000.3);
        assert_eq!(value(r, names::REPLY_RATE_SAMPLES, &[]), 3.0);
        assert_eq!(value(r, names::REPLIES, &[(label::CLASS, "4xx")]), 20000.0);
        assert_eq!(
            value(
                r,
                names::NET_IO_RATE,
                &[(label::DIRECTION, names::DIRECTION_BOTH)]
            ),
            4151.6 * 1024.0
        );
        assert_eq!(value(r, names::CLIENT_CPU_UTILIZATION, &[]), 100.0);
        assert_eq!(value(r, names::REQUESTS_FAILED, &[]), 0.0);
        assert_eq!(
            value(r, names::ERRORS, &[(label::KIND, names::FTAB_FULL)]),
            0.0
        );
        assert_eq!(r.param(param::CONN_RATE), Some(&1000.0.into()));
        assert_eq!(r.param(param::NUM_CONNS), Some(&20000u64.into()));
        assert_eq!(r.param(param::HOST), Some(&"123.215.230.161".into()));
        let cmd = r.param(TOOL_COMMAND).unwrap().as_str().unwrap();
        assert!(cmd.starts_with("httperf --hog --client=0/1"), "{cmd}");
        assert!(cmd.ends_with("--num-calls=1"), "{cmd}");
    }

    #[test]
    fn replies_above_requests_import_with_a_warning() {
        let text = LOCAL.replace(
            "connections 1400 requests 1400 replies 1400",
            "connections 1400 requests 1400 replies 1500",
        );
        let r = &parse(&text).unwrap()[0];
        assert_eq!(value(r, names::REQUESTS_SENT, &[]), 1400.0);
        assert_eq!(value(r, names::REQUESTS_COMPLETED, &[]), 1500.0);
        assert_eq!(
            r.warnings,
            [
                "the source disagrees with itself: replies (1500) exceed requests (1400); both imported as printed"
            ]
        );
        assert!(parse(LOCAL).unwrap()[0].warnings.is_empty());
    }

    #[test]
    fn a_report_cut_off_is_refused() {
        let e = parse(&LOCAL[..LOCAL.find("Errors: fd-unavail").unwrap()]).unwrap_err();
        assert!(e.contains("`fd-unavail N`"), "{e}");
        let e = parse(&SEED_000[..SEED_000.find("Reply status").unwrap()]).unwrap_err();
        assert!(e.contains("Reply status"), "{e}");
    }
}
