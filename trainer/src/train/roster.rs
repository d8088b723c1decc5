//! The run's agents as every step of Algorithm 1 sees them, whether the pool is the verifier's
//! (the loop) or held in memory (a local run, the GPU check): their positions, their
//! capabilities, and the learning half of a step — capabilities recorded from the step's
//! groups, then every learner's update. Written once so that the GPU check trains exactly as
//! the loop does.

use std::collections::{HashMap, HashSet};

use anyhow::Result;
use uuid::Uuid;

use super::UpdateStats;
use super::agent::Agent;
use super::learn::{self, UpdateBatch};
use super::readback::{self, StepGroups};
use crate::config::RunConfig;
use crate::hacpo::{CapabilityTracker, PairCalibration};
use crate::progress::Phase;

/// Every agent of a run: where it stands in the config and what it is capable of.
pub(super) struct Roster {
    /// Agent name → position k in the run's config.
    pub(super) index: HashMap<String, usize>,
    /// P̂ and ω of every agent.
    pub(super) tracker: CapabilityTracker,
    /// ŝ_{j→k} of every direction (used by the calibrated rule, kept by every rule).
    pub(super) calibration: PairCalibration,
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
            calibration: PairCalibration::new(a.calibration_window),
            agents: cfg.agents.len(),
        }
    }

    /// Records each agent's accuracy in every step of `groups` it has rollouts in (P_{j,s}:
    /// a step's rollouts of an agent arrive together) and returns the last step's, 0 for an
    /// agent with none there yet.
    pub(super) fn record(&mut self, groups: &[StepGroups]) -> Vec<f64> {
        let mut last = vec![0.0; self.agents];
        for sg in groups {
            let accuracy = readback::accuracy_per_agent(&sg.groups, &self.index, self.agents);
            for (j, p) in accuracy.iter().enumerate() {
                if let Some(p) = *p {
                    self.tracker.record_at(j, sg.step as u64, p);
                }
            }
            last = accuracy.iter().map(|p| p.unwrap_or(0.0)).collect();
        }
        last
    }

    /// Every learner's update from the step's `groups`, learner k given with its position k,
    /// `used[k]` the rollouts it trained on before; `phase` names each learner as it starts
    /// and counts its mini-batches. Each direction's median cross ratio is then recorded for
    /// the next step's calibration.
    pub(super) fn update<'a>(
        &mut self,
        learners: impl Iterator<Item = (usize, &'a mut Agent)>,
        groups: &[StepGroups],
        used: &[HashSet<Uuid>],
        cfg: &RunConfig,
        step: usize,
        phase: &Phase,
    ) -> Result<Vec<UpdateStats>> {
        let batch = UpdateBatch {
            groups: groups
                .iter()
                .map(|sg| (sg.step, sg.groups.as_slice()))
                .collect(),
            used,
            index: &self.index,
            tracker: &self.tracker,
            calibration: &self.calibration,
            cfg,
            step,
        };
        let updates: Vec<(usize, UpdateStats)> = learners
            .map(|(k, learner)| {
                phase.say(learner.cfg.name.clone());
                Ok((k, learn::update(learner, k, &batch, phase)?))
            })
            .collect::<Result<_>>()?;
        for (k, stats) in &updates {
            for (&j, q) in &stats.cross_ratio_quantiles {
                self.calibration.record(j, *k, q[2]);
            }
        }
        Ok(updates.into_iter().map(|(_, s)| s).collect())
    }

    /// Replays the calibration of the steps of this process's metrics log read up to its
    /// checkpoint (a resumed run divides by the offsets the uninterrupted one would have).
    pub(super) fn restore_calibration(&mut self, logged: &readback::LoggedRows) {
        for ((_, k), row) in logged {
            let quantiles = row["extra"]["cross_ratio_quantiles"].as_object();
            for (source, q) in quantiles.into_iter().flatten() {
                if let (Some(&j), Some(median)) = (self.index.get(source), q[2].as_f64()) {
                    self.calibration.record(j, *k, median);
                }
            }
        }
    }
}
