//! Which binary this is: version, git commit, build date, target triple
//! and the oldest glibc it starts on. The binary crate sets what it was
//! built from once at start ([`set`]); the glibc floor is read from the
//! running executable's own ELF version needs, so it is what the loader
//! will ask for, not what a build script assumed.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::OnceLock;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The build a run was made with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct BuildInfo {
    /// Version of the nodebench package.
    pub version: String,
    /// Git commit it was built from, with `-dirty` when the work tree had
    /// changes; absent when built outside a git checkout.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// Build date (UTC, YYYY-MM-DD).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build_date: Option<String>,
    /// Target triple, e.g. `aarch64-unknown-linux-gnu`.
    pub target: String,
    /// The highest `GLIBC_x.y` symbol version the executable needs: the
    /// oldest glibc it starts on. Absent where it needs none (static) or
    /// the executable could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub glibc_floor: Option<String>,
}

impl BuildInfo {
    /// One line for `--version`: `0.1.0 (commit 1a2b3c4d5e6f-dirty, built
    /// 2026-11-27, aarch64-unknown-linux-gnu, glibc >= 2.17)`.
    pub fn line(&self) -> String {
        let mut parts = Vec::new();
        parts.push(format!(
            "commit {}",
            self.commit.as_deref().unwrap_or("unknown")
        ));
        if let Some(d) = &self.build_date {
            parts.push(format!("built {d}"));
        }
        parts.push(self.target.clone());
        match &self.glibc_floor {
            Some(g) => parts.push(format!("glibc >= {g}")),
            None => parts.push("glibc floor unknown".into()),
        }
        format!("{} ({})", self.version, parts.join(", "))
    }
}

static BUILD: OnceLock<BuildInfo> = OnceLock::new();

/// Records what the binary was built from (its build script's figures);
/// the glibc floor is read here from the running executable. Later calls
/// are ignored.
pub fn set(version: &str, commit: Option<&str>, build_date: Option<&str>, target: &str) {
    let _ = BUILD.set(BuildInfo {
        version: version.to_string(),
        commit: commit.filter(|c| !c.is_empty()).map(str::to_string),
        build_date: build_date.filter(|d| !d.is_empty()).map(str::to_string),
        target: target.to_string(),
        glibc_floor: glibc_floor(Path::new("/proc/self/exe")),
    });
}

/// What [`set`] recorded; `None` where the binary did not set it (a test
/// of a library crate).
pub fn current() -> Option<BuildInfo> {
    BUILD.get().cloned()
}

/// The highest `GLIBC_x.y` version an ELF file's dynamic symbols need, as
/// `"2.17"`; `None` for a file with none, or one that is not a readable
/// 64-bit little-endian ELF.
pub fn glibc_floor(path: &Path) -> Option<String> {
    let file = File::open(path).ok()?;
    let read = |offset: u64, len: usize| -> Option<Vec<u8>> {
        let mut buf = vec![0u8; len];
        file.read_exact_at(&mut buf, offset).ok()?;
        Some(buf)
    };
    let needs = verneed_names(&read)?;
    needs
        .iter()
        .filter_map(|n| glibc_version(n))
        .max()
        .map(|(major, minor)| format!("{major}.{minor}"))
}

/// `GLIBC_2.17` as `(2, 17)`; `None` for any other name (`GLIBC_PRIVATE`).
fn glibc_version(name: &str) -> Option<(u32, u32)> {
    let v = name.strip_prefix("GLIBC_")?;
    let mut it = v.split('.');
    let major = it.next()?.parse().ok()?;
    let minor = it.next().unwrap_or("0").parse().ok()?;
    Some((major, minor))
}

/// Whether `header` starts as a 64-bit little-endian ELF file does (the
/// only kind nodebench builds: x86-64 and aarch64).
pub(crate) fn is_elf64_le(header: &[u8]) -> bool {
    header.len() >= 6 && header[..4] == *b"\x7fELF" && header[4] == 2 && header[5] == 1
}

/// ELF section type of the GNU version needs (`.gnu.version_r`).
const SHT_GNU_VERNEED: u32 = 0x6fff_fffe;

/// The version names in an ELF64 little-endian file's version needs,
/// reading through `read(offset, len)`.
fn verneed_names(read: &dyn Fn(u64, usize) -> Option<Vec<u8>>) -> Option<Vec<String>> {
    let header = read(0, 64)?;
    if !is_elf64_le(&header) {
        return None;
    }
    let u16_at = |b: &[u8], o: usize| u16::from_le_bytes([b[o], b[o + 1]]);
    let u32_at = |b: &[u8], o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap());
    let u64_at = |b: &[u8], o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap());
    let shoff = u64_at(&header, 0x28);
    let shentsize = u16_at(&header, 0x3A) as usize;
    let shnum = u16_at(&header, 0x3C) as usize;
    if shentsize < 64 || shnum == 0 || shnum > 4096 {
        return None;
    }
    let sections = read(shoff, shentsize * shnum)?;
    let section = |i: usize| &sections[i * shentsize..(i + 1) * shentsize];
    let verneed = (0..shnum).find(|&i| u32_at(section(i), 4) == SHT_GNU_VERNEED)?;
    let vn = section(verneed);
    let (offset, size, link, count) = (
        u64_at(vn, 24),
        u64_at(vn, 32) as usize,
        u32_at(vn, 40) as usize,
        u32_at(vn, 44) as usize,
    );
    if link >= shnum || size > 1 << 20 {
        return None;
    }
    let strtab = section(link);
    let strings = read(
        u64_at(strtab, 24),
        (u64_at(strtab, 32) as usize).min(1 << 24),
    )?;
    let body = read(offset, size)?;
    let name_at = |o: usize| -> Option<String> {
        let s = strings.get(o..)?;
        let end = s.iter().position(|&b| b == 0)?;
        Some(String::from_utf8_lossy(&s[..end]).into_owned())
    };
    let mut names = Vec::new();
    let mut at = 0usize;
    for _ in 0..count {
        // Elf64_Verneed: version, count (u16 each), file, aux, next (u32 each).
        let entry = body.get(at..at + 16)?;
        let (cnt, aux, next) = (
            u16_at(entry, 2) as usize,
            u32_at(entry, 8) as usize,
            u32_at(entry, 12) as usize,
        );
        let mut a = at + aux;
        for _ in 0..cnt {
            // Elf64_Vernaux: hash (u32), flags, other (u16 each), name, next (u32 each).
            let x = body.get(a..a + 16)?;
            names.push(name_at(u32_at(x, 8) as usize)?);
            let step = u32_at(x, 12) as usize;
            if step == 0 {
                break;
            }
            a += step;
        }
        if next == 0 {
            break;
        }
        at += next;
    }
    Some(names)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glibc_names_order_by_number_not_text() {
        assert_eq!(glibc_version("GLIBC_2.17"), Some((2, 17)));
        assert_eq!(glibc_version("GLIBC_2.2.5"), Some((2, 2)));
        assert_eq!(glibc_version("GLIBC_PRIVATE"), None);
        assert_eq!(glibc_version("GCC_3.0"), None);
        assert!(glibc_version("GLIBC_2.9") < glibc_version("GLIBC_2.17"));
    }

    /// This test binary is dynamically linked against glibc: its floor is
    /// found, and is no newer than the glibc running it.
    #[test]
    fn the_running_executable_has_a_glibc_floor() {
        let floor = glibc_floor(Path::new("/proc/self/exe")).expect("a glibc floor");
        let (major, minor) = glibc_version(&format!("GLIBC_{floor}")).unwrap();
        assert_eq!(major, 2, "{floor}");
        assert!(minor >= 2, "{floor}");
        // SAFETY: gnu_get_libc_version returns a static NUL-terminated string.
        let running = unsafe { std::ffi::CStr::from_ptr(gnu_get_libc_version()) }
            .to_string_lossy()
            .into_owned();
        let have = glibc_version(&format!("GLIBC_{running}")).unwrap();
        assert!((major, minor) <= have, "needs {floor}, runs on {running}");
    }

    unsafe extern "C" {
        fn gnu_get_libc_version() -> *const std::ffi::c_char;
    }

    #[test]
    fn a_file_that_is_not_elf_has_no_floor() {
        let dir = std::env::temp_dir().join(format!("nb-elf-{}", std::process::id()));
        std::fs::write(&dir, b"#!/bin/sh\necho not elf\n").unwrap();
        assert_eq!(glibc_floor(&dir), None);
        std::fs::remove_file(&dir).unwrap();
        assert_eq!(glibc_floor(Path::new("/nonexistent/nodebench")), None);
    }

    #[test]
    fn the_version_line_names_each_part() {
        let b = BuildInfo {
            version: "0.1.0".into(),
            commit: Some("1a2b3c4d5e6f-dirty".into()),
            build_date: Some("2026-11-27".into()),
            target: "aarch64-unknown-linux-gnu".into(),
            glibc_floor: Some("2.17".into()),
        };
        assert_eq!(
            b.line(),
            "0.1.0 (commit 1a2b3c4d5e6f-dirty, built 2026-11-27, aarch64-unknown-linux-gnu, glibc >= 2.17)"
        );
    }
}
