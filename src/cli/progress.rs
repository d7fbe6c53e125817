//! Progress bars on standard error, drawn from the pipeline's [`Progress`] reports.
//!
//! indicatif lives here only: the library reports stages and steps, and the command line
//! decides how to show them (indicatif draws nothing when standard error is not a
//! terminal).

use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use crate::pipeline::Progress;

/// A bar per stage of the pipeline, or nothing when `enabled` is false.
pub struct Bars {
    enabled: bool,
    current: Mutex<ProgressBar>,
}

impl Bars {
    pub fn new(enabled: bool) -> Self {
        Bars {
            enabled,
            current: Mutex::new(ProgressBar::hidden()),
        }
    }

    fn with_bar(&self, f: impl FnOnce(&mut ProgressBar)) {
        // A poisoned lock only means a bar was being drawn when a worker panicked.
        let mut bar = match self.current.lock() {
            Ok(bar) => bar,
            Err(poisoned) => poisoned.into_inner(),
        };
        f(&mut bar);
    }
}

impl Progress for Bars {
    fn start(&self, stage: &'static str, total: u64) {
        let enabled = self.enabled;
        self.with_bar(|bar| {
            bar.finish_and_clear();
            *bar = stage_bar(enabled, total, stage);
        });
    }

    fn spin(&self, message: String) {
        let enabled = self.enabled;
        self.with_bar(|bar| {
            bar.finish_and_clear();
            *bar = spinner(enabled, message);
        });
    }

    fn advance(&self, n: u64) {
        self.with_bar(|bar| bar.inc(n));
    }

    fn finish(&self) {
        self.with_bar(|bar| bar.finish_and_clear());
    }
}

fn stage_bar(enabled: bool, length: u64, message: &'static str) -> ProgressBar {
    if !enabled {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(length);
    let style = ProgressStyle::with_template(
        "{msg:>12} [{bar:40.cyan/blue}] {pos}/{len} ({elapsed}, eta {eta})",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar())
    .progress_chars("=> ");
    bar.set_style(style);
    bar.set_message(message);
    bar
}

/// A spinner for a stage whose length is not known in advance.
pub fn spinner(enabled: bool, message: String) -> ProgressBar {
    if !enabled {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new_spinner();
    bar.set_message(message);
    bar.enable_steady_tick(Duration::from_millis(120));
    bar
}
