//! The cross ratio s between two real models, raw: each model samples G responses to arithmetic
//! word problems; both models score every response (the author on its sampled ids, the other on
//! the text re-encoded with its own tokenizer and chat template, as the HACPO learner does), and
//! s = exp(ℓ_scorer − ℓ_author) per token and per UTF-8 byte — the quantity
//! `trainer::experiment::gate` summarises, here one JSON line per response.
//!
//! `cargo run --release -p trainer --example gate_pair -- OUT_DIR [G] [MAX_NEW_TOKENS]`
//! writes OUT_DIR/samples.jsonl and OUT_DIR/summary.json for Gemma 3 270M and SmolLM2-135M.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context, Result};
use serde_json::json;
use tch::{Device, Kind};
use trainer::gate::{RuleShares, WindowSpread};
use trainer::{Generation, Policy, SamplingParams};

/// Arithmetic word problems with their answers.
const PROBLEMS: [(&str, i64); 8] = [
    (
        "Tom has 7 apples and buys 5 more. How many apples does he have?",
        12,
    ),
    ("A box holds 6 eggs. How many eggs are in 4 boxes?", 24),
    (
        "Sara had 20 stickers and gave 8 to her friend. How many stickers does she have left?",
        12,
    ),
    (
        "There are 3 cars with 4 wheels each. How many wheels are there in total?",
        12,
    ),
    (
        "A baker made 45 cookies and packed them into bags of 9. How many bags did he fill?",
        5,
    ),
    (
        "Ben reads 12 pages a day. How many pages does he read in 5 days?",
        60,
    ),
    (
        "A train has 9 carriages with 30 seats each. How many seats does the train have?",
        270,
    ),
    (
        "Mia saved 15 dollars in May and 27 dollars in June. How much did she save in total?",
        42,
    ),
];

/// Summed log-prob of each (prompt, response) pair under `scorer`.
fn summed_logprobs(scorer: &Policy, pairs: &[(Vec<i64>, Vec<i64>)]) -> Result<Vec<f64>> {
    let mut out = Vec::with_capacity(pairs.len());
    for chunk in pairs.chunks(8) {
        let s = tch::no_grad(|| scorer.score_ids(chunk))?;
        out.extend(Vec::<f64>::try_from(
            s.token_logprobs
                .sum_dim_intlist(-1, false, Kind::Double)
                .to_device(Device::Cpu),
        )?);
    }
    Ok(out)
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let out_dir = PathBuf::from(
        args.first()
            .context("usage: gate_pair OUT_DIR [G] [MAX_NEW]")?,
    );
    let g: usize = args.get(1).map_or(Ok(4), |s| s.parse())?;
    let max_new: usize = args.get(2).map_or(Ok(96), |s| s.parse())?;
    tch::set_num_threads(1);
    let cache = trainer::gguf::default_cache_root();
    let models = [
        ("gemma3-270m", trainer::gemma3_gguf_path()),
        ("smollm2-135m", trainer::smollm2_gguf_path()),
    ];
    let policies = models
        .iter()
        .map(|(name, gguf)| {
            let dir = trainer::gguf::import_cached(gguf, &cache)?;
            Ok((*name, Policy::load(&dir, Device::Cpu)?))
        })
        .collect::<Result<Vec<_>>>()?;
    std::fs::create_dir_all(&out_dir)?;
    let mut lines = std::fs::File::create(out_dir.join("samples.jsonl"))?;
    let mut summary = Vec::new();
    let messages: Vec<String> = PROBLEMS
        .iter()
        .flat_map(|(q, _)| std::iter::repeat_n(format!("{q} Give the answer as a number."), g))
        .collect();
    for (a, (author, policy)) in policies.iter().enumerate() {
        let params = SamplingParams {
            max_new_tokens: max_new,
            seed: Some(0x6A7E + a as i64),
            ..SamplingParams::default()
        };
        let start = std::time::Instant::now();
        let gens: Vec<Generation> = tch::no_grad(|| policy.generate(&messages, &params))?;
        eprintln!(
            "{author}: {} responses in {:.1} s",
            gens.len(),
            start.elapsed().as_secs_f64()
        );
        let kept: Vec<(usize, &Generation)> = gens
            .iter()
            .enumerate()
            .filter(|(_, g)| !g.response_ids().is_empty())
            .collect();
        let own_pairs: Vec<_> = kept
            .iter()
            .map(|(_, g)| (g.prompt_ids.clone(), g.response_ids().to_vec()))
            .collect();
        let own = summed_logprobs(policy, &own_pairs)?;
        for (scorer_name, scorer) in policies.iter().filter(|(n, _)| n != author) {
            let pairs = kept
                .iter()
                .map(|(i, g)| {
                    Ok((
                        scorer.encode_prompt(&messages[*i])?,
                        scorer.encode_response(&g.text, false)?,
                    ))
                })
                .collect::<Result<Vec<_>>>()?;
            let theirs = summed_logprobs(scorer, &pairs)?;
            let (mut per_token, mut per_byte) = (vec![], vec![]);
            for (k, (i, response)) in kept.iter().enumerate() {
                let (ta, ts) = (own_pairs[k].1.len().max(1), pairs[k].1.len().max(1));
                let bytes = response.text.len().max(1);
                // The gate's clamp of ℓ_scorer − ℓ_author to ±10 (s in [e^-10, e^10]).
                let s_tok = (theirs[k] / ts as f64 - own[k] / ta as f64)
                    .clamp(-10.0, 10.0)
                    .exp();
                let s_byte = ((theirs[k] - own[k]) / bytes as f64)
                    .clamp(-10.0, 10.0)
                    .exp();
                per_token.push(s_tok);
                per_byte.push(s_byte);
                let answer = PROBLEMS[i / g].1;
                writeln!(
                    lines,
                    "{}",
                    json!({"author": author, "scorer": scorer_name, "prompt": i / g, "sample": i % g,
                        "text": response.text, "correct_in_text": response.text.contains(&answer.to_string()),
                        "author_tokens": ta, "scorer_tokens": ts, "bytes": bytes,
                        "author_logprob_sum": own[k], "scorer_logprob_sum": theirs[k],
                        "s_per_token": s_tok, "s_per_byte": s_byte})
                )?;
            }
            for (unit, s) in [("per_token", per_token), ("per_byte", per_byte)] {
                summary.push(
                    json!({"author": author, "scorer": scorer_name, "unit": unit,
                    "samples": s.len(), "window": [0.8, 1.0], "stats": stats(s)}),
                );
            }
        }
    }
    std::fs::write(
        out_dir.join("summary.json"),
        serde_json::to_string_pretty(&json!({"group_size": g, "max_new_tokens": max_new,
            "temperature": 1.0, "prompts": PROBLEMS.len(), "pairs": summary}))?,
    )?;
    Ok(())
}

/// Fractions below, inside and above the window [0.8, 1], quantiles of s, and the share each
/// cross rule would let carry gradient, as the gate summarises them.
fn stats(s: Vec<f64>) -> serde_json::Value {
    let carrying = RuleShares::of(&s, 0.8);
    let w = WindowSpread::of(s, 0.8);
    let [p10, p25, p50, p75, p90] = w.quantiles;
    json!({
        "below": w.below,
        "inside": w.inside,
        "above": w.above,
        "quantiles": {"p10": p10, "p25": p25, "p50": p50, "p75": p75, "p90": p90},
        "carrying": carrying,
    })
}
