//! Training metrics written by the trainer, one row per (run, agent, step).

use sqlx::PgPool;
use uuid::Uuid;
use wire::StepMetrics;

/// Writes (or overwrites: a resumed step recomputes its metrics) one row.
pub async fn upsert(
    db: &PgPool,
    m: &StepMetrics,
    written_by: Option<Uuid>,
) -> sqlx::Result<StepMetrics> {
    sqlx::query_as(
        "insert into train_metrics (run, agent_id, step, loss, reward_mean, accuracy, clip_fraction, kl, grad_norm, extra, written_by)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
         on conflict (run, agent_id, step) do update set loss = excluded.loss,
             reward_mean = excluded.reward_mean, accuracy = excluded.accuracy,
             clip_fraction = excluded.clip_fraction, kl = excluded.kl,
             grad_norm = excluded.grad_norm, extra = excluded.extra,
             written_by = excluded.written_by, created_at = now()
         returning *",
    )
    .bind(&m.run)
    .bind(m.agent_id)
    .bind(m.step)
    .bind(m.loss)
    .bind(m.reward_mean)
    .bind(m.accuracy)
    .bind(m.clip_fraction)
    .bind(m.kl)
    .bind(m.grad_norm)
    .bind(&m.extra)
    .bind(written_by)
    .fetch_one(db)
    .await
}

/// All metrics of `run`, optionally for one agent, by step.
pub async fn list(db: &PgPool, run: &str, agent: Option<Uuid>) -> sqlx::Result<Vec<StepMetrics>> {
    sqlx::query_as(
        "select * from train_metrics where run = $1 and ($2::uuid is null or agent_id = $2)
         order by step, agent_id",
    )
    .bind(run)
    .bind(agent)
    .fetch_all(db)
    .await
}
