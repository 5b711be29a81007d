//! CPU time used so far, from getrusage: by the whole process (what iperf3
//! reports as its CPU use) or by the calling thread (a load generator's own
//! threads, leaving out anything else in the process).

use std::time::Duration;

/// User and system CPU time used by the whole process so far; zero when
/// getrusage fails.
pub fn process() -> (Duration, Duration) {
    usage(libc::RUSAGE_SELF)
}

/// User and system CPU time used by the calling thread so far; zero when
/// getrusage fails.
pub fn thread() -> (Duration, Duration) {
    usage(libc::RUSAGE_THREAD)
}

fn usage(who: libc::c_int) -> (Duration, Duration) {
    // SAFETY: rusage is plain old data.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage fills `ru`.
    if unsafe { libc::getrusage(who, &mut ru) } != 0 {
        return (Duration::ZERO, Duration::ZERO);
    }
    let tv =
        |t: libc::timeval| Duration::new(t.tv_sec.max(0) as u64, (t.tv_usec.max(0) as u32) * 1000);
    (tv(ru.ru_utime), tv(ru.ru_stime))
}

/// CPU time the calling thread used so far, to the nanosecond
/// (`CLOCK_THREAD_CPUTIME_ID`: unlike schedstat's running time, it counts
/// the slice running now); zero where the clock cannot be read.
pub fn thread_cpu_now() -> Duration {
    // SAFETY: timespec is plain old data.
    let mut ts: libc::timespec = unsafe { std::mem::zeroed() };
    // SAFETY: clock_gettime fills `ts`.
    if unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) } != 0 {
        return Duration::ZERO;
    }
    Duration::new(
        ts.tv_sec.max(0) as u64,
        ts.tv_nsec.clamp(0, 999_999_999) as u32,
    )
}

/// Where a thread's time went, from the scheduler's own accounting.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SchedTimes {
    /// Time on a CPU.
    pub running: Duration,
    /// Time runnable but waiting for a CPU (in a run queue).
    pub waiting: Duration,
}

/// The calling thread's kernel thread id (gettid), for [`thread_sched`].
pub fn current_tid() -> i32 {
    // SAFETY: gettid has no arguments and cannot fail.
    unsafe { libc::gettid() }
}

/// Time the thread `tid` of this process spent running and waiting for a
/// CPU so far, from /proc/self/task/TID/schedstat; None when unreadable
/// (the thread ended, or a kernel without schedstats). Running plus
/// waiting near the elapsed time means the thread never idled: it had
/// work every moment, whether or not a CPU was free for it.
pub fn thread_sched(tid: i32) -> Option<SchedTimes> {
    let text = std::fs::read_to_string(format!("/proc/self/task/{tid}/schedstat")).ok()?;
    parse_schedstat(&text)
}

/// Parses a schedstat line: "RUN_NS WAIT_NS TIMESLICES".
fn parse_schedstat(text: &str) -> Option<SchedTimes> {
    let mut f = text.split_whitespace().map(|v| v.parse::<u64>().ok());
    Some(SchedTimes {
        running: Duration::from_nanos(f.next()??),
        waiting: Duration::from_nanos(f.next()??),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_threads_cpu_clock_counts_its_work_and_not_its_sleep() {
        let a = thread_cpu_now();
        std::thread::sleep(Duration::from_millis(50));
        let b = thread_cpu_now();
        let end = std::time::Instant::now() + Duration::from_millis(30);
        let mut x = 0u64;
        while std::time::Instant::now() < end {
            x = std::hint::black_box(x.wrapping_add(1));
        }
        let c = thread_cpu_now();
        assert!(b - a < Duration::from_millis(10), "{:?}", b - a);
        assert!(
            c - b > Duration::from_millis(1) && c - b <= Duration::from_millis(60),
            "{:?}",
            c - b
        );
    }

    #[test]
    fn schedstat_lines_parse_and_junk_does_not() {
        assert_eq!(
            parse_schedstat("1500000000 250000000 42\n"),
            Some(SchedTimes {
                running: Duration::from_millis(1500),
                waiting: Duration::from_millis(250),
            })
        );
        assert_eq!(parse_schedstat(""), None);
        assert_eq!(parse_schedstat("12 x 3"), None);
    }

    #[test]
    fn another_threads_running_time_grows_with_its_work() {
        let (tid_tx, tid_rx) = std::sync::mpsc::channel();
        let (go, wait) = std::sync::mpsc::channel::<()>();
        let busy = std::thread::spawn(move || {
            tid_tx.send(current_tid()).unwrap();
            let end = std::time::Instant::now() + Duration::from_millis(200);
            let mut x = 0u64;
            while std::time::Instant::now() < end {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1);
            }
            let _ = wait.recv();
            x
        });
        let tid = tid_rx.recv().unwrap();
        std::thread::sleep(Duration::from_millis(400));
        let t = thread_sched(tid).unwrap();
        // 200 ms of work: on a CPU or waiting for one, and no more.
        let busy_time = t.running + t.waiting;
        assert!(
            busy_time >= Duration::from_millis(190) && busy_time <= Duration::from_millis(400),
            "{t:?}"
        );
        go.send(()).unwrap();
        busy.join().unwrap();
    }
}
