//! Generation on an OpenAI-compatible serving engine (vLLM 0.32): completions asked for on
//! token ids, answered with the sampled ids and their log-probs (nothing is re-tokenised), and
//! the weight sync that makes the engine serve a trainer's new weights.
//!
//! The sync writes the policy as a safetensors checkpoint and asks the engine to reload it from
//! disk. vLLM exposes that through its development endpoints (`VLLM_SERVER_DEV_MODE=1`):
//! `/collective_rpc` with `reload_weights` (in place, from a given folder), `/reset_prefix_cache`
//! (cached prompt keys/values were computed with the old weights) and `/update_weight_version`
//! with `/weight_info`, so that the engine itself says which weights it serves.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail, ensure};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::generation::{FinishReason, Sampled, SamplingParams};

/// A blocking client of one engine serving one model.
pub struct EngineClient {
    base: String,
    model: String,
    http: reqwest::blocking::Client,
}

/// One choice of a completions answer, the fields read here.
#[derive(Debug, Deserialize)]
struct Choice {
    index: usize,
    finish_reason: Option<String>,
    token_ids: Option<Vec<i64>>,
    logprobs: Option<ChoiceLogprobs>,
}

#[derive(Debug, Deserialize)]
struct ChoiceLogprobs {
    token_logprobs: Vec<Option<f32>>,
}

impl EngineClient {
    /// A client of the engine at `url` (e.g. `http://127.0.0.1:8000`) serving `model` (the name
    /// the engine lists under `/v1/models`).
    pub fn new(url: &str, model: &str) -> Result<Self> {
        ensure!(
            url.starts_with("http://") || url.starts_with("https://"),
            "generation.url must be an http(s) URL, got `{url}`"
        );
        ensure!(!model.is_empty(), "generation.model must not be empty");
        let http = reqwest::blocking::Client::builder()
            .timeout(Duration::from_secs(3600))
            .build()?;
        Ok(Self {
            base: url.trim_end_matches('/').to_string(),
            model: model.to_string(),
            http,
        })
    }

    /// The engine's base URL.
    pub fn url(&self) -> &str {
        &self.base
    }

    /// Waits until the engine lists its model (an engine loads for minutes on a CPU), failing
    /// after `timeout` with the last error seen.
    pub fn wait_ready(&self, timeout: Duration) -> Result<()> {
        let start = Instant::now();
        loop {
            let last = match self.get("/v1/models") {
                Ok(v) => {
                    let ids: Vec<&str> = v["data"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|m| m["id"].as_str())
                        .collect();
                    if ids.contains(&self.model.as_str()) {
                        return Ok(());
                    }
                    format!("it serves {ids:?}, not `{}`", self.model)
                }
                Err(e) => format!("{e:#}"),
            };
            if start.elapsed() > timeout {
                bail!(
                    "engine at {} not ready after {timeout:?}: {last}",
                    self.base
                );
            }
            std::thread::sleep(Duration::from_secs(2));
        }
    }

    /// Samples `n` responses to each prompt (token ids, already chat-templated), prompt-major:
    /// entry `i * n + j` is prompt i's j-th. `stop_ids` end a response (kept as its last id, as
    /// [`crate::generation::sample`] does); none means the engine ignores end-of-sequence too.
    /// The log-probs are the engine's, of the raw distribution (vLLM's default
    /// `raw_logprobs`: before temperature and top-p).
    pub fn complete(
        &self,
        prompts: &[Vec<i64>],
        n: usize,
        params: &SamplingParams,
        stop_ids: &[i64],
    ) -> Result<Vec<Sampled>> {
        ensure!(n >= 1, "at least one response per prompt");
        if prompts.is_empty() {
            return Ok(Vec::new());
        }
        let mut body = json!({
            "model": self.model,
            "prompt": prompts,
            "n": n,
            "max_tokens": params.max_new_tokens,
            "temperature": params.temperature,
            "top_p": params.top_p,
            // 0: the sampled token's log-prob only.
            "logprobs": 0,
            "return_token_ids": true,
            "stop_token_ids": stop_ids,
            "ignore_eos": stop_ids.is_empty(),
        });
        if let Some(seed) = params.seed {
            // vLLM gives the j-th of n samples seed + j, so a prompt's samples differ.
            body["seed"] = json!(seed);
        }
        let answer = self.post("/v1/completions", &body)?;
        let mut choices: Vec<Choice> = serde_json::from_value(answer["choices"].clone())
            .context("decoding the engine's completions answer")?;
        ensure!(
            choices.len() == prompts.len() * n,
            "engine answered {} choices for {} prompts × {n}",
            choices.len(),
            prompts.len()
        );
        choices.sort_by_key(|c| c.index);
        choices.into_iter().map(|c| sampled(c, stop_ids)).collect()
    }

    /// The engine's log-prob of each token of `response` after `prompt` (vLLM's
    /// `prompt_logprobs` over the concatenation): how a test sees which weights it serves.
    pub fn logprobs(&self, prompt: &[i64], response: &[i64]) -> Result<Vec<f32>> {
        ensure!(
            !prompt.is_empty(),
            "an empty prompt has no context to score"
        );
        let ids: Vec<i64> = prompt.iter().chain(response).copied().collect();
        let answer = self.post(
            "/v1/completions",
            &json!({
                "model": self.model,
                "prompt": ids,
                "max_tokens": 1,
                "temperature": 0.0,
                // 0: the given token's log-prob only.
                "prompt_logprobs": 0,
            }),
        )?;
        let per_position = answer["choices"][0]["prompt_logprobs"]
            .as_array()
            .context("the engine returned no prompt_logprobs")?;
        ensure!(
            per_position.len() == ids.len(),
            "engine scored {} positions of {}",
            per_position.len(),
            ids.len()
        );
        (prompt.len()..ids.len())
            .map(|p| {
                per_position[p][ids[p].to_string()]["logprob"]
                    .as_f64()
                    .map(|l| l as f32)
                    .with_context(|| format!("no log-prob for token {} at {p}", ids[p]))
            })
            .collect()
    }

    /// Makes the engine serve the safetensors checkpoint in `dir` (a Hugging Face folder of the
    /// same architecture, readable by the engine) as weight version `version`.
    pub fn load_weights(&self, dir: &Path, version: i64) -> Result<()> {
        let path = dir
            .canonicalize()
            .with_context(|| format!("checkpoint {} for the engine", dir.display()))?;
        self.post(
            "/collective_rpc",
            &json!({
                "method": "reload_weights",
                "kwargs": { "weights_path": path.to_string_lossy() },
            }),
        )
        .context("the engine's reload_weights (is it started with VLLM_SERVER_DEV_MODE=1?)")?;
        self.post("/reset_prefix_cache", &json!({}))?;
        self.post(
            "/update_weight_version",
            &json!({ "new_version": version.to_string() }),
        )?;
        Ok(())
    }

    /// The weight version the engine says it serves (`None` before any [`Self::load_weights`]).
    pub fn weight_version(&self) -> Result<Option<i64>> {
        let v = self.get("/weight_info")?;
        match &v["weight_version"] {
            Value::Null => Ok(None),
            Value::String(s) => Ok(s.parse().ok()),
            other => bail!("unexpected weight_version {other} from the engine"),
        }
    }

    fn get(&self, path: &str) -> Result<Value> {
        let url = format!("{}{path}", self.base);
        let r = self
            .http
            .get(&url)
            .send()
            .with_context(|| format!("GET {url}"))?;
        answer(r, &url)
    }

    fn post(&self, path: &str, body: &Value) -> Result<Value> {
        let url = format!("{}{path}", self.base);
        let r = self
            .http
            .post(&url)
            .json(body)
            .send()
            .with_context(|| format!("POST {url}"))?;
        answer(r, &url)
    }
}

/// The JSON of a successful answer (an empty body is `null`); an error carries the engine's
/// message.
fn answer(r: reqwest::blocking::Response, url: &str) -> Result<Value> {
    let status = r.status();
    let text = r.text().with_context(|| format!("reading {url}"))?;
    if !status.is_success() {
        bail!("{url}: {status}: {text}");
    }
    if text.trim().is_empty() {
        return Ok(Value::Null);
    }
    serde_json::from_str(&text).with_context(|| format!("decoding the answer of {url}"))
}

/// A choice as [`Sampled`]: it ended on a stop token when its last id is one, else on length.
fn sampled(c: Choice, stop_ids: &[i64]) -> Result<Sampled> {
    let token_ids = c
        .token_ids
        .context("the engine returned no token_ids (vLLM ≥ 0.10 `return_token_ids` needed)")?;
    let logprobs = c
        .logprobs
        .context("the engine returned no logprobs")?
        .token_logprobs
        .into_iter()
        .map(|l| l.unwrap_or(f32::NEG_INFINITY))
        .collect::<Vec<_>>();
    ensure!(
        logprobs.len() == token_ids.len(),
        "engine returned {} log-probs for {} tokens",
        logprobs.len(),
        token_ids.len()
    );
    let stopped = token_ids.last().is_some_and(|t| stop_ids.contains(t));
    let finish_reason = match (c.finish_reason.as_deref(), stopped) {
        (_, true) => FinishReason::Stop,
        (Some("length"), false) => FinishReason::Length,
        (reason, false) => bail!(
            "engine finished a response with {reason:?} on a token that is no stop token ({:?})",
            token_ids.last()
        ),
    };
    Ok(Sampled {
        token_ids,
        logprobs,
        finish_reason,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choice(ids: &[i64], reason: &str) -> Choice {
        Choice {
            index: 0,
            finish_reason: Some(reason.into()),
            token_ids: Some(ids.to_vec()),
            logprobs: Some(ChoiceLogprobs {
                token_logprobs: ids.iter().map(|_| Some(-0.5)).collect(),
            }),
        }
    }

    #[test]
    fn a_choice_ends_on_a_stop_token_or_on_length() {
        let s = sampled(choice(&[5, 6, 2], "stop"), &[2]).unwrap();
        assert_eq!(s.finish_reason, FinishReason::Stop);
        assert_eq!(s.token_ids, vec![5, 6, 2]);
        let s = sampled(choice(&[5, 6, 7], "length"), &[2]).unwrap();
        assert_eq!(s.finish_reason, FinishReason::Length);
        // A stop string (never asked for here) would end on an ordinary token.
        let e = sampled(choice(&[5, 6], "stop"), &[2]).unwrap_err();
        assert!(e.to_string().contains("no stop token"), "{e}");
    }

    #[test]
    fn missing_token_ids_or_logprobs_are_errors_naming_them() {
        let mut c = choice(&[5], "length");
        c.token_ids = None;
        assert!(
            sampled(c, &[2])
                .unwrap_err()
                .to_string()
                .contains("token_ids")
        );
        let mut c = choice(&[5], "length");
        c.logprobs = None;
        assert!(
            sampled(c, &[2])
                .unwrap_err()
                .to_string()
                .contains("logprobs")
        );
    }

    #[test]
    fn urls_must_be_http() {
        let e = EngineClient::new("127.0.0.1:8000", "m").err().unwrap();
        assert!(e.to_string().contains("generation.url"), "{e}");
        let e = EngineClient::new("http://x", "").err().unwrap();
        assert!(e.to_string().contains("generation.model"), "{e}");
    }
}
