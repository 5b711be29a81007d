//! A time-bounded fuzz driver over proptest strategies, for the fuzz tests
//! of every crate (`tests/fuzz_*.rs`): stable Rust cannot run `cargo fuzz`,
//! so the parsers are fuzzed with byte-level and structure-aware proptest
//! strategies seeded from valid inputs instead.
//!
//! By default each target runs a short batch ([`DEFAULT_CASES`] cases), so
//! `cargo test` keeps the fuzzers alive in seconds. `NODEBENCH_FUZZ_SECONDS=600`
//! runs each target in batches until that many seconds have passed, and
//! prints how many cases ran. A failing case is shrunk to a minimal input
//! and reported in the panic message; keep it as a regression test. The
//! byte edits ([`edits`], [`apply`]) mutate valid inputs for the targets.

use std::fmt::Debug;
use std::time::{Duration, Instant};

use proptest::strategy::Strategy;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};

/// The environment variable that sets how long each fuzz target runs.
pub const SECONDS_VAR: &str = "NODEBENCH_FUZZ_SECONDS";

/// Cases a target runs when [`SECONDS_VAR`] is not set (the CI default).
pub const DEFAULT_CASES: u32 = 512;

/// Cases in each batch of a timed run.
const BATCH: u32 = 2_000;

/// What one fuzz target did.
#[derive(Debug, Clone, Copy)]
pub struct Outcome {
    /// Cases generated and checked.
    pub cases: u64,
    /// How long it ran.
    pub elapsed: Duration,
}

/// Runs `check` on values from `strategy`: one batch of [`DEFAULT_CASES`],
/// or batches until [`SECONDS_VAR`] seconds have passed. Panics with the
/// shrunk failing input when `check` fails or panics.
pub fn run<S>(
    name: &str,
    strategy: S,
    check: impl Fn(S::Value) -> Result<(), TestCaseError>,
) -> Outcome
where
    S: Strategy,
    S::Value: Debug,
{
    let budget = std::env::var(SECONDS_VAR)
        .ok()
        .and_then(|s| s.trim().parse::<u64>().ok())
        .map(Duration::from_secs);
    let start = Instant::now();
    let mut cases: u64 = 0;
    let mut batch: u64 = 0;
    loop {
        let n = if budget.is_some() {
            BATCH
        } else {
            DEFAULT_CASES
        };
        let config = Config {
            cases: n,
            failure_persistence: None,
            ..Config::default()
        };
        // A new seed per batch, so a long run explores new inputs; the seed
        // is printed with a failure so it can be replayed.
        let seed = seed_for(name, batch);
        let rng = TestRng::from_seed(RngAlgorithm::ChaCha, &seed);
        let mut runner = TestRunner::new_with_rng(config, rng);
        if let Err(e) = runner.run(&strategy, &check) {
            panic!("fuzz {name}: batch {batch} failed after {cases} earlier cases: {e}");
        }
        cases += n as u64;
        batch += 1;
        match budget {
            Some(b) if start.elapsed() < b => continue,
            _ => break,
        }
    }
    let outcome = Outcome {
        cases,
        elapsed: start.elapsed(),
    };
    eprintln!(
        "fuzz {name}: {} cases in {:.1} s, no failure",
        outcome.cases,
        outcome.elapsed.as_secs_f64()
    );
    outcome
}

/// A 32-byte seed from the target's name and the batch number: the same
/// batch replays the same inputs.
fn seed_for(name: &str, batch: u64) -> [u8; 32] {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x100_0000_01b3);
    }
    let mut seed = [0u8; 32];
    for (i, chunk) in seed.chunks_mut(8).enumerate() {
        let v = crate::rng::splitmix64(h ^ batch.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ i as u64);
        chunk.copy_from_slice(&v.to_le_bytes());
    }
    seed
}

/// One byte edit of a valid input: a position (taken modulo the length), a
/// byte, and the kind (0 insert, 1 delete, otherwise replace).
pub type Edit = (usize, u8, u8);

/// One to five byte edits.
pub fn edits() -> impl Strategy<Value = Vec<Edit>> {
    proptest::collection::vec(
        (
            proptest::arbitrary::any::<usize>(),
            proptest::arbitrary::any::<u8>(),
            0u8..3,
        ),
        1..6,
    )
}

/// `b` with `edits` applied in order.
pub fn apply(mut b: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for &edit in edits {
        apply_one(&mut b, edit);
    }
    b
}

/// Applies one byte edit to `b`.
pub fn apply_one(b: &mut Vec<u8>, (at, byte, kind): Edit) {
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
