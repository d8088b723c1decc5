//! `/v1/pool`: the shared experience in the shape a policy update consumes.

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};

use super::{ApiQuery, AppState};
use crate::error::ApiError;
use crate::pool::rollouts::{self, Group};

/// Which step's groups.
#[derive(Debug, Deserialize, IntoParams)]
#[serde(deny_unknown_fields)]
pub struct GroupsQuery {
    /// Training step.
    pub step: i64,
    /// Training run (default `default`).
    #[serde(default = "super::default_run")]
    pub run: String,
}

/// Every task of a step with every agent's responses.
#[derive(Debug, Serialize, ToSchema)]
pub struct Groups {
    /// The run.
    pub run: String,
    /// The step.
    pub step: i64,
    /// One group per task, in task order.
    pub groups: Vec<Group>,
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
