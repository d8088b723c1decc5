//! Capability: each agent's accuracy per step and smoothed over the last K steps (HACPO §1).

use serde::Serialize;
use sqlx::PgPool;
use utoipa::ToSchema;
use uuid::Uuid;

/// One step of an agent's capability history.
#[derive(Debug, Clone, Serialize, sqlx::FromRow, ToSchema)]
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

/// The capability history of `agent` in `run` with window `k`, oldest step first.
pub async fn history(
    db: &PgPool,
    agent: Uuid,
    run: &str,
    k: i32,
) -> sqlx::Result<Vec<StepCapability>> {
    sqlx::query_as(
        "select step, rollouts, accuracy, capability from agent_capability($3)
         where agent_id = $1 and run = $2 order by step",
    )
    .bind(agent)
    .bind(run)
    .bind(k)
    .fetch_all(db)
    .await
}
