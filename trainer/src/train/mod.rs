//! The training loop (HACPO Algorithm 1) for n heterogeneous agents, and its baselines: every
//! step each agent generates G responses per prompt ([`generate`]), the verifier scores and pools
//! them, the step's groups are read back ([`readback`]) and capabilities updated, every learner
//! updates from the groups ([`roster`], [`learn`]), agents that generate on a serving engine sync their new
//! weights to it ([`agent`]), then evaluation ([`eval`]), metrics ([`metrics`], also as
//! TensorBoard scalars: [`tensorboard`]) and checkpoints.
//!
//! A process trains every agent of the run ([`run`]) or one of them ([`run_agent`]), on the same
//! path: it generates, learns, evaluates and checkpoints for its own agents only, and reads a
//! step's groups once the pool holds every agent's rollouts of that step (the barrier, which a
//! process training all agents passes at once). An asynchronous run (`run.max_staleness` = η)
//! has no barrier: each update reads the pool as it is, the last η steps' groups included, and
//! trains on the partner rollouts it has not used yet ([`crate::hacpo::staleness`]).

mod agent;
mod eval;
mod generate;
mod learn;
mod local;
mod metrics;
mod readback;
mod roster;
mod tensorboard;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, ensure};
use serde::{Deserialize, Serialize};
use uuid::Uuid;
use wire::TaskSummary;
use wire::client::blocking::Client;

use crate::config::RunConfig;
use crate::hacpo::Algorithm;
use crate::progress::Progress;
use agent::Agent;
use metrics::StepOutcome;
use readback::StepGroups;
use roster::Roster;
use tensorboard::EventFile;

pub use agent::register_agent;
pub use eval::evaluate_policy;
pub use local::{LocalRun, LocalStep};
pub use metrics::{OriginStats, RolloutUse, StepExtra, UpdateStats};

/// Checkpoint bookkeeping, in `state.json` of a process's state folder.
#[derive(Debug, Serialize, Deserialize)]
struct RunState {
    /// Last step whose updates are in the saved checkpoints.
    step: usize,
    /// The run they belong to (empty in states written before it was recorded).
    #[serde(default)]
    run: String,
}

/// The file naming a process's last checkpoint.
const STATE_FILE: &str = "state.json";

/// Runs (or resumes) the training run described by `cfg`, every agent in this process.
pub fn run(cfg: &RunConfig) -> Result<()> {
    Trainer::open(cfg, None)?.train()
}

/// Runs (or resumes) agent `name` of the run described by `cfg`, the other agents training in
/// processes of their own against the same verifier; its state lives in `output_dir/<name>/`.
pub fn run_agent(cfg: &RunConfig, name: &str) -> Result<()> {
    Trainer::open(cfg, Some(name))?.train()
}

/// A run as one process trains it.
struct Trainer<'a> {
    cfg: &'a RunConfig,
    client: Client,
    /// (k, agent) for each agent this process trains, k its position in the run's config.
    learners: Vec<(usize, Agent)>,
    /// Every agent of the run, its capabilities from the pool.
    roster: Roster,
    /// By position k (this process's learners only): the rollouts learner k has trained on.
    used: Vec<HashSet<Uuid>>,
    train: Vec<TaskSummary>,
    eval: Vec<TaskSummary>,
    /// Where `state.json` and the metrics file live: `output_dir`, or `output_dir/<agent>` for
    /// a process training one agent.
    state_dir: PathBuf,
    /// The first step to train: 1, or the one after the last checkpoint.
    start: usize,
    /// Each learner's TensorBoard event file (in its checkpoints' folder), in the order of
    /// `learners`; none when no step is left to train.
    boards: Vec<EventFile>,
    /// The seconds the run had trained before `start` (its logged clock; 0 for a new run).
    trained_seconds: f64,
}

impl<'a> Trainer<'a> {
    /// Loads the agents `only` names (all when `None`) from their models or last checkpoint,
    /// restores the capabilities of a resumed run and reads the tasks.
    fn open(cfg: &'a RunConfig, only: Option<&str>) -> Result<Self> {
        if cfg.run.threads > 0 {
            tch::set_num_threads(cfg.run.threads);
        }
        if let Some(name) = only {
            ensure!(
                cfg.agents.iter().any(|a| a.name == name),
                "no agent `{name}` in the run (agents: {})",
                cfg.agents
                    .iter()
                    .map(|a| a.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        let client = cfg.verifier.client()?;
        let state_dir = match only {
            Some(name) => cfg.run.output_dir.join(name),
            None => cfg.run.output_dir.clone(),
        };
        let resumed: Option<RunState> = match std::fs::read_to_string(state_dir.join(STATE_FILE)) {
            Ok(t) => Some(serde_json::from_str(&t).context("reading state.json")?),
            Err(_) => None,
        };
        if let Some(s) = &resumed {
            // Another run's checkpoints in this folder (two configs sharing an output_dir)
            // must not pass for this one's: resuming them would skip or corrupt its training.
            ensure!(
                s.run.is_empty() || s.run == cfg.run.name,
                "{} holds the checkpoints of run `{}`, not `{}`: give this run its own output_dir",
                state_dir.display(),
                s.run,
                cfg.run.name
            );
            ensure!(
                s.step <= cfg.run.steps,
                "{} is at step {}, past this run's {} steps: another run's checkpoints?",
                state_dir.display(),
                s.step,
                cfg.run.steps
            );
        }
        let start = resumed.as_ref().map_or(1, |s| s.step + 1);
        let learners = cfg
            .agents
            .iter()
            .enumerate()
            .filter(|(_, a)| only.is_none_or(|n| n == a.name))
            .map(|(k, a)| {
                let from = match &resumed {
                    Some(s) => checkpoint_dir(&cfg.run.output_dir, &a.name, s.step),
                    None => a.model.clone(),
                };
                let agent = Agent::load(
                    a,
                    &from,
                    &client,
                    cfg.algorithm.needs_reference_model(),
                    &cfg.run.output_dir,
                )?;
                // An engine may serve other weights than the ones loaded (a resumed run).
                agent.sync_engine(start as i64 - 1)?;
                Ok((k, agent))
            })
            .collect::<Result<Vec<_>>>()?;
        let mut roster = Roster::new(cfg);
        // The log is read once: what was trained on, the calibration and the clock.
        let logged =
            readback::logged_rows(&state_dir.join(METRICS_FILE), &roster.index, start - 1)?;
        let used = readback::restore_uses(&logged, roster.index.len());
        let trained_seconds = readback::logged_elapsed(&logged);
        if start > 1 {
            readback::restore_capabilities(&mut roster.tracker, &client, cfg, start - 1)?;
            roster.restore_calibration(&logged);
            tracing::info!(step = start - 1, "resumed from checkpoint");
        }

        let train = client.tasks(&cfg.data.train)?;
        ensure!(
            !train.is_empty(),
            "dataset `{}` has no tasks in the verifier",
            cfg.data.train
        );
        if start == 1 {
            announce_gate(cfg, &learners, &train)?;
        }
        let eval = match &cfg.data.eval {
            Some(d) => {
                let mut t = client.tasks(d)?;
                if cfg.data.eval_size > 0 {
                    t.truncate(cfg.data.eval_size);
                }
                t
            }
            None => Vec::new(),
        };
        let boards = if start <= cfg.run.steps {
            learners
                .iter()
                .map(|(_, a)| EventFile::create(&cfg.run.output_dir.join(&a.cfg.name), start))
                .collect::<Result<_>>()?
        } else {
            Vec::new()
        };
        Ok(Self {
            cfg,
            client,
            learners,
            roster,
            used,
            train,
            eval,
            state_dir,
            start,
            boards,
            trained_seconds,
        })
    }

    /// Trains the remaining steps.
    fn train(mut self) -> Result<()> {
        let cfg = self.cfg;
        let progress = Progress::new(&cfg.run.name, "step", self.start - 1, cfg.run.steps);
        let clock = Clock {
            started: Instant::now(),
            before: self.trained_seconds,
        };
        for step in self.start..=cfg.run.steps {
            self.step(step, &progress, &clock)?;
        }
        Ok(())
    }

    /// The groups `step` learns from, and how long this process waited for other agents: its
    /// agents generate and submit their rollouts unless the pool holds them already (a crash
    /// after submission: they are trained on as stored). Synchronous: the step's groups, read
    /// once every agent of the run has submitted them. Asynchronous (η = `run.max_staleness`):
    /// the groups of steps t − η … t as the pool holds them now, without waiting.
    fn groups(&self, step: usize, progress: &Progress) -> Result<(Vec<StepGroups>, f64)> {
        let cfg = self.cfg;
        let missing = readback::missing_agents(&self.client, cfg, step)?;
        let own: Vec<(usize, &Agent)> = self
            .learners
            .iter()
            .filter(|(_, a)| missing.contains(&a.cfg.name))
            .map(|(k, a)| (*k, a))
            .collect();
        let scoring = if own.is_empty() {
            progress.phase("scoring", "agents pooled", cfg.agents.len())
        } else {
            let phase = progress.phase("generation", "agents", own.len());
            let (_, rollouts) = generate::for_step(&own, &self.train, cfg, step, &phase)?;
            phase.finish();
            let scoring = progress.phase("scoring", "agents pooled", cfg.agents.len());
            scoring.say(format!("{} rollouts", rollouts.len()));
            self.client.submit(&rollouts)?;
            scoring
        };
        let waiting = Instant::now();
        let (steps, wait_seconds) = match cfg.run.max_staleness {
            None => {
                readback::await_agents(&self.client, cfg, step, &scoring)?;
                (step..=step, waiting.elapsed().as_secs_f64())
            }
            Some(eta) => (step.saturating_sub(eta as usize).max(1)..=step, 0.0),
        };
        let groups = steps
            .map(|s| {
                let groups = self.client.groups(&cfg.run.name, s as i64)?;
                Ok(StepGroups { step: s, groups })
            })
            .collect::<Result<_>>()?;
        scoring.finish();
        Ok((groups, wait_seconds))
    }

    /// One step of Algorithm 1 for this process's learners: groups, capabilities, updates,
    /// evaluation, metrics, checkpoints.
    fn step(&mut self, step: usize, progress: &Progress, clock: &Clock) -> Result<()> {
        let cfg = self.cfg;
        let t0 = Instant::now();
        let (groups, wait_seconds) = self.groups(step, progress)?;
        let generate_seconds = t0.elapsed().as_secs_f64();
        let accuracy = self.roster.record(&groups);

        let t1 = Instant::now();
        let updates = progress.phase(
            "updates",
            "mini-batches",
            self.learners.len() * cfg.run.minibatches,
        );
        let stats = self.roster.update(
            self.learners.iter_mut().map(|(k, learner)| (*k, learner)),
            &groups,
            &self.used,
            cfg,
            step,
            &updates,
        )?;
        updates.finish();
        for ((k, _), s) in self.learners.iter().zip(&stats) {
            self.used[*k].extend(s.uses.iter().map(|u| u.id));
        }
        let train_seconds = t1.elapsed().as_secs_f64();
        let t2 = Instant::now();
        for (_, learner) in &self.learners {
            learner.sync_engine(step as i64)?;
        }
        let sync_seconds = t2.elapsed().as_secs_f64();
        let tokens: i64 = (groups.iter().filter(|sg| sg.step == step))
            .flat_map(|sg| &sg.groups)
            .flat_map(|g| &g.rollouts)
            .filter(|m| self.learners.iter().any(|(_, a)| a.cfg.name == m.agent))
            .filter_map(|m| m.token_count.map(i64::from))
            .sum();

        let t3 = Instant::now();
        let eval_accuracy = if cfg.run.eval_every > 0
            && !self.eval.is_empty()
            && (step.is_multiple_of(cfg.run.eval_every) || step == cfg.run.steps)
        {
            let phase = progress.phase("evaluation", "agents", self.learners.len());
            let accuracy =
                eval::evaluate(&self.learners, &self.eval, &self.client, cfg, step, &phase)?;
            phase.finish();
            Some(accuracy)
        } else {
            None
        };
        let outcome = StepOutcome {
            accuracy,
            stats,
            eval_accuracy,
            generate_seconds,
            wait_seconds,
            train_seconds,
            sync_seconds,
            eval_seconds: t3.elapsed().as_secs_f64(),
            elapsed_seconds: clock.before + clock.started.elapsed().as_secs_f64(),
        };
        let mut log = String::new();
        for (i, (_, a)) in self.learners.iter().enumerate() {
            let row = outcome.metrics(i, &self.learners, &self.roster.tracker, cfg, step)?;
            self.client.record_metrics(&row)?;
            self.boards[i].log(&row)?;
            log += &serde_json::to_string(&serde_json::json!({ "agent": a.cfg.name, "row": row }))?;
            log.push('\n');
        }
        append(&self.state_dir.join(METRICS_FILE), &log)?;
        progress.inc();
        tracing::info!(
            "step {step}/{} [{}] {:.1}s ({:.0} gen tok/s, engine sync {:.1}s) {}",
            cfg.run.steps,
            outcome.summary(&self.learners),
            t0.elapsed().as_secs_f64(),
            tokens as f64 / generate_seconds.max(1e-9),
            sync_seconds,
            progress.timing()
        );

        if step.is_multiple_of(cfg.run.checkpoint_every) || step == cfg.run.steps {
            for (_, a) in &self.learners {
                let dir = checkpoint_dir(&cfg.run.output_dir, &a.cfg.name, step);
                a.policy.save(&dir)?;
                a.opt.save(&dir)?;
            }
            write_state(&self.state_dir, step, &cfg.run.name)?;
        }
        Ok(())
    }
}

/// A process's training clock: when its first step began, and the seconds its run had trained
/// before (the last logged `elapsed_seconds` of a resumed run; 0 for a new one).
struct Clock {
    started: Instant,
    before: f64,
}

/// Records that the checkpoints of `step` are complete; written aside and renamed, so a process
/// killed meanwhile leaves the previous state, never a truncated one.
fn write_state(dir: &Path, step: usize, run: &str) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!("{STATE_FILE}.tmp"));
    let state = RunState {
        step,
        run: run.to_string(),
    };
    std::fs::write(&tmp, serde_json::to_vec(&state)?)?;
    std::fs::rename(&tmp, dir.join(STATE_FILE))
        .with_context(|| format!("writing {}", dir.join(STATE_FILE).display()))
}

/// Before a HACPO run's first step, with every agent in this process: the gate on the run's
/// first `run.gate_prompts` training prompts, announced per pair under each cross rule (a
/// warning where the configured rule leaves sharing idle) and kept in `output_dir/gate.json`.
fn announce_gate(
    cfg: &RunConfig,
    learners: &[(usize, Agent)],
    train: &[TaskSummary],
) -> Result<()> {
    let n = cfg.run.gate_prompts.min(train.len());
    if cfg.algorithm.algorithm != Algorithm::Hacpo || n == 0 || learners.len() < cfg.agents.len() {
        return Ok(());
    }
    let agents: Vec<(String, &crate::policy::Policy)> = learners
        .iter()
        .map(|(_, a)| (a.cfg.name.clone(), &a.policy))
        .collect();
    let prompts: Vec<String> = train[..n].iter().map(|t| t.prompt.clone()).collect();
    let spec = crate::gate::GateSpec {
        prompts: n,
        group_size: 4,
        min_inside: crate::gate::IDLE_SHARE,
    };
    let report = crate::gate::overlap_gate(
        &agents,
        &prompts,
        &spec,
        cfg.run.max_new_tokens,
        cfg.algorithm.cross_lower_bound(0),
        cfg.algorithm.cross_ratio,
    )?;
    let warnings = crate::gate::announce(&report, cfg.algorithm.cross_rule);
    let kept = serde_json::json!({
        "cross_rule": cfg.algorithm.cross_rule,
        "report": report,
        "warnings": warnings,
    });
    std::fs::create_dir_all(&cfg.run.output_dir)?;
    std::fs::write(
        cfg.run.output_dir.join("gate.json"),
        serde_json::to_vec_pretty(&kept)?,
    )?;
    Ok(())
}

/// Every step's `train_metrics` rows, one JSON object (`agent`, `row`) per line, in the output
/// directory (one agent per process: in the agent's folder); a resumed run appends (a step
/// repeated after a crash appears twice: the later line is the one in the pool).
pub const METRICS_FILE: &str = "metrics.jsonl";

/// The entries of a metrics log's text ([`METRICS_FILE`]) in the order logged: (agent, step,
/// row). A line without an agent or a step is skipped; a line that is not JSON is an error.
pub fn metrics_entries(
    text: &str,
) -> impl Iterator<Item = Result<(String, u64, serde_json::Value)>> + '_ {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .filter_map(|line| {
            let mut entry: serde_json::Value = match serde_json::from_str(line) {
                Ok(entry) => entry,
                Err(e) => return Some(Err(e.into())),
            };
            let row = entry["row"].take();
            let agent = entry["agent"].as_str()?.to_owned();
            Some(Ok((agent, row["step"].as_u64()?, row)))
        })
}

fn append(path: &Path, text: &str) -> Result<()> {
    use std::io::Write;
    std::fs::create_dir_all(path.parent().unwrap_or(Path::new(".")))?;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("opening {}", path.display()))?;
    f.write_all(text.as_bytes())?;
    Ok(())
}

/// Where an agent's checkpoint after `step` lives.
pub fn checkpoint_dir(output: &Path, agent: &str, step: usize) -> PathBuf {
    output.join(agent).join(format!("step-{step}"))
}
