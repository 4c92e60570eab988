//! Progress of a batch on stderr: a bar (indicatif) when stderr is a
//! terminal, plain `N/M tests done` lines every few seconds otherwise,
//! nothing when turned off. Each shows tests done, executions per second and
//! the estimated time left.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// How progress is shown.
enum Mode {
    Off,
    Bar(ProgressBar),
    Lines { every: Duration, last: Instant },
}

/// Progress of `total` tests.
pub struct Progress {
    mode: Mode,
    total: u64,
    done: u64,
    executions: u64,
    start: Instant,
}

impl Progress {
    /// Progress for `total` tests; `on` false shows nothing; `every` is the
    /// interval of plain lines.
    pub fn new(total: usize, on: bool, every: Duration) -> Self {
        let start = Instant::now();
        let mode = if !on || total == 0 {
            Mode::Off
        } else if std::io::stderr().is_terminal() {
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template(
                "{spinner} [{elapsed_precise}] {wide_bar} {pos}/{len} tests  {msg}  ETA {eta}",
            )
            .unwrap_or_else(|_| ProgressStyle::default_bar());
            bar.set_style(style);
            bar.enable_steady_tick(Duration::from_millis(200));
            Mode::Bar(bar)
        } else {
            Mode::Lines { every, last: start }
        };
        Self {
            mode,
            total: total as u64,
            done: 0,
            executions: 0,
            start,
        }
    }

    fn rate(&self) -> f64 {
        let s = self.start.elapsed().as_secs_f64();
        if s > 0.0 {
            self.executions as f64 / s
        } else {
            0.0
        }
    }

    /// One more test done, after `executions` executions.
    pub fn inc(&mut self, executions: u64) {
        self.done += 1;
        self.executions += executions;
        let rate = self.rate();
        if let Mode::Bar(b) = &self.mode {
            b.set_message(format!("{rate:.0} executions/s"));
            b.inc(1);
        }
        self.tick();
    }

    /// Prints a plain line if one is due.
    pub fn tick(&mut self) {
        let line = match &mut self.mode {
            Mode::Lines { every, last } if last.elapsed() >= *every => {
                *last = Instant::now();
                true
            }
            _ => false,
        };
        if line {
            let elapsed = self.start.elapsed().as_secs_f64();
            let eta = if self.done > 0 {
                format!(
                    "{:.0} s",
                    elapsed / self.done as f64 * (self.total - self.done) as f64
                )
            } else {
                "unknown".to_string()
            };
            eprintln!(
                "{}/{} tests done, {:.0} executions/s, ETA {}",
                self.done,
                self.total,
                self.rate(),
                eta
            );
        }
    }

    /// Runs `f` (which prints to stdout) without garbling the bar.
    pub fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        match &self.mode {
            Mode::Bar(b) => b.suspend(f),
            _ => f(),
        }
    }

    /// Removes the bar.
    pub fn finish(&self) {
        if let Mode::Bar(b) = &self.mode {
            b.finish_and_clear();
        }
    }
}
