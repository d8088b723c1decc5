//! Steps of Algorithm 1 with the pool held in memory: the agents generate and learn through the
//! loop's own functions ([`generate::for_step`], [`Roster::update`]), the rewards come from a
//! function instead of the verifier. For machines where no verifier or pool runs — the GPU check
//! (`trainer gpu-check agents`), which covers what only a GPU can break (dtypes, devices,
//! memory, speed); the verifier and the pool are tested with the loop itself.

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use anyhow::{Context, Result, ensure};
use uuid::Uuid;
use wire::{Group, GroupMember, TaskSummary};

use super::agent::Agent;
use super::readback::StepGroups;
use super::roster::Roster;
use super::{UpdateStats, generate};
use crate::config::{GenerationBackend, RunConfig};
use crate::optim::AdamW;
use crate::policy::Policy;
use crate::progress::Phase;

/// The agents of a run, training without a verifier.
pub struct LocalRun {
    cfg: RunConfig,
    agents: Vec<Agent>,
    roster: Roster,
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
        let roster = Roster::new(&cfg);
        Ok(Self {
            cfg,
            agents,
            roster,
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
        let own: Vec<(usize, &Agent)> = self.agents.iter().enumerate().collect();
        let (prompts, rollouts) = generate::for_step(&own, tasks, cfg, step, &Phase::hidden())?;
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
                        tokens[self.roster.index[&agent]] += r.token_count.unwrap_or(0) as usize;
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
        let groups = [StepGroups { step, groups }];
        let mean_reward = self.roster.record(&groups);

        let t1 = Instant::now();
        let updates = self.roster.update(
            self.agents.iter_mut().enumerate(),
            &groups,
            &vec![HashSet::new(); n],
            cfg,
            step,
            &Phase::hidden(),
        )?;
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
