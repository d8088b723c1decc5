//! `/v1/rollouts`: submitting responses for verification into the pool, and reading them back.

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use utoipa::IntoParams;
use uuid::Uuid;
use wire::{Page, Rollout, SubmitResult, SubmitRollouts};

use super::doc::{BodyErrors, ForbiddenWrite, QueryErrors, ReadErrors, WriteErrors};
use crate::auth::Caller;
use crate::error::ApiError;
use crate::ingest::{self, BatchLimits, RunName, Step};
use crate::pool::rollouts::{self, RolloutFilter};
use crate::request::{ApiJson, ApiQuery};
use crate::state::AppState;
use crate::verdict::PublicVerdict;

/// Verify a batch of rollouts and store them with their rewards in one transaction.
/// Idempotent by rollout id; all or nothing (an unknown task or agent rejects the batch).
#[utoipa::path(post, path = "/v1/rollouts", tag = "rollouts", request_body = SubmitRollouts,
    responses((status = 200, body = SubmitResult), BodyErrors, WriteErrors,
              ForbiddenWrite,
              (status = 404, description = "Unknown task or agent", body = wire::ErrorBody),
              (status = 409, description = "A reused id with other content", body = wire::ErrorBody)))]
pub async fn submit(
    State(s): State<AppState>,
    caller: Caller,
    ApiJson(req): ApiJson<SubmitRollouts>,
) -> Result<Json<SubmitResult>, ApiError> {
    let agents: Vec<Uuid> = req.rollouts.iter().map(|r| r.agent_id).collect();
    caller
        .may_write_as(&s.db, &agents, |i| format!("rollouts[{i}].agent_id"))
        .await?;
    let limits = BatchLimits {
        max_batch: s.limits.max_batch,
        max_response_bytes: s.limits.max_response_bytes,
    };
    Ok(Json(
        ingest::submit_rollouts(&s.db, &s.scorer, req.rollouts, limits, caller.token_id()).await?,
    ))
}

/// Filters and cursor for listing rollouts.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    /// Training run.
    #[param(value_type = Option<String>)]
    pub run: Option<RunName>,
    /// Training step.
    #[param(value_type = Option<i64>, minimum = 0)]
    pub step: Option<Step>,
    /// Agent.
    pub agent_id: Option<Uuid>,
    /// Task.
    pub task_id: Option<Uuid>,
    /// Cursor from the previous page's `next`.
    #[serde(default)]
    pub after: i64,
    /// Page size, 1–1000 (default 100).
    #[serde(default = "super::default_limit")]
    #[param(minimum = 1, maximum = 1000)]
    pub limit: i64,
}

/// List rollouts in insertion order with keyset pagination (verdicts without gold answers).
#[utoipa::path(get, path = "/v1/rollouts", tag = "rollouts", params(ListQuery),
    responses((status = 200, body = Page<Rollout>), QueryErrors, ReadErrors))]
pub async fn list(
    State(s): State<AppState>,
    ApiQuery(q): ApiQuery<ListQuery>,
) -> Result<Json<Page<Rollout>>, ApiError> {
    super::check_limit(q.limit)?;
    let filter = RolloutFilter {
        run: q.run.as_ref().map(RunName::as_str),
        step: q.step.map(Step::get),
        agent_id: q.agent_id,
        task_id: q.task_id,
    };
    let mut page = rollouts::list(&s.db, &filter, q.after, q.limit).await?;
    for r in &mut page.items {
        r.row.verdict = PublicVerdict::of_stored(&r.row.verdict);
    }
    Ok(Json(page))
}
