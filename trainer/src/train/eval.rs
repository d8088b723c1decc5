//! Held-out evaluation: greedy pass@1 of each agent, its rollouts pooled under
//! `<training run>/eval` so that they can be inspected with SQL like training ones.

use anyhow::Result;
use serde_json::json;
use uuid::Uuid;

use super::agent::Agent;
use crate::config::RunConfig;
use crate::generation::SamplingParams;
use crate::policy::Policy;
use crate::progress::Phase;
use wire::client::blocking::Client;
use wire::{NewRollout, TaskSummary};

/// Greedy pass@1 of each agent of `agents` on the held-out tasks; `phase` counts the agents
/// done.
pub(super) fn evaluate(
    agents: &[(usize, Agent)],
    tasks: &[TaskSummary],
    client: &Client,
    cfg: &RunConfig,
    step: usize,
    phase: &Phase,
) -> Result<Vec<f64>> {
    let run = format!("{}/eval", cfg.run.name);
    agents
        .iter()
        .map(|(_, a)| {
            phase.say(a.cfg.name.clone());
            let accuracy = evaluate_policy(
                &a.policy,
                a.id,
                tasks,
                client,
                &run,
                step,
                cfg.run.max_new_tokens,
            );
            phase.inc(1);
            accuracy
        })
        .collect()
}

/// Greedy pass@1 of one policy on `tasks`; the rollouts are pooled under `run` (by convention
/// `<training run>/eval`) and `step`, so they can be inspected with SQL like training ones.
pub fn evaluate_policy(
    policy: &Policy,
    agent_id: Uuid,
    tasks: &[TaskSummary],
    client: &Client,
    run: &str,
    step: usize,
    max_new_tokens: usize,
) -> Result<f64> {
    let messages: Vec<String> = tasks.iter().map(|t| t.prompt.clone()).collect();
    let gens =
        tch::no_grad(|| policy.generate(&messages, &SamplingParams::greedy(max_new_tokens)))?;
    let rollouts: Vec<NewRollout> = gens
        .iter()
        .zip(tasks)
        .map(|(o, t)| {
            let n = o.sampled.logprobs.len();
            let sum: f64 = o.sampled.logprobs.iter().map(|&x| f64::from(x)).sum();
            let mean = if n == 0 { 0.0 } else { sum / n as f64 };
            NewRollout {
                id: Some(Uuid::new_v4()),
                task_id: t.id,
                agent_id,
                run: run.to_string(),
                step: step as i64,
                policy_version: step as i64,
                response: o.text.clone(),
                token_count: Some(n as i32),
                logprob_mean: Some(mean.min(0.0)),
                logprob_sum: Some(sum.min(0.0)),
                ends_turn: None,
                metadata: Some(json!({ "greedy": true })),
            }
        })
        .collect();
    let scored = client.submit(&rollouts)?.results;
    Ok(scored.iter().map(|s| s.reward).sum::<f64>() / scored.len().max(1) as f64)
}
