//! The training loop (HACPO Algorithm 1) for n heterogeneous agents, and its baselines: every
//! step each agent generates G responses per prompt ([`generate`]), the verifier scores and pools
//! them, the step's groups are read back ([`pool`]) and capabilities updated, every learner
//! updates from the groups ([`learn`]), then evaluation ([`eval`]), metrics ([`metrics`]) and
//! checkpoints.

mod agent;
mod eval;
mod generate;
mod learn;
mod metrics;
mod pool;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, ensure};
use serde::{Deserialize, Serialize};

use crate::config::RunConfig;
use crate::hacpo::CapabilityTracker;
use crate::verifier::VerifierClient;
use agent::Agent;
use learn::UpdateBatch;
use metrics::StepOutcome;

pub use agent::register_agent;
pub use eval::evaluate_policy;
pub use metrics::{OriginStats, StepExtra, UpdateStats};

/// Checkpoint bookkeeping, in `output_dir/state.json`.
#[derive(Debug, Serialize, Deserialize)]
struct RunState {
    /// Last step whose updates are in the saved checkpoints.
    step: usize,
}

/// Runs (or resumes) the training run described by `cfg`.
pub fn run(cfg: &RunConfig) -> Result<()> {
    if cfg.run.threads > 0 {
        tch::set_num_threads(cfg.run.threads);
    }
    let client = VerifierClient::new(&cfg.verifier.url)?;
    let state_path = cfg.run.output_dir.join("state.json");
    let resumed: Option<RunState> = match std::fs::read_to_string(&state_path) {
        Ok(t) => Some(serde_json::from_str(&t).context("reading state.json")?),
        Err(_) => None,
    };
    let start = resumed.as_ref().map_or(1, |s| s.step + 1);
    let mut agents = cfg
        .agents
        .iter()
        .map(|a| {
            let from = match &resumed {
                Some(s) => checkpoint_dir(&cfg.run.output_dir, &a.name, s.step),
                None => a.model.clone(),
            };
            Agent::load(a, &from, &client, cfg.algorithm.needs_reference_model())
        })
        .collect::<Result<Vec<_>>>()?;
    let index: HashMap<String, usize> = agents
        .iter()
        .enumerate()
        .map(|(i, a)| (a.cfg.name.clone(), i))
        .collect();
    let mut tracker = CapabilityTracker::new(
        agents.len(),
        cfg.algorithm.capability_window,
        cfg.algorithm.omega_min,
        cfg.algorithm.omega_max,
    );
    if start > 1 {
        pool::restore_capabilities(&mut tracker, &agents, &client, &cfg.run.name, start - 1)?;
        tracing::info!(step = start - 1, "resumed from checkpoint");
    }

    let train = client.tasks(&cfg.data.train)?;
    ensure!(
        !train.is_empty(),
        "dataset `{}` has no tasks in the verifier",
        cfg.data.train
    );
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
    let g = cfg
        .algorithm
        .algorithm
        .rollouts_per_prompt(cfg.run.group_size);

    for step in start..=cfg.run.steps {
        let t0 = Instant::now();
        let groups = match client.groups(&cfg.run.name, step as i64)? {
            // A crash after submission leaves the step's rollouts in the pool: train on them.
            existing if !existing.is_empty() => existing,
            _ => {
                let prompts =
                    generate::sample_prompts(&train, cfg.run.prompts_per_step, cfg.run.seed, step);
                let rollouts = generate::generate(&agents, &prompts, g, cfg, step)?;
                client.submit(&rollouts)?;
                client.groups(&cfg.run.name, step as i64)?
            }
        };
        let generate_seconds = t0.elapsed().as_secs_f64();
        let accuracy = pool::accuracy_per_agent(&groups, &index, agents.len());
        tracker.record(&accuracy);

        let t1 = Instant::now();
        let batch = UpdateBatch {
            groups: &groups,
            index: &index,
            tracker: &tracker,
            cfg,
            step,
        };
        let stats = agents
            .iter_mut()
            .enumerate()
            .map(|(k, learner)| learn::update(learner, k, &batch))
            .collect::<Result<Vec<_>>>()?;
        let train_seconds = t1.elapsed().as_secs_f64();
        let tokens: i64 = groups
            .iter()
            .flat_map(|g| &g.rollouts)
            .filter_map(|m| m.token_count.map(i64::from))
            .sum();

        let eval_accuracy = if cfg.run.eval_every > 0
            && !eval.is_empty()
            && (step % cfg.run.eval_every == 0 || step == cfg.run.steps)
        {
            Some(eval::evaluate(&agents, &eval, &client, cfg, step)?)
        } else {
            None
        };
        let outcome = StepOutcome {
            accuracy,
            stats,
            eval_accuracy,
            generate_seconds,
            train_seconds,
        };
        let mut log = String::new();
        for k in 0..agents.len() {
            let row = outcome.metrics(k, &agents, &tracker, cfg, step)?;
            client.record_metrics(&row)?;
            log += &serde_json::to_string(
                &serde_json::json!({ "agent": agents[k].cfg.name, "row": row }),
            )?;
            log.push('\n');
        }
        append(&cfg.run.output_dir.join(METRICS_FILE), &log)?;
        tracing::info!(
            "step {step}/{} [{}] {:.1}s ({:.0} gen tok/s)",
            cfg.run.steps,
            outcome.summary(&agents),
            t0.elapsed().as_secs_f64(),
            tokens as f64 / generate_seconds.max(1e-9)
        );

        if step % cfg.run.checkpoint_every == 0 || step == cfg.run.steps {
            for a in &agents {
                let dir = checkpoint_dir(&cfg.run.output_dir, &a.cfg.name, step);
                a.policy.save(&dir)?;
                a.opt.save(&dir)?;
            }
            std::fs::create_dir_all(&cfg.run.output_dir)?;
            std::fs::write(&state_path, serde_json::to_vec(&RunState { step })?)?;
        }
    }
    Ok(())
}

/// Every step's `train_metrics` rows, one JSON object (`agent`, `row`) per line, next to the
/// checkpoints; a resumed run appends (a step repeated after a crash appears twice: the later
/// line is the one in the pool).
pub const METRICS_FILE: &str = "metrics.jsonl";

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
