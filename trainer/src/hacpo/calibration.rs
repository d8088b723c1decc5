//! The pair-calibrated window (issue 54, beyond the paper): a cross ratio s mixes how
//! off-policy a sample is for the learner with a constant offset between two independently
//! trained models (and two token granularities) on *any* text. The calibration estimates that
//! offset per direction j → k as ŝ_{j→k}, the median over the last K steps of each step's
//! median s, and HACPO's window then applies to s̃ = s / ŝ_{j→k}.

use std::collections::{BTreeMap, VecDeque};

/// Each direction's recent per-step median cross ratios.
#[derive(Debug, Clone, PartialEq)]
pub struct PairCalibration {
    window: usize,
    medians: BTreeMap<(usize, usize), VecDeque<f64>>,
}

impl PairCalibration {
    /// A calibration over the last `window` steps.
    pub const fn new(window: usize) -> Self {
        assert!(
            window >= 1,
            "the calibration window must be at least one step"
        );
        Self {
            window,
            medians: BTreeMap::new(),
        }
    }

    /// Records one step's median raw ratio s of source `j`'s samples as learner `k` scored them
    /// (skipped when not finite: a step without such samples).
    pub fn record(&mut self, j: usize, k: usize, median: f64) {
        if !median.is_finite() || median <= 0.0 {
            return;
        }
        let h = self.medians.entry((j, k)).or_default();
        if h.len() == self.window {
            h.pop_front();
        }
        h.push_back(median);
    }

    /// ŝ_{j→k}: the median of the recorded medians; 1 (no calibration, HACPO's window) before
    /// any step recorded one.
    pub fn offset(&self, j: usize, k: usize) -> f64 {
        let Some(h) = self.medians.get(&(j, k)).filter(|h| !h.is_empty()) else {
            return 1.0;
        };
        let mut v: Vec<f64> = h.iter().copied().collect();
        v.sort_by(f64::total_cmp);
        let n = v.len();
        if n % 2 == 1 {
            v[n / 2]
        } else {
            (v[n / 2 - 1] * v[n / 2]).sqrt()
        }
    }
}

/// ℓ_{j,old} shifted so that the loss's ratio is the calibrated one:
/// exp(ℓ_k − (ℓ_{j,old} + ln ŝ)) = s / ŝ.
pub fn calibrated_old_logprob(old_logprob: f64, offset: f64) -> f64 {
    old_logprob + offset.ln()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_offset_is_the_median_of_recent_step_medians_and_one_before_any() {
        let mut c = PairCalibration::new(3);
        assert_eq!(c.offset(0, 1), 1.0, "uncalibrated: HACPO's window");
        c.record(0, 1, 0.1);
        assert_eq!(c.offset(0, 1), 0.1);
        assert_eq!(c.offset(1, 0), 1.0, "each direction apart");
        c.record(0, 1, 0.4);
        // An even count: the geometric middle of the two middle values (ratios multiply).
        assert!((c.offset(0, 1) - 0.2).abs() < 1e-12);
        c.record(0, 1, 0.3);
        c.record(0, 1, f64::NAN);
        assert_eq!(c.offset(0, 1), 0.3);
        c.record(0, 1, 0.9); // window of 3: [0.4, 0.3, 0.9]
        assert_eq!(c.offset(0, 1), 0.4);
        // A cross sample whose ratio is the pair's typical 0.4 sits at s̃ = 1.
        let (ell_k, ell_j) = (-2.0f64, -2.0 - 0.4f64.ln());
        let shifted = calibrated_old_logprob(ell_j, c.offset(0, 1));
        assert!(((ell_k - shifted).exp() - 1.0).abs() < 1e-12);
        assert_eq!(
            calibrated_old_logprob(-1.5, 1.0),
            -1.5,
            "offset 1 changes nothing"
        );
    }
}
