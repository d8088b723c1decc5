//! `/v1/verify/code`: judge a program against tests without storing anything.

use axum::Json;
use axum::Router;
use axum::extract::State;
use axum::routing::post;
use serde::Deserialize;
use utoipa::ToSchema;

use super::{ApiJson, AppState, check_text};
use crate::code::{CodeReference, CodeVerdict};
use crate::error::ApiError;

/// Routes of this module.
pub fn routes() -> Router<AppState> {
    Router::new().route("/v1/verify/code", post(verify))
}

/// A program to judge.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct VerifyCode {
    /// The tests and language.
    pub reference: CodeReference,
    /// The task prompt (HumanEval completions are appended to it).
    #[serde(default)]
    pub prompt: String,
    /// The model's response (a fenced code block or bare code).
    pub response: String,
}

/// Judge a program against tests in the sandbox.
#[utoipa::path(post, path = "/v1/verify/code", tag = "verify", request_body = VerifyCode,
    responses((status = 200, body = CodeVerdict), (status = 422, body = crate::error::ErrorBody)))]
pub async fn verify(
    State(s): State<AppState>,
    ApiJson(req): ApiJson<VerifyCode>,
) -> Result<Json<CodeVerdict>, ApiError> {
    check_text("response", &req.response, s.limits.max_response_bytes)?;
    Ok(Json(
        s.scorer
            .code()
            .judge(&req.reference, &req.prompt, &req.response)
            .await,
    ))
}
