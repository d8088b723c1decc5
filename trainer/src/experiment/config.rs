//! The experiment file: arms, seeds, the tuning sweep and the primary endpoint declared before
//! anything runs, the generated tasks, the shared loop settings and the agents.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail, ensure};
use serde::{Deserialize, Serialize};

use super::arith::{ArithSpec, Skill};
use super::stats::Endpoint;
use super::tuning::{Setting, TuningSpec};
use crate::config::{AgentSection, DataSection, RunConfig, RunSection, VerifierSection, read_toml};
use crate::gate::GateSpec;
use crate::hacpo::HacpoConfig;
use crate::sft::SftConfig;

/// The experiment file (`trainer experiment --config experiment.toml`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentConfig {
    /// Arms and seeds.
    pub experiment: ExperimentSection,
    /// The generated tasks.
    pub tasks: ArithSpec,
    /// Loop settings shared by every run; `name` prefixes run names, `seed` is replaced by each
    /// seed, `output_dir` holds warm-ups, runs and the report.
    pub run: RunSection,
    /// Where rollouts are scored and pooled.
    pub verifier: VerifierSection,
    /// Algorithm settings shared by every arm (each arm overrides some).
    #[serde(default)]
    pub algorithm: toml::Table,
    /// The agents, created from a model config and a tokenizer, then warmed up.
    pub agents: Vec<ExperimentAgent>,
}

/// Arms and seeds.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentSection {
    /// Every arm runs once per seed.
    pub seeds: Vec<u64>,
    /// The arms, in report order.
    pub arms: Vec<Arm>,
    /// Evaluate on the first this many held-out tasks (0: all).
    #[serde(default)]
    pub eval_size: usize,
    /// The overlap gate checked after the warm-up, before any RL (none: no gate).
    #[serde(default)]
    pub gate: Option<GateSpec>,
    /// A folder (relative to the file, meant to be committed) where every finished run also
    /// leaves its result, keyed by its settings and its warm-ups' weights: an experiment
    /// continued on another machine reads those runs back instead of training them again.
    #[serde(default)]
    pub ledger: Option<PathBuf>,
    /// The per-arm sweep of learning rate × own-sample clip on the validation split, run on its
    /// own seeds before the arms (none: every agent's `lr`, the arms' ε).
    #[serde(default)]
    pub tuning: Option<TuningSpec>,
    /// The one comparison the experiment is about, declared before it runs; every other
    /// comparison in the report is secondary.
    #[serde(default)]
    pub primary: Option<Primary>,
    /// Run the arms even when the gate fails (`trainer experiment --ignore-gate`): a deviation
    /// from the pre-registration, recorded in the report.
    #[serde(skip)]
    pub ignore_gate: bool,
    /// Only report: runs not finished on disk are left out instead of run
    /// (`trainer experiment --report-only`).
    #[serde(skip)]
    pub report_only: bool,
    /// An earlier report whose sweep stands in for running it
    /// (`trainer experiment --tuning-from`).
    #[serde(skip)]
    pub tuning_from: Option<PathBuf>,
    /// Arms kept only because a selected arm is tuned as them: their sweep runs, they do not.
    #[serde(skip)]
    pub sweep_only: Vec<String>,
    /// Stop after the tuning sweep: no arm runs (`trainer experiment --tuning-only`).
    #[serde(skip)]
    pub tuning_only: bool,
}

impl ExperimentSection {
    /// Keeps the arms named (`trainer experiment --arms`), and, for the sweep alone, the arms
    /// they are tuned as.
    pub fn select_arms(&mut self, names: &[String]) -> Result<()> {
        if let Some(unknown) = names
            .iter()
            .find(|n| !self.arms.iter().any(|a| &a.name == *n))
        {
            bail!("no arm named `{unknown}`");
        }
        let selected = |a: &Arm| names.contains(&a.name);
        let tuned_as: Vec<String> = (self.arms.iter())
            .filter(|a| selected(a))
            .map(|a| a.tuning_name().to_string())
            .collect();
        self.sweep_only = (self.arms.iter())
            .filter(|a| !selected(a) && tuned_as.contains(&a.name))
            .map(|a| a.name.clone())
            .collect();
        let keep = |a: &Arm| selected(a) || self.sweep_only.contains(&a.name);
        self.arms = self.arms.drain(..).filter(keep).collect();
        Ok(())
    }
}

/// The pre-declared primary comparison: `arm − baseline` on `endpoint`, per agent, with Holm's
/// correction over the agents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Primary {
    /// The method's arm.
    pub arm: String,
    /// The baseline it must beat.
    pub baseline: String,
    /// What is compared seed by seed.
    pub endpoint: Endpoint,
    /// The margin of the equivalence tests (TOST) the report runs for every pair of arms, per
    /// agent: "arm matches baseline to within ±margin" (none: no equivalence section).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub equivalence_margin: Option<f64>,
}

/// One arm: a name and the `[algorithm]` keys it sets (at least `algorithm`).
#[derive(Debug, Clone, Deserialize)]
pub struct Arm {
    /// Label in run names, the table and the plot.
    pub name: String,
    /// Take the learning rate and clip the sweep chose for this other arm (ablations and
    /// controls run at the settings of the arm they modify).
    #[serde(default)]
    pub tuned_as: Option<String>,
    /// A learning rate and clip scale declared for this arm, where no sweep tunes it (e.g.
    /// carried over from another experiment's sweep).
    #[serde(default)]
    pub setting: Option<Setting>,
    /// Each agent trains in a thread of its own, at its own pace, as `--agent` processes do
    /// (otherwise one loop steps every agent together, where `max_staleness` changes nothing).
    #[serde(default)]
    pub concurrent: bool,
    /// `run.max_staleness` of this arm's runs (η: agents that never wait).
    #[serde(default)]
    pub max_staleness: Option<u64>,
    /// Overrides of the shared algorithm settings.
    #[serde(flatten)]
    pub settings: toml::Table,
}

impl Arm {
    /// The arm whose tuned setting this one uses: `tuned_as`, else itself.
    pub fn tuning_name(&self) -> &str {
        self.tuned_as.as_deref().unwrap_or(&self.name)
    }
}

/// An agent of the experiment: a pretrained `model`, or a `config` and `tokenizer` initialised
/// from `init_seed`; either may be fine-tuned by a supervised `warmup` first.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentAgent {
    /// Unique name in the pool.
    pub name: String,
    /// A pretrained model: a Hugging Face folder or a `.gguf` file. A leading `$HACRL_CACHE/` is
    /// the download cache.
    #[serde(default)]
    pub model: Option<PathBuf>,
    /// Model `config.json` (architecture and size) of a model trained from random weights.
    #[serde(default)]
    pub config: Option<PathBuf>,
    /// Folder with tokenizer.json (and tokenizer_config.json), or a `.gguf` whose tokenizer to
    /// use. A leading `$HACRL_CACHE/` is the download cache.
    #[serde(default)]
    pub tokenizer: Option<PathBuf>,
    /// Seed of the random initialisation.
    #[serde(default)]
    pub init_seed: Option<i64>,
    /// Supervised warm-up on the training split's worked solutions (none: start as given).
    #[serde(default)]
    pub warmup: Option<SftConfig>,
    /// Warm up on this kind of problem only (none: every training problem), so that two agents
    /// can start as complementary specialists.
    #[serde(default)]
    pub warmup_skill: Option<Skill>,
    /// RL learning rate (unless the tuning sweep chooses one).
    pub lr: f64,
    /// RL weight decay (default the authors' 0.01).
    #[serde(default = "crate::config::authors_weight_decay")]
    pub weight_decay: f64,
    /// `cpu`, `cuda` or `cuda:N`.
    #[serde(
        default = "crate::config::cpu",
        deserialize_with = "crate::config::deserialize_device"
    )]
    pub device: tch::Device,
}

/// Where an agent starts, as [`ExperimentAgent::origin`] reads its fields.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Origin<'a> {
    /// Pretrained weights.
    Pretrained {
        /// Folder or `.gguf` file.
        model: &'a Path,
    },
    /// Random weights of an architecture, with a tokenizer.
    Scratch {
        /// Model `config.json`.
        config: &'a Path,
        /// Tokenizer folder or `.gguf`.
        tokenizer: &'a Path,
        /// Seed of the initialisation.
        init_seed: i64,
    },
}

impl ExperimentAgent {
    /// Where the agent starts; an error naming the fields when they mix or miss both kinds.
    pub fn origin(&self) -> Result<Origin<'_>> {
        match (&self.model, &self.config, &self.tokenizer, self.init_seed) {
            (Some(model), None, None, None) => Ok(Origin::Pretrained { model }),
            (None, Some(config), Some(tokenizer), Some(init_seed)) => Ok(Origin::Scratch {
                config,
                tokenizer,
                init_seed,
            }),
            _ => bail!(
                "agent `{}`: give either `model` (pretrained) or all of `config`, `tokenizer` and \
                 `init_seed` (from random weights), not a mix",
                self.name
            ),
        }
    }
}

/// Which split a run evaluates on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Split {
    /// Training problems.
    Train,
    /// Tuning problems from the training distribution.
    Validation,
    /// Held-out problems, for the final evaluation only.
    Test,
}

impl Split {
    /// The suffix of the pool's dataset name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Train => "train",
            Self::Validation => "validation",
            Self::Test => "test",
        }
    }
}

impl ExperimentConfig {
    /// Reads and checks a file; relative paths become relative to its folder.
    pub fn load(path: &Path) -> Result<Self> {
        let (mut cfg, base): (Self, _) = read_toml(path)?;
        cfg.run.output_dir = base.join(&cfg.run.output_dir);
        if let Some(l) = &mut cfg.experiment.ledger {
            *l = base.join(&*l);
        }
        for a in &mut cfg.agents {
            for p in [&mut a.model, &mut a.config, &mut a.tokenizer]
                .into_iter()
                .flatten()
            {
                *p = resolve(base, p);
            }
        }
        cfg.validate()?;
        Ok(cfg)
    }

    /// Checks what serde cannot: every arm's settings form a valid algorithm config, and the
    /// sweep and the primary comparison name arms that exist.
    pub fn validate(&self) -> Result<()> {
        let x = &self.experiment;
        ensure!(!x.seeds.is_empty(), "experiment.seeds is empty");
        ensure!(!x.arms.is_empty(), "experiment.arms is empty");
        ensure!(
            self.agents.len() >= 2,
            "an experiment needs at least two agents"
        );
        for a in &self.agents {
            a.origin()?;
        }
        let mut names: Vec<&str> = x.arms.iter().map(|a| a.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        ensure!(names.len() == x.arms.len(), "arm names must be unique");
        let known = |n: &str| x.arms.iter().any(|a| a.name == n);
        for arm in &x.arms {
            ensure!(
                arm.settings.contains_key("algorithm"),
                "arm `{}` must set `algorithm`",
                arm.name
            );
            if let Some(t) = &arm.tuned_as {
                ensure!(known(t), "arm `{}`: tuned_as `{t}` is no arm", arm.name);
            }
            self.arm_config(arm, x.seeds[0], &[], &Setting::default(), Split::Test)?;
        }
        if let Some(t) = &x.tuning {
            t.validate()?;
            for a in &t.arms {
                ensure!(known(a), "experiment.tuning.arms: `{a}` is no arm");
            }
            ensure!(
                self.tasks.validation > 0,
                "experiment.tuning needs a validation split: set tasks.validation"
            );
            ensure!(
                t.seeds.iter().all(|s| !x.seeds.contains(s)),
                "experiment.tuning.seeds must differ from experiment.seeds"
            );
        }
        if let Some(p) = &x.primary {
            ensure!(
                known(&p.arm) && known(&p.baseline),
                "experiment.primary names an arm that does not exist"
            );
        }
        Ok(())
    }

    /// Whether the arm named `arm` is a distillation arm (whose sweep may tune its coefficient).
    pub fn distills(&self, arm: &str) -> bool {
        self.experiment.arms.iter().any(|a| {
            a.name == arm && a.settings.get("algorithm").and_then(|v| v.as_str()) == Some("distill")
        })
    }

    /// The run of `arm` with `seed`, its agents starting from `warm` (one folder per agent), at
    /// `setting` (learning rate and clip scale; defaults: each agent's `lr`, the arm's ε),
    /// evaluated on `eval`.
    pub fn arm_config(
        &self,
        arm: &Arm,
        seed: u64,
        warm: &[PathBuf],
        setting: &Setting,
        eval: Split,
    ) -> Result<RunConfig> {
        let mut table = self.algorithm.clone();
        table.extend(arm.settings.clone());
        let mut algorithm: HacpoConfig = toml::Value::Table(table)
            .try_into()
            .with_context(|| format!("algorithm settings of arm `{}`", arm.name))?;
        algorithm.gspo_eps_low *= setting.eps_scale;
        algorithm.gspo_eps_high *= setting.eps_scale;
        if let Some(c) = setting.distill_coef {
            algorithm.distill_coef = c;
        }
        let mut run = self.run.clone();
        run.name = self.run_name(arm, seed, setting, eval);
        run.seed = seed;
        run.max_staleness = arm.max_staleness.or(run.max_staleness);
        if let (Split::Validation, Some(t)) = (eval, &self.experiment.tuning) {
            run.steps = t.steps.unwrap_or(run.steps);
        }
        run.output_dir = self
            .run
            .output_dir
            .join(self.run_folder(arm, seed, setting, eval));
        let agents = self
            .agents
            .iter()
            .enumerate()
            .map(|(i, a)| AgentSection {
                name: a.name.clone(),
                model: warm.get(i).cloned().unwrap_or_default(),
                device: a.device,
                lr: setting.lr.unwrap_or(a.lr),
                weight_decay: a.weight_decay,
                generation: Default::default(),
            })
            .collect();
        Ok(RunConfig {
            run,
            verifier: self.verifier.clone(),
            data: DataSection {
                train: self.dataset(Split::Train),
                eval: Some(self.dataset(eval)),
                eval_size: if eval == Split::Test {
                    self.experiment.eval_size
                } else {
                    0
                },
            },
            algorithm,
            agents,
        })
    }

    /// The pool's `run` of an arm and seed: `<name>/<arm>[/<setting>]/s<seed>` for the arms,
    /// `<name>/tune/<arm>/<setting>/s<seed>` for the sweep.
    pub fn run_name(&self, arm: &Arm, seed: u64, setting: &Setting, eval: Split) -> String {
        let folder = self.run_folder(arm, seed, setting, eval);
        format!("{}/{}", self.run.name, folder.display())
    }

    /// The folder of a run under `run.output_dir` (and its entry's name in the ledger).
    pub fn run_folder(&self, arm: &Arm, seed: u64, setting: &Setting, eval: Split) -> PathBuf {
        match eval {
            Split::Validation => Path::new("tune")
                .join(&arm.name)
                .join(setting.label())
                .join(format!("s{seed}")),
            // A tuned setting is in the name: runs at another setting never share a folder.
            _ if setting.lr.is_some() => Path::new(&arm.name)
                .join(setting.label())
                .join(format!("s{seed}")),
            _ => Path::new(&arm.name).join(format!("s{seed}")),
        }
    }

    /// The pool's dataset name of a split.
    pub fn dataset(&self, split: Split) -> String {
        format!("{}-{}", self.run.name, split.name())
    }

    /// Rollouts one run of `arm` generates for training (evaluation excluded).
    pub fn rollouts_per_run(&self, arm: &Arm) -> Result<usize> {
        let algorithm = self
            .arm_config(arm, 0, &[], &Setting::default(), Split::Test)?
            .algorithm
            .algorithm;
        Ok(self.run.steps
            * self.run.prompts_per_step
            * algorithm.rollouts_per_prompt(self.run.group_size)
            * self.agents.len())
    }
}

fn resolve(base: &Path, p: &Path) -> PathBuf {
    match p.strip_prefix("$HACRL_CACHE") {
        Ok(rest) => crate::cache_dir().join(rest),
        Err(_) => base.join(p),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agent(fields: &str) -> ExperimentAgent {
        toml::from_str(&format!("name = \"a\"\nlr = 1e-6\n{fields}")).unwrap()
    }

    #[test]
    fn selecting_an_arm_keeps_the_arm_it_is_tuned_as_for_the_sweep_only() {
        let mut x: ExperimentSection = toml::from_str(
            "seeds = [0]\narms = [{ name = \"gspo\", algorithm = \"gspo\" }, \
             { name = \"hacpo\", algorithm = \"hacpo\" }, \
             { name = \"hacpo-byte\", algorithm = \"hacpo\", tuned_as = \"hacpo\" }]",
        )
        .unwrap();
        let mut only_gspo = x.clone();
        only_gspo.select_arms(&["gspo".into()]).unwrap();
        let names =
            |x: &ExperimentSection| x.arms.iter().map(|a| a.name.clone()).collect::<Vec<_>>();
        assert_eq!(
            (names(&only_gspo), only_gspo.sweep_only),
            (vec!["gspo".into()], vec![])
        );
        x.select_arms(&["hacpo-byte".into()]).unwrap();
        assert_eq!(names(&x), ["hacpo", "hacpo-byte"]);
        assert_eq!(x.sweep_only, ["hacpo"]);
        let e = x.select_arms(&["grpo".into()]).unwrap_err().to_string();
        assert!(e.contains("`grpo`"), "{e}");
    }

    #[test]
    fn an_agent_may_warm_up_on_one_skill_and_takes_the_authors_weight_decay() {
        let a = agent("warmup_skill = \"word\"");
        assert_eq!((a.warmup_skill, a.weight_decay), (Some(Skill::Word), 0.01));
        assert_eq!(agent("").warmup_skill, None);
        assert!(
            toml::from_str::<ExperimentAgent>("name = \"a\"\nlr = 1\nwarmup_skill = \"riddles\"")
                .is_err()
        );
    }

    #[test]
    fn an_agent_starts_pretrained_or_from_random_weights_never_a_mix() {
        let a = agent("model = \"m.gguf\"");
        assert_eq!(
            a.origin().unwrap(),
            Origin::Pretrained {
                model: Path::new("m.gguf")
            }
        );
        let a = agent("config = \"c.json\"\ntokenizer = \"t\"\ninit_seed = 3");
        assert_eq!(
            a.origin().unwrap(),
            Origin::Scratch {
                config: Path::new("c.json"),
                tokenizer: Path::new("t"),
                init_seed: 3
            }
        );
        for bad in [
            "",
            "model = \"m\"\nconfig = \"c.json\"",
            "config = \"c.json\"\ntokenizer = \"t\"",
            "model = \"m\"\ninit_seed = 1",
        ] {
            let e = agent(bad).origin().unwrap_err().to_string();
            assert!(e.contains("`a`") && e.contains("`model`"), "{bad}: {e}");
        }
    }
}
