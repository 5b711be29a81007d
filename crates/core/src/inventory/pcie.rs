//! The PCIe links of the NICs, NVMe drives and GPUs (read by
//! `nodebench_machine::inventory` from sysfs's `current_link_speed`,
//! `current_link_width`, `max_link_speed` and `max_link_width`), and what
//! they say on their own: a link narrower than its maximum is downtrained
//! (a card badly seated, a slot with fewer lanes, a bifurcation setting);
//! a NIC's or NVMe drive's link slower than its maximum is too; a GPU's
//! slower link is its idle speed (GPUs lower it when idle), never a fault.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::host::{CheckLine, Verdict};

/// What the device behind a link is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum PcieKind {
    /// A network interface (`/sys/class/net/*/device`).
    Nic,
    /// An NVMe controller (`/sys/class/nvme/*/device`).
    Nvme,
    /// A display or 3D controller (PCI class 0x0300xx, 0x0302xx).
    Gpu,
}

impl PcieKind {
    /// `nic`, `nvme`, `gpu`.
    pub fn as_str(self) -> &'static str {
        match self {
            PcieKind::Nic => "nic",
            PcieKind::Nvme => "nvme",
            PcieKind::Gpu => "gpu",
        }
    }
}

/// One device's PCIe link. A reading sysfs does not give (a file absent,
/// `Unknown`, a width of 0) is `None`, never 0.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PcieLink {
    /// The PCI address: `0000:3b:00.0`.
    pub address: String,
    /// What the device is.
    pub kind: PcieKind,
    /// The name the user knows it by: the interface (`eth0`), the
    /// controller (`nvme0`), NVML's index (`GPU 0`), else the GPU's PCI
    /// vendor and device ids (`GPU 10de:2335`).
    pub name: String,
    /// The link's speed now, GT/s per lane (`current_link_speed`).
    pub current_speed_gts: Option<f64>,
    /// Its width now, lanes (`current_link_width`).
    pub current_width: Option<u32>,
    /// The fastest the device can run, GT/s (`max_link_speed`).
    pub max_speed_gts: Option<f64>,
    /// The most lanes it has (`max_link_width`).
    pub max_width: Option<u32>,
}

/// One thing a link says on its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkFinding {
    /// `PCIe link of eth0 (0000:3b:00.0) at x8, its maximum x16: downtrained`.
    pub text: String,
    /// Whether it is a fault (downtrained); an idle GPU's speed is not.
    pub fault: bool,
}

/// The PCIe generation of a speed in GT/s (2.5 is 1, ..., 64 is 6).
pub fn generation(gts: f64) -> Option<u32> {
    [2.5, 5.0, 8.0, 16.0, 32.0, 64.0]
        .iter()
        .position(|g| (g - gts).abs() < 0.01)
        .map(|i| i as u32 + 1)
}

/// `16.0 GT/s`, as sysfs writes it.
pub fn format_speed(gts: f64) -> String {
    format!("{gts:.1} GT/s")
}

impl PcieLink {
    /// A link with every reading known: `current` and `max` are (GT/s,
    /// lanes).
    pub fn known(
        address: &str,
        kind: PcieKind,
        name: &str,
        current: (f64, u32),
        max: (f64, u32),
    ) -> PcieLink {
        PcieLink {
            address: address.into(),
            kind,
            name: name.into(),
            current_speed_gts: Some(current.0),
            current_width: Some(current.1),
            max_speed_gts: Some(max.0),
            max_width: Some(max.1),
        }
    }

    /// `eth0 (0000:3b:00.0)`.
    pub fn label(&self) -> String {
        format!("{} ({})", self.name, self.address)
    }

    /// Narrower than its maximum width, both known.
    pub fn narrower(&self) -> bool {
        matches!((self.current_width, self.max_width), (Some(c), Some(m)) if c < m)
    }

    /// Slower than its maximum speed, both known.
    pub fn slower(&self) -> bool {
        matches!((self.current_speed_gts, self.max_speed_gts), (Some(c), Some(m)) if c < m)
    }

    /// What the link says on its own: downtrained in width (any device),
    /// in speed (NICs and NVMe drives), or a GPU's idle speed (not a
    /// fault); empty when it runs at its maximum or is not fully known.
    pub fn findings(&self) -> Vec<LinkFinding> {
        let mut out = Vec::new();
        if let (true, Some(c), Some(m)) = (self.narrower(), self.current_width, self.max_width) {
            out.push(LinkFinding {
                text: format!(
                    "PCIe link of {} at x{c}, its maximum x{m}: downtrained",
                    self.label()
                ),
                fault: true,
            });
        }
        if let (true, Some(c), Some(m)) =
            (self.slower(), self.current_speed_gts, self.max_speed_gts)
        {
            let (c, m) = (format_speed(c), format_speed(m));
            out.push(if self.kind == PcieKind::Gpu {
                LinkFinding {
                    text: format!(
                        "PCIe link of {} at {c}, its maximum {m}: idle speed (a GPU lowers its link speed when idle; not a fault)",
                        self.label()
                    ),
                    fault: false,
                }
            } else {
                LinkFinding {
                    text: format!(
                        "PCIe link of {} at {c}, its maximum {m}: downtrained",
                        self.label()
                    ),
                    fault: true,
                }
            });
        }
        out
    }

    /// Whether any finding is a fault.
    pub fn faulty(&self) -> bool {
        self.findings().iter().any(|f| f.fault)
    }

    /// `x8 at 16.0 GT/s (gen 4), its maximum x16 at 16.0 GT/s (gen 4)`;
    /// an unknown reading is `?`.
    pub fn describe(&self) -> String {
        let side = |w: Option<u32>, s: Option<f64>| {
            let width = w.map_or_else(|| "x?".to_string(), |w| format!("x{w}"));
            let speed = s.map_or_else(
                || "? GT/s".to_string(),
                |s| match generation(s) {
                    Some(g) => format!("{} (gen {g})", format_speed(s)),
                    None => format_speed(s),
                },
            );
            format!("{width} at {speed}")
        };
        format!(
            "{}, its maximum {}",
            side(self.current_width, self.current_speed_gts),
            side(self.max_width, self.max_speed_gts)
        )
    }
}

/// The `check` setting of the links.
pub const CHECK_SETTING: &str = "PCIe link";

/// `nodebench check`'s lines of the links: one per link, `warn` where it
/// is downtrained (an idle GPU's speed is said, as `ok`), or one `ok` line
/// saying none was read.
pub fn check_lines(links: &[PcieLink]) -> Vec<CheckLine> {
    let want = "its maximum width, and its maximum speed (a GPU's may be lower when idle)";
    let why = "a narrower or slower link caps what the device moves: x8 carries half of x16, 8 GT/s half of 16 GT/s";
    if links.is_empty() {
        return vec![CheckLine {
            setting: CHECK_SETTING.into(),
            value: "none read (no NIC, NVMe drive or GPU with a PCIe link in sysfs; virtual devices have none)".into(),
            want: want.into(),
            why: why.into(),
            fix: String::new(),
            verdict: Verdict::Ok,
        }];
    }
    links
        .iter()
        .map(|l| {
            let findings = l.findings();
            let fault = findings.iter().any(|f| f.fault);
            let value = if findings.is_empty() {
                format!("{} {}: {}", l.kind.as_str(), l.label(), l.describe())
            } else {
                findings
                    .iter()
                    .map(|f| f.text.as_str())
                    .collect::<Vec<_>>()
                    .join("; ")
            };
            CheckLine {
                setting: CHECK_SETTING.into(),
                value,
                want: want.into(),
                why: why.into(),
                fix: if fault {
                    "reseat the card or move it to a slot with the lanes and speed it has; check the firmware's slot bifurcation and link speed settings".into()
                } else {
                    String::new()
                },
                verdict: if fault { Verdict::Warn } else { Verdict::Ok },
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn link(kind: PcieKind, name: &str, cur: (f64, u32), max: (f64, u32)) -> PcieLink {
        PcieLink::known("0000:3b:00.0", kind, name, cur, max)
    }

    #[test]
    fn a_narrower_link_is_downtrained_whatever_the_device() {
        let nic = link(PcieKind::Nic, "eth0", (16.0, 8), (16.0, 16));
        let f = nic.findings();
        assert_eq!(
            f,
            [LinkFinding {
                text: "PCIe link of eth0 (0000:3b:00.0) at x8, its maximum x16: downtrained".into(),
                fault: true
            }]
        );
        let gpu = link(PcieKind::Gpu, "GPU 0", (32.0, 8), (32.0, 16));
        assert!(gpu.faulty());
        assert_eq!(
            nic.describe(),
            "x8 at 16.0 GT/s (gen 4), its maximum x16 at 16.0 GT/s (gen 4)"
        );
    }

    #[test]
    fn a_slower_link_is_a_fault_for_nics_and_nvme_and_idle_for_gpus() {
        let nvme = link(PcieKind::Nvme, "nvme0", (8.0, 4), (16.0, 4));
        assert!(nvme.faulty());
        assert_eq!(
            nvme.findings()[0].text,
            "PCIe link of nvme0 (0000:3b:00.0) at 8.0 GT/s, its maximum 16.0 GT/s: downtrained"
        );
        let gpu = link(PcieKind::Gpu, "GPU 0", (2.5, 16), (32.0, 16));
        assert!(!gpu.faulty());
        let f = gpu.findings();
        assert_eq!(f.len(), 1);
        assert!(!f[0].fault);
        assert!(
            f[0].text
                .contains("at 2.5 GT/s, its maximum 32.0 GT/s: idle speed")
        );
        let healthy = link(PcieKind::Nic, "eth0", (16.0, 16), (16.0, 16));
        assert!(healthy.findings().is_empty());
    }

    #[test]
    fn unknown_readings_say_nothing() {
        let mut l = link(PcieKind::Nic, "eth0", (16.0, 8), (16.0, 16));
        l.max_width = None;
        l.current_speed_gts = None;
        assert!(l.findings().is_empty());
        assert_eq!(
            l.describe(),
            "x8 at ? GT/s, its maximum x? at 16.0 GT/s (gen 4)"
        );
    }

    #[test]
    fn check_warns_on_faults_only() {
        let lines = check_lines(&[
            link(PcieKind::Nic, "eth0", (16.0, 8), (16.0, 16)),
            link(PcieKind::Gpu, "GPU 0", (2.5, 16), (32.0, 16)),
            link(PcieKind::Nvme, "nvme0", (16.0, 4), (16.0, 4)),
        ]);
        let v: Vec<Verdict> = lines.iter().map(|l| l.verdict).collect();
        assert_eq!(v, [Verdict::Warn, Verdict::Ok, Verdict::Ok]);
        assert_eq!(
            lines[2].value,
            "nvme nvme0 (0000:3b:00.0): x4 at 16.0 GT/s (gen 4), its maximum x4 at 16.0 GT/s (gen 4)"
        );
        assert!(!lines[0].fix.is_empty() && lines[1].fix.is_empty());
        let none = check_lines(&[]);
        assert_eq!(none.len(), 1);
        assert_eq!(none[0].verdict, Verdict::Ok);
        assert!(none[0].value.starts_with("none read"));
    }

    #[test]
    fn generations_by_speed() {
        assert_eq!(generation(2.5), Some(1));
        assert_eq!(generation(16.0), Some(4));
        assert_eq!(generation(64.0), Some(6));
        assert_eq!(generation(10.0), None);
    }
}
