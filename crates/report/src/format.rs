//! Display of canonical values in the units users of the classic tools read:
//! GFLOPS, GOPS, MB/s (10^6 B/s, as STREAM), MiB for sizes, ms/us for times.

use nodebench_core::Unit;

/// An SI prefix and its divisor, chosen so `value / divisor` is at least 1.
pub fn si_prefix(value: f64) -> (&'static str, f64) {
    let a = value.abs();
    if a >= 1e12 {
        ("T", 1e12)
    } else if a >= 1e9 {
        ("G", 1e9)
    } else if a >= 1e6 {
        ("M", 1e6)
    } else if a >= 1e3 {
        ("k", 1e3)
    } else {
        ("", 1.0)
    }
}

/// The prefix and divisor to show values up to `max` of `unit` with:
/// bandwidth always in MB/s (10^6 B/s, as STREAM and IOzone users read it),
/// times in the one unit that suits `max`, others by SI prefix.
pub fn prefix_for(unit: Unit, max: f64) -> (&'static str, f64) {
    match unit {
        Unit::BytesPerSecond => ("M", 1e6),
        Unit::Seconds => {
            if max >= 1.0 {
                ("", 1.0)
            } else if max >= 1e-3 {
                ("m", 1e-3)
            } else if max >= 1e-6 {
                ("u", 1e-6)
            } else {
                ("n", 1e-9)
            }
        }
        Unit::Percent | Unit::Count | Unit::Cycles => ("", 1.0),
        _ => si_prefix(max),
    }
}

/// The display unit for `unit` with the prefix `prefix` (`GFLOPS`, `MB/s`).
pub fn display_unit(unit: Unit, prefix: &str) -> String {
    match unit {
        Unit::FlopsPerSecond => format!("{prefix}FLOPS"),
        Unit::OpsPerSecond => format!("{prefix}OPS"),
        Unit::BytesPerSecond => format!("{prefix}B/s"),
        Unit::Hertz => format!("{prefix}Hz"),
        Unit::Bytes => format!("{prefix}B"),
        Unit::Seconds => format!("{prefix}s"),
        Unit::Cycles => "cycles".into(),
        Unit::Percent => "%".into(),
        Unit::Count => String::new(),
        Unit::Watts => format!("{prefix}W"),
        Unit::Joules => format!("{prefix}J"),
    }
}

/// Formats one value with its own prefix: `50.23 GFLOPS`, `1.20 ms`, `97.1 %`.
pub fn value(v: f64, unit: Unit) -> String {
    match unit {
        Unit::Seconds => seconds(v),
        Unit::Percent => format!("{v:.1} %"),
        Unit::Count => count(v),
        Unit::Cycles => format!("{v:.1} cycles"),
        _ => {
            let (p, d) = si_prefix(v);
            format!("{:.2} {}", v / d, display_unit(unit, p))
        }
    }
}

/// A count: whole numbers as they are (`3`, `0`), means of counts with two
/// decimals (`2.50`).
fn count(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// Formats a value with a fixed prefix divisor (so a row of a table shares one).
pub fn scaled(v: f64, unit: Unit, divisor: f64) -> String {
    match unit {
        Unit::Seconds => format!("{:.3}", v / divisor),
        Unit::BytesPerSecond => format!("{:.1}", v / divisor),
        Unit::Percent => format!("{v:.1}"),
        Unit::Count => format!("{v:.2}"),
        Unit::Cycles => format!("{v:.1}"),
        _ => format!("{:.2}", v / divisor),
    }
}

/// Formats seconds with a readable unit: `2.50 s`, `12.3 ms`, `850 us`, `95 ns`.
pub fn seconds(s: f64) -> String {
    let a = s.abs();
    if a >= 1.0 {
        format!("{s:.2} s")
    } else if a >= 1e-3 {
        format!("{:.2} ms", s * 1e3)
    } else if a >= 1e-6 {
        format!("{:.2} us", s * 1e6)
    } else {
        format!("{:.1} ns", s * 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_carry_prefix_and_unit() {
        assert_eq!(value(50.23e9, Unit::FlopsPerSecond), "50.23 GFLOPS");
        assert_eq!(value(12.5e6, Unit::BytesPerSecond), "12.50 MB/s");
        assert_eq!(value(0.0123, Unit::Seconds), "12.30 ms");
        assert_eq!(value(97.14, Unit::Percent), "97.1 %");
        assert_eq!(scaled(50.23e9, Unit::FlopsPerSecond, 1e9), "50.23");
    }
}
