//! The agents' common starting point: each is created from its config and tokenizer and
//! fine-tuned on the training split's worked solutions, once, then evaluated once per split.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde_json::json;

use super::cache;
use super::config::{ExperimentAgent, Origin, Split};
use crate::config::RunSection;
use crate::policy::{Policy, TextPair};
use crate::sft::supervised;
use crate::train::evaluate_policy;
use wire::TaskSummary;
use wire::client::blocking::Client;

/// The warm-up's folder under `run.output_dir`, made unless one with the same settings (the
/// kernel pinning included: it changes the numbers) is there: the agent's starting weights,
/// fine-tuned on `examples` when it has a `warmup`. With a `ledger`, the warm-up is kept there
/// too (`warmups/<agent>/`) and taken from there on another machine: pinned kernels do not
/// make a warm-up bit-identical on every CPU (EXPERIMENTS.md, sharing regimes), and every run
/// of the ledger must start from the same weights.
pub fn warm_up(
    a: &ExperimentAgent,
    examples: &[TextPair],
    run: &RunSection,
    ledger: Option<&Path>,
) -> Result<PathBuf> {
    let dir = run.output_dir.join("agents").join(&a.name);
    let origin = a.origin()?;
    let mut settings = match origin {
        Origin::Scratch {
            config, init_seed, ..
        } => json!({"config": read_config(config)?, "init_seed": init_seed}),
        Origin::Pretrained { model } => json!({"model": model, "bytes": size_of(model)?}),
    };
    if let Some(w) = &a.warmup {
        settings["warmup"] = serde_json::to_value(w)?;
        settings["examples"] = examples.len().into();
        // Only where set, so that the warm-ups of earlier experiments keep their cache keys.
        if let Some(skill) = a.warmup_skill {
            settings["warmup_skill"] = skill.as_str().into();
        }
    }
    if run.deterministic_kernels {
        settings["deterministic_kernels"] = true.into();
    }
    let kept = ledger.map(|l| l.join("warmups").join(&a.name));
    let stored = |d: &Path| cache::load::<_, serde_json::Value>(&marker(d), &settings).is_some();
    if let Some(kept) = kept.as_deref().filter(|k| stored(k) && !stored(&dir)) {
        tracing::info!(agent = a.name, from = %kept.display(), "warm-up taken from the ledger");
        copy_files(kept, &dir)?;
    }
    cache::cached(&marker(&dir), &settings, || {
        let mut policy = match origin {
            Origin::Scratch {
                tokenizer,
                init_seed,
                ..
            } => Policy::from_config(
                settings["config"].clone(),
                &crate::gguf::model_dir(tokenizer)?,
                a.device,
                crate::policy::default_kind(a.device),
                init_seed,
            )?,
            Origin::Pretrained { model } => Policy::load(model, a.device)?,
        };
        let losses = match &a.warmup {
            Some(w) => {
                tracing::info!(agent = a.name, steps = w.steps, "supervised warm-up");
                // Named after every setting of the warm-up: a changed one never resumes another.
                let key = crate::rng::fnv1a(&serde_json::to_vec(&settings)?) as u32;
                let progress = dir.with_extension(format!("progress-{key:08x}"));
                supervised(&mut policy, examples, w, Some(&progress))?
            }
            None => Vec::new(),
        };
        policy.save(&dir)?;
        Ok(losses)
    })?;
    if let Some(kept) = kept.as_deref().filter(|k| !stored(k)) {
        copy_files(&dir, kept)?;
    }
    Ok(dir)
}

/// Copies the files of folder `from` (not its subfolders) into `to`, the marker last, so that
/// a copy cut short never reads as a stored warm-up.
fn copy_files(from: &Path, to: &Path) -> Result<()> {
    std::fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(from)
        .with_context(|| format!("reading {}", from.display()))?
        .map(|e| Ok(e?.path()))
        .collect::<Result<Vec<_>>>()?
        .into_iter()
        .filter(|p| p.is_file())
        .collect();
    let last = marker(from);
    files.sort_by_key(|p| *p == last);
    for file in files {
        let target = to.join(file.file_name().context("a file name")?);
        std::fs::copy(&file, &target)
            .with_context(|| format!("copying {} to {}", file.display(), target.display()))?;
    }
    Ok(())
}

/// A pretrained model's size in bytes (a file's, or a folder's files'), so that a model replaced
/// at the same path is not taken for the one warmed up before.
fn size_of(path: &Path) -> Result<u64> {
    let meta = std::fs::metadata(path).with_context(|| format!("reading {}", path.display()))?;
    if meta.is_file() {
        return Ok(meta.len());
    }
    let mut total = 0;
    for entry in std::fs::read_dir(path).with_context(|| format!("reading {}", path.display()))? {
        total += size_of(&entry?.path())?;
    }
    Ok(total)
}

/// The warm-up's weights as a short fingerprint (FNV-1a of `model.safetensors`, in hex): equal
/// exactly when two machines' warm-ups gave the same weights, bit for bit.
pub fn fingerprint(dir: &Path) -> Result<String> {
    let path = dir.join("model.safetensors");
    let bytes = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
    Ok(format!("{:016x}", crate::rng::fnv1a(&bytes)))
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
    client: &Client,
    policy: &Policy,
    agent_id: uuid::Uuid,
    tasks: &[TaskSummary],
    run: &str,
    max_new_tokens: usize,
) -> Result<f64> {
    match client
        .capability(&agent_id.to_string(), run, 1)?
        .steps
        .first()
    {
        Some(s) => Ok(s.accuracy),
        None => evaluate_policy(policy, agent_id, tasks, client, run, 0, max_new_tokens),
    }
}

fn read_config(config: &Path) -> Result<serde_json::Value> {
    let text =
        std::fs::read_to_string(config).with_context(|| format!("reading {}", config.display()))?;
    Ok(serde_json::from_str(&text)?)
}
