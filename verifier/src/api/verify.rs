//! Stateless scoring: `/v1/verify/math` and the OpenRLHF-compatible `/v1/reward` (the protocol
//! itself is [`crate::compat::openrlhf`]).

use std::collections::HashMap;

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use utoipa::ToSchema;
use uuid::Uuid;

use super::doc::{BodyErrors, ReadErrors};
use crate::compat::openrlhf::{self, Label, Query, RewardRequest, RewardResponse};
use crate::error::ApiError;
use crate::math;
use crate::pool::tasks::{self, ScoringTask};
use crate::refusal::check_size;
use crate::request::ApiJson;
use crate::scoring::{Score, Scorer};
use crate::state::AppState;

/// A math answer to check.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct VerifyMath {
    /// Gold answer or a solution text with `\boxed{}` / `#### N`.
    pub reference: String,
    /// The model's response.
    pub response: String,
    /// Checker options.
    #[serde(default)]
    pub options: Option<math::Options>,
}

/// Check a math answer without storing anything.
#[utoipa::path(post, path = "/v1/verify/math", tag = "verify", request_body = VerifyMath,
    responses((status = 200, body = math::Verdict), BodyErrors))]
pub async fn math(
    State(s): State<AppState>,
    ApiJson(req): ApiJson<VerifyMath>,
) -> Result<Json<math::Verdict>, ApiError> {
    check_size("reference", &req.reference, s.limits.max_response_bytes)?;
    check_size("response", &req.response, s.limits.max_response_bytes)?;
    let options = req
        .options
        .unwrap_or_else(|| s.scorer.math_options().clone());
    let verdict =
        tokio::task::spawn_blocking(move || math::verify(&req.reference, &req.response, &options))
            .await
            .map_err(|e| ApiError::Internal(format!("math grading failed: {e}")))?;
    crate::scoring::count_math(&verdict);
    Ok(Json(verdict))
}

/// OpenRLHF-compatible remote reward: grades each query's response against its label — a math
/// answer, a code reference (run in the sandbox) or a task of the pool.
#[utoipa::path(post, path = "/v1/reward", tag = "verify", request_body = RewardRequest,
    responses((status = 200, body = RewardResponse), BodyErrors, ReadErrors,
              (status = 404, description = "A label names an unknown task", body = wire::ErrorBody)))]
pub async fn reward(
    State(s): State<AppState>,
    ApiJson(req): ApiJson<RewardRequest>,
) -> Result<Json<RewardResponse>, ApiError> {
    let queries = openrlhf::read(&req, s.limits.max_response_bytes)?;
    // Task ids resolve in one query; an unknown one rejects the request, as rollouts do.
    let ids = openrlhf::task_ids(&queries);
    let tasks: HashMap<Uuid, ScoringTask> = if ids.is_empty() {
        HashMap::new()
    } else {
        tasks::for_scoring(&s.db, &ids)
            .await?
            .into_iter()
            .map(|t| (t.id, t))
            .collect()
    };
    openrlhf::check_tasks(&queries, &tasks)?;
    // Code runs in the sandbox, which bounds its own concurrency; math is cheap and inline.
    let graded =
        futures::future::join_all(queries.iter().map(|q| grade(&s.scorer, q, &tasks))).await;
    Ok(Json(openrlhf::answer(&graded)))
}

/// Grades one query against its label (`None` for an ungraded one).
async fn grade(
    scorer: &Scorer,
    q: &Query<'_>,
    tasks: &HashMap<Uuid, ScoringTask>,
) -> Option<Score> {
    match &q.label {
        Label::Ungraded => None,
        Label::AnyOf(answers) => answers
            .iter()
            .map(|a| scorer.score_math(a, q.response))
            .max_by(|a, b| a.reward.total_cmp(&b.reward)),
        Label::Reference(r, label_prompt) => {
            let prompt = label_prompt.as_deref().or(q.prompt).unwrap_or("");
            Some(scorer.score(r, prompt, q.response).await)
        }
        Label::Task(id) => {
            let t = &tasks[id];
            Some(scorer.score(&t.reference, &t.prompt, q.response).await)
        }
    }
}
