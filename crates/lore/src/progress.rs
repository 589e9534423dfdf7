//! Progress bars on stderr (hidden with --quiet/--json or when stderr is not a terminal).

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use lore_engine::{Phase, Progress};
use std::sync::Mutex;

pub struct Bars {
    multi: MultiProgress,
    bars: Mutex<Vec<(Phase, ProgressBar)>>,
    quiet: bool,
}

impl Bars {
    pub fn new(quiet: bool) -> Bars {
        let target = if quiet {
            ProgressDrawTarget::hidden()
        } else {
            ProgressDrawTarget::stderr()
        };
        Bars {
            multi: MultiProgress::with_draw_target(target),
            bars: Mutex::new(Vec::new()),
            quiet,
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
        if let Some(b) = self.bar(phase) {
            b.inc(n);
        }
    }

    fn finish(&self, phase: Phase) {
        if let Some(b) = self.bar(phase) {
            b.finish();
        }
    }

    fn message(&self, msg: &str) {
        if !self.quiet {
            let _ = self.multi.println(msg);
        }
    }
}
