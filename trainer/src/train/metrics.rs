//! What a training step measured, and its two renderings: one `train_metrics` row per agent
//! (through the verifier's `/v1/metrics`) and the step's log line.

use std::collections::BTreeMap;

use serde::Serialize;
use uuid::Uuid;

use super::agent::Agent;
use crate::config::RunConfig;
use crate::hacpo::{Algorithm, CapabilityTracker};

/// What a learner's update in one step measured.
#[derive(Debug, Default, Clone, Serialize)]
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
    /// Sequences skipped because they do not fit the learner's context.
    pub skipped: usize,
}

/// One step's measurements, every agent's at its index.
pub(super) struct StepOutcome {
    /// P_{k,t}: mean reward of each agent's rollouts.
    pub(super) accuracy: Vec<f64>,
    /// Each learner's update.
    pub(super) stats: Vec<UpdateStats>,
    /// Held-out greedy pass@1, in steps that evaluate.
    pub(super) eval_accuracy: Option<Vec<f64>>,
    /// Wall time of generation, scoring and read-back.
    pub(super) generate_seconds: f64,
    /// Wall time of every learner's update.
    pub(super) train_seconds: f64,
}

/// One agent's row of `train_metrics` for one step, as `/v1/metrics` takes it.
#[derive(Debug, Serialize)]
pub struct StepMetrics<'a> {
    /// The run.
    pub run: &'a str,
    /// The agent.
    pub agent_id: Uuid,
    /// The training step.
    pub step: usize,
    /// Mean loss over mini-batches.
    pub loss: f64,
    /// Mean reward of the agent's rollouts.
    pub reward_mean: f64,
    /// The agent's accuracy P_{k,t}: its mean reward, as `reward_mean`.
    pub accuracy: f64,
    /// Fraction of sequences outside their clip range.
    pub clip_fraction: f64,
    /// Mean KL to the reference.
    pub kl: f64,
    /// Mean gradient norm before clipping.
    pub grad_norm: f64,
    /// Everything else, in the row's `extra` JSON column.
    pub extra: StepExtra,
}

/// The `extra` column of a `train_metrics` row.
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
    /// Sequences that did not fit the context.
    pub skipped: usize,
    /// Held-out accuracy, in steps that evaluate.
    pub eval_accuracy: Option<f64>,
    /// Wall time of generation, scoring and read-back.
    pub generate_seconds: f64,
    /// Wall time of every learner's update.
    pub train_seconds: f64,
}

impl StepOutcome {
    /// Learner `k`'s row.
    pub(super) fn metrics<'a>(
        &self,
        k: usize,
        agents: &[Agent],
        tracker: &CapabilityTracker,
        cfg: &'a RunConfig,
        step: usize,
    ) -> StepMetrics<'a> {
        let s = &self.stats[k];
        StepMetrics {
            run: &cfg.run.name,
            agent_id: agents[k].id,
            step,
            loss: s.loss,
            reward_mean: self.accuracy[k],
            accuracy: self.accuracy[k],
            clip_fraction: s.clip_fraction,
            kl: s.kl,
            grad_norm: s.grad_norm,
            extra: StepExtra {
                algorithm: cfg.algorithm.algorithm,
                capability: tracker.capability(k),
                omega_source_over_learner: agents
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != k)
                    .map(|(j, b)| (b.cfg.name.clone(), tracker.omega(j, k)))
                    .collect(),
                sequences: s.sequences,
                cross_sequences: s.cross_sequences,
                cross_ratio_mean: s.cross_ratio_mean,
                skipped: s.skipped,
                eval_accuracy: self.eval_accuracy.as_ref().map(|e| e[k]),
                generate_seconds: self.generate_seconds,
                train_seconds: self.train_seconds,
            },
        }
    }

    /// `name: acc=… loss=… clip=… [eval=…]` for every agent, for the step's log line.
    pub(super) fn summary(&self, agents: &[Agent]) -> String {
        let parts: Vec<String> = agents
            .iter()
            .enumerate()
            .map(|(k, a)| {
                let eval = self
                    .eval_accuracy
                    .as_ref()
                    .map_or(String::new(), |e| format!(" eval={:.3}", e[k]));
                format!(
                    "{}: acc={:.3} loss={:.4} clip={:.2}{eval}",
                    a.cfg.name, self.accuracy[k], self.stats[k].loss, self.stats[k].clip_fraction
                )
            })
            .collect();
        parts.join("; ")
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_row_serializes_to_the_columns_and_extra_keys_of_train_metrics() {
        let id = Uuid::new_v4();
        let row = StepMetrics {
            run: "r",
            agent_id: id,
            step: 3,
            loss: 0.5,
            reward_mean: 0.25,
            accuracy: 0.25,
            clip_fraction: 0.1,
            kl: 0.0,
            grad_norm: 2.0,
            extra: StepExtra {
                algorithm: Algorithm::Hacpo,
                capability: 0.3,
                omega_source_over_learner: [("b".to_string(), 2.0)].into(),
                sequences: 8,
                cross_sequences: 4,
                cross_ratio_mean: 0.9,
                skipped: 0,
                eval_accuracy: None,
                generate_seconds: 1.5,
                train_seconds: 2.5,
            },
        };
        // The object `trainer run` has always posted to /v1/metrics.
        let expected = json!({
            "run": "r", "agent_id": id, "step": 3,
            "loss": 0.5, "reward_mean": 0.25, "accuracy": 0.25,
            "clip_fraction": 0.1, "kl": 0.0, "grad_norm": 2.0,
            "extra": {
                "algorithm": "hacpo", "capability": 0.3,
                "omega_source_over_learner": {"b": 2.0}, "sequences": 8,
                "cross_sequences": 4, "cross_ratio_mean": 0.9,
                "skipped": 0, "eval_accuracy": null,
                "generate_seconds": 1.5, "train_seconds": 2.5,
            },
        });
        assert_eq!(serde_json::to_value(&row).unwrap(), expected);
    }
}
