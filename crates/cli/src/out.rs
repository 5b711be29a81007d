//! Standard output that a closed pipe ends quietly: `nodebench runs list |
//! head -1` prints its line and exits 0, with no message and no panic
//! (`println!` panics on a closed pipe). Once the reader is gone every later
//! write is dropped, so a benchmark whose output nobody reads still runs to
//! the end and saves its run. Any other write error is kept and reported
//! once by `main`.

use std::fmt;
use std::io::{self, Write};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once a write found the reader gone.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// The first write error other than a closed pipe.
static FAILED: Mutex<Option<String>> = Mutex::new(None);

/// Writes `args` to standard output (and flushes it, so output reaches a
/// pipe in order with what follows); a closed pipe ends output quietly.
pub fn write(args: fmt::Arguments<'_>) {
    if CLOSED.load(Ordering::Relaxed) {
        return;
    }
    let mut stdout = io::stdout().lock();
    let written = stdout.write_fmt(args).and_then(|()| stdout.flush());
    match written {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => CLOSED.store(true, Ordering::Relaxed),
        Err(e) => {
            let mut failed = FAILED.lock().unwrap_or_else(|p| p.into_inner());
            failed.get_or_insert_with(|| e.to_string());
        }
    }
}

/// The first write error other than a closed pipe, if any.
pub fn failure() -> Option<String> {
    FAILED.lock().unwrap_or_else(|p| p.into_inner()).clone()
}

/// `print!` that a closed standard output ends quietly ([`write`]).
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::out::write(format_args!($($arg)*))
    };
}

/// `println!` that a closed standard output ends quietly ([`write`]).
macro_rules! outln {
    () => {
        $crate::out::write(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::out::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}
