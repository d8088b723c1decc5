//! What a training step measured, and its two renderings: one `train_metrics` row per agent
//! (through the verifier's `/v1/metrics`) and the step's log line.

use std::collections::BTreeMap;

use anyhow::Result;
use serde::{Deserialize, Serialize};
use uuid::Uuid;
use wire::StepMetrics;

use super::agent::Agent;
use crate::config::RunConfig;
use crate::gate::quantiles;
use crate::hacpo::{Algorithm, CapabilityTracker, SequenceSample};

/// What a learner's update in one step measured.
#[derive(Debug, Default, Clone, PartialEq, Serialize)]
pub struct UpdateStats {
    /// Mean loss over mini-batches.
    pub loss: f64,
    /// Fraction of sequences outside their clip range.
    pub clip_fraction: f64,
    /// Mean KL to the reference (0 without one).
    pub kl: f64,
    /// Mean gradient norm before clipping.
    pub grad_norm: f64,
    /// Sequences trained on (own + others').
    pub sequences: usize,
    /// Of which written by other agents.
    pub cross_sequences: usize,
    /// Mean importance ratio of cross sequences.
    pub cross_ratio_mean: f64,
    /// Sequences skipped because they are empty or do not fit the learner's context.
    pub skipped: usize,
    /// The split by origin (own / cross).
    pub origin: OriginStats,
    /// ‖θ − θ₀‖ after the update, θ₀ the run's starting weights (`None` without a reference).
    pub displacement: Option<f64>,
    /// Per source agent k of cross samples: the 10/25/50/75/90% quantiles of their ratio s
    /// (raw: before any calibration).
    pub cross_ratio_quantiles: BTreeMap<usize, [f64; 5]>,
    /// Per source agent j: the calibration offset ŝ_{j→k} the update divided s by (only under
    /// [`crate::hacpo::CrossRule::Calibrated`]).
    pub calibration_offsets: BTreeMap<usize, f64>,
    /// Every rollout the update trained on.
    pub uses: Vec<RolloutUse>,
    /// Mean staleness of the partner rollouts it trained on (none: it had none).
    pub cross_staleness_mean: Option<f64>,
}

/// A pooled rollout an update trained on, and how many of the learner's updates old it was
/// (`hacpo::staleness`): the pool's `rollout_uses` view reads these from `train_metrics`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct RolloutUse {
    /// The rollout.
    pub id: Uuid,
    /// Learner updates since the weights that generated it (0: on-policy).
    pub staleness: u64,
}

/// Sums over one update's sequences and mini-batches, turned into [`UpdateStats`] at the end.
#[derive(Debug, Default)]
pub(super) struct UpdateTally {
    /// Σ mini-batch losses.
    pub(super) loss: f64,
    /// Σ mini-batch KL.
    pub(super) kl: f64,
    /// Σ per-sequence KL of the learner's own sequences.
    pub(super) kl_own: f64,
    /// Σ mini-batch gradient norms.
    pub(super) grad_norm: f64,
    own: Origin,
    cross: Origin,
    /// Cross sequences below / inside / above the window.
    window: [usize; 3],
    /// Σ cross ratios.
    cross_ratio: f64,
    /// Cross ratios by source agent.
    ratios: BTreeMap<usize, Vec<f64>>,
}

/// Sums over the sequences of one origin (own or cross).
#[derive(Debug, Default)]
struct Origin {
    n: usize,
    clipped: f64,
    adv_abs: f64,
    tokens: usize,
    entropy: f64,
}

impl UpdateTally {
    /// Counts one sequence: its source agent and sample, its ratio as the loss saw it with the
    /// calibration offset it was divided by (1 for none), clipped share, the mini-batch's
    /// gradient floor, its length and mean entropy.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn add(
        &mut self,
        source: usize,
        s: &SequenceSample,
        (ratio, offset): (f64, f64),
        clipped: f64,
        lower: f64,
        tokens: usize,
        entropy: f64,
    ) {
        let o = if s.cross {
            let w = if ratio < lower {
                0
            } else if ratio <= 1.0 {
                1
            } else {
                2
            };
            self.window[w] += 1;
            self.cross_ratio += ratio;
            self.ratios.entry(source).or_default().push(ratio * offset);
            &mut self.cross
        } else {
            &mut self.own
        };
        o.n += 1;
        o.clipped += clipped;
        o.adv_abs += s.advantage.abs();
        o.tokens += tokens;
        o.entropy += entropy;
    }

    /// The update's statistics over `minibatches` optimizer steps.
    pub(super) fn finish(
        self,
        minibatches: usize,
        skipped: usize,
        displacement: Option<f64>,
    ) -> UpdateStats {
        let per = |x: f64, n: usize| if n == 0 { 0.0 } else { x / n as f64 };
        let (own, cross) = (&self.own, &self.cross);
        let m = minibatches.max(1);
        UpdateStats {
            loss: per(self.loss, m),
            clip_fraction: per(own.clipped + cross.clipped, own.n + cross.n),
            kl: per(self.kl, m),
            grad_norm: per(self.grad_norm, m),
            sequences: own.n + cross.n,
            cross_sequences: cross.n,
            cross_ratio_mean: per(self.cross_ratio, cross.n),
            skipped,
            displacement,
            cross_ratio_quantiles: self
                .ratios
                .into_iter()
                .map(|(j, r)| (j, quantiles(r)))
                .collect(),
            calibration_offsets: BTreeMap::new(),
            uses: Vec::new(),
            cross_staleness_mean: None,
            origin: OriginStats {
                kl_own: per(self.kl_own, own.n),
                clip_own: per(own.clipped, own.n),
                clip_cross: per(cross.clipped, cross.n),
                cross_below: per(self.window[0] as f64, cross.n),
                cross_inside: per(self.window[1] as f64, cross.n),
                cross_above: per(self.window[2] as f64, cross.n),
                adv_abs_own: per(own.adv_abs, own.n),
                adv_abs_cross: per(cross.adv_abs, cross.n),
                response_tokens: per(own.tokens as f64, own.n),
                entropy: per(own.entropy, own.n),
            },
        }
    }
}

/// One step's measurements: every agent's accuracy at its position k in the run, each of this
/// process's learners' update and evaluation in the order of its learners.
pub(super) struct StepOutcome {
    /// P_{k,t}: mean reward of each agent's rollouts.
    pub(super) accuracy: Vec<f64>,
    /// Each learner's update.
    pub(super) stats: Vec<UpdateStats>,
    /// Each learner's held-out greedy pass@1, in steps that evaluate.
    pub(super) eval_accuracy: Option<Vec<f64>>,
    /// Wall time of generation, scoring and read-back, waiting included.
    pub(super) generate_seconds: f64,
    /// Of which waiting for other agents' rollouts (the barrier; 0 in an asynchronous run).
    pub(super) wait_seconds: f64,
    /// Wall time of every learner's update.
    pub(super) train_seconds: f64,
    /// Wall time of the weight sync to serving engines (0 without one).
    pub(super) sync_seconds: f64,
    /// Wall time of the held-out evaluation (0 in steps that do not evaluate).
    pub(super) eval_seconds: f64,
    /// Seconds since this process's training began, at the end of the step (a resumed run
    /// continues from its last logged value): the clock accuracy is read against.
    pub(super) elapsed_seconds: f64,
}

/// The `extra` column of a `train_metrics` row: serialized into [`StepMetrics::extra`].
#[derive(Debug, Serialize)]
pub struct StepExtra {
    /// The run's update rule.
    pub algorithm: Algorithm,
    /// P̂ of the agent.
    pub capability: f64,
    /// ω(j, k) for every other agent j, by name.
    pub omega_source_over_learner: BTreeMap<String, f64>,
    /// Sequences trained on.
    pub sequences: usize,
    /// Of which written by other agents.
    pub cross_sequences: usize,
    /// Mean importance ratio of cross sequences.
    pub cross_ratio_mean: f64,
    /// Sequences that were empty or did not fit the context.
    pub skipped: usize,
    /// Own and cross diagnostics of the update.
    #[serde(flatten)]
    pub origin: OriginStats,
    /// ‖θ − θ₀‖ after the update (absent without a reference model).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub displacement: Option<f64>,
    /// Per source agent (by name): 10/25/50/75/90% quantiles of the cross ratio s of its
    /// responses under this learner, beside the window [lower_m, 1] they must fall in.
    pub cross_ratio_quantiles: BTreeMap<String, [f64; 5]>,
    /// lower_m of the update's first and last mini-batch: the window's lower edge, which the
    /// quantiles are read against (absent for rules that take no cross samples; 0 for
    /// truncated weights, which have none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cross_window_lower: Option<[f64; 2]>,
    /// Per source agent (by name): the calibration offset ŝ the window was applied after
    /// (only under the calibrated rule).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub calibration_offset: BTreeMap<String, f64>,
    /// Held-out accuracy, in steps that evaluate.
    pub eval_accuracy: Option<f64>,
    /// Wall time of generation, scoring and read-back, waiting included.
    pub generate_seconds: f64,
    /// Of which waiting for other agents' rollouts: this agent's idle time in the step.
    pub wait_seconds: f64,
    /// Wall time of every learner's update.
    pub train_seconds: f64,
    /// Wall time of the weight sync to serving engines (0 without one).
    pub sync_seconds: f64,
    /// Wall time of the held-out evaluation (0 in steps that do not evaluate).
    pub eval_seconds: f64,
    /// Seconds since the agent's training began, at the end of the step.
    pub elapsed_seconds: f64,
    /// Every rollout the update trained on, with its staleness.
    pub uses: Vec<RolloutUse>,
    /// Mean staleness of the partner rollouts among them (absent: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cross_staleness_mean: Option<f64>,
}

/// An update's diagnostics split by origin (own / cross), flattened into `extra` keys of
/// `train_metrics`.
#[derive(Debug, Default, Clone, PartialEq, Serialize)]
pub struct OriginStats {
    /// Mean KL to the reference over the learner's own sequences only: comparable between
    /// rules that do and do not add other agents' text to the mini-batch.
    pub kl_own: f64,
    /// Fraction of own sequences outside the GSPO range (GRPO: of own tokens).
    pub clip_own: f64,
    /// Fraction of cross sequences outside [lower_m, 1]: no gradient (naive sharing: none).
    pub clip_cross: f64,
    /// Fraction of cross sequences whose s lies below the mini-batch's lower bound lower_m.
    pub cross_below: f64,
    /// Fraction of cross sequences whose s lies in [lower_m, 1].
    pub cross_inside: f64,
    /// Fraction of cross sequences whose s lies above 1.
    pub cross_above: f64,
    /// Mean |A| of own sequences.
    pub adv_abs_own: f64,
    /// Mean |A| of cross sequences.
    pub adv_abs_cross: f64,
    /// Mean tokens of the learner's own responses.
    pub response_tokens: f64,
    /// Mean per-token entropy (nats) of the learner's policy on its own responses.
    pub entropy: f64,
}

impl StepOutcome {
    /// The row of learner `i` of `learners` ((k, agent) pairs).
    pub(super) fn metrics(
        &self,
        i: usize,
        learners: &[(usize, Agent)],
        tracker: &CapabilityTracker,
        cfg: &RunConfig,
        step: usize,
    ) -> Result<StepMetrics> {
        let (k, agent) = (learners[i].0, &learners[i].1);
        let s = &self.stats[i];
        Ok(StepMetrics {
            run: cfg.run.name.clone(),
            agent_id: agent.id,
            step: step as i64,
            loss: Some(s.loss),
            reward_mean: Some(self.accuracy[k]),
            accuracy: Some(self.accuracy[k]),
            clip_fraction: Some(s.clip_fraction),
            kl: Some(s.kl),
            grad_norm: Some(s.grad_norm),
            extra: serde_json::to_value(StepExtra {
                algorithm: cfg.algorithm.algorithm,
                capability: tracker.capability(k),
                omega_source_over_learner: cfg
                    .agents
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != k)
                    .map(|(j, b)| (b.name.clone(), tracker.omega(j, k)))
                    .collect(),
                sequences: s.sequences,
                cross_sequences: s.cross_sequences,
                cross_ratio_mean: s.cross_ratio_mean,
                skipped: s.skipped,
                origin: s.origin.clone(),
                displacement: s.displacement,
                cross_ratio_quantiles: s
                    .cross_ratio_quantiles
                    .iter()
                    .map(|(&j, q)| (cfg.agents[j].name.clone(), *q))
                    .collect(),
                cross_window_lower: cfg.algorithm.algorithm.shares().then(|| {
                    let last = cfg.run.minibatches.max(1) - 1;
                    [0, last].map(|m| cfg.algorithm.gradient_floor(m))
                }),
                calibration_offset: s
                    .calibration_offsets
                    .iter()
                    .map(|(&j, o)| (cfg.agents[j].name.clone(), *o))
                    .collect(),
                eval_accuracy: self.eval_accuracy.as_ref().map(|e| e[i]),
                generate_seconds: self.generate_seconds,
                wait_seconds: self.wait_seconds,
                train_seconds: self.train_seconds,
                sync_seconds: self.sync_seconds,
                eval_seconds: self.eval_seconds,
                elapsed_seconds: self.elapsed_seconds,
                uses: s.uses.clone(),
                cross_staleness_mean: s.cross_staleness_mean,
            })?,
            created_at: None,
        })
    }

    /// `name: acc=… loss=… clip=… [eval=…]` for every learner, for the step's log line.
    pub(super) fn summary(&self, learners: &[(usize, Agent)]) -> String {
        let parts: Vec<String> = learners
            .iter()
            .enumerate()
            .map(|(i, (k, a))| {
                let eval = self
                    .eval_accuracy
                    .as_ref()
                    .map_or(String::new(), |e| format!(" eval={:.3}", e[i]));
                format!(
                    "{}: acc={:.3} loss={:.4} clip={:.2}{eval}",
                    a.cfg.name, self.accuracy[*k], self.stats[i].loss, self.stats[i].clip_fraction
                )
            })
            .collect();
        parts.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use uuid::Uuid;

    use super::*;

    #[test]
    fn a_row_serializes_to_the_columns_and_extra_keys_of_train_metrics() {
        let id = Uuid::new_v4();
        let row = StepMetrics {
            run: "r".into(),
            agent_id: id,
            step: 3,
            loss: Some(0.5),
            reward_mean: Some(0.25),
            accuracy: Some(0.25),
            clip_fraction: Some(0.1),
            kl: Some(0.0),
            grad_norm: Some(2.0),
            extra: serde_json::to_value(StepExtra {
                algorithm: Algorithm::Hacpo,
                capability: 0.3,
                omega_source_over_learner: [("b".to_string(), 2.0)].into(),
                sequences: 8,
                cross_sequences: 4,
                cross_ratio_mean: 0.9,
                skipped: 0,
                origin: OriginStats {
                    kl_own: 0.125,
                    clip_own: 0.25,
                    clip_cross: 0.5,
                    cross_below: 0.5,
                    cross_inside: 0.25,
                    cross_above: 0.25,
                    adv_abs_own: 0.75,
                    adv_abs_cross: 0.5,
                    response_tokens: 12.0,
                    entropy: 1.5,
                },
                displacement: Some(0.75),
                cross_ratio_quantiles: [("b".to_string(), [0.7, 0.8, 0.9, 0.95, 1.1])].into(),
                cross_window_lower: Some([0.8, 0.875]),
                calibration_offset: BTreeMap::new(),
                eval_accuracy: None,
                generate_seconds: 1.5,
                wait_seconds: 0.25,
                train_seconds: 2.5,
                sync_seconds: 0.5,
                eval_seconds: 0.0,
                elapsed_seconds: 30.25,
                uses: vec![RolloutUse { id, staleness: 1 }],
                cross_staleness_mean: Some(1.0),
            })
            .unwrap(),
            created_at: None,
        };
        // The object `trainer run` has always posted to /v1/metrics.
        let mut expected = json!({
            "run": "r", "agent_id": id, "step": 3,
            "loss": 0.5, "reward_mean": 0.25, "accuracy": 0.25,
            "clip_fraction": 0.1, "kl": 0.0, "grad_norm": 2.0,
            "extra": {
                "algorithm": "hacpo", "capability": 0.3,
                "omega_source_over_learner": {"b": 2.0}, "sequences": 8,
                "cross_sequences": 4, "cross_ratio_mean": 0.9,
                "skipped": 0, "eval_accuracy": null,
                "clip_own": 0.25, "clip_cross": 0.5, "cross_below": 0.5,
                "cross_inside": 0.25, "cross_above": 0.25, "adv_abs_own": 0.75,
                "adv_abs_cross": 0.5, "response_tokens": 12.0, "entropy": 1.5,
                "kl_own": 0.125, "displacement": 0.75,
                "cross_ratio_quantiles": {"b": [0.7, 0.8, 0.9, 0.95, 1.1]},
                "cross_window_lower": [0.8, 0.875],
                "generate_seconds": 1.5, "wait_seconds": 0.25, "train_seconds": 2.5,
                "sync_seconds": 0.5, "uses": [{"id": id, "staleness": 1}],
                "cross_staleness_mean": 1.0,
            },
        });
        // Added since (json! would recurse too deep with them inside).
        expected["extra"]["eval_seconds"] = json!(0.0);
        expected["extra"]["elapsed_seconds"] = json!(30.25);
        assert_eq!(serde_json::to_value(&row).unwrap(), expected);
    }
}
