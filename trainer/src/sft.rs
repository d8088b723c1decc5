//! Supervised fine-tuning: maximise the log-likelihood of reference responses. The experiment
//! uses it as a short warm-up so that agents start RL with a nonzero, different accuracy. A
//! warm-up given a folder for its progress keeps a resumable state there every
//! [`RESUME_EVERY`] steps (weights, AdamW moments, the batch draw, the losses): an interrupted
//! one continues where it stopped and ends with the same weights as an uninterrupted one.

use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result, ensure};
use serde::{Deserialize, Serialize};
use tch::Kind;

use crate::optim::{AdamW, MAX_GRAD_NORM, clip_grad_norm};
use crate::policy::{Policy, TextPair};
use crate::progress::Progress;
use crate::rng::XorShift64;

/// Warm-up settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SftConfig {
    /// Optimizer steps.
    pub steps: usize,
    /// Examples per step.
    pub batch_size: usize,
    /// AdamW learning rate.
    pub lr: f64,
    /// Seed of the batch draws.
    #[serde(default)]
    pub seed: u64,
}

/// Steps between two resumable states of a warm-up.
pub const RESUME_EVERY: usize = 100;

/// Where a warm-up stands, kept beside its weights in the progress folder.
#[derive(Debug, Serialize, Deserialize)]
struct Resumable {
    cfg: SftConfig,
    examples: usize,
    step: usize,
    rng: u64,
    losses: Vec<f64>,
}

/// Trains `policy` on `examples` (token-mean negative log-likelihood of each response, averaged
/// over the batch); returns the loss of every step. With `progress_dir`, it resumes from the
/// state kept there for the same settings and keeps its own there as it goes (removed at the
/// end).
pub fn supervised(
    policy: &mut Policy,
    examples: &[TextPair],
    cfg: &SftConfig,
    progress_dir: Option<&Path>,
) -> Result<Vec<f64>> {
    train(policy, examples, cfg, progress_dir, cfg.steps)
}

/// [`supervised`], stopping after step `until` as an interrupted process would (the tests).
fn train(
    policy: &mut Policy,
    examples: &[TextPair],
    cfg: &SftConfig,
    progress_dir: Option<&Path>,
    until: usize,
) -> Result<Vec<f64>> {
    ensure!(!examples.is_empty(), "no examples to fine-tune on");
    ensure!(cfg.batch_size > 0, "batch_size must be positive");
    let kept = progress_dir
        .and_then(|d| std::fs::read(d.join(RESUME_FILE)).ok())
        .and_then(|b| serde_json::from_slice::<Resumable>(&b).ok())
        .filter(|r| &r.cfg == cfg && r.examples == examples.len() && r.step <= cfg.steps);
    if let (Some(r), Some(dir)) = (&kept, progress_dir) {
        *policy = Policy::load(dir, policy.device())
            .with_context(|| format!("resuming the warm-up from {}", dir.display()))?;
        tracing::info!(step = r.step, "warm-up resumed");
    }
    // Weight decay 0.01: PyTorch's AdamW default.
    let mut opt = AdamW::new(policy.var_store(), cfg.lr, 0.01);
    let mut rng = XorShift64(cfg.seed ^ 0x5DEE_CE66_D1CE_4E5B);
    let mut losses = Vec::with_capacity(cfg.steps);
    let mut first = 1;
    if let (Some(r), Some(dir)) = (kept, progress_dir) {
        opt.load(dir)?;
        (rng, losses, first) = (XorShift64(r.rng), r.losses, r.step + 1);
    }
    let start = Instant::now();
    let progress = Progress::new("warm-up", "step", first - 1, cfg.steps);
    for step in first..=cfg.steps.min(until) {
        let batch: Vec<TextPair> = (0..cfg.batch_size)
            .map(|_| examples[(rng.next_u64() % examples.len() as u64) as usize].clone())
            .collect();
        let scores = policy.score_texts(&batch)?;
        let loss = -scores.mean_logprob.mean(Kind::Float);
        let value = loss.double_value(&[]);
        ensure!(value.is_finite(), "non-finite loss at warm-up step {step}");
        opt.zero_grad();
        loss.backward();
        clip_grad_norm(policy.var_store(), MAX_GRAD_NORM);
        opt.step();
        losses.push(value);
        progress.inc();
        if let Some(dir) = progress_dir.filter(|_| step % RESUME_EVERY == 0 && step < cfg.steps) {
            let state = Resumable {
                cfg: cfg.clone(),
                examples: examples.len(),
                step,
                rng: rng.0,
                losses: losses.clone(),
            };
            keep(dir, policy, &opt, &state)?;
        }
        if step % 50 == 0 || step == cfg.steps {
            let window = &losses[losses.len().saturating_sub(50)..];
            tracing::info!(
                "warm-up step {step}/{} loss={:.4} ({:.1}s, {})",
                cfg.steps,
                window.iter().sum::<f64>() / window.len() as f64,
                start.elapsed().as_secs_f64(),
                progress.eta()
            );
        }
    }
    if let Some(dir) = progress_dir.filter(|_| until >= cfg.steps) {
        let _ = std::fs::remove_dir_all(dir);
    }
    Ok(losses)
}

const RESUME_FILE: &str = "warmup-progress.json";

/// Writes a resumable state to `dir`, whole or not at all: beside it first, then renamed over.
fn keep(dir: &Path, policy: &Policy, opt: &AdamW, state: &Resumable) -> Result<()> {
    let part = dir.with_extension("part");
    let _ = std::fs::remove_dir_all(&part);
    policy.save(&part)?;
    opt.save(&part)?;
    std::fs::write(part.join(RESUME_FILE), serde_json::to_vec(state)?)?;
    let _ = std::fs::remove_dir_all(dir);
    std::fs::rename(&part, dir).with_context(|| format!("keeping {}", dir.display()))
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use tch::{Device, Kind};

    use super::*;

    fn tiny(seed: i64) -> Policy {
        let cfg = json!({
            "model_type": "llama", "vocab_size": 259, "hidden_size": 16, "intermediate_size": 32,
            "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1,
            "head_dim": 8, "rms_norm_eps": 1e-5, "rope_theta": 10000.0,
            "max_position_embeddings": 128, "tie_word_embeddings": true,
            "initializer_range": 0.5,
        });
        let tok = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/byte-tokenizer");
        Policy::from_config(cfg, &tok, Device::Cpu, Kind::Float, seed).unwrap()
    }

    fn weights(p: &Policy) -> Vec<f32> {
        let mut vars: Vec<_> = p.var_store().variables().into_iter().collect();
        vars.sort_by(|a, b| a.0.cmp(&b.0));
        vars.iter()
            .flat_map(|(_, t)| Vec::<f32>::try_from(t.flatten(0, -1)).unwrap())
            .collect()
    }

    /// An interrupted warm-up, resumed from its kept state, ends where an uninterrupted one does:
    /// the same losses and weights, to the rounding that libtorch's multithreaded CPU kernels
    /// leave between any two runs in this process (the experiments pin one thread and are
    /// bit-identical).
    #[test]
    fn a_resumed_warm_up_ends_with_the_uninterrupted_ones_weights() {
        let examples: Vec<TextPair> = ["1+1", "2+3", "4+4"]
            .iter()
            .map(|q| TextPair {
                prompt: format!("What is {q}?"),
                response: "It is a number.".into(),
                ends_turn: true,
            })
            .collect();
        let cfg = SftConfig {
            steps: RESUME_EVERY + 3,
            batch_size: 2,
            lr: 1e-2,
            seed: 3,
        };
        let mut straight = tiny(7);
        let all = supervised(&mut straight, &examples, &cfg, None).unwrap();

        let dir = tempfile::tempdir().unwrap();
        let progress = dir.path().join("progress");
        // Killed one step after its state was kept at step RESUME_EVERY.
        let mut killed = tiny(7);
        let close = |a: &[f64], b: &[f64]| {
            assert_eq!(a.len(), b.len());
            for (x, y) in a.iter().zip(b) {
                assert!((x - y).abs() <= 1e-9 * y.abs().max(1.0), "{x} vs {y}");
            }
        };
        let before = train(
            &mut killed,
            &examples,
            &cfg,
            Some(&progress),
            RESUME_EVERY + 1,
        )
        .unwrap();
        close(&before, &all[..RESUME_EVERY + 1]);
        assert!(progress.join(RESUME_FILE).is_file());
        // A fresh process resumes from step RESUME_EVERY's kept weights, whatever it starts
        // from: here other ones, which only a real resume can turn into the same result.
        let mut resumed = tiny(8);
        let after = supervised(&mut resumed, &examples, &cfg, Some(&progress)).unwrap();
        close(&after, &all);
        let (w, w0) = (weights(&resumed), weights(&straight));
        assert!(
            w.iter().zip(&w0).all(|(a, b)| (a - b).abs() <= 1e-5),
            "weights differ"
        );
        assert!(
            !progress.exists(),
            "a finished warm-up leaves no progress behind"
        );
    }
}
