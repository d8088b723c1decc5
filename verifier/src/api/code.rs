//! `/v1/verify/code` (judge a program against tests) and a SandboxFusion-compatible `/run_code`
//! (the protocol itself is [`crate::compat::sandbox_fusion`]).

use axum::Json;
use axum::extract::State;
use sandbox::RunError;
use serde::Deserialize;
use utoipa::ToSchema;

use super::doc::BodyErrors;
use crate::app::AppState;
use crate::code::{CodeReference, CodeVerdict};
use crate::compat::sandbox_fusion::{RunCode, RunCodeRequest, RunCodeResponse};
use crate::error::ApiError;
use crate::extract::ApiJson;
use crate::ingest::check_size;

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
    responses((status = 200, body = CodeVerdict), BodyErrors))]
pub async fn verify(
    State(s): State<AppState>,
    ApiJson(req): ApiJson<VerifyCode>,
) -> Result<Json<CodeVerdict>, ApiError> {
    check_size("response", &req.response, s.limits.max_response_bytes)?;
    Ok(Json(
        s.scorer
            .code()
            .judge(&req.reference, &req.prompt, &req.response)
            .await,
    ))
}

/// Run one program, SandboxFusion style (drop-in for verl's `sandbox_fusion` reward).
///
/// A request that would wait for a sandbox slot longer than its own time budget
/// (`compile_timeout + run_timeout`) is answered early with 503 and `Retry-After`.
#[utoipa::path(post, path = "/run_code", tag = "sandbox", request_body = RunCodeRequest,
    responses((status = 200, body = RunCodeResponse), BodyErrors,
        (status = 503, body = wire::ErrorBody, description = "the sandbox is busy for longer than the request's time budget; see `Retry-After`")))]
pub async fn run_code(
    State(s): State<AppState>,
    ApiJson(req): ApiJson<RunCodeRequest>,
) -> Result<Json<RunCodeResponse>, ApiError> {
    let judge = s.scorer.code();
    let defaults = &judge.sandbox().config().default_limits;
    let RunCode {
        program,
        budget,
        names,
    } = RunCode::prepare(req, defaults, s.limits.max_response_bytes)?;
    let outcome = judge
        .run_within(program, Some(budget))
        .await
        .map_err(|e| match e {
            RunError::InvalidProgram(m) => ApiError::invalid("code", m),
            RunError::UnsupportedLanguage(m) => ApiError::invalid("language", m),
            RunError::Busy { retry_after } => ApiError::Busy(retry_after),
        })?;
    Ok(Json(names.answer(&outcome)))
}
