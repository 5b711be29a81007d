//! Compact, lossless encodings of the numbers telemetry is made of: LEB128
//! varints, zigzag for signed ones, and a tagged encoding of one `f64` that
//! reads back bit for bit. The telemetry sampler keeps its history this way
//! (`telemetry::History`), and the store packs time series with it.
//!
//! A value is a header varint, `(extra << 3) | tag`, and the tag's payload:
//! `extra` is the caller's (the sampler puts the series index there), so a
//! value of a common kind costs one byte of header and a short payload.
//! The kinds, tried in order (the first that reproduces the value's bits):
//!
//! | tag | value | payload |
//! |-----|-------|---------|
//! | [`ZERO`] | `+0.0` | none |
//! | [`SAME`] | the caller's previous value | none |
//! | [`UINT`] | a whole number `0 < n < 2^53` | varint `n` |
//! | [`KILO`] | a whole number of thousands (frequencies from kHz) | varint `n / 1000` |
//! | [`NEG`] | a negative whole number `-n` | varint `n` |
//! | [`PERCENT`] | `p * 100 / q` as `f64` arithmetic computes it | varint `q`, varint `p` |
//! | [`F32`] | exactly an `f32` | 4 bytes |
//! | [`F64`] | anything else (NaN payloads included) | 8 bytes |
//!
//! CPU time shares (`jiffies * 100 / total`) are `PERCENT`s: the encoder
//! recovers `p / q` from the continued fraction of `v / 100` and keeps it
//! only when `p * 100 / q` gives back the same bits.

/// Tag of `+0.0`.
pub const ZERO: u8 = 0;
/// Tag of a value equal (bit for bit) to the previous one.
pub const SAME: u8 = 1;
/// Tag of a positive whole number below 2^53.
pub const UINT: u8 = 2;
/// Tag of a whole number of thousands.
pub const KILO: u8 = 3;
/// Tag of `p * 100 / q`.
pub const PERCENT: u8 = 4;
/// Tag of a value an `f32` holds exactly.
pub const F32: u8 = 5;
/// Tag of the value's 8 bytes.
pub const F64: u8 = 6;
/// Tag of a negative whole number above -2^53.
pub const NEG: u8 = 7;

const TAG_BITS: u32 = 3;
/// Whole numbers up to this are exact in an `f64`.
const EXACT: f64 = 9_007_199_254_740_992.0;
/// The largest denominator [`as_percent`] looks for.
const MAX_DENOMINATOR: u64 = 1 << 24;

/// Appends `v` as a LEB128 varint (1 byte below 128, at most 10).
#[inline]
pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The varint at `*pos`, moving `pos` past it; `None` when the bytes end
/// inside it or it runs over 64 bits.
#[inline]
pub fn get_varint(bytes: &[u8], pos: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*pos)?;
        *pos += 1;
        v |= u64::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

/// `v` as an unsigned number, small when `|v|` is small (0, -1, 1, -2 ->
/// 0, 1, 2, 3).
#[inline]
pub fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

/// The inverse of [`zigzag`].
#[inline]
pub fn unzigzag(u: u64) -> i64 {
    ((u >> 1) as i64) ^ -((u & 1) as i64)
}

#[inline]
fn percent(part: u64, total: u64) -> f64 {
    part as f64 * 100.0 / total as f64
}

/// `(p, q)` with `p * 100 / q` equal to `v` bit for bit (`q` up to 2^24),
/// found among the convergents of the continued fraction of `v / 100`;
/// `None` when there is none (most non-ratios; whole numbers are left to
/// the integer tags).
pub fn as_percent(v: f64) -> Option<(u64, u64)> {
    if !(v > 0.0 && v < 1e12) {
        return None;
    }
    let target = v.to_bits();
    let mut x = v / 100.0;
    // Convergents h/k: h(-1) = 1, h(-2) = 0, k(-1) = 0, k(-2) = 1.
    let (mut h1, mut h2, mut k1, mut k2) = (1u64, 0u64, 0u64, 1u64);
    for _ in 0..32 {
        let a = x.floor();
        if !(0.0..1e15).contains(&a) {
            return None;
        }
        let a = a as u64;
        let h = a.checked_mul(h1)?.checked_add(h2)?;
        let k = a.checked_mul(k1)?.checked_add(k2)?;
        if k > MAX_DENOMINATOR || h as f64 >= EXACT / 128.0 {
            return None;
        }
        if k > 0 && percent(h, k).to_bits() == target {
            return Some((h, k));
        }
        let frac = x - a as f64;
        if frac <= 0.0 {
            return None;
        }
        x = 1.0 / frac;
        (h2, h1, k2, k1) = (h1, h, k1, k);
    }
    None
}

#[inline]
fn header(out: &mut Vec<u8>, extra: u64, tag: u8) {
    put_varint(out, (extra << TAG_BITS) | u64::from(tag));
}

/// Appends `v` with `extra` in its header (`extra < 2^61`); `prev` is what
/// [`SAME`] refers to (the value before it in the caller's order).
#[inline]
pub fn put_f64(out: &mut Vec<u8>, extra: u64, v: f64, prev: f64) {
    let bits = v.to_bits();
    if bits == 0 {
        return header(out, extra, ZERO);
    }
    if bits == prev.to_bits() {
        return header(out, extra, SAME);
    }
    // Whole numbers (a cast back and forth, cheaper than `fract`); -0.0,
    // NaN and the infinities fail both tests.
    if v > 0.0 && v < EXACT && (v as u64) as f64 == v {
        let n = v as u64;
        if n.is_multiple_of(1000) && n >= 128_000 {
            header(out, extra, KILO);
            return put_varint(out, n / 1000);
        }
        header(out, extra, UINT);
        return put_varint(out, n);
    }
    if v < 0.0 && v > -EXACT && (v as i64) as f64 == v {
        header(out, extra, NEG);
        return put_varint(out, (v as i64).unsigned_abs());
    }
    if let Some((p, q)) = as_percent(v) {
        header(out, extra, PERCENT);
        put_varint(out, q);
        return put_varint(out, p);
    }
    let single = v as f32;
    if f64::from(single).to_bits() == bits {
        header(out, extra, F32);
        return out.extend_from_slice(&single.to_le_bytes());
    }
    header(out, extra, F64);
    out.extend_from_slice(&bits.to_le_bytes());
}

/// The value at `*pos` and its header's `extra`, moving `pos` past it;
/// `prev` as it was when it was written. `None` on bytes that are not one.
#[inline]
pub fn get_value(bytes: &[u8], pos: &mut usize, prev: f64) -> Option<(u64, f64)> {
    let head = get_varint(bytes, pos)?;
    let extra = head >> TAG_BITS;
    let v = match (head & ((1 << TAG_BITS) - 1)) as u8 {
        ZERO => 0.0,
        SAME => prev,
        UINT => get_varint(bytes, pos)? as f64,
        KILO => get_varint(bytes, pos)?.checked_mul(1000)? as f64,
        NEG => -(get_varint(bytes, pos)? as f64),
        PERCENT => {
            let q = get_varint(bytes, pos)?;
            let p = get_varint(bytes, pos)?;
            percent(p, q)
        }
        F32 => {
            let b = bytes.get(*pos..*pos + 4)?;
            *pos += 4;
            f64::from(f32::from_le_bytes(b.try_into().ok()?))
        }
        _ => {
            let b = bytes.get(*pos..*pos + 8)?;
            *pos += 8;
            f64::from_bits(u64::from_le_bytes(b.try_into().ok()?))
        }
    };
    Some((extra, v))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(v: f64, prev: f64) -> usize {
        let mut out = Vec::new();
        put_f64(&mut out, 5, v, prev);
        let mut pos = 0;
        let (extra, back) = get_value(&out, &mut pos, prev).unwrap();
        assert_eq!(extra, 5);
        assert_eq!(back.to_bits(), v.to_bits(), "{v} read back as {back}");
        assert_eq!(pos, out.len());
        out.len()
    }

    #[test]
    fn every_kind_reads_back_bit_for_bit() {
        for v in [
            0.0,
            -0.0,
            1.0,
            99.0,
            2.4e9,
            2_399_876_000.0,
            -3.0,
            0.5,
            0.1 + 0.2,
            1e300,
            -1e-300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::from_bits(0x7ff8_0000_0000_0001),
            f64::MIN_POSITIVE,
            EXACT,
            EXACT * 2.0,
            100.0 / 3.0,
            45.0 * 100.0 / 101.0,
            12_345.678_9,
        ] {
            round_trip(v, 7.0);
            round_trip(v, v);
        }
    }

    #[test]
    fn common_telemetry_values_are_short() {
        assert_eq!(round_trip(0.0, 1.0), 1);
        assert_eq!(round_trip(42.0, 42.0), 1);
        assert_eq!(round_trip(42.0, 1.0), 2);
        // 3.312345 GHz from kHz: 4 bytes of payload instead of 5.
        assert_eq!(round_trip(3_312_345_000.0, 0.0), 5);
        // CPU shares over 101 jiffies, found without a hint.
        for part in 0..=101u64 {
            let v = part as f64 * 100.0 / 101.0;
            assert!(round_trip(v, -1.0) <= 3, "{part}/101");
        }
        assert_eq!(as_percent(100.0 / 3.0), Some((1, 3)));
        assert_eq!(as_percent(45.0 * 100.0 / 101.0), Some((45, 101)));
        assert_eq!(as_percent(std::f64::consts::PI), None);
    }

    #[test]
    fn varints_and_zigzag() {
        for v in [0, 1, 127, 128, 300, u64::MAX] {
            let mut out = Vec::new();
            put_varint(&mut out, v);
            let mut pos = 0;
            assert_eq!(get_varint(&out, &mut pos), Some(v));
            assert_eq!(pos, out.len());
        }
        for v in [0, -1, 1, i64::MIN, i64::MAX] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
        assert_eq!(zigzag(-1), 1);
        assert_eq!(get_varint(&[0x80], &mut 0), None);
        assert_eq!(get_value(&[F64], &mut 0, 0.0), None);
    }
}
