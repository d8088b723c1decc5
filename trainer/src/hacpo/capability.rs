//! Capability: P̂_j, the mean of agent j's per-step accuracy over the last K steps, and the
//! capability ratios ω built from it (HACPO §1). Each agent's window is its own last K steps,
//! which in an asynchronous run ([`super::staleness`]) need not be the learner's.

use std::collections::BTreeMap;

/// Floor of P̂, so that ratios stay finite when an agent solves nothing.
const FLOOR: f64 = 1e-8;

/// Tracks every agent's accuracy over a sliding window of training steps.
#[derive(Debug, Clone, PartialEq)]
pub struct CapabilityTracker {
    window: usize,
    omega_min: f64,
    omega_max: f64,
    /// Per agent, P_{j,t} by step t: its last `window` steps.
    history: Vec<BTreeMap<u64, f64>>,
    /// Steps recorded for every agent at once ([`Self::record`]).
    steps: u64,
}

impl CapabilityTracker {
    /// A tracker for `agents` agents averaging the last `window` steps, with ω clamped to
    /// [`omega_min`, `omega_max`].
    pub fn new(agents: usize, window: usize, omega_min: f64, omega_max: f64) -> Self {
        assert!(
            window >= 1,
            "the capability window must be at least one step"
        );
        Self {
            window,
            omega_min,
            omega_max,
            history: vec![BTreeMap::new(); agents],
            steps: 0,
        }
    }

    /// Records the next training step for every agent: `accuracy[j]` is agent j's mean reward
    /// over all its rollouts in the step's batch (P_{j,t}). Call before computing the step's
    /// advantages.
    pub fn record(&mut self, accuracy: &[f64]) {
        assert_eq!(accuracy.len(), self.history.len(), "one accuracy per agent");
        self.steps += 1;
        for (j, &p) in accuracy.iter().enumerate() {
            self.record_at(j, self.steps, p);
        }
    }

    /// Records P_{j,t} of agent `j` alone, for step `t` (again: replaced); only its `window`
    /// latest steps are kept, so a step older than all of them is dropped.
    pub fn record_at(&mut self, j: usize, t: u64, p: f64) {
        let h = &mut self.history[j];
        h.insert(t, p);
        while h.len() > self.window {
            h.pop_first();
        }
    }

    /// P̂_j: mean over the recorded window (fewer steps at the start), floored at 1e-8.
    /// Before any step every agent counts as equally capable (ratios 1).
    pub fn capability(&self, j: usize) -> f64 {
        let h = &self.history[j];
        if h.is_empty() {
            return 1.0;
        }
        (h.values().sum::<f64>() / h.len() as f64).max(FLOOR)
    }

    /// ω(k, j) = clamp(P̂_k / P̂_j, ω_min, ω_max), and 1 for k = j.
    pub fn omega(&self, k: usize, j: usize) -> f64 {
        if k == j {
            return 1.0;
        }
        (self.capability(k) / self.capability(j)).clamp(self.omega_min, self.omega_max)
    }

    /// Number of agents tracked.
    pub fn agents(&self) -> usize {
        self.history.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_average_floor_and_clamped_ratios() {
        let mut t = CapabilityTracker::new(2, 2, 0.1, 10.0);
        assert_eq!(t.omega(0, 1), 1.0);
        t.record(&[0.2, 0.8]);
        t.record(&[0.6, 0.8]);
        assert!((t.capability(0) - 0.4).abs() < 1e-12);
        assert!((t.omega(1, 0) - 2.0).abs() < 1e-12);
        assert!((t.omega(0, 1) - 0.5).abs() < 1e-12);
        t.record(&[0.0, 0.8]); // window of 2: [0.6, 0.0]
        assert!((t.capability(0) - 0.3).abs() < 1e-12);
        t.record(&[0.0, 0.8]);
        assert_eq!(t.capability(0), 1e-8);
        assert_eq!(t.omega(1, 0), 10.0);
        assert_eq!(t.omega(0, 1), 0.1);
        assert_eq!(t.omega(1, 1), 1.0);
    }

    #[test]
    fn each_agent_averages_its_own_latest_steps() {
        // Asynchronous: the learner (0) is at step 4, its partner (1) has steps 1 and 2 only.
        let mut t = CapabilityTracker::new(2, 3, 0.1, 10.0);
        for (s, p) in [(1, 0.1), (2, 0.2), (3, 0.3), (4, 0.4)] {
            t.record_at(0, s, p);
        }
        t.record_at(1, 2, 0.6);
        t.record_at(1, 1, 0.8);
        assert!(
            (t.capability(0) - 0.3).abs() < 1e-12,
            "steps 2-4: (0.2+0.3+0.4)/3"
        );
        assert!((t.capability(1) - 0.7).abs() < 1e-12);
        assert!((t.omega(1, 0) - 0.7 / 0.3).abs() < 1e-12);
        // A step recorded again replaces its value; one older than the window is dropped.
        t.record_at(1, 2, 0.2);
        assert!((t.capability(1) - 0.5).abs() < 1e-12);
        t.record_at(0, 1, 0.9);
        assert!((t.capability(0) - 0.3).abs() < 1e-12);
    }
}
