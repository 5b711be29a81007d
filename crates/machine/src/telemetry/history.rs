//! The sampler's bounded history, kept compact. Each series is named once
//! (its key, numbered in the order first seen) and each interval is one
//! byte string: first the CPU shares as a columnar block (the number of
//! the CPU layout, then per CPU its jiffies in the interval as varints:
//! all of them, then each share's; a share is `part * 100 / total`, so it
//! reads back as the very `f64` [`super::rates`] computes), then the other
//! readings as `(series number, value)` pairs in the [`nodebench_core::packed`]
//! encoding, the number stored as its distance from the one expected next
//! (the readings come in the same order every interval: 0, no byte beyond
//! the value's one-byte header). At 512 CPUs an interval takes about
//! 6.5 kB instead of the 58 kB of `(usize, f64)` pairs it took before.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::hash::{Hash, Hasher};
use std::time::Duration;

use chrono::{DateTime, Utc};

use super::{CPU_SHARES, SeriesKey, Snapshot, cpu_before, cpu_shares, other_readings, proc, share};
use nodebench_core::model::{TimeSeries, Unit};
use nodebench_core::names::telemetry::{SOURCE, SOURCE_TELEMETRY, label};
use nodebench_core::packed;

/// A label's value as a reading has it: a CPU number or a name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LabelRef<'a> {
    /// A CPU number.
    Number(u32),
    /// A device, NIC or sensor name.
    Text(&'a str),
}

/// A series' identity as a reading names it, borrowed from the snapshot:
/// no allocation per reading.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KeyRef<'a> {
    pub name: &'static str,
    pub unit: Unit,
    pub label: Option<(&'static str, LabelRef<'a>)>,
}

impl KeyRef<'_> {
    /// The public form, labels as strings.
    pub(crate) fn series_key(&self) -> SeriesKey {
        SeriesKey {
            name: self.name,
            unit: self.unit,
            labels: self
                .label
                .iter()
                .map(|(k, v)| (*k, label_text(&owned(*v))))
                .collect(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum LabelValue {
    Number(u32),
    Text(Box<str>),
}

fn owned(v: LabelRef<'_>) -> LabelValue {
    match v {
        LabelRef::Number(n) => LabelValue::Number(n),
        LabelRef::Text(s) => LabelValue::Text(s.into()),
    }
}

fn label_text(v: &LabelValue) -> String {
    match v {
        LabelValue::Number(n) => n.to_string(),
        LabelValue::Text(s) => s.to_string(),
    }
}

/// Equal names: names are constants, so the same pointer unless the
/// compiler made two copies.
#[inline]
fn same(a: &'static str, b: &'static str) -> bool {
    std::ptr::eq(a, b) || a == b
}

/// A series' identity as the history keeps it.
#[derive(Debug, Clone)]
struct Key {
    name: &'static str,
    unit: Unit,
    label: Option<(&'static str, LabelValue)>,
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        // The unit follows from the name.
        self.name == other.name && self.label == other.label
    }
}

impl Eq for Key {}

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name.hash(state);
        self.label.hash(state);
    }
}

impl Key {
    fn of(k: &KeyRef<'_>) -> Key {
        Key {
            name: k.name,
            unit: k.unit,
            label: k.label.map(|(l, v)| (l, owned(v))),
        }
    }

    #[inline]
    fn matches(&self, k: &KeyRef<'_>) -> bool {
        same(self.name, k.name)
            && match (&self.label, &k.label) {
                (None, None) => true,
                (Some((a, va)), Some((b, vb))) => {
                    same(a, b)
                        && match (va, vb) {
                            (LabelValue::Number(x), LabelRef::Number(y)) => x == y,
                            (LabelValue::Text(x), LabelRef::Text(y)) => &**x == *y,
                            _ => false,
                        }
                }
                _ => false,
            }
    }

    fn series(&self, points: Vec<(f64, f64)>) -> TimeSeries {
        let mut labels = BTreeMap::new();
        if let Some((l, v)) = &self.label {
            labels.insert(l.to_string(), label_text(v));
        }
        labels.insert(SOURCE.to_string(), SOURCE_TELEMETRY.to_string());
        TimeSeries {
            name: self.name.to_string(),
            unit: self.unit,
            labels,
            points,
        }
    }
}

/// Intervals decoded together by [`History::window`] (bits of a `u32`).
const BLOCK: usize = 32;

/// The readings of one interval, stamped with the time of its end.
struct Sample {
    at: DateTime<Utc>,
    /// Empty when the interval had no readings; else the number of its
    /// [`CpuLayout`] and each CPU's jiffies (varints: all of them, 0 for a
    /// CPU without a share this interval, else then each share's), then
    /// the other readings as `(series number, value)` pairs.
    values: Box<[u8]>,
}

/// The CPUs of /proc/stat, in its order, and the series numbers of each
/// one's shares: the same for every interval until a CPU comes or goes.
struct CpuLayout {
    cpus: Vec<u32>,
    series: Vec<[u32; 6]>,
    /// The series number the other readings are counted from.
    after: usize,
}

/// The last `capacity` intervals' readings of every series, compact; what a
/// [`super::Sampler`] keeps, usable without its thread (tests feed it
/// snapshots of their own).
pub struct History {
    capacity: usize,
    keys: Vec<Key>,
    index: HashMap<Key, usize>,
    samples: VecDeque<Sample>,
    layouts: Vec<CpuLayout>,
    scratch: Vec<u8>,
}

impl History {
    /// A history of at most `capacity` intervals (at least one).
    pub fn new(capacity: usize) -> History {
        History {
            capacity: capacity.max(1),
            keys: Vec::new(),
            index: HashMap::new(),
            samples: VecDeque::new(),
            layouts: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// A history holding `retention` of intervals of `interval`.
    pub fn for_retention(interval: Duration, retention: Duration) -> History {
        let capacity = (retention.as_secs_f64() / interval.as_secs_f64().max(1e-3))
            .ceil()
            .max(1.0) as usize;
        History::new(capacity)
    }

    /// Records the readings of the interval from `prev` to `cur`, `seconds`
    /// long, ending at `at` ([`super::rates`]); the oldest interval goes
    /// when the history is full.
    pub fn record(&mut self, at: DateTime<Utc>, prev: &Snapshot, cur: &Snapshot, seconds: f64) {
        let mut out = std::mem::take(&mut self.scratch);
        out.clear();
        if seconds > 0.0 {
            let layout = self.layout(&cur.stat.cpus);
            packed::put_varint(&mut out, layout as u64);
            for (i, (cpu, now)) in cur.stat.cpus.iter().enumerate() {
                match cpu_before(&prev.stat, i, *cpu).map(|b| cpu_shares(now, b)) {
                    Some((total, parts)) if total > 0 => {
                        packed::put_varint(&mut out, total);
                        for part in parts {
                            packed::put_varint(&mut out, part);
                        }
                    }
                    _ => packed::put_varint(&mut out, 0),
                }
            }
            let mut expected = self.layouts[layout].after;
            let mut last = 0.0;
            other_readings(prev, cur, seconds, &mut |k, v| {
                let i = match self.keys.get(expected) {
                    Some(key) if key.matches(&k) => expected,
                    _ => self.number(&k),
                };
                packed::put_f64(
                    &mut out,
                    packed::zigzag(i as i64 - expected as i64),
                    v,
                    last,
                );
                last = v;
                expected = i + 1;
            });
        }
        if self.samples.len() >= self.capacity {
            self.samples.pop_front();
        }
        self.samples.push_back(Sample {
            at,
            values: out.as_slice().into(),
        });
        self.scratch = out;
    }

    /// The number of the layout of `cpus`: the last one's when they are
    /// the same CPUs, else an earlier one's, else a new one.
    fn layout(&mut self, cpus: &[(u32, proc::CpuTimes)]) -> usize {
        let same = |l: &CpuLayout| {
            l.cpus.len() == cpus.len() && l.cpus.iter().zip(cpus).all(|(a, (b, _))| a == b)
        };
        if let Some(i) = self.layouts.iter().rposition(same) {
            return i;
        }
        let mut series = Vec::with_capacity(cpus.len());
        for &(cpu, _) in cpus {
            let mut numbers = [0u32; 6];
            for (n, name) in numbers.iter_mut().zip(CPU_SHARES) {
                let key = KeyRef {
                    name,
                    unit: Unit::Percent,
                    label: Some((label::CPU, LabelRef::Number(cpu))),
                };
                *n = u32::try_from(self.number(&key)).unwrap_or(u32::MAX);
            }
            series.push(numbers);
        }
        self.layouts.push(CpuLayout {
            cpus: cpus.iter().map(|(c, _)| *c).collect(),
            series,
            after: self.keys.len(),
        });
        self.layouts.len() - 1
    }

    /// The number of series `k`, given one if it is new.
    fn number(&mut self, k: &KeyRef<'_>) -> usize {
        let key = Key::of(k);
        if let Some(&i) = self.index.get(&key) {
            return i;
        }
        let i = self.keys.len();
        self.keys.push(key.clone());
        self.index.insert(key, i);
        i
    }

    /// Intervals held.
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// True before the first interval.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// Series seen so far.
    pub fn series_count(&self) -> usize {
        self.keys.len()
    }

    /// Bytes of packed readings held (the intervals' values, without the
    /// fixed cost of each interval's slot).
    pub fn packed_bytes(&self) -> usize {
        self.samples.iter().map(|s| s.values.len()).sum()
    }

    /// The series of the intervals that overlap `[from, to]`, as
    /// [`super::Sampler::window`] says.
    pub fn window(&self, from: DateTime<Utc>, to: DateTime<Utc>) -> Vec<TimeSeries> {
        let last = self
            .samples
            .iter()
            .position(|s| s.at > to)
            .unwrap_or(self.samples.len());
        let picked = || {
            self.samples
                .iter()
                .take(last + 1)
                .filter(move |s| s.at >= from)
        };
        let count = picked().count();
        let n = self.keys.len();
        let mut points: Vec<Vec<(f64, f64)>> = vec![Vec::new(); n];
        // A block of intervals is decoded into `dense` (a row of BLOCK
        // values per series), then each series takes its row as a run of
        // points: one series after another rather than thousands of them
        // interleaved point by point, which misses the caches at 512 CPUs.
        let mut dense = vec![0.0; n * BLOCK];
        let mut present = vec![0u32; n];
        let mut times = [0.0; BLOCK];
        let mut intervals = picked().peekable();
        while intervals.peek().is_some() {
            let mut b = 0;
            for sample in intervals.by_ref().take(BLOCK) {
                // The interval holding `to` is stamped at `to`.
                times[b] = (sample.at.min(to) - from).num_microseconds().unwrap_or(0) as f64 / 1e6;
                let mut put = |slot: usize, v: f64| {
                    dense[slot * BLOCK + b] = v;
                    present[slot] |= 1 << b;
                };
                self.decode(&sample.values, n, &mut put);
                b += 1;
            }
            let all = if b == BLOCK { u32::MAX } else { (1 << b) - 1 };
            for ((series, mask), values) in points
                .iter_mut()
                .zip(&mut present)
                .zip(dense.chunks_exact(BLOCK))
            {
                if *mask == 0 {
                    continue;
                }
                if series.capacity() == 0 {
                    series.reserve_exact(count);
                }
                if *mask == all {
                    series.extend(times[..b].iter().copied().zip(values[..b].iter().copied()));
                } else {
                    for j in (0..b).filter(|j| *mask & (1 << j) != 0) {
                        series.push((times[j], values[j]));
                    }
                }
                *mask = 0;
            }
        }
        points
            .into_iter()
            .enumerate()
            .filter(|(_, p)| !p.is_empty())
            .map(|(i, p)| self.keys[i].series(p))
            .collect()
    }

    /// Hands each reading of an interval's `bytes` to `put` with its
    /// series number (below `n`); stops at bytes that make no sense.
    fn decode(&self, bytes: &[u8], n: usize, put: &mut impl FnMut(usize, f64)) {
        if bytes.is_empty() {
            return;
        }
        let mut pos = 0;
        let Some(layout) = packed::get_varint(bytes, &mut pos)
            .and_then(|l| self.layouts.get(usize::try_from(l).ok()?))
        else {
            return;
        };
        for numbers in &layout.series {
            let Some(total) = packed::get_varint(bytes, &mut pos) else {
                return;
            };
            if total == 0 {
                continue;
            }
            for &slot in numbers {
                let Some(part) = packed::get_varint(bytes, &mut pos) else {
                    return;
                };
                if (slot as usize) < n {
                    put(slot as usize, share(part, total));
                }
            }
        }
        let (mut expected, mut last) = (layout.after as i64, 0.0);
        while pos < bytes.len() {
            let Some((extra, v)) = packed::get_value(bytes, &mut pos, last) else {
                return;
            };
            let i = expected + packed::unzigzag(extra);
            let Some(slot) = usize::try_from(i).ok().filter(|&i| i < n) else {
                return;
            };
            put(slot, v);
            last = v;
            expected = i + 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::telemetry::rates;
    use crate::telemetry::synthetic::Machine;
    use chrono::TimeZone;
    use nodebench_core::names::telemetry::series;

    fn at(s: i64) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2025, 1, 1, 0, 0, 0).unwrap() + chrono::Duration::seconds(s)
    }

    /// The series of `[from, to]` as the history held them before it was
    /// packed: [`rates`] of each interval, series in the order first seen.
    fn unpacked(
        snapshots: &[Snapshot],
        seconds: &[f64],
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) -> Vec<TimeSeries> {
        let mut keys: Vec<SeriesKey> = Vec::new();
        let mut samples = Vec::new();
        for k in 1..snapshots.len() {
            let mut values = Vec::new();
            for (key, v) in rates(&snapshots[k - 1], &snapshots[k], seconds[k]) {
                let i = keys.iter().position(|x| *x == key).unwrap_or_else(|| {
                    keys.push(key);
                    keys.len() - 1
                });
                values.push((i, v));
            }
            samples.push((at(k as i64), values));
        }
        let last = samples
            .iter()
            .position(|s| s.0 > to)
            .unwrap_or(samples.len());
        let mut points: BTreeMap<usize, Vec<(f64, f64)>> = BTreeMap::new();
        for (t, values) in samples.iter().take(last + 1).filter(|s| s.0 >= from) {
            let t = (*t.min(&to) - from).num_microseconds().unwrap() as f64 / 1e6;
            for &(i, v) in values {
                points.entry(i).or_default().push((t, v));
            }
        }
        points
            .into_iter()
            .map(|(i, points)| {
                let mut labels: BTreeMap<String, String> = keys[i]
                    .labels
                    .iter()
                    .map(|(l, v)| (l.to_string(), v.clone()))
                    .collect();
                labels.insert(SOURCE.into(), SOURCE_TELEMETRY.into());
                TimeSeries {
                    name: keys[i].name.into(),
                    unit: keys[i].unit,
                    labels,
                    points,
                }
            })
            .collect()
    }

    /// A series as name, labels and unit, and its points' bits.
    type Bits = (String, String, Vec<(u64, u64)>);

    fn bits(series: &[TimeSeries]) -> Vec<Bits> {
        series
            .iter()
            .map(|s| {
                (
                    s.name.clone(),
                    format!("{:?} {:?}", s.labels, s.unit),
                    s.points
                        .iter()
                        .map(|(t, v)| (t.to_bits(), v.to_bits()))
                        .collect(),
                )
            })
            .collect()
    }

    #[test]
    fn windows_read_back_what_rates_gave_bit_for_bit() {
        let mut machine = Machine::new(12, 3);
        let mut snapshots = vec![machine.pair().1.clone()];
        for _ in 0..60 {
            machine.step();
            snapshots.push(machine.pair().1.clone());
        }
        let mut seconds = vec![1.0; snapshots.len()];
        // CPU 3 offline for a while, then back.
        for s in &mut snapshots[20..30] {
            s.stat.cpus.retain(|(c, _)| *c != 3);
            s.frequencies.retain(|(c, _)| *c != 3);
        }
        // CPU 5 counts nothing for an interval: no shares.
        snapshots[25].stat.cpus[4].1 = snapshots[24].stat.cpus[4].1;
        // A disk re-created (its counters went back), a NIC new.
        snapshots[35].disks[0].reads = 1;
        snapshots[40..].iter_mut().for_each(|s| {
            s.nics.push(proc::NicCounters {
                nic: "ib0".into(),
                ..Default::default()
            })
        });
        // Odd values: NaN, -0.0, a huge and a tiny one; an interval of 0 s.
        snapshots[45].temperatures[0].1 = f64::NAN;
        snapshots[46].temperatures[1].1 = -0.0;
        snapshots[47].temperatures[2].1 = 1e300;
        snapshots[48].temperatures[3].1 = -1e-300;
        seconds[50] = 0.0;
        seconds[51] = 0.37;

        let mut history = History::new(100);
        for k in 1..snapshots.len() {
            history.record(at(k as i64), &snapshots[k - 1], &snapshots[k], seconds[k]);
        }
        for (from, to) in [(0, 60), (10, 22), (24, 31), (44, 53), (59, 90), (70, 80)] {
            let (from, to) = (at(from), at(to) - chrono::Duration::milliseconds(300));
            let got = history.window(from, to);
            let want = unpacked(&snapshots, &seconds, from, to);
            assert_eq!(bits(&got), bits(&want), "{from} .. {to}");
        }
        let all = history.window(at(0), at(60));
        let user3 = all
            .iter()
            .find(|s| s.name == series::CPU_USER && s.labels["cpu"] == "3")
            .unwrap();
        // Offline in 10 snapshots (11 intervals), and the 0 s interval.
        assert_eq!(user3.points.len(), 60 - 12, "CPU 3's gap");
    }

    #[test]
    fn the_oldest_intervals_go_first() {
        let mut machine = Machine::new(2, 1);
        let mut history = History::new(5);
        for k in 1..=12 {
            machine.step();
            let (prev, cur) = machine.pair();
            history.record(at(k), prev, cur, 1.0);
        }
        assert_eq!(history.len(), 5);
        let window = history.window(at(0), at(100));
        let procs = window
            .iter()
            .find(|s| s.name == series::PROCS_RUNNING)
            .unwrap();
        let times: Vec<f64> = procs.points.iter().map(|p| p.0).collect();
        assert_eq!(times, [8.0, 9.0, 10.0, 11.0, 12.0]);
    }
}
