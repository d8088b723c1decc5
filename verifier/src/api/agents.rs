//! `/v1/agents`: registering agents and reading their capability.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;
use wire::{Agent, Capability, NewAgent};

use super::doc::{BodyErrors, ForbiddenWrite, QueryErrors, ReadErrors, WriteErrors};
use crate::auth::Caller;
use crate::error::ApiError;
use crate::ingest::{self, RunName};
use crate::pool::{agents, capability};
use crate::request::{ApiJson, ApiQuery};
use crate::state::AppState;

/// Register an agent (idempotent by name).
#[utoipa::path(post, path = "/v1/agents", request_body = NewAgent, tag = "agents",
    responses((status = 201, description = "Created", body = Agent),
              (status = 200, description = "Already registered with the same fields", body = Agent),
              BodyErrors, WriteErrors, ForbiddenWrite,
              (status = 409, description = "Name taken with other fields", body = wire::ErrorBody)))]
pub async fn create(
    State(s): State<AppState>,
    caller: Caller,
    ApiJson(new): ApiJson<NewAgent>,
) -> Result<(StatusCode, Json<Agent>), ApiError> {
    ingest::validate_agent(&new)?;
    caller.may_register(&new.name)?;
    let (agent, created) = agents::create(&s.db, &new, caller.token_id()).await?;
    if created {
        return Ok((StatusCode::CREATED, Json(agent)));
    }
    if !agents::same(&agent, &new) {
        return Err(ApiError::conflict(
            "name",
            format!("agent `{}` is registered with other fields", new.name),
        ));
    }
    Ok((StatusCode::OK, Json(agent)))
}

/// List all agents.
#[utoipa::path(get, path = "/v1/agents", tag = "agents",
    responses((status = 200, body = Vec<Agent>), ReadErrors))]
pub async fn list(State(s): State<AppState>) -> Result<Json<Vec<Agent>>, ApiError> {
    Ok(Json(agents::list(&s.db).await?))
}

/// One agent, by id or by name.
#[utoipa::path(get, path = "/v1/agents/{agent}", tag = "agents",
    params(("agent" = String, Path, description = "Agent id or name")),
    responses((status = 200, body = Agent), (status = 404, body = wire::ErrorBody), ReadErrors))]
pub async fn get(
    State(s): State<AppState>,
    Path(agent): Path<String>,
) -> Result<Json<Agent>, ApiError> {
    Ok(Json(resolve(&s, &agent).await?))
}

async fn resolve(s: &AppState, key: &str) -> Result<Agent, ApiError> {
    let found = match key.parse::<Uuid>() {
        Ok(id) => agents::get(&s.db, id).await?,
        Err(_) => agents::by_name(&s.db, key).await?,
    };
    found.ok_or_else(|| ApiError::not_found("agent", format!("no agent `{key}`")))
}

/// Parameters of a capability query.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct CapabilityQuery {
    /// Window K: steps averaged, 1–10000 (default 5, as in HACPO).
    #[serde(default = "default_window")]
    #[param(minimum = 1, maximum = 10000)]
    pub window: i32,
    /// Training run (default `default`).
    #[serde(default = "RunName::default_run")]
    #[param(value_type = String)]
    pub run: RunName,
}

fn default_window() -> i32 {
    5
}

/// Accuracy per step and capability (mean over the last K steps) of an agent.
#[utoipa::path(get, path = "/v1/agents/{agent}/capability", tag = "agents",
    params(("agent" = String, Path, description = "Agent id or name"), CapabilityQuery),
    responses((status = 200, body = Capability), (status = 404, body = wire::ErrorBody),
              QueryErrors, ReadErrors))]
pub async fn capability(
    State(s): State<AppState>,
    Path(agent): Path<String>,
    ApiQuery(q): ApiQuery<CapabilityQuery>,
) -> Result<Json<Capability>, ApiError> {
    if !(1..=10_000).contains(&q.window) {
        return Err(ApiError::invalid(
            "window",
            "window must be between 1 and 10000",
        ));
    }
    let agent = resolve(&s, &agent).await?;
    let steps = capability::history(&s.db, agent.id, q.run.as_str(), q.window).await?;
    Ok(Json(Capability {
        agent_id: agent.id,
        agent: agent.name,
        run: q.run.into(),
        window: q.window,
        capability: steps.last().map(|c| c.capability),
        steps,
    }))
}
