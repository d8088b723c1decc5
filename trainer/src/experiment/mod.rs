//! `trainer experiment`: the paper's comparison, reproducible with one command. Generates the
//! arithmetic tasks and imports them into the verifier, warms every agent up with a short
//! supervised phase, runs each arm (gspo, gspo2x, naive, hacpo, ablations) for each seed through
//! the production loop, then reads held-out accuracy back from the pool into a table and a plot.
//! Finished runs are skipped when the command is repeated, so an interrupted experiment resumes.

pub mod arith;
pub mod compare;
pub mod gate;
pub mod report;

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, ensure};
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::config::{AgentSection, DataSection, RunConfig, RunSection, VerifierSection, read_toml};
use crate::hacpo::HacpoConfig;
use crate::policy::{Policy, TextPair};
use crate::progress::Progress;
use crate::rng::SplitMix64;
use crate::sft::{SftConfig, supervised};
use crate::train::{evaluate_policy, register_agent};
use crate::verifier::VerifierClient;
use arith::ArithSpec;
use compare::{LrSweep, SweepPoint, run_diagnostics};
use gate::{GateReport, GateSpec, overlap_gate};
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
    /// The overlap gate checked after the warm-up, before any RL (none: no gate).
    #[serde(default)]
    pub gate: Option<GateSpec>,
    /// Learning rates of a one-seed GSPO sweep run before the arms; the lowest at which every
    /// agent gains `lr_min_gain` is then every agent's rate in every arm (empty: no sweep, each
    /// agent's `lr`).
    #[serde(default)]
    pub lr_sweep: Vec<f64>,
    /// See `lr_sweep`.
    #[serde(default = "default_min_gain")]
    pub lr_min_gain: f64,
    /// The sweep's seed (default: the file's first seed, so that `--seeds` running a subset
    /// reuses the sweep instead of sweeping again).
    #[serde(default)]
    pub sweep_seed: Option<u64>,
    /// Run the arms even when the gate fails (`trainer experiment --ignore-gate`): a deviation
    /// from the pre-registration, recorded in the report.
    #[serde(skip)]
    pub ignore_gate: bool,
    /// Only report: runs not finished on disk are left out instead of run
    /// (`trainer experiment --report-only`).
    #[serde(skip)]
    pub report_only: bool,
}

fn default_min_gain() -> f64 {
    0.05
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
        cfg.experiment.sweep_seed = cfg.experiment.sweep_seed.or(Some(cfg.experiment.seeds[0]));
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
            self.arm_config(arm, self.experiment.seeds[0], &[], None)?;
        }
        Ok(())
    }

    /// The run of `arm` with `seed`, its agents starting from `warm` (one folder per agent), at
    /// learning rate `lr` for every agent (`None`: each agent's own).
    pub fn arm_config(
        &self,
        arm: &Arm,
        seed: u64,
        warm: &[PathBuf],
        lr: Option<f64>,
    ) -> Result<RunConfig> {
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
                lr: lr.unwrap_or(a.lr),
                weight_decay: a.weight_decay,
                generation: Default::default(),
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
        let algorithm = self.arm_config(arm, 0, &[], None)?.algorithm.algorithm;
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
    // The warm-ups and the gate run before any `train::run` sets this.
    if cfg.run.threads > 0 {
        tch::set_num_threads(cfg.run.threads);
    }
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
        // Named after the warm-up's settings: a changed warm-up is evaluated afresh.
        let settings = std::fs::read(dir.join("warmup.json"))?;
        let run = format!(
            "{}/warmup-{:08x}/eval",
            cfg.run.name,
            crate::rng::fnv1a(&settings) as u32
        );
        let acc = match client.accuracy_history(id, &run)?.first() {
            Some(s) => s.accuracy,
            None => evaluate_policy(&policy, id, &test, &client, &run, 0, cfg.run.max_new_tokens)?,
        };
        tracing::info!(agent = a.name, accuracy = acc, "warm-up held-out accuracy");
        warm_dirs.push(dir);
        warm_accuracy.push(acc);
        agent_ids.push(id);
    }

    let gate = match &cfg.experiment.gate {
        Some(spec) => Some(run_gate(cfg, spec, &warm_dirs, &splits)?),
        None => None,
    };
    let ctx = Runs {
        cfg,
        client: &client,
        warm_dirs: &warm_dirs,
        warm_accuracy: &warm_accuracy,
        agent_ids: &agent_ids,
    };
    let lr_sweep = if cfg.experiment.lr_sweep.is_empty() {
        None
    } else {
        let seed = cfg.experiment.sweep_seed.unwrap_or(cfg.experiment.seeds[0]);
        let mut points = Vec::new();
        for &lr in &cfg.experiment.lr_sweep {
            let arm = Arm {
                name: format!("lr-sweep-{lr:e}"),
                settings: toml::Table::from_iter([("algorithm".into(), "gspo".into())]),
            };
            tracing::info!(lr, "learning-rate sweep run");
            let r = ctx.run(&arm, seed, Some(lr))?;
            points.push(SweepPoint {
                lr,
                gains: r
                    .curves
                    .iter()
                    .zip(&warm_accuracy)
                    .map(|(c, w)| c.last().map_or(0.0, |p| p.1) - w)
                    .collect(),
                run: r.run,
                wall_seconds: r.wall_seconds,
            });
        }
        let sweep = LrSweep::choose(cfg.experiment.lr_min_gain, points);
        tracing::info!(lr = sweep.chosen, met = sweep.met, "learning rate chosen");
        Some(sweep)
    };
    let lr = lr_sweep.as_ref().map(|s| s.chosen);

    // Seed-major: an interrupted experiment has every arm for the seeds it finished, which is
    // what the paired comparison needs.
    let total = cfg.experiment.seeds.len() * cfg.experiment.arms.len();
    let mut finished = 0;
    for &seed in &cfg.experiment.seeds {
        for arm in &cfg.experiment.arms {
            finished += usize::from(ctx.finished(arm, seed, lr)?);
        }
    }
    // Finished runs are read back, not run: the ETA counts the runs this invocation trains.
    let progress = Progress::new(&cfg.run.name, "run", finished, total);
    let mut by_arm: Vec<Vec<SeedResult>> = vec![Vec::new(); cfg.experiment.arms.len()];
    for (s_idx, &seed) in cfg.experiment.seeds.iter().enumerate() {
        for (a_idx, arm) in cfg.experiment.arms.iter().enumerate() {
            let was_finished = ctx.finished(arm, seed, lr)?;
            tracing::info!(
                "run {}/{total}: arm {}, seed {seed} ({})",
                s_idx * cfg.experiment.arms.len() + a_idx + 1,
                arm.name,
                progress.timing()
            );
            if cfg.experiment.report_only && !was_finished {
                continue;
            }
            by_arm[a_idx].push(ctx.run(arm, seed, lr)?);
            if !was_finished {
                progress.inc();
            }
        }
    }
    let arms = cfg
        .experiment
        .arms
        .iter()
        .zip(by_arm)
        .filter(|(_, seeds)| !seeds.is_empty())
        .map(|(arm, seeds)| {
            Ok(ArmResult {
                arm: arm.name.clone(),
                algorithm: cfg.arm_config(arm, 0, &[], lr)?.algorithm,
                rollouts_per_run: cfg.rollouts_per_run(arm)?,
                seeds,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let report = Report {
        name: cfg.run.name.clone(),
        agents: cfg.agents.iter().map(|a| a.name.clone()).collect(),
        warmup_accuracy: warm_accuracy,
        eval_tasks: test.len(),
        arms,
        gate,
        lr_sweep,
    };
    report.write(&cfg.run.output_dir)?;
    tracing::info!(
        secs = started.elapsed().as_secs_f64(),
        dir = %cfg.run.output_dir.display(),
        "experiment done: results.md, results.json, curves.png"
    );
    Ok(report)
}

/// What every run of an experiment shares.
struct Runs<'a> {
    cfg: &'a ExperimentConfig,
    client: &'a VerifierClient,
    warm_dirs: &'a [PathBuf],
    warm_accuracy: &'a [f64],
    agent_ids: &'a [uuid::Uuid],
}

impl Runs<'_> {
    /// Runs `arm` with `seed` (unless a finished run is on disk) and reads its curves back from
    /// the pool and its diagnostics from its metrics log.
    /// Whether `arm` with `seed` finished in an earlier invocation.
    fn finished(&self, arm: &Arm, seed: u64, lr: Option<f64>) -> Result<bool> {
        let rc = self.cfg.arm_config(arm, seed, self.warm_dirs, lr)?;
        Ok(rc.run.output_dir.join("done.json").is_file())
    }

    fn run(&self, arm: &Arm, seed: u64, lr: Option<f64>) -> Result<SeedResult> {
        let rc = self.cfg.arm_config(arm, seed, self.warm_dirs, lr)?;
        let done_path = rc.run.output_dir.join("done.json");
        let done: RunDone = match std::fs::read(&done_path) {
            Ok(bytes) => serde_json::from_slice(&bytes)?,
            Err(_) => {
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
        let curves = self
            .agent_ids
            .iter()
            .zip(self.warm_accuracy)
            .map(|(&id, &warm)| {
                let mut curve = vec![(0, warm)];
                curve.extend(
                    self.client
                        .accuracy_history(id, &eval_run)?
                        .into_iter()
                        .map(|s| (s.step as usize, s.accuracy)),
                );
                Ok(curve)
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(SeedResult {
            seed,
            run: rc.run.name.clone(),
            wall_seconds: done.wall_seconds,
            curves,
            diagnostics: run_diagnostics(&rc.run.output_dir)?,
        })
    }
}

/// The overlap gate on the warmed-up agents, over training prompts drawn with the first seed;
/// an error when it fails (change the warm-up, not the algorithm).
fn run_gate(
    cfg: &ExperimentConfig,
    spec: &GateSpec,
    warm_dirs: &[PathBuf],
    splits: &arith::Splits,
) -> Result<GateReport> {
    let path = cfg.run.output_dir.join("gate.json");
    let warmups = warm_dirs
        .iter()
        .map(|d| {
            let marker = d.join("warmup.json");
            let bytes =
                std::fs::read(&marker).with_context(|| format!("reading {}", marker.display()))?;
            Ok(serde_json::from_slice(&bytes)?)
        })
        .collect::<Result<Vec<serde_json::Value>>>()?;
    let cached = std::fs::read(&path)
        .ok()
        .and_then(|b| serde_json::from_slice::<GateReport>(&b).ok())
        .filter(|g| &g.spec == spec && g.warmups == warmups);
    let report = match cached {
        Some(g) => g,
        None => {
            let agents = cfg
                .agents
                .iter()
                .zip(warm_dirs)
                .map(|(a, d)| Ok((a.name.clone(), Policy::load(d, a.device)?)))
                .collect::<Result<Vec<_>>>()?;
            let mut rng = SplitMix64(cfg.experiment.seeds[0] ^ 0x6A7E);
            let prompts: Vec<String> = (0..spec.prompts)
                .map(|_| splits.train[rng.below(splits.train.len())].prompt.clone())
                .collect();
            let hc = cfg
                .arm_config(&cfg.experiment.arms[0], 0, &[], None)?
                .algorithm;
            let mut g = overlap_gate(
                &agents,
                &prompts,
                spec,
                cfg.run.max_new_tokens,
                hc.cross_lower_bound(0),
                hc.cross_ratio,
            )?;
            g.warmups = warmups;
            std::fs::write(&path, serde_json::to_vec_pretty(&g)?)?;
            g
        }
    };
    for p in &report.pairs {
        tracing::info!(
            "gate {} -> {} ({:?}): {:.3} inside [{:.3}, 1], {:.3} below, {:.3} above; median s {:.3}",
            p.author,
            p.scorer,
            p.unit,
            p.inside,
            report.window.0,
            p.below,
            p.above,
            p.quantiles[2]
        );
    }
    if !report.passed && cfg.experiment.ignore_gate {
        tracing::warn!("the overlap gate failed; running the arms anyway (--ignore-gate)");
        return Ok(GateReport {
            ignored: true,
            ..report
        });
    }
    ensure!(
        report.passed,
        "the overlap gate failed (see {}): fewer than {:.0}% of some agent's warm-up responses have a cross ratio inside the initial window; change the warm-up",
        path.display(),
        spec.min_inside * 100.0
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
