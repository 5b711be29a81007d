//! Fuzzing of every importer with `nodebench_core::fuzz`: random bytes,
//! and every fixture in tests/fixtures (read at test time, so formats
//! added later are covered) with bytes inserted, deleted or replaced,
//! lines dropped, repeated or swapped, and the text cut anywhere, fed to
//! `import` recognising the format and with each `--format`. It must never
//! panic; what it accepts has results with finite figures, and what it
//! refuses says why on one line. A few seconds by default;
//! `NODEBENCH_FUZZ_SECONDS=600` runs each target for ten minutes.

use std::path::{Path, PathBuf};

use nodebench_core::config::Choice;
use nodebench_core::fuzz;
use nodebench_import::{Format, import};
use proptest::prelude::*;
use proptest::test_runner::TestCaseError;

/// Every fixture file, in subdirectories too.
fn fixtures() -> Vec<String> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let mut paths = Vec::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"),
        &mut paths,
    );
    paths.sort();
    paths
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect()
}

/// `text` read as every format and as whatever it is recognised as.
fn check(text: &str) -> Result<(), TestCaseError> {
    let choices = std::iter::once(None).chain(Format::ALL.iter().copied().map(Some));
    for format in choices {
        match import(text, format) {
            Ok(imported) => {
                prop_assert!(!imported.results.is_empty());
                for r in &imported.results {
                    for m in &r.metrics {
                        prop_assert!(m.value.is_finite(), "{} = {}", m.name, m.value);
                    }
                }
            }
            Err(e) => {
                let line = e.to_string();
                prop_assert!(!line.is_empty() && !line.contains('\n'), "{:?}", line);
            }
        }
    }
    Ok(())
}

/// One edit of a text: a byte (0 insert, 1 delete, 2 replace) or a line
/// (3 drop, 4 repeat, 5 swap with the next), at a position taken modulo
/// the length.
type Edit = (usize, u8, u8);

/// `text` with `edits` applied in order, then cut at `cut` (modulo its
/// length) when given.
fn mutate(text: &str, edits: &[Edit], cut: Option<usize>) -> String {
    let mut b = text.as_bytes().to_vec();
    for &(at, byte, kind) in edits {
        if kind >= 3 {
            let mut lines: Vec<Vec<u8>> = b.split(|&c| c == b'\n').map(<[u8]>::to_vec).collect();
            let i = at % lines.len();
            match kind {
                3 => {
                    lines.remove(i);
                }
                4 => lines.insert(i, lines[i].clone()),
                _ if i + 1 < lines.len() => lines.swap(i, i + 1),
                _ => {}
            }
            b = lines.join(&b'\n');
            continue;
        }
        fuzz::apply_one(&mut b, (at, byte, kind));
    }
    if let Some(c) = cut {
        b.truncate(c % (b.len() + 1));
    }
    String::from_utf8_lossy(&b).into_owned()
}

#[test]
fn random_bytes_never_panic() {
    fuzz::run(
        "import_random",
        prop::collection::vec(any::<u8>(), 0..2048),
        |b| check(&String::from_utf8_lossy(&b)),
    );
}

#[test]
fn mutated_fixtures_never_panic() {
    let texts = fixtures();
    assert!(texts.len() >= 10, "the fixtures are there");
    let edits = prop::collection::vec((any::<usize>(), any::<u8>(), 0u8..6), 0..6);
    fuzz::run(
        "import_mutated",
        (0..texts.len(), edits, prop::option::of(any::<usize>())),
        |(k, edits, cut)| check(&mutate(&texts[k], &edits, cut)),
    );
}

#[test]
fn every_fixture_unchanged_imports() {
    // The mutation baseline: with no edit each fixture (but the refused
    // ones) reads back as itself.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() && path.extension().is_some_and(|e| e == "txt") {
            let text = std::fs::read_to_string(&path).unwrap();
            let got = import(&mutate(&text, &[], None), None);
            assert!(got.is_ok(), "{}: {got:?}", path.display());
        }
    }
}
