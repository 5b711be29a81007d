//! A time series' points as the store keeps them (`series.points_packed`,
//! migration 6): lossless and compact. A result's telemetry is thousands of
//! series over the same instants (512 CPUs: 3584 of them), which as JSON
//! text cost about 25 bytes a point, most of it the time written again for
//! every series. Packed, a series whose times are those of the series
//! before it in the result says so in one byte; other times are whole
//! microseconds (the sampler's) as varints of the difference between
//! consecutive steps, or else their 8 bytes; and each value is
//! [`nodebench_core::packed`]'s encoding, a CPU share of 1 to 3 bytes. Every
//! `f64` reads back bit for bit.
//!
//! Layout: a kind byte ([`SAME_TIMES`], [`MICROS`], [`RAW`]); for the last
//! two the point count as a varint and the times; then the values, `SAME`
//! referring to the series' previous value.

use nodebench_core::packed::{get_value, get_varint, put_f64, put_varint, unzigzag, zigzag};

/// The times are those of the series before it in the same result.
const SAME_TIMES: u8 = 0;
/// Times in whole microseconds: the first, then each step's change.
const MICROS: u8 = 1;
/// Times as their 8 bytes each.
const RAW: u8 = 2;

/// `t` in whole microseconds when that is exactly what it is.
fn micros(t: f64) -> Option<i64> {
    if t.is_nan() || t.abs() >= 1e9 {
        return None;
    }
    let m = (t * 1e6).round() as i64;
    ((m as f64 / 1e6).to_bits() == t.to_bits()).then_some(m)
}

/// `points` packed; `before` is the series stored just before it in the
/// same result, whose times it may share.
pub(crate) fn pack(points: &[(f64, f64)], before: Option<&[(f64, f64)]>) -> Vec<u8> {
    let mut out = Vec::with_capacity(points.len() * 2 + 8);
    let shared = before.is_some_and(|b| {
        b.len() == points.len()
            && b.iter()
                .zip(points)
                .all(|(x, y)| x.0.to_bits() == y.0.to_bits())
    });
    let whole: Option<Vec<i64>> = points.iter().map(|p| micros(p.0)).collect();
    match (shared, whole) {
        (true, _) => out.push(SAME_TIMES),
        (false, Some(whole)) => {
            out.push(MICROS);
            put_varint(&mut out, points.len() as u64);
            let (mut prev, mut step) = (0i64, 0i64);
            for m in whole {
                let d = m.wrapping_sub(prev);
                put_varint(&mut out, zigzag(d.wrapping_sub(step)));
                (prev, step) = (m, d);
            }
        }
        (false, None) => {
            out.push(RAW);
            put_varint(&mut out, points.len() as u64);
            for p in points {
                out.extend_from_slice(&p.0.to_bits().to_le_bytes());
            }
        }
    }
    let mut last = 0.0;
    for &(_, v) in points {
        put_f64(&mut out, 0, v, last);
        last = v;
    }
    out
}

/// The points `bytes` hold; `before` as given to [`pack`]. An error says
/// what does not add up.
pub(crate) fn unpack(
    bytes: &[u8],
    before: Option<&[(f64, f64)]>,
) -> Result<Vec<(f64, f64)>, String> {
    let short = || "packed points end early".to_string();
    let mut pos = 1;
    let count = |pos: &mut usize| -> Result<usize, String> {
        let n = get_varint(bytes, pos).ok_or_else(short)?;
        // Every point takes a byte at least: a larger count is corrupt.
        usize::try_from(n)
            .ok()
            .filter(|&n| n <= bytes.len())
            .ok_or_else(|| format!("{n} points in {} bytes", bytes.len()))
    };
    let times: Vec<f64> = match bytes.first() {
        Some(&SAME_TIMES) => before
            .ok_or("packed points share the times of a series before them, and there is none")?
            .iter()
            .map(|p| p.0)
            .collect(),
        Some(&MICROS) => {
            let n = count(&mut pos)?;
            let (mut prev, mut step) = (0i64, 0i64);
            let mut times = Vec::with_capacity(n);
            for _ in 0..n {
                step = step.wrapping_add(unzigzag(get_varint(bytes, &mut pos).ok_or_else(short)?));
                prev = prev.wrapping_add(step);
                times.push(prev as f64 / 1e6);
            }
            times
        }
        Some(&RAW) => {
            let n = count(&mut pos)?;
            let mut times = Vec::with_capacity(n);
            for _ in 0..n {
                let b = bytes.get(pos..pos + 8).ok_or_else(short)?;
                pos += 8;
                times.push(f64::from_le_bytes(b.try_into().map_err(|_| short())?));
            }
            times
        }
        Some(kind) => return Err(format!("unknown kind {kind} of packed points")),
        None => return Err("no packed points".into()),
    };
    let mut points = Vec::with_capacity(times.len());
    let mut last = 0.0;
    for t in times {
        let (_, v) = get_value(bytes, &mut pos, last).ok_or_else(short)?;
        points.push((t, v));
        last = v;
    }
    if pos != bytes.len() {
        return Err(format!(
            "{} bytes after the packed points",
            bytes.len() - pos
        ));
    }
    Ok(points)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same_bits(a: &[(f64, f64)], b: &[(f64, f64)]) -> bool {
        a.len() == b.len()
            && a.iter()
                .zip(b)
                .all(|(x, y)| x.0.to_bits() == y.0.to_bits() && x.1.to_bits() == y.1.to_bits())
    }

    #[test]
    fn every_kind_of_times_reads_back_bit_for_bit() {
        let sampled: Vec<(f64, f64)> = (0..600)
            .map(|i| {
                let m = i * 1_000_000 + (i * 7919) % 900;
                (m as f64 / 1e6, (i % 101) as f64 * 100.0 / 101.0)
            })
            .collect();
        let odd = vec![
            (0.0, 1.0),
            (1.000_000_001, 0.1 + 0.2),
            (2.5, 1e300),
            (-3.0, f64::NAN),
            (1e12, -0.0),
        ];
        for (points, before) in [
            (&sampled, None),
            (&sampled, Some(&sampled)),
            (&sampled, Some(&odd)),
            (&odd, None),
            (&odd, Some(&odd)),
            (&vec![], None),
        ] {
            let packed = pack(points, before.map(Vec::as_slice));
            let back = unpack(&packed, before.map(Vec::as_slice)).unwrap();
            assert!(same_bits(&back, points), "{back:?}");
        }
        // Whole microseconds a second apart: about 2 bytes of time a point;
        // shared times: none.
        assert!(pack(&sampled, None).len() < 600 * 6);
        assert!(pack(&sampled, Some(&sampled)).len() <= 600 * 3);
    }

    #[test]
    fn corrupt_bytes_are_errors() {
        let points = vec![(0.0, 1.5), (1.0, 2.5)];
        let packed = pack(&points, None);
        assert!(unpack(&packed[..packed.len() - 1], None).is_err());
        let mut longer = packed.clone();
        longer.push(0);
        assert!(unpack(&longer, None).is_err());
        assert!(unpack(&[9], None).is_err());
        assert!(unpack(&[], None).is_err());
        assert!(unpack(&[SAME_TIMES, 0], None).is_err());
        assert!(unpack(&[MICROS, 0xff, 0xff, 0xff, 0x7f], None).is_err());
    }
}
