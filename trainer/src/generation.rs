//! Batched autoregressive sampling with a KV cache and left padding.

use anyhow::{Result, ensure};
use tch::{Device, Kind, Tensor};

use crate::models::mask::{attention_mask, positions_from_valid};
use crate::models::{KvCache, Model};

/// How to sample.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingParams {
    /// Upper bound on generated tokens per sequence.
    pub max_new_tokens: usize,
    /// Softmax temperature; 0 means greedy (argmax).
    pub temperature: f64,
    /// Nucleus sampling mass in (0, 1]; 1 disables it.
    pub top_p: f64,
    /// Seed for libtorch's generator; `None` leaves it as it is.
    pub seed: Option<i64>,
    /// Tokens that end a sequence; `None` uses the policy's end-of-turn tokens.
    pub stop_token_ids: Option<Vec<i64>>,
    /// Reuse keys/values of earlier positions (off only to cross-check the cache).
    pub use_cache: bool,
    /// What the recorded log-probs divide the logits by (1: the raw policy); the training
    /// loop sets the rollout temperature, as the authors' recipe does.
    pub logprob_temperature: f64,
}

impl Default for SamplingParams {
    fn default() -> Self {
        Self {
            max_new_tokens: 256,
            temperature: 1.0,
            top_p: 1.0,
            seed: None,
            stop_token_ids: None,
            use_cache: true,
            logprob_temperature: 1.0,
        }
    }
}

impl SamplingParams {
    /// Greedy decoding (evaluation).
    pub fn greedy(max_new_tokens: usize) -> Self {
        Self {
            max_new_tokens,
            temperature: 0.0,
            ..Self::default()
        }
    }

    fn validate(&self) -> Result<()> {
        ensure!(
            self.temperature.is_finite() && self.temperature >= 0.0,
            "temperature must be finite and >= 0, got {}",
            self.temperature
        );
        ensure!(
            self.top_p > 0.0 && self.top_p <= 1.0,
            "top_p must be in (0, 1], got {}",
            self.top_p
        );
        ensure!(self.max_new_tokens > 0, "max_new_tokens must be at least 1");
        ensure!(
            self.logprob_temperature.is_finite() && self.logprob_temperature > 0.0,
            "logprob_temperature must be finite and > 0, got {}",
            self.logprob_temperature
        );
        Ok(())
    }
}

/// Why a sequence ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// A stop token was produced (it is the last of `token_ids`).
    Stop,
    /// `max_new_tokens` was reached.
    Length,
}

/// Tokens sampled for one prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct Sampled {
    /// Generated ids, including the stop token when `finish_reason` is `Stop`.
    pub token_ids: Vec<i64>,
    /// Log-probability of each generated token under the model with its logits divided by
    /// `SamplingParams::logprob_temperature` (no top-p) — what importance ratios need.
    pub logprobs: Vec<f32>,
    /// Why generation ended.
    pub finish_reason: FinishReason,
}

/// Left-pads `rows` with `pad_id` into ids [B, L] and a validity mask [B, L].
pub fn left_pad(rows: &[Vec<i64>], pad_id: i64, device: Device) -> (Tensor, Tensor) {
    let len = rows.iter().map(Vec::len).max().unwrap_or(0);
    let mut ids = Vec::with_capacity(rows.len() * len);
    let mut valid = Vec::with_capacity(rows.len() * len);
    for row in rows {
        let pad = len - row.len();
        ids.extend(std::iter::repeat_n(pad_id, pad).chain(row.iter().copied()));
        valid.extend(std::iter::repeat_n(false, pad).chain(std::iter::repeat_n(true, row.len())));
    }
    let shape = [rows.len() as i64, len as i64];
    (
        Tensor::from_slice(&ids).view(shape).to_device(device),
        Tensor::from_slice(&valid).view(shape).to_device(device),
    )
}

/// Picks the next token per row from last-position logits [B, V].
fn pick(logits: &Tensor, params: &SamplingParams) -> Tensor {
    if params.temperature == 0.0 {
        return logits.argmax(-1, true);
    }
    let probs = (logits.to_kind(Kind::Float) / params.temperature).softmax(-1, Kind::Float);
    if params.top_p >= 1.0 {
        return probs.multinomial(1, false);
    }
    let (sorted, idx) = probs.sort(-1, true);
    // Keep the smallest prefix whose mass reaches top_p (the first token always survives).
    let before = sorted.cumsum(-1, Kind::Float) - &sorted;
    let kept = sorted.masked_fill(&before.gt(params.top_p), 0.0);
    idx.gather(-1, &kept.multinomial(1, false), false)
}

/// Samples continuations of each prompt (token ids); rows finish independently.
pub fn sample(
    model: &Model,
    prompts: &[Vec<i64>],
    params: &SamplingParams,
    stop_ids: &[i64],
    pad_id: i64,
) -> Result<Vec<Sampled>> {
    params.validate()?;
    ensure!(!prompts.is_empty(), "no prompts given");
    let vocab = model.config().vocab_size;
    for (i, p) in prompts.iter().enumerate() {
        ensure!(!p.is_empty(), "prompt {i} is empty");
        ensure!(
            p.iter().all(|&t| (0..vocab).contains(&t)),
            "prompt {i} has token ids outside the vocabulary (0..{vocab})"
        );
        let total = p.len() + params.max_new_tokens;
        ensure!(
            total as i64 <= model.config().max_position_embeddings,
            "prompt {i}: {} tokens + max_new_tokens {} exceeds the model's context of {}",
            p.len(),
            params.max_new_tokens,
            model.config().max_position_embeddings
        );
    }
    if let Some(seed) = params.seed {
        tch::manual_seed(seed);
    }
    let device = model.device();
    let _guard = tch::no_grad_guard();
    let b = prompts.len();
    let (mut ids, mut valid) = left_pad(prompts, pad_id, device);
    let mut positions = positions_from_valid(&valid);
    let mut cache = KvCache::new();
    let stops = Tensor::from_slice(stop_ids).to_device(device);
    let mut finished = Tensor::zeros([b as i64], (Kind::Bool, device));
    let mut out: Vec<Sampled> = (0..b)
        .map(|_| Sampled {
            token_ids: vec![],
            logprobs: vec![],
            finish_reason: FinishReason::Length,
        })
        .collect();

    let first = {
        let t = ids.size()[1];
        let mask = attention_mask(&valid, 0, t);
        let cache = params.use_cache.then_some(&mut cache);
        let hidden = model.forward_hidden(&ids, &positions, &mask, cache);
        model.logits(&hidden.select(1, t - 1))
    };
    let mut logits = first;
    for step in 0..params.max_new_tokens {
        let logp =
            (logits.to_kind(Kind::Float) / params.logprob_temperature).log_softmax(-1, Kind::Float);
        let next = pick(&logits, params).where_self(
            &finished.logical_not().unsqueeze(1),
            &Tensor::full([b as i64, 1], pad_id, (Kind::Int64, device)),
        );
        let next_logp = logp.gather(-1, &next, false);
        let next_v = Vec::<i64>::try_from(next.view([-1]).to_device(Device::Cpu))?;
        let logp_v = Vec::<f32>::try_from(next_logp.view([-1]).to_device(Device::Cpu))?;
        let done_v = Vec::<bool>::try_from(finished.to_device(Device::Cpu))?;
        for i in 0..b {
            if !done_v[i] {
                out[i].token_ids.push(next_v[i]);
                out[i].logprobs.push(logp_v[i]);
                if stop_ids.contains(&next_v[i]) {
                    out[i].finish_reason = FinishReason::Stop;
                }
            }
        }
        if stops.numel() > 0 {
            finished = finished.logical_or(&Tensor::isin(&next.view([-1]), &stops, false, false));
        }
        if step + 1 == params.max_new_tokens || bool::try_from(finished.all())? {
            break;
        }
        valid = Tensor::cat(
            &[&valid, &Tensor::ones([b as i64, 1], (Kind::Bool, device))],
            1,
        );
        let next_pos = positions.select(1, -1).unsqueeze(1) + 1;
        positions = Tensor::cat(&[&positions, &next_pos], 1);
        ids = Tensor::cat(&[&ids, &next], 1);
        let s = ids.size()[1];
        logits = if params.use_cache {
            let mask = attention_mask(&valid, s - 1, 1);
            let hidden = model.forward_hidden(&next, &next_pos, &mask, Some(&mut cache));
            model.logits(&hidden.select(1, 0))
        } else {
            let mask = attention_mask(&valid, 0, s);
            let hidden = model.forward_hidden(&ids, &positions, &mask, None);
            model.logits(&hidden.select(1, s - 1))
        };
    }
    Ok(out)
}
