//! Fuzz of the command line's size, duration, count, bit rate and thread
//! list parsers (`nodebench_core::units`): formatted values parse back to
//! the same number, values too large for their type are errors (never a
//! wrapped or saturated number), and random or mutated strings never panic
//! and never give a value outside the parser's promise.
//!
//! `NODEBENCH_FUZZ_SECONDS=600 cargo test -p nodebench-core --test it
//! fuzz_units -- --nocapture` runs each target for ten minutes.

use std::time::Duration;

use nodebench_core::fuzz;
use nodebench_core::units::{
    DURATION_FORMS, MAX_THREADS, SIZE_FORMS, format_bytes, parse_bitrate, parse_count,
    parse_duration, parse_size, parse_thread_list,
};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// Size suffixes and the bytes each stands for.
const SIZE_UNITS: &[(&str, u64)] = &[
    ("", 1),
    ("b", 1),
    ("B", 1),
    ("k", 1 << 10),
    ("K", 1 << 10),
    ("KiB", 1 << 10),
    ("kiB", 1 << 10),
    ("Ki", 1 << 10),
    ("m", 1 << 20),
    ("M", 1 << 20),
    ("MiB", 1 << 20),
    ("Mi", 1 << 20),
    ("g", 1 << 30),
    ("G", 1 << 30),
    ("GiB", 1 << 30),
    ("Gi", 1 << 30),
    ("t", 1 << 40),
    ("T", 1 << 40),
    ("TiB", 1 << 40),
    ("Ti", 1 << 40),
    ("kB", 1_000),
    ("KB", 1_000),
    ("MB", 1_000_000),
    ("GB", 1_000_000_000),
    ("TB", 1_000_000_000_000),
];

/// Duration suffixes and the nanoseconds each stands for.
const DURATION_UNITS: &[(&str, u64)] = &[
    ("ns", 1),
    ("us", 1_000),
    ("µs", 1_000),
    ("ms", 1_000_000),
    ("", 1_000_000_000),
    ("s", 1_000_000_000),
    ("m", 60_000_000_000),
    ("min", 60_000_000_000),
    ("h", 3_600_000_000_000),
    ("d", 86_400_000_000_000),
];

/// Count suffixes (and, with the last two, bit rate suffixes) and their
/// multipliers.
const COUNT_UNITS: &[(&str, u64)] = &[
    ("", 1),
    ("k", 1_000),
    ("K", 1_000),
    ("m", 1_000_000),
    ("M", 1_000_000),
    ("g", 1_000_000_000),
    ("G", 1_000_000_000),
    ("t", 1_000_000_000_000),
    ("T", 1_000_000_000_000),
];

/// Counts take no `t`.
const COUNT_UNIT_COUNT: usize = 7;

/// The longest duration the parser accepts, in nanoseconds.
const MAX_DURATION_NS: u128 = 1_000_000_000_000_000_000;

/// Most digits after the dot the parsers take.
const MAX_FRACTION_DIGITS: usize = 38;

/// Valid inputs of every parser, the seeds of the mutations.
const SEEDS: &[&str] = &[
    "4096",
    "4k",
    "8KiB",
    "2g",
    "10GB",
    "1.5MiB",
    "80MB",
    "500ms",
    "10s",
    "5m",
    "72h",
    "1.5s",
    "250us",
    "3µs",
    "2",
    "10k",
    "2m",
    "100M",
    "1.5G",
    "0",
    "1,2,4,8",
    "1..8",
    "1..16:x2",
    "all",
    "1,2,all",
    " 2 .. 4 , 8 ",
];

/// Pieces the mutations insert: digits, dots, separators, unit letters,
/// signs, exponents, multi-byte characters, and numbers too big for 64 bits.
const PIECES: &[&str] = &[
    "0",
    "1",
    "9",
    ".",
    "..",
    ",",
    ":",
    ":x2",
    "x",
    " ",
    "-",
    "+",
    "e",
    "e400",
    "k",
    "K",
    "i",
    "B",
    "iB",
    "m",
    "s",
    "µ",
    "é",
    "\u{0}",
    "all",
    "99999999999999999999",
    "18446744073709551616",
    "340282366920938463463374607431768211456",
    "0.000000000000000000000000001",
    "4096",
    "4097",
];

/// Numbers for the round trips: small, any 64-bit, any 128-bit, near the
/// 64-bit limit, and powers of two and ten.
fn number() -> impl Strategy<Value = u128> {
    prop_oneof![
        0..=100_000u128,
        any::<u64>().prop_map(u128::from),
        any::<u128>(),
        (0..4_000u128).prop_map(|d| u128::from(u64::MAX) + 2_000 - d),
        (0..39u32).prop_map(|e| 10u128.pow(e)),
        (0..128u32).prop_map(|e| 1u128 << e),
    ]
}

/// `n / unit` written exactly in decimal when it has at most `max_digits`
/// digits after the dot, else cut after `max_digits`; with whether it was
/// cut.
fn decimal(n: u128, unit: u64, max_digits: usize) -> (String, bool) {
    let unit = u128::from(unit);
    let mut s = (n / unit).to_string();
    let mut rem = n % unit;
    if rem == 0 {
        return (s, false);
    }
    s.push('.');
    for _ in 0..max_digits {
        rem *= 10;
        s.push(char::from(b'0' + (rem / unit) as u8));
        rem %= unit;
        if rem == 0 {
            return (s, false);
        }
    }
    (s, true)
}

/// Checks what every parser promises for any input: no panic (the fuzz
/// driver catches one), and each value it returns is one it may return.
fn check_any(s: &str, cpus: usize) -> Result<(), TestCaseError> {
    if let Ok(v) = parse_size(s) {
        prop_assert_eq!(parse_size(&v.to_string()), Ok(v), "size {:?}", s);
    }
    if let Ok(d) = parse_duration(s) {
        prop_assert!(!d.is_zero(), "duration {:?} is zero", s);
        prop_assert!(
            d.as_nanos() <= MAX_DURATION_NS,
            "duration {:?} = {:?}",
            s,
            d
        );
        prop_assert_eq!(parse_duration(&format!("{}ns", d.as_nanos())), Ok(d));
        prop_assert_eq!(parse_duration(&format!("{d:?}")), Ok(d));
    }
    if let Ok(v) = parse_count(s) {
        prop_assert!(v >= 1, "count {:?} = {}", s, v);
        prop_assert_eq!(parse_count(&v.to_string()), Ok(v));
    }
    if let Ok(v) = parse_bitrate(s) {
        prop_assert_eq!(parse_bitrate(&v.to_string()), Ok(v));
    }
    if let Ok(list) = parse_thread_list(s, cpus) {
        check_thread_list(s, cpus, &list)?;
    }
    Ok(())
}

/// A thread list is never empty, holds no zero and no count twice, and is
/// bounded: at most [`MAX_THREADS`] counts plus `all`'s.
fn check_thread_list(s: &str, cpus: usize, list: &[usize]) -> Result<(), TestCaseError> {
    prop_assert!(!list.is_empty(), "{:?} gave an empty list", s);
    prop_assert!(
        list.len() <= MAX_THREADS + 1,
        "{:?}: {} counts",
        s,
        list.len()
    );
    let mut seen = std::collections::HashSet::new();
    for &n in list {
        prop_assert!(n >= 1, "{:?} gave 0 threads", s);
        prop_assert!(
            n <= MAX_THREADS || n == cpus,
            "{:?} gave {} threads with {} CPUs",
            s,
            n,
            cpus
        );
        prop_assert!(seen.insert(n), "{:?} gave {} twice", s, n);
    }
    Ok(())
}

/// Logical CPU counts to expand `all` with, 0 included (read as 1).
fn cpus() -> impl Strategy<Value = usize> {
    prop_oneof![0..=256usize, Just(MAX_THREADS), Just(8_192usize)]
}

#[test]
fn fuzz_sizes_round_trip() {
    let strategy = (
        number(),
        0..SIZE_UNITS.len(),
        any::<bool>(),
        0..3usize,
        0..3usize,
    );
    fuzz::run("sizes", strategy, |(n, unit, space, lead, trail)| {
        let (suffix, bytes) = SIZE_UNITS[unit];
        let space = if space && !suffix.is_empty() { " " } else { "" };
        // A whole number of units: its bytes, or an error past 64 bits.
        let s = format!("{}{n}{space}{suffix}", "0".repeat(lead));
        let expected = n
            .checked_mul(u128::from(bytes))
            .and_then(|b| u64::try_from(b).ok());
        prop_assert_eq!(parse_size(&s).ok(), expected, "{:?}", s);
        // Any byte count written in this unit, exactly, with trailing
        // zeros: the same bytes, or an error when too many digits.
        let Ok(n) = u64::try_from(n) else {
            return Ok(());
        };
        let (num, cut) = decimal(u128::from(n), bytes, 64);
        prop_assert!(!cut, "{} / {} does not end", n, bytes);
        let digits = num.split_once('.').map_or(0, |(_, f)| f.len());
        let zeros = if num.contains('.') {
            "0".repeat(trail)
        } else {
            String::new()
        };
        let s = format!("{num}{zeros}{space}{suffix}");
        let expected = (digits <= MAX_FRACTION_DIGITS).then_some(n);
        prop_assert_eq!(parse_size(&s).ok(), expected, "{:?}", s);
        // The human display parses back to within its three digits.
        if let Ok(back) = parse_size(&format_bytes(n)) {
            let error = (back as f64 - n as f64).abs() / (n as f64).max(1.0);
            prop_assert!(error <= 0.0051, "{} shown as {:?}", n, format_bytes(n));
        }
        Ok(())
    });
}

#[test]
fn fuzz_durations_round_trip() {
    let strategy = (
        prop_oneof![
            1..=1_000_000_000_000_000_000u64,
            1..=1_000_000u64,
            (0..19u32).prop_map(|e| 10u64.pow(e)),
        ],
        number(),
        0..DURATION_UNITS.len(),
    );
    fuzz::run("durations", strategy, |(ns, n, unit)| {
        let (suffix, unit_ns) = DURATION_UNITS[unit];
        let d = Duration::from_nanos(ns);
        // Rust's own display of a duration, and nanoseconds.
        prop_assert_eq!(parse_duration(&format!("{d:?}")), Ok(d), "{:?}", d);
        prop_assert_eq!(parse_duration(&format!("{ns}ns")), Ok(d));
        // The same duration in this unit, exact or cut after enough digits
        // to round back to the nanosecond.
        let (num, cut) = decimal(u128::from(ns), unit_ns, MAX_FRACTION_DIGITS);
        let s = format!("{num}{suffix}");
        prop_assert_eq!(parse_duration(&s), Ok(d), "{:?} (cut: {})", s, cut);
        // A whole number of units: that long if 1 ns to 10^9 s, else an
        // error.
        let s = format!("{n}{suffix}");
        let expected = n
            .checked_mul(u128::from(unit_ns))
            .filter(|t| (1..=MAX_DURATION_NS).contains(t))
            .map(|t| Duration::from_nanos(t as u64));
        prop_assert_eq!(parse_duration(&s).ok(), expected, "{:?}", s);
        Ok(())
    });
}

#[test]
fn fuzz_counts_and_bit_rates_round_trip() {
    let strategy = (number(), any::<u64>(), 0..COUNT_UNITS.len());
    fuzz::run("counts", strategy, |(n, whole, unit)| {
        let (suffix, mult) = COUNT_UNITS[unit];
        let s = format!("{n}{suffix}");
        let value = n
            .checked_mul(u128::from(mult))
            .and_then(|v| u64::try_from(v).ok());
        prop_assert_eq!(parse_bitrate(&s).ok(), value, "bit rate {:?}", s);
        let count = value.filter(|v| *v >= 1 && unit < COUNT_UNIT_COUNT);
        prop_assert_eq!(parse_count(&s).ok(), count, "count {:?}", s);
        // Any whole number written exactly in this unit, like 1.5k.
        let (num, _) = decimal(u128::from(whole), mult, 64);
        let s = format!("{num}{suffix}");
        prop_assert_eq!(parse_bitrate(&s), Ok(whole), "bit rate {:?}", s);
        let count = (whole >= 1 && unit < COUNT_UNIT_COUNT).then_some(whole);
        prop_assert_eq!(parse_count(&s).ok(), count, "count {:?}", s);
        Ok(())
    });
}

/// One entry of a thread list.
#[derive(Debug, Clone)]
enum Entry {
    Count(usize),
    Range(usize, usize),
    Doubling(usize, usize),
    All,
}

/// Thread counts around the accepted ones: 0, small, near the limit.
fn thread_count() -> impl Strategy<Value = usize> {
    prop_oneof![
        Just(0usize),
        1..=64usize,
        1..=MAX_THREADS + 2,
        Just(MAX_THREADS),
        Just(usize::MAX),
    ]
}

fn entry() -> impl Strategy<Value = Entry> {
    prop_oneof![
        thread_count().prop_map(Entry::Count),
        (thread_count(), thread_count()).prop_map(|(a, b)| Entry::Range(a, b)),
        (thread_count(), thread_count()).prop_map(|(a, b)| Entry::Doubling(a, b)),
        Just(Entry::All),
    ]
}

/// What `parse_thread_list` should give for `entries`: `None` for an
/// error, else the expanded counts in order, without repeats.
fn expected_threads(entries: &[Entry], cpus: usize) -> Option<Vec<usize>> {
    let valid = |n: usize| (1..=MAX_THREADS).contains(&n);
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut push = |n: usize| {
        if seen.insert(n) {
            out.push(n);
        }
    };
    for e in entries {
        match *e {
            Entry::Count(n) if valid(n) => push(n),
            Entry::Range(a, b) if valid(a) && valid(b) && a <= b => (a..=b).for_each(&mut push),
            Entry::Doubling(a, b) if valid(a) && valid(b) && a <= b => {
                std::iter::successors(Some(a), |n| Some(n * 2))
                    .take_while(|n| *n <= b)
                    .for_each(&mut push)
            }
            Entry::All => push(cpus.max(1)),
            _ => return None,
        }
    }
    Some(out)
}

#[test]
fn fuzz_thread_lists() {
    let strategy = (
        prop::collection::vec((entry(), 0..3usize, any::<bool>()), 1..8),
        cpus(),
    );
    fuzz::run("thread lists", strategy, |(entries, cpus)| {
        let pad = |n: usize| " ".repeat(n);
        let text: Vec<String> = entries
            .iter()
            .map(|(e, sp, upper)| {
                let body = match e {
                    Entry::Count(n) => n.to_string(),
                    Entry::Range(a, b) => format!("{a}{}..{b}", pad(*sp)),
                    Entry::Doubling(a, b) => format!("{a}..{}{b}:x2", pad(*sp)),
                    Entry::All if *upper => "ALL".to_string(),
                    Entry::All => "all".to_string(),
                };
                format!("{}{body}", pad(*sp))
            })
            .collect();
        let s = text.join(",");
        let entries: Vec<Entry> = entries.into_iter().map(|(e, _, _)| e).collect();
        let got = parse_thread_list(&s, cpus);
        prop_assert_eq!(
            got.clone().ok(),
            expected_threads(&entries, cpus),
            "{:?}",
            s
        );
        if let Ok(list) = got {
            check_thread_list(&s, cpus, &list)?;
        }
        Ok(())
    });
}

#[test]
fn fuzz_random_strings() {
    let strategy = (
        prop_oneof![
            prop::collection::vec(any::<u8>(), 0..48)
                .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
            prop::collection::vec(
                prop::sample::select(b"0123456789.,:xkKmMgGtTiBsnuhd ".to_vec()),
                0..32
            )
            .prop_map(|b| String::from_utf8(b).unwrap()),
            any::<String>(),
        ],
        cpus(),
    );
    fuzz::run("random strings", strategy, |(s, cpus)| check_any(&s, cpus));
}

/// One change to a valid input.
#[derive(Debug, Clone)]
enum Mutation {
    /// Flip one bit of the byte at this position.
    Flip(usize, u8),
    /// Insert one of [`PIECES`] at this position.
    Insert(usize, usize),
    /// Delete the byte at this position.
    Delete(usize),
    /// Keep the part before this position, or after it.
    Split(usize, bool),
    /// Join with another seed, with a comma or without.
    Join(usize, bool),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), 0..8u8).prop_map(|(i, b)| Mutation::Flip(i, b)),
        (any::<usize>(), 0..PIECES.len()).prop_map(|(i, p)| Mutation::Insert(i, p)),
        any::<usize>().prop_map(Mutation::Delete),
        (any::<usize>(), any::<bool>()).prop_map(|(i, k)| Mutation::Split(i, k)),
        (0..SEEDS.len(), any::<bool>()).prop_map(|(s, c)| Mutation::Join(s, c)),
    ]
}

/// Applies `mutations` to `seed` byte by byte (the result may not be
/// UTF-8, and is then read lossily).
fn mutate(seed: &str, mutations: &[Mutation]) -> String {
    let mut b = seed.as_bytes().to_vec();
    for m in mutations {
        let at = |i: usize, len: usize| if len == 0 { 0 } else { i % (len + 1) };
        match *m {
            Mutation::Flip(i, bit) if !b.is_empty() => {
                let i = i % b.len();
                b[i] ^= 1 << bit;
            }
            Mutation::Flip(..) => {}
            Mutation::Insert(i, p) => {
                let i = at(i, b.len());
                b.splice(i..i, PIECES[p].bytes());
            }
            Mutation::Delete(i) if !b.is_empty() => {
                b.remove(i % b.len());
            }
            Mutation::Delete(_) => {}
            Mutation::Split(i, keep_head) => {
                let i = at(i, b.len());
                b = if keep_head {
                    b[..i].to_vec()
                } else {
                    b[i..].to_vec()
                };
            }
            Mutation::Join(s, comma) => {
                if comma {
                    b.push(b',');
                }
                b.extend_from_slice(SEEDS[s].as_bytes());
            }
        }
    }
    String::from_utf8_lossy(&b).into_owned()
}

#[test]
fn fuzz_mutated_valid_inputs() {
    let strategy = (
        0..SEEDS.len(),
        prop::collection::vec(mutation(), 1..6),
        cpus(),
    );
    fuzz::run("mutated inputs", strategy, |(seed, mutations, cpus)| {
        check_any(&mutate(SEEDS[seed], &mutations), cpus)
    });
}

// ---- regression inputs found by the fuzz targets ---------------------------

/// Above 2^53 an `f64` cannot hold every whole number: these came back
/// one off when the parsers computed in floating point.
#[test]
fn numbers_above_two_to_the_53_stay_exact() {
    assert_eq!(parse_size("9007199254740993"), Ok(9_007_199_254_740_993));
    assert_eq!(parse_count("9858403123869307"), Ok(9_858_403_123_869_307));
    assert_eq!(parse_bitrate("9858403123869307"), Ok(9_858_403_123_869_307));
    assert_eq!(
        parse_duration("4915260.137152957s"),
        Ok(Duration::from_nanos(4_915_260_137_152_957))
    );
    assert_eq!(parse_size("18446744073709551615"), Ok(u64::MAX));
    assert_eq!(parse_count("18446744073709551615"), Ok(u64::MAX));
    assert_eq!(
        parse_size("0.000000000931322574615478515625g"),
        Ok(1),
        "one byte in GiB, 30 digits after the dot"
    );
}

/// Values past 64 bits were read as `u64::MAX` (a saturated cast), and
/// huge or exponent-written ones must be errors too.
#[test]
fn values_past_their_type_are_errors() {
    for s in [
        "18446744073709551616",
        "99999999999999999999g",
        "16777216TiB",
        "18446744073709551616B",
        "340282366920938463463374607431768211456",
    ] {
        let e = parse_size(s).unwrap_err();
        assert_eq!(e.0, format!("invalid size '{s}': expected {}", SIZE_FORMS));
    }
    for s in ["18446744073709551616", "18446744073709552k", "1e400"] {
        assert!(parse_count(s).is_err(), "count {s}");
        assert!(parse_bitrate(s).is_err(), "bit rate {s}");
    }
    for s in ["1e400s", "1000000000.000000001s", "11574.1d", "1e9s"] {
        let e = parse_duration(s).unwrap_err();
        assert_eq!(
            e.0,
            format!("invalid duration '{s}': expected {}", DURATION_FORMS)
        );
    }
    assert_eq!(
        parse_duration("1000000000s"),
        Ok(Duration::from_secs(1_000_000_000))
    );
}

/// A duration under half a nanosecond became a zero `Duration` although
/// zero durations are refused; from half a nanosecond it rounds up to one.
#[test]
fn sub_nanosecond_durations_round_and_zero_is_refused() {
    for s in [
        "0.4ns",
        "0.0000000001s",
        "0.000000000000000000000000000000000000001ns",
    ] {
        assert!(parse_duration(s).is_err(), "{s}");
    }
    assert_eq!(parse_duration("0.5ns"), Ok(Duration::from_nanos(1)));
    assert_eq!(parse_duration("1.4ns"), Ok(Duration::from_nanos(1)));
    assert_eq!(parse_duration("1.5us"), Ok(Duration::from_nanos(1_500)));
}

/// Repeated ranges give each count once, in first-seen order; duplicates
/// are dropped as the list is expanded, so the list never grows past
/// [`MAX_THREADS`] counts (before, 10 000 copies of `1..4096` built 41
/// million entries first).
#[test]
fn repeated_ranges_give_each_count_once() {
    let s = ["8..4096", "1..16:x2"].repeat(1_000).join(",");
    let list = parse_thread_list(&s, 8).unwrap();
    let expected: Vec<usize> = (8..=4096).chain([1, 2, 4]).collect();
    assert_eq!(list, expected);
}
