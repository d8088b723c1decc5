//! The verifier's REST messages — requests, responses, training metrics and the error body —
//! defined once: the service (`verifier`, with the `schema` and `sqlx` features) and the Rust
//! client (feature `client`, used by the trainer and the end-to-end tests) share these types.
//!
//! - [`agents`]: registering agents, reading their capability.
//! - [`tasks`]: task uploads and prompt listings (never a reference).
//! - [`rollouts`]: submissions, their results, stored rollouts and the pool's prompt groups.
//! - [`runs`]: which agents have submitted a step (the barrier between agent processes).
//! - [`training`]: one agent's metrics for one step.
//! - [`error`]: the body of every error response and its stable codes.
//! - [`json`]: the free-form JSON the pool stores, and its schema.
//! - [`retry`]: which failed calls a Rust client sends again, and the waits between attempts.
//! - `client` (feature `client`): the Rust client of the API, async and blocking.
//! - [`Page`]: keyset pagination of every listing.

pub mod agents;
#[cfg(feature = "client")]
pub mod client;
pub mod error;
pub mod integer;
pub mod json;
pub mod retry;
pub mod rollouts;
pub mod runs;
pub mod tasks;
pub mod training;

pub use agents::{Agent, Capability, NewAgent, StepCapability};
pub use error::{ErrorBody, ErrorCode, ErrorDetail};
pub use rollouts::{
    Group, GroupMember, Groups, NewRollout, Rollout, RolloutResult, RolloutRow, SubmitResult,
    SubmitRollouts,
};
pub use runs::{AgentSubmission, StepSubmissions};
pub use tasks::{TaskOutcome, TaskStored, TaskSummary, TasksStored};
pub use training::StepMetrics;

use serde::{Deserialize, Serialize};

/// A page of results with the cursor for the next one (`None` at the end).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(utoipa::ToSchema))]
pub struct Page<T> {
    /// The items, in insertion order.
    pub items: Vec<T>,
    /// Pass as `after` to get the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<i64>,
}

/// The run a request names when it names none.
pub fn default_run() -> String {
    "default".to_string()
}
