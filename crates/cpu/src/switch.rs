//! `nodebench cpu switch`: the context-switch round trip, as `perf bench
//! sched pipe -T` measures it.
//!
//! * Two threads and two pipes: the first writes a 4-byte token into one
//!   pipe and blocks reading the other; the second reads the token and
//!   writes it back. One round trip is two wake-ups of a blocked thread
//!   (two context switches where both threads share a CPU).
//! * `--loops` round trips are timed together (perf's `--loop`, default
//!   1,000,000); the figures are perf's: the mean time of one round trip
//!   (usecs/op) and round trips per second (ops/sec). Perf's clock also
//!   takes in making and joining its threads; this one starts after 100
//!   untimed round trips, with both threads running.
//! * `--cpus` pins the threads: one CPU takes both (what `taskset -c N perf
//!   bench sched pipe` measures), two one each; by default the scheduler
//!   places them.

use std::io::{PipeReader, PipeWriter, Read, Write};
use std::time::{Duration, Instant};

use nodebench_core::affinity;
use nodebench_core::bench::{BenchError, Benchmark, Cancel, Context, Progress};
use nodebench_core::config::Config;
use nodebench_core::model::{BenchResult, Better, Metric, Unit};
use nodebench_core::names::cpu::{SWITCH, switch};

/// Round trips between two checks of the cancel flag and progress steps.
const CHUNK: u64 = 1024;
/// Untimed round trips before the clock starts.
const WARMUP: u64 = 100;
/// The most round trips one run takes (a day at 100 ns each).
pub const MAX_LOOPS: u64 = 1_000_000_000_000;

/// What `cpu switch` runs.
#[derive(Debug, Clone, PartialEq)]
pub struct SwitchConfig {
    /// Round trips timed.
    pub loops: u64,
    /// No CPU (unpinned), one CPU for both threads, or one each.
    pub cpus: Vec<usize>,
}

impl Default for SwitchConfig {
    /// perf's default: 1,000,000 round trips, threads unpinned.
    fn default() -> Self {
        SwitchConfig {
            loops: 1_000_000,
            cpus: Vec::new(),
        }
    }
}

impl Config for SwitchConfig {
    fn validate(&self) -> Result<(), BenchError> {
        if !(1..=MAX_LOOPS).contains(&self.loops) {
            return Err(BenchError::Invalid(format!(
                "--loops: expected 1..={MAX_LOOPS} round trips, got {}",
                self.loops
            )));
        }
        if self.cpus.len() > 2 {
            return Err(BenchError::Invalid(format!(
                "--cpus: expected one CPU (both threads on it) or two (one each, like 0,1), got {}",
                self.cpus.len()
            )));
        }
        Ok(())
    }
}

impl SwitchConfig {
    /// The CPU of thread `i` (0 the timer, 1 its partner), if pinned.
    fn cpu_of(&self, i: usize) -> Option<usize> {
        self.cpus.get(i).or(self.cpus.first()).copied()
    }

    /// The [`switch::param::CPUS`] value: `unpinned`, `3` or `0,1`.
    fn placement(&self) -> String {
        if self.cpus.is_empty() {
            return switch::UNPINNED.to_string();
        }
        let cpus: Vec<String> = self.cpus.iter().map(usize::to_string).collect();
        cpus.join(",")
    }
}

/// The context-switch round trip benchmark.
#[derive(Debug, Clone, Default)]
pub struct CpuSwitch {
    /// What it runs.
    pub config: SwitchConfig,
}

/// Pins the calling thread to `cpu` where one is given.
fn pin(cpu: Option<usize>) -> Result<(), BenchError> {
    match cpu {
        Some(c) if !affinity::pin_current_thread(c) => Err(BenchError::System(format!(
            "cpu switch: cannot pin a thread to CPU {c}"
        ))),
        _ => Ok(()),
    }
}

/// A pipe's failure, as the one line the run shows.
fn pipe_error(e: std::io::Error) -> BenchError {
    BenchError::System(format!("cpu switch: pipe: {e}"))
}

/// The partner: gives every token back until the timer's pipe closes.
fn echo(mut from: PipeReader, mut to: PipeWriter) -> Result<(), BenchError> {
    let mut token = [0u8; 4];
    loop {
        match from.read_exact(&mut token) {
            Ok(()) => to.write_all(&token).map_err(pipe_error)?,
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => return Ok(()),
            Err(e) => return Err(pipe_error(e)),
        }
    }
}

/// `n` round trips through the partner.
fn round_trips(to: &mut PipeWriter, from: &mut PipeReader, n: u64) -> Result<(), BenchError> {
    let mut token = [0u8; 4];
    for i in 0..n {
        token = (i as u32).to_le_bytes();
        to.write_all(&token).map_err(pipe_error)?;
        from.read_exact(&mut token).map_err(pipe_error)?;
    }
    if u32::from_le_bytes(token) != n.saturating_sub(1) as u32 {
        return Err(BenchError::System(
            "cpu switch: the partner gave back another token".into(),
        ));
    }
    Ok(())
}

/// The timed round trips: their time, or `None` when cancelled first.
fn timed(
    c: &SwitchConfig,
    cancel: &Cancel,
    progress: &dyn Progress,
) -> Result<Option<Duration>, BenchError> {
    let (ping_from, mut ping_to) = std::io::pipe().map_err(pipe_error)?;
    let (mut pong_from, pong_to) = std::io::pipe().map_err(pipe_error)?;
    std::thread::scope(|s| {
        let partner = s.spawn(|| {
            pin(c.cpu_of(1))?;
            echo(ping_from, pong_to)
        });
        // Dropping `ping_to` (on return) ends the partner.
        let timer = s.spawn(move || -> Result<Option<Duration>, BenchError> {
            pin(c.cpu_of(0))?;
            round_trips(&mut ping_to, &mut pong_from, WARMUP)?;
            let start = Instant::now();
            let mut done = 0;
            while done < c.loops {
                if cancel.is_cancelled() {
                    return Ok(None);
                }
                let n = CHUNK.min(c.loops - done);
                round_trips(&mut ping_to, &mut pong_from, n)?;
                done += n;
                progress.advance(n);
            }
            Ok(Some(start.elapsed()))
        });
        let took = timer
            .join()
            .expect("cpu switch: the timing thread panicked");
        let echoed = partner
            .join()
            .expect("cpu switch: the partner thread panicked");
        let took = took?;
        echoed?;
        Ok(took)
    })
}

impl Benchmark for CpuSwitch {
    fn id(&self) -> &'static str {
        SWITCH
    }

    fn validate(&self) -> Result<(), BenchError> {
        self.config.validate()
    }

    fn run(&self, ctx: &mut Context<'_>) -> Result<(), BenchError> {
        self.validate()?;
        let c = &self.config;
        // Made before the round trips: its start is theirs.
        let mut r = BenchResult::new(SWITCH);
        ctx.progress.start("cpu switch", c.loops);
        let took = timed(c, &ctx.cancel, ctx.progress)?;
        ctx.progress.finish();
        let Some(took) = took else {
            return Ok(());
        };
        let seconds = took.as_secs_f64().max(f64::MIN_POSITIVE);
        r.set_param(switch::param::LOOPS, c.loops);
        r.set_param(switch::param::CPUS, c.placement());
        r.metrics.push(Metric::new(
            switch::metric::ROUND_TRIP,
            seconds / c.loops as f64,
            Unit::Seconds,
            Better::Lower,
        ));
        r.metrics.push(Metric::new(
            switch::metric::RATE,
            c.loops as f64 / seconds,
            Unit::OpsPerSecond,
            Better::Higher,
        ));
        ctx.record(r)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nodebench_core::bench::collect;
    use nodebench_core::inventory::Inventory;

    fn run(config: SwitchConfig) -> Result<Vec<BenchResult>, BenchError> {
        collect(&CpuSwitch { config }, &Inventory::default(), Cancel::new())
    }

    #[test]
    fn loops_and_cpus_out_of_range_are_refused_naming_the_flag() {
        assert_eq!(SwitchConfig::default().loops, 1_000_000);
        assert!(SwitchConfig::default().validate().is_ok());
        let none = SwitchConfig {
            loops: 0,
            ..Default::default()
        };
        assert_eq!(
            none.validate().unwrap_err().to_string(),
            "--loops: expected 1..=1000000000000 round trips, got 0"
        );
        let three = SwitchConfig {
            cpus: vec![0, 1, 2],
            ..Default::default()
        };
        assert_eq!(
            three.validate().unwrap_err().to_string(),
            "--cpus: expected one CPU (both threads on it) or two (one each, like 0,1), got 3"
        );
        assert!(matches!(
            run(SwitchConfig {
                loops: 0,
                ..Default::default()
            }),
            Err(BenchError::Invalid(_))
        ));
    }

    #[test]
    fn one_result_whose_round_trip_time_and_rate_agree() {
        let results = run(SwitchConfig {
            loops: 2000,
            cpus: vec![affinity::allowed_cpus()[0]],
        })
        .unwrap();
        assert_eq!(results.len(), 1);
        let r = &results[0];
        assert_eq!(r.benchmark, SWITCH);
        assert_eq!(r.parameters[switch::param::LOOPS], 2000);
        assert_eq!(
            r.parameters[switch::param::CPUS],
            affinity::allowed_cpus()[0].to_string()
        );
        let rt = r.metric(switch::metric::ROUND_TRIP, &[]).unwrap();
        let rate = r.metric(switch::metric::RATE, &[]).unwrap();
        assert_eq!(rt.unit, Unit::Seconds);
        // A round trip is two wake-ups: more than 100 ns, less than 100 ms.
        assert!(rt.value > 1e-7 && rt.value < 0.1, "{}", rt.value);
        assert!((rt.value * rate.value - 1.0).abs() < 1e-9);
        // The result spans the round trips (2000 of them: more than 0.2 ms).
        assert!((r.ended_at - r.started_at).num_microseconds().unwrap() >= 200);
    }

    #[test]
    fn a_cancelled_run_records_nothing_and_ends_the_partner() {
        let cancel = Cancel::new();
        cancel.cancel();
        let results = collect(
            &CpuSwitch {
                config: SwitchConfig::default(),
            },
            &Inventory::default(),
            cancel,
        )
        .unwrap();
        assert!(results.is_empty());
    }

    #[test]
    fn placement_names_the_cpus_or_unpinned() {
        assert_eq!(SwitchConfig::default().placement(), "unpinned");
        let two = SwitchConfig {
            cpus: vec![0, 1],
            ..Default::default()
        };
        assert_eq!(two.placement(), "0,1");
        assert_eq!((two.cpu_of(0), two.cpu_of(1)), (Some(0), Some(1)));
        let one = SwitchConfig {
            cpus: vec![3],
            ..Default::default()
        };
        assert_eq!((one.cpu_of(0), one.cpu_of(1)), (Some(3), Some(3)));
        assert_eq!(SwitchConfig::default().cpu_of(1), None);
    }
}
