//! Whether the hosts are alike: every inventory field and host-state
//! reading of each host's run, compared across the fleet. A field whose
//! value is not the same everywhere gives the majority value and the hosts
//! that differ, grouped by value ("microcode 0x2b000590 on 988 hosts,
//! 0x2b000571 on h0200-h0211"). Readings that differ on every host by
//! nature (host names, free memory, current clocks, addresses, serial
//! numbers, temperatures, measured clocks, a GPU's PCIe link speed now)
//! are not compared. The PCIe links are compared element by element
//! (`pcie_links.1.current_width: 16 on 999 hosts, 8 on h0456` names the
//! host with a downtrained link).

use std::collections::BTreeMap;

use nodebench_core::inventory::Inventory;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Keys whose values differ from host to host by nature, or from moment
/// to moment: not compared (with everything under them).
pub const NOT_COMPARED: &[&str] = &[
    "hostname",
    "available_bytes",
    "memory_available_bytes",
    "swap_used_bytes",
    "irqbalance_pids",
    "current_frequency_hz",
    "cur_freq_hz",
    "mac",
    "serial",
    "uuid",
    "effective_cores",
    "peak_clock",
    "thermal_zones",
    "throttle",
    "tuning",
    "power",
    "filesystems",
    "available_parallelism",
    "read_ns",
    "pci_bus_id",
    "nvlink_peers",
];

/// Keys not compared in an object of the given `kind` (the pair is kind,
/// key): a GPU lowers its PCIe link's speed when idle, so the speed it
/// runs at now varies from moment to moment (its width and its maximum
/// are compared; a NIC's and an NVMe drive's speed now is too).
pub const NOT_COMPARED_OF_KIND: &[(&str, &str)] = &[("gpu", "current_speed_gts")];

/// A field not alike on every host.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Inconsistency {
    /// The field's path in the inventory (`cpu.microcode`,
    /// `topology.dimms (count)`, `host.policies.0.governor`).
    pub field: String,
    /// The value most hosts have.
    pub majority: String,
    /// How many hosts have it.
    pub majority_hosts: usize,
    /// The other values, each with its hosts, the largest group first;
    /// `absent` for hosts whose inventory lacks the field.
    pub others: Vec<ValueGroup>,
}

/// Hosts sharing one value of a field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ValueGroup {
    /// The value.
    pub value: String,
    /// The hosts, in name order.
    pub hosts: Vec<String>,
}

impl Inconsistency {
    /// `cpu.microcode: 0x2b000590 on 988 hosts, 0x2b000571 on h0200-h0211`.
    pub fn describe(&self) -> String {
        let others: Vec<String> = self
            .others
            .iter()
            .map(|g| format!("{} on {}", g.value, host_ranges(&g.hosts)))
            .collect();
        format!(
            "{}: {} on {} hosts, {}",
            self.field,
            self.majority,
            self.majority_hosts,
            others.join("; ")
        )
    }
}

/// The value that stands for a field a host's inventory lacks.
pub const ABSENT: &str = "absent";

/// Compares the inventories of `hosts` (name, inventory; a host without
/// one is not compared); fields without a value held by more than half of
/// the hosts compared are left out (counted in the second value).
pub fn compare(hosts: &[(&str, &Inventory)]) -> (Vec<Inconsistency>, usize) {
    let mut fields: BTreeMap<String, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    for (name, inv) in hosts {
        let Ok(v) = serde_json::to_value(inv) else {
            continue;
        };
        let mut flat = Vec::new();
        flatten("", &v, &mut flat);
        for (path, value) in flat {
            fields
                .entry(path)
                .or_default()
                .entry(value)
                .or_default()
                .push(name.to_string());
        }
    }
    let n = hosts.len();
    // The hosts whose count of an array is not the majority's: its
    // elements' fields are compared among the others only (one missing
    // DIMM shifts every later one: the count row says it once).
    let mut odd_counts: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (field, values) in &fields {
        if let Some(array) = field.strip_suffix(" (count)") {
            let majority = values.values().max_by_key(|h| h.len());
            let odd = values
                .values()
                .filter(|h| Some(*h) != majority)
                .flatten()
                .cloned()
                .collect();
            odd_counts.insert(array.to_string(), odd);
        }
    }
    let mut out = Vec::new();
    let mut no_majority = 0;
    for (field, mut values) in fields {
        // A field of an array's element is compared among the hosts that
        // have the element.
        let array = element_of(&field);
        if let Some(odd) = array.and_then(|a| odd_counts.get(a)) {
            for hosts in values.values_mut() {
                hosts.retain(|h| !odd.contains(h));
            }
            values.retain(|_, hosts| !hosts.is_empty());
        }
        let present: usize = values.values().map(Vec::len).sum();
        if values.len() <= 1 && (present == n || array.is_some()) {
            continue;
        }
        let in_element = array.is_some();
        let mut groups: Vec<ValueGroup> = values
            .into_iter()
            .map(|(value, mut hosts)| {
                hosts.sort();
                ValueGroup { value, hosts }
            })
            .collect();
        if present < n && !in_element {
            let mut missing: Vec<String> = hosts
                .iter()
                .map(|(h, _)| h.to_string())
                .filter(|h| !groups.iter().any(|g| g.hosts.contains(h)))
                .collect();
            missing.sort();
            groups.push(ValueGroup {
                value: ABSENT.into(),
                hosts: missing,
            });
        }
        groups.sort_by(|a, b| {
            b.hosts
                .len()
                .cmp(&a.hosts.len())
                .then(a.value.cmp(&b.value))
        });
        if groups[0].hosts.len() * 2 <= n {
            no_majority += 1;
            continue;
        }
        let majority = groups.remove(0);
        out.push(Inconsistency {
            field,
            majority: majority.value,
            majority_hosts: majority.hosts.len(),
            others: groups,
        });
    }
    (out, no_majority)
}

/// The array `field` is a field of an element of (`topology.dimms` of
/// `topology.dimms.3.slot`), if any: the path before its first index.
fn element_of(field: &str) -> Option<&str> {
    let mut at = 0;
    for seg in field.split('.') {
        if seg.parse::<usize>().is_ok() {
            return Some(field[..at].trim_end_matches('.'));
        }
        at += seg.len() + 1;
    }
    None
}

/// `value`'s leaves as (path, text): objects by key, arrays of scalars
/// as one space-separated value, arrays of objects as their count
/// (`PATH (count)`) and each element by index; nulls, [`NOT_COMPARED`]
/// keys and [`NOT_COMPARED_OF_KIND`] keys left out.
fn flatten(path: &str, value: &Value, out: &mut Vec<(String, String)>) {
    let join = |k: &str| {
        if path.is_empty() {
            k.to_string()
        } else {
            format!("{path}.{k}")
        }
    };
    match value {
        Value::Null => {}
        Value::Object(map) => {
            let kind = map.get("kind").and_then(Value::as_str);
            for (k, v) in map {
                let of_kind =
                    kind.is_some_and(|kind| NOT_COMPARED_OF_KIND.contains(&(kind, k.as_str())));
                if !NOT_COMPARED.contains(&k.as_str()) && !of_kind {
                    flatten(&join(k), v, out);
                }
            }
        }
        Value::Array(items) => {
            if items.iter().all(|i| !i.is_object() && !i.is_array()) {
                let words: Vec<String> = items.iter().map(scalar).collect();
                out.push((path.to_string(), words.join(" ")));
            } else {
                out.push((format!("{path} (count)"), items.len().to_string()));
                for (i, item) in items.iter().enumerate() {
                    flatten(&join(&i.to_string()), item, out);
                }
            }
        }
        v => out.push((path.to_string(), scalar(v))),
    }
}

fn scalar(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        v => v.to_string(),
    }
}

/// Host names with runs of consecutive numbers folded: `h0200-h0211 h0300`.
pub fn host_ranges(hosts: &[String]) -> String {
    let split = |h: &str| {
        let digits = h.len() - h.trim_end_matches(|c: char| c.is_ascii_digit()).len();
        let (prefix, num) = h.split_at(h.len() - digits);
        (prefix.to_string(), num.to_string())
    };
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < hosts.len() {
        let (prefix, num) = split(&hosts[i]);
        let mut j = i;
        if let Ok(start) = num.parse::<u64>() {
            while j + 1 < hosts.len() {
                let (p, n) = split(&hosts[j + 1]);
                let next = start + (j + 1 - i) as u64;
                if p == prefix && n.len() == num.len() && n.parse::<u64>() == Ok(next) {
                    j += 1;
                } else {
                    break;
                }
            }
        }
        parts.push(if j > i {
            format!("{}-{}", hosts[i], hosts[j])
        } else {
            hosts[i].clone()
        });
        i = j + 1;
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_element_field_names_its_array() {
        assert_eq!(element_of("topology.dimms.3.slot"), Some("topology.dimms"));
        assert_eq!(element_of("a.0.b.1.c"), Some("a"));
        assert_eq!(element_of("cpu.microcode"), None);
    }

    #[test]
    fn ranges_fold_consecutive_numbers_only() {
        let h = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            host_ranges(&h(&["h0200", "h0201", "h0202", "h0300", "x", "n9", "n10"])),
            "h0200-h0202 h0300 x n9 n10"
        );
        assert_eq!(host_ranges(&h(&["a1", "a2"])), "a1-a2");
        assert_eq!(host_ranges(&[]), "");
    }

    #[test]
    fn a_downtrained_link_is_named_and_an_idle_gpu_speed_is_not() {
        use nodebench_core::inventory::{PcieKind, PcieLink};
        let link = |address: &str, kind, speed, width, max| {
            PcieLink::known(address, kind, address, (speed, width), max)
        };
        let invs: Vec<(String, Inventory)> = (0..10)
            .map(|i| {
                let nic_width = if i == 4 { 8 } else { 16 };
                // GPUs idle at 2.5 GT/s on some hosts, busy on others.
                let gpu_speed = if i % 3 == 0 { 2.5 } else { 32.0 };
                let inv = Inventory {
                    pcie_links: Some(vec![
                        link("0000:18:00.0", PcieKind::Gpu, gpu_speed, 16, (32.0, 16)),
                        link("0000:3b:00.0", PcieKind::Nic, 16.0, nic_width, (16.0, 16)),
                    ]),
                    ..Inventory::default()
                };
                (format!("h{i:02}"), inv)
            })
            .collect();
        let hosts: Vec<(&str, &Inventory)> = invs.iter().map(|(n, i)| (n.as_str(), i)).collect();
        let (found, _) = compare(&hosts);
        let text: Vec<String> = found.iter().map(Inconsistency::describe).collect();
        assert_eq!(
            text,
            ["pcie_links.1.current_width: 16 on 9 hosts, 8 on h04"]
        );
    }

    #[test]
    fn the_differing_hosts_are_grouped_against_the_majority() {
        let mut invs = Vec::new();
        for i in 0..20 {
            let mut inv = Inventory {
                hostname: Some(format!("h{i:02}")),
                ..Inventory::default()
            };
            inv.memory.available_bytes = Some(1000 + i);
            inv.cpu.microcode = Some(if (3..=6).contains(&i) { "0x71" } else { "0x90" }.into());
            inv.cpu.governor = Some("performance".into());
            if i == 11 {
                inv.cpu.governor = None;
            }
            invs.push((format!("h{i:02}"), inv));
        }
        let hosts: Vec<(&str, &Inventory)> = invs.iter().map(|(n, i)| (n.as_str(), i)).collect();
        let (found, no_majority) = compare(&hosts);
        assert_eq!(no_majority, 0);
        let text: Vec<String> = found.iter().map(Inconsistency::describe).collect();
        assert_eq!(
            text,
            [
                "cpu.governor: performance on 19 hosts, absent on h11",
                "cpu.microcode: 0x90 on 16 hosts, 0x71 on h03-h06",
            ]
        );
    }
}
