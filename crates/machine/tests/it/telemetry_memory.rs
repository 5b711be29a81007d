//! A 72-hour burn-in's telemetry at 512 CPUs in memory: the sampler's
//! history fed 72 h of generated 1 Hz snapshots of a synthetic 512-CPU
//! machine (`telemetry::synthetic`, nothing slept), a 10-minute
//! checkpoint's window cut every hour as the burn-in commits them, and the
//! heap it holds
//! counted by this binary's allocator: after 72 h it must hold no more than
//! 10 % over what it held after the first hour, when the history
//! (`DEFAULT_RETENTION`, one hour) was first full. An unbounded history
//! would hold 72 times as much.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::Instant;

use chrono::{DateTime, TimeZone, Utc};
use nodebench_core::names::telemetry::series;
use nodebench_machine::telemetry::synthetic::Machine;
use nodebench_machine::telemetry::{DEFAULT_INTERVAL, DEFAULT_RETENTION, History, rates};

/// The system allocator, counting the bytes it holds for the program.
struct Counting;

static HELD: AtomicIsize = AtomicIsize::new(0);

// SAFETY: every call is passed to the system allocator unchanged; only the
// count of held bytes is kept beside it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            HELD.fetch_add(layout.size() as isize, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's contract, passed on.
        unsafe { System.dealloc(ptr, layout) };
        HELD.fetch_sub(layout.size() as isize, Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's contract, passed on.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            HELD.fetch_add(
                new_size as isize - layout.size() as isize,
                Ordering::Relaxed,
            );
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn held() -> isize {
    HELD.load(Ordering::Relaxed)
}

const CPUS: u32 = 512;
const HOUR: i64 = 3600;
/// The burn-in's default checkpoint interval.
const CHECKPOINT: i64 = 600;

fn at(t0: DateTime<Utc>, s: i64) -> DateTime<Utc> {
    t0 + chrono::Duration::seconds(s)
}

#[test]
fn seventy_two_hours_at_512_cpus_hold_what_the_first_hour_held() {
    let started = Instant::now();
    let t0 = Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap();
    let mut machine = Machine::new(CPUS, 7);
    let per_interval = {
        let (prev, cur) = machine.pair();
        rates(prev, cur, 1.0).len()
    };
    // Each CPU: six shares and a frequency.
    assert!(per_interval >= 7 * CPUS as usize, "{per_interval} readings");

    let before = held();
    let mut history = History::for_retention(DEFAULT_INTERVAL, DEFAULT_RETENTION);
    let mut after_hour = None;
    for s in 1..=72 * HOUR {
        machine.step();
        let (prev, cur) = machine.pair();
        history.record(at(t0, s), prev, cur, 1.0);
        if s % HOUR == 0 {
            // The hour's last checkpoint: its interval's series, attached
            // to its result and saved, then dropped (a burn-in keeps no
            // result). Once an hour rather than at each of the six: each
            // window is 34 MB of fresh points, and what it holds after it
            // is dropped (nothing) is the same.
            let window = history.window(at(t0, s - CHECKPOINT), at(t0, s));
            assert_eq!(window.len(), per_interval, "series at {s} s");
            let user = window.iter().find(|w| w.name == series::CPU_USER).unwrap();
            // The interval ending at the checkpoint's start is its first.
            assert_eq!(user.points.len(), CHECKPOINT as usize + 1);
            drop(window);
        }
        if s == HOUR {
            after_hour = Some((held() - before, history.packed_bytes()));
            assert_eq!(history.len(), HOUR as usize);
        }
    }
    let (hour, hour_packed) = after_hour.unwrap();
    let end = held() - before;
    let samples = history.len();
    // What each interval took before the history was packed: a Vec of
    // (series index, value) pairs, 16 bytes each, in a 40-byte slot.
    let unpacked = per_interval * 16 + 40;
    eprintln!(
        "{CPUS} CPUs, {per_interval} series: heap after 1 h {hour} B, after 72 h {end} B \
         ({:+.2} %); {:.0} B per interval held ({:.0} B of packed values; \
         unpacked it was {unpacked} B); {samples} intervals kept; {:.1} s",
        (end - hour) as f64 * 100.0 / hour as f64,
        end as f64 / samples as f64,
        hour_packed as f64 / samples as f64,
        started.elapsed().as_secs_f64()
    );
    assert_eq!(samples, HOUR as usize, "the history is bounded");
    assert!(
        end as f64 <= hour as f64 * 1.10,
        "heap grew from {hour} B after 1 h to {end} B after 72 h"
    );
    // And it is compact: under a quarter of the unpacked form.
    assert!(
        (end as f64 / samples as f64) < unpacked as f64 / 4.0,
        "{end} B for {samples} intervals"
    );
}
