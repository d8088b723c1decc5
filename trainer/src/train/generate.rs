//! Algorithm 1's rollout step: the step's prompts are drawn, every agent samples G responses to
//! each — with its training model, or on its serving engine — and each response's mean token
//! log-prob (ℓ_old) is recomputed by the training model.

use anyhow::{Result, ensure};
use serde_json::json;
use tch::{Device, Kind};
use uuid::Uuid;

use super::agent::{Agent, Engine};
use crate::config::RunConfig;
use crate::generation::{FinishReason, SamplingParams};
use crate::policy::Generation;
use crate::progress::Phase;
use crate::rng::SplitMix64;
use wire::{NewRollout, TaskSummary};

/// The prompts of `step`: a deterministic draw (seed, step) without replacement.
fn sample_prompts(tasks: &[TaskSummary], n: usize, seed: u64, step: usize) -> Vec<TaskSummary> {
    let mut rng = SplitMix64(seed ^ (step as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut idx: Vec<usize> = (0..tasks.len()).collect();
    // Partial Fisher–Yates.
    for i in 0..n.min(idx.len()) {
        let j = i + rng.below(idx.len() - i);
        idx.swap(i, j);
    }
    idx.into_iter().take(n).map(|i| tasks[i].clone()).collect()
}

/// The prompts of `step` drawn from `tasks`, and the responses of `agents` to them: as many per
/// prompt as the run's algorithm asks for (see [`generate`]).
pub(super) fn for_step(
    agents: &[(usize, &Agent)],
    tasks: &[TaskSummary],
    cfg: &RunConfig,
    step: usize,
    phase: &Phase,
) -> Result<(Vec<TaskSummary>, Vec<NewRollout>)> {
    let prompts = sample_prompts(tasks, cfg.run.prompts_per_step, cfg.run.seed, step);
    let g = cfg
        .algorithm
        .algorithm
        .rollouts_per_prompt(cfg.run.group_size);
    let rollouts = generate(agents, &prompts, g, cfg, step, phase)?;
    Ok((prompts, rollouts))
}

/// Every agent of `agents` (agent k of the run at its position k) samples `g` responses per
/// prompt, seeded by (seed, step, k) so that a process training one agent draws what a process
/// training all would; each response's mean token log-prob over the sampled ids (end-of-turn
/// token excluded) is recomputed by the training model through the scoring path learners use,
/// so self ratios start at 1 (up to the rounding of differently padded batches). The ids travel
/// with the rollout, so the author trains on exactly them.
///
/// An agent with a serving engine samples there, on the same prompt ids and settings; ℓ_old is
/// recomputed all the same (engine and trainer kernels differ: ratios must start at 1 under
/// the model that learns), and the engine's own mean is kept in `metadata.engine_logprob_mean`
/// to watch the mismatch. `policy_version` is the weight version the engine says it serves.
/// `phase` counts the agents done.
fn generate(
    agents: &[(usize, &Agent)],
    prompts: &[TaskSummary],
    g: usize,
    cfg: &RunConfig,
    step: usize,
    phase: &Phase,
) -> Result<Vec<NewRollout>> {
    let mut rollouts = Vec::new();
    for &(k, a) in agents {
        phase.say(a.cfg.name.clone());
        let messages: Vec<String> = prompts
            .iter()
            .flat_map(|p| std::iter::repeat_n(p.prompt.clone(), g))
            .collect();
        let logprob_temperature = cfg
            .algorithm
            .logprob_temperature
            .divisor(cfg.run.temperature);
        let params = SamplingParams {
            max_new_tokens: cfg.run.max_new_tokens,
            temperature: cfg.run.temperature,
            top_p: cfg.run.top_p,
            logprob_temperature,
            seed: Some(
                (cfg.run.seed as i64)
                    .wrapping_mul(1_000_003)
                    .wrapping_add((step * 101 + k) as i64),
            ),
            ..SamplingParams::default()
        };
        let (gens, version) = match &a.engine {
            None => (
                tch::no_grad(|| a.policy.generate(&messages, &params))?,
                step as i64 - 1,
            ),
            Some(engine) => on_engine(a, engine, prompts, g, &params, step)?,
        };
        let means = mean_logprobs(a, &gens, cfg.run.micro_chunk(), logprob_temperature)?;
        for (i, (o, mean)) in gens.iter().zip(means).enumerate() {
            let ids = o.response_ids();
            let mut metadata = json!({
                "token_ids": ids,
                "tokenizer": a.policy.tokenizer_fingerprint(),
            });
            if a.engine.is_some() {
                let lp = &o.sampled.logprobs[..ids.len()];
                let engine_mean =
                    lp.iter().map(|&l| f64::from(l)).sum::<f64>() / ids.len().max(1) as f64;
                metadata["engine_logprob_mean"] = json!(engine_mean);
            }
            rollouts.push(NewRollout {
                id: Some(Uuid::new_v4()),
                task_id: prompts[i / g].id,
                agent_id: a.id,
                run: cfg.run.name.clone(),
                step: step as i64,
                policy_version: version,
                response: o.text.clone(),
                token_count: Some(ids.len() as i32),
                logprob_mean: Some(mean.min(0.0)),
                logprob_sum: Some((mean * ids.len() as f64).min(0.0)),
                ends_turn: Some(o.sampled.finish_reason == FinishReason::Stop),
                // The learner trains its own responses on exactly these ids (`learn::sampled_ids`).
                metadata: Some(metadata),
            });
        }
        phase.inc(1);
    }
    Ok(rollouts)
}

/// `g` responses per prompt sampled by `agent`'s engine on the prompt ids the training model
/// would be given, with the weight version the engine serves (checked: the step's own).
fn on_engine(
    agent: &Agent,
    engine: &Engine,
    prompts: &[TaskSummary],
    g: usize,
    params: &SamplingParams,
    step: usize,
) -> Result<(Vec<Generation>, i64)> {
    let expected = step as i64 - 1;
    let served = engine.client.weight_version()?;
    ensure!(
        served == Some(expected),
        "agent {}'s engine at {} serves weight version {served:?}, not {expected} (the weights \
         after step {expected}): is another trainer syncing it?",
        agent.cfg.name,
        engine.client.url()
    );
    let ids = prompts
        .iter()
        .map(|p| agent.policy.encode_prompt(&p.prompt))
        .collect::<Result<Vec<_>>>()?;
    let sampled = engine
        .client
        .complete(&ids, g, params, agent.policy.stop_token_ids())?;
    let gens = sampled
        .into_iter()
        .enumerate()
        .map(|(i, s)| agent.policy.generation(ids[i / g].clone(), s))
        .collect::<Result<Vec<_>>>()?;
    Ok((gens, expected))
}

/// ℓ_old of each generation under `agent`'s training model at `temperature`, scored `chunk` sequences at a time
/// like the update (one pass over a whole step's responses would hold [responses × tokens ×
/// vocabulary] logits at once); 0 (log 1) for an empty response, which no learner trains on.
fn mean_logprobs(
    agent: &Agent,
    gens: &[Generation],
    chunk: usize,
    temperature: f64,
) -> Result<Vec<f64>> {
    let scored: Vec<usize> = (0..gens.len())
        .filter(|&i| !gens[i].response_ids().is_empty())
        .collect();
    let mut means = vec![0.0; gens.len()];
    for part in scored.chunks(chunk) {
        let pairs: Vec<(Vec<i64>, Vec<i64>)> = part
            .iter()
            .map(|&i| (gens[i].prompt_ids.clone(), gens[i].response_ids().to_vec()))
            .collect();
        let scores = tch::no_grad(|| agent.policy.score_ids_at(&pairs, temperature))?;
        let m = Vec::<f64>::try_from(
            &scores
                .mean_logprob
                .to_kind(Kind::Double)
                .to_device(Device::Cpu),
        )?;
        for (&i, v) in part.iter().zip(m) {
            means[i] = v;
        }
    }
    Ok(means)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompt_draws_are_deterministic_and_without_replacement() {
        let tasks: Vec<TaskSummary> = (0..10)
            .map(|i| TaskSummary {
                id: Uuid::new_v4(),
                dataset: "d".into(),
                external_id: i.to_string(),
                kind: "math".into(),
                prompt: format!("p{i}"),
                metadata: serde_json::json!({}),
                created_at: Default::default(),
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
