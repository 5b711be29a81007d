//! The UDP data path's wire forms: the datagram header (send time and
//! packet counter) and the connect/reply datagrams that open a UDP stream.

use super::{LEGACY_UDP_CONNECT_MSG, LEGACY_UDP_CONNECT_REPLY, UDP_CONNECT_MSG, UDP_CONNECT_REPLY};

/// Header at the start of every UDP datagram: the send time (seconds and
/// microseconds, big-endian `u32`s) and the packet counter (big-endian, 32 or
/// 64 bits per the `udp_counters_64bit` parameter), counting from 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UdpHeader {
    /// Send time, whole seconds (the sender's clock; only differences matter).
    pub sec: u32,
    /// Send time, microseconds within the second.
    pub usec: u32,
    /// Packet number, from 1.
    pub seq: u64,
}

impl UdpHeader {
    /// Header length: 12 bytes with 32-bit counters, 16 with 64-bit ones.
    pub fn len(counters_64bit: bool) -> usize {
        if counters_64bit { 16 } else { 12 }
    }

    /// Writes the header into the start of `buf` (which must hold
    /// [`UdpHeader::len`] bytes); a 32-bit counter wraps.
    pub fn encode(&self, buf: &mut [u8], counters_64bit: bool) {
        buf[0..4].copy_from_slice(&self.sec.to_be_bytes());
        buf[4..8].copy_from_slice(&self.usec.to_be_bytes());
        if counters_64bit {
            buf[8..16].copy_from_slice(&self.seq.to_be_bytes());
        } else {
            buf[8..12].copy_from_slice(&(self.seq as u32).to_be_bytes());
        }
    }

    /// Reads the header from a datagram; `None` when it is too short.
    pub fn decode(buf: &[u8], counters_64bit: bool) -> Option<UdpHeader> {
        if buf.len() < UdpHeader::len(counters_64bit) {
            return None;
        }
        let sec = u32::from_be_bytes([buf[0], buf[1], buf[2], buf[3]]);
        let usec = u32::from_be_bytes([buf[4], buf[5], buf[6], buf[7]]);
        let seq = if counters_64bit {
            let mut b = [0u8; 8];
            b.copy_from_slice(&buf[8..16]);
            u64::from_be_bytes(b)
        } else {
            u64::from(u32::from_be_bytes([buf[8], buf[9], buf[10], buf[11]]))
        };
        Some(UdpHeader { sec, usec, seq })
    }
}

/// True for a datagram that opens a UDP stream (current or legacy form, in
/// either byte order).
pub fn is_udp_connect(d: &[u8]) -> bool {
    d.len() == 4
        && (d == UDP_CONNECT_MSG
            || d == LEGACY_UDP_CONNECT_MSG.to_le_bytes()
            || d == LEGACY_UDP_CONNECT_MSG.to_be_bytes()
            || d == *b"6789")
}

/// True for a server's answer to a UDP connect datagram.
pub fn is_udp_reply(d: &[u8]) -> bool {
    d.len() == 4
        && (d == UDP_CONNECT_REPLY
            || d == LEGACY_UDP_CONNECT_REPLY.to_le_bytes()
            || d == LEGACY_UDP_CONNECT_REPLY.to_be_bytes()
            || d == *b"9876")
}
