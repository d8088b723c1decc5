//! Progress of long work — a run's steps and, within a step, its generation, scoring, updates
//! and evaluation; a warm-up's steps; an experiment's runs — with elapsed time and ETA.
//!
//! On a terminal (stderr) these are `indicatif` bars, and log lines are printed above them
//! through [`LogWriter`]. Elsewhere (a log file, CI, a pipe) the bars stay hidden and each
//! finished phase prints one plain log line, so a log holds a few lines per step, not a redraw
//! per tick.

use std::io::{IsTerminal, Write};
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use indicatif::{FormattedDuration, MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Every visible bar of the process, one stack on stderr.
static BARS: LazyLock<MultiProgress> = LazyLock::new(|| {
    if on_terminal() {
        MultiProgress::new()
    } else {
        MultiProgress::with_draw_target(ProgressDrawTarget::hidden())
    }
});

/// Whether progress is drawn as bars (stderr is a terminal) rather than logged as lines.
fn on_terminal() -> bool {
    std::io::stderr().is_terminal()
}

/// The bar of a [`Progress`]: what, how far, and the ETA in its message.
const UNITS_TEMPLATE: &str =
    "{prefix:.bold} [{bar:30.cyan/blue}] {pos}/{len} {msg} · {elapsed_precise}";
/// The bar of a [`Phase`], under its progress's.
const PHASE_TEMPLATE: &str = "  {prefix} {spinner} [{bar:30}] {pos}/{len} {msg} · {elapsed}";

/// How often a visible bar redraws when nothing advances it (generation can take minutes
/// without a tick): the elapsed time keeps moving.
const TICK: Duration = Duration::from_millis(250);

/// A bar of `len` labelled `prefix`, at `position` with `message`: hidden when `plain` (it
/// still counts), otherwise drawn with `template` under the bars already shown. Set up before
/// it joins the stack, so that its first frame is already complete.
fn bar(
    template: &str,
    len: u64,
    position: u64,
    prefix: String,
    message: String,
    plain: bool,
) -> ProgressBar {
    let style = ProgressStyle::with_template(template)
        .expect("the templates are constants, parsed by a unit test")
        .progress_chars("=> ");
    // Hidden until it joins the stack, which gives it the stack's target.
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::hidden())
        .with_style(style)
        .with_position(position)
        .with_prefix(prefix)
        .with_message(message);
    if plain {
        return bar;
    }
    let bar = BARS.add(bar);
    bar.enable_steady_tick(TICK);
    bar
}

/// Progress through `total` units of one kind (steps, runs), some of which may have been
/// done before this process started (a resumed run): the ETA is the time per unit done here
/// times the units left.
pub struct Progress {
    bar: ProgressBar,
    /// The unit, singular: `step`, `run`.
    unit: &'static str,
    /// Units done before this process started.
    before: u64,
    started: Instant,
    /// Whether finished phases print plain lines (stderr is no terminal).
    plain: bool,
}

impl Progress {
    /// Progress of `label` (a run's name) through `total` `unit`s, `done` of them already.
    pub fn new(label: &str, unit: &'static str, done: usize, total: usize) -> Self {
        Self::build(label, unit, done, total, !on_terminal())
    }

    fn build(label: &str, unit: &'static str, done: usize, total: usize, plain: bool) -> Self {
        let eta = eta_text(Duration::ZERO, 0, total.saturating_sub(done) as u64);
        Self {
            bar: bar(
                UNITS_TEMPLATE,
                total as u64,
                done as u64,
                label.to_string(),
                format!("{unit}s · {eta}"),
                plain,
            ),
            unit,
            before: done as u64,
            started: Instant::now(),
            plain,
        }
    }

    /// One more unit done.
    pub fn inc(&self) {
        self.bar.inc(1);
        self.bar
            .set_message(format!("{}s · {}", self.unit, self.eta()));
    }

    /// `elapsed 00:01:12 · eta 00:03:00` (`eta ?` before the first unit of this process).
    pub fn timing(&self) -> String {
        format!(
            "elapsed {} · {}",
            FormattedDuration(self.started.elapsed()),
            self.eta()
        )
    }

    /// `eta 00:03:00`, or `eta ?` before the first unit of this process.
    pub fn eta(&self) -> String {
        let done = self.bar.position().saturating_sub(self.before);
        let left = self
            .bar
            .length()
            .unwrap_or(0)
            .saturating_sub(self.bar.position());
        eta_text(self.started.elapsed(), done, left)
    }

    /// A phase of the unit now in progress (`step 3/10 generation`), counting `len` `what`
    /// (`agents`, `mini-batches`).
    pub fn phase(&self, name: &'static str, what: &'static str, len: usize) -> Phase {
        let label = format!(
            "{} {}/{} {name}",
            self.unit,
            (self.bar.position() + 1).min(self.bar.length().unwrap_or(0)),
            self.bar.length().unwrap_or(0)
        );
        Phase {
            bar: bar(
                PHASE_TEMPLATE,
                len as u64,
                0,
                label.clone(),
                String::new(),
                self.plain,
            ),
            label: self.plain.then_some(label),
            what,
            started: Instant::now(),
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
        BARS.remove(&self.bar);
    }
}

/// `elapsed / done × left`: the time the `left` units take at this process's pace so far.
fn remaining(elapsed: Duration, done: u64, left: u64) -> Option<Duration> {
    if left == 0 {
        return Some(Duration::ZERO);
    }
    if done == 0 {
        return None;
    }
    let per = elapsed.as_secs_f64() / done as f64;
    Some(Duration::from_secs_f64(per * left as f64))
}

fn eta_text(elapsed: Duration, done: u64, left: u64) -> String {
    match remaining(elapsed, done, left) {
        Some(d) => format!("eta {}", FormattedDuration(d)),
        None => "eta ?".into(),
    }
}

/// One phase of a unit (a step's generation, scoring, updates, evaluation).
pub struct Phase {
    bar: ProgressBar,
    /// `step 3/10 updates`, when the finished phase is logged as a line.
    label: Option<String>,
    /// What the phase counts: `agents`, `mini-batches`.
    what: &'static str,
    started: Instant,
}

impl Phase {
    /// A phase that shows and logs nothing (a caller outside a run's loop: tests, the GPU
    /// check's in-memory run).
    pub fn hidden() -> Self {
        Self {
            bar: ProgressBar::hidden(),
            label: None,
            what: "",
            started: Instant::now(),
        }
    }

    /// `n` more counted.
    pub fn inc(&self, n: usize) {
        self.bar.inc(n as u64);
    }

    /// Sets how many are counted (a barrier's agents that have submitted).
    pub fn set(&self, n: usize) {
        self.bar.set_position(n as u64);
    }

    /// What the phase is at now (the agent generating, the agents awaited).
    pub fn say(&self, message: impl Into<String>) {
        self.bar.set_message(message.into());
    }

    /// Ends the phase: off a terminal, logs `step 3/10 updates: 4/4 mini-batches in 1.9s`.
    pub fn finish(self) {
        if let Some(line) = self.line() {
            tracing::info!("{line}");
        }
    }

    fn line(&self) -> Option<String> {
        let label = self.label.as_ref()?;
        Some(format!(
            "{label}: {}/{} {} in {:.1}s",
            self.bar.position(),
            self.bar.length().unwrap_or(0),
            self.what,
            self.started.elapsed().as_secs_f64()
        ))
    }
}

impl Drop for Phase {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
        BARS.remove(&self.bar);
    }
}

/// stderr for log lines, with the bars lifted while a line is written so that neither tears
/// the other: `tracing_subscriber::fmt().with_writer(|| LogWriter)`.
pub struct LogWriter;

impl Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        BARS.suspend(|| std::io::stderr().write(buf))
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        BARS.suspend(|| std::io::stderr().write_all(buf))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_eta_is_the_pace_of_the_units_done_here_times_those_left() {
        let s = Duration::from_secs;
        assert_eq!(remaining(s(30), 3, 7), Some(s(70)));
        assert_eq!(remaining(s(30), 0, 7), None);
        assert_eq!(remaining(s(0), 0, 0), Some(Duration::ZERO));
    }

    #[test]
    fn the_bar_templates_parse() {
        for t in [UNITS_TEMPLATE, PHASE_TEMPLATE] {
            assert!(ProgressStyle::with_template(t).is_ok(), "{t}");
        }
    }

    #[test]
    fn a_resumed_run_counts_only_its_own_steps_in_the_eta() {
        let p = Progress::build("r", "step", 4, 10, true);
        assert_eq!(p.eta(), "eta ?");
        let phase = p.phase("updates", "mini-batches", 4);
        phase.inc(1);
        phase.inc(3);
        let line = phase.line().unwrap();
        assert!(
            line.starts_with("step 5/10 updates: 4/4 mini-batches in "),
            "{line}"
        );
        p.inc();
        assert_eq!(p.bar.position(), 5);
        // One step in (almost) no time: 5 left at that pace.
        assert!(p.timing().ends_with("eta 00:00:00"), "{}", p.timing());
        assert_eq!(Phase::hidden().line(), None);
    }
}
