//! The overlap gate, checked before any RL: how likely is each agent's text under the other?
//! Each agent samples responses to training prompts; every other agent scores them, and
//! s = exp(ℓ_scorer − ℓ_author) is the cross ratio HACPO would start from. Under the paper's
//! rule cross samples carry gradient only inside the window [1 − δ, 1], so agents whose ratios
//! mostly fall outside it share nothing: `trainer experiment` checks its pre-registered gate,
//! and `trainer run` says, per pair, what share would carry gradient under each cross rule
//! ([`CrossRule`]) and warns where the configured one leaves sharing idle.

use anyhow::{Result, ensure};
use serde::{Deserialize, Serialize};
use tch::{Device, Kind};

use crate::generation::SamplingParams;
use crate::hacpo::{CrossRatio, CrossRule};
use crate::policy::{Generation, Policy};

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
    /// The fraction that would carry gradient under each cross rule (absent in gates stored
    /// before the rules existed).
    #[serde(default)]
    pub carrying: Option<RuleShares>,
}

/// The fraction of cross samples that would carry gradient under each [`CrossRule`], from one
/// set of ratios s and the window's lower bound.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RuleShares {
    /// s in [lower, 1].
    pub window: f64,
    /// s / median(s) in [lower, 1]: the calibrated rule once its offset has settled on this
    /// pair's typical ratio.
    pub calibrated: f64,
    /// s ≤ 1: truncated weights without a lower cut-off.
    pub truncated: f64,
}

impl RuleShares {
    /// The shares of `s` (empty: all zero).
    pub fn of(s: &[f64], lower: f64) -> Self {
        let n = s.len().max(1) as f64;
        let share = |f: &dyn Fn(f64) -> bool| s.iter().filter(|&&x| f(x)).count() as f64 / n;
        let median = quantiles(s.to_vec())[2];
        Self {
            window: share(&|x| (lower..=1.0).contains(&x)),
            calibrated: share(&|x| (lower..=1.0).contains(&(x / median))),
            truncated: share(&|x| x <= 1.0),
        }
    }

    /// The share under `rule`.
    pub fn under(&self, rule: CrossRule) -> f64 {
        match rule {
            CrossRule::Window => self.window,
            CrossRule::Calibrated => self.calibrated,
            CrossRule::Truncated => self.truncated,
        }
    }

    /// The rule that would let the most cross samples carry gradient.
    pub fn best(&self) -> CrossRule {
        [
            CrossRule::Window,
            CrossRule::Calibrated,
            CrossRule::Truncated,
        ]
        .into_iter()
        .max_by(|a, b| self.under(*a).total_cmp(&self.under(*b)))
        .unwrap_or_default()
    }
}

/// Below this share of cross samples carrying gradient, sharing between two agents does
/// nothing worth its cost, and the run says so.
pub const IDLE_SHARE: f64 = 0.05;

/// One line per pair in `report`'s unit: the share that would carry gradient under each rule;
/// and, where the configured `rule` leaves under [`IDLE_SHARE`], a line saying that sharing
/// between those agents will do nothing and which rule would. Returns the warnings.
pub fn announce(report: &GateReport, rule: CrossRule) -> Vec<String> {
    let mut warnings = Vec::new();
    for p in report.pairs.iter().filter(|p| p.unit == report.unit) {
        let Some(c) = p.carrying else { continue };
        tracing::info!(
            "gate {} -> {}: cross samples carrying gradient under window {:.1}%, calibrated {:.1}%, truncated {:.1}% (median s {:.3}; this run: {})",
            p.author,
            p.scorer,
            100.0 * c.window,
            100.0 * c.calibrated,
            100.0 * c.truncated,
            p.quantiles[2],
            rule_name(rule)
        );
        if c.under(rule) < IDLE_SHARE {
            let best = c.best();
            let line = format!(
                "sharing {} -> {} will do nothing under cross_rule = \"{}\": {:.1}% of {}'s samples would carry gradient for {}; cross_rule = \"{}\" would give {:.1}%",
                p.author,
                p.scorer,
                rule_name(rule),
                100.0 * c.under(rule),
                p.author,
                p.scorer,
                rule_name(best),
                100.0 * c.under(best)
            );
            tracing::warn!("{line}");
            warnings.push(line);
        }
    }
    warnings
}

/// The rule's name as the TOML writes it.
fn rule_name(rule: CrossRule) -> &'static str {
    match rule {
        CrossRule::Window => "window",
        CrossRule::Calibrated => "calibrated",
        CrossRule::Truncated => "truncated",
    }
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

/// Runs the gate on `agents` (name, policy) with `prompts` (user messages).
pub fn overlap_gate(
    agents: &[(String, &Policy)],
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
    let carrying = Some(RuleShares::of(&s, lower));
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
        carrying,
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

/// The 10/25/50/75/90% quantiles (nearest rank) of `v`, NaN when it is empty: how cross ratios
/// are summarised wherever they are reported (step metrics, the overlap gate).
pub fn quantiles(mut v: Vec<f64>) -> [f64; 5] {
    v.sort_by(f64::total_cmp);
    let last = v.len().saturating_sub(1) as f64;
    [0.1, 0.25, 0.5, 0.75, 0.9].map(|q| {
        v.get((last * q).round() as usize)
            .copied()
            .unwrap_or(f64::NAN)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_are_nearest_rank() {
        let v: Vec<f64> = (0..=10).rev().map(f64::from).collect();
        assert_eq!(quantiles(v), [1.0, 3.0, 5.0, 8.0, 9.0]);
        assert_eq!(quantiles(vec![0.5]), [0.5; 5]);
        assert!(quantiles(Vec::new()).iter().all(|q| q.is_nan()));
    }

    fn pair(s: &[f64]) -> GatePair {
        GatePair {
            author: "gemma".into(),
            scorer: "smollm2".into(),
            unit: CrossRatio::PerToken,
            samples: s.len(),
            below: 0.0,
            inside: 0.0,
            above: 0.0,
            quantiles: quantiles(s.to_vec()),
            carrying: Some(RuleShares::of(s, 0.8)),
        }
    }

    /// Ratios like the real pair's (median 0.08–0.4): nothing in the window, most of them
    /// within reach of the calibrated window, all but the one above 1 for truncated weights.
    #[test]
    fn a_pair_far_below_the_window_is_announced_idle_with_the_rule_that_would_share() {
        let s = [0.05, 0.1, 0.2, 0.25, 0.3, 0.3, 0.35, 0.5, 0.6, 1.5];
        let c = RuleShares::of(&s, 0.8);
        assert_eq!(c.window, 0.0);
        assert_eq!(c.truncated, 0.9);
        // median 0.3 (nearest rank): s / 0.3 in [0.8, 1] for 0.25, 0.3, 0.3.
        assert!((c.calibrated - 0.3).abs() < 1e-12, "{c:?}");
        assert_eq!(c.best(), CrossRule::Truncated);
        let report = GateReport {
            window: (0.8, 1.0),
            unit: CrossRatio::PerToken,
            spec: GateSpec {
                prompts: 1,
                group_size: 10,
                min_inside: 0.5,
            },
            warmups: Vec::new(),
            pairs: vec![pair(&s), pair(&[0.85, 0.9, 0.95, 1.0])],
            passed: false,
            ignored: false,
        };
        let warnings = announce(&report, CrossRule::Window);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("will do nothing under cross_rule = \"window\""));
        assert!(warnings[0].contains("cross_rule = \"truncated\" would give 90.0%"));
        assert!(announce(&report, CrossRule::Truncated).is_empty());
    }
}
