//! The portable nodebench binaries of other architectures that `fleet` and
//! `slurm` hand to the hosts (`--binary-dir DIR`): release archives
//! (`nodebench-VERSION-ARCH-linux-gnu.tar.gz`), their unpacked folders, or
//! plain files named `nodebench`. A binary's architecture is read from its
//! ELF header, never from its name.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::bench::BenchError;

/// One binary and the architecture it is for (`uname -m`'s word).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Portable {
    /// `x86_64` or `aarch64`.
    pub arch: String,
    /// Where it is.
    pub path: PathBuf,
}

/// The architecture of an ELF executable as `uname -m` names it, from the
/// header's machine field; `None` for a file that is not a 64-bit
/// little-endian ELF of x86-64 or aarch64.
pub fn elf_arch(path: &Path) -> Option<&'static str> {
    let mut header = [0u8; 20];
    File::open(path).ok()?.read_exact(&mut header).ok()?;
    if !crate::build_info::is_elf64_le(&header) {
        return None;
    }
    match u16::from_le_bytes([header[18], header[19]]) {
        62 => Some("x86_64"),
        183 => Some("aarch64"),
        _ => None,
    }
}

/// The binaries in `dir`: every file named `nodebench` in it or in a
/// folder directly inside it, and the `nodebench` of every
/// `nodebench-*.tar.gz` archive in it, unpacked (with the system's `tar`)
/// into `scratch`, which the caller removes. One per architecture:
/// two different files for one architecture are refused, as is a `dir`
/// with none. Errors are one line naming `--binary-dir`.
pub fn find(dir: &Path, scratch: &Path) -> Result<Vec<Portable>, BenchError> {
    let flag = |m: String| BenchError::Invalid(format!("--binary-dir {}: {m}", dir.display()));
    let entries = std::fs::read_dir(dir).map_err(|e| flag(format!("cannot read it: {e}")))?;
    let mut candidates: Vec<PathBuf> = Vec::new();
    let mut names: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    names.sort();
    for path in names {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if path.is_dir() {
            let inner = path.join("nodebench");
            if inner.is_file() {
                candidates.push(inner);
            }
        } else if name == "nodebench" {
            candidates.push(path);
        } else if name.starts_with("nodebench-") && name.ends_with(".tar.gz") {
            let into = scratch.join(name.trim_end_matches(".tar.gz"));
            std::fs::create_dir_all(&into)
                .map_err(|e| flag(format!("cannot unpack {name}: {e}")))?;
            let out = Command::new("tar")
                .arg("-xzf")
                .arg(&path)
                .arg("-C")
                .arg(&into)
                .output()
                .map_err(|e| flag(format!("cannot run tar to unpack {name}: {e}")))?;
            if !out.status.success() {
                return Err(flag(format!(
                    "cannot unpack {name}: {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                )));
            }
            let found = std::fs::read_dir(&into)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path().join("nodebench"))
                .find(|p| p.is_file())
                .ok_or_else(|| flag(format!("{name} holds no FOLDER/nodebench")))?;
            candidates.push(found);
        }
    }
    let mut by_arch: BTreeMap<&'static str, PathBuf> = BTreeMap::new();
    for path in candidates {
        let arch = elf_arch(&path).ok_or_else(|| {
            flag(format!(
                "{} is not an x86-64 or aarch64 Linux executable",
                path.display()
            ))
        })?;
        if let Some(first) = by_arch.get(arch) {
            let same = std::fs::read(first).ok() == std::fs::read(&path).ok();
            if !same {
                return Err(flag(format!(
                    "two different nodebench binaries for {arch}: {} and {}",
                    first.display(),
                    path.display()
                )));
            }
            continue;
        }
        by_arch.insert(arch, path);
    }
    if by_arch.is_empty() {
        return Err(flag(
            "no nodebench binary in it (expected nodebench-VERSION-ARCH-linux-gnu.tar.gz archives, their folders, or files named nodebench)".into(),
        ));
    }
    Ok(by_arch
        .into_iter()
        .map(|(arch, path)| Portable {
            arch: arch.to_string(),
            path,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal ELF header of `machine` (the rest of the file is filler).
    fn fake_elf(machine: u16, filler: u8) -> Vec<u8> {
        let mut h = vec![0u8; 64];
        h[..4].copy_from_slice(b"\x7fELF");
        h[4] = 2;
        h[5] = 1;
        h[18..20].copy_from_slice(&machine.to_le_bytes());
        h.push(filler);
        h
    }

    fn tempdir(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("nb-portable-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn the_running_test_binary_is_of_its_own_architecture() {
        let exe = std::env::current_exe().unwrap();
        assert_eq!(elf_arch(&exe), Some(std::env::consts::ARCH));
    }

    #[test]
    fn archives_folders_and_files_are_found_by_their_elf_machine() {
        let dir = tempdir("find");
        let scratch = tempdir("find-scratch");
        // An unpacked aarch64 archive folder, and an x86-64 archive.
        let folder = dir.join("nodebench-0.1.0-aarch64-linux-gnu");
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("nodebench"), fake_elf(183, 1)).unwrap();
        let staged = tempdir("find-stage");
        let inner = staged.join("nodebench-0.1.0-x86_64-linux-gnu");
        std::fs::create_dir_all(&inner).unwrap();
        std::fs::write(inner.join("nodebench"), fake_elf(62, 2)).unwrap();
        let status = Command::new("tar")
            .arg("-czf")
            .arg(dir.join("nodebench-0.1.0-x86_64-linux-gnu.tar.gz"))
            .arg("-C")
            .arg(&staged)
            .arg("nodebench-0.1.0-x86_64-linux-gnu")
            .status()
            .unwrap();
        assert!(status.success());
        let found = find(&dir, &scratch).unwrap();
        let archs: Vec<&str> = found.iter().map(|p| p.arch.as_str()).collect();
        assert_eq!(archs, ["aarch64", "x86_64"]);
        assert_eq!(found[0].path, folder.join("nodebench"));
        assert!(found[1].path.starts_with(&scratch), "{:?}", found[1].path);
        assert_eq!(std::fs::read(&found[1].path).unwrap(), fake_elf(62, 2));

        // A second, different aarch64 binary is refused.
        std::fs::write(dir.join("nodebench"), fake_elf(183, 9)).unwrap();
        let err = find(&dir, &scratch).unwrap_err();
        assert!(
            err.to_string().starts_with("--binary-dir ")
                && err
                    .to_string()
                    .contains("two different nodebench binaries for aarch64"),
            "{err}"
        );
        // Something that is not an executable of a known architecture.
        std::fs::write(dir.join("nodebench"), b"#!/bin/sh\n").unwrap();
        let err = find(&dir, &scratch).unwrap_err();
        assert!(
            err.to_string()
                .contains("is not an x86-64 or aarch64 Linux executable"),
            "{err}"
        );
        for d in [&dir, &scratch, &staged] {
            std::fs::remove_dir_all(d).unwrap();
        }
    }

    #[test]
    fn an_empty_or_missing_folder_is_refused_in_one_line() {
        let dir = tempdir("empty");
        let err = find(&dir, &dir).unwrap_err();
        assert!(
            err.to_string().contains("no nodebench binary in it"),
            "{err}"
        );
        assert!(!err.to_string().contains('\n'));
        std::fs::remove_dir_all(&dir).unwrap();
        let err = find(Path::new("/nonexistent/bins"), Path::new("/tmp")).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("--binary-dir /nonexistent/bins: cannot read it"),
            "{err}"
        );
    }
}
