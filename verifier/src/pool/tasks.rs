//! Tasks: prompts (public) with references (hidden).

use serde_json::Value;
use sqlx::PgPool;
use uuid::Uuid;
use wire::{Page, TaskOutcome, TaskSummary};

use crate::task::{Reference, TaskKind};

/// A validated task ready to store.
#[derive(Debug, Clone)]
pub struct TaskRow {
    /// Dataset name.
    pub dataset: String,
    /// Id within the dataset.
    pub external_id: String,
    /// Verification kind.
    pub kind: TaskKind,
    /// What agents see.
    pub prompt: String,
    /// Hidden reference.
    pub reference: Reference,
    /// Public metadata.
    pub metadata: Value,
}

/// Why a batch of tasks was not stored.
#[derive(Debug, thiserror::Error)]
pub enum InsertError {
    /// Item `index` exists with different content; nothing of the batch was stored.
    #[error("task {index} of the batch is stored with other content")]
    Conflict {
        /// Position in the batch.
        index: usize,
    },
    /// The database failed.
    #[error(transparent)]
    Db(#[from] sqlx::Error),
}

/// Stores a batch of tasks in one transaction. Existing identical tasks are left alone;
/// an existing task with the same (dataset, external_id) but other content aborts the batch.
pub async fn insert_batch(
    db: &PgPool,
    tasks: &[TaskRow],
    written_by: Option<Uuid>,
) -> Result<Vec<(Uuid, TaskOutcome)>, InsertError> {
    let mut tx = db.begin().await?;
    let mut out = Vec::with_capacity(tasks.len());
    for (index, t) in tasks.iter().enumerate() {
        let reference = t.reference.to_json();
        let inserted: Option<Uuid> = sqlx::query_scalar(
            "insert into tasks (dataset, external_id, kind, prompt, reference, metadata, written_by)
             values ($1, $2, $3, $4, $5, $6, $7)
             on conflict (dataset, external_id) do nothing returning id",
        )
        .bind(&t.dataset)
        .bind(&t.external_id)
        .bind(t.kind.as_str())
        .bind(&t.prompt)
        .bind(&reference)
        .bind(&t.metadata)
        .bind(written_by)
        .fetch_optional(&mut *tx)
        .await?;
        let entry = match inserted {
            Some(id) => (id, TaskOutcome::Created),
            None => {
                let (id, same): (Uuid, bool) = sqlx::query_as(
                    "select id, kind = $3 and prompt = $4 and reference = $5 and metadata = $6
                     from tasks where dataset = $1 and external_id = $2",
                )
                .bind(&t.dataset)
                .bind(&t.external_id)
                .bind(t.kind.as_str())
                .bind(&t.prompt)
                .bind(&reference)
                .bind(&t.metadata)
                .fetch_one(&mut *tx)
                .await?;
                if !same {
                    return Err(InsertError::Conflict { index });
                }
                (id, TaskOutcome::Unchanged)
            }
        };
        out.push(entry);
    }
    tx.commit().await?;
    Ok(out)
}

/// A listed task with its insertion order, the pagination cursor.
#[derive(sqlx::FromRow)]
struct SummaryRow {
    #[sqlx(flatten)]
    task: TaskSummary,
    seq: i64,
}

/// Filters for listing tasks.
#[derive(Debug, Default)]
pub struct TaskFilter<'a> {
    /// Only this dataset.
    pub dataset: Option<&'a str>,
    /// Only this kind.
    pub kind: Option<TaskKind>,
}

/// A page of tasks in insertion order after cursor `after`.
pub async fn list(
    db: &PgPool,
    filter: &TaskFilter<'_>,
    after: i64,
    limit: i64,
) -> sqlx::Result<Page<TaskSummary>> {
    let rows: Vec<SummaryRow> = sqlx::query_as(
        "select id, dataset, external_id, kind, prompt, metadata, created_at, seq from tasks
         where seq > $1 and ($2::text is null or dataset = $2) and ($3::text is null or kind = $3)
         order by seq limit $4",
    )
    .bind(after)
    .bind(filter.dataset)
    .bind(filter.kind.map(TaskKind::as_str))
    .bind(limit + 1)
    .fetch_all(db)
    .await?;
    let page = super::page(rows, limit, |t| t.seq);
    Ok(Page {
        items: page.items.into_iter().map(|r| r.task).collect(),
        next: page.next,
    })
}

/// A task with what scoring needs.
#[derive(Debug, Clone)]
pub struct ScoringTask {
    /// Stable id.
    pub id: Uuid,
    /// The prompt (code judging may need it, e.g. HumanEval completions).
    pub prompt: String,
    /// The hidden reference.
    pub reference: Reference,
}

/// Loads the tasks among `ids` that exist, with their references.
pub async fn for_scoring(db: &PgPool, ids: &[Uuid]) -> sqlx::Result<Vec<ScoringTask>> {
    let rows: Vec<(Uuid, String, String, Value)> =
        sqlx::query_as("select id, kind, prompt, reference from tasks where id = any($1)")
            .bind(ids)
            .fetch_all(db)
            .await?;
    rows.into_iter()
        .map(|(id, kind, prompt, reference)| {
            let kind = TaskKind::parse(&kind)
                .ok_or_else(|| sqlx::Error::Decode(format!("unknown task kind {kind}").into()))?;
            let reference = Reference::from_json(kind, &reference).map_err(|e| {
                sqlx::Error::Decode(format!("task {id}: bad reference: {e}").into())
            })?;
            Ok(ScoringTask {
                id,
                prompt,
                reference,
            })
        })
        .collect()
}
