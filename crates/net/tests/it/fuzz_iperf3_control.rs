//! Fuzzing of the iperf3 control-connection codec with
//! `nodebench_core::fuzz`: generated parameter and results messages must
//! survive encoding, framing and decoding unchanged; mutated frames
//! (truncated, bytes flipped, inserted or replaced, huge length prefixes)
//! and random bytes must give an error or a message, never a panic or an
//! allocation beyond the size limit. A few seconds by default;
//! `NODEBENCH_FUZZ_SECONDS=600` runs each target for ten minutes.

use std::io::Cursor;

use nodebench_core::fuzz;
use nodebench_net::iperf3::proto::{
    self, CtrlError, MAX_PARAMS_LEN, MAX_RESULTS_LEN, Params, Results, State, StreamResult,
    Transport, UdpHeader,
};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

fn opt_text() -> impl Strategy<Value = Option<String>> {
    prop::option::of(any::<String>())
}

fn params() -> impl Strategy<Value = Params> {
    let numbers = (
        any::<u64>(),
        any::<u64>(),
        any::<u64>(),
        any::<u64>(),
        1u32..=128,
        prop::option::of(1u64..=u64::MAX),
        prop::option::of(1u64..=u64::MAX),
        any::<u64>(),
        prop::option::of(any::<u64>()),
        prop::option::of(1u64..=u64::MAX),
    );
    let rest = (
        // `None` (another protocol, such as SCTP) is not written back: a
        // message without "tcp" or "udp" reads as TCP, as in iperf3.
        prop_oneof![Just(Some(Transport::Tcp)), Just(Some(Transport::Udp))],
        any::<[bool; 5]>(),
        opt_text(),
        opt_text(),
        opt_text(),
    );
    (numbers, rest).prop_map(
        |(
            (omit, time, num, blockcount, parallel, window, len, bandwidth, pacing_timer, mss),
            (transport, flags, congestion, token, client_version),
        )| Params {
            transport,
            omit,
            time,
            num,
            blockcount,
            parallel,
            reverse: flags[0],
            bidirectional: flags[1],
            window,
            len,
            bandwidth,
            pacing_timer,
            nodelay: flags[2],
            mss,
            congestion,
            udp_counters_64bit: flags[3],
            zerocopy: flags[4],
            token,
            client_version,
        },
    )
}

/// A float that prints and parses back exactly (a short binary fraction).
fn exact_f64() -> impl Strategy<Value = f64> {
    any::<i32>().prop_map(|i| i as f64 / 1024.0)
}

fn results() -> impl Strategy<Value = Results> {
    let stream = (
        any::<u32>(),
        any::<u64>(),
        -1i64..=i64::MAX,
        exact_f64(),
        any::<u64>(),
        any::<u64>(),
        exact_f64(),
        exact_f64(),
    )
        .prop_map(
            |(id, bytes, retransmits, jitter, errors, packets, start_time, end_time)| {
                StreamResult {
                    id,
                    bytes,
                    retransmits,
                    jitter,
                    errors,
                    packets,
                    start_time,
                    end_time,
                    thread_cpu: None,
                    last_cpu: None,
                }
            },
        );
    (
        exact_f64(),
        exact_f64(),
        exact_f64(),
        -1i64..=1,
        opt_text(),
        prop::collection::vec(stream, 0..8),
    )
        .prop_map(
            |(total, user, system, retrans, congestion_used, streams)| Results {
                cpu_util_total: total,
                cpu_util_user: user,
                cpu_util_system: system,
                sender_has_retransmits: retrans,
                congestion_used,
                streams,
            },
        )
}

/// Reads one framed message with the given limit.
fn read(bytes: &[u8], max: u32) -> Result<serde_json::Value, CtrlError> {
    proto::read_json(&mut Cursor::new(bytes), max)
}

/// A valid frame, then edits: truncation, flipped/inserted/replaced bytes,
/// or a new length prefix (often huge).
fn mutated(frame: Vec<u8>) -> impl Strategy<Value = Vec<u8>> {
    let n = frame.len();
    (
        prop::collection::vec((any::<usize>(), any::<u8>(), 0u8..4), 0..6),
        prop::option::of(any::<u32>()),
        prop::option::of(0..=n),
    )
        .prop_map(move |(edits, prefix, cut)| {
            let mut b = frame.clone();
            for (at, byte, kind) in edits {
                let i = at % (b.len() + 1);
                match kind {
                    0 => b.insert(i, byte),
                    1 if i < b.len() => {
                        b.remove(i);
                    }
                    2 if i < b.len() => b[i] ^= byte | 1,
                    _ if i < b.len() => b[i] = byte,
                    _ => b.push(byte),
                }
            }
            if let Some(p) = prefix
                && b.len() >= 4
            {
                b[..4].copy_from_slice(&p.to_be_bytes());
            }
            if let Some(c) = cut {
                b.truncate(c.min(b.len()));
            }
            b
        })
}

#[test]
fn fuzz_params_round_trip_through_the_frame() {
    fuzz::run("iperf3::params round trip", params(), |p| {
        let frame = proto::encode_json(&p.to_json());
        let v = read(&frame, u32::MAX).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(Params::from_json(&v), Ok(p));
        Ok(())
    });
}

#[test]
fn fuzz_results_round_trip_through_the_frame() {
    fuzz::run("iperf3::results round trip", results(), |r| {
        let frame = proto::encode_json(&r.to_json());
        let v = read(&frame, MAX_RESULTS_LEN).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(Results::from_json(&v), Ok(r));
        Ok(())
    });
}

#[test]
fn fuzz_mutated_frames_never_panic() {
    let strategy = prop_oneof![
        params().prop_map(|p| proto::encode_json(&p.to_json())),
        results().prop_map(|r| proto::encode_json(&r.to_json())),
    ]
    .prop_flat_map(mutated);
    fuzz::run("iperf3::mutated frames", strategy, |bytes| {
        match read(&bytes, MAX_PARAMS_LEN) {
            Ok(v) => {
                let _ = Params::from_json(&v);
                let _ = Results::from_json(&v);
            }
            Err(CtrlError::TooLarge(n)) => {
                prop_assert!(n > MAX_PARAMS_LEN, "refused {} bytes under the limit", n)
            }
            Err(_) => {}
        }
        Ok(())
    });
}

#[test]
fn fuzz_random_bytes_never_panic() {
    fuzz::run(
        "iperf3::random control bytes",
        prop::collection::vec(any::<u8>(), 0..256),
        |bytes| {
            let _ = read(&bytes, MAX_RESULTS_LEN);
            let _ = proto::read_state_byte(&mut Cursor::new(&bytes));
            let _ = proto::read_server_error(&mut Cursor::new(&bytes));
            for counters64 in [false, true] {
                if let Some(h) = UdpHeader::decode(&bytes, counters64) {
                    let mut buf = vec![0u8; UdpHeader::len(counters64)];
                    h.encode(&mut buf, counters64);
                    prop_assert_eq!(UdpHeader::decode(&buf, counters64), Some(h));
                }
            }
            if let Some(&b) = bytes.first()
                && let Some(s) = State::from_byte(b)
            {
                prop_assert_eq!(s.to_byte(), b);
            }
            if let Ok(text) = std::str::from_utf8(&bytes)
                && let Ok(v) = serde_json::from_str::<serde_json::Value>(text)
            {
                let _ = Params::from_json(&v);
                let _ = Results::from_json(&v);
            }
            Ok(())
        },
    );
}

/// Inputs the fuzzers found, kept as plain regression tests.
#[test]
fn results_floats_read_back_exactly() {
    // Without serde_json's correctly rounded float parsing this read back
    // as -1003265.4853515624.
    let r = Results {
        cpu_util_total: -1_003_265.485_351_562_5,
        cpu_util_user: 0.0,
        cpu_util_system: 0.0,
        sender_has_retransmits: 0,
        congestion_used: None,
        streams: Vec::new(),
    };
    let v = read(&proto::encode_json(&r.to_json()), MAX_RESULTS_LEN).unwrap();
    assert_eq!(Results::from_json(&v), Ok(r));
}
