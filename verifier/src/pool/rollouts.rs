//! Rollouts: verified responses, the substance of the shared pool.

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::Value;
use sqlx::PgPool;
use utoipa::ToSchema;
use uuid::Uuid;

use super::Page;

/// A scored rollout, as stored.
#[derive(Debug, Clone, Serialize, sqlx::FromRow, ToSchema)]
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
    #[schema(value_type = Object)]
    pub verdict: Value,
    /// Client metadata.
    #[schema(value_type = Object)]
    pub metadata: Value,
}

/// A stored rollout with its place in the pool.
#[derive(Debug, Clone, Serialize, sqlx::FromRow, ToSchema)]
pub struct Rollout {
    /// The rollout.
    #[serde(flatten)]
    #[sqlx(flatten)]
    pub row: RolloutRow,
    /// When it was stored.
    pub created_at: DateTime<Utc>,
    /// Insertion order; the pagination cursor.
    pub seq: i64,
}

/// The columns of [`Rollout`], spliced into static SQL.
macro_rules! columns {
    () => {
        "id, run, task_id, agent_id, step, policy_version, response, token_count, logprob_mean, \
         logprob_sum, reward, correct, status, verdict, metadata, created_at, seq"
    };
}

/// The stored rollouts among `ids`.
pub async fn by_ids(db: &PgPool, ids: &[Uuid]) -> sqlx::Result<Vec<Rollout>> {
    sqlx::query_as(concat!(
        "select ",
        columns!(),
        " from rollouts where id = any($1)"
    ))
    .bind(ids)
    .fetch_all(db)
    .await
}

/// Stores `rows` in one transaction; rows whose id is already stored are skipped.
/// Returns the ids actually inserted.
pub async fn insert_batch(db: &PgPool, rows: &[RolloutRow]) -> sqlx::Result<Vec<Uuid>> {
    if rows.is_empty() {
        return Ok(Vec::new());
    }
    macro_rules! col {
        ($f:ident) => {
            rows.iter().map(|r| r.$f.clone()).collect::<Vec<_>>()
        };
    }
    let mut tx = db.begin().await?;
    let inserted = sqlx::query_scalar(
        "insert into rollouts (id, run, task_id, agent_id, step, policy_version, response,
             token_count, logprob_mean, logprob_sum, reward, correct, status, verdict, metadata)
         select * from unnest($1::uuid[], $2::text[], $3::uuid[], $4::uuid[], $5::int8[], $6::int8[],
             $7::text[], $8::int4[], $9::float8[], $10::float8[], $11::float8[], $12::bool[],
             $13::text[], $14::jsonb[], $15::jsonb[])
         on conflict (id) do nothing returning id",
    )
    .bind(col!(id))
    .bind(col!(run))
    .bind(col!(task_id))
    .bind(col!(agent_id))
    .bind(col!(step))
    .bind(col!(policy_version))
    .bind(col!(response))
    .bind(col!(token_count))
    .bind(col!(logprob_mean))
    .bind(col!(logprob_sum))
    .bind(col!(reward))
    .bind(col!(correct))
    .bind(col!(status))
    .bind(col!(verdict))
    .bind(col!(metadata))
    .fetch_all(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(inserted)
}

/// Filters for listing rollouts; `None` means any.
#[derive(Debug, Default)]
pub struct RolloutFilter<'a> {
    /// Training run.
    pub run: Option<&'a str>,
    /// Training step.
    pub step: Option<i64>,
    /// Agent.
    pub agent_id: Option<Uuid>,
    /// Task.
    pub task_id: Option<Uuid>,
}

/// A page of rollouts in insertion order after cursor `after`.
pub async fn list(
    db: &PgPool,
    f: &RolloutFilter<'_>,
    after: i64,
    limit: i64,
) -> sqlx::Result<Page<Rollout>> {
    let rows: Vec<Rollout> = sqlx::query_as(concat!(
        "select ",
        columns!(),
        " from rollouts
         where seq > $1 and ($2::text is null or run = $2) and ($3::int8 is null or step = $3)
           and ($4::uuid is null or agent_id = $4) and ($5::uuid is null or task_id = $5)
         order by seq limit $6"
    ))
    .bind(after)
    .bind(f.run)
    .bind(f.step)
    .bind(f.agent_id)
    .bind(f.task_id)
    .bind(limit + 1)
    .fetch_all(db)
    .await?;
    Ok(Page::from_rows(rows, limit, |r| r.seq))
}

/// One response in a prompt group, with what a policy update needs.
#[derive(Debug, Clone, Serialize, sqlx::FromRow, ToSchema)]
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
    #[schema(value_type = Object)]
    pub metadata: Value,
    #[serde(skip)]
    #[sqlx(rename = "task_id")]
    task: Uuid,
    #[serde(skip)]
    prompt: String,
}

/// Every agent's responses to one task in one step.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Group {
    /// The task.
    pub task_id: Uuid,
    /// Its prompt.
    pub prompt: String,
    /// The responses, by agent name then insertion order.
    pub rollouts: Vec<GroupMember>,
}

/// The prompt groups of `step` in `run` (judge errors left out: their rewards mean nothing).
pub async fn groups(db: &PgPool, run: &str, step: i64) -> sqlx::Result<Vec<Group>> {
    let members: Vec<GroupMember> = sqlx::query_as(
        "select r.id, r.agent_id, a.name as agent, r.response, r.reward, r.correct, r.token_count,
                r.logprob_mean, r.logprob_sum, r.policy_version, r.metadata, r.task_id, t.prompt
         from rollouts r join agents a on a.id = r.agent_id join tasks t on t.id = r.task_id
         where r.run = $1 and r.step = $2 and r.status = 'scored'
         order by t.seq, a.name, r.seq",
    )
    .bind(run)
    .bind(step)
    .fetch_all(db)
    .await?;
    let mut groups: Vec<Group> = Vec::new();
    for m in members {
        match groups.last_mut() {
            Some(g) if g.task_id == m.task => g.rollouts.push(m),
            _ => groups.push(Group {
                task_id: m.task,
                prompt: m.prompt.clone(),
                rollouts: vec![m],
            }),
        }
    }
    Ok(groups)
}
