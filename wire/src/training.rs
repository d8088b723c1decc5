//! `/v1/metrics`: one agent's training metrics for one step, a `train_metrics` row.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

/// Metrics of one agent's update in one step.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
#[serde(deny_unknown_fields)]
pub struct StepMetrics {
    /// Training run (at most 200 bytes, no NUL).
    #[cfg_attr(feature = "schema", schema(pattern = r"^[^\u0000]*$"))]
    pub run: String,
    /// Agent updated.
    pub agent_id: Uuid,
    /// Training step.
    #[serde(deserialize_with = "crate::integer::exact")]
    #[cfg_attr(feature = "schema", schema(minimum = 0))]
    pub step: i64,
    /// Mean loss.
    #[serde(default)]
    pub loss: Option<f64>,
    /// Mean reward of the agent's own rollouts.
    #[serde(default)]
    pub reward_mean: Option<f64>,
    /// Accuracy of the agent's own rollouts.
    #[serde(default)]
    pub accuracy: Option<f64>,
    /// Fraction of terms clipped.
    #[serde(default)]
    pub clip_fraction: Option<f64>,
    /// KL to the reference policy.
    #[serde(default)]
    pub kl: Option<f64>,
    /// Gradient norm before clipping.
    #[serde(default)]
    pub grad_norm: Option<f64>,
    /// Anything else (capability, ω, timings).
    #[serde(default = "empty_object")]
    #[cfg_attr(feature = "schema", schema(schema_with = crate::json::object_schema))]
    pub extra: Value,
    /// When it was written: set by the server, which rejects a request that sends one (read-only;
    /// clients read it back from responses).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "schema", schema(read_only))]
    pub created_at: Option<DateTime<Utc>>,
}

fn empty_object() -> Value {
    Value::Object(Default::default())
}
