//! Theoretical peak DRAM bandwidth derived from the SMBIOS (DMI) table.
//!
//! The STREAM benchmark reports its measured bandwidth as a percentage of the
//! machine's theoretical peak. That peak is derived here from the SMBIOS
//! Memory Device structures (type 17, DSP0134): for every populated device,
//! transfers per second times data width in bytes, summed over devices on the
//! assumption that every DIMM sits on a channel of its own.

use std::collections::BTreeMap;
use std::io::ErrorKind;
use std::path::Path;

/// Where Linux exposes the raw SMBIOS structure table.
const DMI_TABLE_PATH: &str = "/sys/firmware/dmi/tables/DMI";

/// SMBIOS structure type of a Memory Device.
const TYPE_MEMORY_DEVICE: u8 = 17;
/// SMBIOS structure type marking the end of the table.
const TYPE_END_OF_TABLE: u8 = 127;
/// Size of the common structure header (type, length, handle).
const HEADER_LEN: usize = 4;
/// Data width assumed for a device whose data width is unknown.
const ASSUMED_DATA_WIDTH_BITS: u16 = 64;

/// One populated memory device (SMBIOS type 17).
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryDevice {
    /// Device locator string, e.g. "DIMM_A1" (empty when the table has none).
    pub locator: String,
    /// Bank locator string, e.g. "P0 CHANNEL A" (empty when the table has none).
    pub bank_locator: String,
    /// Installed size in bytes; 0 when SMBIOS reports the size as unknown.
    pub size_bytes: u64,
    /// Data width in bits, excluding ECC bits; 0 when unknown.
    pub data_width_bits: u16,
    /// Configured memory speed if non-zero, else the maximum rated speed, in
    /// MT/s; 0 when neither is known.
    pub speed_mts: u32,
    /// Memory technology from the type byte: "DDR4", "DDR5", "LPDDR5", ...,
    /// or "type 0xNN" for a value this module does not know.
    pub memory_type: String,
}

/// Peak DRAM bandwidth and how it was derived.
#[derive(Debug, Clone, PartialEq)]
pub struct DramPeak {
    /// The populated memory devices the peak was derived from, including any
    /// without a known speed (those contribute nothing).
    pub devices: Vec<MemoryDevice>,
    /// Theoretical peak bandwidth in bytes per second.
    pub bytes_per_second: f64,
}

impl DramPeak {
    /// One-line human-readable derivation of the peak, e.g.
    /// "peak DRAM bandwidth: 8 DIMMs x 3200 MT/s x 8 B (DDR4, one DIMM per
    /// channel assumed) = 204.8 GB/s".
    pub fn describe(&self) -> String {
        let mut groups: BTreeMap<(u32, u16), usize> = BTreeMap::new();
        let mut types: Vec<&str> = Vec::new();
        let mut unknown_speed = 0usize;
        let mut unknown_width = 0usize;
        for d in &self.devices {
            if d.speed_mts == 0 {
                unknown_speed += 1;
                continue;
            }
            if d.data_width_bits == 0 {
                unknown_width += 1;
            }
            *groups
                .entry((d.speed_mts, effective_width_bits(d)))
                .or_insert(0) += 1;
            if !types.contains(&d.memory_type.as_str()) {
                types.push(&d.memory_type);
            }
        }
        // Highest speed first, then widest.
        let terms: Vec<String> = groups
            .iter()
            .rev()
            .map(|(&(speed, width), &count)| {
                format!(
                    "{count} {} x {speed} MT/s x {} B",
                    if count == 1 { "DIMM" } else { "DIMMs" },
                    format_bytes_per_transfer(width)
                )
            })
            .collect();
        let mut notes = Vec::new();
        if !types.is_empty() {
            notes.push(types.join("/"));
        }
        notes.push("one DIMM per channel assumed".to_string());
        if unknown_width > 0 {
            notes.push(format!(
                "data width unknown for {unknown_width}, {ASSUMED_DATA_WIDTH_BITS} bits assumed"
            ));
        }
        if unknown_speed > 0 {
            notes.push(format!(
                "{unknown_speed} populated {} with unknown speed ignored",
                if unknown_speed == 1 {
                    "device"
                } else {
                    "devices"
                }
            ));
        }
        let terms = if terms.is_empty() {
            "no device with known speed".to_string()
        } else {
            terms.join(" + ")
        };
        format!(
            "peak DRAM bandwidth: {terms} ({}) = {:.1} GB/s",
            notes.join(", "),
            self.bytes_per_second / 1e9
        )
    }
}

/// Parses a raw SMBIOS table (the bytes of /sys/firmware/dmi/tables/DMI) into
/// the populated memory devices.
///
/// Empty slots (size 0) are skipped. Fields beyond a structure's declared
/// length (older SMBIOS versions) read as unknown. Parsing stops at the
/// end-of-table structure, at a malformed header (length below 4) or where the
/// table is truncated; it never panics.
pub fn parse_memory_devices(table: &[u8]) -> Vec<MemoryDevice> {
    let mut devices = Vec::new();
    let mut pos = 0usize;
    while pos + HEADER_LEN <= table.len() {
        let kind = table[pos];
        let length = usize::from(table[pos + 1]);
        if length < HEADER_LEN || kind == TYPE_END_OF_TABLE {
            break;
        }
        let Some(formatted) = table.get(pos..pos + length) else {
            break; // formatted area truncated
        };
        let strings_start = pos + length;
        // The string-set ends with a double NUL (two NULs when it is empty).
        let strings_end = table
            .get(strings_start..)
            .and_then(|rest| rest.windows(2).position(|w| w == [0, 0]))
            .map(|i| strings_start + i);
        let strings = match strings_end {
            Some(end) => &table[strings_start..end],
            None => table.get(strings_start..).unwrap_or(&[]),
        };
        if kind == TYPE_MEMORY_DEVICE
            && let Some(device) = parse_memory_device(formatted, strings)
        {
            devices.push(device);
        }
        match strings_end {
            Some(end) => pos = end + 2,
            None => break, // string-set truncated: nothing follows
        }
    }
    devices
}

/// Peak = sum over populated devices of speed (MT/s) x data width / 8 bytes,
/// assuming one DIMM per channel.
///
/// DDR5 DIMMs report a data width of 64 bits for their two 32-bit
/// subchannels, which is still 8 bytes per transfer per DIMM. A device with an
/// unknown data width is assumed to be 64 bits wide; devices with unknown
/// speed contribute nothing. Errs with a one-line reason when no populated
/// device has a known speed.
pub fn peak_from_devices(devices: Vec<MemoryDevice>) -> Result<DramPeak, crate::Error> {
    if devices.is_empty() {
        return Err(crate::Error::Unknown(
            "SMBIOS lists no populated memory devices (type 17)".to_string(),
        ));
    }
    if devices.iter().all(|d| d.speed_mts == 0) {
        return Err(crate::Error::Unknown(format!(
            "none of the {} populated memory devices in SMBIOS reports a speed",
            devices.len()
        )));
    }
    let bytes_per_second = devices
        .iter()
        .filter(|d| d.speed_mts != 0)
        .map(|d| f64::from(d.speed_mts) * 1e6 * f64::from(effective_width_bits(d)) / 8.0)
        .sum();
    Ok(DramPeak {
        devices,
        bytes_per_second,
    })
}

/// Reads /sys/firmware/dmi/tables/DMI (usually readable by root only) and
/// derives the peak DRAM bandwidth from it; Err(reason) when the table is
/// missing, unreadable or lists no usable memory device.
pub fn peak_dram_bandwidth() -> Result<DramPeak, crate::Error> {
    peak_from_table_file(Path::new(DMI_TABLE_PATH)).map_err(crate::Error::Unknown)
}

/// Reads an SMBIOS table file and derives the peak from it.
fn peak_from_table_file(path: &Path) -> Result<DramPeak, String> {
    let table = match std::fs::read(path) {
        Ok(table) => table,
        Err(e) if e.kind() == ErrorKind::NotFound => {
            return Err(format!(
                "no SMBIOS table ({} does not exist; virtual machine or platform without DMI?)",
                path.display()
            ));
        }
        Err(e) if e.kind() == ErrorKind::PermissionDenied => {
            return Err(format!(
                "SMBIOS table not readable ({}: Permission denied); run as root",
                path.display()
            ));
        }
        Err(e) => {
            return Err(format!(
                "SMBIOS table not readable ({}: {e})",
                path.display()
            ));
        }
    };
    if table.is_empty() {
        return Err(format!(
            "no SMBIOS table ({} is empty; virtual machine?)",
            path.display()
        ));
    }
    peak_from_devices(parse_memory_devices(&table)).map_err(|e| e.to_string())
}

/// Data width used for the peak: the reported one, or 64 bits when unknown.
fn effective_width_bits(device: &MemoryDevice) -> u16 {
    if device.data_width_bits == 0 {
        ASSUMED_DATA_WIDTH_BITS
    } else {
        device.data_width_bits
    }
}

/// Bytes per transfer for a width in bits: "8", or "2.5" for odd widths.
fn format_bytes_per_transfer(width_bits: u16) -> String {
    if width_bits.is_multiple_of(8) {
        (width_bits / 8).to_string()
    } else {
        format!("{}", f64::from(width_bits) / 8.0)
    }
}

/// Decodes one type-17 structure; None for an empty slot or a structure too
/// short to hold the size field.
fn parse_memory_device(formatted: &[u8], strings: &[u8]) -> Option<MemoryDevice> {
    let size_bytes = match read_u16(formatted, 0x0C)? {
        0 => return None, // no device installed in this socket
        0xFFFF => 0,      // installed, size unknown
        0x7FFF => match read_u32(formatted, 0x1C) {
            // Extended Size: bits 30:0 in MiB.
            Some(ext) => u64::from(ext & 0x7FFF_FFFF) << 20,
            None => 0,
        },
        size if size & 0x8000 != 0 => u64::from(size & 0x7FFF) << 10, // KiB granularity
        size => u64::from(size) << 20,                                // MiB granularity
    };
    let data_width_bits = match read_u16(formatted, 0x0A) {
        Some(0xFFFF) | None => 0,
        Some(width) => width,
    };
    let max_speed = speed_field(formatted, 0x15, 0x54);
    let configured_speed = speed_field(formatted, 0x20, 0x58);
    let speed_mts = if configured_speed != 0 {
        configured_speed
    } else {
        max_speed
    };
    let memory_type = read_u8(formatted, 0x12).map_or_else(|| "unknown".to_string(), type_name);
    Some(MemoryDevice {
        locator: string_field(formatted, strings, 0x10),
        bank_locator: string_field(formatted, strings, 0x11),
        size_bytes,
        data_width_bits,
        speed_mts,
        memory_type,
    })
}

/// Reads a speed word (MT/s); 0xFFFF defers to the 32-bit extended field
/// (bits 30:0). 0 when unknown or outside the structure.
fn speed_field(formatted: &[u8], offset: usize, extended_offset: usize) -> u32 {
    match read_u16(formatted, offset) {
        None => 0,
        Some(0xFFFF) => read_u32(formatted, extended_offset).map_or(0, |ext| ext & 0x7FFF_FFFF),
        Some(speed) => u32::from(speed),
    }
}

/// Name of the SMBIOS Memory Type byte (DSP0134 table "Memory Device — Type").
fn type_name(code: u8) -> String {
    let name = match code {
        0x01 => "Other",
        0x02 => "Unknown",
        0x03 => "DRAM",
        0x04 => "EDRAM",
        0x05 => "VRAM",
        0x06 => "SRAM",
        0x07 => "RAM",
        0x08 => "ROM",
        0x09 => "Flash",
        0x0A => "EEPROM",
        0x0B => "FEPROM",
        0x0C => "EPROM",
        0x0D => "CDRAM",
        0x0E => "3DRAM",
        0x0F => "SDRAM",
        0x10 => "SGRAM",
        0x11 => "RDRAM",
        0x12 => "DDR",
        0x13 => "DDR2",
        0x14 => "DDR2 FB-DIMM",
        0x18 => "DDR3",
        0x19 => "FBD2",
        0x1A => "DDR4",
        0x1B => "LPDDR",
        0x1C => "LPDDR2",
        0x1D => "LPDDR3",
        0x1E => "LPDDR4",
        0x1F => "Logical non-volatile device",
        0x20 => "HBM",
        0x21 => "HBM2",
        0x22 => "DDR5",
        0x23 => "LPDDR5",
        0x24 => "HBM3",
        _ => return format!("type 0x{code:02X}"),
    };
    name.to_string()
}

/// Resolves a 1-based string index stored at `offset`; empty when the index is
/// 0, out of range or outside the structure.
fn string_field(formatted: &[u8], strings: &[u8], offset: usize) -> String {
    match read_u8(formatted, offset) {
        Some(index) if index > 0 => strings
            .split(|&b| b == 0)
            .nth(usize::from(index) - 1)
            .map(|s| String::from_utf8_lossy(s).trim().to_string())
            .unwrap_or_default(),
        _ => String::new(),
    }
}

/// Reads a byte at `offset`, None when outside the formatted area.
fn read_u8(formatted: &[u8], offset: usize) -> Option<u8> {
    formatted.get(offset).copied()
}

/// Reads a little-endian u16 at `offset`, None when outside the formatted area.
fn read_u16(formatted: &[u8], offset: usize) -> Option<u16> {
    let bytes = formatted.get(offset..offset.checked_add(2)?)?;
    Some(u16::from_le_bytes([bytes[0], bytes[1]]))
}

/// Reads a little-endian u32 at `offset`, None when outside the formatted area.
fn read_u32(formatted: &[u8], offset: usize) -> Option<u32> {
    let bytes = formatted.get(offset..offset.checked_add(4)?)?;
    Some(u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::rng::{GOLDEN_GAMMA, XorShift64};

    /// Assembles one SMBIOS structure: header, formatted area (`body` follows
    /// the 4-byte header) and string-set.
    fn structure(kind: u8, handle: u16, body: &[u8], strings: &[&str]) -> Vec<u8> {
        let length = u8::try_from(HEADER_LEN + body.len()).expect("structure too long");
        let mut out = vec![kind, length];
        out.extend_from_slice(&handle.to_le_bytes());
        out.extend_from_slice(body);
        if strings.is_empty() {
            out.extend_from_slice(&[0, 0]);
        } else {
            for s in strings {
                out.extend_from_slice(s.as_bytes());
                out.push(0);
            }
            out.push(0);
        }
        out
    }

    /// Fields of a type-17 structure for the test helper.
    struct Dimm {
        locator: &'static str,
        bank: &'static str,
        size: u16,
        ext_size: u32,
        data_width: u16,
        mem_type: u8,
        speed: u16,
        configured: u16,
        ext_speed: u32,
        ext_configured: u32,
        /// Total structure length (0x5C for SMBIOS 3.3+, 0x28 for 2.8, ...).
        length: usize,
    }

    impl Dimm {
        fn ddr4_3200_16g(locator: &'static str, bank: &'static str) -> Self {
            Dimm {
                locator,
                bank,
                size: 16384,
                ext_size: 0,
                data_width: 64,
                mem_type: 0x1A,
                speed: 3200,
                configured: 3200,
                ext_speed: 0,
                ext_configured: 0,
                length: 0x5C,
            }
        }

        fn empty(locator: &'static str, bank: &'static str) -> Self {
            Dimm {
                size: 0,
                data_width: 0xFFFF,
                mem_type: 0x02,
                speed: 0,
                configured: 0,
                ..Dimm::ddr4_3200_16g(locator, bank)
            }
        }

        fn bytes(&self, handle: u16) -> Vec<u8> {
            let mut s = [0u8; 0x5C];
            s[0x08..0x0A].copy_from_slice(&72u16.to_le_bytes());
            s[0x0A..0x0C].copy_from_slice(&self.data_width.to_le_bytes());
            s[0x0C..0x0E].copy_from_slice(&self.size.to_le_bytes());
            s[0x0E] = 0x09; // form factor DIMM
            s[0x10] = 1; // device locator
            s[0x11] = 2; // bank locator
            s[0x12] = self.mem_type;
            s[0x15..0x17].copy_from_slice(&self.speed.to_le_bytes());
            s[0x17] = 3; // manufacturer
            s[0x1C..0x20].copy_from_slice(&self.ext_size.to_le_bytes());
            s[0x20..0x22].copy_from_slice(&self.configured.to_le_bytes());
            s[0x54..0x58].copy_from_slice(&self.ext_speed.to_le_bytes());
            s[0x58..0x5C].copy_from_slice(&self.ext_configured.to_le_bytes());
            structure(
                TYPE_MEMORY_DEVICE,
                handle,
                &s[HEADER_LEN..self.length],
                &[self.locator, self.bank, "Samsung"],
            )
        }
    }

    fn bios_structure() -> Vec<u8> {
        let mut body = vec![0u8; 0x18 - HEADER_LEN];
        body[0] = 1; // vendor
        body[1] = 2; // version
        structure(0, 0, &body, &["American Megatrends", "1.2.3"])
    }

    fn end_structure() -> Vec<u8> {
        structure(TYPE_END_OF_TABLE, 0xFEFF, &[], &[])
    }

    fn table(parts: &[Vec<u8>]) -> Vec<u8> {
        parts.concat()
    }

    fn two_dimm_table() -> Vec<u8> {
        table(&[
            bios_structure(),
            Dimm::ddr4_3200_16g("DIMM_A1", "P0 CHANNEL A").bytes(0x10),
            Dimm::empty("DIMM_A2", "P0 CHANNEL A").bytes(0x11),
            Dimm::ddr4_3200_16g("DIMM_B1", "P0 CHANNEL B").bytes(0x12),
            end_structure(),
        ])
    }

    #[test]
    fn parses_populated_devices_and_skips_empty_slot() {
        let devices = parse_memory_devices(&two_dimm_table());
        assert_eq!(devices.len(), 2);
        assert_eq!(devices[0].locator, "DIMM_A1");
        assert_eq!(devices[0].bank_locator, "P0 CHANNEL A");
        assert_eq!(devices[1].locator, "DIMM_B1");
        assert_eq!(devices[1].bank_locator, "P0 CHANNEL B");
        for d in &devices {
            assert_eq!(d.size_bytes, 16 << 30);
            assert_eq!(d.speed_mts, 3200);
            assert_eq!(d.data_width_bits, 64);
            assert_eq!(d.memory_type, "DDR4");
        }
    }

    #[test]
    fn peak_of_two_ddr4_3200_dimms() {
        let peak = peak_from_devices(parse_memory_devices(&two_dimm_table())).unwrap();
        assert_eq!(peak.bytes_per_second, 51.2e9);
        let text = peak.describe();
        assert!(text.contains("2 DIMMs"), "{text}");
        assert!(text.contains("3200 MT/s"), "{text}");
        assert!(text.contains("8 B"), "{text}");
        assert!(text.contains("DDR4"), "{text}");
        assert!(text.contains("one DIMM per channel assumed"), "{text}");
        assert!(text.contains("51.2 GB/s"), "{text}");
    }

    #[test]
    fn describe_matches_documented_example() {
        let device = parse_memory_devices(&two_dimm_table()).remove(0);
        let peak = peak_from_devices(vec![device; 8]).unwrap();
        assert_eq!(
            peak.describe(),
            "peak DRAM bandwidth: 8 DIMMs x 3200 MT/s x 8 B \
             (DDR4, one DIMM per channel assumed) = 204.8 GB/s"
        );
    }

    #[test]
    fn extended_size_and_extended_speed() {
        let dimm = Dimm {
            size: 0x7FFF,
            ext_size: 64 * 1024, // 64 GiB in MiB
            mem_type: 0x22,
            speed: 0xFFFF,
            ext_speed: 70_000,
            configured: 0xFFFF,
            ext_configured: 68_000,
            ..Dimm::ddr4_3200_16g("DIMM0", "BANK 0")
        };
        let devices = parse_memory_devices(&table(&[dimm.bytes(1), end_structure()]));
        assert_eq!(devices.len(), 1);
        assert_eq!(devices[0].size_bytes, 64 << 30);
        assert_eq!(devices[0].speed_mts, 68_000);
        assert_eq!(devices[0].memory_type, "DDR5");
        let peak = peak_from_devices(devices).unwrap();
        assert_eq!(peak.bytes_per_second, 68_000e6 * 8.0);
    }

    #[test]
    fn max_speed_used_when_configured_speed_unknown() {
        let dimm = Dimm {
            configured: 0,
            speed: 4800,
            mem_type: 0x22,
            ..Dimm::ddr4_3200_16g("DIMM0", "BANK 0")
        };
        let devices = parse_memory_devices(&dimm.bytes(1));
        assert_eq!(devices[0].speed_mts, 4800);
    }

    #[test]
    fn kib_granularity_size() {
        let dimm = Dimm {
            size: 0x8000 | 512,
            ..Dimm::ddr4_3200_16g("DIMM0", "")
        };
        let devices = parse_memory_devices(&dimm.bytes(1));
        assert_eq!(devices[0].size_bytes, 512 << 10);
        assert_eq!(devices[0].bank_locator, "");
    }

    #[test]
    fn short_structure_reads_only_fields_within_length() {
        // SMBIOS 2.3 layout: 0x1B bytes, no configured speed, no extended
        // size. The bytes that follow in the helper's buffer must be ignored.
        let old = Dimm {
            length: 0x1B,
            configured: 1600,
            ..Dimm::ddr4_3200_16g("DIMM0", "BANK 0")
        };
        let devices = parse_memory_devices(&old.bytes(1));
        assert_eq!(devices[0].speed_mts, 3200);
        // Extended speed lies beyond an SMBIOS 2.8 structure (0x28 bytes).
        let v28 = Dimm {
            length: 0x28,
            speed: 0xFFFF,
            ext_speed: 6400,
            configured: 0,
            ..Dimm::ddr4_3200_16g("DIMM0", "BANK 0")
        };
        let devices = parse_memory_devices(&v28.bytes(1));
        assert_eq!(devices[0].speed_mts, 0);
        assert!(peak_from_devices(devices).is_err());
    }

    #[test]
    fn unknown_type_and_data_width() {
        let dimm = Dimm {
            mem_type: 0x7E,
            data_width: 0xFFFF,
            ..Dimm::ddr4_3200_16g("DIMM0", "BANK 0")
        };
        let devices = parse_memory_devices(&dimm.bytes(1));
        assert_eq!(devices[0].memory_type, "type 0x7E");
        assert_eq!(devices[0].data_width_bits, 0);
        let peak = peak_from_devices(devices).unwrap();
        assert_eq!(peak.bytes_per_second, 25.6e9);
        assert!(peak.describe().contains("64 bits assumed"));
    }

    #[test]
    fn memory_type_names() {
        assert_eq!(type_name(0x18), "DDR3");
        assert_eq!(type_name(0x1A), "DDR4");
        assert_eq!(type_name(0x1E), "LPDDR4");
        assert_eq!(type_name(0x22), "DDR5");
        assert_eq!(type_name(0x23), "LPDDR5");
        assert_eq!(type_name(0x15), "type 0x15");
    }

    #[test]
    fn mixed_speeds_and_unknown_speed_described() {
        let fast = Dimm::ddr4_3200_16g("A1", "A").bytes(1);
        let slow = Dimm {
            speed: 2666,
            configured: 2666,
            ..Dimm::ddr4_3200_16g("B1", "B")
        }
        .bytes(2);
        let unknown = Dimm {
            speed: 0,
            configured: 0,
            ..Dimm::ddr4_3200_16g("C1", "C")
        }
        .bytes(3);
        let devices = parse_memory_devices(&table(&[fast, slow, unknown, end_structure()]));
        assert_eq!(devices.len(), 3);
        let peak = peak_from_devices(devices).unwrap();
        assert_eq!(peak.bytes_per_second, (3200e6 + 2666e6) * 8.0);
        let text = peak.describe();
        assert!(
            text.contains("1 DIMM x 3200 MT/s x 8 B + 1 DIMM x 2666 MT/s x 8 B"),
            "{text}"
        );
        assert!(
            text.contains("1 populated device with unknown speed ignored"),
            "{text}"
        );
    }

    #[test]
    fn all_empty_table_is_err() {
        let t = table(&[
            bios_structure(),
            Dimm::empty("DIMM_A1", "A").bytes(1),
            Dimm::empty("DIMM_B1", "B").bytes(2),
            end_structure(),
        ]);
        assert!(parse_memory_devices(&t).is_empty());
        let err = peak_from_devices(parse_memory_devices(&t)).unwrap_err();
        assert!(!err.to_string().contains('\n'));
        assert!(peak_from_devices(Vec::new()).is_err());
    }

    #[test]
    fn stops_at_end_of_table_and_zero_length() {
        let dimm = Dimm::ddr4_3200_16g("X", "Y").bytes(9);
        let after_end = table(&[end_structure(), dimm.clone()]);
        assert!(parse_memory_devices(&after_end).is_empty());
        let mut zero_length = vec![0u8, 0, 0, 0, 0, 0];
        zero_length.extend_from_slice(&dimm);
        assert!(parse_memory_devices(&zero_length).is_empty());
    }

    #[test]
    fn truncated_tables_do_not_panic() {
        let t = two_dimm_table();
        for len in 0..=t.len() {
            let devices = parse_memory_devices(&t[..len]);
            assert!(devices.len() <= 2);
        }
        // Cutting inside the last string-set still yields the device.
        let one = Dimm::ddr4_3200_16g("A1", "A").bytes(1);
        let devices = parse_memory_devices(&one[..one.len() - 1]);
        assert_eq!(devices.len(), 1);
        assert_eq!(devices[0].locator, "A1");
    }

    #[test]
    fn random_bytes_do_not_panic() {
        let mut rng = XorShift64::new(GOLDEN_GAMMA);
        for round in 0..2000 {
            let len = rng.below(512) as usize;
            let mut bytes: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
            // Steer some inputs towards type-17 headers to exercise the decoder.
            if round % 2 == 0 && len >= 2 {
                bytes[0] = TYPE_MEMORY_DEVICE;
                bytes[1] = bytes[1].max(4);
            }
            let devices = parse_memory_devices(&bytes);
            let _ = peak_from_devices(devices).map(|p| p.describe());
        }
    }

    #[test]
    fn table_file_errors_are_clear() {
        let missing = peak_from_table_file(Path::new("/nonexistent/dmi/tables/DMI")).unwrap_err();
        assert!(missing.starts_with("no SMBIOS table"), "{missing}");
        let dir = std::env::temp_dir().join(format!("nodebench-dmi-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let empty = dir.join("empty");
        std::fs::write(&empty, b"").unwrap();
        assert!(peak_from_table_file(&empty).is_err());
        let good = dir.join("good");
        std::fs::write(&good, two_dimm_table()).unwrap();
        let peak = peak_from_table_file(&good).unwrap();
        assert_eq!(peak.bytes_per_second, 51.2e9);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn peak_dram_bandwidth_is_ok_or_one_line_err() {
        match peak_dram_bandwidth() {
            Ok(peak) => assert!(peak.bytes_per_second > 0.0, "{}", peak.describe()),
            Err(reason) => {
                assert!(
                    !reason.to_string().is_empty() && !reason.to_string().contains('\n'),
                    "{reason}"
                );
                if !Path::new(DMI_TABLE_PATH).exists() {
                    assert!(
                        reason.to_string().starts_with("no SMBIOS table"),
                        "{reason}"
                    );
                }
            }
        }
    }
}
