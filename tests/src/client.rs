//! A small REST client for the verifier, with the retry behaviour a real trainer has:
//! connection failures and 503 are retried with the same client-chosen rollout ids.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use anyhow::Context;
use serde::de::DeserializeOwned;
use serde_json::Value;
use uuid::Uuid;
use wire::retry::{RetryPolicy, retryable_status};
use wire::{Agent, NewAgent, NewRollout, Page, Rollout, SubmitRollouts, TaskSummary};

/// Short waits, bounded by each call's deadline rather than by a count: the load and stack
/// tests measure how quickly batches get through verifier restarts.
const RETRY: RetryPolicy = RetryPolicy {
    first_wait: Duration::from_millis(50),
    max_wait: Duration::from_millis(500),
    max_attempts: u32::MAX,
};

/// The verifier's REST API at one base URL.
#[derive(Debug, Clone)]
pub struct Api {
    /// Base URL, e.g. `http://127.0.0.1:8080`.
    pub base: String,
    http: reqwest::Client,
}

/// Why one attempt failed.
#[derive(Debug)]
pub enum Failure {
    /// No HTTP answer (refused, reset, timed out): the request may or may not have been applied.
    Transport(String),
    /// An HTTP error status with its body.
    Status(u16, Value),
}

impl Failure {
    /// Worth retrying with the same request (it is idempotent by rollout id).
    pub fn retryable(&self) -> bool {
        match self {
            Failure::Transport(_) => true,
            Failure::Status(s, _) => retryable_status(*s),
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Transport(e) => write!(f, "transport error: {e}"),
            Failure::Status(s, body) => write!(f, "HTTP {s}: {body}"),
        }
    }
}

/// A submission acknowledged by the service, and how many attempts it took.
#[derive(Debug, Clone)]
pub struct Ack {
    /// The `POST /v1/rollouts` response.
    pub body: Value,
    /// Attempts made (1 = no retry).
    pub attempts: u32,
}

impl Api {
    /// A client for `base` with a per-request timeout.
    pub fn new(base: &str, timeout: Duration) -> Self {
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .build()
            .expect("an HTTP client with default TLS-less settings builds");
        Self {
            base: base.trim_end_matches('/').to_string(),
            http,
        }
    }

    /// One request; any HTTP status is returned, only transport failures are errors.
    async fn send(&self, req: reqwest::RequestBuilder) -> Result<(u16, Value), Failure> {
        let resp = req
            .send()
            .await
            .map_err(|e| Failure::Transport(format!("{e:#}")))?;
        let status = resp.status().as_u16();
        let body = resp
            .bytes()
            .await
            .map_err(|e| Failure::Transport(format!("{e:#}")))?;
        Ok((status, serde_json::from_slice(&body).unwrap_or(Value::Null)))
    }

    /// GET `path` expecting 200.
    pub async fn get(&self, path: &str) -> anyhow::Result<Value> {
        match self
            .send(self.http.get(format!("{}{path}", self.base)))
            .await
        {
            Ok((200, body)) => Ok(body),
            Ok((s, body)) => Err(Failure::Status(s, body)),
            Err(e) => Err(e),
        }
        .map_err(|e| anyhow::anyhow!("GET {path}: {e}"))
    }

    /// GET `path` expecting 200, decoded as `T`.
    async fn get_as<T: DeserializeOwned>(&self, path: &str) -> anyhow::Result<T> {
        let body = self.get(path).await?;
        serde_json::from_value(body).with_context(|| format!("decoding GET {path}"))
    }

    /// POST JSON to `path` once, expecting 200 or 201.
    pub async fn post(&self, path: &str, body: &impl serde::Serialize) -> Result<Value, Failure> {
        match self
            .send(self.http.post(format!("{}{path}", self.base)).json(body))
            .await?
        {
            (200 | 201, body) => Ok(body),
            (s, body) => Err(Failure::Status(s, body)),
        }
    }

    /// Registers an agent (idempotent by name) and returns its id.
    pub async fn agent(&self, name: &str, family: &str) -> anyhow::Result<Uuid> {
        let new = NewAgent {
            name: name.to_string(),
            family: Some(family.to_string()),
            size_params: None,
            tokenizer: None,
            metadata: None,
        };
        let body = self
            .post("/v1/agents", &new)
            .await
            .map_err(|e| anyhow::anyhow!("registering agent {name}: {e}"))?;
        let agent: Agent = serde_json::from_value(body).context("decoding the agent")?;
        Ok(agent.id)
    }

    /// Uploads JSON Lines rows of `dataset` (idempotent: unchanged rows are reported as such).
    pub async fn upload_tasks(&self, dataset: &str, jsonl: Vec<u8>) -> anyhow::Result<Value> {
        let req = self
            .http
            .post(format!("{}/v1/tasks?dataset={dataset}", self.base))
            .header("content-type", "application/x-ndjson")
            .body(jsonl);
        match self.send(req).await {
            Ok((200 | 201, body)) => Ok(body),
            Ok((s, body)) => Err(anyhow::anyhow!("uploading {dataset}: HTTP {s}: {body}")),
            Err(e) => Err(anyhow::anyhow!("uploading {dataset}: {e}")),
        }
    }

    /// Every task of `dataset`, as external id → task id (follows the pagination cursor).
    pub async fn task_ids(&self, dataset: &str) -> anyhow::Result<HashMap<String, Uuid>> {
        let mut out = HashMap::new();
        let mut after = 0i64;
        loop {
            let page: Page<TaskSummary> = self
                .get_as(&format!(
                    "/v1/tasks?dataset={dataset}&limit=1000&after={after}"
                ))
                .await?;
            out.extend(page.items.into_iter().map(|t| (t.external_id, t.id)));
            match page.next {
                Some(n) => after = n,
                None => return Ok(out),
            }
        }
    }

    /// Every rollout of `run`, in pool order (follows the pagination cursor).
    pub async fn rollouts(&self, run: &str) -> anyhow::Result<Vec<Rollout>> {
        let mut out = Vec::new();
        let mut after = 0i64;
        loop {
            let page: Page<Rollout> = self
                .get_as(&format!("/v1/rollouts?run={run}&limit=1000&after={after}"))
                .await?;
            out.extend(page.items);
            match page.next {
                Some(n) => after = n,
                None => return Ok(out),
            }
        }
    }

    /// Submits a batch once; the answer stays raw JSON, which the tests check field by field.
    pub async fn submit(&self, rollouts: &[NewRollout]) -> Result<Value, Failure> {
        let body = SubmitRollouts {
            rollouts: rollouts.to_vec(),
        };
        self.post("/v1/rollouts", &body).await
    }

    /// Submits a batch until it is acknowledged, retrying retryable failures with backoff
    /// until `deadline`; the ids in the batch make every retry safe.
    pub async fn submit_until_acked(
        &self,
        rollouts: &[NewRollout],
        deadline: Instant,
    ) -> anyhow::Result<Ack> {
        for attempt in RETRY.attempts() {
            match self.submit(rollouts).await {
                Ok(body) => {
                    return Ok(Ack {
                        body,
                        attempts: attempt.number,
                    });
                }
                Err(e) if e.retryable() && attempt.may_retry(Some(deadline)) => {
                    tokio::time::sleep(attempt.wait).await;
                }
                Err(e) => anyhow::bail!(
                    "batch not acknowledged after {} attempts: {e}",
                    attempt.number
                ),
            }
        }
        unreachable!("the last attempt returns")
    }
}

/// A UUID from a JSON string.
pub fn parse_id(v: &Value) -> anyhow::Result<Uuid> {
    v.as_str()
        .and_then(|s| s.parse().ok())
        .with_context(|| format!("expected a UUID, got {v}"))
}
