//! `/v1/tasks`: what an upload stored, and tasks as agents see them (prompts, never references).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

/// A task as agents see it: no reference.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct TaskSummary {
    /// Stable id.
    pub id: Uuid,
    /// Dataset name.
    pub dataset: String,
    /// Id within the dataset.
    pub external_id: String,
    /// Verification kind (`math` or `code`).
    pub kind: String,
    /// The prompt.
    pub prompt: String,
    /// Public metadata.
    #[cfg_attr(feature = "schema", schema(schema_with = crate::json::object_schema))]
    pub metadata: Value,
    /// When it was stored.
    pub created_at: DateTime<Utc>,
}

/// What happened to one task of a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum TaskOutcome {
    /// Stored now.
    Created,
    /// Already stored with the same content.
    Unchanged,
}

/// What happened to one uploaded task.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct TaskStored {
    /// Stable id.
    pub id: Uuid,
    /// Dataset.
    pub dataset: String,
    /// Id within the dataset.
    pub external_id: String,
    /// `created` or `unchanged`.
    pub status: TaskOutcome,
}

/// Result of an upload.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct TasksStored {
    /// Newly stored.
    pub created: usize,
    /// Already present, identical.
    pub unchanged: usize,
    /// Per task, in upload order.
    pub tasks: Vec<TaskStored>,
}
