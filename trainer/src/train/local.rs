//! Steps of Algorithm 1 with the pool held in memory: the agents generate and learn through the
//! loop's own functions ([`generate::generate`], [`learn::update`]), the rewards come from a
//! function instead of the verifier. For machines where no verifier or pool runs — the GPU check
//! (`trainer gpu-check agents`), which covers what only a GPU can break (dtypes, devices,
//! memory, speed); the verifier and the pool are tested with the loop itself.

use std::collections::HashMap;
use std::time::Instant;

use anyhow::{Context, Result, ensure};
use uuid::Uuid;
use wire::{Group, GroupMember, TaskSummary};

use super::agent::Agent;
use super::learn::{self, UpdateBatch};
use super::{UpdateStats, generate, pool};
use crate::config::{GenerationBackend, RunConfig};
use crate::hacpo::CapabilityTracker;
use crate::optim::AdamW;
use crate::policy::Policy;
use crate::progress::Phase;

/// The agents of a run, training without a verifier.
pub struct LocalRun {
    cfg: RunConfig,
    agents: Vec<Agent>,
    index: HashMap<String, usize>,
    tracker: CapabilityTracker,
}

/// What one [`LocalRun::step`] did.
#[derive(Debug, Clone, serde::Serialize)]
pub struct LocalStep {
    /// Wall time of every agent's generation, ℓ_old included.
    pub generate_seconds: f64,
    /// Wall time of every learner's update.
    pub update_seconds: f64,
    /// Response tokens generated, per agent (config order).
    pub tokens: Vec<usize>,
    /// Mean reward of each agent's responses.
    pub mean_reward: Vec<f64>,
    /// Each learner's update.
    pub updates: Vec<UpdateStats>,
}

impl LocalRun {
    /// Loads every agent of `cfg` from its model folder onto its device (in the loop's dtype),
    /// with a fresh AdamW; only the `tch` generation backend is supported.
    pub fn open(cfg: RunConfig) -> Result<Self> {
        cfg.validate()?;
        let agents = cfg
            .agents
            .iter()
            .map(|a| {
                ensure!(
                    matches!(a.generation, GenerationBackend::Tch),
                    "agent {}: a local run generates with the training model (backend \"tch\")",
                    a.name
                );
                let policy = Policy::load(&a.model, a.device).with_context(|| {
                    format!("loading agent {} from {}", a.name, a.model.display())
                })?;
                let reference = if cfg.algorithm.needs_reference_model() {
                    Some(policy.duplicate()?)
                } else {
                    None
                };
                let opt = AdamW::new(policy.var_store(), a.lr, a.weight_decay);
                Ok(Agent {
                    cfg: a.clone(),
                    id: Uuid::new_v4(),
                    policy,
                    reference,
                    opt,
                    engine: None,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let index = cfg
            .agents
            .iter()
            .enumerate()
            .map(|(k, a)| (a.name.clone(), k))
            .collect();
        let a = &cfg.algorithm;
        let tracker = CapabilityTracker::new(
            cfg.agents.len(),
            a.capability_window,
            a.omega_min,
            a.omega_max,
        );
        Ok(Self {
            cfg,
            agents,
            index,
            tracker,
        })
    }

    /// Step `step`: the step's prompts drawn from `tasks`, every agent's responses, their
    /// rewards (`reward(task, response)`, in [0, 1]) grouped per prompt as the pool returns them,
    /// capabilities recorded, then every learner's update.
    pub fn step(
        &mut self,
        step: usize,
        tasks: &[TaskSummary],
        reward: &dyn Fn(&TaskSummary, &str) -> f64,
    ) -> Result<LocalStep> {
        let cfg = &self.cfg;
        ensure!(!tasks.is_empty(), "no tasks to draw prompts from");
        let t0 = Instant::now();
        let prompts = generate::sample_prompts(tasks, cfg.run.prompts_per_step, cfg.run.seed, step);
        let g = cfg
            .algorithm
            .algorithm
            .rollouts_per_prompt(cfg.run.group_size);
        let own: Vec<(usize, &Agent)> = self.agents.iter().enumerate().collect();
        let rollouts = generate::generate(&own, &prompts, g, cfg, step, &Phase::hidden())?;
        let generate_seconds = t0.elapsed().as_secs_f64();

        let names: HashMap<Uuid, &str> = self
            .agents
            .iter()
            .map(|a| (a.id, a.cfg.name.as_str()))
            .collect();
        let n = self.agents.len();
        let mut tokens = vec![0; n];
        let groups: Vec<Group> = prompts
            .iter()
            .map(|task| Group {
                task_id: task.id,
                prompt: task.prompt.clone(),
                rollouts: rollouts
                    .iter()
                    .filter(|r| r.task_id == task.id)
                    .map(|r| {
                        let agent = names[&r.agent_id].to_owned();
                        tokens[self.index[&agent]] += r.token_count.unwrap_or(0) as usize;
                        let value = reward(task, &r.response);
                        let mut metadata = r.metadata.clone().unwrap_or_default();
                        metadata["ends_turn"] = r.ends_turn.unwrap_or(true).into();
                        GroupMember {
                            id: r.id.unwrap_or_else(Uuid::new_v4),
                            agent_id: r.agent_id,
                            agent,
                            response: r.response.clone(),
                            reward: value,
                            correct: value >= 1.0,
                            token_count: r.token_count,
                            logprob_mean: r.logprob_mean,
                            logprob_sum: r.logprob_sum,
                            policy_version: r.policy_version,
                            metadata,
                        }
                    })
                    .collect(),
            })
            .collect();
        let mean_reward = pool::accuracy_per_agent(&groups, &self.index, n);
        self.tracker.record(&mean_reward);

        let t1 = Instant::now();
        let batch = UpdateBatch {
            groups: &groups,
            index: &self.index,
            tracker: &self.tracker,
            cfg,
            step,
        };
        let updates = self
            .agents
            .iter_mut()
            .enumerate()
            .map(|(k, a)| learn::update(a, k, &batch, &Phase::hidden()))
            .collect::<Result<Vec<_>>>()?;
        Ok(LocalStep {
            generate_seconds,
            update_seconds: t1.elapsed().as_secs_f64(),
            tokens,
            mean_reward,
            updates,
        })
    }

    /// Agent `k`'s policy.
    pub fn policy(&self, k: usize) -> &Policy {
        &self.agents[k].policy
    }
}
