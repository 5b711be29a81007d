//! Readers of `/proc` and `/sys` files and of the kernel's small text
//! formats (CPU lists, bracketed selectors): every failure is `None`.

use std::fs;
use std::path::{Path, PathBuf};
use std::str::FromStr;

/// The content of a file; `None` if unreadable.
pub(crate) fn read_text(path: impl AsRef<Path>) -> Option<String> {
    fs::read_to_string(path).ok()
}

/// The trimmed content of a small file; `None` if unreadable or empty.
pub(crate) fn read_value(path: impl AsRef<Path>) -> Option<String> {
    let text = read_text(path)?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

pub(crate) fn read_number<T: FromStr>(path: impl AsRef<Path>) -> Option<T> {
    read_value(path)?.parse().ok()
}

/// A frequency file in kHz (cpufreq) as Hz; 0 is unknown.
pub(crate) fn read_khz_as_hz(path: impl AsRef<Path>) -> Option<f64> {
    let khz: u64 = read_number(path)?;
    (khz > 0).then_some(khz as f64 * 1e3)
}

/// Entries of `dir` named `prefix` followed by a decimal number, sorted by it.
pub(crate) fn numbered_entries(dir: &Path, prefix: &str) -> Vec<(u32, PathBuf)> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(u32, PathBuf)> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name();
            let n = parse_numbered_name(name.to_str()?, prefix)?;
            Some((n, e.path()))
        })
        .collect();
    out.sort_by_key(|(n, _)| *n);
    out
}

/// `parse_numbered_name("cpu12", "cpu") == Some(12)`; "cpufreq" is `None`.
fn parse_numbered_name(name: &str, prefix: &str) -> Option<u32> {
    let digits = name.strip_prefix(prefix)?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Sorted names of the entries of a directory.
pub(crate) fn dir_names(dir: &Path) -> Vec<String> {
    let Ok(entries) = fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    names
}

pub(crate) use nodebench_core::cpulist::parse as parse_cpu_list;

/// The bracketed choice of a sysfs selector (`always [madvise] never` gives
/// "madvise"); a file holding a single bare word gives that word.
pub(crate) fn parse_bracketed(text: &str) -> Option<String> {
    let t = text.trim();
    if let Some(start) = t.find('[') {
        let rest = &t[start + 1..];
        let end = rest.find(']')?;
        let inner = rest[..end].trim();
        return (!inner.is_empty()).then(|| inner.to_string());
    }
    let mut words = t.split_whitespace();
    match (words.next(), words.next()) {
        (Some(w), None) => Some(w.to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_bracketed_choices() {
        assert_eq!(
            parse_bracketed("always [madvise] never\n"),
            Some("madvise".into())
        );
        assert_eq!(
            parse_bracketed("none [mq-deadline] kyber bfq\n"),
            Some("mq-deadline".into())
        );
        assert_eq!(parse_bracketed("[none] mq-deadline"), Some("none".into()));
        assert_eq!(parse_bracketed("none\n"), Some("none".into()));
        assert_eq!(parse_bracketed("a b c"), None);
        assert_eq!(parse_bracketed("[unterminated"), None);
        assert_eq!(parse_bracketed(""), None);
    }
}
