//! The workspace's architecture rules, checked on the source tree so they
//! stay true as areas are added:
//!
//! * an area crate depends on `nodebench-core` and `nodebench-machine`
//!   (and other low-level crates), never on another area crate; core
//!   depends on no nodebench crate, machine on core and the NVIDIA bindings (`cargo
//!   metadata`);
//! * no Rust source file outside tests is over [`MAX_LINES`] lines;
//! * no module cycle inside a crate: two sibling modules (or the sibling
//!   subtrees two cousins sit in) never use each other, directly or round
//!   a loop. A parent using its children, or a child using its parent's
//!   items through `super::`, is not a cycle.
//!
//! The cycle check reads the sources itself (std only): it maps each file
//! of `crates/*/src` to its module path, blanks comments, strings and
//! `#[cfg(test)]` items, and collects the `crate::`, `super::` and `self::`
//! paths and the `use` trees of each module, each resolved to the longest
//! module it names.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The area crates: each depends on core and machine, never on another
/// area.
const AREA_CRATES: &[&str] = &[
    "nodebench-cpu",
    "nodebench-linpack",
    "nodebench-memory",
    "nodebench-gpu",
    "nodebench-disk",
    "nodebench-net",
    "nodebench-http",
    "nodebench-db",
    "nodebench-scan",
    "nodebench-fleet",
    "nodebench-slurm",
    "nodebench-import",
];

/// Crates with a fixed set of nodebench dependencies (normal or build):
/// core at the bottom with none; the NVIDIA bindings with none; machine
/// (what reads the node) on core and the NVIDIA bindings; import and slurm, which name results through core alone; burnin,
/// generic over `Box<dyn Benchmark>`, recording through the store with
/// machine's sampler (the CLI hands it the area crates' benchmarks).
const FIXED_DEPENDENCIES: &[(&str, &[&str])] = &[
    ("nodebench-core", &[]),
    ("nodebench-nvidia", &[]),
    ("nodebench-machine", &["nodebench-core", "nodebench-nvidia"]),
    ("nodebench-import", &["nodebench-core"]),
    ("nodebench-slurm", &["nodebench-core"]),
    (
        "nodebench-burnin",
        &["nodebench-core", "nodebench-machine", "nodebench-store"],
    ),
];

/// The most lines a Rust source file outside tests may have.
const MAX_LINES: usize = 900;

/// The workspace root, two levels above this crate.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .unwrap()
        .to_path_buf()
}

/// The source directories of the workspace's crates: (crate directory
/// name, `src` path), in name order.
fn crate_sources() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(workspace().join("crates")).unwrap() {
        let dir = entry.unwrap().path();
        let src = dir.join("src");
        if src.is_dir() {
            let name = dir.file_name().unwrap().to_string_lossy().into_owned();
            out.push((name, src));
        }
    }
    out.sort();
    out
}

/// Every `.rs` file under `dir`, recursively, in path order.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// Whether `rel` (a path under a crate's `src`) holds tests only: a file
/// named `tests.rs` or one under a `tests` directory.
fn is_test_file(rel: &Path) -> bool {
    rel.file_name().is_some_and(|n| n == "tests.rs")
        || rel.parent().is_some_and(|p| p.iter().any(|c| c == "tests"))
}

// ---- dependencies -------------------------------------------------------

/// `package depends on dependency (kind)` for each normal or build
/// dependency of an area crate on another area crate in `metadata`.
fn area_dependency_violations(metadata: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for package in metadata["packages"].as_array().unwrap() {
        let name = package["name"].as_str().unwrap();
        if !AREA_CRATES.contains(&name) {
            continue;
        }
        for dep in package["dependencies"].as_array().unwrap() {
            let dep_name = dep["name"].as_str().unwrap();
            let kind = dep["kind"].as_str().unwrap_or("normal");
            if kind != "dev" && AREA_CRATES.contains(&dep_name) {
                out.push(format!("{name} depends on {dep_name} ({kind})"));
            }
        }
    }
    out
}

#[test]
fn area_crates_depend_on_no_other_area_crate() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| env!("CARGO").to_string());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(workspace())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let metadata: Value = serde_json::from_slice(&output.stdout).unwrap();
    let areas: Vec<&str> = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|p| p["name"].as_str())
        .filter(|n| AREA_CRATES.contains(n))
        .collect();
    assert!(
        areas.len() >= 6,
        "cargo metadata lists only these area crates: {areas:?}"
    );
    let violations = area_dependency_violations(&metadata);
    assert!(
        violations.is_empty(),
        "area crates must depend on core, not on each other:\n  {}",
        violations.join("\n  ")
    );
}

/// `package depends on dependency (kind)` for each normal or build
/// nodebench dependency of a [`FIXED_DEPENDENCIES`] crate outside its list.
fn fixed_dependency_violations(metadata: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for package in metadata["packages"].as_array().unwrap() {
        let name = package["name"].as_str().unwrap();
        let Some((_, allowed)) = FIXED_DEPENDENCIES.iter().find(|(n, _)| *n == name) else {
            continue;
        };
        for dep in package["dependencies"].as_array().unwrap() {
            let dep_name = dep["name"].as_str().unwrap();
            let kind = dep["kind"].as_str().unwrap_or("normal");
            if kind != "dev" && dep_name.starts_with("nodebench") && !allowed.contains(&dep_name) {
                out.push(format!("{name} depends on {dep_name} ({kind})"));
            }
        }
    }
    out
}

#[test]
fn fixed_dependency_crates_depend_on_their_list_alone() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| env!("CARGO").to_string());
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(workspace())
        .output()
        .unwrap();
    let metadata: Value = serde_json::from_slice(&output.stdout).unwrap();
    let listed = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| {
            let name = p["name"].as_str().unwrap();
            FIXED_DEPENDENCIES.iter().any(|(n, _)| *n == name)
        })
        .count();
    assert_eq!(
        listed,
        FIXED_DEPENDENCIES.len(),
        "cargo metadata lists them all"
    );
    let violations = fixed_dependency_violations(&metadata);
    assert!(violations.is_empty(), "{}", violations.join("\n"));
    let planted = serde_json::json!({"packages": [
        {"name": "nodebench-import", "dependencies": [
            {"name": "nodebench-core", "kind": null},
            {"name": "nodebench-store", "kind": null}]},
        {"name": "nodebench-burnin", "dependencies": [
            {"name": "nodebench-core", "kind": null},
            {"name": "nodebench-store", "kind": null},
            {"name": "nodebench-cpu", "kind": null}]},
        {"name": "nodebench-machine", "dependencies": [
            {"name": "nodebench-core", "kind": null},
            {"name": "nodebench-memory", "kind": null},
            {"name": "nodebench-machine", "kind": "dev"}]},
        {"name": "nodebench-core", "dependencies": [
            {"name": "nodebench-machine", "kind": "build"}]}]});
    assert_eq!(
        fixed_dependency_violations(&planted),
        vec![
            "nodebench-import depends on nodebench-store (normal)",
            "nodebench-burnin depends on nodebench-cpu (normal)",
            "nodebench-machine depends on nodebench-memory (normal)",
            "nodebench-core depends on nodebench-machine (build)"
        ]
    );
}

#[test]
fn dependency_check_names_each_area_on_area_dependency() {
    let metadata = serde_json::json!({"packages": [
        {"name": "nodebench-linpack", "dependencies": [
            {"name": "nodebench-core", "kind": null},
            {"name": "nodebench-memory", "kind": null},
            {"name": "nodebench-cpu", "kind": "build"},
            {"name": "nodebench-disk", "kind": "dev"},
        ]},
        {"name": "nodebench", "dependencies": [
            {"name": "nodebench-http", "kind": null},
        ]},
        {"name": "nodebench-http", "dependencies": [
            {"name": "nodebench-net", "kind": null},
        ]},
    ]});
    assert_eq!(
        area_dependency_violations(&metadata),
        [
            "nodebench-linpack depends on nodebench-memory (normal)",
            "nodebench-linpack depends on nodebench-cpu (build)",
            "nodebench-http depends on nodebench-net (normal)",
        ]
    );
}

// ---- file sizes ---------------------------------------------------------

/// `crates/x/src/file.rs: N lines` for each non-test source file over
/// [`MAX_LINES`] lines.
fn big_files() -> Vec<String> {
    let root = workspace();
    let mut out = Vec::new();
    for (_, src) in crate_sources() {
        for file in rust_files(&src) {
            if is_test_file(file.strip_prefix(&src).unwrap()) {
                continue;
            }
            let lines = std::fs::read_to_string(&file).unwrap().lines().count();
            if lines > MAX_LINES {
                let rel = file.strip_prefix(&root).unwrap();
                out.push(format!("{}: {lines} lines", rel.display()));
            }
        }
    }
    out
}

#[test]
fn no_source_file_is_over_900_lines() {
    let big = big_files();
    assert!(
        big.is_empty(),
        "source files over {MAX_LINES} lines (tests aside):\n  {}",
        big.join("\n  ")
    );
}

#[test]
fn size_check_sees_every_crate_and_exempts_tests() {
    let crates: Vec<String> = crate_sources().into_iter().map(|(n, _)| n).collect();
    for name in ["core", "cli", "http", "store"] {
        assert!(crates.iter().any(|c| c == name), "{name} in {crates:?}");
    }
    assert!(is_test_file(Path::new("server/tests.rs")));
    assert!(is_test_file(Path::new("tests/helpers.rs")));
    assert!(!is_test_file(Path::new("server/mod.rs")));
    assert!(!is_test_file(Path::new("testsuite.rs")));
}

// ---- module cycles --------------------------------------------------------

/// A module's path from its crate root (empty for the root).
type ModPath = Vec<String>;

/// The module a source file defines, from its path under `src`; `None`
/// for the sources of other crates (`src/bin/`).
fn module_of(rel: &Path) -> Option<ModPath> {
    let mut parts: Vec<String> = rel
        .iter()
        .map(|c| c.to_string_lossy().into_owned())
        .collect();
    if parts.first().is_some_and(|p| p == "bin") {
        return None;
    }
    let file = parts.pop()?;
    let stem = file.strip_suffix(".rs")?;
    match (parts.is_empty(), stem) {
        (true, "lib" | "main") => {}
        (_, "mod") => {}
        _ => parts.push(stem.to_string()),
    }
    Some(parts)
}

/// How many `#` the raw string starting at `c[i]` (`r"`, `r#"`...) has,
/// if one starts there.
fn raw_string_at(c: &[char], i: usize) -> Option<usize> {
    if c[i] != 'r' {
        return None;
    }
    let hashes = c[i + 1..].iter().take_while(|&&h| h == '#').count();
    (c.get(i + 1 + hashes) == Some(&'"')).then_some(hashes)
}

/// `src` with comments, string and character literals replaced by spaces
/// (newlines kept), so that what is left is code.
fn blank_non_code(src: &str) -> String {
    let c: Vec<char> = src.chars().collect();
    let mut out = String::with_capacity(src.len());
    let blank = |out: &mut String, s: &[char]| {
        for &ch in s {
            out.push(if ch == '\n' { '\n' } else { ' ' });
        }
    };
    let is_ident = |ch: char| ch.is_alphanumeric() || ch == '_';
    let mut i = 0;
    while i < c.len() {
        // An identifier character just before, `b` of `br"..."` aside.
        let prev_ident =
            i > 0 && is_ident(c[i - 1]) && !(c[i - 1] == 'b' && (i < 2 || !is_ident(c[i - 2])));
        let start = i;
        if c[i] == '/' && c.get(i + 1) == Some(&'/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if c[i] == '/' && c.get(i + 1) == Some(&'*') {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && c.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && c.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c[i] == '"' {
            i += 1;
            while i < c.len() && c[i] != '"' {
                i += if c[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
        } else if let Some(hashes) = raw_string_at(&c, i).filter(|_| !prev_ident) {
            i += hashes + 2;
            while i < c.len() {
                let closing = c[i + 1..].iter().take_while(|&&h| h == '#').count() >= hashes;
                i += 1;
                if c[i - 1] == '"' && closing {
                    i += hashes;
                    break;
                }
            }
        } else if c[i] == '\'' && c.get(i + 1) == Some(&'\\') {
            i += 3;
            while i < c.len() && c[i] != '\'' {
                i += 1;
            }
            i += 1;
        } else if c[i] == '\'' && c.get(i + 2) == Some(&'\'') {
            i += 3;
        } else {
            out.push(c[i]);
            i += 1;
            continue;
        }
        let end = i.min(c.len());
        blank(&mut out, &c[start..end]);
        i = end;
    }
    out
}

/// `code` (already without comments and strings) with each item marked
/// `#[cfg(test)]` blanked; returns it with the names of the file modules
/// so marked (`#[cfg(test)] mod tests;`).
fn blank_test_items(code: &str) -> (String, Vec<String>) {
    const MARK: &str = "#[cfg(test)]";
    let mut out: Vec<char> = code.chars().collect();
    let mut test_mods = Vec::new();
    let text: Vec<char> = out.clone();
    let mark: Vec<char> = MARK.chars().collect();
    let mut i = 0;
    while i + mark.len() <= text.len() {
        if text[i..i + mark.len()] != mark[..] {
            i += 1;
            continue;
        }
        let start = i;
        let mut j = i + mark.len();
        let mut depth = 0usize;
        while j < text.len() {
            match text[j] {
                '{' | '(' | '[' => depth += 1,
                ')' | ']' => depth = depth.saturating_sub(1),
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        break;
                    }
                }
                ';' if depth == 0 => break,
                _ => {}
            }
            j += 1;
        }
        let end = (j + 1).min(text.len());
        let item: String = text[start + mark.len()..end].iter().collect();
        let words: Vec<&str> = item
            .split(|ch: char| !(ch.is_alphanumeric() || ch == '_' || ch == ';'))
            .filter(|w| !w.is_empty())
            .collect();
        if let Some(pos) = words.iter().position(|w| *w == "mod")
            && let Some(name) = words.get(pos + 1).and_then(|n| n.strip_suffix(';'))
        {
            test_mods.push(name.to_string());
        }
        for ch in &mut out[start..end] {
            if *ch != '\n' {
                *ch = ' ';
            }
        }
        i = end;
    }
    (out.into_iter().collect(), test_mods)
}

/// Splits code into identifiers, `::`, and single punctuation characters.
fn tokens(code: &str) -> Vec<String> {
    let c: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < c.len() {
        if c[i].is_alphanumeric() || c[i] == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            out.push(c[start..i].iter().collect());
        } else if c[i] == ':' && c.get(i + 1) == Some(&':') {
            out.push("::".to_string());
            i += 2;
        } else {
            if !c[i].is_whitespace() {
                out.push(c[i].to_string());
            }
            i += 1;
        }
    }
    out
}

/// Whether `t` is an identifier (or keyword).
fn is_ident(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|ch| ch.is_alphabetic() || ch == '_')
}

/// Expands the use tree at `t[*i..]` (after `use`) into full paths.
fn use_tree(t: &[String], i: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
    let mut path = prefix.to_vec();
    while let Some(tok) = t.get(*i) {
        match tok.as_str() {
            "{" => {
                *i += 1;
                while let Some(tok) = t.get(*i) {
                    match tok.as_str() {
                        "}" => {
                            *i += 1;
                            return;
                        }
                        "," => *i += 1,
                        ";" => return,
                        _ => {
                            let before = *i;
                            use_tree(t, i, &path, out);
                            if *i == before {
                                *i += 1;
                            }
                        }
                    }
                }
                return;
            }
            "::" => {
                if path.is_empty() {
                    // `use ::name`: another crate.
                    path.push("::".to_string());
                }
                *i += 1;
            }
            "*" => {
                *i += 1;
                out.push(path);
                return;
            }
            tok if is_ident(tok) => {
                path.push(tok.to_string());
                *i += 1;
                if t.get(*i).map(String::as_str) == Some("::") {
                    continue;
                }
                if t.get(*i).map(String::as_str) == Some("as") {
                    *i += 2;
                }
                out.push(path);
                return;
            }
            _ => {
                if path.len() > prefix.len() {
                    out.push(path);
                }
                return;
            }
        }
    }
}

/// Every module path `code` names: the expanded `use` trees, and the paths
/// that start with `crate`, `super` or `self` elsewhere (`$crate` in macros
/// aside). A `self` past the first segment (`use a::{self, B}`) is dropped.
fn named_paths(code: &str) -> Vec<Vec<String>> {
    let mut paths = all_named_paths(code);
    for p in &mut paths {
        let mut first = true;
        p.retain(|s| std::mem::take(&mut first) || s != "self");
    }
    paths
}

/// [`named_paths`] as written.
fn all_named_paths(code: &str) -> Vec<Vec<String>> {
    let t = tokens(code);
    let mut out = Vec::new();
    let mut i = 0;
    while i < t.len() {
        let after_path = i > 0 && matches!(t[i - 1].as_str(), "::" | "$");
        if t[i] == "use" && !after_path {
            i += 1;
            use_tree(&t, &mut i, &[], &mut out);
            continue;
        }
        if matches!(t[i].as_str(), "crate" | "super" | "self")
            && !after_path
            && t.get(i + 1).map(String::as_str) == Some("::")
        {
            let mut path = vec![t[i].clone()];
            let mut j = i + 1;
            while t.get(j).map(String::as_str) == Some("::")
                && t.get(j + 1).is_some_and(|s| is_ident(s))
            {
                path.push(t[j + 1].clone());
                j += 2;
            }
            out.push(path);
            i = j;
            continue;
        }
        i += 1;
    }
    out
}

/// The module of the crate that `path`, named in module `from`, points
/// into: the longest known module it names. `None` for other crates and
/// for names imported from elsewhere.
fn resolve(from: &ModPath, path: &[String], known: &BTreeSet<ModPath>) -> Option<ModPath> {
    let mut segs = path.iter();
    let first = segs.next()?;
    let mut base: ModPath = match first.as_str() {
        "crate" => Vec::new(),
        "self" => from.clone(),
        "super" => from[..from.len().checked_sub(1)?].to_vec(),
        "::" => return None,
        name => {
            // A `use` path relative to the current module (a child).
            let mut child = from.clone();
            child.push(name.to_string());
            if !known.contains(&child) {
                return None;
            }
            child
        }
    };
    let mut rest = segs.peekable();
    while rest.peek().is_some_and(|s| s.as_str() == "super") {
        rest.next();
        base.pop()?;
    }
    for seg in rest {
        let mut next = base.clone();
        next.push(seg.clone());
        if !known.contains(&next) {
            break;
        }
        base = next;
    }
    Some(base)
}

/// For each common ancestor (by module path), the edges between its
/// children: (child on the using side, child on the used side) -> the
/// paths each file names across it.
type SiblingGraphs =
    BTreeMap<ModPath, BTreeMap<(String, String), BTreeMap<String, BTreeSet<String>>>>;

/// The sibling graphs of one crate, from its sources (path under `src`,
/// text).
fn sibling_graphs(files: &[(PathBuf, String)]) -> SiblingGraphs {
    let mut known = BTreeSet::new();
    let mut parsed = Vec::new();
    let mut test_modules = BTreeSet::new();
    for (rel, text) in files {
        let Some(module) = module_of(rel) else {
            continue;
        };
        if is_test_file(rel) {
            continue;
        }
        let (code, tests) = blank_test_items(&blank_non_code(text));
        for name in tests {
            let mut m = module.clone();
            m.push(name);
            test_modules.insert(m);
        }
        for n in 0..=module.len() {
            known.insert(module[..n].to_vec());
        }
        parsed.push((rel, module, code));
    }
    let mut graphs = SiblingGraphs::new();
    for (rel, from, code) in parsed {
        if test_modules.iter().any(|t| from.starts_with(t)) {
            continue;
        }
        for path in named_paths(&code) {
            let Some(to) = resolve(&from, &path, &known) else {
                continue;
            };
            if from.starts_with(&to) || to.starts_with(&from) {
                continue;
            }
            let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
            let edge = (from[common].clone(), to[common].clone());
            graphs
                .entry(from[..common].to_vec())
                .or_default()
                .entry(edge)
                .or_default()
                .entry(rel.display().to_string())
                .or_default()
                .insert(path.join("::"));
        }
    }
    graphs
}

/// The cycles of each sibling graph, one line per cycle and one per edge
/// in it naming the files, for crate `name`.
fn cycles(name: &str, graphs: &SiblingGraphs) -> Vec<String> {
    let mut out = Vec::new();
    for (parent, edges) in graphs {
        let nodes: BTreeSet<&String> = edges.keys().flat_map(|(a, b)| [a, b]).collect();
        let reach = |from: &String| -> BTreeSet<&String> {
            let mut seen = BTreeSet::new();
            let mut stack = vec![from];
            while let Some(n) = stack.pop() {
                for (a, b) in edges.keys() {
                    if a == n && seen.insert(b) {
                        stack.push(b);
                    }
                }
            }
            seen
        };
        let reaches: BTreeMap<&String, BTreeSet<&String>> =
            nodes.iter().map(|n| (*n, reach(n))).collect();
        let mut done = BTreeSet::new();
        for n in &nodes {
            if done.contains(n) || !reaches[n].contains(n) {
                continue;
            }
            let component: BTreeSet<&String> = nodes
                .iter()
                .copied()
                .filter(|m| reaches[n].contains(m) && reaches[m].contains(n))
                .collect();
            done.extend(component.iter().copied());
            let under = if parent.is_empty() {
                "the crate root".to_string()
            } else {
                parent.join("::")
            };
            let members: Vec<&str> = component.iter().map(|s| s.as_str()).collect();
            let mut text = format!(
                "{name}: modules under {under} use each other: {}",
                members.join(", ")
            );
            for ((a, b), uses) in edges {
                if component.contains(a) && component.contains(b) {
                    let files: Vec<String> = uses
                        .iter()
                        .map(|(file, paths)| {
                            let paths: Vec<&str> = paths.iter().map(String::as_str).collect();
                            format!("src/{file} ({})", paths.join(", "))
                        })
                        .collect();
                    let _ = write!(text, "\n    {a} -> {b}: {}", files.join(", "));
                }
            }
            out.push(text);
        }
    }
    out
}

/// The module cycles of every crate of the workspace.
fn workspace_cycles() -> Vec<String> {
    let mut out = Vec::new();
    for (name, src) in crate_sources() {
        let files: Vec<(PathBuf, String)> = rust_files(&src)
            .into_iter()
            .map(|f| {
                let text = std::fs::read_to_string(&f).unwrap();
                (f.strip_prefix(&src).unwrap().to_path_buf(), text)
            })
            .collect();
        out.extend(cycles(&name, &sibling_graphs(&files)));
    }
    out
}

#[test]
fn no_module_cycles_inside_a_crate() {
    let found = workspace_cycles();
    assert!(
        found.is_empty(),
        "module cycles (config and errors at the bottom, engines above, the \
         benchmark on top; a module must not use a sibling that uses it back):\n  {}",
        found.join("\n  ")
    );
}

/// A crate made of `files` (path under `src`, text), checked for cycles.
fn cycles_of(files: &[(&str, &str)]) -> Vec<String> {
    let files: Vec<(PathBuf, String)> = files
        .iter()
        .map(|(p, t)| (PathBuf::from(p), t.to_string()))
        .collect();
    cycles("demo", &sibling_graphs(&files))
}

#[test]
fn cycle_check_finds_siblings_that_use_each_other() {
    let found = cycles_of(&[
        ("lib.rs", "mod load;\nmod client;\nmod config;\n"),
        (
            "load.rs",
            "use crate::config::Config;\npub fn run() { crate::client::start(); }\n",
        ),
        ("client/mod.rs", "mod epoll;\npub use epoll::start;\n"),
        (
            "client/epoll.rs",
            "use super::super::load::{self, LoadError};\npub fn start() {}\n",
        ),
        ("config.rs", "pub struct Config;\n"),
    ]);
    assert_eq!(
        found,
        [
            "demo: modules under the crate root use each other: client, load\n    \
          client -> load: src/client/epoll.rs (super::super::load, super::super::load::LoadError)\n    \
          load -> client: src/load.rs (crate::client::start)"
        ]
    );
}

#[test]
fn cycle_check_finds_loops_of_three_and_cousins() {
    let found = cycles_of(&[
        ("lib.rs", "pub mod a;\npub mod b;\npub mod c;\n"),
        ("a.rs", "use crate::b::X;\n"),
        ("b.rs", "fn f() { self::g(); crate::c::h(); }\n"),
        ("c/mod.rs", "mod deep;\n"),
        ("c/deep.rs", "use crate::{a::Y, c::deep};\n"),
    ]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("demo: modules under the crate root use each other: a, b, c\n"),
        "{}",
        found[0]
    );
    assert!(found[0].contains("c -> a: src/c/deep.rs (crate::a::Y)"));
}

#[test]
fn cycle_check_ignores_parents_children_tests_comments_and_strings() {
    let found = cycles_of(&[
        ("lib.rs", "mod a;\nmod b;\nuse a::X;\nuse b::Y;\n"),
        (
            "a/mod.rs",
            "mod inner;\nuse self::inner::Z;\nuse crate::b::Y;\npub struct X;\n",
        ),
        (
            "a/inner.rs",
            "use super::X;\nuse crate::a::X as W;\npub struct Z;\n",
        ),
        (
            "b.rs",
            "//! Unlike [`crate::a::X`], ...\n\
             pub struct Y;\n\
             const S: &str = \"crate::a::X\";\n\
             const R: &str = r#\"1 \" crate::a::X\"#;\n\
             const C: char = '\"';\n\
             fn f<'a>(x: &'a str) -> &'a str { /* crate::a::X */ x }\n\
             #[cfg(test)]\nmod tests {\n    use crate::a::X;\n    fn g() { let _ = '}'; }\n}\n\
             #[cfg(test)]\nmod helpers;\n",
        ),
        ("b/helpers.rs", "use crate::a::X;\n"),
        ("a/tests.rs", "use crate::b::Y;\n"),
    ]);
    assert_eq!(found, Vec::<String>::new());
}

#[test]
fn module_paths_follow_the_file_layout() {
    let m = |p: &str| module_of(Path::new(p));
    assert_eq!(m("lib.rs"), Some(vec![]));
    assert_eq!(m("main.rs"), Some(vec![]));
    assert_eq!(m("load.rs"), Some(vec!["load".to_string()]));
    assert_eq!(m("client/mod.rs"), Some(vec!["client".to_string()]));
    assert_eq!(
        m("client/epoll.rs"),
        Some(vec!["client".to_string(), "epoll".to_string()])
    );
    assert_eq!(m("bin/tool.rs"), None);
}
