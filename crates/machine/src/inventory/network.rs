//! Network interfaces from `/sys/class/net`.

use std::fs;

use super::sysfs::{dir_names, read_number, read_text, read_value};
use crate::sysroot::Roots;
use nodebench_core::inventory::NetworkInterface;

/// A link speed from `/sys/class/net/X/speed`; negative (-1 = unknown) or
/// malformed gives `None`.
fn parse_speed(text: &str) -> Option<u64> {
    let v: i64 = text.trim().parse().ok()?;
    u64::try_from(v).ok()
}

/// Reads every interface of `/sys/class/net`.
pub(super) fn collect_network_interfaces(roots: &Roots) -> Vec<NetworkInterface> {
    let net = roots.sys("class/net");
    dir_names(&net)
        .into_iter()
        .filter_map(|name| {
            let dir = net.join(&name);
            // Skip stray files (e.g. bonding_masters).
            if !dir.join("operstate").exists() && !dir.join("mtu").exists() {
                return None;
            }
            Some(NetworkInterface {
                mtu: read_number(dir.join("mtu")),
                speed_mbps: read_text(dir.join("speed")).and_then(|t| parse_speed(&t)),
                driver: fs::read_link(dir.join("device/driver"))
                    .ok()
                    .and_then(|p| p.file_name()?.to_str().map(str::to_string)),
                operstate: read_value(dir.join("operstate")),
                mac: read_value(dir.join("address")),
                name,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_link_speed() {
        assert_eq!(parse_speed("25000\n"), Some(25000));
        assert_eq!(parse_speed("-1\n"), None);
        assert_eq!(parse_speed(""), None);
    }
}
