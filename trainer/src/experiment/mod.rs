//! `trainer experiment`: the paper's comparison, reproducible with one command. Generates the
//! arithmetic tasks and imports them into the verifier, warms every agent up with a short
//! supervised phase, runs each arm (gspo, gspo2x, naive, hacpo, ablations) for each seed through
//! the production loop, then reads held-out accuracy back from the pool into a table and a plot.
//! Finished runs are skipped when the command is repeated, so an interrupted experiment resumes.

pub mod arith;
pub mod report;

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, ensure};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::config::{AgentSection, DataSection, RunConfig, RunSection, VerifierSection, read_toml};
use crate::hacpo::HacpoConfig;
use crate::policy::{Policy, TextPair};
use crate::sft::{SftConfig, supervised};
use crate::train::{evaluate_policy, register_agent};
use crate::verifier::VerifierClient;
use arith::ArithSpec;
pub use report::{ArmResult, Report, SeedResult};

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
}

/// One arm: a name and the `[algorithm]` keys it sets (at least `algorithm`).
#[derive(Debug, Clone, Deserialize)]
pub struct Arm {
    /// Label in run names, the table and the plot.
    pub name: String,
    /// Overrides of the shared algorithm settings.
    #[serde(flatten)]
    pub settings: toml::Table,
}

/// An agent of the experiment.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperimentAgent {
    /// Unique name in the pool.
    pub name: String,
    /// Model `config.json` (architecture and size).
    pub config: PathBuf,
    /// Folder with tokenizer.json (and tokenizer_config.json), or a `.gguf` whose tokenizer to
    /// use. A leading `$HACRL_CACHE/` is the download cache.
    pub tokenizer: PathBuf,
    /// Seed of the random initialisation.
    pub init_seed: i64,
    /// Supervised warm-up on the training split's worked solutions.
    pub warmup: SftConfig,
    /// RL learning rate.
    pub lr: f64,
    /// RL weight decay.
    #[serde(default)]
    pub weight_decay: f64,
    /// `cpu`, `cuda` or `cuda:N`.
    #[serde(
        default = "crate::config::cpu",
        deserialize_with = "crate::config::deserialize_device"
    )]
    pub device: tch::Device,
}

impl ExperimentConfig {
    /// Reads and checks a file; relative paths become relative to its folder.
    pub fn load(path: &Path) -> Result<Self> {
        let (mut cfg, base): (Self, _) = read_toml(path)?;
        cfg.run.output_dir = base.join(&cfg.run.output_dir);
        for a in &mut cfg.agents {
            a.config = resolve(base, &a.config);
            a.tokenizer = resolve(base, &a.tokenizer);
        }
        cfg.validate()?;
        Ok(cfg)
    }

    /// Checks what serde cannot: every arm's settings form a valid algorithm config.
    pub fn validate(&self) -> Result<()> {
        ensure!(
            !self.experiment.seeds.is_empty(),
            "experiment.seeds is empty"
        );
        ensure!(!self.experiment.arms.is_empty(), "experiment.arms is empty");
        ensure!(
            self.agents.len() >= 2,
            "an experiment needs at least two agents"
        );
        let mut names: Vec<&str> = self
            .experiment
            .arms
            .iter()
            .map(|a| a.name.as_str())
            .collect();
        names.sort_unstable();
        names.dedup();
        ensure!(
            names.len() == self.experiment.arms.len(),
            "arm names must be unique"
        );
        for arm in &self.experiment.arms {
            ensure!(
                arm.settings.contains_key("algorithm"),
                "arm `{}` must set `algorithm`",
                arm.name
            );
            self.arm_config(arm, self.experiment.seeds[0], &[])?;
        }
        Ok(())
    }

    /// The run of `arm` with `seed`, its agents starting from `warm` (one folder per agent).
    pub fn arm_config(&self, arm: &Arm, seed: u64, warm: &[PathBuf]) -> Result<RunConfig> {
        let mut table = self.algorithm.clone();
        table.extend(arm.settings.clone());
        let algorithm: HacpoConfig = toml::Value::Table(table)
            .try_into()
            .with_context(|| format!("algorithm settings of arm `{}`", arm.name))?;
        let mut run = self.run.clone();
        run.name = self.run_name(arm, seed);
        run.seed = seed;
        run.output_dir = self.run.output_dir.join(&arm.name).join(format!("s{seed}"));
        let agents = self
            .agents
            .iter()
            .enumerate()
            .map(|(i, a)| AgentSection {
                name: a.name.clone(),
                model: warm.get(i).cloned().unwrap_or_default(),
                device: a.device,
                lr: a.lr,
                weight_decay: a.weight_decay,
            })
            .collect();
        Ok(RunConfig {
            run,
            verifier: self.verifier.clone(),
            data: DataSection {
                train: self.dataset("train"),
                eval: Some(self.dataset("test")),
                eval_size: self.experiment.eval_size,
            },
            algorithm,
            agents,
        })
    }

    /// The pool's `run` of an arm and seed.
    pub fn run_name(&self, arm: &Arm, seed: u64) -> String {
        format!("{}/{}/s{seed}", self.run.name, arm.name)
    }

    /// The pool's dataset name of a split.
    pub fn dataset(&self, split: &str) -> String {
        format!("{}-{split}", self.run.name)
    }

    /// Rollouts one run of `arm` generates for training (evaluation excluded).
    pub fn rollouts_per_run(&self, arm: &Arm) -> Result<usize> {
        let algorithm = self.arm_config(arm, 0, &[])?.algorithm.algorithm;
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

/// What a finished run wrote next to its checkpoints.
#[derive(Debug, Serialize, Deserialize)]
struct RunDone {
    wall_seconds: f64,
}

/// Runs the whole experiment (resuming a partial one) and writes the report into `output_dir`.
pub fn run_experiment(cfg: &ExperimentConfig) -> Result<Report> {
    let started = Instant::now();
    let client = VerifierClient::new(&cfg.verifier.url)?;
    let splits = arith::generate(&cfg.tasks);
    for (split, problems) in [("train", &splits.train), ("test", &splits.test)] {
        let dataset = cfg.dataset(split);
        let tasks: Vec<_> = problems
            .iter()
            .enumerate()
            .map(|(i, p)| p.task(&dataset, i))
            .collect();
        for chunk in tasks.chunks(1000) {
            client.import_tasks(chunk)?;
        }
        tracing::info!(dataset, tasks = tasks.len(), "tasks imported");
    }
    let mut test = client.tasks(&cfg.dataset("test"))?;
    if cfg.experiment.eval_size > 0 {
        test.truncate(cfg.experiment.eval_size);
    }
    let examples: Vec<TextPair> = splits
        .train
        .iter()
        .map(|p| TextPair {
            prompt: p.prompt.clone(),
            response: p.solution.clone(),
            ends_turn: true,
        })
        .collect();

    let mut warm_dirs = Vec::new();
    let mut warm_accuracy = Vec::new();
    let mut agent_ids = Vec::new();
    for a in &cfg.agents {
        let dir = warm_up(a, &examples, &cfg.run.output_dir)?;
        let policy = Policy::load(&dir, a.device)?;
        let id = register_agent(&client, &a.name, &policy)?;
        // The warm-up is the same starting point for every arm and seed: evaluated once.
        let run = format!("{}/warmup/eval", cfg.run.name);
        let acc = match client.accuracy_history(id, &run)?.first() {
            Some(s) => s.accuracy,
            None => evaluate_policy(&policy, id, &test, &client, &run, 0, cfg.run.max_new_tokens)?,
        };
        tracing::info!(agent = a.name, accuracy = acc, "warm-up held-out accuracy");
        warm_dirs.push(dir);
        warm_accuracy.push(acc);
        agent_ids.push(id);
    }

    let total = cfg.experiment.seeds.len() * cfg.experiment.arms.len();
    let mut arms: Vec<ArmResult> = Vec::new();
    for (a_idx, arm) in cfg.experiment.arms.iter().enumerate() {
        let mut seeds = Vec::new();
        for (s_idx, &seed) in cfg.experiment.seeds.iter().enumerate() {
            let rc = cfg.arm_config(arm, seed, &warm_dirs)?;
            let done_path = rc.run.output_dir.join("done.json");
            let done: RunDone = match std::fs::read(&done_path) {
                Ok(bytes) => serde_json::from_slice(&bytes)?,
                Err(_) => {
                    tracing::info!(
                        "run {}/{total}: {} (arm {}, seed {seed})",
                        a_idx * cfg.experiment.seeds.len() + s_idx + 1,
                        rc.run.name,
                        arm.name
                    );
                    let t = Instant::now();
                    crate::train::run(&rc)?;
                    let done = RunDone {
                        wall_seconds: t.elapsed().as_secs_f64(),
                    };
                    std::fs::write(&done_path, serde_json::to_vec(&done)?)?;
                    done
                }
            };
            let eval_run = format!("{}/eval", rc.run.name);
            let curves = agent_ids
                .iter()
                .zip(&warm_accuracy)
                .map(|(&id, &warm)| {
                    let mut curve = vec![(0, warm)];
                    curve.extend(
                        client
                            .accuracy_history(id, &eval_run)?
                            .into_iter()
                            .map(|s| (s.step as usize, s.accuracy)),
                    );
                    Ok(curve)
                })
                .collect::<Result<Vec<_>>>()?;
            seeds.push(SeedResult {
                seed,
                run: rc.run.name.clone(),
                wall_seconds: done.wall_seconds,
                curves,
            });
        }
        arms.push(ArmResult {
            arm: arm.name.clone(),
            algorithm: cfg.arm_config(arm, 0, &[])?.algorithm,
            rollouts_per_run: cfg.rollouts_per_run(arm)?,
            seeds,
        });
    }
    let report = Report {
        name: cfg.run.name.clone(),
        agents: cfg.agents.iter().map(|a| a.name.clone()).collect(),
        warmup_accuracy: warm_accuracy,
        eval_tasks: test.len(),
        arms,
    };
    report.write(&cfg.run.output_dir)?;
    tracing::info!(
        secs = started.elapsed().as_secs_f64(),
        dir = %cfg.run.output_dir.display(),
        "experiment done: results.md, results.json, curves.png"
    );
    Ok(report)
}

/// Creates the agent from its config and tokenizer and fine-tunes it on the worked solutions,
/// once: the folder is reused while `warmup.json` records the same settings.
fn warm_up(a: &ExperimentAgent, examples: &[TextPair], out: &Path) -> Result<PathBuf> {
    let dir = out.join("agents").join(&a.name);
    let marker = dir.join("warmup.json");
    let config: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(&a.config)
            .with_context(|| format!("reading {}", a.config.display()))?,
    )?;
    let settings = json!({
        "config": config, "init_seed": a.init_seed, "warmup": a.warmup, "examples": examples.len(),
    });
    if let Ok(bytes) = std::fs::read(&marker)
        && serde_json::from_slice::<serde_json::Value>(&bytes)
            .ok()
            .as_ref()
            == Some(&settings)
    {
        return Ok(dir);
    }
    let tokenizer = if a.tokenizer.extension().is_some_and(|e| e == "gguf") {
        crate::gguf::import_cached(&a.tokenizer, &crate::gguf::default_cache_root())?
    } else {
        a.tokenizer.clone()
    };
    let mut policy = Policy::from_config(
        config,
        &tokenizer,
        a.device,
        crate::policy::default_kind(a.device),
        a.init_seed,
    )?;
    tracing::info!(agent = a.name, steps = a.warmup.steps, "supervised warm-up");
    let losses = supervised(&mut policy, examples, &a.warmup)?;
    policy.save(&dir)?;
    std::fs::write(dir.join("warmup-loss.json"), serde_json::to_vec(&losses)?)?;
    std::fs::write(&marker, serde_json::to_vec_pretty(&settings)?)?;
    Ok(dir)
}
