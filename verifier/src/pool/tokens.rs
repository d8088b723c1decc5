//! Bearer tokens: their scopes, agent, expiry and the digest of their secret.

use chrono::{DateTime, Utc};
use sqlx::PgPool;
use uuid::Uuid;

/// A stored token (its digest never leaves [`crate::auth`]).
#[derive(Debug, Clone, sqlx::FromRow)]
pub struct TokenRow {
    /// Its id, the `<id>` of `hacrl_<id>_<secret>`.
    pub id: Uuid,
    /// A name people know it by (`trainer-a`, `ci`).
    pub name: String,
    /// What it may do: `score`, `read`, `write`, `admin`.
    pub scopes: Vec<String>,
    /// The agent a `write` token writes as.
    pub agent: Option<String>,
    /// SHA-256 of the secret.
    pub digest: Vec<u8>,
    /// When it was made.
    pub created_at: DateTime<Utc>,
    /// When it stops working (`None`: never).
    pub expires_at: Option<DateTime<Utc>>,
    /// When it was revoked.
    pub revoked_at: Option<DateTime<Utc>>,
    /// Its request rate, per second (`None`: the service's default).
    pub rate: Option<f64>,
    /// Its burst above the rate.
    pub burst: Option<i32>,
    /// Its requests that may run programs in flight at once.
    pub sandbox: Option<i32>,
}

/// A token to store.
#[derive(Debug)]
pub struct NewToken<'a> {
    /// Its id.
    pub id: Uuid,
    /// Its name.
    pub name: &'a str,
    /// Its scopes.
    pub scopes: &'a [String],
    /// The agent a `write` token writes as.
    pub agent: Option<&'a str>,
    /// SHA-256 of its secret.
    pub digest: &'a [u8; 32],
    /// When it stops working.
    pub expires_at: Option<DateTime<Utc>>,
    /// Its request rate, per second.
    pub rate: Option<f64>,
    /// Its burst above the rate.
    pub burst: Option<i32>,
    /// Its requests that may run programs in flight at once.
    pub sandbox: Option<i32>,
}

/// Stores a token; `false` when its name or id is taken (nothing is changed then).
pub async fn create(db: &PgPool, t: &NewToken<'_>) -> sqlx::Result<bool> {
    let done = sqlx::query(
        "insert into tokens (id, name, scopes, agent, digest, expires_at, rate, burst, sandbox)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9) on conflict do nothing",
    )
    .bind(t.id)
    .bind(t.name)
    .bind(t.scopes)
    .bind(t.agent)
    .bind(&t.digest[..])
    .bind(t.expires_at)
    .bind(t.rate)
    .bind(t.burst)
    .bind(t.sandbox)
    .execute(db)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// The token with `id`.
pub async fn get(db: &PgPool, id: Uuid) -> sqlx::Result<Option<TokenRow>> {
    sqlx::query_as("select * from tokens where id = $1")
        .bind(id)
        .fetch_optional(db)
        .await
}

/// The token named `name`.
pub async fn by_name(db: &PgPool, name: &str) -> sqlx::Result<Option<TokenRow>> {
    sqlx::query_as("select * from tokens where name = $1")
        .bind(name)
        .fetch_optional(db)
        .await
}

/// Every token, by name.
pub async fn list(db: &PgPool) -> sqlx::Result<Vec<TokenRow>> {
    sqlx::query_as("select * from tokens order by name")
        .fetch_all(db)
        .await
}

/// Sets the limits of token `id` (`None`: the service's default).
pub async fn set_limits(
    db: &PgPool,
    id: Uuid,
    rate: Option<f64>,
    burst: Option<u32>,
    sandbox: Option<u32>,
) -> sqlx::Result<()> {
    sqlx::query("update tokens set rate = $2, burst = $3, sandbox = $4 where id = $1")
        .bind(id)
        .bind(rate)
        .bind(burst.map(|b| b as i32))
        .bind(sandbox.map(|n| n as i32))
        .execute(db)
        .await?;
    Ok(())
}

/// Revokes the token named `name` (from now on); `false` when there is none.
pub async fn revoke(db: &PgPool, name: &str) -> sqlx::Result<bool> {
    let done =
        sqlx::query("update tokens set revoked_at = coalesce(revoked_at, now()) where name = $1")
            .bind(name)
            .execute(db)
            .await?;
    Ok(done.rows_affected() == 1)
}

/// How many tokens work now (neither revoked nor expired).
pub async fn live(db: &PgPool) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "select count(*) from tokens
         where revoked_at is null and (expires_at is null or expires_at > now())",
    )
    .fetch_one(db)
    .await
}
