//! Response heads. The headers every response carries (`Server`, `Date`,
//! `Content-Type`) are kept as one prepared block per worker whose `Date`
//! is rewritten when the second changes, not formatted per response; a 200
//! response's status line is a constant.

use std::io::Write;
use std::time::{SystemTime, UNIX_EPOCH};

use super::http1;

/// The status line of a 200 response.
const STATUS_200: &[u8] = b"HTTP/1.1 200 OK\r\n";

/// A worker's prepared header block, current to the second.
pub(super) struct Heads {
    /// The Unix second the block's `Date` shows.
    second: u64,
    /// `Server`, `Date` and `Content-Type` lines, then `Content-Length: `.
    common: Vec<u8>,
}

impl Heads {
    /// A block dated `now`.
    pub(super) fn new(now: SystemTime) -> Heads {
        let mut heads = Heads {
            second: u64::MAX,
            common: Vec::with_capacity(128),
        };
        heads.refresh(now);
        heads
    }

    /// Rewrites the `Date` (RFC 9110's IMF-fixdate) when `now` falls in
    /// another second than the block's.
    pub(super) fn refresh(&mut self, now: SystemTime) {
        let second = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        if second == self.second {
            return;
        }
        self.second = second;
        let date = i64::try_from(second)
            .ok()
            .and_then(|s| chrono::DateTime::from_timestamp(s, 0))
            .unwrap_or_default()
            .format("%a, %d %b %Y %H:%M:%S GMT");
        self.common.clear();
        let _ = write!(
            self.common,
            "Server: nodebench\r\nDate: {date}\r\nContent-Type: text/plain\r\nContent-Length: "
        );
    }

    /// Appends the status line and the common headers of a response of
    /// `status` with a body of `len` bytes, up to the `Content-Length`
    /// line's end; the caller adds its own headers and the blank line.
    pub(super) fn write(&self, out: &mut Vec<u8>, status: u16, len: u64) {
        if status == 200 {
            out.extend_from_slice(STATUS_200);
        } else {
            let _ = write!(
                out,
                "HTTP/1.1 {status} {}\r\n",
                http1::reason_phrase(status)
            );
        }
        out.extend_from_slice(&self.common);
        let _ = write!(out, "{len}\r\n");
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn head(heads: &Heads, status: u16, len: u64) -> String {
        let mut out = Vec::new();
        heads.write(&mut out, status, len);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_date_is_imf_fixdate_and_changes_with_the_second() {
        // RFC 9110's example date: Sun, 06 Nov 1994 08:49:37 GMT.
        let t = UNIX_EPOCH + Duration::from_secs(784_111_777);
        let mut heads = Heads::new(t);
        assert_eq!(
            head(&heads, 200, 3985),
            "HTTP/1.1 200 OK\r\nServer: nodebench\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n\
             Content-Type: text/plain\r\nContent-Length: 3985\r\n"
        );
        heads.refresh(t + Duration::from_millis(999));
        assert!(head(&heads, 200, 1).contains("08:49:37 GMT"));
        heads.refresh(t + Duration::from_secs(1));
        assert!(head(&heads, 200, 1).contains("Date: Sun, 06 Nov 1994 08:49:38 GMT\r\n"));
    }

    #[test]
    fn other_statuses_get_their_reason_phrase() {
        let heads = Heads::new(UNIX_EPOCH);
        let h = head(&heads, 404, 0);
        assert!(h.starts_with("HTTP/1.1 404 Not Found\r\n"), "{h}");
        assert!(h.contains("Date: Thu, 01 Jan 1970 00:00:00 GMT\r\n"), "{h}");
        assert!(h.ends_with("Content-Length: 0\r\n"), "{h}");
    }
}
