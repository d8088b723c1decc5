//! An experiment's results, top-down: what was measured (this file: arms, seeds, curves, and
//! the merge of parts run elsewhere), then [`render`] (the markdown tables with their
//! statistics) and [`plot`] (learning curves).

pub mod plot;
pub mod render;

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{Context, Result, anyhow};
use serde::{Deserialize, Serialize};

use super::config::Primary;
use super::stats::{Endpoint, Spread};
use super::tuning::Tuning;
use crate::gate::GateReport;
use crate::hacpo::HacpoConfig;

/// Everything an experiment measured.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Report {
    /// Experiment (and pool run prefix) name.
    pub name: String,
    /// Agent names, in curve order.
    pub agents: Vec<String>,
    /// Held-out accuracy of each agent after the warm-up (step 0 of every curve).
    pub warmup_accuracy: Vec<f64>,
    /// Held-out tasks per evaluation.
    pub eval_tasks: usize,
    /// One entry per arm, in config order.
    pub arms: Vec<ArmResult>,
    /// The overlap gate, when the experiment has one.
    #[serde(default)]
    pub gate: Option<GateReport>,
    /// The tuning sweep, when the experiment has one.
    #[serde(default)]
    pub tuning: Option<Tuning>,
    /// The pre-declared primary comparison, when the experiment has one.
    #[serde(default)]
    pub primary: Option<Primary>,
}

/// One arm over all seeds.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ArmResult {
    /// Arm name.
    pub arm: String,
    /// Its algorithm settings (the tuned clip included).
    pub algorithm: HacpoConfig,
    /// The learning rate every agent used (`None`: each agent's own).
    #[serde(default)]
    pub lr: Option<f64>,
    /// The tuned arm whose chosen setting this arm ran at (itself, or its `tuned_as`).
    #[serde(default)]
    pub tuned_as: Option<String>,
    /// Training rollouts one run generates (all agents).
    pub rollouts_per_run: usize,
    /// One entry per seed.
    pub seeds: Vec<SeedResult>,
}

/// One run.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SeedResult {
    /// Seed.
    pub seed: u64,
    /// The pool's `run` (evaluations are under `<run>/eval`).
    pub run: String,
    /// Wall time of the run.
    pub wall_seconds: f64,
    /// Per agent: (step, held-out accuracy), starting at step 0.
    pub curves: Vec<Vec<(usize, f64)>>,
    /// Per agent name: the run's mean over steps of each `diagnostics::KEYS` key.
    #[serde(default)]
    pub diagnostics: BTreeMap<String, BTreeMap<String, f64>>,
    /// Per skill of the evaluation tasks, the same curves on that skill's tasks alone (empty
    /// where the tasks have one skill, and in runs recorded before it was kept).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub skills: super::skills::SkillCurves,
    /// Per agent: (step, seconds since its training began) at every step, to read accuracy
    /// against wall-clock time (empty in runs recorded before it was kept).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clock: Vec<Vec<(usize, f64)>>,
}

impl ArmResult {
    /// `agent`'s `endpoint` in each seed, (seed, value).
    pub fn endpoints(&self, agent: usize, endpoint: Endpoint) -> Vec<(u64, f64)> {
        self.seeds
            .iter()
            .filter_map(|s| Some((s.seed, endpoint.of(&s.curves[agent])?)))
            .collect()
    }

    /// Final held-out accuracy of `agent` over seeds.
    pub fn final_accuracy(&self, agent: usize) -> Spread {
        let finals: Vec<f64> = self
            .seeds
            .iter()
            .filter_map(|s| s.curves[agent].last().map(|p| p.1))
            .collect();
        Spread::of(&finals)
    }

    /// Mean over the seeds that kept a clock of `agent`'s seconds at `step` (0 at step 0, the
    /// warm-up); `None` where no seed has it.
    pub fn seconds_at(&self, agent: usize, step: usize) -> Option<f64> {
        if step == 0 {
            return Some(0.0);
        }
        let at: Vec<f64> = (self.seeds.iter())
            .filter_map(|s| {
                s.clock
                    .get(agent)?
                    .iter()
                    .find(|p| p.0 == step)
                    .map(|p| p.1)
            })
            .collect();
        (!at.is_empty()).then(|| at.iter().sum::<f64>() / at.len() as f64)
    }

    /// Per step, the spread of `agent`'s accuracy over seeds.
    pub fn curve(&self, agent: usize) -> Vec<(usize, Spread)> {
        let mut by_step: BTreeMap<usize, Vec<f64>> = BTreeMap::new();
        for s in &self.seeds {
            for &(step, acc) in &s.curves[agent] {
                by_step.entry(step).or_default().push(acc);
            }
        }
        by_step
            .into_iter()
            .map(|(step, v)| (step, Spread::of(&v)))
            .collect()
    }
}

impl Report {
    /// Reads a `results.json` that [`Report::write`] wrote.
    pub fn read(path: &Path) -> Result<Report> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
    }

    /// Writes `results.json`, `results.md` and `curves.png` into `dir`, and `clock.png` (the
    /// same curves against wall-clock time) where the runs kept their clocks.
    pub fn write(&self, dir: &Path) -> Result<()> {
        std::fs::create_dir_all(dir)?;
        std::fs::write(dir.join("results.json"), serde_json::to_vec_pretty(self)?)?;
        std::fs::write(dir.join("results.md"), self.table())?;
        self.plot(&dir.join("curves.png"), plot::Axis::Step)?;
        if (self.arms.iter()).any(|a| a.seeds.iter().any(|s| !s.clock.is_empty())) {
            self.plot(&dir.join("clock.png"), plot::Axis::WallClock)?;
        }
        Ok(())
    }

    /// One report from several that ran parts of the same experiment (different arms or seeds,
    /// possibly on different machines). Their runs pair only if they started from the same
    /// warm-ups, so the agents, warm-up accuracies, evaluation set and gate must be equal; a run
    /// (arm, seed) present twice must have the same curves, or the parts did not reproduce.
    pub fn merge(parts: Vec<Report>) -> Result<Report> {
        let mut parts = parts.into_iter();
        let mut merged = parts.next().context("no reports to merge")?;
        for part in parts {
            let same = merged.name == part.name
                && merged.agents == part.agents
                && merged.warmup_accuracy == part.warmup_accuracy
                && merged.eval_tasks == part.eval_tasks
                && merged.gate.as_ref().map(|g| &g.pairs) == part.gate.as_ref().map(|g| &g.pairs);
            let tuning = match (merged.tuning.take(), part.tuning) {
                (Some(a), Some(b)) => Some(a.merge(b).context(
                    "the parts' tuning sweeps differ in what they declared or chose: their runs do not pair",
                )?),
                (a, b) => a.or(b),
            };
            if !same {
                return Err(anyhow!(
                    "`{}` and `{}` differ in agents, warm-up accuracy ({:?} vs {:?}), evaluation set, gate or tuned settings: their runs do not pair",
                    merged.name,
                    part.name,
                    merged.warmup_accuracy,
                    part.warmup_accuracy
                ));
            }
            merged.tuning = tuning;
            merged.primary = merged.primary.or(part.primary);
            for arm in part.arms {
                merged.merge_arm(arm)?;
            }
        }
        merged.check_settings()?;
        Ok(merged)
    }

    /// Every tuned arm ran at the setting the (merged) sweep chooses: a part that ran its arms
    /// before another part's points changed the choice does not pair.
    fn check_settings(&self) -> Result<()> {
        let Some(t) = &self.tuning else {
            return Ok(());
        };
        for arm in &self.arms {
            let Some(name) = &arm.tuned_as else { continue };
            let chosen = t.chosen.get(name);
            if chosen.map(|c| c.lr) != Some(arm.lr) {
                return Err(anyhow!(
                    "arm `{}` ran at lr {:?}, but the sweep chooses {:?} for `{name}`",
                    arm.arm,
                    arm.lr,
                    chosen
                ));
            }
        }
        Ok(())
    }

    fn merge_arm(&mut self, arm: ArmResult) -> Result<()> {
        let Some(into) = self.arms.iter_mut().find(|a| a.arm == arm.arm) else {
            self.arms.push(arm);
            return Ok(());
        };
        if into.algorithm != arm.algorithm
            || into.lr != arm.lr
            || into.rollouts_per_run != arm.rollouts_per_run
        {
            return Err(anyhow!(
                "arm `{}` has different settings in two reports",
                arm.arm
            ));
        }
        for seed in arm.seeds {
            match into.seeds.iter().find(|s| s.seed == seed.seed) {
                Some(s) if s.curves == seed.curves => {}
                Some(_) => {
                    return Err(anyhow!(
                        "arm `{}` seed {} has different curves in two reports: the runs did not reproduce",
                        arm.arm,
                        seed.seed
                    ));
                }
                None => into.seeds.push(seed),
            }
        }
        into.seeds.sort_by_key(|s| s.seed);
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn seed(seed: u64, a: &[f64], b: &[f64]) -> SeedResult {
        SeedResult {
            seed,
            run: format!("x/s{seed}"),
            wall_seconds: 10.0,
            curves: vec![
                a.iter().enumerate().map(|(i, &v)| (i * 5, v)).collect(),
                b.iter().enumerate().map(|(i, &v)| (i * 5, v)).collect(),
            ],
            diagnostics: BTreeMap::new(),
            skills: BTreeMap::new(),
            clock: Vec::new(),
        }
    }

    pub(crate) fn report() -> Report {
        let arm = |name: &str, seeds| ArmResult {
            arm: name.into(),
            algorithm: HacpoConfig::default(),
            lr: None,
            tuned_as: None,
            rollouts_per_run: 64,
            seeds,
        };
        Report {
            name: "x".into(),
            agents: vec!["small".into(), "big".into()],
            warmup_accuracy: vec![0.1, 0.3],
            eval_tasks: 50,
            gate: None,
            tuning: None,
            primary: None,
            arms: vec![
                arm(
                    "gspo",
                    vec![
                        seed(0, &[0.1, 0.2], &[0.3, 0.3]),
                        seed(1, &[0.1, 0.4], &[0.3, 0.5]),
                    ],
                ),
                arm(
                    "hacpo",
                    vec![
                        seed(0, &[0.1, 0.5], &[0.3, 0.6]),
                        seed(1, &[0.1, 0.5], &[0.3, 0.4]),
                    ],
                ),
            ],
        }
    }

    /// Two parts of one experiment: gspo and hacpo seeds 0–1 here, gspo×2 and hacpo seed 2 there.
    pub(crate) fn other_part() -> Report {
        let mut r = report();
        r.arms.remove(0);
        r.arms[0].seeds = vec![seed(2, &[0.1, 0.3], &[0.3, 0.2])];
        let mut gspo2x = r.arms[0].clone();
        gspo2x.arm = "gspo2x".into();
        gspo2x.seeds = vec![seed(0, &[0.1, 0.1], &[0.3, 0.2])];
        r.arms.push(gspo2x);
        r
    }

    #[test]
    fn merge_unions_arms_and_seeds_and_pairs_across_parts() {
        let m = Report::merge(vec![report(), other_part()]).unwrap();
        let names: Vec<_> = m.arms.iter().map(|a| a.arm.as_str()).collect();
        assert_eq!(names, ["gspo", "hacpo", "gspo2x"]);
        let seeds: Vec<_> = m.arms[1].seeds.iter().map(|s| s.seed).collect();
        assert_eq!(seeds, [0, 1, 2]);
        let t = m.table();
        assert!(
            t.contains("| hacpo | 0.433 ± 0.115 [0.300–0.500] | +0.333 |"),
            "{t}"
        );
        assert!(t.contains("| gspo2x | 0.100 ± 0.000 [0.100–0.100] | +0.000 | 0.200 ± 0.000 [0.200–0.200] | -0.100 | 1 | 64 | 10 |"), "{t}");
        // A part read twice adds nothing: a run present in both with equal curves counts once.
        let again = Report::merge(vec![m.clone(), other_part()]).unwrap();
        assert_eq!(again.arms[1].seeds.len(), 3);
    }

    #[test]
    fn merge_refuses_parts_that_do_not_pair() {
        let mut warm = other_part();
        warm.warmup_accuracy[1] = 0.31;
        let e = Report::merge(vec![report(), warm]).unwrap_err().to_string();
        assert!(e.contains("do not pair") && e.contains("0.31"), "{e}");

        let mut rerun = other_part();
        rerun.arms[0].seeds[0] = seed(1, &[0.1, 0.6], &[0.3, 0.4]);
        let e = Report::merge(vec![report(), rerun])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`hacpo` seed 1") && e.contains("did not reproduce"),
            "{e}"
        );

        let mut settings = other_part();
        settings.arms[0].algorithm.alpha = 0.0;
        let e = Report::merge(vec![report(), settings])
            .unwrap_err()
            .to_string();
        assert!(e.contains("`hacpo` has different settings"), "{e}");
        let mut lr = other_part();
        lr.arms[0].lr = Some(1e-4);
        assert!(Report::merge(vec![report(), lr]).is_err());
        assert!(Report::merge(Vec::new()).is_err());
    }

    #[test]
    fn curves_average_seeds_step_by_step_and_endpoints_pair_by_seed() {
        let r = report();
        let c = r.arms[0].curve(0);
        assert_eq!(c.len(), 2);
        assert_eq!(c[1].0, 5);
        assert!((c[1].1.mean - 0.3).abs() < 1e-12);
        assert_eq!((c[1].1.min, c[1].1.max), (0.2, 0.4));
        assert_eq!(
            r.arms[1].endpoints(1, Endpoint::Final),
            [(0, 0.6), (1, 0.4)]
        );
    }

    #[test]
    fn merge_refuses_arms_run_at_a_setting_the_sweep_no_longer_chooses() {
        use crate::experiment::tuning::{SelectionRule, Setting, TuningPoint, TuningSpec};
        let spec = TuningSpec {
            seeds: vec![100],
            lr: vec![1e-4, 2e-4],
            eps_scale: vec![1.0],
            arms: vec!["gspo".into()],
            rule: SelectionRule::WorstAgentLastThree,
            distill_coef: vec![],
            steps: None,
        };
        let point = |lr: f64, score: f64| TuningPoint {
            arm: "gspo".into(),
            setting: Setting {
                lr: Some(lr),
                eps_scale: 1.0,
                distill_coef: None,
            },
            runs: vec![],
            curves: vec![],
            score,
            wall_seconds: 1.0,
        };
        let mut a = report();
        a.tuning = Some(Tuning::choose(
            spec.clone(),
            vec![0.5],
            vec![point(1e-4, 0.3)],
        ));
        a.arms[0].tuned_as = Some("gspo".into());
        a.arms[0].lr = Some(1e-4);
        assert!(Report::merge(vec![a.clone(), a.clone()]).is_ok());
        // Another part's better point moves the choice to 2e-4: a's gspo ran at the old one.
        let mut b = report();
        b.arms.clear();
        b.tuning = Some(Tuning::choose(spec, vec![0.5], vec![point(2e-4, 0.4)]));
        let e = Report::merge(vec![a, b]).unwrap_err().to_string();
        assert!(e.contains("the sweep chooses"), "{e}");
    }
}
