//! Findings of the web server hardening scan (`http.scan`): what the scan
//! saw, with its evidence and the remediation. The scan stores them in its
//! result as the [`crate::names::scan::param::FINDINGS`] parameter and
//! counts them by [`Severity`] as metrics; the reporter reads them back
//! with [`findings`].

use serde::{Deserialize, Serialize};

use crate::BenchResult;
use crate::names::scan::{param, severity};

crate::choice! {
    /// How much a finding matters, lowest first (the order `--fail-on`
    /// compares by).
    pub enum Severity {
        /// Worth knowing, no weakness by itself (what OPTIONS advertises).
        Info => severity::INFO,
        /// A small hardening gap (a missing security header).
        Low => severity::LOW,
        /// Something an attacker can use (a version in every reply, a
        /// readable `.git/`, TRACE on).
        Medium => severity::MEDIUM,
        /// A direct exposure (secrets served, an expired certificate, the
        /// server running as root).
        High => severity::HIGH,
    }
}

impl Severity {
    /// Its rank, 0 (info) to 3 (high).
    pub fn rank(self) -> u8 {
        match self {
            Severity::Info => 0,
            Severity::Low => 1,
            Severity::Medium => 2,
            Severity::High => 3,
        }
    }
}

impl Serialize for Severity {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(crate::config::Choice::as_str(*self))
    }
}

impl<'de> Deserialize<'de> for Severity {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// One thing the scan found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// The check's id (`default-content.git-head`), stable across releases.
    pub id: String,
    /// The check's title.
    pub name: String,
    /// How much it matters.
    pub severity: Severity,
    /// The request that showed it (`GET /.git/HEAD HTTP/1.1`), or what was
    /// looked at (`TLS 1.0 handshake`, `/proc/1234/status`).
    pub request: String,
    /// The reply's status, for HTTP checks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// What matched: the header line, a body excerpt, the certificate
    /// chain, the process's user.
    pub evidence: String,
    /// What to change.
    pub remediation: String,
}

/// The findings stored in `result` (none when it has no such parameter or
/// it does not read as findings).
pub fn findings(result: &BenchResult) -> Vec<Finding> {
    result
        .param(param::FINDINGS)
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn severities_order_and_parse_by_name() {
        assert!(Severity::High.rank() > Severity::Medium.rank());
        assert_eq!("medium".parse::<Severity>().unwrap(), Severity::Medium);
        assert_eq!(
            "severe".parse::<Severity>().unwrap_err().to_string(),
            "unknown value 'severe' (accepted: info, low, medium, high)"
        );
    }

    #[test]
    fn findings_round_trip_through_the_result() {
        let finding = Finding {
            id: "methods.trace".into(),
            name: "TRACE enabled".into(),
            severity: Severity::Medium,
            request: "TRACE / HTTP/1.1".into(),
            status: Some(200),
            evidence: "body: TRACE / HTTP/1.1".into(),
            remediation: "TraceEnable Off".into(),
        };
        let mut result = BenchResult::new("http.scan");
        result.set_param(param::FINDINGS, vec![finding.clone()]);
        assert_eq!(findings(&result), vec![finding]);
        assert!(findings(&BenchResult::new("http.scan")).is_empty());
    }
}
