//! Rollouts: verified responses, the substance of the shared pool.

use sqlx::PgPool;
use uuid::Uuid;
use wire::{AgentSubmission, Group, GroupMember, Page, Rollout, RolloutRow};

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
pub async fn insert_batch(
    db: &PgPool,
    rows: &[RolloutRow],
    written_by: Option<Uuid>,
) -> sqlx::Result<Vec<Uuid>> {
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
             token_count, logprob_mean, logprob_sum, reward, correct, status, verdict, metadata,
             written_by)
         select *, $16::uuid from unnest($1::uuid[], $2::text[], $3::uuid[], $4::uuid[], $5::int8[], $6::int8[],
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
    .bind(written_by)
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
    Ok(super::page(rows, limit, |r| r.seq))
}

/// A group member as queried, with the task it belongs to (which groups the members).
#[derive(sqlx::FromRow)]
struct MemberRow {
    #[sqlx(flatten)]
    member: GroupMember,
    task_id: Uuid,
    prompt: String,
}

/// The prompt groups of `step` in `run` (judge errors left out: their rewards mean nothing).
pub async fn groups(db: &PgPool, run: &str, step: i64) -> sqlx::Result<Vec<Group>> {
    let members: Vec<MemberRow> = sqlx::query_as(
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
            Some(g) if g.task_id == m.task_id => g.rollouts.push(m.member),
            _ => groups.push(Group {
                task_id: m.task_id,
                prompt: m.prompt,
                rollouts: vec![m.member],
            }),
        }
    }
    Ok(groups)
}

/// Every agent with rollouts in `step` of `run` and how many, by name.
pub async fn submissions(db: &PgPool, run: &str, step: i64) -> sqlx::Result<Vec<AgentSubmission>> {
    sqlx::query_as(
        "select r.agent_id, a.name as agent, count(*) as rollouts
         from rollouts r join agents a on a.id = r.agent_id
         where r.run = $1 and r.step = $2
         group by r.agent_id, a.name order by a.name",
    )
    .bind(run)
    .bind(step)
    .fetch_all(db)
    .await
}
