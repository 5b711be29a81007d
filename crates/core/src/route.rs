//! Which local interface traffic to a host leaves by, and its MTU: recorded
//! with every network result, so a run at MTU 1500 and one at 9000 (the
//! comparison of jumbo and standard frames) can be told apart in the store.

use std::ffi::CStr;
use std::net::{IpAddr, SocketAddr, UdpSocket};

/// The interface a packet to `peer` would leave by, and its MTU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Egress {
    /// Interface name, e.g. `eth0`, `lo`.
    pub interface: String,
    /// Its MTU in bytes.
    pub mtu: u32,
    /// The local address used.
    pub local: IpAddr,
}

/// Finds the egress interface to `peer` (the kernel's route choice, learnt by
/// connecting a UDP socket, which sends nothing) and reads its MTU.
pub fn egress_to(peer: SocketAddr) -> Option<Egress> {
    let bind: SocketAddr = match peer.ip() {
        IpAddr::V4(_) => "0.0.0.0:0".parse().ok()?,
        IpAddr::V6(_) => "[::]:0".parse().ok()?,
    };
    let s = UdpSocket::bind(bind).ok()?;
    s.connect(peer).ok()?;
    let local = s.local_addr().ok()?.ip();
    let interface = interface_of(local)?;
    let mtu = mtu_of(&interface)?;
    Some(Egress {
        interface,
        mtu,
        local,
    })
}

/// The name of the interface holding address `ip` (getifaddrs).
fn interface_of(ip: IpAddr) -> Option<String> {
    // SAFETY: getifaddrs allocates a list we walk read-only and free once.
    unsafe {
        let mut head: *mut libc::ifaddrs = std::ptr::null_mut();
        if libc::getifaddrs(&mut head) != 0 {
            return None;
        }
        let mut found = None;
        let mut cur = head;
        while !cur.is_null() {
            let ifa = &*cur;
            if !ifa.ifa_addr.is_null() {
                let family = (*ifa.ifa_addr).sa_family as i32;
                let addr = match family {
                    libc::AF_INET => {
                        let sin = &*(ifa.ifa_addr as *const libc::sockaddr_in);
                        Some(IpAddr::from(
                            u32::from_be(sin.sin_addr.s_addr).to_be_bytes(),
                        ))
                    }
                    libc::AF_INET6 => {
                        let sin6 = &*(ifa.ifa_addr as *const libc::sockaddr_in6);
                        Some(IpAddr::from(sin6.sin6_addr.s6_addr))
                    }
                    _ => None,
                };
                if addr == Some(ip) {
                    found = Some(CStr::from_ptr(ifa.ifa_name).to_string_lossy().into_owned());
                    break;
                }
            }
            cur = ifa.ifa_next;
        }
        libc::freeifaddrs(head);
        found
    }
}

/// The MTU of interface `name` (SIOCGIFMTU), which works inside any network
/// namespace without sysfs.
fn mtu_of(name: &str) -> Option<u32> {
    let bytes = name.as_bytes();
    // SAFETY: ifreq is plain data; the name fits (checked) and is NUL-terminated
    // by the zeroed struct; the ioctl fills ifru_mtu.
    unsafe {
        let mut req: libc::ifreq = std::mem::zeroed();
        if bytes.len() >= req.ifr_name.len() {
            return None;
        }
        for (d, s) in req.ifr_name.iter_mut().zip(bytes) {
            *d = *s as libc::c_char;
        }
        let fd = libc::socket(libc::AF_INET, libc::SOCK_DGRAM, 0);
        if fd < 0 {
            return None;
        }
        let rc = libc::ioctl(fd, libc::SIOCGIFMTU, &mut req);
        libc::close(fd);
        if rc != 0 {
            return None;
        }
        u32::try_from(req.ifr_ifru.ifru_mtu).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_egress_is_lo_with_its_mtu() {
        let e = egress_to("127.0.0.1:5201".parse().unwrap()).expect("loopback route");
        assert_eq!(e.interface, "lo");
        assert!(e.mtu >= 1500, "{e:?}");
        assert_eq!(e.local, "127.0.0.1".parse::<IpAddr>().unwrap());
    }
}
