//! The progress bar on stderr, hidden when stderr is not a terminal or with `--quiet`.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use nodebench_core::bench::Progress;

/// An indicatif bar implementing the benchmarks' [`Progress`].
pub struct Bar(ProgressBar);

impl Bar {
    /// A bar on stderr, or a hidden one when `quiet` or stderr is not a terminal.
    pub fn new(quiet: bool) -> Bar {
        let target = if quiet || !std::io::stderr().is_terminal() {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        };
        let bar = ProgressBar::with_draw_target(None, target);
        if let Ok(style) =
            ProgressStyle::with_template("{msg:>12} [{bar:40}] {pos}/{len} {elapsed_precise}")
        {
            bar.set_style(style.progress_chars("=> "));
        }
        Bar(bar)
    }
}

impl Progress for Bar {
    fn start(&self, what: &str, total: u64) {
        self.0.reset();
        self.0.set_length(total);
        self.0.set_position(0);
        self.0.set_message(what.to_string());
    }

    fn advance(&self, n: u64) {
        self.0.inc(n);
    }

    fn finish(&self) {
        self.0.finish_and_clear();
    }
}
