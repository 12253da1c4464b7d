//! The progress bar of `scenicc cc-sim`: one line on stderr, redrawn at most ten times a second
//! from the fraction of simulated time done, and erased when the run ends.
//!
//! Drawn only when stderr is a terminal and `--quiet` is off (the caller decides), and only for
//! runs longer than [`SHOW_AFTER`], so short runs print nothing. The simulator calls
//! [`Bar::update`] every few thousand events; only here is the clock read.

use std::io::Write;
use std::time::{Duration, Instant};

/// A run shorter than this shows no bar.
const SHOW_AFTER: Duration = Duration::from_millis(500);
/// At most one redraw per this interval.
const REDRAW_EVERY: Duration = Duration::from_millis(100);
/// Characters of the bar itself.
const WIDTH: usize = 30;

/// The bar's state.
pub struct Bar {
    label: String,
    started: Instant,
    drawn_at: Option<Instant>,
}

impl Bar {
    /// A bar for simulating `label`, not drawn yet.
    pub fn new(label: &str) -> Bar {
        Bar {
            label: label.to_string(),
            started: Instant::now(),
            drawn_at: None,
        }
    }

    /// `fraction` of the simulated time is done: redraws if it is time to.
    pub fn update(&mut self, fraction: f64) {
        let now = Instant::now();
        if now.duration_since(self.started) < SHOW_AFTER
            || self
                .drawn_at
                .is_some_and(|at| now.duration_since(at) < REDRAW_EVERY)
        {
            return;
        }
        self.drawn_at = Some(now);
        let line = render(&self.label, fraction, now.duration_since(self.started));
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r{line}");
        let _ = err.flush();
    }

    /// Erases the bar, if it was drawn.
    pub fn finish(&mut self) {
        if self.drawn_at.take().is_some() {
            let mut err = std::io::stderr().lock();
            // Carriage return, then erase the line (ANSI EL).
            let _ = write!(err, "\r\x1b[2K");
            let _ = err.flush();
        }
    }
}

/// `simulating NAME [#########.....]  45% (3.2 s)`.
fn render(label: &str, fraction: f64, elapsed: Duration) -> String {
    let fraction = fraction.clamp(0.0, 1.0);
    let filled = (fraction * WIDTH as f64).round() as usize;
    format!(
        "simulating {label} [{}{}] {:3.0}% ({:.1} s)",
        "#".repeat(filled),
        ".".repeat(WIDTH - filled),
        fraction * 100.0,
        elapsed.as_secs_f64()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bar_fills_with_the_fraction() {
        let line = render("incast8", 0.5, Duration::from_millis(1500));
        let bar = format!("[{}{}]", "#".repeat(15), ".".repeat(15));
        assert_eq!(line, format!("simulating incast8 {bar}  50% (1.5 s)"));
        assert!(render("x", 1.7, Duration::ZERO).contains(&"#".repeat(WIDTH)));
    }
}
