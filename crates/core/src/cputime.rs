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
