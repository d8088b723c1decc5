//! HACPO (Heterogeneous Agent Collaborative Policy Optimization) and the baselines it is compared
//! with, as pure functions of rewards, capabilities and log-probs (arXiv 2603.02604: Algorithm 1 and its equations).
//!
//! - [`capability`]: each agent's smoothed accuracy P̂ and the ratios ω between agents.
//! - [`advantage`]: the capability-aware mixed baseline and the plain group baselines.
//! - [`loss`]: GSPO self terms, HACPO cross terms with exponential importance sampling and
//!   stepwise clipping, GRPO's token-level terms, the k3 KL penalty.
//! - [`calibration`]: the pair-calibrated window's offset per direction ([`CrossRule`]).
//! - [`staleness`]: asynchronous updates: which pooled rollouts are in time, the decoupled weight.

pub mod advantage;
pub mod calibration;
pub mod capability;
pub mod loss;
pub mod staleness;

use serde::{Deserialize, Serialize};

pub use advantage::{GroupMember, advantages};
pub use calibration::PairCalibration;
pub use capability::CapabilityTracker;
pub use loss::{LossOutput, SequenceSample, grpo_loss, kl_k3, sequence_loss};

/// Which update rule a run uses; everything else in a run is the same code path.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Algorithm {
    /// The full method: every agent learns from all agents' rollouts.
    Hacpo,
    /// Each agent alone, on its own G rollouts (sequence-level ratios).
    Gspo,
    /// Each agent alone with 2G rollouts per prompt (same rollout budget as two agents sharing).
    Gspo2x,
    /// Each agent alone, token-level PPO ratios.
    Grpo,
    /// Shares rollouts with a plain group baseline: no ω, no importance correction, no stepwise clip.
    Naive,
    /// A control for HACPO at its data budget: each agent learns from its own G rollouts with
    /// GSPO, plus supervised terms on the other agents' *correct* responses to the same prompts
    /// (rejection-sampling distillation). If this matches HACPO, the gain is the partner's data.
    Distill,
}

impl Algorithm {
    /// Whether a learner trains on other agents' rollouts.
    pub fn shares(self) -> bool {
        matches!(self, Self::Hacpo | Self::Naive)
    }

    /// Whether a learner imitates other agents' correct rollouts (without advantages or ratios).
    pub fn distills(self) -> bool {
        self == Self::Distill
    }

    /// Whether the loss compares token by token (GRPO's token ratios), so that the old policy's
    /// token log-probs must be taken before the first optimizer step; the others need only the
    /// sequence means recorded at rollout time.
    pub fn needs_token_logprobs(self) -> bool {
        self == Self::Grpo
    }

    /// Rollouts per prompt an agent generates, given the configured G.
    pub fn rollouts_per_prompt(self, g: usize) -> usize {
        if self == Self::Gspo2x { 2 * g } else { g }
    }
}

/// How a learner's sequences are ordered into its mini-batches m = 0, 1, ….
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MinibatchOrder {
    /// The authors' recipe: own sequences first, then cross, each in group order, never
    /// shuffled (their config refuses shuffling), then split as their data-parallel ranks split
    /// it ([`HacpoConfig::data_parallel_ranks`]): the list is cut into one contiguous part per
    /// rank and mini-batch m gathers the m-th slice of every part. On one rank cross samples meet
    /// only the later mini-batches' raised bounds; on their 8, every mini-batch holds both.
    #[default]
    OwnFirst,
    /// Own first, then cross, each part shuffled with the run's seed.
    OwnFirstShuffled,
    /// One seeded shuffle of own and cross sequences together (this trainer's default before
    /// issue 53).
    Shuffled,
}

/// Which sequences the KL penalty β·KL(π‖π_ref) is taken over.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KlScope {
    /// The authors': the learner's own sequences only (a cross sample's text is another model's,
    /// so the penalty gives it no gradient). Summed over own sequences, divided by the
    /// mini-batch's sequence count, as verl's `agg_loss` does with the global batch size.
    #[default]
    Own,
    /// Every sequence of the mini-batch, cross text included (before issue 53).
    All,
}

/// At which temperature log-probs are taken, both the ones recorded at rollout time (ℓ_old,
/// and the source's ℓ_{j,old} that cross ratios divide by) and the learner's during the update.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LogprobTemperature {
    /// The authors' (verl's): logits divided by the rollout temperature (1 when it is 0).
    #[default]
    Rollout,
    /// The raw policy, logits at temperature 1, whatever the sampling temperature.
    One,
}

impl LogprobTemperature {
    /// The divisor of the logits, given the run's sampling temperature.
    pub fn divisor(self, rollout_temperature: f64) -> f64 {
        match self {
            Self::Rollout if rollout_temperature > 0.0 => rollout_temperature,
            _ => 1.0,
        }
    }
}

/// What the cross ratio s compares (self ratios are always per token, as GSPO's).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CrossRatio {
    /// The paper's: log s = ℓ_k − ℓ_{j,old}, each a mean over its own tokenization's tokens.
    #[default]
    PerToken,
    /// Extension beyond the paper: log-likelihoods summed and divided by the response's UTF-8
    /// bytes, so that tokenizers of different granularity compare the same unit of text.
    PerByte,
}

impl CrossRatio {
    /// What ℓ divides a response's summed token log-prob by, in this unit.
    pub fn normaliser(self, tokens: usize, bytes: usize) -> f64 {
        match self {
            Self::PerToken => tokens as f64,
            Self::PerByte => bytes as f64,
        }
    }
}

/// Which cross samples carry gradient, and how much (issue 54: the paper's window assumes two
/// models agree on any text, which two tokenizers' models do not).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CrossRule {
    /// The paper's: c = clamp(s, lower_m, 1); a ratio below the window gives no gradient.
    #[default]
    Window,
    /// The window on the pair-calibrated ratio s / ŝ_{j→k} ([`calibration`]): s measured against
    /// what the learner typically gives that partner's text, not against 1.
    Calibrated,
    /// Truncated importance weights without a lower cut-off: c = min(s, 1), every sample with
    /// s ≤ 1 keeps its gradient (scaled by c·sg(c)^α, so a far-off sample counts little).
    Truncated,
}

/// Hyperparameters; the defaults are the paper's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HacpoConfig {
    /// The update rule.
    pub algorithm: Algorithm,
    /// Exponent α of the exponential importance sampling sg(c)^α.
    pub alpha: f64,
    /// δ: the cross-ratio lower bound starts at 1 − δ.
    pub delta: f64,
    /// δ_step: the lower bound rises by this much per optimizer step within a training step.
    pub delta_step: f64,
    /// K: steps averaged into the capability P̂.
    pub capability_window: usize,
    /// ω is clamped into [omega_min, omega_max].
    pub omega_min: f64,
    /// See `omega_min`.
    pub omega_max: f64,
    /// GSPO lower clip ε_low (sequence ratio ≥ 1 − ε_low).
    pub gspo_eps_low: f64,
    /// GSPO upper clip ε_high (sequence ratio ≤ 1 + ε_high).
    pub gspo_eps_high: f64,
    /// GRPO lower clip (token ratio ≥ 1 − ε).
    pub grpo_eps_low: f64,
    /// GRPO upper clip (token ratio ≤ 1 + ε).
    pub grpo_eps_high: f64,
    /// β of the KL(π‖π_ref) penalty (the paper's 0.001), each sequence's token-mean KL over
    /// the mini-batch as the official `seq-mean-token-mean` does; 0 disables it (and the
    /// reference model).
    pub kl_beta: f64,
    /// Which sequences the KL penalty covers.
    pub kl_scope: KlScope,
    /// Order of sequences across mini-batches.
    pub minibatch_order: MinibatchOrder,
    /// Ranks the `own_first` order is split across, as verl's data-parallel dispatch splits a
    /// learner's batch: 8 in the authors' runs (8 GPUs), 1 for their code on one GPU (fewer
    /// when a rank would hold less than one sequence per mini-batch).
    pub data_parallel_ranks: usize,
    /// Temperature of every log-prob the loss compares.
    pub logprob_temperature: LogprobTemperature,
    /// Unit of the cross importance ratio.
    pub cross_ratio: CrossRatio,
    /// Which cross samples carry gradient.
    pub cross_rule: CrossRule,
    /// K of the pair calibration: steps whose median cross ratio ŝ_{j→k} is taken over.
    pub calibration_window: usize,
    /// Weight of the distillation control's supervised term on a partner's correct response
    /// (its second tuning knob, beside the learning rate).
    pub distill_coef: f64,
    /// Ablation switch: the capability-weighted baseline μ̂_k (off: plain mean of the n·G rewards).
    pub capability_baseline: bool,
    /// Ablation switch: ω(j,k) scaling of cross terms (off: 1).
    pub omega_in_loss: bool,
    /// Ablation switch: the lower bound rises with the optimizer step (off: fixed at 1 − δ).
    pub stepwise_clip: bool,
    /// Cap of the decoupled weight π_prox / π_behav of a stale own sample ([`staleness`];
    /// AReaL's `behav_imp_weight_cap`). Written out only where it differs from the default: it
    /// acts in asynchronous runs alone, and the settings of runs recorded before it existed (an
    /// experiment's ledger keys) must still read as the same settings.
    #[serde(skip_serializing_if = "is_default_cap")]
    pub behaviour_weight_cap: f64,
}

/// The default [`HacpoConfig::behaviour_weight_cap`].
const DEFAULT_BEHAVIOUR_WEIGHT_CAP: f64 = 5.0;

fn is_default_cap(cap: &f64) -> bool {
    *cap == DEFAULT_BEHAVIOUR_WEIGHT_CAP
}

impl Default for HacpoConfig {
    fn default() -> Self {
        Self {
            algorithm: Algorithm::Hacpo,
            alpha: 1.0,
            delta: 0.2,
            delta_step: 0.025,
            capability_window: 5,
            omega_min: 0.1,
            omega_max: 10.0,
            gspo_eps_low: 3e-4,
            gspo_eps_high: 4e-4,
            grpo_eps_low: 0.2,
            grpo_eps_high: 0.28,
            kl_beta: 0.001,
            kl_scope: KlScope::Own,
            minibatch_order: MinibatchOrder::OwnFirst,
            data_parallel_ranks: 8,
            logprob_temperature: LogprobTemperature::Rollout,
            cross_ratio: CrossRatio::PerToken,
            cross_rule: CrossRule::Window,
            calibration_window: 5,
            distill_coef: 1.0,
            capability_baseline: true,
            omega_in_loss: true,
            stepwise_clip: true,
            behaviour_weight_cap: DEFAULT_BEHAVIOUR_WEIGHT_CAP,
        }
    }
}

impl HacpoConfig {
    /// Whether the loss has a KL term, and so needs each agent's frozen starting model.
    pub fn needs_reference_model(&self) -> bool {
        self.kl_beta > 0.0
    }

    /// Below which a cross ratio (calibrated, under that rule) carries no gradient at
    /// optimizer step `m`: the window's lower bound, or 0 for truncated weights.
    pub fn gradient_floor(&self, m: usize) -> f64 {
        match self.cross_rule {
            CrossRule::Window | CrossRule::Calibrated => self.cross_lower_bound(m),
            CrossRule::Truncated => 0.0,
        }
    }

    /// Lower bound of the cross-sample ratio at optimizer step `m` (0-based within a training step).
    pub fn cross_lower_bound(&self, m: usize) -> f64 {
        let rise = if self.stepwise_clip {
            m as f64 * self.delta_step
        } else {
            0.0
        };
        (1.0 - self.delta + rise).min(1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lower_bounds_follow_the_paper_schedule() {
        let c = HacpoConfig::default();
        let bounds: Vec<f64> = (0..4).map(|m| c.cross_lower_bound(m)).collect();
        for (b, want) in bounds.iter().zip([0.8, 0.825, 0.85, 0.875]) {
            assert!((b - want).abs() < 1e-12, "{bounds:?}");
        }
        assert_eq!(c.cross_lower_bound(100), 1.0);
        let fixed = HacpoConfig {
            stepwise_clip: false,
            ..c
        };
        assert!((fixed.cross_lower_bound(3) - 0.8).abs() < 1e-12);
    }

    #[test]
    fn the_authors_recipe_is_the_default_and_temperature_divides_only_when_sampling() {
        let c = HacpoConfig::default();
        assert_eq!(c.minibatch_order, MinibatchOrder::OwnFirst);
        assert_eq!(c.kl_scope, KlScope::Own);
        assert_eq!(LogprobTemperature::Rollout.divisor(0.7), 0.7);
        assert_eq!(
            LogprobTemperature::Rollout.divisor(0.0),
            1.0,
            "greedy: raw logits"
        );
        assert_eq!(LogprobTemperature::One.divisor(0.7), 1.0);
    }

    #[test]
    fn only_gspo2x_doubles_rollouts_and_only_sharing_rules_share() {
        assert_eq!(Algorithm::Gspo2x.rollouts_per_prompt(4), 8);
        assert_eq!(Algorithm::Hacpo.rollouts_per_prompt(4), 4);
        assert!(Algorithm::Hacpo.shares() && Algorithm::Naive.shares());
        assert!(
            !Algorithm::Gspo.shares() && !Algorithm::Grpo.shares() && !Algorithm::Gspo2x.shares()
        );
        // Distillation reads the partner's correct responses, but its advantages stay its own.
        assert!(!Algorithm::Distill.shares() && Algorithm::Distill.distills());
        assert_eq!(Algorithm::Distill.rollouts_per_prompt(4), 4);
    }

    #[test]
    fn only_grpo_needs_token_logprobs_and_only_kl_a_reference() {
        assert!(Algorithm::Grpo.needs_token_logprobs());
        assert!(
            [
                Algorithm::Hacpo,
                Algorithm::Gspo,
                Algorithm::Gspo2x,
                Algorithm::Naive,
                Algorithm::Distill
            ]
            .iter()
            .all(|a| !a.needs_token_logprobs())
        );
        let c = HacpoConfig::default();
        assert!(c.needs_reference_model(), "the paper's β = 0.001");
        assert!(!HacpoConfig { kl_beta: 0.0, ..c }.needs_reference_model());
    }
}
