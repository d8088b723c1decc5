//! The run's agents as every step of Algorithm 1 sees them, whether the pool is the verifier's
//! (the loop) or held in memory (a local run, the GPU check): their positions, their
//! capabilities, and the learning half of a step — capabilities recorded from the step's
//! groups, then every learner's update. Written once so that the GPU check trains exactly as
//! the loop does.

use std::collections::HashMap;

use anyhow::Result;
use wire::Group;

use super::UpdateStats;
use super::agent::Agent;
use super::learn::{self, UpdateBatch};
use super::pool;
use crate::config::RunConfig;
use crate::hacpo::CapabilityTracker;
use crate::progress::Phase;

/// Every agent of a run: where it stands in the config and what it is capable of.
pub(super) struct Roster {
    /// Agent name → position k in the run's config.
    pub(super) index: HashMap<String, usize>,
    /// P̂ and ω of every agent.
    pub(super) tracker: CapabilityTracker,
    /// How many agents the run has.
    agents: usize,
}

impl Roster {
    /// Every agent of `cfg`, with no capability history yet.
    pub(super) fn new(cfg: &RunConfig) -> Self {
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
        Self {
            index,
            tracker,
            agents: cfg.agents.len(),
        }
    }

    /// Records each agent's accuracy in a step's `groups` (P_{j,t}) and returns it.
    pub(super) fn record(&mut self, groups: &[Group]) -> Vec<f64> {
        let accuracy = pool::accuracy_per_agent(groups, &self.index, self.agents);
        self.tracker.record(&accuracy);
        accuracy
    }

    /// Every learner's update from the step's `groups`, learner k given with its position k;
    /// `phase` names each learner as it starts and counts its mini-batches.
    pub(super) fn update<'a>(
        &self,
        learners: impl Iterator<Item = (usize, &'a mut Agent)>,
        groups: &[Group],
        cfg: &RunConfig,
        step: usize,
        phase: &Phase,
    ) -> Result<Vec<UpdateStats>> {
        let batch = UpdateBatch {
            groups,
            index: &self.index,
            tracker: &self.tracker,
            cfg,
            step,
        };
        learners
            .map(|(k, learner)| {
                phase.say(learner.cfg.name.clone());
                learn::update(learner, k, &batch, phase)
            })
            .collect()
    }
}
