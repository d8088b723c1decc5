//! The verifier's REST API as the trainer uses it: register agents, fetch prompts, submit
//! rollouts for scoring, see which agents have submitted a step, read a step's groups back from
//! the pool, write metrics.

use std::time::Duration;

use anyhow::{Context, Result, bail};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};
use uuid::Uuid;
use wire::retry::{RetryPolicy, retryable_status};
use wire::{
    Agent, Capability, Group, Groups, NewAgent, NewRollout, Page, RolloutResult, StepCapability,
    StepMetrics, StepSubmissions, TaskSummary,
};

/// A blocking client of one verifier.
pub struct VerifierClient {
    base: String,
    http: reqwest::blocking::Client,
}

/// Calls may meet a restarting verifier or a 503 from its database: 8 attempts, whose waits
/// (200 ms doubling to 10 s) add up to 22.6 s, ride out a restart.
const RETRY: RetryPolicy = RetryPolicy {
    first_wait: Duration::from_millis(200),
    max_wait: Duration::from_secs(10),
    max_attempts: 8,
};

impl VerifierClient {
    /// A client of the verifier at `base` (e.g. `http://127.0.0.1:8080`), sending the bearer
    /// token in `HACRL_TOKEN` when one is set (a `write` key for this trainer's agent).
    pub fn new(base: &str) -> Result<Self> {
        let token = std::env::var("HACRL_TOKEN").ok();
        Self::with_token(
            base,
            token.as_deref().map(str::trim).filter(|t| !t.is_empty()),
        )
    }

    /// A client of the verifier at `base` sending `token` as a bearer token, if any.
    pub fn with_token(base: &str, token: Option<&str>) -> Result<Self> {
        let mut headers = reqwest::header::HeaderMap::new();
        if let Some(token) = token {
            let mut value = reqwest::header::HeaderValue::from_str(&format!("Bearer {token}"))
                .context("HACRL_TOKEN is not a valid header value")?;
            // Kept out of reqwest's debug output and logs.
            value.set_sensitive(true);
            headers.insert(reqwest::header::AUTHORIZATION, value);
        }
        let http = reqwest::blocking::Client::builder()
            .timeout(Duration::from_secs(600))
            .default_headers(headers)
            .build()?;
        Ok(Self {
            base: base.trim_end_matches('/').to_string(),
            http,
        })
    }

    /// Sends a request, retrying transport errors and 503s with backoff (every call here is
    /// idempotent), and decodes the JSON answer; other errors carry the service's message.
    fn call<T: DeserializeOwned>(
        &self,
        method: reqwest::Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<T> {
        let url = format!("{}{path}", self.base);
        for attempt in RETRY.attempts() {
            let mut req = self.http.request(method.clone(), &url);
            if let Some(b) = body {
                req = req.json(b);
            }
            match req.send() {
                Ok(r) if r.status().is_success() => {
                    return r.json().with_context(|| format!("decoding {path}"));
                }
                Ok(r) if retryable_status(r.status().as_u16()) && attempt.may_retry(None) => {
                    tracing::warn!(%url, attempt = attempt.number, "verifier unavailable; retrying");
                }
                Ok(r) => {
                    let status = r.status();
                    let text = r.text().unwrap_or_default();
                    bail!("{method} {path}: {status}: {text}");
                }
                Err(e) if attempt.may_retry(None) => {
                    tracing::warn!(%url, attempt = attempt.number, error = %e, "verifier unreachable; retrying")
                }
                Err(e) => return Err(e).with_context(|| format!("{method} {url}")),
            }
            std::thread::sleep(attempt.wait);
        }
        unreachable!("the last attempt returns")
    }

    /// Registers (or finds) an agent by name and returns its id.
    pub fn register_agent(
        &self,
        name: &str,
        family: &dyn std::fmt::Display,
        size_params: i64,
        tokenizer: &str,
    ) -> Result<Uuid> {
        let body = serde_json::to_value(NewAgent {
            name: name.to_string(),
            family: Some(family.to_string()),
            size_params: Some(size_params),
            tokenizer: Some(tokenizer.to_string()),
            metadata: None,
        })?;
        let agent: Agent = match self.call(reqwest::Method::POST, "/v1/agents", Some(&body)) {
            Ok(a) => a,
            // Registered earlier with other metadata (e.g. another checkpoint): reuse the name.
            Err(e) if e.to_string().contains("409") => self.call(
                reqwest::Method::GET,
                &format!("/v1/agents/{}", enc_path(name)),
                None,
            )?,
            Err(e) => return Err(e),
        };
        Ok(agent.id)
    }

    /// Imports tasks in `/v1/tasks` form; identical re-imports are no-ops, changed ones errors.
    pub fn import_tasks(&self, tasks: &[Value]) -> Result<()> {
        let body = json!({ "tasks": tasks });
        self.call::<Value>(reqwest::Method::POST, "/v1/tasks", Some(&body))
            .map(|_| ())
    }

    /// Every task of `dataset`, in insertion order.
    pub fn tasks(&self, dataset: &str) -> Result<Vec<TaskSummary>> {
        let mut out = Vec::new();
        let mut after = 0;
        loop {
            let page: Page<TaskSummary> = self.call(
                reqwest::Method::GET,
                &format!(
                    "/v1/tasks?dataset={}&limit=1000&after={after}",
                    enc(dataset)
                ),
                None,
            )?;
            out.extend(page.items);
            match page.next {
                Some(n) => after = n,
                None => return Ok(out),
            }
        }
    }

    /// Submits rollouts in one transaction; returns each one's reward in submission order.
    pub fn submit(&self, rollouts: &[NewRollout]) -> Result<Vec<RolloutResult>> {
        let body = json!({ "rollouts": rollouts });
        Ok(self
            .call::<wire::SubmitResult>(reqwest::Method::POST, "/v1/rollouts", Some(&body))?
            .results)
    }

    /// The prompt groups of a step.
    pub fn groups(&self, run: &str, step: i64) -> Result<Vec<Group>> {
        Ok(self
            .call::<Groups>(
                reqwest::Method::GET,
                &format!("/v1/pool/groups?run={}&step={step}", enc(run)),
                None,
            )?
            .groups)
    }

    /// Which agents have rollouts in `step` of `run`, and how many each.
    pub fn submissions(&self, run: &str, step: i64) -> Result<StepSubmissions> {
        self.call(
            reqwest::Method::GET,
            &format!("/v1/runs/{}/steps/{step}", enc_path(run)),
            None,
        )
    }

    /// The accuracy per step in `run` of `agent` (its id or name).
    pub fn accuracy_history(
        &self,
        agent: impl std::fmt::Display,
        run: &str,
    ) -> Result<Vec<StepCapability>> {
        Ok(self
            .call::<Capability>(
                reqwest::Method::GET,
                &format!(
                    "/v1/agents/{}/capability?run={}&window=1",
                    enc_path(&agent.to_string()),
                    enc(run)
                ),
                None,
            )?
            .steps)
    }

    /// Writes one agent's metrics for one step (a `train_metrics` row, as `/v1/metrics` takes it).
    pub fn record_metrics(&self, metrics: &StepMetrics) -> Result<()> {
        let body = serde_json::to_value(metrics)?;
        self.call::<Value>(reqwest::Method::POST, "/v1/metrics", Some(&body))
            .map(|_| ())
    }
}

/// Percent-encodes a query value.
fn enc(value: &str) -> String {
    form_urlencoded::byte_serialize(value.as_bytes()).collect()
}

/// Percent-encodes a path segment: as a query value, but a space is `%20` (a `+` in a path is
/// a plus; the form encoding writes a real plus as `%2B`, so every `+` it writes is a space).
fn enc_path(value: &str) -> String {
    enc(value).replace('+', "%20")
}
