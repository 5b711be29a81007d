//! `net tcp --mss` on loopback: TCP_MAXSEG on the client's data sockets and
//! the in-process server's listener really bounds the segment size, as
//! `getsockopt(TCP_MAXSEG)` on the established data connection reads it.

use std::time::Duration;

use nodebench_core::ResultStatus;
use nodebench_core::bench::{Cancel, collect};
use nodebench_core::inventory::Inventory;
use nodebench_core::names::net::param;
use nodebench_net::iperf3::ClientConfig;
use nodebench_net::throughput::Throughput;

/// The data connection's TCP_MAXSEG of a short loopback test with `mss`.
fn data_mss(mss: Option<u32>) -> u64 {
    let config = ClientConfig {
        duration: Duration::from_millis(300),
        loopback: true,
        mss,
        ..ClientConfig::new("127.0.0.1")
    };
    let out = collect(&Throughput { config }, &Inventory::default(), Cancel::new()).unwrap();
    assert_eq!(out.len(), 1);
    let r = &out[0];
    assert_eq!(r.status, ResultStatus::Passed, "{:?}", r.error);
    assert_eq!(r.param(param::MSS), Some(&serde_json::json!(mss)));
    r.param(param::DATA_MSS).and_then(|v| v.as_u64()).unwrap()
}

#[test]
fn mss_bounds_the_segment_size_on_loopback() {
    // Loopback's MTU is 65536: unbounded, segments are tens of kilobytes.
    let unbounded = data_mss(None);
    assert!(unbounded > 16_000, "loopback MSS {unbounded}");
    // MTU 1500 less IP and TCP headers is 1460, less 12 for timestamps 1448:
    // TCP_MAXSEG reads the payload per segment, at most what was set.
    let m1500 = data_mss(Some(1448));
    assert!((1400..=1448).contains(&m1500), "MSS 1448 read back {m1500}");
    let m9000 = data_mss(Some(8948));
    assert!((8900..=8948).contains(&m9000), "MSS 8948 read back {m9000}");
}
