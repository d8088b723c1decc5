//! The agents' common starting point: each is created from its config and tokenizer and
//! fine-tuned on the training split's worked solutions, once, then evaluated once per split.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::json;

use super::cache;
use super::config::{ExperimentAgent, Split};
use crate::config::RunSection;
use crate::policy::{Policy, TextPair};
use crate::sft::supervised;
use crate::train::evaluate_policy;
use crate::verifier::VerifierClient;
use wire::TaskSummary;

/// The warm-up's folder under `run.output_dir`, trained unless one with the same settings (the
/// kernel pinning included: it changes the numbers) is there.
pub fn warm_up(a: &ExperimentAgent, examples: &[TextPair], run: &RunSection) -> Result<PathBuf> {
    let dir = run.output_dir.join("agents").join(&a.name);
    let config = read_config(a)?;
    let mut settings = json!({
        "config": config, "init_seed": a.init_seed, "warmup": a.warmup,
        "examples": examples.len(),
    });
    if run.deterministic_kernels {
        settings["deterministic_kernels"] = true.into();
    }
    cache::cached(&marker(&dir), &settings, || {
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
        Ok(losses)
    })?;
    Ok(dir)
}

/// The file that records a warm-up's settings and losses.
pub fn marker(dir: &Path) -> PathBuf {
    dir.join("warmup.json")
}

/// The pool's run under which a warm-up is evaluated on `split`: named after its settings, so
/// that a changed warm-up is evaluated afresh.
pub fn eval_run(name: &str, dir: &Path, split: Split) -> Result<String> {
    let settings = serde_json::to_vec(&cache::settings_of(&marker(dir))?)?;
    let suffix = match split {
        Split::Test => String::new(),
        other => format!("-{}", other.name()),
    };
    Ok(format!(
        "{name}/warmup-{:08x}/eval{suffix}",
        crate::rng::fnv1a(&settings) as u32
    ))
}

/// The accuracy of `policy` on `tasks`, evaluated once into the pool under `run`.
pub fn accuracy(
    client: &VerifierClient,
    policy: &Policy,
    agent_id: uuid::Uuid,
    tasks: &[TaskSummary],
    run: &str,
    max_new_tokens: usize,
) -> Result<f64> {
    match client.accuracy_history(agent_id, run)?.first() {
        Some(s) => Ok(s.accuracy),
        None => evaluate_policy(policy, agent_id, tasks, client, run, 0, max_new_tokens),
    }
}

fn read_config(a: &ExperimentAgent) -> Result<serde_json::Value> {
    let text = std::fs::read_to_string(&a.config)
        .with_context(|| format!("reading {}", a.config.display()))?;
    Ok(serde_json::from_str(&text)?)
}
