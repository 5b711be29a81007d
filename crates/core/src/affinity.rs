//! Thread pinning: which logical CPUs this process may run on, and pinning
//! the calling thread to one of them. Benchmarks pin worker `i` to
//! `allowed_cpus()[i % len]` so repeats land on the same cores. Also the
//! calling thread's timer slack, for threads that pace work by the clock.

use crate::bench::BenchError;

/// The logical CPUs this process may run on (its affinity mask, which
/// respects cgroup cpusets and `taskset`), in ascending order. Falls back to
/// `0..available_parallelism` where the mask cannot be read.
pub fn allowed_cpus() -> Vec<usize> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: cpu_set_t is plain data; sched_getaffinity fills it for pid 0 (us).
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) == 0 {
                let cpus: Vec<usize> = (0..libc::CPU_SETSIZE as usize)
                    .filter(|&c| libc::CPU_ISSET(c, &set))
                    .collect();
                if !cpus.is_empty() {
                    return cpus;
                }
            }
        }
    }
    let n = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    (0..n).collect()
}

/// Parses a CPU list given by the user (`--cpus 0,2-3`): the CPUs in the
/// given order without repeats, each one this process may run on
/// ([`allowed_cpus`]). The error says the accepted form and the allowed CPUs.
pub fn parse_cpus(text: &str) -> Result<Vec<usize>, BenchError> {
    let allowed = allowed_cpus();
    let form = || {
        format!(
            "expected a list of CPUs like 0,2-3 from those this process may run on ({})",
            allowed
                .iter()
                .map(usize::to_string)
                .collect::<Vec<_>>()
                .join(",")
        )
    };
    let listed = crate::cpulist::parse(text)
        .filter(|l| !l.is_empty())
        .ok_or_else(|| BenchError::Invalid(format!("'{text}': {}", form())))?;
    let mut cpus: Vec<usize> = Vec::new();
    for cpu in listed.into_iter().map(|c| c as usize) {
        if !allowed.contains(&cpu) {
            return Err(BenchError::Invalid(format!(
                "'{text}': CPU {cpu} is not allowed; {}",
                form()
            )));
        }
        if !cpus.contains(&cpu) {
            cpus.push(cpu);
        }
    }
    Ok(cpus)
}

/// Pins the calling thread to logical CPU `cpu`. Returns false where pinning
/// is not possible (not Linux, CPU not allowed); the benchmark then runs unpinned.
pub fn pin_current_thread(cpu: usize) -> bool {
    pin_current_thread_to(&[cpu])
}

/// Lets the calling thread run on `cpus` alone (e.g. a NUMA node's, or
/// the set it had before). Returns false where that is not possible (not
/// Linux, none of them allowed, a CPU past the kernel's set size).
pub fn pin_current_thread_to(cpus: &[usize]) -> bool {
    #[cfg(target_os = "linux")]
    {
        if cpus.is_empty() || cpus.iter().any(|c| *c >= libc::CPU_SETSIZE as usize) {
            return false;
        }
        // SAFETY: as above; pid 0 is the calling thread for sched_setaffinity.
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            for &cpu in cpus {
                libc::CPU_SET(cpu, &mut set);
            }
            if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
                return false;
            }
        }
        note_pins(cpus);
        true
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = cpus;
        false
    }
}

/// How many times a thread of this process was pinned to each CPU, by CPU
/// number: the disturbance watch (`machine::disturb`) takes the CPUs
/// pinned to during a span as the CPUs its work ran on.
static PINS: std::sync::Mutex<Vec<u64>> = std::sync::Mutex::new(Vec::new());

fn note_pins(cpus: &[usize]) {
    let mut pins = PINS.lock().unwrap_or_else(|e| e.into_inner());
    for &cpu in cpus {
        if pins.len() <= cpu {
            pins.resize(cpu + 1, 0);
        }
        pins[cpu] += 1;
    }
}

/// The pin counts so far, indexed by CPU number ([`pin_current_thread_to`]
/// counts each CPU of each successful pinning).
pub fn pin_counts() -> Vec<u64> {
    PINS.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// The CPUs pinned to between two [`pin_counts`] readings.
pub fn pinned_between(before: &[u64], after: &[u64]) -> Vec<usize> {
    after
        .iter()
        .enumerate()
        .filter(|&(cpu, &n)| n > before.get(cpu).copied().unwrap_or(0))
        .map(|(cpu, _)| cpu)
        .collect()
}

/// Lowers the calling thread's timer slack to 1 ns so its timed waits
/// (pacing sleeps, epoll timeouts) wake on time; Linux's default slack of
/// 50 us would otherwise delay every paced send.
pub fn precise_timers() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_TIMERSLACK takes an integer argument.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong, 0, 0, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowed_cpus_are_non_empty_and_pinnable() {
        let cpus = allowed_cpus();
        assert!(!cpus.is_empty());
        let first = cpus[0];
        let pinned = std::thread::spawn(move || pin_current_thread(first))
            .join()
            .unwrap();
        assert!(pinned || !cfg!(target_os = "linux"));
        assert!(!pin_current_thread(usize::MAX));
        if pinned {
            assert!(pin_counts()[first] >= 1);
        }
        assert_eq!(pinned_between(&[3, 1], &[3, 2, 0, 1]), vec![1, 3]);
    }

    #[test]
    fn cpu_lists_name_allowed_cpus_once() {
        let first = allowed_cpus()[0];
        let text = format!("{first},{first}-{first}");
        assert_eq!(parse_cpus(&text), Ok(vec![first]));
        for bad in ["", "x", "3-1", "999999"] {
            let err = parse_cpus(bad).unwrap_err();
            assert!(
                err.to_string()
                    .contains("expected a list of CPUs like 0,2-3"),
                "{bad}: {err}"
            );
        }
    }
}
