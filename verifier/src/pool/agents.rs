//! Agents: the models that generate rollouts.

use sqlx::PgPool;
use uuid::Uuid;
use wire::{Agent, NewAgent};

/// The columns of [`Agent`], spliced into static SQL.
macro_rules! columns {
    () => {
        "id, name, family, size_params, tokenizer, metadata, created_at"
    };
}

/// Inserts `agent` unless one with its name exists; returns the stored agent and whether it was
/// created now.
pub async fn create(
    db: &PgPool,
    agent: &NewAgent,
    written_by: Option<Uuid>,
) -> sqlx::Result<(Agent, bool)> {
    let inserted: Option<Agent> = sqlx::query_as(concat!(
        "insert into agents (name, family, size_params, tokenizer, metadata, written_by)
         values ($1, $2, $3, $4, $5, $6) on conflict (name) do nothing returning ",
        columns!()
    ))
    .bind(&agent.name)
    .bind(&agent.family)
    .bind(agent.size_params)
    .bind(&agent.tokenizer)
    .bind(
        agent
            .metadata
            .clone()
            .unwrap_or_else(|| serde_json::json!({})),
    )
    .bind(written_by)
    .fetch_optional(db)
    .await?;
    match inserted {
        Some(a) => Ok((a, true)),
        None => Ok((
            by_name(db, &agent.name)
                .await?
                .ok_or(sqlx::Error::RowNotFound)?,
            false,
        )),
    }
}

/// Whether a stored agent matches a registration request.
pub fn same(stored: &Agent, new: &NewAgent) -> bool {
    stored.family == new.family
        && stored.size_params == new.size_params
        && stored.tokenizer == new.tokenizer
        && new.metadata.as_ref().is_none_or(|m| *m == stored.metadata)
}

/// All agents, by name.
pub async fn list(db: &PgPool) -> sqlx::Result<Vec<Agent>> {
    sqlx::query_as(concat!("select ", columns!(), " from agents order by name"))
        .fetch_all(db)
        .await
}

/// The agent with `id`.
pub async fn get(db: &PgPool, id: Uuid) -> sqlx::Result<Option<Agent>> {
    sqlx::query_as(concat!("select ", columns!(), " from agents where id = $1"))
        .bind(id)
        .fetch_optional(db)
        .await
}

/// The agent called `name`.
pub async fn by_name(db: &PgPool, name: &str) -> sqlx::Result<Option<Agent>> {
    sqlx::query_as(concat!(
        "select ",
        columns!(),
        " from agents where name = $1"
    ))
    .bind(name)
    .fetch_optional(db)
    .await
}

/// Which of `ids` exist.
pub async fn existing(db: &PgPool, ids: &[Uuid]) -> sqlx::Result<Vec<Uuid>> {
    sqlx::query_scalar("select id from agents where id = any($1)")
        .bind(ids)
        .fetch_all(db)
        .await
}

/// The names of the agents with these ids (unknown ids are left out).
pub async fn names(db: &PgPool, ids: &[Uuid]) -> sqlx::Result<Vec<(Uuid, String)>> {
    sqlx::query_as("select id, name from agents where id = any($1)")
        .bind(ids)
        .fetch_all(db)
        .await
}
