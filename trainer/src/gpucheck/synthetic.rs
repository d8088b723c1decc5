//! A synthetic HACPO mini-batch and one update step on it, for measuring the update where no
//! pool exists: `trainer gpu-check update` and the policy bench time this same step, which is
//! what `learn::update` does for one micro-batch.

use anyhow::Result;
use tch::{Device, Kind, Tensor};

use crate::hacpo::{HacpoConfig, SequenceSample, sequence_loss};
use crate::optim::{AdamW, MAX_GRAD_NORM, clip_grad_norm};
use crate::policy::Policy;

/// The AdamW learning rate of the measured step.
pub const LEARNING_RATE: f64 = 1e-6;
/// The AdamW weight decay of the measured step.
pub const WEIGHT_DECAY: f64 = 0.01;

/// Sequences and what the loss needs to know about each.
pub struct SyntheticBatch {
    /// (prompt, response) token ids of each sequence.
    pub pairs: Vec<(Vec<i64>, Vec<i64>)>,
    /// Every odd sequence crosses (ω 1.5), advantages go +1, +1, −1, −1, …, and ℓ_old puts every
    /// ratio inside its clip range at m = 0, so that every term has a gradient.
    pub samples: Vec<SequenceSample>,
    /// The loss's settings: the defaults.
    pub hacpo: HacpoConfig,
}

impl SyntheticBatch {
    /// The batch over `pairs`, ℓ_old taken from `policy`'s current log-probs.
    pub fn new(policy: &Policy, pairs: Vec<(Vec<i64>, Vec<i64>)>) -> Result<Self> {
        let current: Vec<f64> = Vec::try_from(
            tch::no_grad(|| policy.score_ids(&pairs))?
                .mean_logprob
                .to_kind(Kind::Double)
                .to_device(Device::Cpu),
        )?;
        let samples = current
            .iter()
            .enumerate()
            .map(|(i, &l)| {
                let cross = i % 2 == 1;
                SequenceSample {
                    cross,
                    advantage: if i % 4 < 2 { 1.0 } else { -1.0 },
                    // exp(-0.05) ≈ 0.95 lies inside the step-0 cross clip [0.8, 1].
                    old_logprob: if cross { l + 0.05 } else { l },
                    omega: if cross { 1.5 } else { 1.0 },
                    behaviour_weight: 1.0,
                }
            })
            .collect();
        Ok(Self {
            pairs,
            samples,
            hacpo: HacpoConfig::default(),
        })
    }

    /// A fresh AdamW over `policy` with the measured step's settings.
    pub fn optimizer(policy: &Policy) -> AdamW {
        AdamW::new(policy.var_store(), LEARNING_RATE, WEIGHT_DECAY)
    }

    /// One update step of `policy`: log-probs with gradients, the sequence loss, backward,
    /// gradient clipping, AdamW. Returns the loss — a tensor, because reading it waits for the
    /// device and a timed caller reads it only when it wants it — and the gradient norm.
    pub fn update(&self, policy: &Policy, opt: &mut AdamW) -> Result<(Tensor, f64)> {
        opt.zero_grad();
        let s = policy.score_ids(&self.pairs)?;
        let loss = sequence_loss(&s.mean_logprob, &self.samples, 0, &self.hacpo).loss;
        loss.backward();
        let grad_norm = clip_grad_norm(policy.var_store(), MAX_GRAD_NORM);
        opt.step();
        Ok((loss, grad_norm))
    }
}
