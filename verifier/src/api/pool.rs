//! `/v1/pool` and `/v1/runs`: the shared experience in the shape a policy update consumes, and
//! which agents a step is waiting for.

use axum::Json;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use serde::Deserialize;
use utoipa::IntoParams;
use wire::{Groups, StepSubmissions};

use super::{ApiQuery, AppState, check_text};
use crate::error::ApiError;
use crate::pool::rollouts;

/// Which step's groups.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct GroupsQuery {
    /// Training step.
    #[param(minimum = 0)]
    pub step: i64,
    /// Training run (default `default`).
    #[serde(default = "wire::default_run")]
    pub run: String,
}

/// For each task of step S, every agent's responses with rewards and log-probs.
#[utoipa::path(get, path = "/v1/pool/groups", tag = "pool", params(GroupsQuery),
    responses((status = 200, body = Groups), (status = 422, description = "Invalid values", body = wire::ErrorBody), (status = 503, description = "Database unavailable; nothing was stored", body = wire::ErrorBody)))]
pub async fn groups(
    State(s): State<AppState>,
    ApiQuery(q): ApiQuery<GroupsQuery>,
) -> Result<Json<Groups>, ApiError> {
    // Stored steps are >= 0, as /v1/runs/{run}/steps/{step} says.
    if q.step < 0 {
        return Err(ApiError::invalid("step", "step must be >= 0"));
    }
    let groups = rollouts::groups(&s.db, &q.run, q.step).await?;
    Ok(Json(Groups {
        run: q.run,
        step: q.step,
        groups,
    }))
}

/// Which agents have stored rollouts in one step of a run, and how many each: the barrier that
/// agents training in separate processes poll before reading the step's groups.
#[utoipa::path(get, path = "/v1/runs/{run}/steps/{step}", tag = "pool",
    params(("run" = String, Path, description = "Training run"),
           ("step" = i64, Path, minimum = 0, description = "Training step")),
    responses((status = 200, body = StepSubmissions), (status = 422, description = "Invalid values", body = wire::ErrorBody), (status = 503, description = "Database unavailable; nothing was stored", body = wire::ErrorBody)))]
pub async fn step(
    State(s): State<AppState>,
    path: Result<Path<(String, String)>, PathRejection>,
) -> Result<Json<StepSubmissions>, ApiError> {
    let Path((run, step)) = path.map_err(|e| ApiError::invalid("run", e.body_text()))?;
    check_text("run", &run, 200)?;
    let step: i64 = match step.parse() {
        Ok(n) if n >= 0 => n,
        _ => {
            return Err(ApiError::invalid(
                "step",
                format!("step must be an integer >= 0, got `{step}`"),
            ));
        }
    };
    let agents = rollouts::submissions(&s.db, &run, step).await?;
    Ok(Json(StepSubmissions { run, step, agents }))
}
