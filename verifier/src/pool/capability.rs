//! Capability: each agent's accuracy per step and smoothed over the last K steps (HACPO §1).

use sqlx::PgPool;
use uuid::Uuid;
use wire::StepCapability;

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
