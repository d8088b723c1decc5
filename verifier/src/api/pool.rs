//! `/v1/pool` and `/v1/runs`: the shared experience in the shape a policy update consumes, and
//! which agents a step is waiting for.

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use utoipa::IntoParams;
use wire::{Groups, StepSubmissions};

use super::doc::{QueryErrors, ReadErrors};
use crate::error::ApiError;
use crate::ingest::{RunName, Step};
use crate::pool::rollouts;
use crate::request::{ApiQuery, RunStep};
use crate::state::AppState;

/// Which step's groups.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct GroupsQuery {
    /// Training step.
    #[param(value_type = i64, minimum = 0)]
    pub step: Step,
    /// Training run (default `default`).
    #[serde(default = "RunName::default_run")]
    #[param(value_type = String)]
    pub run: RunName,
}

/// For each task of step S, every agent's responses with rewards and log-probs.
#[utoipa::path(get, path = "/v1/pool/groups", tag = "pool", params(GroupsQuery),
    responses((status = 200, body = Groups), QueryErrors, ReadErrors))]
pub async fn groups(
    State(s): State<AppState>,
    ApiQuery(q): ApiQuery<GroupsQuery>,
) -> Result<Json<Groups>, ApiError> {
    let groups = rollouts::groups(&s.db, q.run.as_str(), q.step.get()).await?;
    Ok(Json(Groups {
        run: q.run.into(),
        step: q.step.get(),
        groups,
    }))
}

/// Which agents have stored rollouts in one step of a run, and how many each: the barrier that
/// agents training in separate processes poll before reading the step's groups.
#[utoipa::path(get, path = "/v1/runs/{run}/steps/{step}", tag = "pool",
    params(("run" = String, Path, description = "Training run"),
           ("step" = i64, Path, minimum = 0, description = "Training step")),
    responses((status = 200, body = StepSubmissions), QueryErrors, ReadErrors))]
pub async fn step(
    State(s): State<AppState>,
    RunStep { run, step }: RunStep,
) -> Result<Json<StepSubmissions>, ApiError> {
    let agents = rollouts::submissions(&s.db, run.as_str(), step.get()).await?;
    Ok(Json(StepSubmissions {
        run: run.into(),
        step: step.get(),
        agents,
    }))
}
