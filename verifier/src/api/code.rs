//! `/v1/verify/code` (judge a program against tests) and a SandboxFusion-compatible `/run_code`
//! (the protocol itself is [`crate::compat::sandbox_fusion`]).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
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
/// Runs are admitted side by side (time-sliced), so `run_timeout` is wall-clock time from the
/// start of the run, as in SandboxFusion. A run that cannot be admitted within 8 s (what verl's
/// client, which waits `compile_timeout + run_timeout + 10 s`, leaves for waiting) is answered
/// 504 with `Retry-After`: SandboxFusion's answer when it cannot run a request in time, and the
/// one status verl's client retries (a 503 or a read timeout would be final there, and would
/// cost the sample its reward).
#[utoipa::path(post, path = "/run_code", tag = "sandbox", request_body = RunCodeRequest,
    responses((status = 200, body = RunCodeResponse), BodyErrors,
        (status = 504, body = wire::ErrorBody, description = "the sandbox could not admit the run in time; retry (see `Retry-After`)")))]
pub async fn run_code(
    State(s): State<AppState>,
    ApiJson(req): ApiJson<RunCodeRequest>,
) -> Result<Json<RunCodeResponse>, Response> {
    let judge = s.scorer.code();
    if req.fuel_limit.is_some() && !judge.sandbox().config().fuel {
        let why = "this service does not meter fuel (--sandbox-fuel false)";
        return Err(ApiError::invalid("fuel_limit", why).into_response());
    }
    let defaults = &judge.sandbox().config().default_limits;
    let RunCode {
        program,
        budget,
        names,
    } = RunCode::prepare(req, defaults, s.limits.max_response_bytes)
        .map_err(|r| ApiError::from(r).into_response())?;
    let outcome = judge
        .run_within(program, Some(budget))
        .await
        .map_err(|e| match e {
            RunError::InvalidProgram(m) => ApiError::invalid("code", m).into_response(),
            RunError::UnsupportedLanguage(m) => ApiError::invalid("language", m).into_response(),
            RunError::Busy { retry_after } => {
                let mut busy = ApiError::Busy(retry_after).into_response();
                *busy.status_mut() = StatusCode::GATEWAY_TIMEOUT;
                busy
            }
        })?;
    Ok(Json(names.answer(&outcome)))
}
