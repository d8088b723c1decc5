//! Advantages of every response in a prompt group, for one learner (HACPO §2).

use super::{Algorithm, CapabilityTracker, HacpoConfig};

/// One response of a prompt group: who wrote it and its reward.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GroupMember {
    /// Index of the agent that generated it.
    pub source: usize,
    /// Verifier reward in [0, 1].
    pub reward: f64,
}

/// Added to σ so that nearly-equal rewards do not explode the advantages.
const SIGMA_EPS: f64 = 1e-6;

/// Advantages for `learner` of every member of one prompt group, in member order.
///
/// Sharing rules (`hacpo`, `naive`) use the whole group (all agents' responses); the isolated
/// rules use the learner's own responses only and give 0 to the rest (those are not trained on).
/// HACPO's baseline is μ̂_k = (1/N)·Σ ω(k,j)·R (plain mean when `capability_baseline` is off, or
/// the learner's own mean when μ̂_k exceeds the maximum reward 1); σ is the unbiased std of the
/// rewards used, plus 1e-6; all-equal rewards give zero advantages.
pub fn advantages(
    group: &[GroupMember],
    learner: usize,
    caps: &CapabilityTracker,
    cfg: &HacpoConfig,
) -> Vec<f64> {
    let used: Vec<bool> = group
        .iter()
        .map(|m| cfg.algorithm.shares() || m.source == learner)
        .collect();
    let rewards: Vec<f64> = group
        .iter()
        .zip(&used)
        .filter(|(_, u)| **u)
        .map(|(m, _)| m.reward)
        .collect();
    if rewards.len() < 2 || rewards.iter().all(|&r| r == rewards[0]) {
        return vec![0.0; group.len()];
    }
    let n = rewards.len() as f64;
    let plain_mean = rewards.iter().sum::<f64>() / n;
    let sigma = (rewards
        .iter()
        .map(|r| (r - plain_mean).powi(2))
        .sum::<f64>()
        / (n - 1.0))
        .sqrt()
        + SIGMA_EPS;
    let baseline = if cfg.algorithm == Algorithm::Hacpo && cfg.capability_baseline {
        let mixed = group
            .iter()
            .map(|m| caps.omega(learner, m.source) * m.reward)
            .sum::<f64>()
            / n;
        if mixed > 1.0 {
            let own: Vec<f64> = group
                .iter()
                .filter(|m| m.source == learner)
                .map(|m| m.reward)
                .collect();
            if own.is_empty() {
                plain_mean
            } else {
                own.iter().sum::<f64>() / own.len() as f64
            }
        } else {
            mixed
        }
    } else {
        plain_mean
    };
    group
        .iter()
        .zip(&used)
        .map(|(m, &u)| {
            if u {
                (m.reward - baseline) / sigma
            } else {
                0.0
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn worked_example() -> (Vec<GroupMember>, CapabilityTracker) {
        // HACPO.md §8: P̂_a = 0.4, P̂_b = 0.8; rewards a: [1, 0], b: [1, 1].
        let mut caps = CapabilityTracker::new(2, 5, 0.1, 10.0);
        caps.record(&[0.4, 0.8]);
        let g = vec![
            GroupMember {
                source: 0,
                reward: 1.0,
            },
            GroupMember {
                source: 0,
                reward: 0.0,
            },
            GroupMember {
                source: 1,
                reward: 1.0,
            },
            GroupMember {
                source: 1,
                reward: 1.0,
            },
        ];
        (g, caps)
    }

    fn close(a: &[f64], b: &[f64]) {
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(b) {
            assert!((x - y).abs() < 1e-5, "{a:?} vs {b:?}");
        }
    }

    #[test]
    fn worked_example_advantages() {
        let (g, caps) = worked_example();
        let cfg = HacpoConfig::default();
        close(
            &advantages(&g, 0, &caps, &cfg),
            &[0.999998, -0.999998, 0.999998, 0.999998],
        );
        close(&advantages(&g, 1, &caps, &cfg), &[0.0, -1.999996, 0.0, 0.0]);
    }

    #[test]
    fn guards_equal_rewards_and_baseline_above_max() {
        let (mut g, mut caps) = worked_example();
        let cfg = HacpoConfig::default();
        for m in &mut g {
            m.reward = 1.0;
        }
        assert_eq!(advantages(&g, 0, &caps, &cfg), vec![0.0; 4]);
        // b ten times stronger than a: μ̂_b = (10·1 + 10·0 + 1 + 1)/4 = 3 > 1, so b's baseline
        // falls back to its own mean 1.0.
        let (g, _) = worked_example();
        caps = CapabilityTracker::new(2, 5, 0.1, 10.0);
        caps.record(&[0.05, 0.5]);
        let a = advantages(&g, 1, &caps, &cfg);
        close(&a, &[0.0, -1.999996, 0.0, 0.0]);
    }

    #[test]
    fn ablation_and_isolated_baselines() {
        let (g, caps) = worked_example();
        let plain = HacpoConfig {
            capability_baseline: false,
            ..HacpoConfig::default()
        };
        // Plain mean 0.75, σ 0.5: (1 − 0.75)/0.5 = 0.5.
        close(
            &advantages(&g, 0, &caps, &plain),
            &[0.499999, -1.499997, 0.499999, 0.499999],
        );
        let naive = HacpoConfig {
            algorithm: Algorithm::Naive,
            ..HacpoConfig::default()
        };
        assert_eq!(
            advantages(&g, 0, &caps, &naive),
            advantages(&g, 0, &caps, &plain)
        );
        let gspo = HacpoConfig {
            algorithm: Algorithm::Gspo,
            ..HacpoConfig::default()
        };
        // Own rewards [1, 0]: mean 0.5, σ = 0.7071: ±0.7071; others untouched.
        let h = std::f64::consts::FRAC_1_SQRT_2;
        close(&advantages(&g, 0, &caps, &gspo), &[h, -h, 0.0, 0.0]);
        assert_eq!(advantages(&g, 1, &caps, &gspo), vec![0.0; 4]); // b's own rewards all equal
    }
}
