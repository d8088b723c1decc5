//! Stateless scoring: `/v1/verify/math` and the OpenRLHF-compatible `/v1/reward`.

use axum::Json;
use axum::extract::State;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use super::{ApiJson, AppState, check_size};
use crate::error::ApiError;
use crate::math;

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
    responses((status = 200, body = math::Verdict), (status = 422, body = crate::error::ErrorBody)))]
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
    metrics::counter!("verifier_verifications_total", "kind" => "math", "outcome" => if verdict.correct { "correct" } else { "incorrect" }).increment(1);
    Ok(Json(verdict))
}

/// OpenRLHF remote reward request (`--remote_rm_url`).
#[derive(Debug, Deserialize, ToSchema)]
pub struct RewardRequest {
    /// Prompt + response texts.
    pub query: Vec<String>,
    /// The prompts, used to cut the response out of `query`.
    #[serde(default)]
    pub prompts: Vec<String>,
    /// Gold answers, one per query.
    pub labels: Vec<String>,
}

/// OpenRLHF remote reward response.
#[derive(Debug, Serialize, ToSchema)]
pub struct RewardResponse {
    /// Reward per query.
    pub rewards: Vec<f64>,
    /// Same as `rewards` (OpenRLHF reads either).
    pub scores: Vec<f64>,
    /// Per-query extras OpenRLHF logs.
    #[schema(value_type = Object)]
    pub extra_logs: Value,
}

/// OpenRLHF-compatible remote reward: grades each query's response against its label as a math
/// answer.
#[utoipa::path(post, path = "/v1/reward", tag = "verify", request_body = RewardRequest,
    responses((status = 200, body = RewardResponse), (status = 422, body = crate::error::ErrorBody)))]
pub async fn reward(
    State(s): State<AppState>,
    ApiJson(req): ApiJson<RewardRequest>,
) -> Result<Json<RewardResponse>, ApiError> {
    if req.labels.len() != req.query.len() {
        return Err(ApiError::invalid(
            "labels",
            format!(
                "{} labels for {} queries",
                req.labels.len(),
                req.query.len()
            ),
        ));
    }
    if !req.prompts.is_empty() && req.prompts.len() != req.query.len() {
        return Err(ApiError::invalid(
            "prompts",
            format!(
                "{} prompts for {} queries",
                req.prompts.len(),
                req.query.len()
            ),
        ));
    }
    for (i, q) in req.query.iter().enumerate() {
        check_size(&format!("query[{i}]"), q, s.limits.max_response_bytes)?;
    }
    let scorer = s.scorer.clone();
    let verdicts = tokio::task::spawn_blocking(move || {
        req.query
            .iter()
            .enumerate()
            .map(|(i, q)| {
                // The response is what follows the prompt; a query that does not start with its
                // prompt is graded whole.
                let response = req
                    .prompts
                    .get(i)
                    .and_then(|p| q.strip_prefix(p.as_str()))
                    .unwrap_or(q);
                // Reasoning models: after a closing `</think>`, only what follows holds the answer.
                let response = crate::math::after_thinking(response);
                scorer.score_math(&req.labels[i], response)
            })
            .collect::<Vec<_>>()
    })
    .await
    .map_err(|e| ApiError::Internal(format!("math grading failed: {e}")))?;
    let rewards: Vec<f64> = verdicts.iter().map(|v| v.reward).collect();
    let correct: Vec<bool> = verdicts.iter().map(|v| v.correct).collect();
    Ok(Json(RewardResponse {
        scores: rewards.clone(),
        rewards,
        extra_logs: serde_json::json!({ "correct": correct }),
    }))
}
