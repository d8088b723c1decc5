//! `trainer roundtrip`: does a model's tokenizer give back the model's own samples?
//!
//! A cross sample reaches a learner as text: the author's sampled ids decoded (end-of-turn and
//! other special tokens dropped), then re-encoded by the learner's tokenizer
//! ([`Policy::encode_response`]`(text, false)`). If a tokenizer does not round-trip its *own*
//! model's samples — decode, re-encode, other ids, or ids the model finds less likely — every
//! cross ratio into that model is biased low by that much. `sample` measures it: the model
//! samples responses to real prompts with its own chat template; each response's text is
//! re-encoded; both id sequences are scored under the model ([`Policy::score_ids`], same prompt
//! ids, one sequence at a time so that no padding differs; ids that came back unchanged are
//! scored once), and the report gives
//! exp(ℓ_re − ℓ_sampled) per token (means over each sequence's own tokens, as the trainer's
//! default cross ratio) and per UTF-8 byte (sums over the text's bytes, as
//! `cross_ratio = "per_byte"`), with why each sample that did not round-trip did not.
//!
//! `encode` writes the learner's ids of every string of a corpus, for `scripts/tokenizer-parity`
//! to compare with the Hugging Face `tokenizers` library.

use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result, ensure};
use clap::{Args, Subcommand, ValueEnum};
use serde::Serialize;
use serde_json::{Value, json};
use tch::{Device, Kind};

use crate::config::parse_device;
use crate::experiment::arith::{self, ArithSpec};
use crate::generation::{FinishReason, SamplingParams};
use crate::policy::{Generation, Policy, TextPair};
use crate::sft::{SftConfig, supervised};
use crate::tokenizer::Tokenizer;

/// The two parts of `trainer roundtrip`.
#[derive(Subcommand)]
pub enum Part {
    /// Sample from a model, decode, re-encode, score both: the JSON report.
    Sample(SampleArgs),
    /// Encode every string of a JSONL corpus with a model's tokenizer as the learner does
    /// (no special tokens added), one `{"ids": [...], "decoded": "..."}` line per string.
    Encode(EncodeArgs),
}

/// Where the prompts come from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PromptSource {
    /// GSM8K test questions (`--gsm8k`), in file order.
    Gsm8k,
    /// The arithmetic tasks of the experiments (arith-shared's generator), held-out split.
    Arith,
}

/// Arguments of [`Part::Sample`].
#[derive(Args, Debug, Clone)]
pub struct SampleArgs {
    /// Model directory, `.gguf` file, or a config.json (random weights; needs --tokenizer).
    #[arg(long)]
    pub model: PathBuf,
    /// Tokenizer directory for a config.json model (tokenizer.json, tokenizer_config.json).
    #[arg(long)]
    pub tokenizer: Option<PathBuf>,
    /// Seed of the random weights of a config.json model.
    #[arg(long, default_value_t = 0)]
    pub init_seed: i64,
    /// Supervised warm-up steps on the arithmetic tasks' worked solutions before sampling (0:
    /// none), as the experiments warm their byte-level agents up.
    #[arg(long, default_value_t = 0)]
    pub warmup_steps: usize,
    /// Examples per warm-up step.
    #[arg(long, default_value_t = 32)]
    pub warmup_batch: usize,
    /// Warm-up learning rate.
    #[arg(long, default_value_t = 2e-3)]
    pub warmup_lr: f64,
    /// Prompts.
    #[arg(long, value_enum, default_value_t = PromptSource::Gsm8k)]
    pub prompts: PromptSource,
    /// GSM8K JSONL (a `question` field per line).
    #[arg(long, default_value = "data/gsm8k_test.jsonl")]
    pub gsm8k: PathBuf,
    /// Responses to sample (one per prompt).
    #[arg(long, default_value_t = 64)]
    pub samples: usize,
    /// Most new tokens per response.
    #[arg(long, default_value_t = 128)]
    pub max_new_tokens: usize,
    /// Sampling temperature.
    #[arg(long, default_value_t = 1.0)]
    pub temperature: f64,
    /// Nucleus sampling mass.
    #[arg(long, default_value_t = 1.0)]
    pub top_p: f64,
    /// Seed of sampling (generation batch b uses seed + b).
    #[arg(long, default_value_t = 0)]
    pub seed: i64,
    /// Prompts per generation batch.
    #[arg(long, default_value_t = 16)]
    pub batch: usize,
    /// Device: `cpu`, `cuda` or `cuda:N`.
    #[arg(long, default_value = "cpu", value_parser = parse_device)]
    pub device: Device,
    /// libtorch intra-op threads (0: libtorch's default).
    #[arg(long, default_value_t = 0)]
    pub threads: i32,
    /// The JSON report.
    #[arg(long)]
    pub out: PathBuf,
}

/// Arguments of [`Part::Encode`].
#[derive(Args, Debug, Clone)]
pub struct EncodeArgs {
    /// Model directory or `.gguf` file (its tokenizer.json), or a tokenizer directory.
    #[arg(long)]
    pub model: PathBuf,
    /// JSONL corpus: one JSON string, or object with a `text` field, per line.
    #[arg(long)]
    pub corpus: PathBuf,
    /// Output JSONL, one line per corpus line.
    #[arg(long)]
    pub out: PathBuf,
}

/// Why a sample's re-encoded ids differ from its sampled ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    /// Same ids.
    Exact,
    /// Nothing sampled but the stop token: nothing to score (the trainer skips it too).
    Empty,
    /// The sampled ids hold a special token that decoding dropped.
    SpecialDropped,
    /// The text holds U+FFFD: ids whose bytes are not valid UTF-8, decoded lossily (or a NUL,
    /// which responses store as U+FFFD).
    LossyDecode,
    /// Decoding the re-encoded ids does not give the text back: the tokenizer changes text.
    TextChanged,
    /// Same text, other ids: the model sampled a segmentation its encoder does not produce.
    NonCanonical,
}

/// Where the sampled and re-encoded ids first part.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Divergence {
    /// Index of the first differing id.
    pub position: usize,
    /// Up to 6 sampled tokens from there, each decoded alone.
    pub sampled: Vec<String>,
    /// Up to 6 re-encoded tokens from there, each decoded alone.
    pub reencoded: Vec<String>,
}

/// One sample's round trip.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SampleRecord {
    /// Index of the prompt.
    pub prompt: usize,
    /// Why generation ended.
    pub finish_reason: FinishReason,
    /// The response text, as cross samples carry it.
    pub text: String,
    /// UTF-8 bytes of `text`.
    pub bytes: usize,
    /// The sampled ids, stop token excluded.
    pub sampled_ids: Vec<i64>,
    /// `text` re-encoded by the learner path.
    pub reencoded_ids: Vec<i64>,
    /// Why the two differ (or `exact`).
    pub cause: Cause,
    /// Where they first differ.
    pub divergence: Option<Divergence>,
    /// Summed log-prob of the sampled ids (`score_ids`); `None` when nothing is scored.
    pub logprob_sampled: Option<f64>,
    /// Summed log-prob of the re-encoded ids.
    pub logprob_reencoded: Option<f64>,
    /// Mean log-prob of the sampled ids as the sampler recorded it (KV cache).
    pub sampler_mean_logprob: Option<f64>,
    /// exp(ℓ_re − ℓ_sampled), ℓ the token mean over each sequence's own tokens.
    pub ratio_per_token: Option<f64>,
    /// exp((Σ_re − Σ_sampled) / bytes).
    pub ratio_per_byte: Option<f64>,
}

impl SampleRecord {
    /// Whether both sequences were scored.
    pub fn scored(&self) -> bool {
        self.ratio_per_token.is_some()
    }
}

/// Summed log-prob of `response` after `prompt` under `policy`, scored alone (no padding).
fn summed_logprob(policy: &Policy, prompt: &[i64], response: &[i64]) -> Result<f64> {
    let scores = tch::no_grad(|| policy.score_ids(&[(prompt.to_vec(), response.to_vec())]))?;
    Ok(scores
        .token_logprobs
        .sum(Kind::Double)
        .to_device(Device::Cpu)
        .double_value(&[]))
}

fn pieces(tok: &Tokenizer, ids: &[i64]) -> Result<Vec<String>> {
    ids.iter()
        .take(6)
        .map(|&id| tok.decode(&[id], false))
        .collect()
}

/// Decodes, re-encodes and scores one of `policy`'s own generations.
pub fn check(policy: &Policy, prompt: usize, g: &Generation) -> Result<SampleRecord> {
    let tok = policy.tokenizer();
    let sampled = g.response_ids().to_vec();
    let text = g.text.clone();
    let reencoded = policy.encode_response(&text, false)?;
    let cause = if sampled.is_empty() {
        Cause::Empty
    } else if sampled == reencoded {
        Cause::Exact
    } else if tok.decode(&sampled, false)?.replace('\0', "\u{FFFD}") != text {
        Cause::SpecialDropped
    } else if text.contains('\u{FFFD}') {
        Cause::LossyDecode
    } else if tok.decode(&reencoded, true)? != text {
        Cause::TextChanged
    } else {
        Cause::NonCanonical
    };
    let divergence = match sampled.iter().zip(&reencoded).position(|(a, b)| a != b) {
        _ if sampled == reencoded => None,
        Some(p) => Some(p),
        None => Some(sampled.len().min(reencoded.len())),
    }
    .map(|p| -> Result<Divergence> {
        Ok(Divergence {
            position: p,
            sampled: pieces(tok, &sampled[p..])?,
            reencoded: pieces(tok, &reencoded[p..])?,
        })
    })
    .transpose()?;
    let mut record = SampleRecord {
        prompt,
        finish_reason: g.sampled.finish_reason,
        bytes: text.len(),
        text,
        sampled_ids: sampled,
        reencoded_ids: reencoded,
        cause,
        divergence,
        logprob_sampled: None,
        logprob_reencoded: None,
        sampler_mean_logprob: None,
        ratio_per_token: None,
        ratio_per_byte: None,
    };
    if record.sampled_ids.is_empty() || record.reencoded_ids.is_empty() {
        return Ok(record);
    }
    let n = record.sampled_ids.len();
    let sampled_sum = summed_logprob(policy, &g.prompt_ids, &record.sampled_ids)?;
    // The scorer is deterministic (one sequence, no padding): the same ids score the same, so
    // ids that came back unchanged are scored once.
    let re_sum = if record.reencoded_ids == record.sampled_ids {
        sampled_sum
    } else {
        summed_logprob(policy, &g.prompt_ids, &record.reencoded_ids)?
    };
    let sampler: f64 = g.sampled.logprobs[..n].iter().map(|&x| f64::from(x)).sum();
    let (ns, nr) = (n as f64, record.reencoded_ids.len() as f64);
    record.logprob_sampled = Some(sampled_sum);
    record.logprob_reencoded = Some(re_sum);
    record.sampler_mean_logprob = Some(sampler / ns);
    record.ratio_per_token = Some((re_sum / nr - sampled_sum / ns).exp());
    record.ratio_per_byte = Some(((re_sum - sampled_sum) / record.bytes.max(1) as f64).exp());
    Ok(record)
}

/// Samples one response per message (batches of `batch`, batch b seeded `params.seed + b`) and
/// checks each.
pub fn round_trip(
    policy: &Policy,
    messages: &[String],
    params: &SamplingParams,
    batch: usize,
) -> Result<Vec<SampleRecord>> {
    ensure!(batch > 0, "batch must be positive");
    let mut records = Vec::with_capacity(messages.len());
    for (b, chunk) in messages.chunks(batch).enumerate() {
        let p = SamplingParams {
            seed: params.seed.map(|s| s + b as i64),
            ..params.clone()
        };
        let gens = tch::no_grad(|| policy.generate(chunk, &p))?;
        for (i, g) in gens.iter().enumerate() {
            records.push(check(policy, b * batch + i, g)?);
        }
        tracing::info!(
            done = records.len(),
            total = messages.len(),
            "sampled, re-encoded and scored"
        );
    }
    Ok(records)
}

/// The arithmetic tasks of arith-shared (`experiments/arith-shared/experiment.toml`).
pub fn arith_spec() -> ArithSpec {
    ArithSpec {
        seed: 2026,
        train: 3000,
        test: 1000,
        validation: 0,
        min_ops: 1,
        max_ops: 3,
        max_operand: 9,
    }
}

/// Supervised warm-up on [`arith_spec`]'s worked solutions; the loss of every step.
pub fn warm_up(
    policy: &mut Policy,
    steps: usize,
    batch: usize,
    lr: f64,
    seed: u64,
) -> Result<Vec<f64>> {
    let examples: Vec<TextPair> = arith::generate(&arith_spec())
        .train
        .into_iter()
        .map(|p| TextPair {
            prompt: p.prompt,
            response: p.solution,
            ends_turn: true,
        })
        .collect();
    supervised(
        policy,
        &examples,
        &SftConfig {
            steps,
            batch_size: batch,
            lr,
            seed,
        },
        None,
    )
}

/// The first `n` prompts of a source.
pub fn prompts(source: PromptSource, gsm8k: &Path, n: usize) -> Result<Vec<String>> {
    let out: Vec<String> = match source {
        PromptSource::Arith => arith::generate(&arith_spec())
            .test
            .into_iter()
            .take(n)
            .map(|p| p.prompt)
            .collect(),
        PromptSource::Gsm8k => {
            let file = std::fs::File::open(gsm8k)
                .with_context(|| format!("cannot open {}", gsm8k.display()))?;
            std::io::BufReader::new(file)
                .lines()
                .take(n)
                .map(|line| {
                    let v: Value = serde_json::from_str(&line?)?;
                    v["question"]
                        .as_str()
                        .map(str::to_owned)
                        .context("a GSM8K line without a question")
                })
                .collect::<Result<_>>()?
        }
    };
    ensure!(out.len() == n, "only {} prompts, {n} asked for", out.len());
    Ok(out)
}

/// Linear-interpolation quantile of sorted values.
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let pos = q * (sorted.len() - 1) as f64;
    let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

/// The distribution of ratios: quantiles, mean, and the shares within 1 % of 1 and below it.
pub fn spread(values: &[f64]) -> Value {
    if values.is_empty() {
        return Value::Null;
    }
    let mut s = values.to_vec();
    s.sort_by(f64::total_cmp);
    let n = s.len() as f64;
    let share = |f: &dyn Fn(f64) -> bool| s.iter().filter(|&&x| f(x)).count() as f64 / n;
    json!({
        "min": s[0],
        "p25": quantile(&s, 0.25),
        "median": quantile(&s, 0.5),
        "p75": quantile(&s, 0.75),
        "max": s[s.len() - 1],
        "mean": s.iter().sum::<f64>() / n,
        "within_1pct": share(&|x| (0.99..=1.01).contains(&x)),
        "below_0_99": share(&|x| x < 0.99),
        "above_1_01": share(&|x| x > 1.01),
    })
}

/// The report's summary of the records.
pub fn summary(records: &[SampleRecord]) -> Value {
    let scored: Vec<&SampleRecord> = records.iter().filter(|r| r.scored()).collect();
    let mut causes = serde_json::Map::new();
    for r in records {
        let key = serde_json::to_value(r.cause)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default();
        let entry = causes.entry(key).or_insert(json!(0));
        *entry = json!(entry.as_u64().unwrap_or(0) + 1);
    }
    let pick = |f: fn(&SampleRecord) -> Option<f64>| -> Vec<f64> {
        scored.iter().filter_map(|r| f(r)).collect()
    };
    let n = scored.len().max(1) as f64;
    let mean_of = |f: &dyn Fn(&SampleRecord) -> f64| scored.iter().map(|r| f(r)).sum::<f64>() / n;
    let non_exact: Vec<&SampleRecord> = scored
        .iter()
        .copied()
        .filter(|r| r.cause != Cause::Exact)
        .collect();
    let sampler_gap = scored
        .iter()
        .filter_map(|r| {
            Some((r.sampler_mean_logprob? - r.logprob_sampled? / r.sampled_ids.len() as f64).abs())
        })
        .fold(0.0, f64::max);
    json!({
        "samples": records.len(),
        "scored": scored.len(),
        "exact_id_share": scored.iter().filter(|r| r.cause == Cause::Exact).count() as f64 / n,
        "causes": causes,
        "ratio_per_token": spread(&pick(|r| r.ratio_per_token)),
        "ratio_per_byte": spread(&pick(|r| r.ratio_per_byte)),
        "non_exact_ratio_per_token": spread(&non_exact.iter().filter_map(|r| r.ratio_per_token).collect::<Vec<_>>()),
        "mean_sampled_tokens": mean_of(&|r| r.sampled_ids.len() as f64),
        "mean_reencoded_tokens": mean_of(&|r| r.reencoded_ids.len() as f64),
        "mean_bytes": mean_of(&|r| r.bytes as f64),
        "max_abs_sampler_vs_scorer_mean_logprob": sampler_gap,
    })
}

fn load_policy(a: &SampleArgs) -> Result<Policy> {
    if a.device.is_cuda() {
        ensure!(
            crate::cuda::load_backend().unwrap_or(false),
            "CUDA requested but not usable"
        );
    }
    if a.model.extension().is_some_and(|e| e == "json") {
        let dir = a
            .tokenizer
            .as_ref()
            .context("a config.json model needs --tokenizer")?;
        let cfg: Value = serde_json::from_str(
            &std::fs::read_to_string(&a.model)
                .with_context(|| format!("reading {}", a.model.display()))?,
        )?;
        Policy::from_config(
            cfg,
            &crate::gguf::model_dir(dir)?,
            a.device,
            crate::policy::default_kind(a.device),
            a.init_seed,
        )
    } else {
        Policy::load(&a.model, a.device)
    }
}

/// `trainer roundtrip sample`.
pub fn sample(a: &SampleArgs) -> Result<Value> {
    if a.threads > 0 {
        tch::set_num_threads(a.threads);
    }
    let start = Instant::now();
    let mut policy =
        load_policy(a).with_context(|| format!("cannot load model {}", a.model.display()))?;
    let load_secs = start.elapsed().as_secs_f64();
    let warmup = if a.warmup_steps > 0 {
        let t = Instant::now();
        let losses = warm_up(&mut policy, a.warmup_steps, a.warmup_batch, a.warmup_lr, 0)?;
        let tail = &losses[losses.len().saturating_sub(50)..];
        json!({"steps": a.warmup_steps, "batch": a.warmup_batch, "lr": a.warmup_lr,
            "data": "arith-shared's training split (seed 2026), worked solutions",
            "last50_mean_loss": tail.iter().sum::<f64>() / tail.len() as f64,
            "secs": t.elapsed().as_secs_f64()})
    } else {
        Value::Null
    };
    let messages = prompts(a.prompts, &a.gsm8k, a.samples)?;
    let params = SamplingParams {
        max_new_tokens: a.max_new_tokens,
        temperature: a.temperature,
        top_p: a.top_p,
        seed: Some(a.seed),
        ..SamplingParams::default()
    };
    let t = Instant::now();
    let records = round_trip(&policy, &messages, &params, a.batch)?;
    let report = json!({
        "model": a.model.display().to_string(),
        "tokenizer": a.tokenizer.as_ref().map(|p| p.display().to_string()),
        "init_seed": a.tokenizer.as_ref().map(|_| a.init_seed),
        "model_type": policy.model().config().model_type,
        "vocab_size": policy.tokenizer().vocab_size(),
        "tokenizer_fingerprint": policy.tokenizer_fingerprint(),
        "device": format!("{:?}", a.device),
        "threads": tch::get_num_threads(),
        "warmup": warmup,
        "settings": {"prompts": a.prompts, "samples": a.samples, "max_new_tokens": a.max_new_tokens,
            "temperature": a.temperature, "top_p": a.top_p, "seed": a.seed, "batch": a.batch,
            "reencode": "Policy::encode_response(text, false)", "score": "Policy::score_ids, one sequence at a time; unchanged ids scored once"},
        "summary": summary(&records),
        "secs": {"load": load_secs, "sample_and_score": t.elapsed().as_secs_f64()},
        "prompts": messages,
        "records": records,
    });
    if let Some(dir) = a.out.parent() {
        std::fs::create_dir_all(dir).ok();
    }
    std::fs::write(&a.out, serde_json::to_string_pretty(&report)? + "\n")
        .with_context(|| format!("cannot write {}", a.out.display()))?;
    Ok(report)
}

/// `trainer roundtrip encode`.
pub fn encode(a: &EncodeArgs) -> Result<usize> {
    let dir = crate::gguf::model_dir(&a.model)?;
    let tok = Tokenizer::from_file(&dir.join("tokenizer.json"))?;
    let file = std::fs::File::open(&a.corpus)
        .with_context(|| format!("cannot open {}", a.corpus.display()))?;
    let mut out = std::io::BufWriter::new(
        std::fs::File::create(&a.out)
            .with_context(|| format!("cannot create {}", a.out.display()))?,
    );
    let mut n = 0;
    for line in std::io::BufReader::new(file).lines() {
        let v: Value = serde_json::from_str(&line?)?;
        let text = match &v {
            Value::String(s) => s.as_str(),
            other => other["text"]
                .as_str()
                .context("a corpus line without text")?,
        };
        // What `Policy::encode_response(text, false)` gives.
        let ids = tok.encode(text, false)?;
        writeln!(
            out,
            "{}",
            json!({"ids": ids, "decoded": tok.decode(&ids, false)?})
        )?;
        n += 1;
    }
    out.flush()?;
    Ok(n)
}

/// `trainer roundtrip`.
pub fn run(part: Part) -> Result<()> {
    match part {
        Part::Sample(a) => {
            let report = sample(&a)?;
            println!("{}", serde_json::to_string_pretty(&report["summary"])?);
        }
        Part::Encode(a) => {
            let n = encode(&a)?;
            println!("{n} strings encoded into {}", a.out.display());
        }
    }
    Ok(())
}
