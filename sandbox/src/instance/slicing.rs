//! How the runs admitted side by side share the worker threads. Every run is preempted at each
//! epoch tick and yields to the others. With [`Slicing::GrowingFirst`] a run whose linear memory
//! grew by at least [`GROWTH_STEP`] during its last slice keeps the thread for the next tick, and
//! so on while it grows: a memory bomb then reaches its limit (its verdict) in one turn, within
//! the wall clock however many endless loops (which never grow) queue beside it and however
//! slowly the turn comes round on a loaded machine. The extra share is bounded by the run's
//! memory limit, since each favoured tick costs the run a step of it (at most 512 favoured
//! ticks, ~2.5 s, under a 512 MiB limit).
//!
//! Before issue 51 a growing run kept the thread for at most 3 more ticks per turn; then a bomb
//! got 4 slices of 84 beside 80 loops, and on a machine whose cores other processes shared the
//! turn came round too rarely for it to reach 256 MiB within 8 s (a timeout, not its verdict).

use wasmtime::UpdateDeadline;

/// How runs side by side share the worker threads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Slicing {
    /// Every admitted run gets one slice in turn.
    RoundRobin,
    /// One slice in turn, and a run whose memory is growing keeps the thread a little longer
    /// (memory bombs reach their limit sooner beside loops; quick runs wait a little more).
    #[default]
    GrowingFirst,
}

impl std::str::FromStr for Slicing {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "round_robin" | "round-robin" => Ok(Slicing::RoundRobin),
            "growing_first" | "growing-first" => Ok(Slicing::GrowingFirst),
            other => Err(format!(
                "unknown slicing {other:?} (round-robin, growing-first)"
            )),
        }
    }
}

impl std::fmt::Display for Slicing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Slicing::RoundRobin => "round-robin",
            Slicing::GrowingFirst => "growing-first",
        })
    }
}

/// Growth during one slice that counts as growing: a bomb grows by many of these per slice,
/// while a run that only creeps a page at a time cannot take a favoured tick per page.
const GROWTH_STEP: u64 = 1 << 20;

/// One run's place in the turn: its memory at the end of its last slice.
pub(crate) struct Turn {
    slicing: Slicing,
    /// None until the first slice ends: what a run holds then is its runtime's start-up memory,
    /// which every run has, not growth.
    memory: Option<u64>,
}

impl Turn {
    /// A run before its first slice.
    pub(crate) fn new(slicing: Slicing) -> Self {
        Turn {
            slicing,
            memory: None,
        }
    }

    /// Ends a slice after which the run holds `memory` bytes: keep the thread, or yield it.
    pub(crate) fn slice(&mut self, memory: u64) -> UpdateDeadline {
        let grew = self
            .memory
            .is_some_and(|before| memory >= before.saturating_add(GROWTH_STEP));
        self.memory = Some(memory);
        if self.slicing == Slicing::GrowingFirst && grew {
            UpdateDeadline::Continue(1)
        } else {
            // Yielding lets the executor run timers and other runs between slices.
            UpdateDeadline::Yield(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(turn: &mut Turn, memory: u64) -> bool {
        matches!(turn.slice(memory), UpdateDeadline::Continue(1))
    }

    #[test]
    fn a_growing_run_keeps_the_thread_while_it_grows() {
        let mut turn = Turn::new(Slicing::GrowingFirst);
        // The first slice only sets the baseline (start-up memory is not growth).
        let kept_while_growing: Vec<bool> = (1..=6).map(|i| kept(&mut turn, i << 20)).collect();
        assert_eq!(kept_while_growing, [false, true, true, true, true, true]);
        // Growth stopped: it yields every slice, like any other run.
        assert!(!kept(&mut turn, 6 << 20));
        // Creeping by less than a step a slice is not growing.
        assert!(!kept(&mut turn, (6 << 20) + (1 << 16)));
    }

    #[test]
    fn round_robin_always_yields() {
        let mut turn = Turn::new(Slicing::RoundRobin);
        assert!((1..=5).all(|i| !kept(&mut turn, i << 20)));
    }
}
