//! `/v1/agents`: the models that generate rollouts, and their capability.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

/// A registered agent.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct Agent {
    /// Stable id.
    pub id: Uuid,
    /// Unique name, e.g. `qwen3-1.7b-base`.
    pub name: String,
    /// Model family (`llama`, `qwen3`, …).
    pub family: Option<String>,
    /// Parameter count.
    pub size_params: Option<i64>,
    /// Tokenizer identity.
    pub tokenizer: Option<String>,
    /// Free-form model metadata.
    #[cfg_attr(feature = "schema", schema(schema_with = crate::json::object_schema))]
    pub metadata: Value,
    /// When it was registered.
    pub created_at: DateTime<Utc>,
}

/// An agent to register. Registering the same name again with the same fields is a no-op.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[serde(deny_unknown_fields)]
pub struct NewAgent {
    /// Unique name: at least one character that is not white space, at most 200 bytes, no NUL.
    #[cfg_attr(
        feature = "schema",
        schema(pattern = r"^[^\u0000]*[^\s\u0000][^\u0000]*$")
    )]
    pub name: String,
    /// Model family.
    #[serde(default)]
    pub family: Option<String>,
    /// Parameter count.
    #[serde(default, deserialize_with = "crate::integer::optional")]
    #[cfg_attr(feature = "schema", schema(minimum = 1))]
    pub size_params: Option<i64>,
    /// Tokenizer identity.
    #[serde(default)]
    pub tokenizer: Option<String>,
    /// Free-form metadata.
    #[serde(default)]
    #[cfg_attr(feature = "schema", schema(schema_with = crate::json::optional_object_schema))]
    pub metadata: Option<Value>,
}

/// An agent's capability history.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct Capability {
    /// The agent.
    pub agent_id: Uuid,
    /// Its name.
    pub agent: String,
    /// The run.
    pub run: String,
    /// Window K.
    pub window: i32,
    /// P̂ at the latest step (absent before any scored rollout).
    pub capability: Option<f64>,
    /// Per step, oldest first.
    pub steps: Vec<StepCapability>,
}

/// One step of an agent's capability history.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct StepCapability {
    /// Training step.
    pub step: i64,
    /// Scored rollouts in that step.
    pub rollouts: i64,
    /// Mean reward in that step (P_t).
    pub accuracy: f64,
    /// Mean of `accuracy` over the last K steps including this one (P̂_t).
    pub capability: f64,
}
