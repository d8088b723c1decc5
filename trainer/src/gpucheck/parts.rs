//! The single-model parts: one HACPO update step, generation at several batch sizes, and the
//! logits the transformers parity script compares with.

use std::collections::BTreeMap;
use std::time::Instant;

use anyhow::{Context, Result, ensure};
use clap::Args;
use serde_json::json;
use tch::{Device, Kind, Tensor};

use super::flops::{self, synchronize};
use super::{ModelSpec, SyntheticBatch, Target, kind_name, open_device, report, write_part};
use crate::SamplingParams;
use crate::models::mask::{attention_mask, positions_from_valid};
use crate::policy::Policy;

/// Chat prompts the batches cycle through (the content matters only to the tokenizer).
const QUESTIONS: [&str; 4] = [
    "What is 17 times 23?",
    "Natalia sold clips to 48 of her friends in April, and then she sold half as many clips in May. How many clips did Natalia sell altogether?",
    "Write a function that returns the n-th Fibonacci number.",
    "Name three prime numbers larger than 100.",
];

/// Arguments of the update part.
#[derive(Args)]
pub struct UpdateArgs {
    #[command(flatten)]
    target: Target,
    #[command(flatten)]
    model: ModelSpec,
    /// Sequences in the step (one mini-batch, one micro-batch).
    #[arg(long, default_value_t = 8)]
    batch: usize,
    /// Response tokens per sequence (random ids after a real chat prompt).
    #[arg(long, default_value_t = 1024)]
    response_len: usize,
    /// Timed steps (median), after one warm-up.
    #[arg(long, default_value_t = 3)]
    repeats: usize,
}

/// Arguments of the generation part.
#[derive(Args)]
pub struct GenerateArgs {
    #[command(flatten)]
    target: Target,
    #[command(flatten)]
    model: ModelSpec,
    /// Batch sizes, each timed once after a short warm-up at that size.
    #[arg(long, value_delimiter = ',', default_value = "1,8,64")]
    batches: Vec<usize>,
    /// New tokens per sequence (no early stop).
    #[arg(long, default_value_t = 128)]
    new_tokens: usize,
}

/// Arguments of the parity part.
#[derive(Args)]
pub struct ParityArgs {
    #[command(flatten)]
    target: Target,
    #[command(flatten)]
    model: ModelSpec,
}

fn prompts(policy: &Policy, n: usize) -> Result<Vec<Vec<i64>>> {
    (0..n)
        .map(|i| policy.encode_prompt(QUESTIONS[i % QUESTIONS.len()]))
        .collect()
}

fn parameters(policy: &Policy) -> i64 {
    policy
        .var_store()
        .trainable_variables()
        .iter()
        .map(Tensor::numel)
        .sum::<usize>() as i64
}

/// One HACPO update step on a [`SyntheticBatch`] of real chat prompts and random responses.
pub(super) fn update(a: UpdateArgs) -> Result<()> {
    let device = a.target.device;
    let memory = open_device(device)?;
    ensure!(
        a.batch > 0 && a.response_len > 0,
        "--batch and --response-len must be positive"
    );
    let policy = a.model.policy(device)?;
    let cfg = policy.model().config().clone();
    tch::manual_seed(1);
    let vocab = cfg.vocab_size;
    let pairs: Vec<(Vec<i64>, Vec<i64>)> = prompts(&policy, a.batch)?
        .into_iter()
        .map(|p| {
            let r = Tensor::randint_low(
                3,
                vocab,
                [a.response_len as i64],
                (Kind::Int64, Device::Cpu),
            );
            Ok((p, Vec::<i64>::try_from(r)?))
        })
        .collect::<Result<_>>()?;
    let tokens: usize = pairs.iter().map(|(p, r)| p.len() + r.len()).sum();
    let seq_len = pairs
        .iter()
        .map(|(p, r)| p.len() + r.len())
        .max()
        .unwrap_or(0);
    let batch = SyntheticBatch::new(&policy, pairs)?;
    let mut opt = SyntheticBatch::optimizer(&policy);
    let mut times = Vec::new();
    let (mut loss, mut grad_norm) = (f64::NAN, f64::NAN);
    for i in 0..=a.repeats {
        synchronize(device);
        let t = Instant::now();
        let (step_loss, norm) = batch.update(&policy, &mut opt)?;
        (loss, grad_norm) = (step_loss.double_value(&[]), norm);
        synchronize(device);
        if i > 0 {
            times.push(t.elapsed().as_secs_f64());
        }
    }
    ensure!(
        loss.is_finite() && grad_norm.is_finite(),
        "{}: non-finite loss ({loss}) or gradient norm ({grad_norm})",
        a.model.name
    );
    times.sort_by(f64::total_cmp);
    let seconds = times[times.len() / 2];
    let response_tokens = (a.batch * a.response_len) as f64;
    let flops_per_token =
        flops::train_flops_per_token(&cfg, seq_len as f64, response_tokens / tokens as f64);
    let tokens_per_s = tokens as f64 / seconds;
    let peak = report::read_peak(&a.target.out)?;
    let mfu = peak.map(|p| flops_per_token * tokens_per_s / p);
    let (kind, params) = (policy.var_store().kind(), parameters(&policy));
    drop(policy);
    write_part(
        &a.target.out,
        &format!("update-{}.json", a.model.name),
        &json!({
            "name": a.model.name,
            "device": format!("{device:?}"),
            "dtype": kind_name(kind),
            "parameters": params,
            "batch": a.batch,
            "response_len": a.response_len,
            "tokens": tokens,
            "seconds": seconds,
            "tokens_per_s": tokens_per_s,
            "flops_per_token": flops_per_token,
            "mfu": mfu,
            "peak_memory_bytes": memory.finish()?,
            "loss": loss,
            "grad_norm": grad_norm,
        }),
    )
}

/// Tokens/s of KV-cached sampling (T = 1, no early stop) at each batch size.
pub(super) fn generate(a: GenerateArgs) -> Result<()> {
    let device = a.target.device;
    let memory = open_device(device)?;
    ensure!(a.new_tokens > 0, "--new-tokens must be positive");
    let policy = a.model.policy(device)?;
    let mut rows = Vec::new();
    for &b in &a.batches {
        ensure!(b > 0, "batch sizes must be positive");
        let ids = prompts(&policy, b)?;
        let params = |n: usize| SamplingParams {
            max_new_tokens: n,
            seed: Some(0),
            stop_token_ids: Some(vec![]),
            ..SamplingParams::default()
        };
        tch::no_grad(|| policy.generate_from_ids(ids.clone(), &params(4)))?;
        synchronize(device);
        let t = Instant::now();
        let out = tch::no_grad(|| policy.generate_from_ids(ids, &params(a.new_tokens)))?;
        synchronize(device);
        let seconds = t.elapsed().as_secs_f64();
        let generated: usize = out.iter().map(|g| g.sampled.token_ids.len()).sum();
        ensure!(
            generated == b * a.new_tokens,
            "batch {b}: {generated} tokens generated, {} expected",
            b * a.new_tokens
        );
        rows.push(json!({
            "batch": b,
            "seconds": seconds,
            "tokens_per_s": generated as f64 / seconds,
        }));
    }
    let kind = policy.var_store().kind();
    drop(policy);
    write_part(
        &a.target.out,
        &format!("generate-{}.json", a.model.name),
        &json!({
            "name": a.model.name,
            "device": format!("{device:?}"),
            "dtype": kind_name(kind),
            "new_tokens": a.new_tokens,
            "batches": rows,
            "peak_memory_bytes": memory.finish()?,
        }),
    )
}

/// Saves the model (Hugging Face layout) to `out/parity-model` and its logits for the first
/// chat prompt to `out/parity-logits.safetensors`; `scripts/gpu-check-parity.py` runs the same
/// weights through transformers on the same device and dtype and compares.
pub(super) fn parity(a: ParityArgs) -> Result<()> {
    let device = a.target.device;
    let _memory = open_device(device)?;
    let policy = a.model.policy(device)?;
    let dir = a.target.out.join("parity-model");
    policy.save(&dir)?;
    let ids = prompts(&policy, 1)?.remove(0);
    let n = ids.len() as i64;
    let input = Tensor::from_slice(&ids).unsqueeze(0).to_device(device);
    let valid = input.ones_like().to_kind(Kind::Bool);
    let logits = tch::no_grad(|| {
        policy.model().forward(
            &input,
            &positions_from_valid(&valid),
            &attention_mask(&valid, 0, n),
            None,
        )
    });
    let mut tensors = BTreeMap::new();
    tensors.insert("input_ids".to_owned(), input.to_device(Device::Cpu));
    tensors.insert(
        "logits".to_owned(),
        logits.to_kind(Kind::Float).to_device(Device::Cpu),
    );
    let file = a.target.out.join("parity-logits.safetensors");
    crate::checkpoint::write_safetensors(&file, &tensors)
        .with_context(|| format!("writing {}", file.display()))?;
    write_part(
        &a.target.out,
        "parity-input.json",
        &json!({
            "name": a.model.name,
            "device": format!("{device:?}"),
            "dtype": kind_name(policy.var_store().kind()),
            "model_dir": dir,
            "logits_file": file,
            "positions": n,
        }),
    )
}
