//! The end-of-life table's types (eol.toml's `[[branch]]`), the dates it
//! is judged on and version comparison: the bottom of the `eol` checks,
//! used by the check loader and the config as well.

use nodebench_core::bench::BenchError;
use serde::Deserialize;

/// One `[[branch]]` of the table as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BranchText {
    product: String,
    branch: String,
    #[serde(default)]
    end: Option<String>,
    #[serde(default)]
    newest: Option<String>,
}

/// One release branch of a product.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Branch {
    /// `nginx`, `Apache httpd`, `PHP`, `OpenSSL`, `Apache Tomcat`.
    pub product: String,
    /// `1.22`, `1.1.1`.
    pub branch: String,
    /// The first day without security support (days since 1970-01-01).
    pub end: Option<i64>,
    /// The branch's newest (or final) release.
    pub newest: Option<String>,
}

/// The products the table may name.
pub const PRODUCTS: &[&str] = &["Apache httpd", "nginx", "PHP", "OpenSSL", "Apache Tomcat"];

/// A branch as written into its checked form.
pub fn branch(t: BranchText) -> Result<Branch, BenchError> {
    let what = format!("branch '{} {}'", t.product, t.branch);
    if !PRODUCTS.contains(&t.product.as_str()) {
        return Err(BenchError::System(format!(
            "{what}: product must be one of {}",
            PRODUCTS.join(", ")
        )));
    }
    if version(&t.branch).is_none() {
        return Err(BenchError::System(format!(
            "{what}: the branch must be a version like 1.22"
        )));
    }
    let end =
        match &t.end {
            Some(e) => Some(days(e).ok_or_else(|| {
                BenchError::System(format!("{what}: end '{e}' is not YYYY-MM-DD"))
            })?),
            None => None,
        };
    if let Some(n) = &t.newest
        && !in_branch(n, &t.branch)
    {
        return Err(BenchError::System(format!(
            "{what}: newest '{n}' is not in the branch"
        )));
    }
    Ok(Branch {
        product: t.product,
        branch: t.branch,
        end,
        newest: t.newest,
    })
}

/// Days since 1970-01-01 of `YYYY-MM-DD` (a real date), else `None`.
pub fn days(text: &str) -> Option<i64> {
    let mut it = text.split('-');
    let (y, m, d) = (it.next()?, it.next()?, it.next()?);
    if it.next().is_some() || y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return None;
    }
    let (y, m, d): (i64, i64, i64) = (y.parse().ok()?, m.parse().ok()?, d.parse().ok()?);
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let month_days = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    if !(1..=12).contains(&m) || d < 1 || d > month_days[(m - 1) as usize] {
        return None;
    }
    // Howard Hinnant's days_from_civil.
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    Some(era * 146_097 + doe - 719_468)
}

/// `YYYY-MM-DD` of a day count.
pub fn date_text(days: i64) -> String {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Today (UTC) as days since 1970-01-01.
pub fn today() -> i64 {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default();
    (secs / 86_400) as i64
}

/// A version's components: the number and a letter suffix (`1f` ->
/// (1, "f")); `None` when a component does not start with a digit.
pub fn version(text: &str) -> Option<Vec<(u64, String)>> {
    text.split('.')
        .map(|c| {
            let digits: String = c.chars().take_while(char::is_ascii_digit).collect();
            let rest = c[digits.len()..].to_string();
            Some((digits.parse().ok()?, rest))
        })
        .collect()
}

/// True when `v`'s leading components are `branch`'s.
pub fn in_branch(v: &str, branch: &str) -> bool {
    match (version(v), version(branch)) {
        (Some(v), Some(b)) => {
            v.len() >= b.len() && v.iter().zip(&b).all(|(a, b)| a.0 == b.0 && b.1.is_empty())
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_round_trip_and_bad_ones_are_refused() {
        assert_eq!(days("1970-01-01"), Some(0));
        assert_eq!(
            days("2024-02-29").map(date_text).as_deref(),
            Some("2024-02-29")
        );
        assert_eq!(date_text(days("2026-11-27").unwrap()), "2026-11-27");
        for bad in ["2023-02-29", "2026-13-01", "26-01-01", "2026-1-1", "today"] {
            assert_eq!(days(bad), None, "{bad}");
        }
        assert!(today() > days("2025-01-01").unwrap());
    }

    #[test]
    fn versions_compare_by_number_then_letter() {
        assert!(in_branch("1.1.1w", "1.1.1") && !in_branch("1.1.10", "1.1.1"));
        assert!(!in_branch("3.10.1", "3.1"));
        assert!(version("1.1.1f") < version("1.1.1w"));
        assert!(version("2.4.9") < version("2.4.62"));
        assert_eq!(version("x.1"), None);
    }
}
