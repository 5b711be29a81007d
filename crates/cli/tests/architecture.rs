//! The workspace's shape, checked on every test run so it stays true:
//! area crates depend on core only (never on each other), no source file
//! outside tests is over 900 lines, and no crate has a module cycle.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The area crates: each may depend on core, never on another of these.
const AREAS: &[&str] = &[
    "nodebench-cpu",
    "nodebench-linpack",
    "nodebench-memory",
    "nodebench-disk",
    "nodebench-net",
    "nodebench-http",
    "nodebench-db",
    "nodebench-scan",
    "nodebench-fleet",
];

/// Longest non-test source file allowed.
const MAX_LINES: usize = 900;

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

#[test]
fn area_crates_depend_on_no_other_area_crate() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--no-deps",
            "--offline",
        ])
        .current_dir(workspace_root())
        .output()
        .expect("run cargo metadata");
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let mut lateral = Vec::new();
    let mut seen_areas = 0;
    for pkg in meta["packages"].as_array().unwrap() {
        let name = pkg["name"].as_str().unwrap();
        if !AREAS.contains(&name) {
            continue;
        }
        seen_areas += 1;
        for dep in pkg["dependencies"].as_array().unwrap() {
            let dep_name = dep["name"].as_str().unwrap();
            // Normal and build dependencies; dev-dependencies are test-only.
            let dev = dep["kind"].as_str() == Some("dev");
            if AREAS.contains(&dep_name) && !dev {
                lateral.push(format!("{name} -> {dep_name}"));
            }
        }
    }
    assert!(
        seen_areas >= 6,
        "found only {seen_areas} area crates in cargo metadata"
    );
    assert!(
        lateral.is_empty(),
        "area crates depend on other area crates: {lateral:?}"
    );
}

/// Every `.rs` file under `dir`, recursively.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// The `src` folders of the workspace's crates.
fn crate_sources() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(workspace_root().join("crates"))
        .unwrap()
        .flatten()
        .map(|e| e.path().join("src"))
        .filter(|p| p.is_dir())
        .collect();
    v.sort();
    v
}

#[test]
fn no_source_file_outside_tests_is_over_900_lines() {
    let mut too_long = Vec::new();
    for src in crate_sources() {
        let mut files = Vec::new();
        rust_files(&src, &mut files);
        for f in files {
            let test_file = f.file_name().is_some_and(|n| n == "tests.rs")
                || f.components().any(|c| c.as_os_str() == "tests");
            let lines = std::fs::read_to_string(&f).unwrap().lines().count();
            if !test_file && lines > MAX_LINES {
                too_long.push(format!("{}: {lines} lines", f.display()));
            }
        }
    }
    assert!(
        too_long.is_empty(),
        "files over {MAX_LINES} lines: {too_long:#?}"
    );
}

/// The module path of a source file relative to its crate's `src`.
fn module_of(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap();
    let mut parts: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if !matches!(stem, "lib" | "main" | "mod") {
        parts.push(stem.to_string());
    }
    parts
}

/// The code of a file before its `#[cfg(test)]` section (test modules may
/// reach anywhere; they are not part of the crate's module graph), without
/// comment lines (a doc link is no dependency).
fn non_test_code(text: &str) -> String {
    let code = match text.find("#[cfg(test)]") {
        Some(i) => &text[..i],
        None => text,
    };
    code.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Paths written as `crate::a::b`, `super::x`, `self::y` (with `{a, b::c}`
/// groups expanded), resolved against `here`, as absolute segment lists.
fn referenced_paths(code: &str, here: &[String]) -> Vec<Vec<String>> {
    let bytes: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let at_word_start = i == 0 || !is_ident(bytes[i - 1]) && bytes[i - 1] != ':';
        let rest: String = bytes[i..bytes.len().min(i + 8)].iter().collect();
        let base: Option<(Vec<String>, usize)> = if !at_word_start {
            None
        } else if rest.starts_with("crate::") {
            Some((Vec::new(), 7))
        } else if rest.starts_with("self::") {
            Some((here.to_vec(), 6))
        } else if rest.starts_with("super::") {
            let mut base = here.to_vec();
            let mut j = i;
            while bytes[j..].iter().take(7).collect::<String>() == "super::" {
                base.pop();
                j += 7;
            }
            Some((base, j - i))
        } else {
            None
        };
        let Some((base, skip)) = base else {
            i += 1;
            continue;
        };
        i += skip;
        collect_tree(&bytes, &mut i, base, &mut out);
    }
    out
}

/// Reads `a::b::{c, d::e}` at `i` onto `prefix`, pushing every full path.
fn collect_tree(b: &[char], i: &mut usize, prefix: Vec<String>, out: &mut Vec<Vec<String>>) {
    let mut path = prefix;
    loop {
        while *i < b.len() && b[*i].is_whitespace() {
            *i += 1;
        }
        if *i < b.len() && b[*i] == '{' {
            *i += 1;
            loop {
                collect_tree(b, i, path.clone(), out);
                while *i < b.len() && b[*i].is_whitespace() {
                    *i += 1;
                }
                match b.get(*i) {
                    Some(',') => *i += 1,
                    Some('}') => {
                        *i += 1;
                        return;
                    }
                    _ => return,
                }
                while *i < b.len() && b[*i].is_whitespace() {
                    *i += 1;
                }
                if b.get(*i) == Some(&'}') {
                    *i += 1;
                    return;
                }
            }
        }
        let start = *i;
        while *i < b.len() && is_ident(b[*i]) {
            *i += 1;
        }
        if *i == start {
            out.push(path);
            return;
        }
        path.push(b[start..*i].iter().collect());
        if b.get(*i) == Some(&':') && b.get(*i + 1) == Some(&':') {
            *i += 2;
        } else {
            out.push(path);
            return;
        }
    }
}

/// Cycles among sibling modules of one crate, each as the module names in
/// order with the files whose references make the edges.
fn module_cycles(src: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    files.retain(|f| {
        f.file_name().is_none_or(|n| n != "tests.rs")
            && !f.components().any(|c| c.as_os_str() == "tests")
    });
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| module_of(src, f)).collect();
    // (common ancestor, from child, to child) -> files making that edge
    let mut edges: BTreeMap<(Vec<String>, String, String), BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let here = module_of(src, f);
        let text = std::fs::read_to_string(f).unwrap();
        for path in referenced_paths(&non_test_code(&text), &here) {
            // The longest prefix of the path that is a module of this crate.
            let target = (0..=path.len())
                .rev()
                .map(|n| path[..n].to_vec())
                .find(|p| modules.contains(p))
                .unwrap_or_default();
            let common = here.iter().zip(&target).take_while(|(a, b)| a == b).count();
            if common == here.len() || common == target.len() {
                continue; // the same module, an ancestor or a descendant
            }
            let rel = f.strip_prefix(src).unwrap().display().to_string();
            edges
                .entry((
                    here[..common].to_vec(),
                    here[common].clone(),
                    target[common].clone(),
                ))
                .or_default()
                .insert(rel);
        }
    }
    let mut graphs: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (parent, from, to) in edges.keys() {
        graphs
            .entry(parent.clone())
            .or_default()
            .entry(from.clone())
            .or_default()
            .insert(to.clone());
    }
    let mut cycles = Vec::new();
    for (parent, graph) in &graphs {
        for start in graph.keys() {
            // A path back to `start` through modules after it in order
            // (each cycle is reported once, from its smallest member).
            let mut stack = vec![(start.clone(), vec![start.clone()])];
            while let Some((node, trail)) = stack.pop() {
                for next in graph.get(&node).into_iter().flatten() {
                    if next == start {
                        let mut why = Vec::new();
                        for w in trail
                            .windows(2)
                            .chain(std::iter::once(&[node.clone(), start.clone()][..]))
                        {
                            let files = &edges[&(parent.clone(), w[0].clone(), w[1].clone())];
                            why.push(format!("{} -> {} ({:?})", w[0], w[1], files));
                        }
                        cycles.push(format!(
                            "{}: in `{}`: {}",
                            src.display(),
                            if parent.is_empty() {
                                "crate".into()
                            } else {
                                parent.join("::")
                            },
                            why.join(", ")
                        ));
                    } else if next > start && !trail.contains(next) {
                        let mut t = trail.clone();
                        t.push(next.clone());
                        stack.push((next.clone(), t));
                    }
                }
            }
        }
    }
    cycles
}

#[test]
fn no_crate_has_a_module_cycle() {
    let cycles: Vec<String> = crate_sources()
        .iter()
        .flat_map(|s| module_cycles(s))
        .collect();
    assert!(cycles.is_empty(), "module cycles: {cycles:#?}");
}

#[test]
fn the_cycle_finder_finds_a_planted_cycle() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir_all(src.join("client")).unwrap();
    std::fs::write(src.join("lib.rs"), "mod load; mod client; mod config;").unwrap();
    std::fs::write(src.join("config.rs"), "pub struct C;").unwrap();
    std::fs::write(
        src.join("load.rs"),
        "use crate::{config::C, client::epoll};\nfn f() { epoll::run() }",
    )
    .unwrap();
    std::fs::write(
        src.join("client/mod.rs"),
        "pub mod epoll; use super::config::C;",
    )
    .unwrap();
    std::fs::write(
        src.join("client/epoll.rs"),
        "use crate::load::Plan; pub fn run() {}",
    )
    .unwrap();
    let cycles = module_cycles(src);
    assert_eq!(cycles.len(), 1, "{cycles:#?}");
    assert!(cycles[0].contains("client -> load") && cycles[0].contains("load -> client"));
    // Parent/child references are not cycles.
    std::fs::write(src.join("client/epoll.rs"), "use super::super::config::C;").unwrap();
    assert!(module_cycles(src).is_empty());
}
