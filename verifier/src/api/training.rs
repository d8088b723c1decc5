//! `/v1/metrics`: per-agent training metrics written by the trainer.

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;
use wire::StepMetrics;

use super::doc::{BodyErrors, ForbiddenWrite, QueryErrors, ReadErrors, WriteErrors};
use crate::auth::Caller;
use crate::error::ApiError;
use crate::ingest::{self, RunName};
use crate::pool::{agents, training};
use crate::request::{ApiJson, ApiQuery};
use crate::state::AppState;

/// Record (or overwrite) one agent's metrics for one step.
#[utoipa::path(post, path = "/v1/metrics", tag = "training", request_body = StepMetrics,
    responses((status = 200, body = StepMetrics), BodyErrors, WriteErrors, ForbiddenWrite,
              (status = 404, description = "Unknown agent", body = wire::ErrorBody)))]
pub async fn record(
    State(s): State<AppState>,
    caller: Caller,
    ApiJson(m): ApiJson<StepMetrics>,
) -> Result<Json<StepMetrics>, ApiError> {
    ingest::validate_metrics(&m)?;
    caller
        .may_write_as(&s.db, &[m.agent_id], |_| "agent_id".into())
        .await?;
    if agents::get(&s.db, m.agent_id).await?.is_none() {
        return Err(ApiError::not_found(
            "agent_id",
            format!("no agent {}", m.agent_id),
        ));
    }
    Ok(Json(training::upsert(&s.db, &m, caller.token_id()).await?))
}

/// Which metrics to list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct MetricsQuery {
    /// Training run (default `default`).
    #[serde(default = "RunName::default_run")]
    #[param(value_type = String)]
    pub run: RunName,
    /// Only this agent.
    pub agent_id: Option<Uuid>,
}

/// A run's training metrics, by step.
#[utoipa::path(get, path = "/v1/metrics", tag = "training", params(MetricsQuery),
    responses((status = 200, body = Vec<StepMetrics>), QueryErrors, ReadErrors))]
pub async fn list(
    State(s): State<AppState>,
    ApiQuery(q): ApiQuery<MetricsQuery>,
) -> Result<Json<Vec<StepMetrics>>, ApiError> {
    Ok(Json(
        training::list(&s.db, q.run.as_str(), q.agent_id).await?,
    ))
}
