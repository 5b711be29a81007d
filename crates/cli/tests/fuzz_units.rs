//! Fuzzing of the command line's value parsers (sizes, durations, counts,
//! bit rates, thread lists) with `nodebench_core::fuzz`: generated valid
//! values must parse to exactly their number, overflowing ones must be
//! refused, and random or mutated text must never panic. A few seconds by
//! default; `NODEBENCH_FUZZ_SECONDS=600` runs each target for ten minutes.

use std::time::Duration;

use nodebench_core::fuzz;
use nodebench_core::units::{
    parse_bitrate, parse_count, parse_duration, parse_size, parse_thread_list,
};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// Suffixes of sizes and their multipliers.
const SIZE_SUFFIXES: &[(&str, u64)] = &[
    ("", 1),
    ("B", 1),
    ("k", 1 << 10),
    ("K", 1 << 10),
    ("KiB", 1 << 10),
    ("m", 1 << 20),
    ("MiB", 1 << 20),
    ("g", 1 << 30),
    ("GiB", 1 << 30),
    ("t", 1 << 40),
    ("TiB", 1 << 40),
    ("kB", 1_000),
    ("KB", 1_000),
    ("MB", 1_000_000),
    ("GB", 1_000_000_000),
    ("TB", 1_000_000_000_000),
];

/// A whole number, biased towards the edges (0, powers of two, u64::MAX).
fn number() -> impl Strategy<Value = u64> {
    prop_oneof![
        0u64..1_000_000,
        any::<u64>(),
        (0u32..64).prop_map(|b| 1u64 << b),
        (0u32..64).prop_map(|b| (1u64 << b) - 1),
        Just(u64::MAX),
    ]
}

/// Text near valid values: a valid value with bytes inserted, deleted or
/// replaced, or plain random text.
fn near_valid() -> impl Strategy<Value = String> {
    let valid = prop_oneof![
        Just("4k".to_string()),
        Just("8KiB".to_string()),
        Just("10GB".to_string()),
        Just("1.5g".to_string()),
        Just("500ms".to_string()),
        Just("72h".to_string()),
        Just("10k".to_string()),
        Just("1,2,4,8".to_string()),
        Just("1..16:x2".to_string()),
        Just("all".to_string()),
        Just("100M".to_string()),
    ];
    let edit = (
        valid,
        prop::collection::vec((any::<usize>(), any::<u8>(), 0u8..3), 0..4),
    )
        .prop_map(|(v, edits)| {
            let mut b = v.into_bytes();
            for (at, byte, kind) in edits {
                let i = if b.is_empty() { 0 } else { at % (b.len() + 1) };
                match kind {
                    0 => b.insert(i, byte),
                    1 if i < b.len() => {
                        b.remove(i);
                    }
                    _ if i < b.len() => b[i] = byte,
                    _ => b.push(byte),
                }
            }
            String::from_utf8_lossy(&b).into_owned()
        });
    prop_oneof![edit, ".{0,24}", "[0-9.,:xkKmMgGtTiBnsuhd]{0,24}"]
}

#[test]
fn fuzz_sizes_parse_exactly_or_are_refused() {
    fuzz::run(
        "units::parse_size",
        (number(), 0..SIZE_SUFFIXES.len()),
        |(n, s)| {
            let (suffix, mult) = SIZE_SUFFIXES[s];
            let text = format!("{n}{suffix}");
            let got = parse_size(&text);
            match n.checked_mul(mult) {
                Some(bytes) => prop_assert_eq!(got, Ok(bytes), "{}", text),
                None => prop_assert!(got.is_err(), "{} overflows but gave {:?}", text, got),
            }
            Ok(())
        },
    );
}

#[test]
fn fuzz_counts_and_bitrates_parse_exactly_or_are_refused() {
    let suffixes: &[(&str, u64)] = &[
        ("", 1),
        ("k", 1_000),
        ("m", 1_000_000),
        ("g", 1_000_000_000),
    ];
    fuzz::run(
        "units::parse_count",
        (number(), 0..suffixes.len()),
        |(n, s)| {
            let (suffix, mult) = suffixes[s];
            let text = format!("{n}{suffix}");
            match n.checked_mul(mult) {
                Some(0) => prop_assert!(parse_count(&text).is_err(), "{}: 0 is no count", text),
                Some(v) => {
                    prop_assert_eq!(parse_count(&text), Ok(v), "{}", text);
                    prop_assert_eq!(parse_bitrate(&text), Ok(v), "{}", text);
                }
                None => {
                    prop_assert!(parse_count(&text).is_err(), "{} overflows", text);
                    prop_assert!(parse_bitrate(&text).is_err(), "{} overflows", text);
                }
            }
            Ok(())
        },
    );
}

#[test]
fn fuzz_durations_parse_to_their_length() {
    let units: &[(&str, f64)] = &[
        ("ns", 1e-9),
        ("us", 1e-6),
        ("ms", 1e-3),
        ("s", 1.0),
        ("", 1.0),
        ("m", 60.0),
        ("h", 3600.0),
        ("d", 86400.0),
    ];
    fuzz::run(
        "units::parse_duration",
        (number(), 0..units.len()),
        |(n, u)| {
            let (suffix, scale) = units[u];
            let text = format!("{n}{suffix}");
            let secs = n as f64 * scale;
            match parse_duration(&text) {
                Ok(d) => {
                    prop_assert!(secs > 0.0 && secs <= 1e9, "{} accepted as {:?}", text, d);
                    let want = Duration::from_secs_f64(secs);
                    let diff = d.abs_diff(want);
                    prop_assert!(
                        diff <= Duration::from_nanos(1),
                        "{}: {:?} vs {:?}",
                        text,
                        d,
                        want
                    );
                }
                Err(_) => {
                    prop_assert!(!(1e-9..=1e9).contains(&secs), "{} refused", text)
                }
            }
            Ok(())
        },
    );
}

#[test]
fn fuzz_thread_lists_are_bounded_and_positive() {
    fuzz::run(
        "units::parse_thread_list",
        (near_valid(), 1usize..512),
        |(text, cpus)| {
            if let Ok(list) = parse_thread_list(&text, cpus) {
                prop_assert!(!list.is_empty(), "{}: empty list", text);
                prop_assert!(
                    list.iter().all(|n| (1..=4096).contains(n)),
                    "{}: {:?}",
                    text,
                    list
                );
                prop_assert!(list.len() <= 4096, "{}: {} entries", text, list.len());
            }
            Ok(())
        },
    );
}

#[test]
fn fuzz_random_text_never_panics() {
    fuzz::run("units::all parsers on random text", near_valid(), |text| {
        let _ = parse_size(&text);
        let _ = parse_duration(&text);
        let _ = parse_count(&text);
        let _ = parse_bitrate(&text);
        let _ = parse_thread_list(&text, 8);
        Ok::<(), TestCaseError>(())
    });
}

/// Inputs the fuzzers found, kept as plain regression tests.
#[test]
fn large_whole_numbers_are_exact() {
    // Through f64 these read 9007199254740992 and u64::MAX + 1 saturated.
    assert_eq!(parse_size("9007199254740993"), Ok(9_007_199_254_740_993));
    assert_eq!(parse_size("18446744073709551615"), Ok(u64::MAX));
    assert!(parse_size("18446744073709551616").is_err());
    assert!(parse_size("16777216TiB").is_err());
    assert_eq!(parse_count("18446744073709551615"), Ok(u64::MAX));
    assert!(parse_count("18446744073709552k").is_err());
}
