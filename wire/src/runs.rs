//! `/v1/runs/{run}/steps/{step}`: which agents have submitted a step's rollouts — the barrier
//! that agents training in separate processes wait on before reading the step's groups.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// The agents with rollouts in one step of a run.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct StepSubmissions {
    /// The run.
    pub run: String,
    /// The step.
    pub step: i64,
    /// Every agent with at least one stored rollout in the step, by name.
    pub agents: Vec<AgentSubmission>,
}

/// How many rollouts one agent has stored in a step.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
pub struct AgentSubmission {
    /// The agent.
    pub agent_id: Uuid,
    /// Its name.
    pub agent: String,
    /// Its stored rollouts in the step, scored or not.
    pub rollouts: i64,
}
