//! The small, fast pseudo-random generators every area uses for
//! incompressible payloads, random access orders and verifiable data:
//! Marsaglia's xorshift64 (the 13/7/17 triple) and SplitMix64, the
//! counter-based mixer HPL-style matrix generators and hashing use.
//! Neither is for cryptography.

/// SplitMix64's increment: the golden ratio in 64-bit fixed point.
pub const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// One SplitMix64 step from state `x`: adds the gamma and mixes. Element `k`
/// (from 0) of the stream seeded with `s` is `splitmix64(s + k * GOLDEN_GAMMA)`,
/// so any element can be regenerated without running the stream up to it.
#[inline]
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(GOLDEN_GAMMA);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Marsaglia's xorshift64 generator: one state word, three shifts a step.
#[derive(Debug, Clone)]
pub struct XorShift64 {
    state: u64,
}

impl XorShift64 {
    /// A generator seeded with `seed`; a zero seed (the one fixed point of
    /// xorshift) is replaced by the golden gamma.
    pub fn new(seed: u64) -> XorShift64 {
        XorShift64 {
            state: if seed == 0 { GOLDEN_GAMMA } else { seed },
        }
    }

    /// The next 64-bit value.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.state;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.state = x;
        x
    }

    /// A value in `0..n` (`n > 0`; modulo bias is negligible for the small
    /// ranges used here: shuffles and slot picks).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    /// Fills `buf` with generator output, 8 little-endian bytes a step.
    pub fn fill_bytes(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let bytes = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&bytes[..chunk.len()]);
        }
    }

    /// Shuffles `v` in place (Fisher-Yates).
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            let j = self.below(i as u64 + 1) as usize;
            v.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn xorshift_matches_the_reference_sequence() {
        // Marsaglia (2003), xorshift64 with (13, 7, 17), seed 1.
        let mut g = XorShift64::new(1);
        assert_eq!(g.next_u64(), 1_082_269_761);
        assert_eq!(g.next_u64(), 1_152_992_998_833_853_505);
    }

    #[test]
    fn zero_seed_does_not_stick() {
        let mut g = XorShift64::new(0);
        assert_ne!(g.next_u64(), 0);
    }

    #[test]
    fn fill_bytes_covers_a_partial_tail() {
        let mut a = [0u8; 13];
        XorShift64::new(7).fill_bytes(&mut a);
        let mut g = XorShift64::new(7);
        let w0 = g.next_u64().to_le_bytes();
        let w1 = g.next_u64().to_le_bytes();
        assert_eq!(&a[..8], &w0);
        assert_eq!(&a[8..], &w1[..5]);
    }

    #[test]
    fn shuffle_is_a_permutation() {
        let mut v: Vec<u32> = (0..1000).collect();
        XorShift64::new(42).shuffle(&mut v);
        assert_ne!(v, (0..1000).collect::<Vec<_>>());
        v.sort_unstable();
        assert_eq!(v, (0..1000).collect::<Vec<_>>());
    }

    #[test]
    fn splitmix_matches_the_reference() {
        // First output of SplitMix64 seeded with 0 (Vigna's reference code).
        assert_eq!(splitmix64(0), 0xe220_a839_7b1d_cdaf);
    }
}
