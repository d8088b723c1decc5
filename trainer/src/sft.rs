//! Supervised fine-tuning: maximise the log-likelihood of reference responses. The experiment
//! uses it as a short warm-up so that agents start RL with a nonzero, different accuracy.

use std::time::Instant;

use anyhow::{Result, ensure};
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

/// Trains `policy` on `examples` (token-mean negative log-likelihood of each response, averaged
/// over the batch); returns the loss of every step.
pub fn supervised(policy: &mut Policy, examples: &[TextPair], cfg: &SftConfig) -> Result<Vec<f64>> {
    ensure!(!examples.is_empty(), "no examples to fine-tune on");
    ensure!(cfg.batch_size > 0, "batch_size must be positive");
    // Weight decay 0.01: PyTorch's AdamW default.
    let mut opt = AdamW::new(policy.var_store(), cfg.lr, 0.01);
    let mut rng = XorShift64(cfg.seed ^ 0x5DEE_CE66_D1CE_4E5B);
    let mut losses = Vec::with_capacity(cfg.steps);
    let start = Instant::now();
    let progress = Progress::new("warm-up", "step", 0, cfg.steps);
    for step in 1..=cfg.steps {
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
    Ok(losses)
}
