//! A team of pinned worker threads with a spinning barrier, the way OpenMP
//! runs STREAM: the same threads initialise (first touch) and run every
//! kernel, and thread 0 times each kernel between two barriers.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::affinity;

/// A sense-reversing barrier that spins (then yields, so oversubscribed
/// teams still progress). Spinning keeps the barrier's own cost to well
/// under a microsecond when each thread has its core.
pub struct SpinBarrier {
    threads: usize,
    waiting: AtomicUsize,
    sense: AtomicBool,
}

impl SpinBarrier {
    /// A barrier for `threads` participants.
    pub fn new(threads: usize) -> SpinBarrier {
        SpinBarrier {
            threads: threads.max(1),
            waiting: AtomicUsize::new(0),
            sense: AtomicBool::new(false),
        }
    }

    /// Blocks until all participants have called `wait`.
    pub fn wait(&self) {
        self.wait_then(|| {});
    }

    /// Like [`wait`](Self::wait), and the last thread to arrive runs
    /// `at_release` before letting the others go: a timestamp taken there is
    /// the exact moment the team starts (or, at the end of a kernel, the
    /// moment its last thread finished), whichever thread gets there.
    pub fn wait_then(&self, at_release: impl FnOnce()) {
        let sense = !self.sense.load(Ordering::Acquire);
        if self.waiting.fetch_add(1, Ordering::AcqRel) + 1 == self.threads {
            at_release();
            self.waiting.store(0, Ordering::Relaxed);
            self.sense.store(sense, Ordering::Release);
            return;
        }
        let mut spins: u32 = 0;
        while self.sense.load(Ordering::Acquire) != sense {
            if spins < 20_000 {
                std::hint::spin_loop();
                spins += 1;
            } else {
                std::thread::yield_now();
            }
        }
    }
}

/// Runs `body(thread_index)` on `threads` threads, thread `i` pinned to
/// `allowed_cpus()[i % n]` when `pin`, and returns their results in order.
pub fn run<R: Send>(threads: usize, pin: bool, body: impl Fn(usize) -> R + Sync) -> Vec<R> {
    run_on(&affinity::allowed_cpus(), threads, pin, body)
}

/// [`run`] on a chosen set of CPUs (one NUMA node's): thread `i` pinned to
/// `cpus[i % cpus.len()]` when `pin`.
pub fn run_on<R: Send>(
    cpus: &[usize],
    threads: usize,
    pin: bool,
    body: impl Fn(usize) -> R + Sync,
) -> Vec<R> {
    assert!(!cpus.is_empty(), "a team needs at least one CPU");
    std::thread::scope(|s| {
        let body = &body;
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                s.spawn(move || {
                    if pin {
                        affinity::pin_current_thread(cpus[t % cpus.len()]);
                    }
                    body(t)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn barrier_orders_phases() {
        let barrier = SpinBarrier::new(3);
        let counter = AtomicUsize::new(0);
        let seen = run(3, false, |_| {
            let mut seen = Vec::new();
            for phase in 0..50 {
                counter.fetch_add(1, Ordering::SeqCst);
                barrier.wait();
                seen.push(counter.load(Ordering::SeqCst) >= 3 * (phase + 1));
                barrier.wait();
            }
            seen
        });
        assert!(seen.iter().flatten().all(|ok| *ok));
    }
}
