//! The operating system: uname and the os-release file.

use std::collections::BTreeMap;
use std::ffi::CStr;

/// (host name, kernel release) from uname(2); `None` where unknown.
pub(super) fn uname_fields() -> (Option<String>, Option<String>) {
    // SAFETY: utsname is plain old data; all zeroes is a valid value.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: `u` is a valid, writable utsname.
    if unsafe { libc::uname(&mut u) } != 0 {
        return (None, None);
    }
    let field = |chars: &[libc::c_char]| -> Option<String> {
        // The kernel NUL-terminates the fields; make sure of it anyway.
        if !chars.contains(&0) {
            return None;
        }
        // SAFETY: the slice holds a NUL within its bounds (checked above).
        let s = unsafe { CStr::from_ptr(chars.as_ptr()) };
        let s = s.to_string_lossy().trim().to_string();
        (!s.is_empty()).then_some(s)
    };
    (field(&u.nodename), field(&u.release))
}

/// `PRETTY_NAME` of an os-release file (else `NAME` + `VERSION`), unquoted.
pub(super) fn parse_os_release(text: &str) -> Option<String> {
    let mut fields: BTreeMap<&str, String> = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('#') {
            continue;
        }
        if let Some((k, v)) = line.split_once('=') {
            fields.insert(k.trim(), unquote_shell(v.trim()));
        }
    }
    let non_empty = |k: &str| fields.get(k).filter(|v| !v.is_empty()).cloned();
    non_empty("PRETTY_NAME").or_else(|| {
        let name = non_empty("NAME")?;
        Some(match non_empty("VERSION") {
            Some(v) => format!("{name} {v}"),
            None => name,
        })
    })
}

/// Removes shell-style quotes and backslash escapes from an os-release value.
fn unquote_shell(v: &str) -> String {
    let inner = if v.len() >= 2
        && ((v.starts_with('"') && v.ends_with('"')) || (v.starts_with('\'') && v.ends_with('\'')))
    {
        &v[1..v.len() - 1]
    } else {
        v
    };
    if v.starts_with('\'') {
        return inner.to_string();
    }
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            if let Some(next) = chars.next() {
                out.push(next);
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_os_release() {
        let debian = "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"
NAME=\"Debian GNU/Linux\"
VERSION_ID=\"12\"
VERSION=\"12 (bookworm)\"
ID=debian
";
        assert_eq!(
            parse_os_release(debian),
            Some("Debian GNU/Linux 12 (bookworm)".into())
        );
        assert_eq!(
            parse_os_release("NAME=Fedora\nVERSION='40 (Server Edition)'\n"),
            Some("Fedora 40 (Server Edition)".into())
        );
        assert_eq!(
            parse_os_release("PRETTY_NAME=\"Say \\\"hi\\\"\""),
            Some("Say \"hi\"".into())
        );
        assert_eq!(parse_os_release("# nothing\n"), None);
    }
}
