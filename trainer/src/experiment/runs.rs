//! One run of an arm: trained through the production loop unless it finished before, then read
//! back — its evaluation curves from the pool, its diagnostics from its metrics log — and, where
//! the experiment keeps a ledger, stored there whole, so that another machine (a fresh pool, no
//! output folder) reads it back instead of training it again.

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;
use serde::{Deserialize, Serialize};
use serde_json::json;
use wire::client::blocking::Client;

use super::cache;
use super::config::{Arm, ExperimentConfig, Split};
use super::diagnostics::{read_log, run_clock, run_diagnostics};
use super::report::SeedResult;
use super::tuning::Setting;
use super::{skills, warmup};
use crate::config::RunConfig;

/// What a finished run wrote next to its checkpoints.
#[derive(Debug, Serialize, Deserialize)]
struct RunDone {
    wall_seconds: f64,
}

/// What every run of an experiment shares.
pub struct Runs<'a> {
    /// The experiment.
    pub cfg: &'a ExperimentConfig,
    /// The verifier.
    pub client: &'a Client,
    /// Each agent's warm-up folder.
    pub warm_dirs: &'a [PathBuf],
    /// Pool ids of the agents.
    pub agent_ids: &'a [uuid::Uuid],
    /// Each warm-up's weights, fingerprinted ([`super::warmup::fingerprint`]): a ledger entry
    /// stands only for runs that started from the very same weights.
    pub warm_weights: &'a [String],
    /// The evaluation tasks' skills ([`skills::task_skills`]).
    pub skills: &'a HashMap<uuid::Uuid, String>,
}

impl Runs<'_> {
    /// Whether `arm` with `seed` at `setting` finished in an earlier invocation.
    pub fn finished(&self, arm: &Arm, seed: u64, setting: &Setting, eval: Split) -> Result<bool> {
        let rc = self.config(arm, seed, setting, eval)?;
        let in_ledger = self
            .ledger_entry(arm, seed, setting, eval)
            .is_some_and(|path| {
                cache::load::<_, SeedResult>(&path, &self.ledger_settings(&rc, arm)).is_some()
            });
        let done = done_settings(&rc, arm);
        Ok(in_ledger || cache::load::<_, RunDone>(&done_path(&rc), &done).is_some())
    }

    /// Runs `arm` with `seed` at `setting` (unless it finished before) and reads it back; each
    /// curve starts at `(0, warm[k])`.
    pub fn run(
        &self,
        arm: &Arm,
        seed: u64,
        setting: &Setting,
        eval: Split,
        warm: &[f64],
    ) -> Result<SeedResult> {
        let rc = self.config(arm, seed, setting, eval)?;
        let ledger = self.ledger_entry(arm, seed, setting, eval);
        let key = self.ledger_settings(&rc, arm);
        if let Some(result) = ledger.as_deref().and_then(|path| cache::load(path, &key)) {
            return Ok(result);
        }
        let done = cache::cached(&done_path(&rc), &done_settings(&rc, arm), || {
            let t = Instant::now();
            match arm.concurrent {
                false => crate::train::run(&rc)?,
                true => train_concurrently(&rc)?,
            }
            Ok(RunDone {
                wall_seconds: t.elapsed().as_secs_f64(),
            })
        })?;
        let eval_run = format!("{}/eval", rc.run.name);
        let curves = self
            .agent_ids
            .iter()
            .zip(warm)
            .map(|(&id, &w)| {
                let mut curve = vec![(0, w)];
                curve.extend(
                    self.client
                        .capability(&id.to_string(), &eval_run, 1)?
                        .steps
                        .into_iter()
                        .map(|s| (s.step as usize, s.accuracy)),
                );
                Ok(curve)
            })
            .collect::<Result<Vec<_>>>()?;
        let skills = self.skill_curves(&eval_run, &curves, eval)?;
        let agents: Vec<String> = rc.agents.iter().map(|a| a.name.clone()).collect();
        let log = read_log(&rc.run.output_dir)?;
        let result = SeedResult {
            seed,
            run: rc.run.name.clone(),
            wall_seconds: done.wall_seconds,
            curves,
            diagnostics: run_diagnostics(&log),
            skills,
            clock: run_clock(&log, &agents),
        };
        if let Some(path) = ledger {
            std::fs::create_dir_all(path.parent().unwrap_or(&path))?;
            cache::store(&path, &key, &result)?;
        }
        Ok(result)
    }

    /// Per-skill curves of the evaluation run `eval_run` whose overall `curves` were read, where
    /// the evaluation tasks have more than one skill.
    fn skill_curves(
        &self,
        eval_run: &str,
        curves: &[Vec<(usize, f64)>],
        eval: Split,
    ) -> Result<skills::SkillCurves> {
        if !skills::worth_splitting(self.skills) {
            return Ok(skills::SkillCurves::new());
        }
        let steps: BTreeSet<usize> = curves
            .iter()
            .flat_map(|c| c.iter().skip(1).map(|p| p.0))
            .collect();
        let warm_runs = (self.warm_dirs.iter())
            .map(|d| warmup::eval_run(&self.cfg.run.name, d, eval))
            .collect::<Result<Vec<_>>>()?;
        let steps: Vec<usize> = steps.into_iter().collect();
        skills::curves(
            self.client,
            eval_run,
            &steps,
            self.agent_ids,
            &warm_runs,
            self.skills,
        )
    }

    /// The ledger's file for a run: its folder's path as one name (`tune_hacpo_lr1e-4-eps1_s100.json`).
    fn ledger_entry(
        &self,
        arm: &Arm,
        seed: u64,
        setting: &Setting,
        eval: Split,
    ) -> Option<PathBuf> {
        let ledger = self.cfg.experiment.ledger.as_ref()?;
        let folder = self.cfg.run_folder(arm, seed, setting, eval);
        let name: Vec<_> = folder.iter().map(|c| c.to_string_lossy()).collect();
        Some(ledger.join(format!("{}.json", name.join("_"))))
    }

    /// What a ledger entry stands for: the run's own settings and its agents' starting weights.
    fn ledger_settings(&self, rc: &RunConfig, arm: &Arm) -> serde_json::Value {
        let mut key = done_settings(rc, arm);
        key["warm_weights"] = json!(self.warm_weights);
        key
    }

    fn config(&self, arm: &Arm, seed: u64, setting: &Setting, eval: Split) -> Result<RunConfig> {
        self.cfg
            .arm_config(arm, seed, self.warm_dirs, setting, eval)
    }
}

fn done_path(rc: &RunConfig) -> PathBuf {
    rc.run.output_dir.join("done.json")
}

/// What makes a run's result: its update rule, its agents' rates, and its length (and, only
/// where set, so that earlier runs keep their keys: agents at their own pace, η).
fn done_settings(rc: &RunConfig, arm: &Arm) -> serde_json::Value {
    let lr: Vec<f64> = rc.agents.iter().map(|a| a.lr).collect();
    let mut key =
        json!({ "algorithm": rc.algorithm, "lr": lr, "steps": rc.run.steps, "eval": rc.data.eval });
    if arm.concurrent {
        key["concurrent"] = true.into();
    }
    if let Some(eta) = rc.run.max_staleness {
        key["max_staleness"] = eta.into();
    }
    key
}

/// Every agent of `rc` in a thread of its own (`train::run_agent`), each at its own pace.
fn train_concurrently(rc: &RunConfig) -> Result<()> {
    std::thread::scope(|s| {
        let agents: Vec<_> = (rc.agents.iter())
            .map(|a| s.spawn(|| crate::train::run_agent(rc, &a.name)))
            .collect();
        agents.into_iter().try_for_each(|t| match t.join() {
            Ok(trained) => trained,
            Err(_) => anyhow::bail!("an agent's training thread panicked"),
        })
    })
}
