//! IPMI DCMI whole-node power: `ipmitool dcmi power reading`, where the
//! node has a BMC (`/dev/ipmi0`) and `ipmitool`. The BMC updates its figure
//! once per its sampling period (stated in the reply, at least a second):
//! the meter reads it no faster and integrates the watts. A reply whose
//! power measurement is not active (its figures are zeros the BMC did not
//! measure) or a refusal gives no source, only a note saying why.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use nodebench_core::names::energy::{scope, source};

use super::{Found, Reader, Source};

/// The figures of one `ipmitool dcmi power reading` reply.
#[derive(Debug, Clone, PartialEq)]
pub struct Reading {
    /// "Instantaneous power reading", watts.
    pub watts: f64,
    /// "Sampling period", seconds (the BMC's update interval).
    pub period_s: Option<f64>,
}

/// The reply of `ipmitool dcmi power reading`: its reading when the power
/// measurement is active; else why there is none (not active, or the
/// BMC's or ipmitool's own error line).
pub fn parse(reply: &str) -> Result<Reading, crate::Error> {
    let field = |name: &str| {
        reply.lines().find_map(|l| {
            let (k, v) = l.split_once(':')?;
            (k.trim().eq_ignore_ascii_case(name)).then(|| v.trim().to_string())
        })
    };
    let first_number = |s: &str| -> Option<f64> { s.split_whitespace().next()?.parse().ok() };
    let Some(watts) = field("Instantaneous power reading") else {
        let why = reply
            .lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .unwrap_or("no reply");
        return Err(crate::Error::Unknown(format!("IPMI DCMI: {why}")));
    };
    match field("Power reading state is") {
        Some(state) if state.eq_ignore_ascii_case("activated") => {}
        Some(state) => {
            return Err(crate::Error::Unknown(format!(
                "IPMI DCMI: the BMC's power measurement is {state} (its zeros are not readings)"
            )));
        }
        None => {
            return Err(crate::Error::Unknown(
                "IPMI DCMI: the reply does not say whether power measurement is active".into(),
            ));
        }
    }
    let watts = first_number(&watts).ok_or_else(|| {
        crate::Error::Unknown(format!(
            "IPMI DCMI: instantaneous power reading '{watts}' is not a number"
        ))
    })?;
    let period_s = field("Sampling period").and_then(|p| first_number(&p));
    Ok(Reading { watts, period_s })
}

/// Runs `ipmitool dcmi power reading` (5 s at most): its output, or the
/// error line that stands for it.
fn ask() -> String {
    match Command::new("timeout")
        .args(["5", "ipmitool", "dcmi", "power", "reading"])
        .output()
    {
        Ok(o) => format!(
            "{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(e) => format!("ipmitool: {e}"),
    }
}

/// The BMC as a source where the live node has one whose power measurement
/// is active; a note where it has one that gives no figure.
pub fn discover(found: &mut Found) {
    let bmc = ["/dev/ipmi0", "/dev/ipmi/0", "/dev/ipmidev/0"]
        .iter()
        .any(|p| Path::new(p).exists());
    if !bmc {
        return;
    }
    let reading = match parse(&ask()) {
        Ok(r) => r,
        Err(why) => {
            found.notes.push(why.to_string());
            return;
        }
    };
    found.sources.push(source_of(&reading));
}

/// The source a first reading describes: read no faster than its sampling
/// period (a second at least).
fn source_of(first: &Reading) -> Source {
    let every = Duration::from_secs_f64(first.period_s.unwrap_or(1.0).max(1.0));
    Source {
        source: source::IPMI,
        scope: scope::NODE,
        sensor: "bmc".into(),
        how: format!(
            "ipmitool dcmi power reading, the BMC's instantaneous watts every {:.0} s (its sampling period), integrated",
            every.as_secs_f64()
        ),
        bus_id: None,
        nested: false,
        // Watts that change once per period: a span of two periods at
        // least holds a reading of its own.
        shortest: every * 2,
        reader: Reader::Watts {
            read: Box::new(|| parse(&ask()).ok().map(|r| r.watts)),
            every,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Dell iDRAC's reply with power measurement active.
    const ACTIVE: &str = "
    Instantaneous power reading:                   238 Watts
    Minimum during sampling period:                 32 Watts
    Maximum during sampling period:                568 Watts
    Average power reading over sample period:      233 Watts
    IPMI timestamp:                           Fri Dec  4 16:02:11 2026
    Sampling period:                          00000005 Seconds.
    Power reading state is:                   activated

";
    /// A BMC that answers DCMI with its measurement switched off: zeros.
    const INACTIVE: &str = "
    Instantaneous power reading:                     0 Watts
    Minimum during sampling period:                  0 Watts
    Maximum during sampling period:                  0 Watts
    Average power reading over sample period:        0 Watts
    IPMI timestamp:                           Thu Jan  1 00:00:00 1970
    Sampling period:                          00000000 Seconds.
    Power reading state is:                   deactivated

";
    /// A BMC without DCMI power management.
    const REFUSED: &str = "DCMI request failed because: Invalid command (c1)\n";

    #[test]
    fn an_active_reading_gives_its_watts_and_period() {
        let r = parse(ACTIVE).unwrap();
        assert_eq!(r.watts, 238.0);
        assert_eq!(r.period_s, Some(5.0));
        let s = source_of(&r);
        assert_eq!((s.source, s.scope), (source::IPMI, scope::NODE));
        assert_eq!(s.shortest, Duration::from_secs(10));
        assert!(s.how.contains("every 5 s"), "{}", s.how);
    }

    #[test]
    fn an_inactive_measurement_is_no_reading_never_a_zero() {
        let err = parse(INACTIVE).unwrap_err();
        assert!(
            err.to_string().contains("power measurement is deactivated"),
            "{err}"
        );
    }

    #[test]
    fn a_refusal_is_said_in_the_bmcs_words() {
        assert_eq!(
            parse(REFUSED).unwrap_err().to_string(),
            "IPMI DCMI: DCMI request failed because: Invalid command (c1)"
        );
        assert_eq!(parse("").unwrap_err().to_string(), "IPMI DCMI: no reply");
    }
}
