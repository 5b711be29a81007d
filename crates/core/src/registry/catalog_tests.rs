//! The catalog's own consistency: every benchmark once, every metric and
//! label spelled once.
use std::collections::BTreeSet;

use super::*;

#[test]
fn ids_are_unique_and_spec_finds_each() {
    let mut ids = BTreeSet::new();
    for s in all() {
        assert!(ids.insert(s.id), "{} twice", s.id);
        assert!(std::ptr::eq(spec(s.id).unwrap(), s), "{}", s.id);
    }
    assert_eq!(ids.len(), 32);
    assert!(spec("disk.fio").is_none(), "imported, not runnable");
    assert!(spec("memory").is_none());
}

#[test]
fn names_keys_and_values_are_unique_within_a_spec() {
    for s in all() {
        assert!(!s.metrics.is_empty(), "{}", s.id);
        let mut names = BTreeSet::new();
        for m in s.metrics {
            assert!(names.insert(m.name), "{}: metric {} twice", s.id, m.name);
        }
        let mut keys = BTreeSet::new();
        for l in s.labels {
            assert!(keys.insert(l.key), "{}: label {} twice", s.id, l.key);
            let values = l.values.unwrap_or_default();
            let set: BTreeSet<_> = values.iter().collect();
            assert_eq!(set.len(), values.len(), "{} {}: {values:?}", s.id, l.key);
            assert!(l.values.is_none() || !values.is_empty(), "{}", l.key);
            assert!(values.iter().all(|v| !v.is_empty()), "{}", l.key);
        }
    }
}

#[test]
fn names_here_match_the_result_model() {
    // The names a threshold is written with are the ones results carry.
    let s = spec("memory.stream").unwrap();
    assert!(
        s.metrics
            .iter()
            .any(|m| m.name == "bandwidth" && m.unit == Unit::BytesPerSecond)
    );
    let kernel = s.labels.iter().find(|l| l.key == "kernel").unwrap();
    assert!(kernel.values.unwrap().contains(&"triad"));
    let load = spec("http.load").unwrap();
    assert!(load.metrics.iter().any(|m| m.name == "requests_failed"));
    assert!(
        load.labels
            .iter()
            .any(|l| l.key == "percentile" && l.values.is_none())
    );
}
