//! The accounting on recorded counter pairs: /proc/stat lines of this
//! 2-vCPU guest (USER_HZ 100) a second apart, with and without a busy loop.

use super::account::{Counters, account, judge};
use crate::procs::{ProcStat, Snapshot};
use crate::telemetry::proc::parse_stat;

const TICK: f64 = 0.01;
const OWN: u32 = 900;

/// Before: CPU 0 and 1 as /proc/stat had them.
const STAT_T0: &str = "cpu  69209 0 11475 1297930 653 0 100 143 0 0
cpu0 34232 0 5374 650046 140 0 6 54 0 0
cpu1 34976 0 6100 647883 513 0 94 89 0 0
";
/// One second later, a busy loop on CPU 1 and this process on CPU 0:
/// 100 busy ticks on each.
const STAT_HOG: &str = "cpu  69407 0 11477 1297930 653 0 100 143 0 0
cpu0 34331 0 5375 650046 140 0 6 54 0 0
cpu1 35075 0 6101 647883 513 0 94 89 0 0
";
/// One second later, this process alone on CPU 0 (99 + 1 ticks), CPU 1 a
/// daemon's tick and idle.
const STAT_QUIET: &str = "cpu  69308 0 11477 1298029 653 0 100 143 0 0
cpu0 34331 0 5375 650046 140 0 6 54 0 0
cpu1 34976 0 6101 647982 513 0 94 89 0 0
";

fn proc(pid: u32, comm: &str, ticks: u64) -> ProcStat {
    ProcStat {
        pid,
        comm: comm.into(),
        ppid: 1,
        ticks,
        start_ticks: 5,
        last_cpu: Some(1),
    }
}

fn counters(stat: &str, own_cpu_s: f64, procs: Vec<ProcStat>) -> Counters {
    Counters {
        cpus: parse_stat(stat).cpus,
        own_cpu_s,
        pswpin: 10,
        throttle: Vec::new(),
        procs: Some(Snapshot::from_stats(procs)),
    }
}

#[test]
fn a_busy_loop_beside_the_benchmark_is_named_with_its_share() {
    let a = counters(
        STAT_T0,
        3.0,
        vec![proc(OWN, "nodebench", 300), proc(4242, "stress-ng-cpu", 50)],
    );
    let b = counters(
        STAT_HOG,
        4.0,
        vec![
            proc(OWN, "nodebench", 400),
            proc(4242, "stress-ng-cpu", 149),
            proc(77, "sshd", 1),
        ],
    );
    let d = account(&a, &b, &[0, 1], 1.0, TICK, OWN, &[]);
    assert_eq!(d.cpus, "0-1");
    assert_eq!(d.available_cpu_s, 2.0);
    // 200 busy ticks = 2 s, less this process's 1 s.
    assert!((d.others_cpu_s - 1.0).abs() < 1e-9, "{d:?}");
    assert!((d.others_percent() - 50.0).abs() < 1e-9);
    assert_eq!(d.steal_s, 0.0);
    assert_eq!(d.swap_ins, 0);
    assert_eq!(d.throttle_events, None);
    assert_eq!(d.top.len(), 2, "this process is left out: {:?}", d.top);
    assert_eq!(
        (d.top[0].pid, d.top[0].name.as_str()),
        (4242, "stress-ng-cpu")
    );
    assert!((d.top[0].cpu_percent - 99.0).abs() < 1e-9);
    assert!(d.disturbed);
    assert_eq!(
        d.reason.as_deref(),
        Some(
            "other processes took 50.0 % of the CPU time of CPUs 0-1 (1.00 of 2.00 CPU-s), steal 0.0 %; top: stress-ng-cpu (pid 4242) 99.0 %, sshd (pid 77) 1.0 %"
        )
    );
}

#[test]
fn a_quiet_second_is_not_disturbed() {
    let a = counters(STAT_T0, 3.0, vec![proc(OWN, "nodebench", 300)]);
    let b = counters(
        STAT_QUIET,
        4.0,
        vec![proc(OWN, "nodebench", 400), proc(77, "sshd", 1)],
    );
    let d = account(&a, &b, &[0, 1], 1.0, TICK, OWN, &[]);
    // 101 busy ticks less 1 s of our own: 0.01 s, 0.5 %.
    assert!((d.others_cpu_s - 0.01).abs() < 1e-9, "{d:?}");
    assert!(!d.disturbed);
    assert_eq!(d.reason, None);
}

#[test]
fn only_the_cpus_the_work_ran_on_count() {
    // The same hog, on CPU 1; the work pinned to CPU 0.
    let a = counters(STAT_T0, 3.0, vec![proc(4242, "stress-ng-cpu", 50)]);
    let b = counters(STAT_HOG, 4.0, vec![proc(4242, "stress-ng-cpu", 149)]);
    let d = account(&a, &b, &[0], 1.0, TICK, OWN, &[]);
    assert_eq!(d.cpus, "0");
    assert_eq!(d.available_cpu_s, 1.0);
    assert_eq!(d.others_cpu_s, 0.0);
    assert!(!d.disturbed);
    // A CPU /proc/stat does not list counts nothing.
    let d = account(&a, &b, &[0, 7], 1.0, TICK, OWN, &[]);
    assert_eq!((d.cpus.as_str(), d.available_cpu_s), ("0", 1.0));
}

#[test]
fn a_share_within_the_counters_resolution_is_not_judged() {
    // A 20 ms phase on one CPU: 3 busy ticks against 20 ms of our own
    // time reads 10 ms of others, the size of one tick.
    let a = counters("cpu0 100 0 0 0 0 0 0 0 0 0\n", 1.0, vec![]);
    let b = counters("cpu0 103 0 0 0 0 0 0 0 0 0\n", 1.02, vec![]);
    let d = account(&a, &b, &[0], 0.02, TICK, OWN, &[]);
    assert!((d.others_cpu_s - 0.01).abs() < 1e-9);
    assert_eq!(d.resolution_s, 0.01);
    assert!(!d.disturbed);
    // Two ticks more are beyond it.
    let b = counters("cpu0 105 0 0 0 0 0 0 0 0 0\n", 1.02, vec![]);
    assert!(account(&a, &b, &[0], 0.02, TICK, OWN, &[]).disturbed);
}

#[test]
fn steal_throttling_and_swap_ins_each_disturb() {
    let a = counters(STAT_T0, 3.0, vec![]);
    // 8 ticks of steal over 2 CPU-s: 4 %, 3 % beyond the counters'
    // resolution (a tick per CPU); 6 ticks would be 2 % beyond it: not over.
    let stolen =
        "cpu0 34331 0 5375 650046 140 0 6 58 0 0\ncpu1 34976 0 6101 647982 513 0 94 93 0 0\n";
    let b = counters(stolen, 4.0, vec![]);
    let d = account(&a, &b, &[0, 1], 1.0, TICK, OWN, &[]);
    assert!((d.steal_percent() - 4.0).abs() < 1e-9);
    assert!(d.disturbed);
    assert!(d.reason.as_deref().unwrap().contains("steal 4.0 %"));
    let less =
        "cpu0 34331 0 5375 650046 140 0 6 57 0 0\ncpu1 34976 0 6101 647982 513 0 94 92 0 0\n";
    assert!(
        !account(
            &a,
            &counters(less, 4.0, vec![]),
            &[0, 1],
            1.0,
            TICK,
            OWN,
            &[]
        )
        .disturbed
    );

    let mut b = counters(STAT_QUIET, 4.0, vec![]);
    b.pswpin = 13;
    let mut a2 = a.clone();
    a2.throttle = vec![(0, 4), (1, 0)];
    b.throttle = vec![(0, 6), (1, 0)];
    let d = account(&a2, &b, &[0, 1], 1.0, TICK, OWN, &[]);
    assert_eq!((d.throttle_events, d.swap_ins), (Some(2), 3));
    assert!(d.disturbed);
    assert!(
        d.reason
            .as_deref()
            .unwrap()
            .ends_with("steal 0.0 %, 2 thermal throttle event(s), 3 page(s) swapped in"),
        "{:?}",
        d.reason
    );
    // Judged again from the stored figures, the same verdict.
    let mut again = d.clone();
    again.reason = None;
    again.disturbed = false;
    judge(&mut again);
    assert_eq!(again, d);
}

/// A local database server loaded by the benchmark (pid 600, with a
/// per-connection backend 601 forked from it) is the workload: its time is
/// counted apart and named there, not as another process's.
#[test]
fn the_server_under_test_and_its_children_are_the_workload() {
    let child = |pid, ticks| ProcStat {
        ppid: 600,
        ..proc(pid, "postgres", ticks)
    };
    let a = counters(
        STAT_T0,
        3.0,
        vec![
            proc(OWN, "nodebench", 300),
            proc(600, "postgres", 10),
            child(601, 0),
        ],
    );
    let b = counters(
        STAT_HOG,
        4.0,
        vec![
            proc(OWN, "nodebench", 400),
            proc(600, "postgres", 20),
            child(601, 40),
        ],
    );
    let plain = account(&a, &b, &[0, 1], 1.0, TICK, OWN, &[]);
    let served = account(&a, &b, &[0, 1], 1.0, TICK, OWN, &[600]);
    assert!((plain.others_cpu_s - served.others_cpu_s - 0.5).abs() < 1e-9);
    assert_eq!(served.under_test_cpu_s, Some(0.5));
    let names: Vec<u32> = served.under_test.iter().map(|p| p.pid).collect();
    assert_eq!(names, vec![601, 600]);
    assert!(served.top.iter().all(|p| p.pid != 600 && p.pid != 601));
    assert!(plain.top.iter().any(|p| p.pid == 601));
    assert_eq!(plain.under_test_cpu_s, None);
}
