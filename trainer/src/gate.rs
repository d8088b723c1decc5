//! The pre-registered overlap gate, checked before any RL: how likely is each agent's text under
//! the other? Each warmed-up agent samples responses to training prompts; every other agent
//! scores them, and s = exp(ℓ_scorer − ℓ_author) is the cross ratio HACPO would start from. Cross
//! samples carry gradient only inside the window [1 − δ, 1], so an experiment whose agents mostly
//! fall outside it cannot test HACPO: the gate says so before hours are spent.

use anyhow::{Result, ensure};
use serde::{Deserialize, Serialize};
use tch::{Device, Kind};

use crate::generation::SamplingParams;
use crate::hacpo::CrossRatio;
use crate::policy::{Generation, Policy};
use crate::train::quantiles;

/// Gate settings (`[experiment.gate]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateSpec {
    /// Training prompts each agent answers.
    pub prompts: usize,
    /// Responses per prompt.
    #[serde(default = "four")]
    pub group_size: usize,
    /// Every (author, scorer) pair needs at least this fraction of s inside the window.
    #[serde(default = "half")]
    pub min_inside: f64,
}

fn four() -> usize {
    4
}
fn half() -> f64 {
    0.5
}

/// The distribution of s for one author's responses under one scorer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GatePair {
    /// Agent that wrote the responses.
    pub author: String,
    /// Agent that scored them (the would-be learner).
    pub scorer: String,
    /// Unit of ℓ in s.
    pub unit: CrossRatio,
    /// Responses scored (empty ones are left out).
    pub samples: usize,
    /// Fraction with s below 1 − δ.
    pub below: f64,
    /// Fraction with s in [1 − δ, 1].
    pub inside: f64,
    /// Fraction with s above 1.
    pub above: f64,
    /// The 10th, 25th, 50th, 75th and 90th percentiles of s.
    pub quantiles: [f64; 5],
}

/// The gate's outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GateReport {
    /// The window [1 − δ, 1].
    pub window: (f64, f64),
    /// The unit the run's cross ratios use: the gate is decided on its pairs.
    pub unit: CrossRatio,
    /// The settings.
    pub spec: GateSpec,
    /// Each agent's warm-up settings (its `warmup.json`): a gate holds for these warm-ups only.
    #[serde(default)]
    pub warmups: Vec<serde_json::Value>,
    /// One entry per ordered pair of agents and unit (per token, then per byte).
    pub pairs: Vec<GatePair>,
    /// Every pair met `min_inside`.
    pub passed: bool,
    /// It failed and the arms ran anyway (`--ignore-gate`).
    #[serde(default)]
    pub ignored: bool,
}

/// One scored response: ℓ's numerator (summed token log-prob) and its token count and bytes.
struct Scored {
    sum: f64,
    tokens: usize,
    bytes: usize,
}

impl Scored {
    fn ell(&self, unit: CrossRatio) -> f64 {
        self.sum / unit.normaliser(self.tokens, self.bytes)
    }
}

/// Runs the gate on `agents` (name, warmed-up policy) with `prompts` (user messages).
pub fn overlap_gate(
    agents: &[(String, Policy)],
    prompts: &[String],
    spec: &GateSpec,
    max_new_tokens: usize,
    lower: f64,
    unit: CrossRatio,
) -> Result<GateReport> {
    ensure!(spec.prompts > 0 && spec.group_size > 0, "an empty gate");
    let messages: Vec<String> = prompts
        .iter()
        .take(spec.prompts)
        .flat_map(|p| std::iter::repeat_n(p.clone(), spec.group_size))
        .collect();
    let mut pairs = Vec::new();
    for (a, (author, policy)) in agents.iter().enumerate() {
        let params = SamplingParams {
            max_new_tokens,
            seed: Some(0x6A7E + a as i64),
            ..SamplingParams::default()
        };
        let generated = tch::no_grad(|| policy.generate(&messages, &params))?;
        let gens: Vec<(&str, &Generation)> = messages
            .iter()
            .map(String::as_str)
            .zip(&generated)
            .filter(|(_, g)| !g.response_ids().is_empty())
            .collect();
        let own = score(policy, policy, &gens)?;
        for (scorer, other) in agents.iter().filter(|(n, _)| n != author) {
            let theirs = score(other, policy, &gens)?;
            for u in [CrossRatio::PerToken, CrossRatio::PerByte] {
                pairs.push(distribution(author, scorer, u, &own, &theirs, lower));
            }
        }
    }
    let passed = pairs
        .iter()
        .filter(|p| p.unit == unit)
        .all(|p| p.inside >= spec.min_inside);
    Ok(GateReport {
        window: (lower, 1.0),
        unit,
        spec: spec.clone(),
        warmups: Vec::new(),
        pairs,
        passed,
        ignored: false,
    })
}

/// Where s = exp(ℓ_scorer − ℓ_author) in `unit` falls relative to [lower, 1].
fn distribution(
    author: &str,
    scorer: &str,
    unit: CrossRatio,
    own: &[Scored],
    theirs: &[Scored],
    lower: f64,
) -> GatePair {
    let s: Vec<f64> = own
        .iter()
        .zip(theirs)
        .map(|(o, t)| (t.ell(unit) - o.ell(unit)).clamp(-10.0, 10.0).exp())
        .collect();
    let w = WindowSpread::of(s, lower);
    GatePair {
        author: author.to_string(),
        scorer: scorer.to_string(),
        unit,
        samples: w.samples,
        below: w.below,
        inside: w.inside,
        above: w.above,
        quantiles: w.quantiles,
    }
}

/// Where cross ratios s fall relative to the window [lower, 1], and their quantiles.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindowSpread {
    /// How many ratios.
    pub samples: usize,
    /// Fraction below `lower`.
    pub below: f64,
    /// Fraction in [lower, 1].
    pub inside: f64,
    /// Fraction above 1.
    pub above: f64,
    /// 10/25/50/75/90% quantiles (`train::quantiles`).
    pub quantiles: [f64; 5],
}

impl WindowSpread {
    /// The spread of `s` around [lower, 1].
    pub fn of(s: Vec<f64>, lower: f64) -> Self {
        let n = s.len().max(1) as f64;
        let frac = |f: &dyn Fn(f64) -> bool| s.iter().filter(|&&x| f(x)).count() as f64 / n;
        Self {
            samples: s.len(),
            below: frac(&|x| x < lower),
            inside: frac(&|x| (lower..=1.0).contains(&x)),
            above: frac(&|x| x > 1.0),
            quantiles: quantiles(s),
        }
    }
}

/// `gens` (sampled by `author`) scored under `scorer`: the sampled ids when both share a
/// tokenizer, the re-encoded text otherwise; the prompt in the scorer's chat template.
fn score(scorer: &Policy, author: &Policy, gens: &[(&str, &Generation)]) -> Result<Vec<Scored>> {
    let same = scorer.tokenizer_fingerprint() == author.tokenizer_fingerprint();
    let mut out = Vec::with_capacity(gens.len());
    for chunk in gens.chunks(64) {
        let pairs = chunk
            .iter()
            .map(|(message, g)| {
                let prompt = scorer.encode_prompt(message)?;
                let response = if same {
                    g.response_ids().to_vec()
                } else {
                    scorer.encode_response(&g.text, false)?
                };
                Ok((prompt, response))
            })
            .collect::<Result<Vec<_>>>()?;
        let scores = tch::no_grad(|| scorer.score_ids(&pairs))?;
        let sums = Vec::<f64>::try_from(
            &scores
                .token_logprobs
                .sum_dim_intlist(-1, false, Kind::Double)
                .to_device(Device::Cpu),
        )?;
        for (((_, g), (_, r)), sum) in chunk.iter().zip(&pairs).zip(sums) {
            out.push(Scored {
                sum,
                tokens: r.len().max(1),
                bytes: g.text.len().max(1),
            });
        }
    }
    Ok(out)
}
