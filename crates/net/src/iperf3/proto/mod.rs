//! The iperf3 wire protocol: control states, the 37-byte cookie, the
//! length-prefixed JSON messages (test parameters and results), the UDP
//! stream handshake and the UDP datagram header.
//!
//! Everything here is pure encoding and decoding over `Read`/`Write`, so it is
//! unit-tested without sockets. Field names and numbers follow iperf3 3.x
//! (`iperf_api.h`, `iperf_api.c`, `iperf_udp.c`), so a stock iperf3 on either
//! end understands us.

use std::io::{self, Read, Write};

use nodebench_core::rng::XorShift64;
use serde_json::Value;

mod messages;
mod udp;

pub use messages::{DecodeError, Params, Results, StreamResult};
pub use udp::{UdpHeader, is_udp_connect, is_udp_reply};

/// Port iperf3 listens on by default.
pub const DEFAULT_PORT: u16 = 5201;
/// Size of the session cookie: 36 characters from `[a-z2-7]` and a NUL.
pub const COOKIE_SIZE: usize = 37;
/// Default TCP write/read size (iperf3 `DEFAULT_TCP_BLKSIZE`).
pub const DEFAULT_TCP_LEN: usize = 128 * 1024;
/// UDP datagram size used when the control connection's MSS is unknown.
pub const DEFAULT_UDP_LEN: usize = 1460;
/// Largest TCP block iperf3 accepts (`MAX_BLOCKSIZE`, 1 MiB).
pub const MAX_TCP_LEN: usize = 1024 * 1024;
/// Largest UDP payload over IPv4 (65535 - 8 - 20).
pub const MAX_UDP_LEN: usize = 65535 - 8 - 20;
/// Most parallel streams iperf3 accepts (`MAX_STREAMS`).
pub const MAX_STREAMS: u32 = 128;
/// Largest socket buffer iperf3 accepts for `window` (512 MiB).
pub const MAX_WINDOW: u64 = 512 * 1024 * 1024;
/// Largest parameter message we read (iperf3 itself allows 8 KiB).
pub const MAX_PARAMS_LEN: u32 = 64 * 1024;
/// Largest results message we read (it holds one entry per stream, or a
/// stock server's whole JSON output with `--get-server-output`).
pub const MAX_RESULTS_LEN: u32 = 16 * 1024 * 1024;
/// Datagram a UDP client sends to open a stream ("9876" on the wire, as
/// iperf3 3.x sends `0x36373839` in little-endian byte order).
pub const UDP_CONNECT_MSG: [u8; 4] = *b"9876";
/// The server's answer to [`UDP_CONNECT_MSG`] ("6789" on the wire).
pub const UDP_CONNECT_REPLY: [u8; 4] = *b"6789";
/// The connect message of iperf3 releases before 3.11 (123456789, host order).
pub const LEGACY_UDP_CONNECT_MSG: u32 = 123_456_789;
/// The connect reply of iperf3 releases before 3.11 (987654321, host order).
pub const LEGACY_UDP_CONNECT_REPLY: u32 = 987_654_321;

/// A control-connection state, sent as one signed byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Streams are set up; the test clock starts.
    TestStart,
    /// Data may flow.
    TestRunning,
    /// The client's test time is over (client to server).
    TestEnd,
    /// The server asks for the parameter JSON.
    ParamExchange,
    /// The server is ready for data connections.
    CreateStreams,
    /// The server stopped the test (e.g. it was interrupted).
    ServerTerminate,
    /// The client stopped the test.
    ClientTerminate,
    /// Both sides exchange their results JSON.
    ExchangeResults,
    /// Results are exchanged; the client prints them.
    DisplayResults,
    /// Server idle state (never sent).
    IperfStart,
    /// The client is done (client to server).
    IperfDone,
    /// The server refuses the client: busy with another test, or not
    /// authorised.
    AccessDenied,
    /// The server refuses the test; two big-endian `i32` follow: iperf3's
    /// `i_errno` and the system `errno`.
    ServerError,
}

impl State {
    /// The byte sent on the wire.
    pub fn to_byte(self) -> u8 {
        let v: i8 = match self {
            State::TestStart => 1,
            State::TestRunning => 2,
            State::TestEnd => 4,
            State::ParamExchange => 9,
            State::CreateStreams => 10,
            State::ServerTerminate => 11,
            State::ClientTerminate => 12,
            State::ExchangeResults => 13,
            State::DisplayResults => 14,
            State::IperfStart => 15,
            State::IperfDone => 16,
            State::AccessDenied => -1,
            State::ServerError => -2,
        };
        v as u8
    }

    /// Decodes a state byte; `None` for values iperf3 never sends.
    pub fn from_byte(b: u8) -> Option<State> {
        Some(match b as i8 {
            1 => State::TestStart,
            2 => State::TestRunning,
            4 => State::TestEnd,
            9 => State::ParamExchange,
            10 => State::CreateStreams,
            11 => State::ServerTerminate,
            12 => State::ClientTerminate,
            13 => State::ExchangeResults,
            14 => State::DisplayResults,
            15 => State::IperfStart,
            16 => State::IperfDone,
            -1 => State::AccessDenied,
            -2 => State::ServerError,
            _ => return None,
        })
    }
}

/// iperf3 `i_errno` values this crate sends or explains.
pub mod ierr {
    /// Test duration too long.
    pub const DURATION: i32 = 5;
    /// Too many parallel streams.
    pub const NUM_STREAMS: i32 = 6;
    /// Block size too large.
    pub const BLOCK_SIZE: i32 = 7;
    /// Socket buffer size too large.
    pub const BUF_SIZE: i32 = 8;
    /// Option not implemented.
    pub const UNIMP: i32 = 13;
    /// UDP block size invalid.
    pub const UDP_BLOCK_SIZE: i32 = 20;
    /// Reverse and bidirectional together.
    pub const REVERSE_BIDIR: i32 = 25;
    /// Total requested bitrate above the server's limit.
    pub const TOTAL_RATE: i32 = 27;
    /// Cannot accept a data connection.
    pub const STREAM_ACCEPT: i32 = 204;
    /// Cannot receive the parameters.
    pub const RECV_PARAMS: i32 = 114;
    /// Cannot receive the results.
    pub const RECV_RESULTS: i32 = 117;
    /// Unknown protocol.
    pub const PROTOCOL: i32 = 131;
    /// Test authorisation failed.
    pub const AUTH_TEST: i32 = 142;
    /// Cannot start the UDP/TCP stream listener.
    pub const STREAM_LISTEN: i32 = 202;
}

/// What an iperf3 `i_errno` means, worded for a nodebench user. Refusals by
/// `nodebench net serve` name the server flag that caused them.
pub fn ierr_message(i_errno: i32) -> String {
    match i_errno {
        ierr::DURATION => {
            "test duration above the server's limit (nodebench net serve --max-duration)".into()
        }
        ierr::TOTAL_RATE => {
            "requested bitrate above the server's limit (nodebench net serve --max-bitrate)".into()
        }
        ierr::NUM_STREAMS => "too many parallel streams for the server".into(),
        ierr::BLOCK_SIZE => "block size (--length) too large for the server".into(),
        ierr::UDP_BLOCK_SIZE => "UDP datagram size (--length) invalid for the server".into(),
        ierr::BUF_SIZE => "socket buffer size (--window) too large for the server".into(),
        ierr::UNIMP => "an option is not implemented by the server".into(),
        ierr::REVERSE_BIDIR => "reverse and bidirectional together".into(),
        ierr::RECV_PARAMS => "the server could not read the test parameters".into(),
        ierr::RECV_RESULTS => "the server could not read the results".into(),
        ierr::PROTOCOL => "protocol not supported by the server".into(),
        ierr::AUTH_TEST => "test authorization failed".into(),
        ierr::STREAM_LISTEN => "the server cannot open its data port".into(),
        ierr::STREAM_ACCEPT => "the server could not accept the data connections".into(),
        n => format!("iperf3 error {n}"),
    }
}

/// Fills a cookie the way iperf3's `make_cookie` does: 36 random characters
/// from `abcdefghijklmnopqrstuvwxyz234567` and a terminating NUL.
pub fn make_cookie() -> [u8; COOKIE_SIZE] {
    const CHARS: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";
    let mut raw = [0u8; COOKIE_SIZE];
    fill_random(&mut raw);
    let mut cookie = [0u8; COOKIE_SIZE];
    for (c, r) in cookie.iter_mut().zip(raw.iter()).take(COOKIE_SIZE - 1) {
        *c = CHARS[(*r as usize) % CHARS.len()];
    }
    cookie
}

fn fill_random(buf: &mut [u8]) {
    let mut filled = 0;
    while filled < buf.len() {
        // SAFETY: the pointer and length describe the unfilled tail of `buf`.
        let n =
            unsafe { libc::getrandom(buf[filled..].as_mut_ptr().cast(), buf.len() - filled, 0) };
        if n <= 0 {
            break;
        }
        filled += n as usize;
    }
    if filled < buf.len() {
        // getrandom(2) failed (very old kernel): fall back to a clock-seeded
        // generator; the cookie only has to differ between sessions.
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0)
            ^ u64::from(std::process::id()) << 32;
        XorShift64::new(seed).fill_bytes(&mut buf[filled..]);
    }
}

/// Transport of a test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transport {
    /// TCP streams.
    Tcp,
    /// UDP streams.
    Udp,
}

/// Why reading a control message failed.
#[derive(Debug)]
pub enum CtrlError {
    /// The socket failed or timed out.
    Io(io::Error),
    /// The peer closed the connection.
    Closed,
    /// The length prefix exceeds what we accept.
    TooLarge(u32),
    /// The message is not valid JSON.
    BadJson(String),
}

impl std::fmt::Display for CtrlError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CtrlError::Io(e) if is_timeout(e) => f.write_str("timed out"),
            CtrlError::Io(e) => write!(f, "{e}"),
            CtrlError::Closed => f.write_str("connection closed by peer"),
            CtrlError::TooLarge(n) => write!(f, "message length {n} exceeds the limit"),
            CtrlError::BadJson(e) => write!(f, "malformed JSON: {e}"),
        }
    }
}

impl From<io::Error> for CtrlError {
    fn from(e: io::Error) -> Self {
        if e.kind() == io::ErrorKind::UnexpectedEof {
            CtrlError::Closed
        } else {
            CtrlError::Io(e)
        }
    }
}

/// True for the errors a socket timeout (`SO_RCVTIMEO`/`SO_SNDTIMEO`) gives.
pub fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

/// Sends one state byte.
pub fn write_state(w: &mut impl Write, s: State) -> io::Result<()> {
    w.write_all(&[s.to_byte()])
}

/// Reads one state byte (`Err(Closed)` at end of stream). The byte is
/// returned raw so the caller can report an unknown value.
pub fn read_state_byte(r: &mut impl Read) -> Result<u8, CtrlError> {
    let mut b = [0u8; 1];
    loop {
        match r.read(&mut b) {
            Ok(0) => return Err(CtrlError::Closed),
            Ok(_) => return Ok(b[0]),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(CtrlError::Io(e)),
        }
    }
}

/// Reads the two big-endian `i32` after `SERVER_ERROR`: `(i_errno, errno)`.
pub fn read_server_error(r: &mut impl Read) -> Result<(i32, i32), CtrlError> {
    let mut b = [0u8; 8];
    r.read_exact(&mut b)?;
    Ok((
        i32::from_be_bytes([b[0], b[1], b[2], b[3]]),
        i32::from_be_bytes([b[4], b[5], b[6], b[7]]),
    ))
}

/// Sends `SERVER_ERROR` with iperf3's `i_errno` and a system `errno`.
pub fn write_server_error(w: &mut impl Write, i_errno: i32, errno: i32) -> io::Result<()> {
    let mut b = [0u8; 9];
    b[0] = State::ServerError.to_byte();
    b[1..5].copy_from_slice(&i_errno.to_be_bytes());
    b[5..9].copy_from_slice(&errno.to_be_bytes());
    w.write_all(&b)
}

/// Encodes a JSON message: a big-endian `u32` length, then the compact JSON.
pub fn encode_json(v: &Value) -> Vec<u8> {
    let body = v.to_string();
    let mut out = Vec::with_capacity(body.len() + 4);
    out.extend_from_slice(&(body.len() as u32).to_be_bytes());
    out.extend_from_slice(body.as_bytes());
    out
}

/// Sends a length-prefixed JSON message in one write.
pub fn write_json(w: &mut impl Write, v: &Value) -> io::Result<()> {
    w.write_all(&encode_json(v))
}

/// How much of an announced JSON body is reserved before its bytes arrive:
/// a peer announcing the limit and sending nothing costs no more than this.
const BODY_RESERVE: usize = 64 * 1024;

/// Reads a length-prefixed JSON message of at most `max` bytes. The buffer
/// grows with the bytes that arrive, not with the announced length.
pub fn read_json(r: &mut impl Read, max: u32) -> Result<Value, CtrlError> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len)?;
    let n = u32::from_be_bytes(len);
    if n > max {
        return Err(CtrlError::TooLarge(n));
    }
    let mut body = Vec::with_capacity((n as usize).min(BODY_RESERVE));
    r.take(u64::from(n)).read_to_end(&mut body)?;
    if body.len() < n as usize {
        return Err(CtrlError::Closed);
    }
    // cJSON output may carry a trailing NUL from some writers; tolerate it.
    while body.last() == Some(&0) {
        body.pop();
    }
    serde_json::from_slice(&body).map_err(|e| CtrlError::BadJson(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn state_bytes_round_trip() {
        for s in [
            State::TestStart,
            State::TestRunning,
            State::TestEnd,
            State::ParamExchange,
            State::CreateStreams,
            State::ServerTerminate,
            State::ClientTerminate,
            State::ExchangeResults,
            State::DisplayResults,
            State::IperfStart,
            State::IperfDone,
            State::AccessDenied,
            State::ServerError,
        ] {
            assert_eq!(State::from_byte(s.to_byte()), Some(s));
        }
        assert_eq!(State::AccessDenied.to_byte(), 0xff);
        assert_eq!(State::ServerError.to_byte(), 0xfe);
        assert_eq!(State::ParamExchange.to_byte(), 9);
        assert_eq!(State::from_byte(3), None);
        assert_eq!(State::from_byte(0), None);
    }

    #[test]
    fn cookie_has_iperf3_shape() {
        let a = make_cookie();
        let b = make_cookie();
        assert_eq!(a.len(), 37);
        assert_eq!(a[36], 0);
        assert!(
            a[..36]
                .iter()
                .all(|c| c.is_ascii_lowercase() || (b'2'..=b'7').contains(c))
        );
        assert_ne!(a, b);
    }

    #[test]
    fn params_round_trip() {
        let p = Params {
            transport: Some(Transport::Udp),
            time: 3,
            parallel: 4,
            reverse: true,
            window: Some(1 << 20),
            len: Some(1400),
            bandwidth: 100_000_000,
            pacing_timer: Some(1000),
            udp_counters_64bit: true,
            token: Some("s3cret".into()),
            client_version: Some("nodebench".into()),
            ..Params::default()
        };
        let j = p.to_json();
        assert_eq!(j["udp"], Value::Bool(true));
        assert!(j.get("tcp").is_none());
        assert_eq!(j["reverse"], Value::Bool(true));
        assert_eq!(j["bandwidth"], json!(100_000_000u64));
        assert_eq!(j["nodebench_token"], json!("s3cret"));
        // Through the wire form and back.
        let wire = encode_json(&j);
        assert_eq!(
            u32::from_be_bytes([wire[0], wire[1], wire[2], wire[3]]) as usize,
            wire.len() - 4
        );
        let back = read_json(&mut &wire[..], MAX_PARAMS_LEN).unwrap();
        assert_eq!(Params::from_json(&back).unwrap(), p);
    }

    #[test]
    fn params_from_stock_iperf3() {
        // What iperf3 3.12 sends for `iperf3 -c host -u -b 10M -P 2 --bidir`.
        let j: Value = serde_json::from_str(
            r#"{"udp":true,"omit":0,"time":10,"num":0,"blockcount":0,"parallel":2,
            "bidirectional":true,"len":32768,"bandwidth":10000000,"pacing_timer":1000,
            "client_version":"3.12","some_future_key":[1,2]}"#,
        )
        .unwrap();
        let p = Params::from_json(&j).unwrap();
        assert_eq!(p.transport, Some(Transport::Udp));
        assert_eq!(p.time, 10);
        assert_eq!(p.parallel, 2);
        assert!(p.bidirectional && !p.reverse);
        assert_eq!(p.len, Some(32768));
        assert_eq!(p.bandwidth, 10_000_000);
        assert_eq!(p.token, None);
        // No protocol key means TCP; sctp is reported as unsupported.
        let p = Params::from_json(&json!({"time": 2})).unwrap();
        assert_eq!(p.transport, Some(Transport::Tcp));
        let p = Params::from_json(&json!({"sctp": true})).unwrap();
        assert_eq!(p.transport, None);
        // Wrong types are errors, not panics.
        assert!(Params::from_json(&json!({"time": "long"})).is_err());
        assert!(Params::from_json(&json!([1, 2])).is_err());
        assert!(Params::from_json(&json!({"time": -1})).is_err());
    }

    #[test]
    fn results_round_trip_and_required_keys() {
        let r = Results {
            cpu_util_total: 12.5,
            cpu_util_user: 2.5,
            cpu_util_system: 10.0,
            sender_has_retransmits: 1,
            congestion_used: Some("cubic".into()),
            streams: vec![
                StreamResult {
                    id: 1,
                    bytes: 5_000_000_000,
                    retransmits: 3,
                    jitter: 0.0,
                    errors: 0,
                    packets: 0,
                    start_time: 0.0,
                    end_time: 2.0001,
                    thread_cpu: Some(99.5),
                    last_cpu: Some(3),
                },
                StreamResult {
                    id: 3,
                    bytes: 12,
                    retransmits: -1,
                    jitter: 0.000_012,
                    errors: 2,
                    packets: 40,
                    start_time: 0.0,
                    end_time: 2.0,
                    thread_cpu: None,
                    last_cpu: None,
                },
            ],
        };
        let back = Results::from_json(&r.to_json()).unwrap();
        assert_eq!(back, r);
        // A stock iperf3 3.12 results message (float-printed numbers too).
        let stock: Value = serde_json::from_str(
            r#"{"cpu_util_total":41.2,"cpu_util_user":1.5,"cpu_util_system":39.7,
            "sender_has_retransmits":1.8446744073709552e+19,"streams":[{"id":1,"bytes":2.5e9,
            "retransmits":1.8446744073709552e+19,"jitter":0,"errors":0,"packets":0,"start_time":0,
            "end_time":2.000061}]}"#,
        )
        .unwrap();
        let s = Results::from_json(&stock).unwrap();
        assert_eq!(s.streams[0].bytes, 2_500_000_000);
        assert_eq!(s.sender_has_retransmits, -1);
        assert_eq!(s.streams[0].retransmits, -1);
        assert_eq!(
            (s.streams[0].thread_cpu, s.streams[0].last_cpu),
            (None, None)
        );
        let missing = json!({"cpu_util_total": 1, "cpu_util_user": 1, "streams": []});
        assert!(Results::from_json(&missing).is_err());
    }

    #[test]
    fn json_reader_rejects_bad_input() {
        let mut big = Vec::new();
        big.extend_from_slice(&u32::MAX.to_be_bytes());
        assert!(matches!(
            read_json(&mut &big[..], MAX_PARAMS_LEN),
            Err(CtrlError::TooLarge(_))
        ));
        let garbage = encode_json(&json!("x"))
            .into_iter()
            .take(4)
            .chain(*b"{no")
            .collect::<Vec<u8>>();
        // Length says 3, body is "{no": not JSON.
        let mut g = garbage.clone();
        g[..4].copy_from_slice(&3u32.to_be_bytes());
        assert!(matches!(
            read_json(&mut &g[..], MAX_PARAMS_LEN),
            Err(CtrlError::BadJson(_))
        ));
        // Truncated body: the peer closed early.
        let mut short = 100u32.to_be_bytes().to_vec();
        short.extend_from_slice(b"{}");
        assert!(matches!(
            read_json(&mut &short[..], MAX_PARAMS_LEN),
            Err(CtrlError::Closed)
        ));
    }

    #[test]
    fn server_error_wire_form() {
        let mut out = Vec::new();
        write_server_error(&mut out, ierr::DURATION, 0).unwrap();
        assert_eq!(out, [0xfe, 0, 0, 0, 5, 0, 0, 0, 0]);
        assert_eq!(
            read_server_error(&mut &out[1..]).unwrap(),
            (ierr::DURATION, 0)
        );
        assert!(ierr_message(ierr::DURATION).contains("--max-duration"));
        assert!(ierr_message(ierr::TOTAL_RATE).contains("--max-bitrate"));
    }

    #[test]
    fn udp_header_codec() {
        let h = UdpHeader {
            sec: 0x0102_0304,
            usec: 999_999,
            seq: 0x1_0000_0002,
        };
        let mut buf = [0u8; 20];
        h.encode(&mut buf, true);
        assert_eq!(&buf[0..4], &[1, 2, 3, 4]);
        assert_eq!(&buf[8..16], &[0, 0, 0, 1, 0, 0, 0, 2]);
        assert_eq!(UdpHeader::decode(&buf, true), Some(h));
        // 32-bit counters keep the low 32 bits, in network order.
        let mut buf32 = [0u8; 12];
        h.encode(&mut buf32, false);
        assert_eq!(&buf32[8..12], &[0, 0, 0, 2]);
        assert_eq!(
            UdpHeader::decode(&buf32, false),
            Some(UdpHeader { seq: 2, ..h })
        );
        assert_eq!(UdpHeader::decode(&buf32[..11], false), None);
        assert_eq!(UdpHeader::decode(&buf32, true), None);
    }

    #[test]
    fn udp_handshake_values() {
        // iperf3 3.11+ on little-endian hosts.
        assert!(is_udp_connect(&0x3637_3839u32.to_le_bytes()));
        assert!(is_udp_reply(&0x3938_3736u32.to_le_bytes()));
        // Legacy releases.
        assert!(is_udp_connect(&123_456_789u32.to_le_bytes()));
        assert!(is_udp_reply(&987_654_321u32.to_le_bytes()));
        assert!(!is_udp_connect(b"abcd"));
        assert!(!is_udp_reply(&[0u8; 12]));
    }
}
