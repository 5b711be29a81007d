//! HPCC RandomAccess's engine: the polynomial generator
//! (`HPCC_starts`, POLY 7, PERIOD 1317624576693539401), the update kernels
//! (a table of its own, or one shared lock-free by every thread) and the
//! verification HPCC does (rerun the updates, count the wrong entries).
//!
//! The updates `table[r & (size - 1)] ^= r` take the generator's values
//! at positions `1..=4 x size`. HPCC's single-CPU code walks them as 128
//! independent streams (`ran[128]`, each starting at `HPCC_starts((N/128) *
//! j)`), so 128 loads can be in flight; the kernel here does the same and
//! also prefetches each stream's next entry one round (128 updates) ahead,
//! so the miss is under way when the stream comes back to it. XOR
//! commutes, so any order of the same updates gives the same table.

use std::sync::atomic::{AtomicU64, Ordering};

/// HPCC's primitive polynomial.
pub const POLY: u64 = 0x7;
/// The generator's period.
pub const PERIOD: i64 = 1_317_624_576_693_539_401;
/// Independent generator streams a kernel interleaves (HPCC's 128).
pub const STREAMS: u64 = 128;
/// The share of wrong entries HPCC accepts (1 %).
pub const ERROR_SHARE: f64 = 0.01;

/// The generator's next value.
#[inline(always)]
pub fn step(x: u64) -> u64 {
    (x << 1) ^ ((((x as i64) >> 63) as u64) & POLY)
}

/// `HPCC_starts(n)`: the generator's value at position `n` (1 at 0),
/// by HPCC's algorithm (squaring the shift matrix in GF(2)).
pub fn starts(mut n: i64) -> u64 {
    while n < 0 {
        n += PERIOD;
    }
    while n > PERIOD {
        n -= PERIOD;
    }
    if n == 0 {
        return 1;
    }
    let mut m2 = [0u64; 64];
    let mut temp = 1u64;
    for m in m2.iter_mut() {
        *m = temp;
        temp = step(step(temp));
    }
    let mut i: i32 = 62;
    while i >= 0 && (n >> i) & 1 == 0 {
        i -= 1;
    }
    let mut ran = 2u64;
    while i > 0 {
        let mut t = 0u64;
        for (j, m) in m2.iter().enumerate() {
            if (ran >> j) & 1 == 1 {
                t ^= m;
            }
        }
        ran = t;
        i -= 1;
        if (n >> i) & 1 == 1 {
            ran = step(ran);
        }
    }
    ran
}

/// Asks the CPU to bring `p`'s line into the cache (nothing elsewhere).
#[inline(always)]
fn prefetch(p: *const u64) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults, whatever the address.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p as *const i8, std::arch::x86_64::_MM_HINT_T0)
    };
    #[cfg(target_arch = "aarch64")]
    // SAFETY: a prefetch never faults, whatever the address.
    unsafe {
        std::arch::asm!("prfm pstl1keep, [{0}]", in(reg) p, options(nostack, readonly, preserves_flags))
    };
    #[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
    let _ = p;
}

/// Where an update goes: a table of the thread's own, or one shared by
/// threads that race on it (HPCC's rule allows the lost updates).
pub trait Table {
    /// `table[i] ^= v`.
    fn xor(&mut self, i: usize, v: u64);
    /// The address of entry `i`, for the prefetch.
    fn at(&self, i: usize) -> *const u64;
}

impl Table for [u64] {
    #[inline(always)]
    fn xor(&mut self, i: usize, v: u64) {
        self[i] ^= v;
    }
    #[inline(always)]
    fn at(&self, i: usize) -> *const u64 {
        self[i..].as_ptr()
    }
}

/// A table every thread updates at once, without locks: a plain load and
/// store (relaxed atomics, no read-modify-write), so two threads updating
/// one entry at the same moment may lose one update, as HPCC allows.
pub struct Shared<'a>(pub &'a [AtomicU64]);

impl Table for Shared<'_> {
    #[inline(always)]
    fn xor(&mut self, i: usize, v: u64) {
        let e = &self.0[i];
        e.store(e.load(Ordering::Relaxed) ^ v, Ordering::Relaxed);
    }
    #[inline(always)]
    fn at(&self, i: usize) -> *const u64 {
        self.0[i..].as_ptr() as *const u64
    }
}

/// Applies the updates at generator positions `first + 1 ..= first +
/// count` to `table` (`len` entries, a power of two), as `streams`
/// interleaved streams, each prefetching its next entry one round ahead;
/// what does not divide evenly runs as one more stream at the end.
pub fn update<T: Table + ?Sized>(table: &mut T, len: usize, first: u64, count: u64, streams: u64) {
    let mask = len as u64 - 1;
    let streams = streams.clamp(1, STREAMS) as usize;
    let per = count / streams as u64;
    let mut ran = [0u64; STREAMS as usize];
    if per > 0 {
        for (j, r) in ran.iter_mut().enumerate().take(streams) {
            *r = step(starts((first + per * j as u64) as i64));
            prefetch(table.at((*r & mask) as usize));
        }
        for _ in 0..per {
            for r in ran.iter_mut().take(streams) {
                let v = *r;
                table.xor((v & mask) as usize, v);
                let next = step(v);
                prefetch(table.at((next & mask) as usize));
                *r = next;
            }
        }
    }
    let done = per * streams as u64;
    let mut v = starts((first + done) as i64);
    for _ in done..count {
        v = step(v);
        table.xor((v & mask) as usize, v);
    }
}

/// HPCC's serial update loop (one stream from 1), the reference the
/// kernel is checked against in the tests.
pub fn update_serial(table: &mut [u64], updates: u64) {
    let mask = table.len() as u64 - 1;
    let mut v = 1u64;
    for _ in 0..updates {
        v = step(v);
        table[(v & mask) as usize] ^= v;
    }
}

/// HPCC's starting table: entry `i` holds `i` (`offset + i` for a part).
pub fn init(part: &mut [u64], offset: usize) {
    for (i, e) in part.iter_mut().enumerate() {
        *e = (offset + i) as u64;
    }
}

/// Entries of `part` (starting at entry `offset`) that are not their
/// index: after the updates have been applied twice, the wrong ones.
pub fn wrong_entries(part: &[u64], offset: usize) -> u64 {
    part.iter()
        .enumerate()
        .filter(|(i, e)| **e != (offset + i) as u64)
        .count() as u64
}

/// HPCC's verdict: the run passes while the wrong entries stay under 1 %
/// of the table.
pub fn passes(errors: u64, len: usize) -> bool {
    (errors as f64) < ERROR_SHARE * len as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn starts_matches_hpcc_and_the_serial_generator() {
        // HPCC_starts(0) = 1; the value at n is n steps from 1: 2^n up to
        // n = 63, then POLY folds the carried bit back in.
        assert_eq!(starts(0), 1);
        assert_eq!(starts(1), 2);
        assert_eq!(starts(63), 0x8000_0000_0000_0000);
        assert_eq!(starts(64), 0x7);
        assert_eq!(starts(65), 0xe);
        assert_eq!(starts(PERIOD), 1, "the period brings it back to 1");
        assert_eq!(starts(-1), starts(PERIOD - 1));
        // Positions far out, against x^n mod (x^64 + x^2 + x + 1) in GF(2)
        // computed independently (square and multiply over the polynomial,
        // not HPCC's matrix): the starts of the 128 streams of a table of
        // 2^22 entries (HPCC's RandomAccess_N here) are such positions.
        assert_eq!(starts(1000), 0xb6b6_db00_0000_0103);
        assert_eq!(starts(1 << 22), 0x1_0001_0013);
        assert_eq!(starts(4 << 22), 0x1_0003);
        assert_eq!(starts(1_000_000_000_000), 0xe9f9_6cd8_65f5_0b1c);
        assert_eq!(starts(PERIOD - 1), 0x8000_0000_0000_0003);
        let mut v = 1u64;
        for n in 1..=5000i64 {
            v = step(v);
            assert_eq!(starts(n), v, "HPCC_starts({n})");
        }
        // Far positions against the serial walk.
        let mut v = 1u64;
        for n in 1..=(1i64 << 20) {
            v = step(v);
            if n % 99_991 == 0 {
                assert_eq!(starts(n), v, "HPCC_starts({n})");
            }
        }
    }

    #[test]
    fn the_interleaved_kernel_gives_hpccs_serial_table() {
        for log in [5, 10, 14] {
            let len = 1usize << log;
            let updates = 4 * len as u64;
            let mut serial: Vec<u64> = (0..len as u64).collect();
            update_serial(&mut serial, updates);
            for streams in [1, 61, 128] {
                let mut fast: Vec<u64> = (0..len as u64).collect();
                update(fast.as_mut_slice(), len, 0, updates, streams);
                assert_eq!(fast, serial, "2^{log} entries, {streams} streams");
            }
            // Split in parts, as the shared mode's threads take them.
            let mut parts: Vec<u64> = (0..len as u64).collect();
            let third = updates / 3;
            update(parts.as_mut_slice(), len, 0, third, 128);
            update(parts.as_mut_slice(), len, third, updates - third, 128);
            assert_eq!(parts, serial);
            let shared: Vec<AtomicU64> = (0..len as u64).map(AtomicU64::new).collect();
            update(&mut Shared(&shared), len, 0, updates, 128);
            let shared: Vec<u64> = shared.into_iter().map(AtomicU64::into_inner).collect();
            assert_eq!(shared, serial);
        }
    }

    #[test]
    fn verification_counts_planted_errors_and_fails_above_one_percent() {
        let len = 1usize << 12;
        let updates = 4 * len as u64;
        let table_after = |planted: usize| {
            let mut t: Vec<u64> = (0..len as u64).collect();
            update(t.as_mut_slice(), len, 0, updates, 128);
            // Wrong entries planted between the run and the verification.
            for i in 0..planted {
                t[i * 7 % len] ^= 1 << 40;
            }
            update(t.as_mut_slice(), len, 0, updates, 61);
            wrong_entries(&t, 0)
        };
        assert_eq!(table_after(0), 0);
        let under = table_after(len / 200); // 0.5 %
        assert_eq!(under, (len / 200) as u64);
        assert!(passes(under, len));
        let over = table_after(len / 50); // 2 %
        assert_eq!(over, (len / 50) as u64);
        assert!(!passes(over, len));
        assert!(!passes((len / 100) as u64 + 1, len));
    }
}
