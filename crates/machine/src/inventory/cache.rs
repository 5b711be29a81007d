//! The caches CPU 0 sees (`/sys/devices/system/cpu/cpu*/cache/index*`), with
//! how many instances of each the system has.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use super::sysfs::{numbered_entries, parse_cpu_list, read_number, read_value};
use nodebench_core::inventory::CacheInfo;

/// Parses a sysfs cache size ("32K", "1M", "512") into bytes.
pub(super) fn parse_cache_size(text: &str) -> Option<u64> {
    let t = text.trim();
    let (digits, mult) = match t.chars().last()? {
        'K' | 'k' => (&t[..t.len() - 1], 1u64 << 10),
        'M' | 'm' => (&t[..t.len() - 1], 1u64 << 20),
        'G' | 'g' => (&t[..t.len() - 1], 1u64 << 30),
        _ => (t, 1),
    };
    let n: u64 = digits.trim().parse().ok()?;
    n.checked_mul(mult).filter(|b| *b > 0)
}

/// Number of distinct sharing groups among `shared_cpu_list` texts (one per
/// CPU that has the cache); malformed lists are ignored.
fn count_cache_instances<'a>(lists: impl IntoIterator<Item = &'a str>) -> Option<u32> {
    let groups: BTreeSet<Vec<u32>> = lists
        .into_iter()
        .filter_map(parse_cpu_list)
        .filter(|g| !g.is_empty())
        .collect();
    u32::try_from(groups.len()).ok().filter(|n| *n > 0)
}

/// Sort order of cache kinds within a level: data, instruction, unified.
fn cache_kind_rank(kind: &str) -> u8 {
    match kind {
        "Data" => 0,
        "Instruction" => 1,
        "Unified" => 2,
        _ => 3,
    }
}

/// The caches of the first of `cpu_dirs` (sorted by level, then data,
/// instruction, unified), each with its instance count over all of them.
pub(super) fn collect_caches(cpu_dirs: &[PathBuf]) -> Vec<CacheInfo> {
    // Per (level, kind): the shared_cpu_list of every CPU.
    let mut lists: BTreeMap<(u32, String), Vec<String>> = BTreeMap::new();
    let mut caches: Vec<CacheInfo> = Vec::new();
    for (i, cpu) in cpu_dirs.iter().enumerate() {
        for (_, index) in numbered_entries(&cpu.join("cache"), "index") {
            let Some(level) = read_number::<u32>(index.join("level")) else {
                continue;
            };
            let Some(kind) = read_value(index.join("type")) else {
                continue;
            };
            if let Some(list) = read_value(index.join("shared_cpu_list")) {
                lists.entry((level, kind.clone())).or_default().push(list);
            }
            // Sizes as the first CPU sees them.
            if i == 0 {
                let Some(size_bytes) =
                    read_value(index.join("size")).and_then(|s| parse_cache_size(&s))
                else {
                    continue;
                };
                caches.push(CacheInfo {
                    level,
                    kind,
                    size_bytes,
                    instances: None,
                    line_size_bytes: read_number::<u32>(index.join("coherency_line_size"))
                        .filter(|n| *n > 0),
                });
            }
        }
    }
    for cache in &mut caches {
        cache.instances = lists
            .get(&(cache.level, cache.kind.clone()))
            .and_then(|l| count_cache_instances(l.iter().map(String::as_str)));
    }
    caches.sort_by(|a, b| {
        (a.level, cache_kind_rank(&a.kind)).cmp(&(b.level, cache_kind_rank(&b.kind)))
    });
    caches
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_cache_instances() {
        // Per-core L2 on four CPUs with SMT pairs (0,2) and (1,3).
        assert_eq!(count_cache_instances(["0,2", "1,3", "0,2", "1,3"]), Some(2));
        // One L3 shared by all.
        assert_eq!(count_cache_instances(["0-3", "0-3", "0-3", "0-3"]), Some(1));
        assert_eq!(count_cache_instances(["0-7", "8-15"]), Some(2));
        assert_eq!(count_cache_instances(["garbage"]), None);
        assert_eq!(count_cache_instances([]), None);
    }

    #[test]
    fn parses_cache_sizes() {
        assert_eq!(parse_cache_size("32K\n"), Some(32 * 1024));
        assert_eq!(parse_cache_size("32768K"), Some(32 << 20));
        assert_eq!(parse_cache_size("1M"), Some(1 << 20));
        assert_eq!(parse_cache_size("4096"), Some(4096));
        assert_eq!(parse_cache_size("0K"), None);
        assert_eq!(parse_cache_size(""), None);
        assert_eq!(parse_cache_size("K"), None);
    }
}
