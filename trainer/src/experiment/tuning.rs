//! The tuning sweep: every tuned arm runs at each learning rate × own-sample clip scale on its
//! own seeds, evaluated on the validation split only, and a rule declared in the experiment file
//! before anything ran picks each arm's setting.

use std::collections::BTreeMap;

use anyhow::{Context, Result, ensure};
use serde::{Deserialize, Serialize};

use super::stats::Endpoint;

/// The sweep as the experiment file declares it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TuningSpec {
    /// Seeds of the sweep's runs, none of them an experiment seed.
    pub seeds: Vec<u64>,
    /// Learning rates (every agent of a run uses the same).
    pub lr: Vec<f64>,
    /// Multipliers of the arm's own-sample sequence clip (ε_low, ε_high): 1 is the paper's.
    pub eps_scale: Vec<f64>,
    /// The arms that are tuned (others take a tuned arm's setting through `tuned_as`, or run at
    /// their own).
    pub arms: Vec<String>,
    /// How a setting is chosen.
    pub rule: SelectionRule,
    /// Coefficients of the distillation control's supervised term: its second knob in place
    /// of the clip scale (empty: distillation arms sweep the clip scale like the others).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub distill_coef: Vec<f64>,
    /// Training steps of a sweep run (none: the arms' `run.steps`); a shorter sweep is what fits
    /// where a step costs minutes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steps: Option<usize>,
}

impl TuningSpec {
    /// Checks the grid is usable.
    pub fn validate(&self) -> Result<()> {
        ensure!(!self.seeds.is_empty(), "experiment.tuning.seeds is empty");
        ensure!(
            !self.lr.is_empty() && self.lr.iter().all(|&x| x > 0.0 && x.is_finite()),
            "experiment.tuning.lr must be positive rates"
        );
        ensure!(
            !self.eps_scale.is_empty() && self.eps_scale.iter().all(|&x| x > 0.0 && x.is_finite()),
            "experiment.tuning.eps_scale must be positive multipliers"
        );
        ensure!(
            self.distill_coef.iter().all(|&x| x > 0.0 && x.is_finite()),
            "experiment.tuning.distill_coef must be positive coefficients"
        );
        ensure!(!self.arms.is_empty(), "experiment.tuning.arms is empty");
        ensure!(
            self.steps != Some(0),
            "experiment.tuning.steps must be positive"
        );
        Ok(())
    }

    /// Every setting of an arm's grid, lr-major, ascending: lr × clip scale, or for a
    /// distillation arm (`distills`) lr × `distill_coef` when the sweep declares coefficients.
    pub fn grid(&self, distills: bool) -> Vec<Setting> {
        let sorted = |v: &[f64]| {
            let mut v = v.to_vec();
            v.sort_by(f64::total_cmp);
            v
        };
        let lr = sorted(&self.lr);
        let knob: Vec<(f64, Option<f64>)> = if distills && !self.distill_coef.is_empty() {
            sorted(&self.distill_coef)
                .into_iter()
                .map(|c| (1.0, Some(c)))
                .collect()
        } else {
            sorted(&self.eps_scale)
                .into_iter()
                .map(|e| (e, None))
                .collect()
        };
        lr.iter()
            .flat_map(|&l| {
                knob.iter().map(move |&(eps_scale, distill_coef)| Setting {
                    lr: Some(l),
                    eps_scale,
                    distill_coef,
                })
            })
            .collect()
    }
}

/// How the sweep picks a setting per arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SelectionRule {
    /// The highest worse-agent score, where an agent's score is its mean of the last three
    /// validation evaluations averaged over the tuning seeds; ties go to the smaller learning
    /// rate, then to the smaller clip scale. The worse agent, because a collaboration that
    /// lifts one partner by sinking the other is not what is being tuned for.
    WorstAgentLastThree,
}

impl SelectionRule {
    /// The score of one setting from its runs' validation curves (per run, per agent).
    pub fn score(self, runs: &[Vec<Vec<(usize, f64)>>]) -> f64 {
        match self {
            Self::WorstAgentLastThree => agent_last_three(runs)
                .into_iter()
                .fold(f64::INFINITY, f64::min),
        }
    }
}

/// Per agent, the mean of the last three validation evaluations over the runs of one setting
/// (per run, per agent curves): what the rule scores and the report shows.
pub fn agent_last_three(runs: &[Vec<Vec<(usize, f64)>>]) -> Vec<f64> {
    let agents = runs.first().map_or(0, Vec::len);
    (0..agents)
        .map(|k| {
            let v: Vec<f64> = runs
                .iter()
                .filter_map(|r| Endpoint::LastThree.of(&r[k]))
                .collect();
            v.iter().sum::<f64>() / v.len().max(1) as f64
        })
        .collect()
}

/// A learning rate (`None`: each agent's own), a clip scale and, for the distillation
/// control, its supervised coefficient.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Setting {
    /// Every agent's learning rate.
    pub lr: Option<f64>,
    /// Multiplier of the own-sample clip.
    pub eps_scale: f64,
    /// The distillation term's coefficient (`None`: the arm's own, 1 by default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distill_coef: Option<f64>,
}

impl Default for Setting {
    fn default() -> Self {
        Self {
            lr: None,
            eps_scale: 1.0,
            distill_coef: None,
        }
    }
}

impl Setting {
    /// Folder and run-name component: `lr2e-4-eps10`, `lr1e-4-eps1-coef0.5`.
    pub fn label(&self) -> String {
        let mut label = match self.lr {
            Some(lr) => format!("lr{lr:e}-eps{}", self.eps_scale),
            None => format!("eps{}", self.eps_scale),
        };
        if let Some(c) = self.distill_coef {
            label += &format!("-coef{c}");
        }
        label
    }
}

/// One arm at one setting of the sweep.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TuningPoint {
    /// The tuned arm.
    pub arm: String,
    /// Its setting.
    pub setting: Setting,
    /// The pool's runs, one per tuning seed.
    pub runs: Vec<String>,
    /// Per run, per agent: (step, validation accuracy), starting at the warm-up's step 0.
    pub curves: Vec<Vec<Vec<(usize, f64)>>>,
    /// The rule's score.
    pub score: f64,
    /// Wall time of its runs together.
    pub wall_seconds: f64,
}

/// Scores closer than this are a tie (one problem in a validation split is ~1e-3).
const TIE: f64 = 1e-9;

/// The sweep's outcome: every point and each arm's choice.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tuning {
    /// What was declared.
    pub spec: TuningSpec,
    /// Validation accuracy of each agent's warm-up.
    pub warmup_accuracy: Vec<f64>,
    /// Every (arm, setting) that ran.
    pub points: Vec<TuningPoint>,
    /// Per tuned arm, the chosen setting.
    pub chosen: BTreeMap<String, Setting>,
    /// Every point of the grid ran at every tuning seed (`--report-only` may find fewer).
    #[serde(default)]
    pub complete: bool,
}

impl Tuning {
    /// Applies the rule to the points of each arm.
    pub fn choose(spec: TuningSpec, warmup_accuracy: Vec<f64>, points: Vec<TuningPoint>) -> Self {
        let mut chosen = BTreeMap::new();
        for arm in &spec.arms {
            let best = points
                .iter()
                .filter(|p| &p.arm == arm && p.score.is_finite())
                .fold(None::<&TuningPoint>, |best, p| match best {
                    // The grid is visited in ascending order: only a higher score replaces the
                    // smaller setting (scores are means of accuracies, so equal ones may differ
                    // in the last bits).
                    Some(b) if p.score <= b.score + TIE => Some(b),
                    _ => Some(p),
                });
            if let Some(b) = best {
                chosen.insert(arm.clone(), b.setting);
            }
        }
        Self {
            spec,
            warmup_accuracy,
            points,
            chosen,
            complete: true,
        }
    }

    /// The sweep of two parts of one experiment (other arms, or other points of the grid):
    /// their points together, and the rule applied again to all of them; `None` when the parts
    /// declared different sweeps or started from different warm-ups.
    pub fn merge(self, other: Tuning) -> Option<Tuning> {
        if self.spec != other.spec || self.warmup_accuracy != other.warmup_accuracy {
            return None;
        }
        let complete = self.complete && other.complete;
        let mut points = self.points;
        for p in other.points {
            if !points.contains(&p) {
                points.push(p);
            }
        }
        let mut merged = Tuning::choose(self.spec, self.warmup_accuracy, points);
        merged.complete = complete;
        Some(merged)
    }

    /// An earlier invocation's sweep in place of running it again: only a complete sweep of the
    /// same declared grid and rule, started from warm-ups whose validation accuracies are
    /// exactly this invocation's (pinned kernels make them reproduce across machines); its
    /// choice is made again from its points, not trusted from the file.
    /// `distills` says which tuned arms are distillation arms (their grid's second knob).
    pub fn adopt(
        earlier: Option<Tuning>,
        spec: &TuningSpec,
        warm: &[f64],
        distills: &dyn Fn(&str) -> bool,
    ) -> Result<Tuning> {
        let t = earlier.context("it has no tuning sweep")?;
        ensure!(
            &t.spec == spec,
            "it declared another sweep ({:?}) than this experiment ({spec:?})",
            t.spec
        );
        ensure!(
            t.warmup_accuracy == warm,
            "it started from warm-ups with validation accuracies {:?}, these have {warm:?}: the warm-ups did not reproduce",
            t.warmup_accuracy
        );
        ensure!(t.complete, "it was not complete (a --report-only snapshot)");
        let missing: Vec<_> = spec
            .arms
            .iter()
            .flat_map(|a| spec.grid(distills(a)).into_iter().map(move |s| (a, s)))
            .filter(|(a, s)| {
                !t.points
                    .iter()
                    .any(|p| &p.arm == *a && p.setting == *s && p.runs.len() == spec.seeds.len())
            })
            .map(|(a, s)| format!("{a} {}", s.label()))
            .collect();
        ensure!(
            missing.is_empty(),
            "it lacks points: {}",
            missing.join(", ")
        );
        Ok(Tuning::choose(t.spec, t.warmup_accuracy, t.points))
    }

    /// The setting an arm runs at: its own choice, or the choice of the arm it is tuned as.
    pub fn setting_for(&self, tuning_name: &str) -> Setting {
        self.chosen.get(tuning_name).copied().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> TuningSpec {
        TuningSpec {
            seeds: vec![100],
            lr: vec![2e-4, 1e-4],
            eps_scale: vec![10.0, 1.0],
            arms: vec!["gspo".into()],
            rule: SelectionRule::WorstAgentLastThree,
            distill_coef: vec![],
            steps: None,
        }
    }

    fn point(lr: f64, eps: f64, a: [f64; 3], b: [f64; 3]) -> TuningPoint {
        let curve = |v: [f64; 3]| vec![(0, 0.0), (10, v[0]), (20, v[1]), (30, v[2])];
        let curves = vec![vec![curve(a), curve(b)]];
        TuningPoint {
            arm: "gspo".into(),
            setting: Setting {
                lr: Some(lr),
                eps_scale: eps,
                distill_coef: None,
            },
            runs: vec![],
            score: SelectionRule::WorstAgentLastThree.score(&curves),
            curves,
            wall_seconds: 1.0,
        }
    }

    #[test]
    fn the_grid_is_ascending_lr_major() {
        let g: Vec<(f64, f64)> = spec()
            .grid(false)
            .iter()
            .map(|s| (s.lr.unwrap(), s.eps_scale))
            .collect();
        assert_eq!(g, [(1e-4, 1.0), (1e-4, 10.0), (2e-4, 1.0), (2e-4, 10.0)]);
    }

    #[test]
    fn a_distillation_arm_sweeps_its_coefficient_in_place_of_the_clip() {
        let spec = TuningSpec {
            distill_coef: vec![2.0, 0.5],
            ..spec()
        };
        let g: Vec<(f64, f64, Option<f64>)> = spec
            .grid(true)
            .iter()
            .map(|s| (s.lr.unwrap(), s.eps_scale, s.distill_coef))
            .collect();
        assert_eq!(
            g,
            [
                (1e-4, 1.0, Some(0.5)),
                (1e-4, 1.0, Some(2.0)),
                (2e-4, 1.0, Some(0.5)),
                (2e-4, 1.0, Some(2.0))
            ]
        );
        assert_eq!(spec.grid(true)[1].label(), "lr1e-4-eps1-coef2");
        assert_eq!(
            spec.grid(false),
            self::spec().grid(false),
            "others keep lr × ε"
        );
    }

    #[test]
    fn the_rule_takes_the_worse_agent_and_breaks_ties_to_the_smaller_setting() {
        // Worse agents: 0.2, 0.3 (tie), 0.3 (tie), 0.1 (its better agent is the best overall).
        let points = vec![
            point(1e-4, 1.0, [0.2, 0.2, 0.2], [0.5, 0.5, 0.5]),
            point(1e-4, 10.0, [0.3, 0.3, 0.3], [0.4, 0.4, 0.4]),
            point(2e-4, 1.0, [0.2, 0.3, 0.4], [0.6, 0.6, 0.6]),
            point(2e-4, 10.0, [0.1, 0.1, 0.1], [0.9, 0.9, 0.9]),
        ];
        assert!((points[2].score - 0.3).abs() < 1e-12);
        let t = Tuning::choose(spec(), vec![0.0, 0.0], points);
        assert_eq!(
            t.setting_for("gspo"),
            Setting {
                lr: Some(1e-4),
                eps_scale: 10.0,
                distill_coef: None,
            }
        );
        assert_eq!(t.setting_for("hacpo"), Setting::default());
        assert_eq!(t.chosen["gspo"].label(), "lr1e-4-eps10");
    }

    #[test]
    fn parts_of_a_sweep_merge_into_one_choice_over_all_their_points() {
        let low = point(1e-4, 1.0, [0.2, 0.2, 0.2], [0.5, 0.5, 0.5]);
        let high = point(2e-4, 1.0, [0.4, 0.4, 0.4], [0.5, 0.5, 0.5]);
        let a = Tuning::choose(spec(), vec![0.1, 0.2], vec![low.clone()]);
        let b = Tuning::choose(spec(), vec![0.1, 0.2], vec![high.clone(), low]);
        assert_eq!(a.chosen["gspo"].lr, Some(1e-4));
        let m = a.clone().merge(b).unwrap();
        assert_eq!(m.points.len(), 2, "a point both parts ran counts once");
        assert_eq!(
            m.chosen["gspo"], high.setting,
            "chosen again over every point"
        );
        let other_warmup = Tuning::choose(spec(), vec![0.3, 0.2], vec![high]);
        assert!(a.merge(other_warmup).is_none());
    }

    fn full_sweep() -> Tuning {
        let mut points = vec![
            point(1e-4, 1.0, [0.2, 0.2, 0.2], [0.5, 0.5, 0.5]),
            point(1e-4, 10.0, [0.3, 0.3, 0.3], [0.4, 0.4, 0.4]),
            point(2e-4, 1.0, [0.4, 0.4, 0.4], [0.6, 0.6, 0.6]),
            point(2e-4, 10.0, [0.1, 0.1, 0.1], [0.9, 0.9, 0.9]),
        ];
        for p in &mut points {
            p.runs = vec!["r".into()];
        }
        Tuning::choose(spec(), vec![0.35, 0.45], points)
    }

    #[test]
    fn an_earlier_sweep_is_adopted_only_when_it_is_complete_and_from_the_same_warm_ups() {
        let t = full_sweep();
        let mut tampered = t.clone();
        tampered.chosen.insert("gspo".into(), Setting::default());
        let adopted = Tuning::adopt(Some(tampered), &spec(), &[0.35, 0.45], &|_| false).unwrap();
        assert_eq!(
            adopted.chosen, t.chosen,
            "the choice is made again from the points"
        );
        assert_eq!(adopted.setting_for("gspo").lr, Some(2e-4));

        let err = |earlier: Option<Tuning>, spec: &TuningSpec, warm: &[f64]| {
            format!(
                "{:#}",
                Tuning::adopt(earlier, spec, warm, &|_| false).unwrap_err()
            )
        };
        assert!(err(None, &spec(), &[0.35, 0.45]).contains("no tuning sweep"));
        assert!(err(Some(t.clone()), &spec(), &[0.35, 0.451]).contains("did not reproduce"));
        let mut wider = spec();
        wider.lr.push(3e-4);
        assert!(err(Some(t.clone()), &wider, &[0.35, 0.45]).contains("another sweep"));
        let mut snapshot = t.clone();
        snapshot.complete = false;
        assert!(err(Some(snapshot), &spec(), &[0.35, 0.45]).contains("not complete"));
        let mut short = t;
        short.points.pop();
        assert!(
            err(Some(short), &spec(), &[0.35, 0.45]).contains("lacks points: gspo lr2e-4-eps10")
        );
    }
}
