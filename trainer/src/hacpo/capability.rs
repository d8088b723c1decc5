//! Capability: P̂_j, the mean of agent j's per-step accuracy over the last K steps, and the
//! capability ratios ω built from it (HACPO §1).

use std::collections::VecDeque;

/// Floor of P̂, so that ratios stay finite when an agent solves nothing.
const FLOOR: f64 = 1e-8;

/// Tracks every agent's accuracy over a sliding window of training steps.
#[derive(Debug, Clone, PartialEq)]
pub struct CapabilityTracker {
    window: usize,
    omega_min: f64,
    omega_max: f64,
    history: Vec<VecDeque<f64>>,
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
            history: vec![VecDeque::with_capacity(window); agents],
        }
    }

    /// Records one training step: `accuracy[j]` is agent j's mean reward over all its rollouts
    /// in the step's batch (P_{j,t}). Call before computing the step's advantages.
    pub fn record(&mut self, accuracy: &[f64]) {
        assert_eq!(accuracy.len(), self.history.len(), "one accuracy per agent");
        for (h, &p) in self.history.iter_mut().zip(accuracy) {
            if h.len() == self.window {
                h.pop_front();
            }
            h.push_back(p);
        }
    }

    /// P̂_j: mean over the recorded window (fewer steps at the start), floored at 1e-8.
    /// Before any step every agent counts as equally capable (ratios 1).
    pub fn capability(&self, j: usize) -> f64 {
        let h = &self.history[j];
        if h.is_empty() {
            return 1.0;
        }
        (h.iter().sum::<f64>() / h.len() as f64).max(FLOOR)
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
}
