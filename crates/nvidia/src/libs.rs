//! Finding NVIDIA's libraries at run time, so one binary serves machines
//! with and without them: the driver's (`libcuda.so.1`,
//! `libnvidia-ml.so.1`) and the toolkit's (NVRTC, cuBLAS), wherever an
//! installation keeps them.
//!
//! The order: the directories of `NODEBENCH_CUDA_LIB_DIRS` (colon-separated)
//! alone when it is set; else the dynamic loader's own path (the bare
//! name), then `$CUDA_HOME`, `$CUDA_PATH`, `/usr/local/cuda` and every
//! `/usr/local/cuda-*` (their `lib64` and `targets/ARCH-linux/lib`), then the
//! `nvidia/*/lib` folders of Python's site-packages (pip's CUDA wheels).

use std::mem::ManuallyDrop;
use std::path::{Path, PathBuf};

use libloading::Library;

use crate::Error;

/// The variable that replaces the search with its directories.
pub const LIB_DIRS_ENV: &str = "NODEBENCH_CUDA_LIB_DIRS";

/// A loaded library, never unloaded (the CUDA libraries keep threads and
/// callbacks that must not outlive their code).
pub struct Loaded {
    pub lib: ManuallyDrop<Library>,
    /// What was opened: a path, or a name the loader resolved.
    pub path: String,
}

impl Loaded {
    /// The symbol `name` as a value of type `T`.
    ///
    /// # Safety
    /// `T` must be the symbol's true type.
    pub unsafe fn symbol<T: Copy>(&self, name: &str) -> Result<T, Error> {
        // SAFETY: per the caller.
        unsafe { self.lib.get::<T>(name.as_bytes()) }
            .map(|s| *s)
            .map_err(|_| Error::Missing(format!("{} has no {name}", self.path)))
    }
}

/// The directories searched, in order; `None` stands for the loader's own
/// path (a bare name).
pub fn search_dirs() -> Vec<Option<PathBuf>> {
    search_dirs_from(
        std::env::var(LIB_DIRS_ENV).ok().as_deref(),
        &[
            std::env::var("CUDA_HOME").ok(),
            std::env::var("CUDA_PATH").ok(),
        ],
        Path::new("/"),
    )
}

/// [`search_dirs`] from the variables' values and a root (`/` but in tests).
pub fn search_dirs_from(
    override_dirs: Option<&str>,
    homes: &[Option<String>],
    root: &Path,
) -> Vec<Option<PathBuf>> {
    if let Some(dirs) = override_dirs {
        return dirs
            .split(':')
            .filter(|d| !d.is_empty())
            .map(|d| Some(PathBuf::from(d)))
            .collect();
    }
    let arch = std::env::consts::ARCH;
    let mut out: Vec<Option<PathBuf>> = vec![None];
    let mut cuda_homes: Vec<PathBuf> = homes.iter().flatten().map(PathBuf::from).collect();
    cuda_homes.push(root.join("usr/local/cuda"));
    let mut versioned = subdirs(&root.join("usr/local"), |n| n.starts_with("cuda-"));
    versioned.sort();
    versioned.reverse();
    cuda_homes.extend(versioned);
    for home in cuda_homes {
        for sub in ["lib64", "lib", &format!("targets/{arch}-linux/lib")] {
            out.push(Some(home.join(sub)));
        }
    }
    for site in site_packages(root) {
        let mut libs: Vec<PathBuf> = subdirs(&site.join("nvidia"), |_| true)
            .into_iter()
            .map(|d| d.join("lib"))
            .filter(|d| d.is_dir())
            .collect();
        libs.sort();
        out.extend(libs.into_iter().map(Some));
    }
    let mut seen = std::collections::HashSet::new();
    out.retain(|d| seen.insert(d.clone()));
    out
}

/// Python's site-packages and dist-packages directories under `root`.
fn site_packages(root: &Path) -> Vec<PathBuf> {
    let mut bases = vec![
        root.join("usr/lib"),
        root.join("usr/local/lib"),
        root.join("usr/lib64"),
    ];
    if let Ok(home) = std::env::var("HOME") {
        bases.push(root.join(home.trim_start_matches('/')).join(".local/lib"));
    }
    if let Ok(venv) = std::env::var("VIRTUAL_ENV") {
        bases.push(root.join(venv.trim_start_matches('/')).join("lib"));
    }
    let mut out = Vec::new();
    for base in bases {
        let mut pythons = subdirs(&base, |n| n.starts_with("python3"));
        pythons.sort();
        for py in pythons {
            for kind in ["site-packages", "dist-packages"] {
                let d = py.join(kind);
                if d.is_dir() {
                    out.push(d);
                }
            }
        }
    }
    out
}

/// The subdirectories of `dir` whose names pass `keep`.
fn subdirs(dir: &Path, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| e.path().is_dir() && keep(&e.file_name().to_string_lossy()))
        .map(|e| e.path())
        .collect()
}

/// Opens the first of `names` found in [`search_dirs`]; the error says
/// what was looked for ("libcuda.so.1 not found").
pub fn open(names: &[&str]) -> Result<Loaded, Error> {
    open_in(&search_dirs(), names)
}

/// [`open`] over given directories.
pub fn open_in(dirs: &[Option<PathBuf>], names: &[&str]) -> Result<Loaded, Error> {
    let mut errors = Vec::new();
    for dir in dirs {
        for name in names {
            let path = match dir {
                Some(d) => {
                    let p = d.join(name);
                    if !p.exists() {
                        continue;
                    }
                    p.to_string_lossy().into_owned()
                }
                None => name.to_string(),
            };
            // SAFETY: loading an NVIDIA library runs its initialisers, which
            // touch nothing of ours.
            match unsafe { Library::new(&path) } {
                Ok(lib) => {
                    return Ok(Loaded {
                        lib: ManuallyDrop::new(lib),
                        path,
                    });
                }
                Err(e) if dir.is_some() => errors.push(format!("{path}: {e}")),
                Err(_) => {}
            }
        }
    }
    let what = names.first().copied().unwrap_or("library");
    if errors.is_empty() {
        Err(Error::Missing(format!("{what} not found")))
    } else {
        Err(Error::Missing(format!(
            "{what} would not load ({})",
            errors.join("; ")
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_override_replaces_the_search() {
        let dirs = search_dirs_from(Some("/a:/b::"), &[Some("/cuda".into())], Path::new("/"));
        assert_eq!(dirs, vec![Some("/a".into()), Some("/b".into())]);
    }

    #[test]
    fn homes_versioned_toolkits_and_wheels_are_searched_in_order() {
        let root = std::env::temp_dir().join(format!("nb-cuda-dirs-{}", std::process::id()));
        let arch = std::env::consts::ARCH;
        for d in [
            "usr/local/cuda-12.4".to_string(),
            "usr/local/cuda-13.0".to_string(),
            "usr/lib/python3.12/site-packages/nvidia/cublas/lib".to_string(),
            "usr/lib/python3.12/site-packages/nvidia/cuda_nvrtc/lib".to_string(),
            "usr/lib/python3.12/site-packages/nvidia/nothing_here".to_string(),
        ] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        let dirs = search_dirs_from(None, &[Some("/opt/cuda".into()), None], &root);
        let shown: Vec<String> = dirs
            .iter()
            .map(|d| match d {
                None => "<loader>".to_string(),
                Some(p) => p
                    .strip_prefix(&root)
                    .map(|r| r.display().to_string())
                    .unwrap_or_else(|_| p.display().to_string()),
            })
            .collect();
        assert_eq!(shown[0], "<loader>");
        assert_eq!(shown[1], "/opt/cuda/lib64");
        assert_eq!(shown[3], format!("/opt/cuda/targets/{arch}-linux/lib"));
        assert_eq!(shown[4], "usr/local/cuda/lib64");
        // The newest versioned toolkit first.
        assert_eq!(shown[7], "usr/local/cuda-13.0/lib64");
        assert_eq!(shown[10], "usr/local/cuda-12.4/lib64");
        assert_eq!(
            &shown[13..],
            [
                "usr/lib/python3.12/site-packages/nvidia/cublas/lib",
                "usr/lib/python3.12/site-packages/nvidia/cuda_nvrtc/lib"
            ]
        );
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn a_missing_library_says_which() {
        let e = open_in(
            &[None, Some("/nonexistent".into())],
            &["libnodebench-none.so.1"],
        )
        .err()
        .unwrap();
        assert_eq!(e, Error::Missing("libnodebench-none.so.1 not found".into()));
    }
}
