//! What the tests add to the verifier's client ([`wire::client::Client`]): raw submissions
//! whose answers they check field by field, the retry loop a trainer has (bounded by a
//! deadline and counting its attempts), and lookups shaped for building workloads.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use anyhow::Context;
use serde_json::Value;
use uuid::Uuid;
use wire::client::{Client, ClientError};
use wire::retry::RetryPolicy;
use wire::{NewAgent, NewRollout, SubmitRollouts};

/// Short waits, bounded by each call's deadline rather than by a count: the load and stack
/// tests measure how quickly batches get through verifier restarts.
const RETRY: RetryPolicy = RetryPolicy {
    first_wait: Duration::from_millis(50),
    max_wait: Duration::from_millis(500),
    max_attempts: u32::MAX,
};

/// A submission acknowledged by the service, and how many attempts it took.
#[derive(Debug, Clone)]
pub struct Ack {
    /// The `POST /v1/rollouts` response.
    pub body: Value,
    /// Attempts made (1 = no retry).
    pub attempts: u32,
}

/// Registers an agent by name and family only, and returns its id.
pub async fn agent(api: &Client, name: &str, family: &str) -> anyhow::Result<Uuid> {
    let new = NewAgent {
        name: name.to_string(),
        family: Some(family.to_string()),
        size_params: None,
        tokenizer: None,
        metadata: None,
    };
    let agent = (api.register_agent(&new).await).with_context(|| format!("registering {name}"))?;
    Ok(agent.id)
}

/// Every task of `dataset`, as external id → task id.
pub async fn task_ids(api: &Client, dataset: &str) -> anyhow::Result<HashMap<String, Uuid>> {
    let tasks = api.tasks(dataset).await?;
    Ok(tasks.into_iter().map(|t| (t.external_id, t.id)).collect())
}

/// Submits a batch once; the answer stays raw JSON, which the tests check field by field.
pub async fn submit(api: &Client, rollouts: &[NewRollout]) -> Result<Value, ClientError> {
    let body = SubmitRollouts {
        rollouts: rollouts.to_vec(),
    };
    api.post("/v1/rollouts", &body).await
}

/// Submits a batch until it is acknowledged, retrying retryable failures with backoff
/// until `deadline`; the ids in the batch make every retry safe.
pub async fn submit_until_acked(
    api: &Client,
    rollouts: &[NewRollout],
    deadline: Instant,
) -> anyhow::Result<Ack> {
    for attempt in RETRY.attempts() {
        match submit(api, rollouts).await {
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

/// A UUID from a JSON string.
pub fn parse_id(v: &Value) -> anyhow::Result<Uuid> {
    v.as_str()
        .and_then(|s| s.parse().ok())
        .with_context(|| format!("expected a UUID, got {v}"))
}
