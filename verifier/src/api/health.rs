//! Liveness, readiness and Prometheus metrics.

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde_json::{Value, json};

use crate::pool;
use crate::state::AppState;

/// The process is up.
#[utoipa::path(get, path = "/healthz", tag = "ops", responses((status = 200)))]
pub async fn healthz() -> Json<Value> {
    Json(json!({ "status": "ok" }))
}

/// The database answers.
#[utoipa::path(get, path = "/readyz", tag = "ops", responses((status = 200), (status = 503)))]
pub async fn readyz(State(s): State<AppState>) -> (StatusCode, Json<Value>) {
    match sqlx::query("select 1").execute(&s.db).await {
        Ok(_) => (StatusCode::OK, Json(json!({ "status": "ready" }))),
        Err(e) => (
            StatusCode::SERVICE_UNAVAILABLE,
            Json(
                json!({ "status": "unavailable", "error": { "code": "database_unavailable", "message": e.to_string() } }),
            ),
        ),
    }
}

/// Prometheus text exposition: requests, latencies, verifications, sandbox runs, pool size
/// (an estimate from Postgres's statistics).
#[utoipa::path(get, path = "/metrics", tag = "ops", responses((status = 200, content_type = "text/plain")))]
pub async fn metrics(State(s): State<AppState>) -> String {
    if let Ok(n) = pool::rollout_estimate(&s.db).await {
        metrics::gauge!("verifier_pool_rollouts").set(n as f64);
    }
    s.prometheus.render()
}
