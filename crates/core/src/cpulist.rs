//! The kernel's CPU list format ("0-3,8,10-11"), read and written.

/// Expands a CPU list ("0-3,8,10-11") into CPU numbers; `None` if it is
/// malformed. An empty list is `Some(vec![])`.
pub fn parse(text: &str) -> Option<Vec<u32>> {
    let mut out = Vec::new();
    for part in text.trim().split(',').map(str::trim) {
        if part.is_empty() {
            continue;
        }
        match part.split_once('-') {
            Some((lo, hi)) => {
                let lo: u32 = lo.trim().parse().ok()?;
                let hi: u32 = hi.trim().parse().ok()?;
                if hi < lo || hi - lo > 1 << 20 {
                    return None;
                }
                out.extend(lo..=hi);
            }
            None => out.push(part.parse().ok()?),
        }
    }
    Some(out)
}

/// Writes CPU numbers as a list with ranges ("0-15,128-143"), sorted and
/// without repeats; the empty set is "".
pub fn format(cpus: &[u32]) -> String {
    let mut sorted = cpus.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        let mut end = start;
        while i + 1 < sorted.len() && sorted[i + 1] == end + 1 {
            i += 1;
            end = sorted[i];
        }
        parts.push(if end == start {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_cpu_lists() {
        assert_eq!(parse("0-3,8\n"), Some(vec![0, 1, 2, 3, 8]));
        assert_eq!(parse("5"), Some(vec![5]));
        assert_eq!(parse(""), Some(vec![]));
        assert_eq!(parse("0-1,64-65"), Some(vec![0, 1, 64, 65]));
        assert_eq!(parse("3-1"), None);
        assert_eq!(parse("a-b"), None);
        assert_eq!(parse("0-4294967295"), None);
    }

    #[test]
    fn formats_and_round_trips() {
        assert_eq!(format(&[3, 0, 1, 2, 8, 10, 11]), "0-3,8,10-11");
        assert_eq!(format(&[]), "");
        assert_eq!(format(&[7]), "7");
        assert_eq!(format(&[5, 5, 6]), "5-6");
        let big: Vec<u32> = (0..64).chain(128..192).collect();
        assert_eq!(format(&big), "0-63,128-191");
        assert_eq!(parse(&format(&big)), Some(big));
    }
}
