use std::cell::Cell;
use std::time::Duration;

use super::run::run_timed;
use super::*;
use crate::bench::{Benchmark, Cancel, Context, NoProgress};
use crate::inventory::Inventory;
use crate::model::{Better, Metric, Reference, ResultStatus, Unit};
use crate::names::{cpu, memory};
use crate::stats::Outliers;

fn auto() -> RepeatConfig {
    RepeatConfig {
        mode: Mode::Auto,
        ..RepeatConfig::default()
    }
}

/// Feeds `decide` one repeat at a time, each taking `each`, the widest
/// interval after repeat k being `cis[k - 1]` (the last one again past the
/// end): how many ran and why they stopped.
fn simulate(cfg: &RepeatConfig, cis: &[Option<f64>], each: Duration) -> (u32, Stop) {
    for done in 1..=10_000u32 {
        let ci = cis[(done as usize - 1).min(cis.len() - 1)];
        if let Some(stop) = decide(cfg, done, each * done, ci) {
            return (done, stop);
        }
    }
    panic!("never stopped");
}

const SECOND: Duration = Duration::from_secs(1);

#[test]
fn auto_stops_when_the_interval_reaches_the_target() {
    let cis = [None, Some(0.10), Some(0.05), Some(0.03), Some(0.019)];
    assert_eq!(simulate(&auto(), &cis, SECOND), (5, Stop::Converged));
    // Exactly on the target counts.
    assert_eq!(
        simulate(&auto(), &[None, Some(0.3), Some(0.02)], SECOND),
        (3, Stop::Converged)
    );
}

#[test]
fn auto_that_never_converges_stops_at_max_repeats() {
    assert_eq!(
        simulate(&auto(), &[None, Some(0.074)], SECOND),
        (20, Stop::MaxRepeats)
    );
    let cfg = RepeatConfig {
        max_repeats: 10,
        ..auto()
    };
    assert_eq!(
        simulate(&cfg, &[None, Some(0.074)], SECOND),
        (10, Stop::MaxRepeats)
    );
}

#[test]
fn auto_stops_before_a_repeat_would_end_past_max_time() {
    // 10 s a repeat, 35 s allowed: the 4th would end at 40 s.
    let cfg = RepeatConfig {
        max_time: Duration::from_secs(35),
        ..auto()
    };
    assert_eq!(
        simulate(&cfg, &[None, Some(0.5)], 10 * SECOND),
        (3, Stop::MaxTime)
    );
    // 40 s allowed: the 4th ends on it and runs.
    let cfg = RepeatConfig {
        max_time: Duration::from_secs(40),
        ..auto()
    };
    assert_eq!(
        simulate(&cfg, &[None, Some(0.5)], 10 * SECOND),
        (4, Stop::MaxTime)
    );
}

#[test]
fn min_repeats_run_whatever_the_interval_or_the_time() {
    // Converged after 2, but 3 is the floor; 5 when asked.
    let cis = [None, Some(0.001)];
    assert_eq!(simulate(&auto(), &cis, SECOND), (3, Stop::Converged));
    let cfg = RepeatConfig {
        min_repeats: 5,
        ..auto()
    };
    assert_eq!(simulate(&cfg, &cis, SECOND), (5, Stop::Converged));
    // Each repeat past --max-time: the minimum still runs.
    let cfg = RepeatConfig {
        max_time: SECOND,
        ..auto()
    };
    assert_eq!(
        simulate(&cfg, &[None, Some(0.5)], 60 * SECOND),
        (3, Stop::MaxTime)
    );
    // Nothing to converge on: stop at the minimum.
    assert_eq!(simulate(&auto(), &[None], SECOND), (3, Stop::NoHeadline));
}

#[test]
fn a_count_runs_exactly_that_many() {
    let cfg = RepeatConfig {
        mode: Mode::Times(7),
        ..RepeatConfig::default()
    };
    assert_eq!(
        simulate(&cfg, &[Some(0.0)], 1000 * SECOND),
        (7, Stop::Count)
    );
}

#[test]
fn flags_are_parsed_and_checked_with_one_line_naming_them() {
    assert_eq!("auto".parse::<Mode>(), Ok(Mode::Auto));
    assert_eq!("3".parse::<Mode>(), Ok(Mode::Times(3)));
    for bad in ["0", "-1", "two", "1.5", ""] {
        let e = bad.parse::<Mode>().unwrap_err();
        assert!(e.contains("whole number") && e.contains("auto"), "{e}");
    }
    assert_eq!(parse_fraction("2%"), Ok(0.02));
    assert_eq!(parse_fraction("0.02"), Ok(0.02));
    assert_eq!(parse_fraction(" 0.5 % "), Ok(0.005));
    for bad in ["0", "0%", "100%", "2", "-1%", "x", "%"] {
        let e = parse_fraction(bad).unwrap_err();
        assert!(e.to_string().contains("2% or 0.02"), "{bad}: {e}");
    }
    let check = |cfg: RepeatConfig| match cfg.validate() {
        Err(BenchError::Invalid(m)) => m,
        other => panic!("{other:?}"),
    };
    assert!(RepeatConfig::default().validate().is_ok());
    assert!(
        check(RepeatConfig {
            min_repeats: 1,
            ..auto()
        })
        .starts_with("--min-repeats: ")
    );
    assert!(
        check(RepeatConfig {
            min_repeats: 5,
            max_repeats: 4,
            ..auto()
        })
        .starts_with("--max-repeats: expected --min-repeats (5)")
    );
    assert!(
        check(RepeatConfig {
            target_ci: 0.0,
            ..auto()
        })
        .starts_with("--target-ci: ")
    );
    assert!(
        check(RepeatConfig {
            max_time: Duration::ZERO,
            ..auto()
        })
        .starts_with("--max-time: ")
    );
    assert!(
        check(RepeatConfig {
            mode: Mode::Times(0),
            ..auto()
        })
        .starts_with("--repeat: ")
    );
}

/// A rate result of `cpu.ops` for kernel `kernel`: `rate` at 1 and 2
/// threads (the second twice the first), a reference of 1000.
fn ops(kernel: &str, rate: f64) -> BenchResult {
    let mut r = BenchResult::new(cpu::OPS);
    r.set_param(cpu::param::KERNEL, kernel);
    r.set_param(cpu::param::THREADS, [1, 2]);
    let reference = Some(Reference {
        name: "peak".into(),
        value: 1000.0,
    });
    for (threads, v) in [(1, rate), (2, 2.0 * rate)] {
        r.metrics.push(
            Metric::new(cpu::RATE, v, Unit::OpsPerSecond, Better::Higher)
                .label("threads", threads)
                .with_reference(reference.clone()),
        );
    }
    r
}

#[test]
fn repeats_merge_into_one_result_per_result_with_every_value_kept() {
    let repeats = vec![
        vec![ops("int.scalar", 10.0), ops("int.vector", 100.0)],
        vec![ops("int.scalar", 12.0), ops("int.vector", 90.0)],
        vec![ops("int.scalar", 11.0), ops("int.vector", 200.0)],
    ];
    let merged = merge(&repeats);
    assert_eq!(merged.len(), 2);
    let scalar = &merged[0];
    assert_eq!(scalar.param(cpu::param::KERNEL).unwrap(), "int.scalar");
    let one = scalar.metric(cpu::RATE, &[("threads", "1")]).unwrap();
    assert_eq!(one.value, 11.0);
    let st = one.stats.as_ref().unwrap();
    assert_eq!((st.n, st.values.clone()), (3, vec![10.0, 12.0, 11.0]));
    assert_eq!(one.percent_of_reference, Some(1.1));
    let two = scalar.metric(cpu::RATE, &[("threads", "2")]).unwrap();
    assert_eq!(two.value, 22.0);
    let vector = merged[1].metric(cpu::RATE, &[("threads", "1")]).unwrap();
    assert_eq!(vector.stats.as_ref().unwrap().values, [100.0, 90.0, 200.0]);
    assert_eq!(vector.value, 100.0);
    assert_eq!(merged[0].started_at, repeats[0][0].started_at);
    assert_eq!(merged[1].ended_at, repeats[2][1].ended_at);
}

#[test]
fn a_failed_repeat_fails_the_merged_result_and_its_values_are_left_out() {
    let mut bad = ops("int.scalar", 1e9);
    bad.mark_failed("checksum mismatch");
    let merged = merge(&[
        vec![ops("int.scalar", 10.0)],
        vec![bad],
        vec![ops("int.scalar", 12.0)],
    ]);
    assert_eq!(merged.len(), 1);
    assert_eq!(merged[0].status, ResultStatus::Failed);
    assert_eq!(merged[0].error.as_deref(), Some("checksum mismatch"));
    let m = merged[0].metric(cpu::RATE, &[("threads", "1")]).unwrap();
    assert_eq!(m.stats.as_ref().unwrap().values, [10.0, 12.0]);
}

/// A benchmark recording one STREAM-like result per run, its triad
/// bandwidth the next of `values`.
struct Seq {
    values: Vec<f64>,
    next: Cell<usize>,
}

impl Benchmark for Seq {
    fn id(&self) -> &'static str {
        memory::STREAM
    }
    fn validate(&self) -> Result<(), BenchError> {
        Ok(())
    }
    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        let i = self.next.get();
        self.next.set(i + 1);
        let mut r = BenchResult::new(memory::STREAM);
        for (kernel, scale) in [("copy", 2.0), ("triad", 1.0)] {
            r.metrics.push(
                Metric::new(
                    memory::metric::BANDWIDTH,
                    scale * self.values[i % self.values.len()],
                    Unit::BytesPerSecond,
                    Better::Higher,
                )
                .label("kernel", kernel),
            );
        }
        ctx.record(r)?;
        Ok(())
    }
}

/// Runs `values` through the repeat loop under `cfg`, each repeat taking
/// a second: the recorded results.
fn repeat(values: &[f64], cfg: &RepeatConfig) -> Vec<BenchResult> {
    let bench = Seq {
        values: values.to_vec(),
        next: Cell::new(0),
    };
    let inventory = Inventory::default();
    let mut out: Vec<BenchResult> = Vec::new();
    let mut ctx = Context {
        cancel: Cancel::new(),
        progress: &NoProgress,
        inventory: &inventory,
        sink: &mut out,
    };
    let mut t = Duration::ZERO;
    run_timed(&bench, cfg, &mut ctx, &mut || {
        t += SECOND;
        t
    })
    .unwrap();
    out
}

#[test]
fn a_count_records_one_result_with_its_repeats_and_the_line() {
    let cfg = RepeatConfig {
        mode: Mode::Times(3),
        ..RepeatConfig::default()
    };
    let out = repeat(&[100.0, 104.0, 96.0], &cfg);
    assert_eq!(out.len(), 1);
    let triad = out[0]
        .metric(memory::metric::BANDWIDTH, &[("kernel", "triad")])
        .unwrap();
    assert_eq!(triad.value, 100.0);
    assert_eq!(triad.stats.as_ref().unwrap().values, [100.0, 104.0, 96.0]);
    let o = Outcome::of(&out[0]).unwrap();
    assert_eq!((o.repeats, o.stop), (3, Stop::Count));
    assert_eq!(o.headline.as_deref(), Some("bandwidth{kernel=triad}"));
    // CV 4 %, n 3: t(2) x sqrt(pi/2) x 0.04 / sqrt(3) on the log scale.
    let ci = o.ci.unwrap();
    assert!((0.12..0.13).contains(&ci), "{ci}");
    assert_eq!(
        o.line(),
        format!(
            "repeats: 3 repeats (CI {:.0} %; headline bandwidth{{kernel=triad}}); outliers kept: 0 outside 1.5 IQR, 0 beyond 3 MADs",
            ci * 100.0
        )
    );
}

#[test]
fn auto_records_how_many_repeats_it_took_or_that_it_did_not_converge() {
    // +-2 %, then steady: the interval narrows to 1.7 % at the 6th.
    let values = [100.0, 102.0, 98.0, 100.0, 100.0, 100.0, 100.0, 100.0];
    let out = repeat(&values, &auto());
    let o = Outcome::of(&out[0]).unwrap();
    assert_eq!(o.stop, Stop::Converged);
    assert!(o.ci.unwrap() <= 0.02, "{o:?}");
    assert_eq!(o.repeats, 6, "{o:?}");
    assert!(
        o.line().starts_with(&format!(
            "repeats: converged after {} repeats (CI ",
            o.repeats
        )),
        "{}",
        o.line()
    );
    let triad = out[0]
        .metric(memory::metric::BANDWIDTH, &[("kernel", "triad")])
        .unwrap();
    assert_eq!(triad.stats.as_ref().unwrap().n, o.repeats as usize);
    // Alternating 80 / 120 never narrows to 2 % in 10 repeats.
    let cfg = RepeatConfig {
        max_repeats: 10,
        ..auto()
    };
    let out = repeat(&[80.0, 120.0], &cfg);
    let o = Outcome::of(&out[0]).unwrap();
    assert_eq!((o.repeats, o.stop), (10, Stop::MaxRepeats));
    let line = o.line();
    assert!(
        line.starts_with(&format!(
            "repeats: did not converge (CI {:.0} % after 10 repeats; target 2.0 %, --max-repeats 10 reached",
            o.ci.unwrap() * 100.0
        )),
        "{line}"
    );
    // One outlier, counted by both rules and kept.
    let out = repeat(
        &[100.0, 101.0, 99.0, 100.5, 99.5, 160.0],
        &RepeatConfig {
            mode: Mode::Times(6),
            ..RepeatConfig::default()
        },
    );
    let o = Outcome::of(&out[0]).unwrap();
    assert_eq!(o.outliers, Some(Outliers { iqr: 1, mad: 1 }));
    let triad = out[0]
        .metric(memory::metric::BANDWIDTH, &[("kernel", "triad")])
        .unwrap();
    assert_eq!(triad.stats.as_ref().unwrap().max, 160.0);
}

#[test]
fn once_is_the_benchmark_as_it_is() {
    let out = repeat(&[5.0], &RepeatConfig::default());
    assert_eq!(out.len(), 1);
    assert!(out[0].param(PARAM).is_none());
    assert!(out[0].metrics.iter().all(|m| m.stats.is_none()));
}

/// A warning of one kind in every repeat is printed once, the first
/// repeat's, with how many more repeats had it; warnings of other kinds
/// stay as they were.
#[test]
fn a_warning_every_repeat_gave_is_printed_once_with_its_count() {
    let with = |ws: &[&str]| {
        let mut r = BenchResult::new(cpu::OPS);
        r.warnings = ws.iter().map(|w| w.to_string()).collect();
        r
    };
    let cv = "coefficient of variation over 5 % (noisy machine?)";
    let a = with(&[
        &format!("{cv}: strong threads=1 (10.9 %)"),
        "peak uncertain: x",
    ]);
    let b = with(&[&format!("{cv}: strong threads=4 (11.2 %)")]);
    let c = with(&[&format!("{cv}: weak threads=8 (13.9 %)"), "in cache: y"]);
    let merged = merge::merged_warnings(&[&a, &b, &c]);
    assert_eq!(
        merged,
        vec![
            format!("{cv}: strong threads=1 (10.9 %) [and in 2 more of the 3 repeats]"),
            "peak uncertain: x".to_string(),
            "in cache: y".to_string(),
        ]
    );
    // One repeat: as it was.
    assert_eq!(merge::merged_warnings(&[&a]), a.warnings);
}
