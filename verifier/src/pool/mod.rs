//! The shared experience pool in Postgres: agents, tasks, verified rollouts, capability and
//! training metrics. Every query is runtime-checked (no database needed to build).

pub mod agents;
pub mod capability;
pub mod dashboard;
pub mod rollouts;
pub mod tasks;
pub mod tokens;
pub mod training;

use std::time::Duration;

use sqlx::PgPool;
use sqlx::migrate::Migrator;
use sqlx::postgres::PgPoolOptions;
use wire::Page;

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

/// A page of up to `limit` items from up to `limit + 1` rows fetched in `seq` order: the extra
/// row only says that there is a next page, which starts after the last item's `seq`.
fn page<T>(mut rows: Vec<T>, limit: i64, seq: impl Fn(&T) -> i64) -> Page<T> {
    let more = rows.len() as i64 > limit;
    rows.truncate(limit as usize);
    let next = if more { rows.last().map(seq) } else { None };
    Page { items: rows, next }
}
