//! The run page's curves: which metrics it plots and where each comes from (the rollouts'
//! per-step accuracy, the `train_metrics` columns, the keys the trainer writes into `extra`).

use std::collections::BTreeMap;

use serde_json::Value;

use super::chart::{self, Drawn, Series};
use crate::pool::dashboard::{AgentMetrics, StepAccuracy};

/// The cross-ratio chart's line for the window's lower edge.
const WINDOW_EDGE: &str = "window lower edge lower_0";

/// A plotted metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// Mean reward of each agent's rollouts in the step (`agent_step_accuracy`).
    Accuracy,
    /// Held-out greedy accuracy, in steps that evaluate (`extra.eval_accuracy`).
    EvalAccuracy,
    /// Capability P̂ (`extra.capability`).
    Capability,
    /// ω of every other agent as seen by each learner (`extra.omega_source_over_learner`).
    Omega,
    /// Own sequences outside the clip range (`extra.clip_own`).
    ClipOwn,
    /// Cross sequences outside the cross-agent window (`extra.clip_cross`).
    ClipCross,
    /// Cross sequences whose ratio s lies in the window [lower_m, 1], the ones that carry
    /// gradient (`extra.cross_inside`).
    CrossInside,
    /// The cross ratio s of each source's responses under each learner: 10%, median and 90%
    /// per step (`extra.cross_ratio_quantiles`), to read against the window [lower_m, 1].
    CrossRatio,
    /// KL to the reference policy.
    Kl,
    /// Gradient norm before clipping.
    GradNorm,
    /// Mean loss.
    Loss,
    /// Mean tokens of each agent's responses (rollouts' `token_count`).
    ResponseTokens,
    /// Mean per-token entropy of the learner's own responses (`extra.entropy`).
    Entropy,
    /// Seconds the agent waited for the others' rollouts in the step (`extra.wait_seconds`:
    /// a synchronous run's barrier; 0 in an asynchronous run).
    Wait,
    /// Mean staleness, in the learner's updates, of the partner rollouts it trained on
    /// (`extra.cross_staleness_mean`: above 0 only in an asynchronous run).
    Staleness,
    /// The pair-calibrated rule's offset ŝ per source and learner, which s is divided by before
    /// the window applies (`extra.calibration_offset`: only under that rule).
    CalibrationOffset,
}

impl Metric {
    /// Every metric, in page order.
    pub const ALL: [Metric; 16] = [
        Metric::Accuracy,
        Metric::EvalAccuracy,
        Metric::Capability,
        Metric::Omega,
        Metric::ClipOwn,
        Metric::ClipCross,
        Metric::CrossInside,
        Metric::CrossRatio,
        Metric::CalibrationOffset,
        Metric::Kl,
        Metric::GradNorm,
        Metric::Loss,
        Metric::ResponseTokens,
        Metric::Entropy,
        Metric::Wait,
        Metric::Staleness,
    ];

    /// Stable key, the chart's `data-metric`.
    pub fn key(self) -> &'static str {
        match self {
            Metric::Accuracy => "accuracy",
            Metric::EvalAccuracy => "eval_accuracy",
            Metric::Capability => "capability",
            Metric::Omega => "omega",
            Metric::ClipOwn => "clip_own",
            Metric::ClipCross => "clip_cross",
            Metric::CrossInside => "cross_inside",
            Metric::CrossRatio => "cross_ratio",
            Metric::Kl => "kl",
            Metric::GradNorm => "grad_norm",
            Metric::Loss => "loss",
            Metric::ResponseTokens => "response_tokens",
            Metric::Entropy => "entropy",
            Metric::Wait => "wait_seconds",
            Metric::Staleness => "cross_staleness_mean",
            Metric::CalibrationOffset => "calibration_offset",
        }
    }

    /// Chart title.
    pub fn title(self) -> &'static str {
        match self {
            Metric::Accuracy => "Accuracy (mean reward of the step's rollouts)",
            Metric::EvalAccuracy => "Held-out accuracy",
            Metric::Capability => "Capability P̂",
            Metric::Omega => "ω (source → learner)",
            Metric::ClipOwn => "Clip fraction, own",
            Metric::ClipCross => "Clip fraction, cross",
            Metric::CrossInside => "Cross samples with s in [lower_m, 1] (carrying gradient)",
            Metric::CrossRatio => {
                "Cross ratio s, source → learner: 10% / median / 90% (window [lower_m, 1])"
            }
            Metric::Kl => "KL to reference",
            Metric::GradNorm => "Gradient norm",
            Metric::Loss => "Loss",
            Metric::ResponseTokens => "Response length (tokens)",
            Metric::Entropy => "Entropy (nats/token)",
            Metric::Wait => "Idle: waiting for the other agents (s)",
            Metric::Staleness => "Staleness of the partner rollouts used (learner updates)",
            Metric::CalibrationOffset => {
                "Calibration offset ŝ, source → learner (calibrated rule: the window applies to s / ŝ)"
            }
        }
    }

    /// Whether its values are fractions, drawn on [0, 1].
    fn unit(self) -> bool {
        matches!(
            self,
            Metric::Accuracy
                | Metric::EvalAccuracy
                | Metric::Capability
                | Metric::ClipOwn
                | Metric::ClipCross
                | Metric::CrossInside
        )
    }

    /// The `extra` key of a metric stored there as one number per row.
    fn extra_key(self) -> Option<&'static str> {
        match self {
            Metric::EvalAccuracy => Some("eval_accuracy"),
            Metric::Capability => Some("capability"),
            Metric::ClipOwn => Some("clip_own"),
            Metric::ClipCross => Some("clip_cross"),
            Metric::CrossInside => Some("cross_inside"),
            Metric::Entropy => Some("entropy"),
            Metric::Wait => Some("wait_seconds"),
            Metric::Staleness => Some("cross_staleness_mean"),
            _ => None,
        }
    }

    /// The series of this metric: one per agent (ω: per source and learner), by label.
    fn series(self, accuracy: &[StepAccuracy], metrics: &[AgentMetrics]) -> Vec<Series> {
        let mut by_label: BTreeMap<String, Vec<(i64, f64)>> = BTreeMap::new();
        let mut add = |label: &str, step: i64, v: Option<f64>| {
            if let Some(v) = v {
                by_label
                    .entry(label.to_string())
                    .or_default()
                    .push((step, v));
            }
        };
        match self {
            Metric::Accuracy => accuracy
                .iter()
                .for_each(|a| add(&a.agent, a.step, Some(a.accuracy))),
            Metric::ResponseTokens => accuracy
                .iter()
                .for_each(|a| add(&a.agent, a.step, a.tokens)),
            Metric::Kl => metrics.iter().for_each(|m| add(&m.agent, m.step, m.kl)),
            Metric::GradNorm => metrics
                .iter()
                .for_each(|m| add(&m.agent, m.step, m.grad_norm)),
            Metric::Loss => metrics.iter().for_each(|m| add(&m.agent, m.step, m.loss)),
            Metric::Omega | Metric::CalibrationOffset => {
                let key = match self {
                    Metric::Omega => "omega_source_over_learner",
                    _ => "calibration_offset",
                };
                for m in metrics {
                    let Some(Value::Object(per_source)) = m.extra.get(key) else {
                        continue;
                    };
                    for (source, w) in per_source {
                        add(&format!("{source} → {}", m.agent), m.step, w.as_f64());
                    }
                }
            }
            Metric::CrossRatio => {
                // The window's lower edge at the first mini-batch (`extra.cross_window_lower`),
                // the loosest of the update: a ratio below it carries no gradient. It is the
                // run's, the same for every learner, so it is drawn once per step.
                let edge: BTreeMap<i64, f64> = metrics
                    .iter()
                    .filter_map(|m| {
                        let v = m.extra.get("cross_window_lower")?.get(0)?.as_f64()?;
                        Some((m.step, v))
                    })
                    .collect();
                for (step, v) in edge {
                    add(WINDOW_EDGE, step, Some(v));
                }
                for m in metrics {
                    let Some(Value::Object(q)) = m.extra.get("cross_ratio_quantiles") else {
                        continue;
                    };
                    for (source, qs) in q {
                        // Stored as the 10/25/50/75/90% quantiles.
                        for (at, name) in [(0, "10%"), (2, "median"), (4, "90%")] {
                            let v = qs.get(at).and_then(Value::as_f64);
                            add(&format!("{source} → {} {name}", m.agent), m.step, v);
                        }
                    }
                }
            }
            Metric::EvalAccuracy
            | Metric::Capability
            | Metric::ClipOwn
            | Metric::ClipCross
            | Metric::CrossInside
            | Metric::Entropy
            | Metric::Wait
            | Metric::Staleness => {
                let key = self.extra_key().expect("stored in extra");
                for m in metrics {
                    add(&m.agent, m.step, m.extra.get(key).and_then(Value::as_f64));
                }
            }
        }
        // Rows come by agent then step, so every series is in step order.
        by_label
            .into_iter()
            .map(|(label, points)| Series { label, points })
            .collect()
    }
}

/// Every chart of a run's page.
pub fn charts(accuracy: &[StepAccuracy], metrics: &[AgentMetrics]) -> Vec<Drawn> {
    Metric::ALL
        .iter()
        .map(|&m| chart::draw(m.key(), m.title(), m.unit(), &m.series(accuracy, metrics)))
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn row(agent: &str, step: i64, extra: Value) -> AgentMetrics {
        AgentMetrics {
            agent: agent.into(),
            step,
            loss: Some(0.1),
            kl: None,
            grad_norm: Some(1.0),
            extra,
        }
    }

    #[test]
    fn each_metric_takes_its_numbers_from_its_column_or_extra_key() {
        let accuracy = vec![StepAccuracy {
            agent: "a".into(),
            step: 0,
            rollouts: 4,
            accuracy: 0.5,
            tokens: Some(12.0),
        }];
        let metrics = vec![
            row(
                "a",
                0,
                json!({"capability": 0.4, "eval_accuracy": 0.3,
                "omega_source_over_learner": {"b": 1.5}, "clip_own": "not a number"}),
            ),
            row(
                "a",
                1,
                json!({"capability": 0.6, "omega_source_over_learner": {"b": 2.0},
                "cross_inside": 0.25, "wait_seconds": 1.5, "cross_staleness_mean": 0.5,
                "cross_ratio_quantiles": {"b": [0.5, 0.7, 0.8, 0.95, 1.1]},
                "cross_window_lower": [0.8, 0.875], "calibration_offset": {"b": 0.07}}),
            ),
            row(
                "b",
                0,
                json!({"capability": 0.2, "omega_source_over_learner": {"a": 0.5}}),
            ),
            row("b", 1, json!({"cross_window_lower": [0.8, 0.875]})),
        ];
        let s = |m: Metric| m.series(&accuracy, &metrics);
        assert_eq!(s(Metric::Accuracy)[0].points, vec![(0, 0.5)]);
        assert_eq!(s(Metric::ResponseTokens)[0].points, vec![(0, 12.0)]);
        assert_eq!(s(Metric::Capability).len(), 2);
        assert_eq!(s(Metric::Capability)[0].points, vec![(0, 0.4), (1, 0.6)]);
        assert_eq!(s(Metric::EvalAccuracy)[0].points, vec![(0, 0.3)]);
        let omega = s(Metric::Omega);
        let labels: Vec<&str> = omega.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(labels, ["a → b", "b → a"]);
        assert_eq!(omega[1].points, vec![(0, 1.5), (1, 2.0)]);
        let offset = s(Metric::CalibrationOffset);
        assert_eq!(offset.len(), 1);
        assert_eq!(offset[0].label, "b → a");
        assert_eq!(offset[0].points, vec![(1, 0.07)]);
        assert!(s(Metric::ClipOwn).is_empty(), "a non-number is no value");
        assert!(s(Metric::Kl).is_empty());
        let ratio = s(Metric::CrossRatio);
        let labels: Vec<&str> = ratio.iter().map(|s| s.label.as_str()).collect();
        assert_eq!(
            labels,
            ["b → a 10%", "b → a 90%", "b → a median", WINDOW_EDGE]
        );
        assert_eq!(ratio[2].points, vec![(1, 0.8)]);
        assert_eq!(
            ratio[3].points,
            vec![(1, 0.8)],
            "one edge per step, not per learner"
        );
        assert_eq!(s(Metric::CrossInside)[0].points, vec![(1, 0.25)]);
        assert_eq!(s(Metric::Wait)[0].points, vec![(1, 1.5)]);
        assert_eq!(s(Metric::Staleness)[0].points, vec![(1, 0.5)]);
        assert_eq!(charts(&accuracy, &metrics).len(), Metric::ALL.len());
    }
}
