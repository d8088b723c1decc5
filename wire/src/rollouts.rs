//! `/v1/rollouts` and `/v1/pool/groups`: responses submitted for verification, their results,
//! stored rollouts, and a step's prompt groups as a policy update reads them.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

/// A batch of responses to verify and store.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct SubmitRollouts {
    /// The rollouts: at least one, at most the service's `--max-batch` (default 4096).
    #[cfg_attr(feature = "schema", schema(min_items = 1))]
    pub rollouts: Vec<NewRollout>,
}

/// One response to verify and store.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct NewRollout {
    /// Client-chosen id: resubmitting it returns the stored result instead of a duplicate.
    /// Generated (UUIDv7) when absent.
    #[serde(default)]
    pub id: Option<Uuid>,
    /// Task answered.
    pub task_id: Uuid,
    /// Agent that answered.
    pub agent_id: Uuid,
    /// Training run (default `default`; not empty, at most 200 bytes, no NUL).
    #[serde(default = "crate::default_run")]
    #[cfg_attr(feature = "schema", schema(min_length = 1, pattern = r"^[^\u0000]*$"))]
    pub run: String,
    /// Training step (default 0).
    #[serde(default, deserialize_with = "crate::integer::exact")]
    #[cfg_attr(feature = "schema", schema(minimum = 0))]
    pub step: i64,
    /// Version of the generating policy (default 0).
    #[serde(default, deserialize_with = "crate::integer::exact")]
    pub policy_version: i64,
    /// The full response text (no NUL, at most the service's `--max-response-bytes`).
    #[cfg_attr(feature = "schema", schema(pattern = r"^[^\u0000]*$"))]
    pub response: String,
    /// Response tokens under the generating tokenizer.
    #[serde(default, deserialize_with = "crate::integer::optional")]
    #[cfg_attr(feature = "schema", schema(minimum = 0))]
    pub token_count: Option<i32>,
    /// Mean token log-prob under the generating policy (finite, <= 0).
    #[serde(default)]
    #[cfg_attr(feature = "schema", schema(maximum = 0))]
    pub logprob_mean: Option<f64>,
    /// Summed token log-prob under the generating policy (finite, <= 0).
    #[serde(default)]
    #[cfg_attr(feature = "schema", schema(maximum = 0))]
    pub logprob_sum: Option<f64>,
    /// Whether generation stopped at an end-of-turn token (a learner then appends its own).
    /// Stored as `metadata.ends_turn`, which older clients send directly; absent means it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ends_turn: Option<bool>,
    /// Free-form metadata (sampling settings, …).
    #[serde(default)]
    #[cfg_attr(feature = "schema", schema(schema_with = crate::json::optional_object_schema))]
    pub metadata: Option<Value>,
}

/// The stored result of one submitted rollout.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct RolloutResult {
    /// Rollout id.
    pub id: Uuid,
    /// Task.
    pub task_id: Uuid,
    /// Agent.
    pub agent_id: Uuid,
    /// Reward in [0, 1].
    pub reward: f64,
    /// Fully correct.
    pub correct: bool,
    /// `scored` or `judge_error`.
    pub status: String,
    /// Verdict without reference-side details.
    #[cfg_attr(feature = "schema", schema(value_type = Object))]
    pub verdict: Value,
    /// True when this id was already stored (the stored result is returned).
    pub duplicate: bool,
}

/// Response to a submission.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct SubmitResult {
    /// Stored now.
    pub created: usize,
    /// Already stored before.
    pub duplicates: usize,
    /// Per rollout, in submission order.
    pub results: Vec<RolloutResult>,
}

/// A scored rollout, as stored.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct RolloutRow {
    /// Client-chosen or generated id.
    pub id: Uuid,
    /// Training run.
    pub run: String,
    /// Task answered.
    pub task_id: Uuid,
    /// Agent that answered.
    pub agent_id: Uuid,
    /// Training step.
    pub step: i64,
    /// Version of the generating policy.
    pub policy_version: i64,
    /// Response text.
    pub response: String,
    /// Number of response tokens under the generating tokenizer.
    pub token_count: Option<i32>,
    /// Mean token log-prob under the generating policy.
    pub logprob_mean: Option<f64>,
    /// Summed token log-prob under the generating policy.
    pub logprob_sum: Option<f64>,
    /// Reward in [0, 1].
    pub reward: f64,
    /// Fully correct.
    pub correct: bool,
    /// `scored` or `judge_error`.
    pub status: String,
    /// Verdict (reference-side details removed by the API).
    #[cfg_attr(feature = "schema", schema(value_type = Object))]
    pub verdict: Value,
    /// Client metadata.
    #[cfg_attr(feature = "schema", schema(schema_with = crate::json::object_schema))]
    pub metadata: Value,
}

/// A stored rollout with its place in the pool.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct Rollout {
    /// The rollout.
    #[serde(flatten)]
    #[cfg_attr(feature = "sqlx", sqlx(flatten))]
    pub row: RolloutRow,
    /// When it was stored.
    pub created_at: DateTime<Utc>,
    /// Insertion order; the pagination cursor.
    pub seq: i64,
}

/// Every task of a step with every agent's responses.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct Groups {
    /// The run.
    pub run: String,
    /// The step.
    pub step: i64,
    /// One group per task, in task order.
    pub groups: Vec<Group>,
}

/// Every agent's responses to one task in one step.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct Group {
    /// The task.
    pub task_id: Uuid,
    /// Its prompt.
    pub prompt: String,
    /// The responses, by agent name then insertion order.
    pub rollouts: Vec<GroupMember>,
}

/// One response in a prompt group, with what a policy update needs.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct GroupMember {
    /// Rollout id.
    pub id: Uuid,
    /// Agent that wrote it.
    pub agent_id: Uuid,
    /// Agent name.
    pub agent: String,
    /// Response text.
    pub response: String,
    /// Reward in [0, 1].
    pub reward: f64,
    /// Fully correct.
    pub correct: bool,
    /// Response tokens under the generating tokenizer.
    pub token_count: Option<i32>,
    /// Mean token log-prob under the generating policy.
    pub logprob_mean: Option<f64>,
    /// Summed token log-prob under the generating policy.
    pub logprob_sum: Option<f64>,
    /// Version of the generating policy.
    pub policy_version: i64,
    /// Client metadata (e.g. whether generation ended with an end-of-turn token).
    #[cfg_attr(feature = "schema", schema(schema_with = crate::json::object_schema))]
    pub metadata: Value,
}

impl GroupMember {
    /// Whether the source finished its turn (so a learner appends its own end-of-turn token):
    /// the submission's [`NewRollout::ends_turn`], true when it did not say.
    pub fn ends_turn(&self) -> bool {
        self.metadata
            .get("ends_turn")
            .and_then(Value::as_bool)
            .unwrap_or(true)
    }
}
