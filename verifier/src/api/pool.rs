//! `/v1/pool`: the shared experience in the shape a policy update consumes.

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use utoipa::IntoParams;
use wire::Groups;

use super::{ApiQuery, AppState};
use crate::error::ApiError;
use crate::pool::rollouts;

/// Which step's groups.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct GroupsQuery {
    /// Training step.
    pub step: i64,
    /// Training run (default `default`).
    #[serde(default = "wire::default_run")]
    pub run: String,
}

/// For each task of step S, every agent's responses with rewards and log-probs.
#[utoipa::path(get, path = "/v1/pool/groups", tag = "pool", params(GroupsQuery),
    responses((status = 200, body = Groups)))]
pub async fn groups(
    State(s): State<AppState>,
    ApiQuery(q): ApiQuery<GroupsQuery>,
) -> Result<Json<Groups>, ApiError> {
    let groups = rollouts::groups(&s.db, &q.run, q.step).await?;
    Ok(Json(Groups {
        run: q.run,
        step: q.step,
        groups,
    }))
}
