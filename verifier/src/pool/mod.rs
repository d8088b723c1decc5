//! The shared experience pool in Postgres: agents, tasks, verified rollouts, capability and
//! training metrics. Every query is runtime-checked (no database needed to build).

pub mod agents;
pub mod capability;
pub mod rollouts;
pub mod tasks;
pub mod training;

use std::time::Duration;

use sqlx::PgPool;
use sqlx::migrate::Migrator;
use sqlx::postgres::PgPoolOptions;

/// The pool's schema, embedded from `migrations/`.
pub static MIGRATOR: Migrator = sqlx::migrate!("../migrations");

/// Connects to `url`. Fails fast (within `acquire_timeout`) when the database is away, so that
/// requests get a 503 instead of hanging.
pub async fn connect(
    url: &str,
    max_connections: u32,
    acquire_timeout: Duration,
) -> sqlx::Result<PgPool> {
    PgPoolOptions::new()
        .max_connections(max_connections)
        .acquire_timeout(acquire_timeout)
        .connect(url)
        .await
}

/// Like [`connect`] but does not touch the database until the first query, so the service can
/// start (and answer 503) while the database is still down.
pub fn connect_lazy(
    url: &str,
    max_connections: u32,
    acquire_timeout: Duration,
) -> sqlx::Result<PgPool> {
    PgPoolOptions::new()
        .max_connections(max_connections)
        .acquire_timeout(acquire_timeout)
        .connect_lazy(url)
}

/// Applies pending migrations.
pub async fn migrate(db: &PgPool) -> Result<(), sqlx::migrate::MigrateError> {
    MIGRATOR.run(db).await
}

/// About how many rollouts the pool holds: Postgres's live-row statistics, which cost nothing
/// to read, where `count(*)` would scan the whole table on every Prometheus scrape.
pub async fn rollout_estimate(db: &PgPool) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "select coalesce((select n_live_tup from pg_stat_user_tables \
         where relid = 'rollouts'::regclass), 0)",
    )
    .fetch_one(db)
    .await
}

/// A page of results with the cursor for the next one (`None` at the end).
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
pub struct Page<T> {
    /// The items, in insertion order.
    pub items: Vec<T>,
    /// Pass as `after` to get the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<i64>,
}

impl<T> Page<T> {
    /// Builds a page from up to `limit + 1` rows fetched in `seq` order.
    fn from_rows(mut rows: Vec<T>, limit: i64, seq: impl Fn(&T) -> i64) -> Self {
        let more = rows.len() as i64 > limit;
        rows.truncate(limit as usize);
        let next = if more { rows.last().map(seq) } else { None };
        Self { items: rows, next }
    }
}
