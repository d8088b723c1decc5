//! The Rust client of the verifier's REST API (feature `client`), used by the trainer (through
//! [`blocking::Client`]) and by the end-to-end tests. The bearer token is the caller's to find
//! and pass in; every call sends the messages of this crate. A call is made once unless the
//! client was given a [`RetryPolicy`] ([`Client::with_retry`]): every write is idempotent
//! ([`crate::retry`]), so a retried call is safe, but the load tests count each failure.

pub mod blocking;

use std::time::Duration;

use bytes::Bytes;
use reqwest::Method;
use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use crate::retry::{RetryPolicy, retryable_status};
use crate::{
    Agent, Capability, Group, Groups, NewAgent, NewRollout, Page, Rollout, StepMetrics,
    StepSubmissions, SubmitResult, SubmitRollouts, TaskSummary, TasksStored,
};

/// Why a call failed.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// The token cannot be sent as a header value (a control character in it).
    #[error("the token is not a valid header value")]
    Token,
    /// The HTTP client could not be built.
    #[error("building the HTTP client: {0}")]
    Build(#[source] reqwest::Error),
    /// The blocking client's runtime could not be started.
    #[error("starting the blocking client's runtime: {0}")]
    Runtime(#[source] std::io::Error),
    /// A request body that has no JSON form (a map with non-string keys).
    #[error("{path}: encoding the request: {source}")]
    Encode {
        /// The request's path and query.
        path: String,
        /// The JSON error.
        source: serde_json::Error,
    },
    /// No (complete) HTTP answer: refused, reset, timed out. The request may have been applied.
    #[error("{method} {path}: no answer: {source}")]
    Transport {
        /// The request's method.
        method: Method,
        /// The request's path and query.
        path: String,
        /// What reqwest saw.
        source: reqwest::Error,
    },
    /// An HTTP error status, with the body (the service's `{"error": …}` as text).
    #[error("{method} {path}: HTTP {status}: {body}")]
    Status {
        /// The request's method.
        method: Method,
        /// The request's path and query.
        path: String,
        /// The status code.
        status: u16,
        /// The body as sent.
        body: String,
    },
    /// A success whose body is not the message expected.
    #[error("{method} {path}: decoding the answer: {source}")]
    Decode {
        /// The request's method.
        method: Method,
        /// The request's path and query.
        path: String,
        /// The JSON error.
        source: serde_json::Error,
    },
}

impl ClientError {
    /// The HTTP status of an error answer.
    pub fn status(&self) -> Option<u16> {
        match self {
            ClientError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }

    /// Worth sending again as it was: no answer, 503 or 429 ([`crate::retry`]).
    pub fn retryable(&self) -> bool {
        match self {
            ClientError::Transport { .. } => true,
            ClientError::Status { status, .. } => retryable_status(*status),
            _ => false,
        }
    }
}

/// A request's body: its content type and bytes (cheap to send again).
struct Body {
    content_type: &'static str,
    bytes: Bytes,
}

impl Body {
    /// `value` as JSON.
    fn json(path: &str, value: &impl Serialize) -> Result<Self, ClientError> {
        let bytes = serde_json::to_vec(value).map_err(|source| ClientError::Encode {
            path: path.to_string(),
            source,
        })?;
        Ok(Self {
            content_type: "application/json",
            bytes: bytes.into(),
        })
    }
}

/// An asynchronous client of one verifier; cheap to clone (the connections are shared).
#[derive(Debug, Clone)]
pub struct Client {
    base: String,
    http: reqwest::Client,
    retry: RetryPolicy,
}

impl Client {
    /// A client of the verifier at `base` (e.g. `http://127.0.0.1:8080`) that sends `token` as
    /// a bearer token, if any, gives every request `timeout`, and makes each call once.
    pub fn new(base: &str, token: Option<&str>, timeout: Duration) -> Result<Self, ClientError> {
        let mut headers = HeaderMap::new();
        if let Some(token) = token {
            let mut value = HeaderValue::from_str(&format!("Bearer {token}"))
                .map_err(|_| ClientError::Token)?;
            // Kept out of reqwest's debug output and logs.
            value.set_sensitive(true);
            headers.insert(AUTHORIZATION, value);
        }
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .default_headers(headers)
            .build()
            .map_err(ClientError::Build)?;
        Ok(Self {
            base: base.trim_end_matches('/').to_string(),
            http,
            retry: RetryPolicy {
                first_wait: Duration::ZERO,
                max_wait: Duration::ZERO,
                max_attempts: 1,
            },
        })
    }

    /// The same client, retrying transport errors, 503 and 429 with `retry`'s backoff.
    pub fn with_retry(self, retry: RetryPolicy) -> Self {
        Self { retry, ..self }
    }

    /// GET `path` (with its query), decoded as `T` (`Value` for the raw answer): for the
    /// routes without a method of their own.
    pub async fn get<T: DeserializeOwned>(&self, path: &str) -> Result<T, ClientError> {
        self.call(Method::GET, path, None).await
    }

    /// POST `body` as JSON to `path`, the answer decoded as `T` (`Value` for the raw answer).
    pub async fn post<T: DeserializeOwned>(
        &self,
        path: &str,
        body: &impl Serialize,
    ) -> Result<T, ClientError> {
        let body = Body::json(path, body)?;
        self.call(Method::POST, path, Some(body)).await
    }

    /// Sends a request (again, per the retry policy, when it failed in a retryable way) and
    /// decodes the JSON answer of a success.
    async fn call<T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Option<Body>,
    ) -> Result<T, ClientError> {
        let url = format!("{}{path}", self.base);
        for attempt in self.retry.attempts() {
            let error = match self.attempt(&method, &url, &body).await {
                Ok((status, bytes)) if (200..300).contains(&status) => {
                    return serde_json::from_slice(&bytes).map_err(|source| ClientError::Decode {
                        method,
                        path: path.to_string(),
                        source,
                    });
                }
                Ok((status, bytes)) => ClientError::Status {
                    method: method.clone(),
                    path: path.to_string(),
                    status,
                    body: String::from_utf8_lossy(&bytes).into_owned(),
                },
                Err(source) => ClientError::Transport {
                    method: method.clone(),
                    path: path.to_string(),
                    source,
                },
            };
            if !(error.retryable() && attempt.may_retry(None)) {
                return Err(error);
            }
            tracing::warn!(%url, attempt = attempt.number, %error, "verifier unavailable; retrying");
            tokio::time::sleep(attempt.wait).await;
        }
        unreachable!("a policy has at least one attempt, and the last one returns")
    }

    /// One request: its status and body, or the transport error.
    async fn attempt(
        &self,
        method: &Method,
        url: &str,
        body: &Option<Body>,
    ) -> Result<(u16, Bytes), reqwest::Error> {
        let mut req = self.http.request(method.clone(), url);
        if let Some(body) = body {
            req = req
                .header(CONTENT_TYPE, body.content_type)
                .body(body.bytes.clone());
        }
        let resp = req.send().await?;
        let status = resp.status().as_u16();
        Ok((status, resp.bytes().await?))
    }

    /// Registers an agent and returns it; a name registered earlier with other metadata (e.g.
    /// another checkpoint) is a 409, and then the agent of that name is returned.
    pub async fn register_agent(&self, agent: &NewAgent) -> Result<Agent, ClientError> {
        match self.post("/v1/agents", agent).await {
            Err(e) if e.status() == Some(409) => self.agent(&agent.name).await,
            other => other,
        }
    }

    /// The agent with this id or name.
    pub async fn agent(&self, id_or_name: &str) -> Result<Agent, ClientError> {
        self.get(&format!("/v1/agents/{}", enc_path(id_or_name)))
            .await
    }

    /// Imports tasks in `/v1/tasks` form; identical re-imports are no-ops, changed ones errors.
    pub async fn import_tasks(&self, tasks: &[Value]) -> Result<TasksStored, ClientError> {
        self.post("/v1/tasks", &json!({ "tasks": tasks })).await
    }

    /// Uploads a JSON Lines file of `dataset` (idempotent: unchanged rows are reported as such).
    pub async fn upload_tasks(
        &self,
        dataset: &str,
        jsonl: &[u8],
    ) -> Result<TasksStored, ClientError> {
        let path = format!("/v1/tasks?dataset={}", enc(dataset));
        let body = Body {
            content_type: "application/x-ndjson",
            bytes: Bytes::copy_from_slice(jsonl),
        };
        self.call(Method::POST, &path, Some(body)).await
    }

    /// Every task of `dataset`, in insertion order (follows the pagination cursor).
    pub async fn tasks(&self, dataset: &str) -> Result<Vec<TaskSummary>, ClientError> {
        self.all(&format!("/v1/tasks?dataset={}", enc(dataset)))
            .await
    }

    /// Every rollout of `run`, in pool order (follows the pagination cursor).
    pub async fn rollouts(&self, run: &str) -> Result<Vec<Rollout>, ClientError> {
        self.all(&format!("/v1/rollouts?run={}", enc(run))).await
    }

    /// Every item of a listing whose query is `listing`, page after page.
    async fn all<T: DeserializeOwned>(&self, listing: &str) -> Result<Vec<T>, ClientError> {
        let mut out = Vec::new();
        let mut after = 0;
        loop {
            let page: Page<T> = self
                .get(&format!("{listing}&limit=1000&after={after}"))
                .await?;
            out.extend(page.items);
            match page.next {
                Some(n) => after = n,
                None => return Ok(out),
            }
        }
    }

    /// Submits rollouts in one transaction; the results are in submission order.
    pub async fn submit(&self, rollouts: &[NewRollout]) -> Result<SubmitResult, ClientError> {
        let body = SubmitRollouts {
            rollouts: rollouts.to_vec(),
        };
        self.post("/v1/rollouts", &body).await
    }

    /// The prompt groups of `step` of `run`: every agent's responses per task.
    pub async fn groups(&self, run: &str, step: i64) -> Result<Vec<Group>, ClientError> {
        let path = format!("/v1/pool/groups?run={}&step={step}", enc(run));
        Ok(self.get::<Groups>(&path).await?.groups)
    }

    /// Which agents have rollouts in `step` of `run`, and how many each.
    pub async fn submissions(&self, run: &str, step: i64) -> Result<StepSubmissions, ClientError> {
        self.get(&format!("/v1/runs/{}/steps/{step}", enc_path(run)))
            .await
    }

    /// The capability in `run` of `agent` (its id or name) over a window of `window` steps,
    /// with the accuracy of each step.
    pub async fn capability(
        &self,
        agent: &str,
        run: &str,
        window: u32,
    ) -> Result<Capability, ClientError> {
        let path = format!(
            "/v1/agents/{}/capability?run={}&window={window}",
            enc_path(agent),
            enc(run)
        );
        self.get(&path).await
    }

    /// Writes one agent's metrics for one step (a `train_metrics` row).
    pub async fn record_metrics(&self, metrics: &StepMetrics) -> Result<(), ClientError> {
        self.post::<Value>("/v1/metrics", metrics).await.map(|_| ())
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
