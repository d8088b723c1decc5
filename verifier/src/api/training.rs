//! `/v1/metrics`: per-agent training metrics written by the trainer.

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;
use wire::StepMetrics;

use super::{ApiJson, ApiQuery, AppState, check_json, check_text};
use crate::error::ApiError;
use crate::pool::{agents, training};

/// Record (or overwrite) one agent's metrics for one step.
#[utoipa::path(post, path = "/v1/metrics", tag = "training", request_body = StepMetrics,
    responses((status = 200, body = StepMetrics), (status = 400, description = "Unreadable JSON", body = wire::ErrorBody),
              (status = 404, description = "Unknown agent", body = wire::ErrorBody),
              (status = 413, description = "Body over the size limit", body = wire::ErrorBody), (status = 422, description = "Invalid values", body = wire::ErrorBody), (status = 503, description = "Database unavailable; nothing was stored", body = wire::ErrorBody)))]
pub async fn record(
    State(s): State<AppState>,
    ApiJson(m): ApiJson<StepMetrics>,
) -> Result<Json<StepMetrics>, ApiError> {
    check_text("run", &m.run, 200)?;
    if m.created_at.is_some() {
        return Err(ApiError::invalid(
            "created_at",
            "created_at is set by the server; leave it out",
        ));
    }
    if m.step < 0 {
        return Err(ApiError::invalid("step", "step must be >= 0"));
    }
    if !m.extra.is_object() {
        return Err(ApiError::invalid("extra", "extra must be a JSON object"));
    }
    check_json("extra", &m.extra)?;
    if agents::get(&s.db, m.agent_id).await?.is_none() {
        return Err(ApiError::not_found(
            "agent_id",
            format!("no agent {}", m.agent_id),
        ));
    }
    Ok(Json(training::upsert(&s.db, &m).await?))
}

/// Which metrics to list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct MetricsQuery {
    /// Training run (default `default`).
    #[serde(default = "wire::default_run")]
    pub run: String,
    /// Only this agent.
    pub agent_id: Option<Uuid>,
}

/// A run's training metrics, by step.
#[utoipa::path(get, path = "/v1/metrics", tag = "training", params(MetricsQuery),
    responses((status = 200, body = Vec<StepMetrics>), (status = 422, description = "Invalid values", body = wire::ErrorBody), (status = 503, description = "Database unavailable; nothing was stored", body = wire::ErrorBody)))]
pub async fn list(
    State(s): State<AppState>,
    ApiQuery(q): ApiQuery<MetricsQuery>,
) -> Result<Json<Vec<StepMetrics>>, ApiError> {
    Ok(Json(training::list(&s.db, &q.run, q.agent_id).await?))
}
