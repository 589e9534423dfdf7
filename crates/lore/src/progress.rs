//! Progress on stderr: bars in a terminal; elsewhere (a log, CI, an agent's shell) a plain
//! line per phase when it starts and ends and at most every `LINE_EVERY` between; nothing
//! with --quiet/--json.

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use lore_engine::{Phase, Progress};
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Least time between two plain progress lines of one phase.
const LINE_EVERY: Duration = Duration::from_secs(10);

pub struct Bars {
    multi: MultiProgress,
    bars: Mutex<Vec<(Phase, ProgressBar)>>,
    quiet: bool,
    /// Plain lines instead of bars, per phase.
    lines: Option<Mutex<Vec<Line>>>,
}

/// A phase's plain progress: its phase, done, total, when it started and when a line was
/// last printed.
type Line = (Phase, u64, u64, Instant, Instant);

impl Bars {
    pub fn new(quiet: bool) -> Bars {
        let terminal = std::io::stderr().is_terminal();
        let target = if quiet || !terminal {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        };
        Bars {
            multi: MultiProgress::with_draw_target(target),
            bars: Mutex::new(Vec::new()),
            quiet,
            lines: (!quiet && !terminal).then(|| Mutex::new(Vec::new())),
        }
    }

    /// A plain line for `phase` after `f` updated its counts; `force` prints it whatever
    /// the time since the last.
    fn line(&self, phase: Phase, force: bool, f: impl FnOnce(&mut u64, &mut u64)) {
        let Some(lines) = &self.lines else {
            return;
        };
        let Ok(mut lines) = lines.lock() else {
            return;
        };
        let now = Instant::now();
        let i = match lines.iter().position(|l| l.0 == phase) {
            Some(i) => i,
            None => {
                lines.push((phase, 0, 0, now, now));
                lines.len() - 1
            }
        };
        let l = &mut lines[i];
        f(&mut l.1, &mut l.2);
        if force || now.duration_since(l.4) >= LINE_EVERY {
            l.4 = now;
            eprintln!(
                "{}: {}/{} ({:.0} s)",
                phase.label(),
                l.1,
                l.2,
                now.duration_since(l.3).as_secs_f64()
            );
        }
    }

    fn bar(&self, phase: Phase) -> Option<ProgressBar> {
        let bars = self.bars.lock().ok()?;
        bars.iter()
            .find(|(p, _)| *p == phase)
            .map(|(_, b)| b.clone())
    }

    pub fn clear(&self) {
        let _ = self.multi.clear();
    }
}

impl Progress for Bars {
    fn start(&self, phase: Phase, total: u64) {
        self.line(phase, true, |done, all| {
            *done = 0;
            *all = total;
        });
        if let Some(b) = self.bar(phase) {
            b.set_length(total);
            return;
        }
        let style = ProgressStyle::with_template(
            "{prefix:>10} [{bar:30}] {pos}/{len} ({per_sec}, eta {eta})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ");
        let bar = self.multi.add(ProgressBar::new(total));
        bar.set_style(style);
        bar.set_prefix(phase.label());
        if let Ok(mut bars) = self.bars.lock() {
            bars.push((phase, bar));
        }
    }

    fn advance(&self, phase: Phase, n: u64) {
        self.line(phase, false, |done, _| *done += n);
        if let Some(b) = self.bar(phase) {
            b.inc(n);
        }
    }

    fn finish(&self, phase: Phase) {
        self.line(phase, true, |done, all| *done = (*done).max(*all));
        if let Some(b) = self.bar(phase) {
            b.finish();
        }
    }

    fn message(&self, msg: &str) {
        if self.lines.is_some() {
            eprintln!("{msg}");
        } else if !self.quiet {
            let _ = self.multi.println(msg);
        }
    }
}
