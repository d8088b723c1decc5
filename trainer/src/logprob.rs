//! Log-probabilities of given responses after given prompts, differentiable for training.

use anyhow::{Result, ensure};
use tch::{Kind, Tensor};

use crate::generation::left_pad;
use crate::models::Model;
use crate::models::mask::{attention_mask, positions_from_valid};

/// Per-token and per-sequence log-probs of a batch of responses.
#[derive(Debug)]
pub struct ResponseScores {
    /// log π(token) per response token [B, R], right-aligned (a response of r tokens fills the
    /// last r columns); 0 at padding.
    pub token_logprobs: Tensor,
    /// 1.0 where `token_logprobs` holds a real token, 0.0 at padding [B, R] (f32).
    pub mask: Tensor,
    /// Mean token log-prob per sequence [B] (GSPO's sequence-level quantity).
    pub mean_logprob: Tensor,
    /// Number of response tokens per sequence.
    pub lengths: Vec<i64>,
    /// Mean entropy (nats) of the policy's next-token distribution over each response's
    /// positions [B]; no gradient.
    pub entropy: Tensor,
}

/// Scores `(prompt ids, response ids)` pairs under `model`, its logits divided by `temperature`
/// (1: the raw policy). Gradients flow to the model's parameters unless the caller runs it under
/// `tch::no_grad`.
pub fn score(
    model: &Model,
    pairs: &[(Vec<i64>, Vec<i64>)],
    pad_id: i64,
    temperature: f64,
) -> Result<ResponseScores> {
    ensure!(!pairs.is_empty(), "no sequences to score");
    ensure!(
        temperature.is_finite() && temperature > 0.0,
        "the scoring temperature must be finite and > 0, got {temperature}"
    );
    let vocab = model.config().vocab_size;
    for (i, (p, r)) in pairs.iter().enumerate() {
        ensure!(
            !p.is_empty(),
            "sequence {i}: empty prompt (the first response token needs context)"
        );
        ensure!(!r.is_empty(), "sequence {i}: empty response");
        ensure!(
            p.iter().chain(r).all(|&t| (0..vocab).contains(&t)),
            "sequence {i}: token ids outside the vocabulary (0..{vocab})"
        );
        ensure!(
            (p.len() + r.len()) as i64 <= model.config().max_position_embeddings,
            "sequence {i} is longer than the model's context"
        );
    }
    let device = model.device();
    let rows: Vec<Vec<i64>> = pairs
        .iter()
        .map(|(p, r)| [p.as_slice(), r.as_slice()].concat())
        .collect();
    let lengths: Vec<i64> = pairs.iter().map(|(_, r)| r.len() as i64).collect();
    let r_max = *lengths.iter().max().unwrap_or(&1);
    let (ids, valid) = left_pad(&rows, pad_id, device);
    let t = ids.size()[1];
    let hidden = model.forward_hidden(
        &ids,
        &positions_from_valid(&valid),
        &attention_mask(&valid, 0, t),
        None,
    );
    // Left padding aligns every response to end at position t-1; the logits at positions
    // t-1-r_max .. t-2 predict the last r_max tokens. Only those need the vocabulary projection.
    let logits = model.logits(&hidden.narrow(1, t - 1 - r_max, r_max));
    let targets = ids.narrow(1, t - r_max, r_max);
    let full = (logits.to_kind(Kind::Float) / temperature).log_softmax(-1, Kind::Float);
    let logp = full
        .gather(-1, &targets.unsqueeze(-1), false)
        .squeeze_dim(-1);
    let token_entropy = tch::no_grad(|| {
        let full = full.detach();
        -(full.exp() * full).sum_dim_intlist(-1, false, Kind::Float)
    });
    // Column c holds token index (c - (r_max - r_i)) of response i; earlier columns are prompt.
    let col = Tensor::arange(r_max, (Kind::Int64, device)).unsqueeze(0);
    let start = (Tensor::from_slice(&lengths).to_device(device) * -1 + r_max).unsqueeze(1);
    let mask = col.ge_tensor(&start).to_kind(Kind::Float);
    let token_logprobs = &logp * &mask;
    let tokens = mask.sum_dim_intlist(-1, false, Kind::Float);
    let mean_logprob = token_logprobs.sum_dim_intlist(-1, false, Kind::Float) / &tokens;
    let entropy = (token_entropy * &mask).sum_dim_intlist(-1, false, Kind::Float) / &tokens;
    Ok(ResponseScores {
        token_logprobs,
        mask,
        mean_logprob,
        lengths,
        entropy,
    })
}
