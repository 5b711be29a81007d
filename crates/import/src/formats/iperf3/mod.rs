//! iperf3's output, as text or as `-J` JSON: each test becomes one `net.tcp`
//! or `net.udp` result with the figures nodebench's `net tcp|udp` records
//! (bytes and throughput per direction and side, retransmits, UDP loss and
//! jitter, CPU use) and the test's settings as `net`'s parameters.

mod json;
mod text;

/// True when `text` is iperf3 output, text or JSON.
pub(crate) fn detect(text: &str) -> bool {
    json::detect(text) || text::detect(text)
}

/// One result per test in `text`.
pub(crate) fn parse(text: &str) -> Result<Vec<nodebench_core::model::BenchResult>, String> {
    if text.trim_start().starts_with('{') {
        json::parse(text)
    } else {
        text::parse(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::value;
    use nodebench_core::model::BenchResult;
    use nodebench_core::names::net::{self as names, direction, host, label, metric, param, side};

    const TCP: &str = include_str!("../../../tests/fixtures/iperf3-tcp.txt");
    const UDP_P2: &str = include_str!("../../../tests/fixtures/iperf3-udp-p2.txt");
    const REVERSE: &str = include_str!("../../../tests/fixtures/iperf3-reverse-verbose.txt");
    const SERVER: &str = include_str!("../../../tests/fixtures/iperf3-server-reverse.txt");
    const TCP_JSON: &str = include_str!("../../../tests/fixtures/iperf3-tcp.json");
    const UDP_JSON: &str = include_str!("../../../tests/fixtures/iperf3-udp.json");
    const SEED_002: &str = include_str!("../../../tests/fixtures/refused/iperf3-seed002.txt");

    fn one(text: &str) -> BenchResult {
        assert!(detect(text));
        let mut results = parse(text).unwrap();
        assert_eq!(results.len(), 1);
        results.remove(0)
    }

    const C2S: (&str, &str) = (label::DIRECTION, direction::CLIENT_TO_SERVER);
    const S2C: (&str, &str) = (label::DIRECTION, direction::SERVER_TO_CLIENT);
    const SENDER: (&str, &str) = (label::SIDE, side::SENDER);
    const RECEIVER: (&str, &str) = (label::SIDE, side::RECEIVER);

    #[test]
    fn tcp_text_sender_and_receiver_lines() {
        let r = one(TCP);
        assert_eq!(r.benchmark, names::TCP);
        assert_eq!(
            value(&r, metric::THROUGHPUT, &[C2S, RECEIVER]),
            11.7e9 / 8.0
        );
        assert_eq!(value(&r, metric::THROUGHPUT, &[C2S, SENDER]), 11.7e9 / 8.0);
        assert_eq!(
            value(&r, metric::BYTES, &[C2S, RECEIVER]),
            4.09 * 1073741824.0
        );
        assert_eq!(value(&r, metric::RETRANSMITS, &[C2S]), 34.0);
        assert_eq!(r.param(param::HOST), Some(&"127.0.0.1".into()));
        assert_eq!(r.param(param::PORT), Some(&5299.into()));
        assert_eq!(r.param(param::PARALLEL), Some(&1.into()));
        assert_eq!(r.param(param::REVERSE), Some(&false.into()));
        let s = &r.series[..];
        assert_eq!(s.len(), 1, "{s:?}");
        assert_eq!(s[0].name, metric::THROUGHPUT);
        assert_eq!(
            s[0].points,
            vec![
                (1.0, 10.2e9 / 8.0),
                (2.0, 18.0e9 / 8.0),
                (3.0, 6.88e9 / 8.0)
            ]
        );
    }

    #[test]
    fn udp_text_with_parallel_streams_takes_the_sum_lines() {
        let r = one(UDP_P2);
        assert_eq!(r.benchmark, names::UDP);
        assert_eq!(value(&r, metric::THROUGHPUT, &[C2S, RECEIVER]), 200e6 / 8.0);
        assert_eq!(value(&r, metric::BYTES, &[C2S, RECEIVER]), 71.6 * 1048576.0);
        assert_eq!(value(&r, metric::JITTER, &[C2S]), 0.004 / 1e3);
        assert_eq!(value(&r, metric::PACKETS_SENT, &[C2S]), 2290.0);
        assert_eq!(value(&r, metric::LOST_PACKETS, &[C2S]), 0.0);
        assert_eq!(value(&r, metric::LOST_PERCENT, &[C2S]), 0.0);
        assert_eq!(r.param(param::PARALLEL), Some(&2.into()));
    }

    #[test]
    fn reverse_mode_and_version() {
        let r = one(REVERSE);
        assert_eq!(
            value(&r, metric::THROUGHPUT, &[S2C, RECEIVER]),
            18.4e9 / 8.0
        );
        assert_eq!(value(&r, metric::RETRANSMITS, &[S2C]), 18.0);
        assert!(r.metric(metric::THROUGHPUT, &[C2S, RECEIVER]).is_none());
        assert_eq!(r.param(param::REVERSE), Some(&true.into()));
        assert_eq!(
            r.param(crate::param::TOOL_VERSION),
            Some(&"iperf 3.12".into())
        );
    }

    #[test]
    fn a_server_that_sent_records_its_sender_line() {
        let r = one(SERVER);
        assert_eq!(
            value(&r, metric::BYTES, &[S2C, SENDER]),
            6.44 * 1073741824.0
        );
        assert_eq!(value(&r, metric::THROUGHPUT, &[S2C, SENDER]), 18.4e9 / 8.0);
        assert!(r.metric(metric::THROUGHPUT, &[S2C, RECEIVER]).is_none());
        assert!(r.param(param::HOST).is_none());
    }

    #[test]
    fn tcp_json_figures_as_printed() {
        let r = one(TCP_JSON);
        assert_eq!(r.benchmark, names::TCP);
        assert_eq!(
            value(&r, metric::THROUGHPUT, &[C2S, RECEIVER]),
            8181716798.444378 / 8.0
        );
        assert_eq!(value(&r, metric::BYTES, &[C2S, RECEIVER]), 3078881280.0);
        assert_eq!(value(&r, metric::BYTES, &[C2S, SENDER]), 3081502720.0);
        assert_eq!(value(&r, metric::RETRANSMITS, &[C2S]), 26.0);
        assert_eq!(r.series.len(), 1);
        assert_eq!(
            r.series[0].labels.get(label::HOST).map(String::as_str),
            Some(host::CLIENT)
        );
        assert_eq!(
            r.series[0].points,
            vec![
                (1.000561, 10113084970.287922 / 8.0),
                (2.000722, 6856582775.343756 / 8.0),
                (3.000614, 7676405399.54359 / 8.0)
            ]
        );
        assert_eq!(value(&r, metric::SND_CWND_MAX, &[C2S]), 4321878.0);
        assert_eq!(value(&r, metric::RTT, &[C2S]), 298e-6);
        assert_eq!(
            value(&r, metric::CPU, &[(label::HOST, host::CLIENT)]),
            31.38931313909711
        );
        assert_eq!(
            value(&r, metric::CPU, &[(label::HOST, host::SERVER)]),
            19.8314439537195
        );
        assert_eq!(r.param(param::LENGTH), Some(&131072.into()));
        assert_eq!(r.param(param::DURATION_S), Some(&3.0.into()));
        assert_eq!(
            r.param(crate::param::TOOL_VERSION),
            Some(&"iperf 3.12".into())
        );
    }

    #[test]
    fn udp_json_receiver_report() {
        let r = one(UDP_JSON);
        assert_eq!(r.benchmark, names::UDP);
        assert_eq!(
            value(&r, metric::THROUGHPUT, &[C2S, RECEIVER]),
            50063663.23928875 / 8.0
        );
        assert_eq!(
            value(&r, metric::JITTER, &[C2S]),
            0.002156747932258694 / 1e3
        );
        assert_eq!(value(&r, metric::PACKETS_SENT, &[C2S]), 573.0);
        assert_eq!(r.param(param::BITRATE), Some(&50000000.into()));
    }

    #[test]
    fn verbose_text_cpu_utilization() {
        let r = one(include_str!("../../../tests/fixtures/iperf3-verbose.txt"));
        assert_eq!(value(&r, metric::CPU, &[(label::HOST, host::CLIENT)]), 35.1);
        assert_eq!(value(&r, metric::CPU, &[(label::HOST, host::SERVER)]), 35.3);
        assert_eq!(
            r.param(crate::param::TOOL_VERSION),
            Some(&"iperf 3.12".into())
        );
    }

    #[test]
    fn bidir_json_has_both_directions_and_bidir_text_is_refused() {
        let r = one(include_str!("../../../tests/fixtures/iperf3-bidir.json"));
        assert_eq!(r.param(param::BIDIR), Some(&true.into()));
        assert_eq!(
            value(&r, metric::THROUGHPUT, &[C2S, RECEIVER]),
            10088042452.677431 / 8.0
        );
        assert_eq!(
            value(&r, metric::THROUGHPUT, &[S2C, RECEIVER]),
            11311563707.165808 / 8.0
        );
        assert!(r.metric(metric::SND_CWND_MAX, &[C2S]).is_some());
        assert!(r.metric(metric::SND_CWND_MAX, &[S2C]).is_none());
        let text = include_str!("../../../tests/fixtures/refused/iperf3-bidir.txt");
        let e = parse(text).unwrap_err();
        assert!(e.contains("--bidir"), "{e}");
    }

    #[test]
    fn halves_and_foreign_text_are_refused() {
        for text in [TCP, UDP_P2, REVERSE, SERVER, TCP_JSON, UDP_JSON] {
            let half = &text[..text.len() / 2];
            assert!(parse(half).is_err(), "half accepted: {half}");
        }
        let dd = include_str!("../../../tests/fixtures/dd-seed001.txt");
        assert!(!detect(dd));
        assert!(parse(dd).is_err());
    }

    /// the CS 553 benchmarking report's paste lost its layout: the summary lines are split over
    /// lines (`send` / `eiver`, `nder` / `se`), so no total can be read and
    /// the file is refused rather than half-imported.
    #[test]
    fn seed_002_mangled_paste_is_refused() {
        assert!(!detect(SEED_002));
        let e = parse(SEED_002).unwrap_err();
        assert!(e.contains("summary line"), "{e}");
    }
}
