//! Algorithm 1's rollout step: the step's prompts are drawn, every agent samples G responses to
//! each, and each response's mean token log-prob (ℓ_old) is recomputed by the training model.

use anyhow::Result;
use serde_json::json;
use tch::{Device, Kind};
use uuid::Uuid;

use super::agent::Agent;
use crate::config::RunConfig;
use crate::generation::{FinishReason, SamplingParams};
use crate::policy::TextPair;
use crate::rng::SplitMix64;
use crate::verifier::{NewRollout, TaskPrompt};

/// The prompts of `step`: a deterministic draw (seed, step) without replacement.
pub(super) fn sample_prompts(
    tasks: &[TaskPrompt],
    n: usize,
    seed: u64,
    step: usize,
) -> Vec<TaskPrompt> {
    let mut rng = SplitMix64(seed ^ (step as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut idx: Vec<usize> = (0..tasks.len()).collect();
    // Partial Fisher–Yates.
    for i in 0..n.min(idx.len()) {
        let j = i + rng.below(idx.len() - i);
        idx.swap(i, j);
    }
    idx.into_iter().take(n).map(|i| tasks[i].clone()).collect()
}

/// Every agent samples `g` responses per prompt; their mean token log-probs are recomputed by
/// the training model through the same re-tokenizing path learners use, so self ratios start at 1
/// (up to the rounding of differently padded batches).
pub(super) fn generate(
    agents: &[Agent],
    prompts: &[TaskPrompt],
    g: usize,
    cfg: &RunConfig,
    step: usize,
) -> Result<Vec<NewRollout>> {
    let mut rollouts = Vec::new();
    for (a_idx, a) in agents.iter().enumerate() {
        let messages: Vec<String> = prompts
            .iter()
            .flat_map(|p| std::iter::repeat_n(p.prompt.clone(), g))
            .collect();
        let params = SamplingParams {
            max_new_tokens: cfg.run.max_new_tokens,
            temperature: cfg.run.temperature,
            top_p: cfg.run.top_p,
            seed: Some(
                (cfg.run.seed as i64)
                    .wrapping_mul(1_000_003)
                    .wrapping_add((step * 101 + a_idx) as i64),
            ),
            ..SamplingParams::default()
        };
        let gens = tch::no_grad(|| a.policy.generate(&messages, &params))?;
        let pairs: Vec<TextPair> = gens
            .iter()
            .zip(&messages)
            .map(|(o, m)| text_pair(m, &o.text, o.sampled.finish_reason == FinishReason::Stop))
            .collect();
        // Scored `micro_batch` sequences at a time, like the update: one pass over a whole
        // step's responses would hold [responses × tokens × vocabulary] logits at once.
        let mut means = Vec::with_capacity(pairs.len());
        let mut lengths = Vec::with_capacity(pairs.len());
        for chunk in pairs.chunks(cfg.run.micro_chunk()) {
            let scores = tch::no_grad(|| a.policy.score_texts(chunk))?;
            means.extend(Vec::<f64>::try_from(
                &scores
                    .mean_logprob
                    .to_kind(Kind::Double)
                    .to_device(Device::Cpu),
            )?);
            lengths.extend(scores.lengths);
        }
        for (i, o) in gens.iter().enumerate() {
            let tokens = o.sampled.token_ids.len() as i32;
            rollouts.push(NewRollout {
                id: Uuid::new_v4(),
                task_id: prompts[i / g].id,
                agent_id: a.id,
                run: cfg.run.name.clone(),
                step: step as i64,
                policy_version: step as i64 - 1,
                response: o.text.clone(),
                token_count: tokens,
                logprob_mean: means[i].min(0.0),
                logprob_sum: (means[i] * lengths[i] as f64).min(0.0),
                metadata: json!({ "ends_turn": pairs[i].ends_turn }),
            });
        }
    }
    Ok(rollouts)
}

/// A (prompt, response) pair; an empty unfinished response is scored as finished so that it has
/// at least one token.
pub(super) fn text_pair(prompt: &str, response: &str, ends_turn: bool) -> TextPair {
    TextPair {
        prompt: prompt.to_string(),
        response: response.to_string(),
        ends_turn: ends_turn || response.is_empty(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_draws_are_deterministic_and_without_replacement() {
        let tasks: Vec<TaskPrompt> = (0..10)
            .map(|i| TaskPrompt {
                id: Uuid::new_v4(),
                external_id: i.to_string(),
                prompt: format!("p{i}"),
            })
            .collect();
        let a: Vec<String> = sample_prompts(&tasks, 5, 3, 7)
            .into_iter()
            .map(|t| t.external_id)
            .collect();
        let b: Vec<String> = sample_prompts(&tasks, 5, 3, 7)
            .into_iter()
            .map(|t| t.external_id)
            .collect();
        let c: Vec<String> = sample_prompts(&tasks, 5, 3, 8)
            .into_iter()
            .map(|t| t.external_id)
            .collect();
        assert_eq!(a, b);
        assert_ne!(a, c);
        let mut unique = a.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 5);
    }
}
